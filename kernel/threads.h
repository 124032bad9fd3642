/* SPDX-License-Identifier: GPL-2.0 */
/*
 * threads.h - which monitor tracks a task: an RCU hash table keyed by the
 * task_struct pointer, with a bit filter in front, both sized to the number
 * of tracked threads.
 *
 * A module cannot add a field to task_struct, so the sensors find a task's
 * monitor here, on every context switch of the machine. An untracked task
 * costs one multiplicative hash and one bit test: the table's filter has 64
 * bits per bucket, and a task's bit is set while an entry for it exists, so
 * the common answer "not tracked" is found without reading the buckets, and
 * the probes can test it inline before calling anything. The table grows
 * (and shrinks) with the number of entries, so that the filter stays at
 * most 1/64 full and a bucket holds one entry on average: the cost of a
 * switch, tracked or not, is the same with 10 tracked threads as with
 * 60,000. (An untracked task whose bit an entry shares, one in 64 at
 * worst, pays for the lookup on each of its switches: make bench-scale
 * measures fresh threads each run for that reason.)
 *
 * No lock on the read side (the probes run with preemption disabled, an
 * RCU read-side section). Writers take mkm_threads_lock with interrupts
 * disabled, since they run in process context, in sensors and in RCU
 * callbacks (a raw spinlock: the sensors hold it with preemption off, on
 * PREEMPT_RT too). They set a task's filter bit before publishing its entry
 * and clear it after unhashing the last entry of its bucket with that bit,
 * so the filter says "not tracked" only where a lookup would. A resize
 * builds the new table beside the old one, both kept complete (an entry has
 * a hash node for each), and then publishes it: readers see one table or
 * the other, whole. Each entry holds a reference on its task, so the
 * pointer cannot be reused by another task while the entry exists.
 */
#ifndef MKM_THREADS_H
#define MKM_THREADS_H

#include <linux/bitops.h>
#include <linux/hash.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

struct mkm_monitor;

/* A bound on threads per monitor, against runaway inheritance. */
#define MKM_THREADS_PER_MONITOR_MAX 65536
/* Filter bits per bucket (log2): the filter is at most 1/64 full. */
#define MKM_THREADS_FILTER_SHIFT 6

struct mkm_tracked {
	/* In the table of slot 0 or 1 (struct mkm_threads_table.slot). */
	struct hlist_node hash[2];
	/* The generation of the table each node is in (0: none). */
	unsigned int hashed_in[2];
	struct task_struct *task;
	/*
	 * task's objective credentials when last found allowed (a
	 * reference), or NULL while none was (see sensor_may_record())
	 */
	const struct cred *cred;
	/* task was not dumpable at its last switch: its records withheld */
	bool undumpable;
	/*
	 * mon->perfmon, which is fixed at creation, kept beside cred: the
	 * switch path's access test then reads the entry only
	 */
	bool perfmon;
	struct mkm_monitor *mon;
	u32 tid; /* in the monitor's PID namespace */
	u32 unique_id;
	/* mkm_task_run_delay() at the last switch-out, attach or fork */
	u64 run_delay;
	/* The wakeup under way ends a PREEMPT_RT lock wait (under pi_lock) */
	bool lock_wake;
	/*
	 * The wakeup under way as its WAKING saw it (sensor_wake_context()):
	 * the waker, the flags, and mkm_task_arrivals() then, which names
	 * the wakeup (ULONG_MAX: none seen)
	 */
	u8 wake_flags;
	u32 waker;
	unsigned long wake_arrivals;
	struct list_head mon_link; /* in mon->threads, or the spares */
	struct rcu_head rcu;
};

struct mkm_threads_table {
	/* 32 - log2 of the filter's bits: what the hash shifts by */
	unsigned int shift;
	unsigned int slot; /* which of an entry's hash nodes this table uses */
	size_t node_offset; /* that node's offset in struct mkm_tracked */
	struct hlist_head *buckets;
	unsigned int nr_buckets;
	unsigned int gen;
	struct rcu_head rcu;
	unsigned long filter[];
};

/* The ns task has waited on run queues, as schedstat tells; 0 untold. */
static __always_inline u64 mkm_task_run_delay(const struct task_struct *task)
{
#ifdef CONFIG_SCHED_INFO
	return READ_ONCE(task->sched_info.run_delay);
#else
	return 0;
#endif
}

/*
 * How many times task took a CPU (schedstat's pcount), or, without
 * CONFIG_SCHED_INFO, its switch count, which a switch-out under way
 * may move.
 */
static __always_inline unsigned long
mkm_task_arrivals(const struct task_struct *task)
{
#ifdef CONFIG_SCHED_INFO
	return READ_ONCE(task->sched_info.pcount);
#else
	return READ_ONCE(task->nvcsw) + READ_ONCE(task->nivcsw);
#endif
}

extern struct mkm_threads_table __rcu *mkm_threads_table;
extern raw_spinlock_t mkm_threads_lock;

/*
 * The table the sensors see. Caller is in an RCU read-side section: a
 * probe's (preemption off) or rcu_read_lock()'s.
 */
static __always_inline struct mkm_threads_table *mkm_threads_current(void)
{
	return rcu_dereference_check(mkm_threads_table,
				     rcu_read_lock_any_held());
}

/*
 * task's bit in tb's filter (hash_32() of the pointer's low half, with the
 * shift kept ready); its bucket is the bit >> MKM_THREADS_FILTER_SHIFT.
 * Not hash_ptr()'s 64 bits: a 32-bit multiply takes its constant as an
 * immediate and writes another register, where the 64-bit one needs the
 * constant loaded and the pointer copied, on every switch of the machine.
 * Tasks whose pointers differ only above bit 31 share a bit: a lookup for
 * the untracked one, never a miss.
 */
static __always_inline u32 mkm_threads_hash(const struct task_struct *task,
					    unsigned int shift)
{
	/* Said, so that UBSAN_SHIFT's kernels compile no check of it in. */
	if (shift > 31)
		__builtin_unreachable();
	return ((u32)(unsigned long)task * GOLDEN_RATIO_32) >> shift;
}

static __always_inline u32 mkm_threads_bit(const struct mkm_threads_table *tb,
					   const struct task_struct *task)
{
	return mkm_threads_hash(task, tb->shift);
}

/* False when task is surely not tracked in tb: the sensors' first test. */
static __always_inline bool
mkm_threads_maybe_in(const struct mkm_threads_table *tb,
		     const struct task_struct *task)
{
	return test_bit(mkm_threads_bit(tb, task), tb->filter);
}

/*
 * False when neither a nor b is tracked in tb, whose shift the caller read
 * once (test_bit()'s asm would have it read again): the switch probe's
 * test, which runs on every context switch of the machine.
 */
static __always_inline bool
mkm_threads_maybe_either(const struct mkm_threads_table *tb, unsigned int shift,
			 const struct task_struct *a,
			 const struct task_struct *b)
{
	return test_bit(mkm_threads_hash(a, shift), tb->filter) ||
	       test_bit(mkm_threads_hash(b, shift), tb->filter);
}

/* The entry tracking task in tb, whose shift the caller has, or NULL. */
static __always_inline struct mkm_tracked *
mkm_threads_find_shifted(const struct mkm_threads_table *tb, unsigned int shift,
			 const struct task_struct *task)
{
	unsigned long bucket = mkm_threads_hash(task, shift) >>
			       MKM_THREADS_FILTER_SHIFT;
	struct hlist_node *node;

	for (node = rcu_dereference_raw(hlist_first_rcu(&tb->buckets[bucket]));
	     node; node = rcu_dereference_raw(hlist_next_rcu(node))) {
		struct mkm_tracked *t =
			(struct mkm_tracked *)((char *)node - tb->node_offset);

		if (t->task == task) {
			/*
			 * Said, since the kernel's -fno-delete-null-pointer-checks
			 * keeps the compiler from inferring it: the callers'
			 * tests of a found entry then fold away.
			 */
			if (!t)
				__builtin_unreachable();
			return t;
		}
	}
	return NULL;
}

/* The entry tracking task in tb, or NULL. */
static __always_inline struct mkm_tracked *
mkm_threads_find(const struct mkm_threads_table *tb,
		 const struct task_struct *task)
{
	return mkm_threads_find_shifted(tb, tb->shift, task);
}

/* The entry tracking task, or NULL. Caller is in an RCU read-side section. */
static __always_inline struct mkm_tracked *
mkm_threads_lookup(const struct task_struct *task)
{
	return mkm_threads_find(mkm_threads_current(), task);
}

int mkm_threads_init(void);
void mkm_threads_exit(void);
struct mkm_tracked *mkm_threads_new(struct task_struct *task,
				    struct mkm_monitor *mon, u32 tid,
				    u32 unique_id, const struct cred *cred);
struct mkm_tracked *mkm_threads_new_spare(struct task_struct *task,
					  struct mkm_monitor *mon, u32 tid,
					  u32 unique_id);
void mkm_threads_fill_spares(void);
int mkm_threads_add(struct mkm_tracked *t);
void mkm_threads_del_locked(struct mkm_tracked *t);
void mkm_threads_free(struct mkm_tracked *t);
void mkm_threads_free_rcu(struct mkm_tracked *t);
void mkm_threads_resize(void);

#endif /* MKM_THREADS_H */
