// SPDX-License-Identifier: GPL-2.0
/* threads.c - the table of tracked threads (see threads.h for the why). */

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "monitor.h"
#include "threads.h"

/* The smallest table: 64 buckets, a 512-byte filter. */
#define THREADS_MIN_BUCKETS 64
/* The largest: a filter of 2^32 bits, the hash's range (pid_max is 2^22). */
#define THREADS_MAX_BUCKETS (1U << (32 - MKM_THREADS_FILTER_SHIFT))
/*
 * Entries linked into a new table per hold of the lock, in a resize, and
 * buckets of the old one walked: a table emptied from 2^23 buckets (or
 * 2^17, for the 65536 threads of one monitor) walked in one hold would
 * keep interrupts off for milliseconds, finding nothing.
 */
#define THREADS_RESIZE_BATCH 256
#define THREADS_RESIZE_BUCKETS 4096
/*
 * Entries the fork probe can take without allocating (a probe must not,
 * on PREEMPT_RT); a work item refills them when half are gone. A burst
 * of more forks than that leaves the rest of the children untracked,
 * which their FORK records say (no MKM_EVF_INHERITED).
 */
#define THREADS_SPARES 128

struct mkm_threads_table __rcu *mkm_threads_table;
DEFINE_RAW_SPINLOCK(mkm_threads_lock);

/* Under mkm_threads_lock. */
static struct mkm_threads_table *threads_next; /* being filled by a resize */
static unsigned int threads_count; /* entries in the table */
static unsigned int threads_gen; /* of the last table made */
static LIST_HEAD(threads_spares);
static unsigned int threads_nr_spares;

static DEFINE_MUTEX(threads_resize_lock); /* one resize at a time */

static void threads_resize_fn(struct work_struct *work)
{
	mkm_threads_resize();
}

static void threads_spares_fn(struct work_struct *work)
{
	mkm_threads_fill_spares();
}

static DECLARE_WORK(threads_resize_work, threads_resize_fn);
static DECLARE_WORK(threads_spares_work, threads_spares_fn);

static struct mkm_threads_table *threads_locked_table(void)
{
	return rcu_dereference_protected(mkm_threads_table,
					 lockdep_is_held(&mkm_threads_lock));
}

static struct mkm_tracked *threads_entry(const struct mkm_threads_table *tb,
					 struct hlist_node *node)
{
	return (struct mkm_tracked *)((char *)node - tb->node_offset);
}

static struct mkm_threads_table *table_alloc(unsigned int nr_buckets,
					     unsigned int slot)
{
	unsigned int filter_bits = ilog2(nr_buckets) + MKM_THREADS_FILTER_SHIFT;
	struct mkm_threads_table *tb;

	tb = kvzalloc(struct_size(tb, filter,
				  BITS_TO_LONGS(1UL << filter_bits)),
		      GFP_KERNEL);
	if (!tb)
		return NULL;
	tb->buckets = kvcalloc(nr_buckets, sizeof(*tb->buckets), GFP_KERNEL);
	if (!tb->buckets) {
		kvfree(tb);
		return NULL;
	}
	tb->shift = 32 - filter_bits;
	tb->nr_buckets = nr_buckets;
	tb->slot = slot;
	tb->node_offset = offsetof(struct mkm_tracked, hash[slot]);
	return tb;
}

static void table_free(struct mkm_threads_table *tb)
{
	kvfree(tb->buckets);
	kvfree(tb);
}

static bool table_has(const struct mkm_threads_table *tb,
		      const struct mkm_tracked *t)
{
	return t->hashed_in[tb->slot] == tb->gen;
}

static void table_link(struct mkm_threads_table *tb, struct mkm_tracked *t)
{
	u32 bit = mkm_threads_bit(tb, t->task);

	/*
	 * The bit first: the entry is published with a release store, so a
	 * reader that finds the entry finds the bit set.
	 */
	set_bit(bit, tb->filter);
	hlist_add_head_rcu(&t->hash[tb->slot],
			   &tb->buckets[bit >> MKM_THREADS_FILTER_SHIFT]);
	t->hashed_in[tb->slot] = tb->gen;
}

static void table_unlink(struct mkm_threads_table *tb, struct mkm_tracked *t)
{
	u32 bit = mkm_threads_bit(tb, t->task);
	struct hlist_head *head;
	struct hlist_node *node;

	hlist_del_rcu(&t->hash[tb->slot]);
	t->hashed_in[tb->slot] = 0;
	/* The bit stays while another entry of the bucket has it. */
	head = &tb->buckets[bit >> MKM_THREADS_FILTER_SHIFT];
	hlist_for_each(node, head) {
		if (mkm_threads_bit(tb, threads_entry(tb, node)->task) == bit)
			return;
	}
	clear_bit(bit, tb->filter);
}

/*
 * The bucket count for n entries, given the current one: doubled past one
 * entry per bucket, halved below one per eight (the gap keeps a count
 * that hovers from resizing back and forth).
 */
static unsigned int threads_size_for(unsigned int n, unsigned int now)
{
	if (n <= now && (n >= now / 8 || now == THREADS_MIN_BUCKETS))
		return now;
	return clamp_t(unsigned int, roundup_pow_of_two(2 * (n ?: 1)),
		       THREADS_MIN_BUCKETS, THREADS_MAX_BUCKETS);
}

/* Under mkm_threads_lock: asks for a resize if the count calls for one. */
static void threads_check_size(const struct mkm_threads_table *tb)
{
	if (!threads_next &&
	    threads_size_for(threads_count, tb->nr_buckets) != tb->nr_buckets)
		schedule_work(&threads_resize_work);
}

/*
 * Moves the sensors to a table sized for the entries there are now. In
 * process context; the table stays usable throughout (if the new one
 * cannot be allocated, the old one stays, denser: slower, still right).
 */
void mkm_threads_resize(void)
{
	struct mkm_threads_table *old, *new;
	unsigned int want, b;

	mutex_lock(&threads_resize_lock);
	raw_spin_lock_irq(&mkm_threads_lock);
	old = threads_locked_table();
	want = threads_size_for(threads_count, old->nr_buckets);
	raw_spin_unlock_irq(&mkm_threads_lock);
	if (want == old->nr_buckets)
		goto out;
	new = table_alloc(want, !old->slot);
	if (!new)
		goto out;

	/* From here adds and deletes go to both tables. */
	raw_spin_lock_irq(&mkm_threads_lock);
	new->gen = ++threads_gen ?: ++threads_gen;
	threads_next = new;
	raw_spin_unlock_irq(&mkm_threads_lock);

	/* Then what the old one had, a batch at a time, interrupts off. */
	b = 0;
	while (b < old->nr_buckets) {
		unsigned int linked = 0, end;

		end = b + min(old->nr_buckets - b, THREADS_RESIZE_BUCKETS);
		raw_spin_lock_irq(&mkm_threads_lock);
		for (; b < end && linked < THREADS_RESIZE_BATCH; b++) {
			struct hlist_node *node;

			hlist_for_each(node, &old->buckets[b]) {
				struct mkm_tracked *t =
					threads_entry(old, node);

				if (!table_has(new, t)) {
					table_link(new, t);
					linked++;
				}
			}
		}
		raw_spin_unlock_irq(&mkm_threads_lock);
		cond_resched();
	}

	raw_spin_lock_irq(&mkm_threads_lock);
	rcu_assign_pointer(mkm_threads_table, new);
	threads_next = NULL;
	raw_spin_unlock_irq(&mkm_threads_lock);
	/*
	 * No sensor is in the old table after this, and none can be led
	 * from it into a later one: the next resize, which reuses the old
	 * table's hash nodes, waits for this mutex.
	 */
	synchronize_rcu();
	table_free(old);
	raw_spin_lock_irq(&mkm_threads_lock);
	threads_check_size(new); /* the count may have moved on meanwhile */
	raw_spin_unlock_irq(&mkm_threads_lock);
out:
	mutex_unlock(&threads_resize_lock);
}

/* cred: task's credentials found allowed, a reference t takes over. */
static void threads_init_entry(struct mkm_tracked *t, struct task_struct *task,
			       struct mkm_monitor *mon, u32 tid, u32 unique_id,
			       const struct cred *cred)
{
	get_task_struct(task);
	t->task = task;
	t->cred = cred;
	t->mon = mon;
	t->perfmon = mon->perfmon;
	t->tid = tid;
	t->unique_id = unique_id;
	/* An inherited thread's first wait counts from here (no ATTACH). */
	t->run_delay = mkm_task_run_delay(task);
	t->wake_arrivals = ULONG_MAX;
}

/*
 * An entry for task, not yet hashed in, keeping cred (a reference of its
 * own) as the credentials last found allowed: the very ones the caller
 * checked, since the task may change its own at any time.
 */
struct mkm_tracked *mkm_threads_new(struct task_struct *task,
				    struct mkm_monitor *mon, u32 tid,
				    u32 unique_id, const struct cred *cred)
{
	struct mkm_tracked *t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);

	if (t)
		threads_init_entry(t, task, mon, tid, unique_id,
				   get_cred(cred));
	return t;
}

/*
 * Why t cannot be hashed in, or 0: -ESHUTDOWN if its monitor is being
 * destroyed, -EBUSY if another monitor tracks the task, -EEXIST if this
 * one does, -ENOSPC if the monitor tracks too many threads.
 */
static int threads_refuse(struct task_struct *task, struct mkm_monitor *mon)
{
	struct mkm_tracked *old;

	if (mon->dying)
		return -ESHUTDOWN;
	old = mkm_threads_find(threads_locked_table(), task);
	if (old)
		return old->mon == mon ? -EEXIST : -EBUSY;
	if (mon->nr_threads >= MKM_THREADS_PER_MONITOR_MAX)
		return -ENOSPC;
	return 0;
}

static void threads_link(struct mkm_tracked *t)
{
	struct mkm_threads_table *tb = threads_locked_table();

	table_link(tb, t);
	if (threads_next)
		table_link(threads_next, t);
	list_add_tail(&t->mon_link, &t->mon->threads);
	t->mon->nr_threads++;
	threads_count++;
	threads_check_size(tb);
}

/*
 * Hashes t in, under mkm_threads_lock (held by the caller, interrupts off),
 * or says why not (threads_refuse()).
 */
int mkm_threads_add(struct mkm_tracked *t)
{
	int ret;

	lockdep_assert_held(&mkm_threads_lock);
	ret = threads_refuse(t->task, t->mon);
	if (!ret)
		threads_link(t);
	return ret;
}

/*
 * Under mkm_threads_lock: tracks task in mon with a spare entry, without
 * allocating (the fork probe's way). NULL if it may not be tracked
 * (threads_refuse()) or no spare is left.
 */
struct mkm_tracked *mkm_threads_new_spare(struct task_struct *task,
					  struct mkm_monitor *mon, u32 tid,
					  u32 unique_id)
{
	struct mkm_tracked *t;

	lockdep_assert_held(&mkm_threads_lock);
	if (threads_nr_spares <= THREADS_SPARES / 2)
		schedule_work(&threads_spares_work);
	t = list_first_entry_or_null(&threads_spares, struct mkm_tracked,
				     mon_link);
	if (!t || threads_refuse(task, mon))
		return NULL;
	list_del(&t->mon_link);
	threads_nr_spares--;
	/* The caller checks these ones (sensor.c's fork probe). */
	threads_init_entry(t, task, mon, tid, unique_id, get_task_cred(task));
	threads_link(t);
	return t;
}

/* Tops the spare entries up to THREADS_SPARES. In process context. */
void mkm_threads_fill_spares(void)
{
	LIST_HEAD(more);
	unsigned int n, i;

	raw_spin_lock_irq(&mkm_threads_lock);
	n = THREADS_SPARES - min(threads_nr_spares, THREADS_SPARES);
	raw_spin_unlock_irq(&mkm_threads_lock);
	for (i = 0; i < n; i++) {
		struct mkm_tracked *t = kzalloc(sizeof(*t), GFP_KERNEL);

		if (!t)
			break;
		list_add(&t->mon_link, &more);
	}
	raw_spin_lock_irq(&mkm_threads_lock);
	list_splice(&more, &threads_spares);
	threads_nr_spares += i;
	raw_spin_unlock_irq(&mkm_threads_lock);
}

/* Unhashes t; sensors may still see it until a grace period passes. */
void mkm_threads_del_locked(struct mkm_tracked *t)
{
	struct mkm_threads_table *tb = threads_locked_table();

	lockdep_assert_held(&mkm_threads_lock);
	table_unlink(tb, t);
	if (threads_next && table_has(threads_next, t))
		table_unlink(threads_next, t);
	list_del(&t->mon_link);
	t->mon->nr_threads--;
	threads_count--;
	threads_check_size(tb);
}

void mkm_threads_free(struct mkm_tracked *t)
{
	put_cred(t->cred);
	put_task_struct(t->task);
	kfree(t);
}

static void threads_free_cb(struct rcu_head *rcu)
{
	mkm_threads_free(container_of(rcu, struct mkm_tracked, rcu));
}

/* Frees an unhashed t once no sensor can still be looking at it. */
void mkm_threads_free_rcu(struct mkm_tracked *t)
{
	call_rcu(&t->rcu, threads_free_cb);
}

int mkm_threads_init(void)
{
	struct mkm_threads_table *tb = table_alloc(THREADS_MIN_BUCKETS, 0);

	if (!tb)
		return -ENOMEM;
	tb->gen = ++threads_gen;
	rcu_assign_pointer(mkm_threads_table, tb);
	mkm_threads_fill_spares();
	return 0;
}

/* When no entry is left and no sensor runs. */
void mkm_threads_exit(void)
{
	struct mkm_tracked *t, *next;

	cancel_work_sync(&threads_resize_work);
	cancel_work_sync(&threads_spares_work);
	list_for_each_entry_safe(t, next, &threads_spares, mon_link)
		kfree(t);
	threads_nr_spares = 0;
	table_free(rcu_dereference_protected(mkm_threads_table, true));
	RCU_INIT_POINTER(mkm_threads_table, NULL);
}
