// SPDX-License-Identifier: GPL-2.0
/*
 * sensor.c - the tracepoint probes that record tracked threads' events.
 *
 * Each probe looks its task up in the thread table (threads.h) and, for a
 * tracked one whose monitor records the probe's class, writes one record
 * into that monitor's ring for the current CPU. The probes run inside the
 * scheduler with the run-queue lock held, in interrupts and in RCU
 * callbacks: they never sleep, allocate (inheritance at fork takes one of
 * the thread table's spare entries), print or wake anyone directly
 * (irq_work does the wakeup).
 *
 * A lookup and the use of its entry need an RCU read-side section. Up to
 * 6.12 every probe ran with preemption disabled, which is one; from 7.x
 * most tracepoints call their probes under SRCU-fast and the syscall ones
 * under tasks-trace RCU, preemptible, which call_rcu() does not wait for.
 * So the probes that the scheduler does not call with interrupts off
 * (switch, wakeups, migration) take rcu_read_lock() themselves.
 *
 * A probe is registered only while some monitor wants its class (probes.c),
 * so an event class nobody asked for costs nothing, and with no monitor resumed no
 * context-switch probe is registered at all. The tracepoints are found by
 * name: the scheduler's are not exported to modules.
 *
 * Every switch of the machine runs the switch probe while a monitor
 * records, and almost none concern a tracked thread. So each frequent probe
 * is only the filter test (mkm_threads_maybe_in(), inline, no stack frame)
 * and a tail call to its sensor_*() function, handed the table tested,
 * which looks the thread up and writes. A context switch writes both its
 * records on one clock read without touching the interrupt flag, which the
 * scheduler has cleared; and a peer's tid in the initial PID namespace,
 * where most monitors live, is its task->pid, without the namespace walk
 * (the entry's tid, for a thread of the monitor's own). The clock is the
 * scheduler's (local_clock(): a TSC read and a scaling, where
 * CLOCK_MONOTONIC would add a latch loop and an indirect call); read()
 * maps it onto CLOCK_MONOTONIC.
 * The default classes need no probe on the wakeup path: a SWITCH_IN says
 * how long its thread waited runnable, from the kernel's own run_delay
 * bookkeeping. docs/performance.md has the figures.
 */

#include <linux/cred.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <asm/syscall.h>

#include "access.h"
#include "arch_irq.h"
#include "compat.h"
#include "monitor.h"
#include "probes.h"
#include "sensor.h"
#include "threads.h"

/* Whether mon records class now; if so, its rings may be used. */
static __always_inline u32 sensor_recording(struct mkm_monitor *mon, u32 class)
{
	/* Pairs with the release in resume: the rings are there. */
	return smp_load_acquire(&mon->recording) & class;
}

/*
 * Writes one record into the ring of mon for this CPU. The caller checked
 * sensor_recording() and has interrupts disabled; now is the record's time.
 */
static __always_inline void sensor_write(struct mkm_monitor *mon, u32 tid,
					 u32 unique_id, u8 type, u8 flags,
					 u32 arg0, u32 arg1, u64 now)
{
	/* One %gs-relative load, where this_cpu_ptr() adds the offset first. */
	struct mkm_ring *r = this_cpu_read(mon->cpu->ring);

	if (unlikely(ring_write(r, tid, unique_id, type, flags, arg0, arg1,
				now) > 0))
		irq_work_queue(&this_cpu_ptr(mon->cpu)->wakeup);
}

/*
 * A trigger fired (MKM_EV_TRIGGER): its record goes right after the record
 * that fired it, in the same ring, and the monitor's readers are woken,
 * as a flight recorder's reader sleeps until one: once until the reader
 * has seen the ring's triggers, as the wakeup's own interrupt may fire the
 * interrupt trigger again. Interrupts disabled.
 */
static noinline void sensor_trigger(struct mkm_monitor *mon, u32 tid,
				    u32 unique_id, u8 flags, u32 arg0, u32 arg1,
				    u64 now)
{
	struct mkm_cpu_buf *b = this_cpu_ptr(mon->cpu);
	bool seen = !ring_untriggered(b->ring);

	ring_write(b->ring, tid, unique_id, MKM_EV_TRIGGER, flags, arg0, arg1,
		   now);
	ring_triggered(b->ring);
	if (seen)
		irq_work_queue(&b->wakeup);
}

/*
 * A trigger of kind over its threshold: the value and the threshold in
 * ns, or both in us (MKM_EVF_WAIT_US) where either needs more than 32 bits.
 */
static noinline void sensor_trigger_over(struct mkm_monitor *mon, u32 tid,
					 u32 unique_id, u8 kind, u64 value,
					 u64 threshold, u64 now)
{
	if (value > U32_MAX || threshold > U32_MAX) {
		kind |= MKM_EVF_WAIT_US;
		value = min_t(u64, div_u64(value, NSEC_PER_USEC), U32_MAX);
		threshold = div_u64(threshold, NSEC_PER_USEC);
	}
	sensor_trigger(mon, tid, unique_id, kind, value, threshold, now);
}

/*
 * A tracked thread's records are written only under credentials the
 * monitor may watch. The access rule is applied at thread_monitor and in
 * the exec probe, but an exec installs its new credentials (commit_creds)
 * before its probe runs, and setresuid() needs no exec: so each record
 * compares the thread's objective credentials with the ones last found
 * allowed. A change is checked at once (mkm_access_creds(): no lock, safe
 * in the scheduler); allowed, the new credentials become the reference;
 * refused, the record is withheld and counted as lost, until the exec
 * probe detaches the thread or its credentials are allowed again. A
 * thread inherited under credentials its monitor may not watch starts
 * with no reference (the fork probe), so it is withheld from its first
 * record; one found undumpable too (sensor_check_dumpable()).
 */
static noinline bool sensor_creds_changed(struct mkm_tracked *t,
					  const struct cred *now)
{
	if (READ_ONCE(t->undumpable) || !mkm_access_creds(t->mon, now))
		return false;
	/* NULL: being replaced and freed; the next record checks again. */
	now = get_cred_rcu(now);
	if (!now)
		return false;
	put_cred(xchg(&t->cred, now));
	/*
	 * The thread's switch on another CPU may have found it undumpable
	 * since the test above, and cleared cred before this store: then
	 * undumpable is seen here (both sides store, then xchg, full
	 * barriers), and cred is cleared again, or it would stand as
	 * allowed with nothing to clear it until the thread is dumpable.
	 */
	if (unlikely(READ_ONCE(t->undumpable))) {
		put_cred(xchg(&t->cred, NULL));
		return false;
	}
	return true;
}

/*
 * As sensor_may_record(), where the caller has t's task at hand (p). In
 * any RCU read-side section, not only a sched one: the fork probe asks
 * for its child preemptible on 7.x, where rcu_dereference_sched() would
 * be a splat under PROVE_RCU (the credentials are freed after a normal
 * grace period, which every flavour of read-side section holds off).
 */
static __always_inline bool sensor_may_record_task(struct mkm_tracked *t,
						   struct task_struct *p)
{
	const struct cred *now =
		rcu_dereference_check(p->real_cred, rcu_read_lock_any_held());

	return likely(now == READ_ONCE(t->cred)) ||
	       sensor_creds_changed(t, now);
}

static __always_inline bool sensor_may_record(struct mkm_tracked *t)
{
	return sensor_may_record_task(t, t->task);
}

/*
 * Dumpability, the other half of ptrace's read rule (mkm_access_check()),
 * for a monitor subject to it: PR_SET_DUMPABLE(0) after the attach
 * (ssh-agent, gpg-agent), or a credentials change that made the process
 * undumpable, withholds the thread; made dumpable again, its next record
 * checks its credentials again. Checked where a task's mm cannot change
 * under the sensor: at a switch, out or in, and in every record of
 * current (its syscalls, interrupts, exit, rename: only current changes
 * its own mm), so a thread that never switches is withheld from the
 * record after its prctl() on; and at RESUME, in process context, since
 * no switch is seen while no monitor is resumed (mkm_sensor_attach()).
 */
static noinline void sensor_dumpable_changed(struct mkm_tracked *t,
					     bool undumpable)
{
	WRITE_ONCE(t->undumpable, undumpable);
	if (undumpable)
		put_cred(xchg(&t->cred, NULL));
}

static __always_inline void sensor_check_dumpable(struct mkm_tracked *t,
						  struct task_struct *p)
{
	bool undumpable;

	if (likely(t->perfmon))
		return;
	/* Exiting, its mm let go: the last verdict stands. */
	if (unlikely(!READ_ONCE(p->mm)))
		return;
	undumpable = !mkm_task_dumpable_sched(p);
	if (unlikely(undumpable != READ_ONCE(t->undumpable)))
		sensor_dumpable_changed(t, undumpable);
}

/*
 * Writes a record of tracked thread t if shown (sensor_may_record()), else
 * withholds it, counted as lost so the reader sees the gap. As
 * sensor_write(): recording checked, interrupts disabled.
 */
static __always_inline void sensor_write_shown(struct mkm_tracked *t,
					       bool shown, u8 type, u8 flags,
					       u32 arg0, u32 arg1, u64 now)
{
	if (likely(shown))
		sensor_write(t->mon, READ_ONCE(t->tid), t->unique_id, type,
			     flags, arg0, arg1, now);
	else
		ring_drop(this_cpu_ptr(t->mon->cpu)->ring);
}

static __always_inline void sensor_write_thread(struct mkm_tracked *t, u8 type,
						u8 flags, u32 arg0, u32 arg1,
						u64 now)
{
	sensor_write_shown(t, sensor_may_record(t), type, flags, arg0, arg1,
			   now);
}

/* Writes one record for a thread of mon, if mon records class now. */
static __always_inline void sensor_emit(struct mkm_monitor *mon, u32 class,
					u32 tid, u32 unique_id, u8 type,
					u8 flags, u32 arg0, u32 arg1)
{
	unsigned long irqflags;

	if (!sensor_recording(mon, class))
		return;
	/* Interrupts off: a record is never interleaved with another. */
	local_irq_save(irqflags);
	sensor_write(mon, tid, unique_id, type, flags, arg0, arg1,
		     local_clock());
	local_irq_restore(irqflags);
}

/*
 * A record of what tracked thread t does, if its monitor records class;
 * dumpability is checked first when t is current (sensor_check_dumpable()).
 */
static __always_inline void sensor_emit_thread(struct mkm_tracked *t, u32 class,
					       u8 type, u8 flags, u32 arg0,
					       u32 arg1)
{
	unsigned long irqflags;

	if (!sensor_recording(t->mon, class))
		return;
	local_irq_save(irqflags);
	if (t->task == current)
		sensor_check_dumpable(t, current);
	sensor_write_thread(t, type, flags, arg0, arg1, local_clock());
	local_irq_restore(irqflags);
}

/* A record of the end of t's tracking (detach, reap): always written. */
static __always_inline void sensor_emit_tracking(struct mkm_tracked *t, u8 type,
						 u32 arg0, u32 arg1)
{
	sensor_emit(t->mon,
		    type == MKM_EV_REAP ? MKM_CLASS_LIFECYCLE : MKM_CLASS_ALL,
		    READ_ONCE(t->tid), t->unique_id, type, 0, arg0, arg1);
}

/*
 * A task's tid as the monitor sees it; 0 for idle, outside its namespace, or
 * once the task's pid is released. In the initial namespace that is
 * task->pid, which task_pid_nr_ns() would find by a walk under RCU.
 */
static __always_inline u32 sensor_tid(struct mkm_monitor *mon,
				      struct task_struct *task)
{
	if (is_idle_task(task))
		return 0;
	if (likely(mon->pid_ns == &init_pid_ns))
		return pid_alive(task) ? task->pid : 0;
	return task_pid_nr_ns(task, mon->pid_ns);
}

/*
 * The entry tracking task, or NULL: the inline filter first, as the switch
 * probe does, so that an untracked task costs a bit test, not a walk of
 * its hash bucket, in every probe that fires for any task.
 */
static __always_inline struct mkm_tracked *
sensor_lookup(const struct task_struct *task)
{
	const struct mkm_threads_table *tb = mkm_threads_current();

	return mkm_threads_maybe_in(tb, task) ? mkm_threads_find(tb, task) :
						NULL;
}

/*
 * A peer's tid (the other task of a switch, a waker), or 0 where the
 * monitor may not see it: a thread of its own whose records are withheld
 * (peer_shown false), or one it does not track where it hides those
 * (paranoid). peer_t is the peer's tracking entry, if any: a thread of the
 * monitor's own is named as its records name it, by its entry's tid.
 */
static __always_inline u32 sensor_peer(struct mkm_monitor *mon,
				       struct task_struct *peer,
				       const struct mkm_tracked *peer_t,
				       bool peer_shown)
{
	if (peer_t && peer_t->mon == mon)
		return peer_shown ? READ_ONCE(peer_t->tid) : 0;
	if (unlikely(mon->hide_peers))
		return 0;
	return sensor_tid(mon, peer);
}

/*
 * The waker (current) as the monitor may see it; tb is the probe's table.
 * Looked up without the filter's test first: the waker of a tracked thread
 * is most often tracked too (the threads of a program wake each other),
 * where the test only adds to the lookup; an untracked one costs a look
 * into a bucket, most likely empty.
 */
static __always_inline u32 sensor_waker_in(const struct mkm_threads_table *tb,
					   struct mkm_monitor *mon)
{
	struct task_struct *waker = current;
	struct mkm_tracked *ct = mkm_threads_find(tb, waker);

	return sensor_peer(mon, waker, ct,
			   ct && ct->mon == mon &&
				   sensor_may_record_task(ct, waker));
}

static __always_inline u32 sensor_waker(struct mkm_monitor *mon)
{
	return sensor_waker_in(mkm_threads_current(), mon);
}

/* A dead task's state: a thread released at exit, or a zombie. */
static u32 sensor_dead_state(const struct task_struct *p)
{
	return READ_ONCE(p->exit_state) == EXIT_ZOMBIE ? MKM_TS_ZOMBIE :
							 MKM_TS_DEAD;
}

/* Maps a sleeping task's __state bits to MKM_TS_*. */
static noinline u32 sensor_state_slow(const struct task_struct *p,
				      unsigned int state)
{
	if (state & TASK_DEAD)
		return sensor_dead_state(p);
	if (state & __TASK_TRACED)
		return MKM_TS_TRACED;
	if (state & __TASK_STOPPED)
		return MKM_TS_STOPPED;
	if (state & TASK_PARKED || (state & TASK_IDLE) == TASK_IDLE)
		return MKM_TS_PARKED;
	/*
	 * As the kernel's __task_state_index() reports them: a wait for a
	 * lock that sleeps only on PREEMPT_RT (spinlock_t, rwlock_t), and a
	 * frozen task, are uninterruptible.
	 */
	if (state & (TASK_UNINTERRUPTIBLE | TASK_RTLOCK_WAIT | TASK_FROZEN))
		return MKM_TS_UNINTERRUPTIBLE;
	if (state & TASK_INTERRUPTIBLE)
		return MKM_TS_INTERRUPTIBLE;
	return MKM_TS_PARKED;
}

/*
 * A wait for a lock that sleeps only on PREEMPT_RT: compiled out elsewhere,
 * so that the generic kernels' switch and wakeup paths do not pay for it.
 */
static __always_inline bool sensor_rtlock_wait(unsigned int state)
{
	return IS_ENABLED(CONFIG_PREEMPT_RT) &&
	       unlikely(state == TASK_RTLOCK_WAIT);
}

/*
 * The same, with the usual sleeps decided inline, on the switch path. Since
 * 6.1's freezer, futex waits (every contended pthread mutex and condition
 * variable) and nanosleeps add TASK_FREEZABLE to their state: usual sleeps
 * too, which the slow path would cost two dozen instructions more.
 */
static __always_inline u32 sensor_state(const struct task_struct *p,
					unsigned int state)
{
	if (likely(state == TASK_INTERRUPTIBLE))
		return MKM_TS_INTERRUPTIBLE;
	state &= ~TASK_FREEZABLE;
	if (state == TASK_INTERRUPTIBLE)
		return MKM_TS_INTERRUPTIBLE;
	if (state == TASK_UNINTERRUPTIBLE)
		return MKM_TS_UNINTERRUPTIBLE;
	return sensor_state_slow(p, state);
}

static void sensor_name(struct mkm_tracked *t, const char *comm)
{
	union {
		char c[TASK_COMM_LEN];
		u32 w[TASK_COMM_LEN / sizeof(u32)];
	} name;

	/* Racy against a rename, as the sched_switch tracepoint's own copy. */
	memcpy(name.c, comm, sizeof(name.c));
	name.c[TASK_COMM_LEN - 1] = 0;
	sensor_emit_thread(t, MKM_CLASS_ALL, MKM_EV_NAME, 0, name.w[0],
			   name.w[1]);
	sensor_emit_thread(t, MKM_CLASS_ALL, MKM_EV_NAME, 1, name.w[2],
			   name.w[3]);
}

/*
 * How long p, switching in now, waited runnable since its last switch-out:
 * what the kernel added to its run_delay since then, plus the wait still
 * open, which sched_info_arrive() closes right after this tracepoint.
 */
static __always_inline u32 sensor_waited(struct mkm_tracked *t,
					 struct task_struct *p, u64 now,
					 u8 *flags)
{
#ifdef CONFIG_SCHED_INFO
	u64 queued = READ_ONCE(p->sched_info.last_queued);
	u64 wait = mkm_task_run_delay(p) - t->run_delay;
	/*
	 * The wait still open, if any: queued is 0 when none is, and one
	 * later than now (another CPU's clock) adds nothing. One unsigned
	 * compare tests both: 0 < queued <= now.
	 */
	u64 open = now - queued;

	if (open < now)
		wait += open;
	if (likely(wait <= U32_MAX))
		return wait;
	*flags = MKM_EVF_WAIT_US;
	return min_t(u64, div_u64(wait, NSEC_PER_USEC), U32_MAX);
#else
	return 0;
#endif
}

/*
 * The state prev leaves the CPU in, and its flags: as the kernel counts
 * nivcsw, preempted, or yielded while runnable. A sleep cut short by a
 * signal leaves the task runnable too, but counts as voluntary.
 */
static __always_inline u32 sensor_left(struct task_struct *prev, bool preempt,
				       unsigned int prev_state, u8 *flags)
{
	if (preempt || prev_state == TASK_RUNNING) {
		*flags = MKM_EVF_PREEMPTED;
		return MKM_TS_RUNNING;
	}
	*flags = 0;
	if (READ_ONCE(prev->__state) == TASK_RUNNING)
		return MKM_TS_RUNNING;
	if (sensor_rtlock_wait(prev_state))
		*flags = MKM_EVF_LOCK_WAIT;
	return sensor_state(prev, prev_state);
}

/*
 * A switch between two threads of one monitor that records it as one
 * MKM_EV_SWITCH: both shown (a withheld one's half is dropped, which
 * takes two records), and a reader that knows the type. Returns whether
 * it is written so: false sends the switch to the two-record path, which
 * tests the class again.
 */
static __always_inline bool sensor_one_switch(const struct mkm_tracked *pt,
					      const struct mkm_tracked *nt,
					      bool shown)
{
	const u32 both = MKM_CLASS_SCHED | MKM_RECORDING_ONE_SWITCH;

	/* The fair class's state comes with the two-record form (below). */
	return pt->mon == nt->mon && shown &&
	       sensor_recording(pt->mon, both | MKM_CLASS_SCHED_STATE) == both;
}

/*
 * Each CPU's interrupt clock, kept while an interrupt trigger is armed
 * (mkm_irq_trigger_floor_ns): when the interrupt and the softirq under way
 * began (0 when none is, or it began before the clock was kept), and the
 * last one that took longer than the floor, for the threads that waited
 * on this CPU's run queue meanwhile.
 */
struct sensor_irq_clock {
	u64 began[2]; /* [0] interrupts, [1] softirqs */
	u64 long_end;
	u64 long_ns;
};
static DEFINE_PER_CPU(struct sensor_irq_clock, sensor_irq_clock);

/*
 * The interrupt trigger for a thread that waited: the last long interrupt
 * on this CPU spent more than the threshold inside nt's wait of ns, the
 * CPU's run queue is where it waited (a thread that moved waited partly
 * elsewhere, and only this CPU's are known).
 */
static void sensor_irq_waited(struct mkm_tracked *nt, u64 ns, u64 now)
{
	const struct sensor_irq_clock *c = this_cpu_ptr(&sensor_irq_clock);
	struct mkm_monitor *mon = nt->mon;
	u64 end = c->long_end, took = c->long_ns;
	u64 from = max(end - took, now - ns), to = min(end, now);

	if (end && to > from && to - from > mon->trigger_irq_ns)
		sensor_trigger_over(mon, READ_ONCE(nt->tid), nt->unique_id,
				    MKM_TRIGGER_IRQ | MKM_EVF_WAITING,
				    to - from, mon->trigger_irq_ns, now);
}

static noinline void sensor_runq_over(struct mkm_tracked *nt, u32 wait,
				      u8 in_flags, u64 now)
{
	struct mkm_monitor *mon = nt->mon;
	u64 ns = in_flags & MKM_EVF_WAIT_US ? (u64)wait * NSEC_PER_USEC : wait;

	if (mon->trigger_runq_ns && ns > mon->trigger_runq_ns)
		sensor_trigger_over(mon, READ_ONCE(nt->tid), nt->unique_id,
				    MKM_TRIGGER_RUNQ, ns, mon->trigger_runq_ns,
				    now);
	if (mon->trigger_irq_ns && ns > mon->trigger_irq_ns)
		sensor_irq_waited(nt, ns, now);
}

/*
 * The triggers on a wait, at a shown thread's switch-in: one compare of
 * the wait just measured with the lower threshold (trigger_runq, U32_MAX
 * for none); a wait counted in us goes to the exact tests.
 */
static __always_inline void sensor_check_runq(struct mkm_tracked *nt, u32 wait,
					      u8 in_flags, u64 now)
{
	if (unlikely(wait > nt->mon->trigger_runq || in_flags))
		sensor_runq_over(nt, wait, in_flags, now);
}

/*
 * The fair class's state (MKM_CLASS_SCHED_STATE) of tracked thread t's
 * task p, with its peer's where the peer competes with it and is shown
 * (peer_tid, as sensor_peer() gave it: 0 hides it): a record of their
 * vruntimes, and on EEVDF one of their deadlines. Off the default path:
 * only a monitor that asked for the class comes here.
 */
static noinline void sensor_sched_state(struct mkm_tracked *t, bool shown,
					struct task_struct *p,
					struct task_struct *peer, u32 peer_tid,
					u8 flags, u64 now)
{
	u32 peer_v = 0, peer_d = 0;

	if (!mkm_task_fair(p))
		return;
	if (peer && peer_tid && mkm_task_fair(peer) &&
	    mkm_tasks_compete(p, peer)) {
		flags |= MKM_EVF_SS_PEER;
		peer_v = (u32)READ_ONCE(peer->se.vruntime);
		peer_d = (u32)mkm_task_deadline(peer);
	} else {
		flags &= ~MKM_EVF_SS_RESCHED;
	}
	sensor_write_shown(t, shown, MKM_EV_SCHED_STATE, flags,
			   (u32)READ_ONCE(p->se.vruntime), peer_v, now);
	if (MKM_HAVE_EEVDF)
		sensor_write_shown(t, shown, MKM_EV_SCHED_STATE,
				   flags | MKM_EVF_SS_DEADLINE,
				   (u32)mkm_task_deadline(p), peer_d, now);
}

/*
 * A tracked thread leaves or takes the CPU: both records on one time, or
 * one record for both. tb and its shift are what the probe tested (one
 * load of each per switch). next comes last, after the shift: the probe
 * moves it out of %rcx for the shift's count, and it is then where this
 * call wants it.
 */
static noinline notrace void
sensor_switch(const struct mkm_threads_table *tb, bool preempt,
	      struct task_struct *prev, unsigned int shift,
	      unsigned int prev_state, struct task_struct *next)
{
	/* First, so that little is live across the call. */
	u64 now = local_clock();
	struct mkm_tracked *pt = mkm_threads_find_shifted(tb, shift, prev);
	struct mkm_tracked *nt = mkm_threads_find_shifted(tb, shift, next);
	bool p_shown = false, n_shown = false;
	u8 out_flags, in_flags = 0;
	u32 state, wait, p_rec;

	/* __schedule() has interrupts off: nothing can nest in the writes. */
	lockdep_assert_irqs_disabled();
	if (pt) {
		sensor_check_dumpable(pt, prev);
		p_shown = sensor_may_record_task(pt, prev);
	}
	if (nt) {
		sensor_check_dumpable(nt, next);
		n_shown = sensor_may_record_task(nt, next);
	}
	if (pt && nt && sensor_one_switch(pt, nt, p_shown && n_shown)) {
		state = sensor_left(prev, preempt, prev_state, &out_flags);
		wait = sensor_waited(nt, next, now, &in_flags);
		/* next's tid as its own records give it (its entry's). */
		sensor_write(pt->mon, READ_ONCE(pt->tid), pt->unique_id,
			     MKM_EV_SWITCH,
			     out_flags | in_flags |
				     state << MKM_EVF_STATE_SHIFT,
			     wait, READ_ONCE(nt->tid), now);
		pt->run_delay = mkm_task_run_delay(prev);
		sensor_check_runq(nt, wait, in_flags, now);
		return;
	}
	/* The state adds to the switches: one load of the mask for both. */
	p_rec = pt ? sensor_recording(pt->mon,
				      MKM_CLASS_SCHED | MKM_CLASS_SCHED_STATE) :
		     0;
	if (p_rec) {
		u32 peer = sensor_peer(pt->mon, next, nt, n_shown);

		state = sensor_left(prev, preempt, prev_state, &out_flags);
		sensor_write_shown(pt, p_shown, MKM_EV_SWITCH_OUT, out_flags,
				   state, peer, now);
		pt->run_delay = mkm_task_run_delay(prev);
		/* Its vruntime, up to date with its run, against next's. */
		if (unlikely(p_rec & MKM_CLASS_SCHED_STATE))
			sensor_sched_state(pt, p_shown, prev, next, peer,
					   MKM_EVF_SS_SWITCH, now);
	}
	if (nt && sensor_recording(nt->mon, MKM_CLASS_SCHED)) {
		wait = sensor_waited(nt, next, now, &in_flags);
		sensor_write_shown(nt, n_shown, MKM_EV_SWITCH_IN, in_flags,
				   wait,
				   sensor_peer(nt->mon, prev, pt, p_shown),
				   now);
		if (n_shown)
			sensor_check_runq(nt, wait, in_flags, now);
	}
}

/*
 * Every context switch of the machine runs this: notrace, so that not even
 * the function tracer's nop is in it (one of the dozen instructions an
 * untracked switch pays), as for the other hot probes and their sensors.
 */
static notrace void probe_sched_switch(void *data, bool preempt,
				       struct task_struct *prev,
				       struct task_struct *next,
				       unsigned int prev_state)
{
	const struct mkm_threads_table *tb = mkm_threads_current();
	unsigned int shift = tb->shift;

#ifdef CONFIG_X86_64
	/*
	 * preempt stays in its argument register, which the call below
	 * wants: gcc would copy it out to hash in %esi, and back, two
	 * instructions on every unmonitored switch.
	 */
	asm("" : "+S"(preempt));
#endif
	if (mkm_threads_maybe_either(tb, shift, prev, next))
		sensor_switch(tb, preempt, prev, shift, prev_state, next);
}

/*
 * The waker and context of the wakeup of p under way, into t, as its
 * WAKING saw them. Its WAKEUP may run elsewhere: on p's CPU, from the wake
 * list try_to_wake_up() queued for it (an IPI, or the idle loop), where
 * current is not the waker and in_task() is false; it takes what WAKING
 * saw, and saves a second lookup of the waker. p takes no CPU between its
 * WAKING and its WAKEUP (its switch-out may still be under way), so the
 * times it took one name the wakeup: a WAKEUP whose WAKING was not
 * recorded (the monitor resumed in between) sees its own context.
 */
static __always_inline void
sensor_wake_context(const struct mkm_threads_table *tb, struct mkm_tracked *t,
		    struct task_struct *p, u8 type)
{
	unsigned long arrivals = mkm_task_arrivals(p);

	if (type == MKM_EV_WAKEUP && t->wake_arrivals == arrivals) {
		t->wake_arrivals = ULONG_MAX;
		return;
	}
	t->wake_flags = in_task() ? 0 : MKM_EVF_IN_IRQ;
	t->waker = sensor_waker_in(tb, t->mon);
	t->wake_arrivals = type == MKM_EV_WAKING ? arrivals : ULONG_MAX;
}

/*
 * The fair class's state at p's WAKEUP: its peer is the thread the rule
 * weighed it against, the running one, where the wakeup runs on p's CPU
 * (from the wake list too); elsewhere the rule ran under p's run queue's
 * lock from another CPU, and the peer is not known here.
 */
static noinline void sensor_wakeup_state(const struct mkm_threads_table *tb,
					 struct mkm_tracked *t,
					 struct task_struct *p, u64 now)
{
	struct task_struct *curr = current;
	struct mkm_tracked *ct;
	u32 peer_tid = 0;
	u8 flags = 0;

	if (curr != p && task_cpu(p) == raw_smp_processor_id()) {
		ct = mkm_threads_find(tb, curr);
		peer_tid =
			sensor_peer(t->mon, curr, ct,
				    ct && ct->mon == t->mon &&
					    sensor_may_record_task(ct, curr));
		if (test_tsk_need_resched(curr))
			flags |= MKM_EVF_SS_RESCHED;
	}
	sensor_sched_state(t, sensor_may_record_task(t, p), p,
			   peer_tid ? curr : NULL, peer_tid, flags, now);
}

/*
 * WAKING or WAKEUP of p; tb is the table the probe tested. The clock is
 * read first, so that little is live across the call (the wakeup path has
 * interrupts off but where a task wakes itself, so they are disabled here
 * too).
 */
static __always_inline void sensor_wake(const struct mkm_threads_table *tb,
					struct task_struct *p, u8 type,
					bool target)
{
	struct mkm_tracked *t;
	unsigned long irqflags;
	u8 flags;
	u64 now;

	local_irq_save(irqflags);
	now = local_clock();
	t = mkm_threads_find(tb, p);
	if (t && sensor_recording(t->mon, MKM_CLASS_WAKEUP)) {
		sensor_wake_context(tb, t, p, type);
		flags = t->wake_flags;
		/*
		 * The end of a PREEMPT_RT lock wait: seen at WAKING, while
		 * p is still in it; its WAKEUP follows under the same
		 * p->pi_lock, once p's state says TASK_RUNNING.
		 */
		if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
			if (type == MKM_EV_WAKING)
				t->lock_wake = sensor_rtlock_wait(
					READ_ONCE(p->__state));
			if (unlikely(t->lock_wake))
				flags |= MKM_EVF_LOCK_WAIT;
		}
		sensor_write_shown(t, sensor_may_record_task(t, p), type, flags,
				   target ? task_cpu(p) : 0, t->waker, now);
		if (type == MKM_EV_WAKEUP &&
		    unlikely(sensor_recording(t->mon, MKM_CLASS_SCHED_STATE)))
			sensor_wakeup_state(tb, t, p, now);
	}
	local_irq_restore(irqflags);
}

static noinline notrace void sensor_waking(const struct mkm_threads_table *tb,
					   struct task_struct *p)
{
	sensor_wake(tb, p, MKM_EV_WAKING, false);
}

/* As the switch probe: the filter inline, its table handed on. */
static notrace void probe_sched_waking(void *data, struct task_struct *p)
{
	const struct mkm_threads_table *tb = mkm_threads_current();

	if (mkm_threads_maybe_in(tb, p))
		sensor_waking(tb, p);
}

static noinline notrace void sensor_wakeup(const struct mkm_threads_table *tb,
					   struct task_struct *p)
{
	sensor_wake(tb, p, MKM_EV_WAKEUP, true);
}

static notrace void probe_sched_wakeup(void *data, struct task_struct *p)
{
	const struct mkm_threads_table *tb = mkm_threads_current();

	if (mkm_threads_maybe_in(tb, p))
		sensor_wakeup(tb, p);
}

static void probe_sched_wakeup_new(void *data, struct task_struct *p)
{
	struct mkm_tracked *t = sensor_lookup(p);

	if (t)
		sensor_emit_thread(t, MKM_CLASS_SCHED, MKM_EV_WAKEUP_NEW, 0,
				   task_cpu(p), sensor_waker(t->mon));
}

static void probe_sched_migrate_task(void *data, struct task_struct *p,
				     int dest_cpu)
{
	struct mkm_tracked *t = sensor_lookup(p);

	if (t)
		sensor_emit_thread(t, MKM_CLASS_SCHED, MKM_EV_MIGRATE, 0,
				   dest_cpu, task_cpu(p));
}

/*
 * The monitor a new thread joins: its parent's, if that one inherits, else
 * the system-wide monitor, if any (which takes every thread).
 */
static struct mkm_monitor *sensor_child_monitor(const struct mkm_tracked *t)
{
	if (t && READ_ONCE(t->mon->inherit))
		return t->mon;
	return READ_ONCE(mkm_system_monitor);
}

/*
 * Inheritance grants no more than thread_monitor would: a child under
 * credentials the monitor may not watch (a parent's euid 0, a new user
 * namespace) or not dumpable is tracked with no reference credentials, so
 * withheld until they pass (sensor_may_record()). child has not run yet:
 * its mm is as stable as at a switch.
 */
static void sensor_inherit_rights(struct mkm_tracked *ct,
				  struct task_struct *child)
{
	/* The credentials kept are the ones checked. */
	if (!mkm_access_creds(ct->mon, ct->cred))
		put_cred(xchg(&ct->cred, NULL));
	sensor_check_dumpable(ct, child);
}

/*
 * Inheritance: a tracked thread's new thread or process joins its monitor;
 * any new thread joins a system-wide monitor.
 */
static void probe_sched_process_fork(void *data, struct task_struct *parent,
				     struct task_struct *child)
{
	struct mkm_tracked *t, *ct = NULL;
	struct mkm_monitor *cmon;
	unsigned long irqflags;
	u32 ctid = 0, flags;

	rcu_read_lock();
	t = sensor_lookup(parent);
	cmon = sensor_child_monitor(t);
	if (cmon)
		ctid = sensor_tid(cmon, child);
	if (ctid) {
		raw_spin_lock_irqsave(&mkm_threads_lock, irqflags);
		ct = mkm_threads_new_spare(child, cmon, ctid, ctid);
		if (ct)
			sensor_inherit_rights(ct, child);
		raw_spin_unlock_irqrestore(&mkm_threads_lock, irqflags);
	}
	if (!t)
		goto name;
	flags = child->tgid == parent->tgid ? MKM_EVF_THREAD : 0;
	if (ct && ct->mon == t->mon) {
		flags |= MKM_EVF_INHERITED;
		/* A withheld child is not named, even by its parent. */
		if (!sensor_may_record(ct))
			ctid = 0;
	} else if (mkm_access_creds(t->mon, __task_cred(child))) {
		ctid = t->mon == cmon ? ctid : sensor_tid(t->mon, child);
	} else {
		/*
		 * Not tracked here, but one the monitor could not watch (a
		 * new user namespace): named no more than if it were.
		 */
		ctid = 0;
	}
	sensor_emit_thread(t, MKM_CLASS_LIFECYCLE, MKM_EV_FORK, flags, ctid,
			   flags & MKM_EVF_INHERITED ? ctid : 0);
name:
	/* The child's state comes with its WAKEUP_NEW; its name now. */
	if (ct)
		sensor_name(ct, child->comm);
	rcu_read_unlock();
}

/* Forgets t, if it is still tracked, after recording why. */
static void sensor_untrack(struct task_struct *p, u32 reason, u8 type)
{
	struct mkm_tracked *t;
	unsigned long irqflags;

	raw_spin_lock_irqsave(&mkm_threads_lock, irqflags);
	t = mkm_threads_lookup(p);
	if (t) {
		if (type == MKM_EV_DETACH)
			mkm_sensor_detach(t, reason);
		else
			sensor_emit_tracking(t, type, 0, 0);
		mkm_threads_del_locked(t);
		mkm_threads_free_rcu(t);
	}
	raw_spin_unlock_irqrestore(&mkm_threads_lock, irqflags);
}

/* p is current, which exec'd: checked again under its new credentials. */
static void probe_sched_process_exec(void *data, struct task_struct *p,
				     pid_t old_pid, struct linux_binprm *bprm)
{
	struct mkm_tracked *t;
	u32 old_tid;

	rcu_read_lock();
	t = sensor_lookup(p);
	if (!t)
		goto out;
	/* The new credentials are in place: a setuid binary drops out here. */
	if (mkm_access_check(t->mon, p, __task_cred(p))) {
		rcu_read_unlock();
		sensor_untrack(p, MKM_DETACH_EXEC, MKM_EV_DETACH);
		return;
	}
	/* A non-leader thread that execs takes the leader's tid. */
	old_tid = t->tid;
	WRITE_ONCE(t->tid, sensor_tid(t->mon, p));
	sensor_emit_thread(t, MKM_CLASS_LIFECYCLE, MKM_EV_EXEC, 0, old_tid, 0);
out:
	rcu_read_unlock();
}

static void probe_sched_process_exit(void *data,
				     MKM_TP_PROTO_SCHED_PROCESS_EXIT)
{
	struct mkm_tracked *t;

	rcu_read_lock();
	t = sensor_lookup(p);
	if (t) {
		/*
		 * A flight recorder's ring may have overwritten the thread's
		 * name, and /proc forgets it once the thread is reaped: its
		 * last records name it again.
		 */
		if (READ_ONCE(t->mon->ring_flags) & MKM_RING_OVERWRITE)
			sensor_name(t, p->comm);
		sensor_emit_thread(t, MKM_CLASS_LIFECYCLE, MKM_EV_EXIT, 0,
				   p->exit_code, 0);
	}
	rcu_read_unlock();
}

/* The task is reaped: its last event, and the end of its tracking. */
static void probe_sched_process_free(void *data, struct task_struct *p)
{
	bool tracked;

	rcu_read_lock();
	tracked = sensor_lookup(p);
	rcu_read_unlock();
	if (tracked)
		sensor_untrack(p, 0, MKM_EV_REAP);
}

static void probe_task_rename(void *data, struct task_struct *task,
			      const char *comm)
{
	struct mkm_tracked *t;
	char name[TASK_COMM_LEN] = {};

	rcu_read_lock();
	t = sensor_lookup(task);
	if (t) {
		strscpy(name, comm, sizeof(name));
		sensor_name(t, name);
	}
	rcu_read_unlock();
}

/*
 * An interrupt on an idle CPU: recorded, with tid 0, by the system-wide
 * monitor only (it is what ends the CPU's idle interval).
 */
static noinline void sensor_idle_irq(u8 type, u8 flags, u32 arg0, u32 arg1)
{
	struct mkm_monitor *mon = READ_ONCE(mkm_system_monitor);

	if (mon)
		sensor_emit(mon, MKM_CLASS_IRQ, 0, 0, type, flags, arg0, arg1);
}

/*
 * An interrupt or softirq record while an interrupt trigger is armed: the
 * CPU's interrupt clock kept (whoever was interrupted), the record written
 * for a tracked thread t, or for an idle CPU, and after an exit over t's
 * monitor's threshold since the entry, a TRIGGER right after it.
 * Softirqs on PREEMPT_RT may be preempted: their time is from entry to
 * exit, as the thread lost it.
 */
static noinline void sensor_irq_timed(struct mkm_tracked *t, u8 type, u8 flags,
				      u32 arg0, u32 arg1)
{
	struct sensor_irq_clock *c;
	bool soft = type == MKM_EV_SOFTIRQ_ENTRY || type == MKM_EV_SOFTIRQ_EXIT;
	bool entry = type == MKM_EV_IRQ_ENTRY || type == MKM_EV_SOFTIRQ_ENTRY;
	unsigned long irqflags;
	struct mkm_monitor *mon;
	u64 now, began, took;

	local_irq_save(irqflags);
	now = local_clock();
	c = this_cpu_ptr(&sensor_irq_clock);
	began = c->began[soft];
	c->began[soft] = entry ? now : 0;
	took = began && !entry ? now - began : 0;
	if (took > READ_ONCE(mkm_irq_trigger_floor_ns)) {
		c->long_end = now;
		c->long_ns = took;
	}
	if (!t) {
		if (unlikely(is_idle_task(current)))
			sensor_idle_irq(type, flags, arg0, arg1);
		goto out;
	}
	mon = t->mon;
	if (!sensor_recording(mon, MKM_CLASS_IRQ))
		goto out;
	if (t->task == current)
		sensor_check_dumpable(t, current);
	sensor_write_thread(t, type, flags, arg0, arg1, now);
	if (mon->trigger_irq_ns && took > mon->trigger_irq_ns &&
	    sensor_may_record(t))
		sensor_trigger_over(mon, READ_ONCE(t->tid), t->unique_id,
				    MKM_TRIGGER_IRQ, took, mon->trigger_irq_ns,
				    now);
out:
	local_irq_restore(irqflags);
}

void mkm_sensor_irq_clocks_reset(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&sensor_irq_clock, cpu), 0,
		       sizeof(struct sensor_irq_clock));
}

/* An interrupt handler's entry or exit, for the thread it interrupted. */
static __always_inline void sensor_irq(u8 type, u8 flags, u32 arg0, u32 arg1)
{
	struct mkm_tracked *t;

	/* Softirqs run preemptible in task context on PREEMPT_RT. */
	rcu_read_lock();
	t = sensor_lookup(current);
	if (unlikely(READ_ONCE(mkm_irq_trigger_floor_ns)))
		sensor_irq_timed(t, type, flags, arg0, arg1);
	else if (t)
		sensor_emit_thread(t, MKM_CLASS_IRQ, type, flags, arg0, arg1);
	else if (unlikely(is_idle_task(current)))
		sensor_idle_irq(type, flags, arg0, arg1);
	rcu_read_unlock();
}

/*
 * An interrupt's handler; on arm64 the timer's and the IPIs' told by name
 * (arch_irq.h).
 */
static void probe_irq_handler_entry(void *data, int irq,
				    struct irqaction *action)
{
	u8 flags = 0;
	u32 arg0 = irq;

	if (mkm_irq_classify(irq, action, &flags, &arg0))
		sensor_irq(MKM_EV_IRQ_ENTRY, flags, arg0, 0);
}

static void probe_irq_handler_exit(void *data, int irq,
				   struct irqaction *action, int ret)
{
	u8 flags = 0;
	u32 arg0 = irq;

	if (mkm_irq_classify(irq, action, &flags, &arg0))
		sensor_irq(MKM_EV_IRQ_EXIT, flags, arg0,
			   flags & MKM_EVF_VECTOR ? 0 : ret);
}

static void probe_softirq_entry(void *data, unsigned int vec)
{
	sensor_irq(MKM_EV_SOFTIRQ_ENTRY, 0, vec, 0);
}

static void probe_softirq_exit(void *data, unsigned int vec)
{
	sensor_irq(MKM_EV_SOFTIRQ_EXIT, 0, vec, 0);
}

/*
 * x86's system vectors have no irq number and no irq_handler tracepoint:
 * the local APIC timer (the tick, every hrtimer) and the IPIs have their
 * own, here (optional: other architectures and small configurations lack
 * them).
 */
#if MKM_HAVE_X86_VECTORS
#define VECTOR_PROBES(name)                                              \
	static void probe_##name##_entry(void *data, int vector)         \
	{                                                                \
		sensor_irq(MKM_EV_IRQ_ENTRY, MKM_EVF_VECTOR, vector, 0); \
	}                                                                \
	static void probe_##name##_exit(void *data, int vector)          \
	{                                                                \
		sensor_irq(MKM_EV_IRQ_EXIT, MKM_EVF_VECTOR, vector, 0);  \
	}
VECTOR_PROBES(local_timer)
VECTOR_PROBES(reschedule)
VECTOR_PROBES(call_function)
VECTOR_PROBES(call_function_single)
VECTOR_PROBES(irq_work)
#define SENSOR_VECTOR_PROBES(P, OPT)                   \
	OPT(local_timer_entry, MKM_CLASS_IRQ)          \
	OPT(local_timer_exit, MKM_CLASS_IRQ)           \
	OPT(reschedule_entry, MKM_CLASS_IRQ)           \
	OPT(reschedule_exit, MKM_CLASS_IRQ)            \
	OPT(call_function_entry, MKM_CLASS_IRQ)        \
	OPT(call_function_exit, MKM_CLASS_IRQ)         \
	OPT(call_function_single_entry, MKM_CLASS_IRQ) \
	OPT(call_function_single_exit, MKM_CLASS_IRQ)  \
	OPT(irq_work_entry, MKM_CLASS_IRQ)             \
	OPT(irq_work_exit, MKM_CLASS_IRQ)
#elif MKM_HAVE_ARM64_IPI
/*
 * arm64's IPIs, by their reason (arch_irq.h): required there, since the
 * "IPI" action's own handler events are left out for them.
 */
DEFINE_PER_CPU(u32, mkm_ipi_irq);

static void probe_ipi_entry(void *data, const char *reason)
{
	u8 flags;
	u32 arg0;

	mkm_ipi_classify(reason, &flags, &arg0);
	sensor_irq(MKM_EV_IRQ_ENTRY, flags, arg0, 0);
}

static void probe_ipi_exit(void *data, const char *reason)
{
	u8 flags;
	u32 arg0;

	mkm_ipi_classify(reason, &flags, &arg0);
	sensor_irq(MKM_EV_IRQ_EXIT, flags, arg0, 0);
}
#define SENSOR_VECTOR_PROBES(P, OPT) \
	P(ipi_entry, MKM_CLASS_IRQ)  \
	P(ipi_exit, MKM_CLASS_IRQ)
#else
#define SENSOR_VECTOR_PROBES(P, OPT)
#endif

/* Preemptible on 7.x (faultable tracepoints, under tasks-trace RCU). */
static void probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct mkm_tracked *t;

	rcu_read_lock();
	t = sensor_lookup(current);
	if (t)
		sensor_emit_thread(t, MKM_CLASS_SYSCALL, MKM_EV_SYSCALL_ENTRY,
				   0, id, 0);
	rcu_read_unlock();
}

static void probe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct mkm_tracked *t;

	rcu_read_lock();
	t = sensor_lookup(current);
	if (t)
		sensor_emit_thread(t, MKM_CLASS_SYSCALL, MKM_EV_SYSCALL_EXIT, 0,
				   syscall_get_nr(current, regs), ret);
	rcu_read_unlock();
}

void mkm_sensor_attach(struct mkm_tracked *t, bool dumpable)
{
	struct task_struct *p = t->task;
	unsigned int state = READ_ONCE(p->__state);
	u32 ts = MKM_TS_RUNNING, on_cpu = -1;

	if (!t->perfmon && READ_ONCE(t->undumpable) == dumpable)
		sensor_dumpable_changed(t, !dumpable);
	if (p->exit_state)
		ts = sensor_dead_state(p);
	else if (state != TASK_RUNNING)
		ts = sensor_state(p, state);
	else if (READ_ONCE(p->on_cpu))
		on_cpu = task_cpu(p);
	/* The next SWITCH_IN counts the run-queue wait from here on. */
	WRITE_ONCE(t->run_delay, mkm_task_run_delay(p));
	/* Its state, as what it does: withheld under refused credentials. */
	sensor_emit_thread(t, MKM_CLASS_ALL, MKM_EV_ATTACH, 0, ts, on_cpu);
	sensor_name(t, p->comm);
}

void mkm_sensor_detach(struct mkm_tracked *t, u32 reason)
{
	sensor_emit_tracking(t, MKM_EV_DETACH, reason, 0);
}

void mkm_sensor_mark(struct mkm_monitor *mon, u64 value, bool trigger)
{
	u32 tid = sensor_tid(mon, current), unique_id = 0;
	u32 lo = lower_32_bits(value), hi = upper_32_bits(value);
	struct mkm_tracked *t;
	unsigned long irqflags;
	u64 now;

	rcu_read_lock();
	t = mkm_threads_lookup(current);
	if (t && t->mon == mon)
		unique_id = t->unique_id;
	rcu_read_unlock();
	if (!sensor_recording(mon, MKM_CLASS_ALL))
		return;
	/* The trigger right after its mark, in the same ring. */
	local_irq_save(irqflags);
	now = local_clock();
	sensor_write(mon, tid, unique_id, MKM_EV_MARK, 0, lo, hi, now);
	if (trigger)
		sensor_trigger(mon, tid, unique_id, MKM_TRIGGER_MARK, lo, hi,
			       now);
	local_irq_restore(irqflags);
}

/*
 * A mark by a tracked thread into the monitor that tracks it, whatever fd
 * asked (MKM_MARK_OWN): how a program run under a recorder marks its own
 * stream, or asks the recorder's flight recorder for a snapshot, with no
 * descriptor of that monitor. Shown or withheld as the thread's other
 * records are, and a withheld mark triggers nothing: its value is the
 * thread's, under credentials the monitor may not watch.
 */
int mkm_sensor_mark_own(u64 value, bool trigger)
{
	u32 lo = lower_32_bits(value), hi = upper_32_bits(value);
	struct mkm_tracked *t;
	unsigned long irqflags;
	int ret = -ENOENT;

	rcu_read_lock();
	t = sensor_lookup(current);
	if (t)
		ret = sensor_recording(t->mon, MKM_CLASS_ALL) ? 0 : -EAGAIN;
	if (!ret) {
		bool shown;
		u64 now;

		local_irq_save(irqflags);
		sensor_check_dumpable(t, current);
		shown = sensor_may_record(t);
		now = local_clock();
		sensor_write_shown(t, shown, MKM_EV_MARK, 0, lo, hi, now);
		if (trigger && shown)
			sensor_trigger(t->mon, READ_ONCE(t->tid), t->unique_id,
				       MKM_TRIGGER_MARK, lo, hi, now);
		local_irq_restore(irqflags);
	}
	rcu_read_unlock();
	return ret;
}

/*
 * Every probe: its tracepoint, the class it serves, and whether the class
 * works without it (OPT). Expanded twice: into the table, and into a
 * function never called, where each probe is checked against its
 * tracepoint's prototype when the module is built (compat.h).
 */
#define SENSOR_PROBES(P, OPT)                      \
	P(sched_switch, MKM_CLASS_SCHED)           \
	P(sched_waking, MKM_CLASS_WAKEUP)          \
	P(sched_wakeup, MKM_CLASS_WAKEUP)          \
	P(sched_wakeup_new, MKM_CLASS_SCHED)       \
	P(sched_migrate_task, MKM_CLASS_SCHED)     \
	P(sched_process_fork, MKM_CLASS_TRACKING)  \
	P(sched_process_exec, MKM_CLASS_TRACKING)  \
	P(sched_process_free, MKM_CLASS_TRACKING)  \
	P(sched_process_exit, MKM_CLASS_LIFECYCLE) \
	P(task_rename, MKM_CLASS_LIFECYCLE)        \
	P(irq_handler_entry, MKM_CLASS_IRQ)        \
	P(irq_handler_exit, MKM_CLASS_IRQ)         \
	P(softirq_entry, MKM_CLASS_IRQ)            \
	P(softirq_exit, MKM_CLASS_IRQ)             \
	SENSOR_VECTOR_PROBES(P, OPT)               \
	P(sys_enter, MKM_CLASS_SYSCALL)            \
	P(sys_exit, MKM_CLASS_SYSCALL)

#define PROBE(tp, class) { #tp, probe_##tp, class, false },
#define OPTIONAL_PROBE(tp, class) { #tp, probe_##tp, class, true },
/* clang-format off */
static struct mkm_probe sensor_probes[] = {
	SENSOR_PROBES(PROBE, OPTIONAL_PROBE)
};
/* clang-format on */

#define CHECK_PROBE(tp, class) MKM_CHECK_PROBE(tp, probe_##tp);
static void __maybe_unused sensor_check_prototypes(void)
{
	SENSOR_PROBES(CHECK_PROBE, CHECK_PROBE)
}

struct mkm_probe *mkm_sensor_probes(unsigned int *nr)
{
	*nr = ARRAY_SIZE(sensor_probes);
	return sensor_probes;
}
