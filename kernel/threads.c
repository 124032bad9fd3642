// SPDX-License-Identifier: GPL-2.0
/* threads.c - the table of tracked threads (see threads.h for the why). */

#include <linux/sched/task.h>
#include <linux/slab.h>

#include "monitor.h"
#include "threads.h"

struct hlist_head mkm_threads_hash[1 << MKM_THREADS_HASH_BITS];
unsigned long mkm_threads_filter[BITS_TO_LONGS(1 << MKM_THREADS_HASH_BITS)];
DEFINE_RAW_SPINLOCK(mkm_threads_lock);

struct mkm_tracked *mkm_threads_new(struct task_struct *task,
				    struct mkm_monitor *mon, u32 tid,
				    u32 unique_id, gfp_t gfp)
{
	struct mkm_tracked *t = kzalloc(sizeof(*t), gfp | __GFP_NOWARN);

	if (!t)
		return NULL;
	get_task_struct(task);
	t->task = task;
	t->cred = get_task_cred(task);
	t->mon = mon;
	t->tid = tid;
	t->unique_id = unique_id;
	/* An inherited thread's first wait counts from here (no ATTACH). */
	t->run_delay = mkm_task_run_delay(task);
	return t;
}

/*
 * Hashes t in, under mkm_threads_lock (held by the caller, interrupts off).
 * -EBUSY if another monitor tracks the task, -EEXIST if t's monitor does,
 * -ENOSPC if the monitor tracks too many threads, -ESHUTDOWN if it is being
 * destroyed.
 */
int mkm_threads_add(struct mkm_tracked *t)
{
	struct mkm_tracked *old;

	lockdep_assert_held(&mkm_threads_lock);
	if (t->mon->dying)
		return -ESHUTDOWN;
	old = mkm_threads_lookup(t->task);
	if (old)
		return old->mon == t->mon ? -EEXIST : -EBUSY;
	if (t->mon->nr_threads >= MKM_THREADS_PER_MONITOR_MAX)
		return -ENOSPC;
	/*
	 * The bit first: the entry is published with a release store, so a
	 * reader that finds the entry finds the bit set.
	 */
	set_bit(mkm_threads_hash_of(t->task), mkm_threads_filter);
	hlist_add_head_rcu(&t->hash, mkm_threads_bucket(t->task));
	list_add_tail(&t->mon_link, &t->mon->threads);
	t->mon->nr_threads++;
	return 0;
}

/* Unhashes t; sensors may still see it until a grace period passes. */
void mkm_threads_del_locked(struct mkm_tracked *t)
{
	lockdep_assert_held(&mkm_threads_lock);
	hlist_del_rcu(&t->hash);
	if (hlist_empty(mkm_threads_bucket(t->task)))
		clear_bit(mkm_threads_hash_of(t->task), mkm_threads_filter);
	list_del(&t->mon_link);
	t->mon->nr_threads--;
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
