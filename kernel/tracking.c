// SPDX-License-Identifier: GPL-2.0
/*
 * tracking.c - which threads a monitor tracks: thread_monitor and its undo,
 * the ATTACH of every tracked thread at RESUME, the system-wide walk, and
 * the letting go of them all at destroy.
 *
 * Under mon->lock (thread_monitor holds its target's exec_update_lock
 * while it waits for it, killably: nothing that waits on user space, or
 * for a reader, may hold mon->lock, see monitor.c), and mkm_threads_lock,
 * a raw spinlock with interrupts off, taken a batch of threads at a time.
 */

#include <linux/cred.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>

#include "access.h"
#include "compat.h"
#include "monitor.h"
#include "sensor.h"
#include "threads.h"

/*
 * Threads let go per hold of mkm_threads_lock: up to
 * MKM_THREADS_PER_MONITOR_MAX of them at once would keep interrupts off
 * for milliseconds.
 */
#define RELEASE_BATCH 256

/*
 * Unhashes every thread of a dying monitor onto gone, in batches; the
 * caller frees them once no sensor can see them.
 */
void mkm_tracking_release(struct mkm_monitor *mon, struct list_head *gone)
{
	struct mkm_tracked *t, *next;

	raw_spin_lock_irq(&mkm_threads_lock);
	mon->dying = true;
	while (!list_empty(&mon->threads)) {
		unsigned int n = 0;

		list_for_each_entry_safe(t, next, &mon->threads, mon_link) {
			mkm_threads_del_locked(t);
			list_add(&t->mon_link, gone);
			if (++n == RELEASE_BATCH)
				break;
		}
		raw_spin_unlock_irq(&mkm_threads_lock);
		cond_resched();
		raw_spin_lock_irq(&mkm_threads_lock);
	}
	raw_spin_unlock_irq(&mkm_threads_lock);
}

/*
 * Each thread starts in a known state, whatever happened while off: an
 * ATTACH for every tracked thread, ATTACH_VERDICTS at a time. Their
 * dumpability first, with the lock dropped: no switch was seen while no
 * monitor was resumed, so the verdict kept may be stale, and
 * mkm_task_dumpable() may take task_lock(), a sleeping lock on
 * PREEMPT_RT. Then the lock, interrupts off, for the ATTACHes of those
 * still tracked: an entry and its task outlive an RCU grace period after
 * it is unhashed, so the batch is held in rcu_read_lock() meanwhile. A
 * bookmark in the list keeps the place: threads may be reaped (unlinked)
 * or inherited (added at the tail, attached too) meanwhile;
 * thread_monitor() waits for mon->lock, held.
 */
#define ATTACH_VERDICTS 32

void mkm_tracking_attach_all(struct mkm_monitor *mon)
{
	struct mkm_tracked *batch[ATTACH_VERDICTS];
	bool dumpable[ATTACH_VERDICTS];
	struct list_head bookmark;

	lockdep_assert_held(&mon->lock);
	raw_spin_lock_irq(&mkm_threads_lock);
	list_add(&bookmark, &mon->threads);
	while (bookmark.next != &mon->threads) {
		struct list_head *pos = bookmark.next;
		unsigned int n, i;

		rcu_read_lock();
		for (n = 0; n < ATTACH_VERDICTS && pos != &mon->threads; n++) {
			batch[n] =
				list_entry(pos, struct mkm_tracked, mon_link);
			pos = pos->next;
		}
		list_move_tail(&bookmark, pos);
		raw_spin_unlock_irq(&mkm_threads_lock);
		for (i = 0; i < n; i++)
			dumpable[i] = batch[i]->perfmon ||
				      mkm_task_dumpable(batch[i]->task);
		raw_spin_lock_irq(&mkm_threads_lock);
		for (i = 0; i < n; i++)
			if (mkm_threads_lookup(batch[i]->task) == batch[i])
				mkm_sensor_attach(batch[i], dumpable[i]);
		rcu_read_unlock();
		if (bookmark.next == &mon->threads)
			break;
		raw_spin_unlock_irq(&mkm_threads_lock);
		cond_resched();
		raw_spin_lock_irq(&mkm_threads_lock);
	}
	list_del(&bookmark);
	raw_spin_unlock_irq(&mkm_threads_lock);
}

/*
 * A system-wide monitor takes every thread it can name, TRACK_BATCH at a
 * time: a walk of the task list under RCU (no allocation there) picks
 * threads that no monitor tracks yet and that have a tid in the monitor's
 * PID namespace, and takes a reference on each; then each gets its entry
 * (GFP_KERNEL) and is added as thread_monitor() adds, the lock taken per
 * thread so interrupts are off only briefly. Threads created meanwhile
 * are taken by the fork probe (mon->system is set since CONFIGURE). The
 * walk ends when a pass adds nothing. A last pass counts the threads
 * other monitors keep (busy_threads).
 */
#define TRACK_BATCH 64

static unsigned int tracking_pick_untracked(struct mkm_monitor *mon,
					    struct task_struct **batch,
					    unsigned int *busy)
{
	struct task_struct *g, *p;
	unsigned int n = 0;

	*busy = 0;
	rcu_read_lock();
	/* The table is read as the sensors read it: preemption off. */
	preempt_disable();
	for_each_process_thread(g, p) {
		struct mkm_tracked *t = mkm_threads_lookup(p);

		if (t) {
			*busy += t->mon != mon;
			continue;
		}
		if (n == TRACK_BATCH || p->flags & PF_EXITING || !pid_alive(p))
			continue;
		/* Outside its namespace: a thread it could not name. */
		if (!task_pid_nr_ns(p, mon->pid_ns))
			continue;
		get_task_struct(p);
		batch[n++] = p;
	}
	preempt_enable();
	rcu_read_unlock();
	return n;
}

void mkm_tracking_take_all(struct mkm_monitor *mon)
{
	struct task_struct *batch[TRACK_BATCH];
	unsigned int n, i, added, busy;

	lockdep_assert_held(&mon->lock);
	do {
		n = tracking_pick_untracked(mon, batch, &busy);
		added = 0;
		for (i = 0; i < n; i++) {
			struct task_struct *p = batch[i];
			pid_t tid = task_pid_nr_ns(p, mon->pid_ns);
			const struct cred *cred = get_task_cred(p);
			/* A system-wide monitor may track any credentials. */
			struct mkm_tracked *t =
				tid ? mkm_threads_new(p, mon, tid, tid, cred) :
				      NULL;
			int ret = -ESRCH;

			put_cred(cred);

			if (t) {
				raw_spin_lock_irq(&mkm_threads_lock);
				if (pid_alive(p))
					ret = mkm_threads_add(t);
				raw_spin_unlock_irq(&mkm_threads_lock);
				if (ret)
					mkm_threads_free(t);
				else
					added++;
			}
			put_task_struct(p);
		}
		cond_resched();
	} while (added);
	WRITE_ONCE(mon->busy_threads, busy);
}

/* The task with this tid in the monitor's PID namespace, with a reference. */
static struct task_struct *tracking_find_task(struct mkm_monitor *mon,
					      pid_t tid)
{
	struct task_struct *task;

	rcu_read_lock();
	task = pid_task(find_pid_ns(tid, mon->pid_ns), PIDTYPE_PID);
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	return task;
}

int mkm_monitor_thread(struct mkm_monitor *mon, pid_t tid, u32 unique_id)
{
	const struct cred *cred;
	struct task_struct *task;
	struct mkm_tracked *t;
	int ret;

	task = tracking_find_task(mon, tid);
	if (!task)
		return -ESRCH;
	/*
	 * As perf_event_open(): an exec cannot commit new credentials
	 * between the check and the add (it holds this lock for writing
	 * across commit_creds()), so a setuid exec either comes before the
	 * check, which then sees its credentials, or after the add, and its
	 * exec probe detaches the thread.
	 */
	ret = down_read_killable(&task->signal->exec_update_lock);
	if (ret)
		goto out_put;
	/*
	 * The credentials checked are the ones the entry keeps: the task
	 * may replace its own meanwhile without that lock (setresuid(),
	 * unshare(CLONE_NEWUSER)), and its first record then compares them.
	 */
	cred = get_task_cred(task);
	ret = mkm_access_check(mon, task, cred);
	if (ret)
		goto out_unlock;
	ret = -EINVAL;
	if (task->flags & PF_EXITING)
		goto out_unlock;
	ret = -ENOMEM;
	t = mkm_threads_new(task, mon, tid, unique_id, cred);
	if (!t)
		goto out_unlock;

	/* Killable: the target's execve waits for this one to end. */
	ret = mutex_lock_killable(&mon->lock);
	if (ret)
		goto out_free;
	raw_spin_lock_irq(&mkm_threads_lock);
	/*
	 * A task reaped since the lookup would never see its free probe
	 * untrack it: refuse it here. One still alive under this lock is
	 * freed after an RCU grace period that this section holds off, so
	 * the free probe finds the entry.
	 */
	ret = pid_alive(task) ? mkm_threads_add(t) : -ESRCH;
	/* Dumpable: the check above, under exec_update_lock, says so. */
	if (!ret)
		mkm_sensor_attach(t, true);
	raw_spin_unlock_irq(&mkm_threads_lock);
	mutex_unlock(&mon->lock);
out_free:
	if (ret)
		mkm_threads_free(t);
out_unlock:
	put_cred(cred);
	up_read(&task->signal->exec_update_lock);
out_put:
	put_task_struct(task);
	return ret;
}

int mkm_monitor_unthread(struct mkm_monitor *mon, pid_t tid)
{
	struct task_struct *task;
	struct mkm_tracked *t;
	int ret = -ENOENT;

	task = tracking_find_task(mon, tid);
	if (!task)
		return -ESRCH;
	if (mutex_lock_killable(&mon->lock)) {
		put_task_struct(task);
		return -EINTR;
	}
	raw_spin_lock_irq(&mkm_threads_lock);
	t = mkm_threads_lookup(task);
	if (t && t->mon == mon) {
		mkm_sensor_detach(t, MKM_DETACH_UNMONITOR);
		mkm_threads_del_locked(t);
		mkm_threads_free_rcu(t);
		ret = 0;
	}
	raw_spin_unlock_irq(&mkm_threads_lock);
	mutex_unlock(&mon->lock);
	put_task_struct(task);
	return ret;
}
