// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * states.c - the state machine: each record, in merged time order, moves
 * its thread (and for a LOST record, every thread) between microstates.
 *
 * Lost events. A MKM_EV_LOST record, or a jump in a CPU's seq numbers
 * (synthesised into a LOST record by merge.c), opens a gap at the time of
 * the last record before it. The lost records may have been any thread's
 * switch or wakeup, so every thread becomes UNKNOWN there, except threads
 * running on another CPU (that CPU's stream shows them still running) and
 * zombies; each one's next state-fixing event ends its UNKNOWN interval.
 *
 * Hot path. Records of the thread that last had one on the same CPU skip
 * the tid map (a per-CPU cache of its entry, which records about other
 * threads, wakeups and migrations, leave in place; forgotten on every CPU
 * when a timeline ends or changes tid, or the thread table moves); the
 * open interval's start and slot are kept in the thread, so a transition
 * touches the thread and one 12-byte slot. A transition at the very
 * instant the open interval began rewrites that interval instead of
 * leaving one of zero length.
 *
 * Flutter (MKM 3.2): a thread switched out to the idle task and switched
 * back in from the idle task on the same CPU with no monitored thread in
 * between. The kernel's sched_switch does not fire when the scheduler
 * picks the same task again, so only idle can be "nothing run between".
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "timeline/timeline.h"

#define CPU_NONE 0xffffffffu

/*
 * mon_states[s].on_cpu, as the range of states it holds (test_timeline
 * checks that they agree): one compare, where the table costs a load.
 */
static inline bool state_on_cpu(unsigned int s)
{
	return s - TL_RUN <= TL_INTERRUPTED - TL_RUN;
}

/*
 * Move thread t into (state, cpu) at time now. Returns -ENOMEM only; the
 * state is changed even then, the interval is lost. Inlined: it runs for
 * nearly every record.
 */
static inline __attribute__((always_inline)) int
set_state(struct tl *tl, struct tl_th *t, uint64_t now, unsigned int state,
	  unsigned int cpu)
{
	struct tl_iv *last = t->last;

	if (likely(last)) {
		if (state == t->state && cpu == t->ivcpu)
			return 0;
		t->state = (uint8_t)state;
		t->ivcpu = (uint16_t)cpu;
		if (unlikely(t->since >= now)) {
			last->state = (uint8_t)state;
			last->cpu = (uint16_t)cpu;
			return 0;
		}
		if (unlikely(tl->cb != NULL))
			tl_iv_report(tl, (size_t)t->index, last, now);
	} else {
		t->state = (uint8_t)state;
		t->ivcpu = (uint16_t)cpu;
	}
	return tl_iv_append(tl, t, now, state, cpu);
}

/* ---- the state machine ------------------------------------------------ */

static unsigned int run_state(const struct tl_th *t)
{
	return t->irq_depth ? TL_INTERRUPTED : t->run;
}

static bool sys_is_futex(uint32_t nr)
{
	switch (nr) {
#ifdef SYS_futex
	case SYS_futex:
#endif
#ifdef SYS_futex_waitv
	case SYS_futex_waitv:
#endif
		return true;
	}
	return false;
}

static bool sys_is_poll(uint32_t nr)
{
	switch (nr) {
#ifdef SYS_poll
	case SYS_poll:
#endif
#ifdef SYS_ppoll
	case SYS_ppoll:
#endif
#ifdef SYS_select
	case SYS_select:
#endif
#ifdef SYS_pselect6
	case SYS_pselect6:
#endif
#ifdef SYS_epoll_wait
	case SYS_epoll_wait:
#endif
#ifdef SYS_epoll_pwait
	case SYS_epoll_pwait:
#endif
#ifdef SYS_epoll_pwait2
	case SYS_epoll_pwait2:
#endif
		return true;
	}
	return false;
}

/*
 * The state a thread is in after leaving its CPU in kernel state ts. A
 * table: a switch on ts jumped through one, by an indirect branch that
 * mispredicted half the time.
 */
static inline unsigned int state_after(const struct tl_th *t, uint32_t ts)
{
	static const uint8_t after[] = {
		[MKM_TS_RUNNING] = TL_RUNQ,
		[MKM_TS_INTERRUPTIBLE] = TL_SLEEP,
		[MKM_TS_UNINTERRUPTIBLE] = TL_DISK,
		[MKM_TS_STOPPED] = TL_STOPPED,
		[MKM_TS_TRACED] = TL_STOPPED,
		/* Released at exit (ATTACH of a dying thread). */
		[MKM_TS_DEAD] = TL_ZOMBIE,
		[MKM_TS_PARKED] = TL_SLEEP,
		[MKM_TS_ZOMBIE] = TL_ZOMBIE, /* waits for its parent's wait() */
	};

	if (ts == MKM_TS_INTERRUPTIBLE && t->run == TL_RUN_SYS) {
		if (sys_is_futex(t->sysnr))
			return TL_FUTEX_SLEEP;
		if (sys_is_poll(t->sysnr))
			return TL_POLL_SLEEP;
	}
	return ts < ARRAY_SIZE(after) ? after[ts] : TL_UNKNOWN;
}

/*
 * TL_WINDOW: the first record of thread t, begun at CPU c's window start,
 * shows it on c: it was there all along, since c's earlier records would
 * otherwise show it coming in.
 */
static void window_on_cpu(struct tl *tl, struct tl_th *t, unsigned int c)
{
	t->window_born = 0;
	if (t->state != TL_UNKNOWN || t->since != t->first || t->ivcpu != c)
		return;
	t->cpu = (uint16_t)c;
	tl->cpus[c].cur = t->index;
	set_state(tl, t, t->since, run_state(t), c);
}

/* The event proves t is on CPU c now: make it so, counting a correction. */
static inline __attribute__((always_inline)) int
ensure_running(struct tl *tl, struct tl_th *t, uint64_t now, unsigned int c)
{
	if (likely(state_on_cpu(t->state) && t->ivcpu == c))
		return 0;
	if (unlikely(t->window_born)) {
		window_on_cpu(tl, t, c);
		if (state_on_cpu(t->state))
			return 0;
	}
	if (t->state != TL_UNKNOWN) {
		t->anomalies++;
		tl->stats.anomalies++;
	}
	t->cpu = (uint16_t)c;
	tl->cpus[c].cur = t->index;
	return set_state(tl, t, now, run_state(t), c);
}

static void lost_gap(struct tl *tl, unsigned int c, uint64_t now)
{
	size_t i;

	tl->cpus[c].events--; /* merge counted it: not an event */
	tl->cpus[c].out = NO_THREAD;
	tl->cpus[c].cur = NO_THREAD;
	tl_cache_forget(&tl->cpus[c]);
	tl->cpus[c].nr_irq = 0;
	for (i = 0; i < tl->nr_th; i++) {
		struct tl_th *t = &tl->th[i];

		if (t->ended || t->state == TL_ZOMBIE)
			continue;
		if (state_on_cpu(t->state) && t->ivcpu != c)
			continue;
		t->irq_depth = 0;
		t->run = TL_RUN;
		if (tl->cpus[t->cpu].cur == (int64_t)i)
			tl->cpus[t->cpu].cur = NO_THREAD;
		set_state(tl, t, now, TL_UNKNOWN, t->cpu);
	}
}

/*
 * Room for one more entry of @size bytes in the list *arr (n used, *cap
 * held; arrays.c grows it). Inlined: every interrupt handler's exit
 * stores one.
 */
static inline __attribute__((always_inline)) void *
push(void **arr, size_t n, size_t *cap, size_t size)
{
	if (unlikely(n == *cap) && !tl_array_grow(arr, cap, size))
		return NULL;
	return (char *)*arr + n * size;
}

/* ---- idle CPUs (TL_IDLE) ----------------------------------------------- */

/* CPU c's idle task at now, out of any interrupt, in *i; NULL if none. */
static struct tl_th *idle_task(struct tl *tl, unsigned int c, uint64_t now,
			       int64_t *i)
{
	*i = tl_idle_get(tl, c, now);
	if (*i < 0)
		return NULL;
	tl->th[*i].irq_depth = 0;
	return &tl->th[*i];
}

/* CPU c switches to its idle task at now. */
static void idle_run(struct tl *tl, unsigned int c, uint64_t now)
{
	int64_t i;
	struct tl_th *t = idle_task(tl, c, now, &i);

	if (!t)
		return;
	t->switches++;
	t->cpu = (uint16_t)c;
	tl->cpus[c].cur = i;
	set_state(tl, t, now, TL_RUN, c);
}

/* CPU c leaves its idle task at now: it sleeps until the CPU is idle. */
static void idle_leave(struct tl *tl, unsigned int c, uint64_t now)
{
	int64_t i;
	struct tl_th *t = idle_task(tl, c, now, &i);

	if (!t)
		return;
	if (tl->cpus[c].cur == i)
		tl->cpus[c].cur = NO_THREAD;
	set_state(tl, t, now, TL_SLEEP, c);
}

/* ---- interrupt handlers ------------------------------------------------ */

static unsigned int irq_kind(const struct mkm_event *ev)
{
	if (ev->type == MKM_EV_SOFTIRQ_ENTRY || ev->type == MKM_EV_SOFTIRQ_EXIT)
		return TL_IRQ_SOFT;
	return ev->flags & MKM_EVF_VECTOR ? TL_IRQ_VECTOR : TL_IRQ_HARD;
}

static void irq_enter(struct tl *tl, struct tl_cpu *cpu,
		      const struct mkm_event *ev, int64_t th, uint64_t now)
{
	if (tl->streaming)
		return;
	if (cpu->nr_irq < TL_IRQ_DEPTH)
		cpu->irq[cpu->nr_irq] = (struct tl_irq_open){
			.start = now,
			.thread = th,
			.number = ev->arg0,
			.kind = (uint8_t)irq_kind(ev),
		};
	cpu->nr_irq++;
}

/*
 * The handler of this exit, innermost first; handlers above it whose exits
 * were not seen are dropped. An exit with no entry (one before the stream
 * began) is ignored.
 */
static inline __attribute__((always_inline)) void
irq_exit(struct tl *tl, struct tl_cpu *cpu, const struct mkm_event *ev,
	 uint64_t now)
{
	unsigned int kind = irq_kind(ev), k;
	struct tl_irq *r;

	if (tl->streaming || !cpu->nr_irq)
		return;
	if (cpu->nr_irq > TL_IRQ_DEPTH) {
		cpu->nr_irq--;
		return;
	}
	for (k = cpu->nr_irq; k-- > 0;)
		if (cpu->irq[k].kind == kind && cpu->irq[k].number == ev->arg0)
			break;
	if (k == UINT_MAX)
		return;
	cpu->nr_irq = k;
	r = push((void **)&tl->irqs, tl->nr_irqs, &tl->cap_irqs, sizeof(*r));
	if (!r)
		return;
	tl->nr_irqs++;
	*r = (struct tl_irq){
		.start_ns = cpu->irq[k].start,
		.end_ns = now,
		.thread = cpu->irq[k].thread,
		.number = cpu->irq[k].number,
		.cpu = ev->cpu,
		.kind = cpu->irq[k].kind,
		.depth = (uint8_t)k,
	};
}

static void add_mark(struct tl *tl, const struct mkm_event *ev, uint64_t now)
{
	struct tl_mark *m = push((void **)&tl->marks, tl->nr_marks,
				 &tl->cap_marks, sizeof(*m));

	if (!m)
		return;
	tl->nr_marks++;
	m->time_ns = now;
	m->value = (uint64_t)ev->arg0 | (uint64_t)ev->arg1 << 32;
	m->tid = ev->tid;
	m->cpu = ev->cpu;
	m->trigger = 0;
	if (ev->type != MKM_EV_TRIGGER)
		return;
	m->trigger = ev->flags & MKM_EVF_TRIGGER_MASK;
	/* A wait's or an interrupt's trigger: the time that fired it. */
	if (m->trigger != MKM_TRIGGER_MARK)
		m->value = (uint64_t)ev->arg0 *
			   (ev->flags & MKM_EVF_WAIT_US ? 1000 : 1);
}

/*
 * The live thread with this tid, or NO_THREAD: the CPU's cached one (a
 * waker is most often the thread whose records the CPU had last), else the
 * map's.
 */
static inline int64_t cached_lookup(const struct tl *tl,
				    const struct tl_cpu *cpu, uint32_t tid)
{
	if (tid && cpu->cache_tid == tid)
		return cpu->cache_t->index;
	return tl_thread_lookup(tl, tid);
}

/* Who woke whom: the edges mon_critical_path() walks back. */
static inline void add_wake(struct tl *tl, const struct tl_cpu *cpu,
			    const struct mkm_event *ev, size_t th,
			    unsigned int on, uint64_t now)
{
	struct tl_wake *w = push((void **)&tl->wakes, tl->nr_wakes,
				 &tl->cap_wakes, sizeof(*w));

	if (!w)
		return;
	tl->nr_wakes++;
	*w = (struct tl_wake){
		.time_ns = now,
		.thread = th,
		.waker = cached_lookup(tl, cpu, ev->arg1),
		.waker_tid = ev->arg1,
		.cpu = (uint16_t)on,
		.type = ev->type,
		.flags = ev->flags,
	};
}

static unsigned int cpu_arg(const struct tl *tl, uint32_t arg,
			    unsigned int dflt)
{
	return arg < tl->max_cpu ? arg : dflt;
}

/*
 * A non-leader thread exec'd (de_thread): it takes the leader's tid, and
 * the old leader's timeline, if monitored, ends.
 */
static void do_exec(struct tl *tl, const struct mkm_event *ev, uint64_t now)
{
	int64_t old = tl_thread_lookup(tl, ev->arg0);
	int64_t leader = tl_thread_lookup(tl, ev->tid);

	if (old == NO_THREAD)
		return;
	if (leader != NO_THREAD && leader != old)
		tl_thread_end(tl, &tl->th[leader], now, TL_REPLACED);
	tl->th[old].tid = ev->tid;
	tl_map_set(tl, ev->tid, old);
	tl_forget_cached(tl);
}

/* A thread a SWITCH made before a record of its own: ev's unique_id. */
static __attribute__((noinline)) void
name_anonymous(struct tl *tl, struct tl_th *t, const struct mkm_event *ev)
{
	if (!t->anonymous)
		return;
	t->unique_id = ev->unique_id;
	t->anonymous = 0;
	tl->nr_anonymous--;
}

/*
 * A new timeline for tid, seen first in ev: at now, or under TL_WINDOW at
 * the window's start on ev's CPU, unless ev begins it (its ATTACH, the
 * start of its tracking; a WAKEUP_NEW, of its life).
 */
static int64_t window_thread_new(struct tl *tl, const struct mkm_event *ev,
				 uint32_t tid, uint32_t unique_id, uint64_t now)
{
	uint64_t born = now;
	int64_t i;

	if (unlikely(tl->window) && ev->type != MKM_EV_ATTACH &&
	    ev->type != MKM_EV_WAKEUP_NEW && tl->cpus[ev->cpu].first_time < now)
		born = tl->cpus[ev->cpu].first_time;
	i = tl_thread_new(tl, tid, unique_id, born, ev->cpu);
	if (i >= 0 && born < now)
		tl->th[i].window_born = 1;
	return i;
}

/*
 * The thread an event is about: the per-CPU cache, else the tid map; a new
 * timeline for an unknown tid when create. A thread looked up in the map
 * becomes the CPU's cached one when remember: not for a record about
 * another thread than the CPU's own (a wakeup, a migration), whose next
 * record is most likely of the thread cached.
 */
static inline struct tl_th *th_get(struct tl *tl, struct tl_cpu *cpu,
				   const struct mkm_event *ev, uint64_t now,
				   bool create, bool remember)
{
	int64_t i;

	if (likely(cpu->cache_tid == ev->tid))
		return cpu->cache_t; /* NULL for tid 0 when none: no thread */
	if (unlikely(!ev->tid))
		return NULL;
	i = tl_thread_lookup(tl, ev->tid);
	if (i == NO_THREAD) {
		if (!create)
			return NULL;
		i = window_thread_new(tl, ev, ev->tid, ev->unique_id, now);
		if (i < 0)
			return NULL;
	} else if (unlikely(tl->nr_anonymous)) {
		name_anonymous(tl, &tl->th[i], ev);
	}
	if (remember) {
		cpu->cache_tid = ev->tid;
		cpu->cache_t = &tl->th[i];
	}
	return &tl->th[i];
}

/* An IRQ record's thread: tid 0 is its CPU's idle task (TL_IDLE). */
static inline __attribute__((always_inline)) struct tl_th *
irq_th_get(struct tl *tl, struct tl_cpu *cpu, const struct mkm_event *ev,
	   uint64_t now)
{
	int64_t i;

	if (likely(ev->tid) || !tl->idle)
		return th_get(tl, cpu, ev, now, true, true);
	i = tl_idle_get(tl, ev->cpu, now);
	return i < 0 ? NULL : &tl->th[i];
}

/*
 * A SWITCH_IN says how long its thread waited runnable (the kernel's
 * run_delay): unless a WAKEUP already said so, it was on the run queue from
 * then, or since its last known state began if that is later.
 */
static void runnable_since(struct tl *tl, struct tl_th *t,
			   const struct mkm_event *ev, uint64_t now)
{
	uint64_t wait = ev->flags & MKM_EVF_WAIT_US ? ev->arg0 * 1000ull :
						      ev->arg0;

	if (state_on_cpu(t->state) || t->state == TL_RUNQ ||
	    t->state == TL_ZOMBIE)
		return;
	set_state(tl, t, wait < now - t->since ? now - wait : t->since, TL_RUNQ,
		  ev->cpu);
}

/*
 * Thread t switched in on CPU c at now, after prev (0: the idle task), its
 * runnable wait in ev's arg0 (a SWITCH_IN's or a SWITCH's: same place).
 */
static inline __attribute__((always_inline)) void
switch_in(struct tl *tl, struct tl_cpu *cpu, struct tl_th *t,
	  const struct mkm_event *ev, uint64_t now, uint32_t prev)
{
	unsigned int c = ev->cpu;
	int64_t i = t->index;

	if (cpu->out == i && prev == 0) {
		struct tl_flutter *f = push((void **)&tl->flutters,
					    tl->nr_flutters, &tl->cap_flutters,
					    sizeof(*f));

		t->flutters++;
		cpu->flutters++;
		if (f) {
			*f = (struct tl_flutter){ now, (size_t)i, c };
			tl->nr_flutters++;
		}
	}
	cpu->out = NO_THREAD;
	if (cpu->cur != NO_THREAD && cpu->cur != i) {
		/* Its switch-out was not seen: it is off CPU now. */
		struct tl_th *o = &tl->th[cpu->cur];

		if (!o->ended && state_on_cpu(o->state) && o->ivcpu == c) {
			o->anomalies++;
			tl->stats.anomalies++;
			o->irq_depth = 0;
			set_state(tl, o, now, TL_UNKNOWN, c);
		}
	}
	t->switches++;
	cpu->switches++;
	t->irq_depth = 0;
	t->cpu = (uint16_t)c;
	cpu->cur = i;
	if (ev->arg0)
		runnable_since(tl, t, ev, now);
	set_state(tl, t, now, run_state(t), c);
}

/*
 * Thread t switched out of CPU c at now in kernel state ts, for next (0:
 * the idle task).
 */
static inline __attribute__((always_inline)) void
switch_out(struct tl *tl, struct tl_cpu *cpu, unsigned int c, struct tl_th *t,
	   uint64_t now, uint32_t ts, uint32_t next)
{
	int64_t i = t->index;

	if (unlikely(t->window_born))
		window_on_cpu(tl, t, c);
	if (!state_on_cpu(t->state) && t->state != TL_UNKNOWN) {
		t->anomalies++;
		tl->stats.anomalies++;
	}
	t->irq_depth = 0;
	t->cpu = (uint16_t)c;
	if (cpu->cur == i)
		cpu->cur = NO_THREAD;
	cpu->out = next == 0 ? i : NO_THREAD;
	/*
	 * Released at exit (a thread, or a process nobody waits for): gone
	 * now, not a zombie until the late REAP, which comes after an RCU
	 * grace period and finds it ended.
	 */
	if (ts == MKM_TS_DEAD)
		tl_thread_end(tl, t, now, TL_REAPED);
	else
		set_state(tl, t, now, state_after(t, ts), c);
	if (tl->idle && next == 0)
		idle_run(tl, c, now);
}

/*
 * A SWITCH's next thread (arg1), which the record names by tid only: its
 * unique_id is the one its own records carried. Unseen before (its ATTACH
 * lost, or before the stream), it gets a timeline whose unique_id its next
 * record of its own fills in (th_get(), while tl->nr_anonymous counts
 * such threads); else it becomes the CPU's cached thread, as a SWITCH_IN
 * would have made it.
 */
static inline struct tl_th *switch_next(struct tl *tl, struct tl_cpu *cpu,
					const struct mkm_event *ev,
					uint64_t now)
{
	int64_t i = tl_thread_lookup(tl, ev->arg1);

	if (unlikely(i == NO_THREAD)) {
		if (!ev->arg1)
			return NULL;
		i = window_thread_new(tl, ev, ev->arg1, 0, now);
		if (i < 0)
			return NULL;
		tl->th[i].anonymous = 1;
		tl->nr_anonymous++;
		return &tl->th[i];
	}
	/* Not cached while anonymous: its next record names it. */
	if (likely(!tl->th[i].anonymous)) {
		cpu->cache_tid = ev->arg1;
		cpu->cache_t = &tl->th[i];
	}
	return &tl->th[i];
}

/*
 * Process one record of CPU cpu (the record's) at now (its time, or the
 * time processed so far when it is late), in merged time order: one
 * switch on its type.
 */
static inline __attribute__((always_inline)) void
apply(struct tl *tl, struct tl_cpu *cpu, const struct mkm_event *ev,
      uint64_t now)
{
	unsigned int c = ev->cpu, type = ev->type, ns;
	struct tl_th *t;
	int64_t i;

	switch (type) {
	case MKM_EV_LOST:
		lost_gap(tl, c, now);
		return;
	case MKM_EV_MARK:
	case MKM_EV_TRIGGER:
		add_mark(tl, ev, now);
		return;
	case MKM_EV_SWITCH_IN:
		/* Before th_get(): making the idle thread may move tl->th. */
		if (tl->idle && ev->arg1 == 0)
			idle_leave(tl, c, now);
		t = th_get(tl, cpu, ev, now, true, true);
		if (t)
			switch_in(tl, cpu, t, ev, now, ev->arg1);
		return;
	case MKM_EV_SWITCH_OUT:
		t = th_get(tl, cpu, ev, now, true, true);
		if (t)
			switch_out(tl, cpu, c, t, now, ev->arg0, ev->arg1);
		return;
	case MKM_EV_SWITCH:
		/* SWITCH_OUT of prev, then SWITCH_IN of next (arg1). */
		t = th_get(tl, cpu, ev, now, true, true);
		if (t)
			switch_out(tl, cpu, c, t, now, MKM_EVF_STATE(ev->flags),
				   ev->arg1);
		t = switch_next(tl, cpu, ev, now);
		if (t)
			switch_in(tl, cpu, t, ev, now, ev->tid);
		return;
	case MKM_EV_WAKEUP:
	case MKM_EV_WAKEUP_NEW:
		t = th_get(tl, cpu, ev, now, true, false);
		if (!t)
			return;
		i = t->index;
		if (type == MKM_EV_WAKEUP_NEW && t->parent == NO_THREAD) {
			int64_t p = cached_lookup(tl, cpu, ev->arg1);

			if (p != i)
				t->parent = p;
		}
		/*
		 * A wakeup of a thread still on its CPU, or already runnable,
		 * changes nothing.
		 */
		if (state_on_cpu(t->state) || t->state == TL_ZOMBIE ||
		    (t->state == TL_RUNQ && type == MKM_EV_WAKEUP))
			return;
		t->cpu = (uint16_t)cpu_arg(tl, ev->arg0, t->cpu);
		set_state(tl, t, now, TL_RUNQ, t->cpu);
		if (!tl->streaming)
			add_wake(tl, cpu, ev, (size_t)i, t->cpu, now);
		return;
	case MKM_EV_WAKING:
		return;
	case MKM_EV_MIGRATE:
		t = th_get(tl, cpu, ev, now, false, false);
		if (!t)
			return;
		t->cpu = (uint16_t)cpu_arg(tl, ev->arg0, t->cpu);
		if (t->state == TL_RUNQ)
			set_state(tl, t, now, TL_RUNQ, t->cpu);
		return;
	case MKM_EV_FORK:
		t = th_get(tl, cpu, ev, now, true, true);
		if (!t)
			return;
		i = t->index;
		ensure_running(tl, t, now, c);
		if (ev->flags & MKM_EVF_INHERITED && ev->arg0) {
			int64_t ch = tl_thread_lookup(tl, ev->arg0);

			if (ch == NO_THREAD) {
				ch = tl_thread_new(tl, ev->arg0, ev->arg1, now,
						   c);
				if (ch < 0)
					return;
				t = &tl->th[i]; /* tl->th may have moved */
				set_state(tl, &tl->th[ch], now, TL_RUNQ, c);
			}
			if (ch != i && tl->th[ch].parent == NO_THREAD) {
				tl->th[ch].parent = i;
				tl_process_forked(tl, (size_t)ch, (size_t)i,
						  ev);
			}
		}
		return;
	case MKM_EV_EXEC:
		if (ev->arg0 != ev->tid) {
			do_exec(tl, ev, now);
			tl_cache_forget(cpu);
		}
		t = th_get(tl, cpu, ev, now, true, true);
		if (!t)
			return;
		ensure_running(tl, t, now, c);
		return;
	case MKM_EV_EXIT:
		t = th_get(tl, cpu, ev, now, true, true);
		if (!t)
			return;
		t->exited = 1;
		ensure_running(tl, t, now, c);
		return;
	case MKM_EV_REAP:
		t = th_get(tl, cpu, ev, now, false, true);
		if (!t)
			return;
		if (t->state != TL_ZOMBIE) {
			/* Its last switch-out was not seen. */
			set_state(tl, t, now, TL_ZOMBIE, t->cpu);
		}
		tl_thread_end(tl, t, now, TL_REAPED);
		tl_cache_forget(cpu);
		return;
	case MKM_EV_DETACH:
		t = th_get(tl, cpu, ev, now, true, true);
		if (!t)
			return;
		tl_thread_end(tl, t, now, TL_DETACHED);
		tl_cache_forget(cpu);
		return;
	case MKM_EV_IRQ_ENTRY:
	case MKM_EV_SOFTIRQ_ENTRY:
		t = irq_th_get(tl, cpu, ev, now);
		if (!t)
			return;
		irq_enter(tl, cpu, ev, t->index, now);
		ensure_running(tl, t, now, c);
		if (t->irq_depth < UINT8_MAX)
			t->irq_depth++;
		set_state(tl, t, now, TL_INTERRUPTED, c);
		return;
	case MKM_EV_IRQ_EXIT:
	case MKM_EV_SOFTIRQ_EXIT:
		irq_exit(tl, cpu, ev, now);
		t = irq_th_get(tl, cpu, ev, now);
		if (!t)
			return;
		if (t->irq_depth) {
			t->irq_depth--;
		} else if (t->state != TL_UNKNOWN) {
			/* Entered before the stream began, or lost. */
			t->anomalies++;
			tl->stats.anomalies++;
		}
		ensure_running(tl, t, now, c);
		set_state(tl, t, now, run_state(t), c);
		return;
	case MKM_EV_SYSCALL_ENTRY:
	case MKM_EV_SYSCALL_EXIT:
		t = th_get(tl, cpu, ev, now, true, true);
		if (!t)
			return;
		if (tl->syscalls)
			t->run = type == MKM_EV_SYSCALL_ENTRY ? TL_RUN_SYS :
								TL_RUN_USER;
		t->sysnr = ev->arg0;
		ensure_running(tl, t, now, c);
		set_state(tl, t, now, run_state(t), c);
		return;
	case MKM_EV_ATTACH: {
		unsigned int on = ev->arg1 == CPU_NONE ?
					  CPU_NONE :
					  cpu_arg(tl, ev->arg1, c);

		t = th_get(tl, cpu, ev, now, true, true);
		if (!t)
			return;
		i = t->index;
		t->irq_depth = 0;
		if (ev->arg0 == MKM_TS_RUNNING && on != CPU_NONE) {
			t->cpu = (uint16_t)on;
			tl->cpus[on].cur = i;
			set_state(tl, t, now, run_state(t), on);
			return;
		}
		ns = state_after(t, ev->arg0);
		set_state(tl, t, now, ns, t->cpu);
		return;
	}
	case MKM_EV_NAME:
		t = th_get(tl, cpu, ev, now, true, true);
		if (!t)
			return;
		memcpy(t->name + (ev->flags ? 8 : 0), &ev->arg0, 4);
		memcpy(t->name + (ev->flags ? 12 : 4), &ev->arg1, 4);
		return;
	}
}

void tl_apply(struct tl *tl, const struct mkm_event *ev)
{
	uint64_t now = ev->time_ns;

	if (unlikely(now < tl->now)) {
		tl->stats.late++;
		now = tl->now;
	}
	tl->now = now;
	apply(tl, &tl->cpus[ev->cpu], ev, now);
}

/*
 * The earliest of the heads [k, k + 4) (the lowest index on a tie), by a
 * tournament of conditional moves: two rounds deep where a scan is three,
 * and the next record's choice waits on it.
 */
static inline __attribute__((always_inline)) unsigned int
earliest4(const struct tl_src *src, unsigned int k)
{
	unsigned int a = src[k + 1].t < src[k].t ? k + 1 : k;
	unsigned int b = src[k + 3].t < src[k + 2].t ? k + 3 : k + 2;

	return src[b].t < src[a].t ? b : a;
}

/* The earliest of width (4 or 8) heads; width is a constant once inlined. */
static inline __attribute__((always_inline)) unsigned int
earliest(const struct tl_src *src, unsigned int width)
{
	unsigned int b = earliest4(src, 0), b2;

	if (width == 4)
		return b;
	b2 = earliest4(src, 4);
	return src[b2].t < src[b].t ? b2 : b;
}

/*
 * Record by record up to lim, the earliest of width heads, without
 * branches. The state machine never touches the heads, so the next
 * record is chosen before this one is applied: the choice no longer waits
 * behind the state machine's branches, whose mispredictions would
 * otherwise discard it.
 */
static inline __attribute__((always_inline)) void
merge_small(struct tl *tl, struct tl_src *src, unsigned int width, uint64_t lim)
{
	unsigned int b = earliest(src, width);

	/*
	 * Merged, the records come in time order: only the first ones can
	 * be older than the time processed so far (late: a CPU heard of
	 * late), and tl_apply() sees to them. None after need the check.
	 */
	while (src[b].t < tl->now && src[b].t <= lim) {
		const struct mkm_event *p = src[b].p;

		src[b].p = p + 1;
		src[b].t = p[1].time_ns;
		b = earliest(src, width);
		tl_apply(tl, p);
	}
	while (src[b].t <= lim) {
		const struct mkm_event *p = src[b].p;
		struct tl_cpu *cpu = src[b].cpu;
		uint64_t now = src[b].t;

		src[b].p = p + 1;
		src[b].t = p[1].time_ns;
		b = earliest(src, width);
		tl->now = now;
		/* The queue's CPU is the record's: no index to scale. */
		apply(tl, cpu, p, now);
	}
}

/*
 * merge.c's loop for a few CPUs, here so that the state machine inlines
 * into it: a call per record costs a tenth of the rebuild.
 */
void tl_apply_earliest(struct tl *tl, struct tl_src *src, unsigned int width,
		       uint64_t lim)
{
	if (width == 4)
		merge_small(tl, src, 4, lim);
	else
		merge_small(tl, src, TL_MERGE_SMALL, lim);
}
