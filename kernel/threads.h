/* SPDX-License-Identifier: GPL-2.0 */
/*
 * threads.h - which monitor tracks a task: an RCU hash table keyed by the
 * task_struct pointer.
 *
 * A module cannot add a field to task_struct, so the sensors find a task's
 * monitor here, on every context switch of the machine. An untracked task
 * costs one multiplicative hash and one bit test: mkm_threads_filter has a
 * bit per bucket, set while the bucket holds an entry, so the common answer
 * "not tracked" reads 128 bytes of filter rather than 8 KiB of bucket
 * heads, and the probes can test it inline before calling anything. No
 * lock on the read side (the probes run with preemption disabled, an RCU
 * read-side section). Writers take mkm_threads_lock with interrupts
 * disabled, since they run in process context, in sensors and in RCU
 * callbacks (a raw spinlock: the sensors hold it with preemption off, on
 * PREEMPT_RT too); they set a bucket's bit before publishing its first entry and
 * clear it after unhashing its last, so the filter says "not tracked" only
 * where a lookup of the bucket would: no entry, or one being added or
 * removed at that moment. Each entry holds a reference on its task, so the
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

#define MKM_THREADS_HASH_BITS 10
/* A bound on threads per monitor, against runaway inheritance. */
#define MKM_THREADS_PER_MONITOR_MAX 65536

struct mkm_tracked {
	struct hlist_node hash;
	struct task_struct *task;
	/*
	 * task's objective credentials when last found allowed (a
	 * reference; see sensor_may_record())
	 */
	const struct cred *cred;
	struct mkm_monitor *mon;
	u32 tid; /* in the monitor's PID namespace */
	u32 unique_id;
	/* mkm_task_run_delay() at the last switch-out, attach or fork */
	u64 run_delay;
	struct list_head mon_link; /* in mon->threads */
	struct rcu_head rcu;
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

extern struct hlist_head mkm_threads_hash[1 << MKM_THREADS_HASH_BITS];
extern unsigned long
	mkm_threads_filter[BITS_TO_LONGS(1 << MKM_THREADS_HASH_BITS)];
extern raw_spinlock_t mkm_threads_lock;

static __always_inline u32 mkm_threads_hash_of(const struct task_struct *task)
{
	return hash_ptr(task, MKM_THREADS_HASH_BITS);
}

static __always_inline struct hlist_head *
mkm_threads_bucket(const struct task_struct *task)
{
	return &mkm_threads_hash[mkm_threads_hash_of(task)];
}

/*
 * False when task is surely not tracked: the sensors' first test, inline.
 * Caller is in an RCU read-side section.
 */
static __always_inline bool mkm_threads_maybe(const struct task_struct *task)
{
	return test_bit(mkm_threads_hash_of(task), mkm_threads_filter);
}

/* The entry tracking task, or NULL. Caller is in an RCU read-side section. */
static __always_inline struct mkm_tracked *
mkm_threads_lookup(const struct task_struct *task)
{
	struct mkm_tracked *t;

	hlist_for_each_entry_rcu(t, mkm_threads_bucket(task), hash)
		if (t->task == task)
			return t;
	return NULL;
}

struct mkm_tracked *mkm_threads_new(struct task_struct *task,
				    struct mkm_monitor *mon, u32 tid,
				    u32 unique_id, gfp_t gfp);
int mkm_threads_add(struct mkm_tracked *t);
void mkm_threads_del_locked(struct mkm_tracked *t);
void mkm_threads_free(struct mkm_tracked *t);
void mkm_threads_free_rcu(struct mkm_tracked *t);

#endif /* MKM_THREADS_H */
