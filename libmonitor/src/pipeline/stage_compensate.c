// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stage_compensate.c - the compensation stage: each record's time moved
 * earlier by the monitor's own cost that delayed it (docs/compensation.md
 * gives the algorithm, its assumptions and its limits, beside MKM's).
 *
 * Delay is a property of an execution, carried as far as the order of
 * events proves it:
 *  - per CPU, each record's sensor cost delays everything after it on
 *    that CPU while the CPU stays busy; records stamped at one instant (a
 *    switch's OUT and IN) share one delay, the cost being paid after the
 *    clock was read; a switch between unmonitored threads that the peers
 *    reveal costs the constant overhead;
 *  - a thread carries its delay off the CPU: when it becomes runnable
 *    again, its ready time inherits the delay of its waker (the WAKEUP
 *    class names it) or, with no waker recorded, of what ran on the CPU it
 *    comes back to when that CPU was busy without a break since, or else
 *    its own (the sleep is taken to last as long as it would have);
 *  - a thread switched in on a busy CPU starts when the CPU frees,
 *    delayed as the CPU's chain, but never before it was ready; on a CPU
 *    that was idle it starts its wake latency after its ready time;
 *  - an idle CPU absorbs delay: its chain starts anew;
 *  - the recording's own threads (INFO's monitor_tids: the drain, the
 *    writer) are the monitor too: while one holds a CPU that a monitored
 *    thread then takes over, its whole run delays that thread, and so
 *    does what ran after it while that thread waited (its I/O's
 *    kworkers);
 *  - a timed wait whose timer expired while the recording's own thread
 *    held the CPU from the moment the thread slept, and the thread's last
 *    waker was runnable there since before it slept, expired because the
 *    monitor held up that waker: the wakeup moves to the instant the
 *    thread slept, and the run after it (the timed-out turn of its loop)
 *    is delay, time itself adding to the CPU's chain until it switches
 *    out; where the waker, once it ran, took longer to wake it than the
 *    timer had, the timer would have expired unmonitored too, and the
 *    doubt says so (timeouts_unproven).
 * Clamps keep every CPU's and every thread's records in order and never
 * move a record before the last horizon passed on, so the output keeps
 * the input's promises.
 *
 * A SWITCH record (MKM_CONFIG_ONE_SWITCH) is placed as the SWITCH_OUT and
 * SWITCH_IN at one instant it stands for, and such a pair is one switch:
 * the switch figure, measured per switch (MON_COST_PER_SWITCH), is
 * charged once for either, so a trace of SWITCH records and its
 * two-record equivalent compensate alike; a figure of an older
 * calibration, per record, is charged per record (a SWITCH as two). When
 * a SWITCH's halves come out at different times, it goes out as the two
 * records, and its CPU's later seq numbers move up by one; otherwise seq
 * numbers are unchanged.
 *
 * The bounds of each thread's figures (comp_bounds.c) come from two
 * shadows of the stage, its calibration at either end of each figure's
 * 99% interval, which place every record again (their times kept, not
 * passed on), and from the doubts' decisions, whose stakes it is told.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mon_calibrate.h"
#include "pipeline/comp_bounds.h"
#include "pipeline/pipeline_internal.h"

#define OUT_BATCH 4096
#define HISTORY 64 /* delay steps of a CPU's chain kept for ready times */

struct step {
	uint64_t t; /* from just after t on ... */
	double delay; /* ... the chain's delay was this */
};

struct cpu_state {
	double cost[MON_COST_NR]; /* ns, from the calibration */
	double delay; /* of the execution on the CPU now */
	double pending; /* cost paid after the current instant */
	uint64_t now; /* the current instant (input time) */
	uint64_t last_out; /* last time given (output), for order */
	uint64_t switch_at; /* instant of the last switch record */
	uint32_t runner; /* who runs after that switch (0: idle, unknown) */
	uint64_t runner_since; /* when it took the CPU */
	double runner_delay; /* the chain's delay then */
	bool live; /* busy without a break since chain_start */
	bool caused; /* the run now is the monitor's doing: time is delay */
	uint32_t seq_shift; /* SWITCH records that went out as two */
	bool per_switch; /* the switch cost is per switch (MON_COST_PER_SWITCH) */
	bool out_preempted; /* the last switch out left its thread runnable */
	double tick_anchor; /* the chain's delay when last on a tick (doubt) */
	uint64_t chain_start;
	struct step hist[HISTORY]; /* the chain's last steps, a ring */
	unsigned int nr_hist, hist_head;
};

struct thread_state {
	uint32_t tid; /* 0: free slot */
	bool woken; /* a waker's delay is known for its next switch in */
	double delay; /* carried off the CPU at its last switch out */
	double wake_delay;
	uint64_t last_out; /* last time given to its records */
	/* Where compensation is unsure (struct mon_comp_doubt). */
	uint64_t first_in, last_in; /* its first and last input times */
	double run_delay; /* the CPU's delay when its current run began */
	double last_run_cost; /* the monitor's cost in its last run */
	double flip; /* the chance its current wait is the monitor's doing */
	double bflip; /* the same for the bounds (doubt_switch_out()) */
	bool preempted; /* its last switch out left it runnable */
	uint64_t flip_at; /* input time of the decision that began it */
	/* Timed waits the monitor made expire (timeout_caused()). */
	uint32_t waker; /* its last waker, a thread (not an interrupt) */
	bool runnable; /* switched out runnable, not switched in since */
	bool sleeping; /* switched out sleeping, not switched in since */
	uint16_t out_cpu; /* where it last switched out */
	uint64_t out_at, in_at; /* its last switch out, in (input times) */
	uint64_t woke_at; /* its last wakeup by a thread (input time) */
	bool timed_out; /* woken by a timeout the monitor caused, not run */
	uint32_t check_waker; /* the waker the first such timeout blamed */
	uint64_t check_len; /* that sleep's length, to check ... */
	double check_ns; /* ... what was taken out, against that waker */
	struct mon_comp_doubt doubt;
};

struct compensate {
	struct mon_calibration cal; /* the one given, or the stream's */
	bool have_cal, own_cal;
	struct mon_compensate_opts opts;
	struct cpu_state *cpus;
	size_t nr_cpus;
	struct thread_state *threads; /* open addressing on tid */
	size_t cap, used;
	double max_delay; /* the most any record or thread carried */
	uint64_t floor; /* the last horizon passed on: no record goes below */
	uint64_t lost_at; /* the last LOST's input time: state before it is
			   * not proof (a switch may be among the lost) */
	int err; /* the first error of the bounds' (-ENOMEM) */
	struct trace_info info; /* as passed on; monitor_tids: the own */
	struct mon_split *split; /* next's unique_id, to split a SWITCH */
	/* The bounds (comp_bounds.c): the same stage with every cost at the
	 * low and at the high end of its 99% interval, its records' times
	 * only kept; none in those two themselves. */
	struct compensate *shadow[2];
	struct comp_bounds *bounds;
	size_t n; /* records in out */
	struct mkm_event out[OUT_BATCH];
};

static enum mon_cost_kind kind_of(uint8_t type)
{
	switch (type) {
	case MKM_EV_SWITCH_OUT:
	case MKM_EV_SWITCH_IN:
		return MON_COST_SWITCH;
	case MKM_EV_WAKING:
	case MKM_EV_WAKEUP:
	case MKM_EV_WAKEUP_NEW:
		return MON_COST_WAKEUP;
	case MKM_EV_MIGRATE:
		return MON_COST_MIGRATE;
	case MKM_EV_IRQ_ENTRY:
	case MKM_EV_IRQ_EXIT:
	case MKM_EV_SOFTIRQ_ENTRY:
	case MKM_EV_SOFTIRQ_EXIT:
		return MON_COST_IRQ;
	case MKM_EV_SYSCALL_ENTRY:
	case MKM_EV_SYSCALL_EXIT:
		return MON_COST_SYSCALL;
	case MKM_EV_MARK:
		return MON_COST_MARK;
	default:
		return MON_COST_OTHER;
	}
}

/* Whether @cpu's switch figure is per switch (that of the first CPU for
 * one not calibrated, whose figure is the mean). */
static bool per_switch(const struct mon_calibration *cal, unsigned int cpu)
{
	uint32_t i;

	for (i = 0; i < cal->hdr.nr_cpus; i++)
		if (cal->cpu[i].cpu == cpu)
			break;
	if (i == cal->hdr.nr_cpus)
		i = 0;
	return cal->hdr.nr_cpus &&
	       cal->cpu[i].cost[MON_COST_SWITCH].flags & MON_COST_PER_SWITCH;
}

static struct cpu_state *cpu_get(struct compensate *c, uint16_t cpu)
{
	size_t i, k;

	if (cpu >= c->nr_cpus) {
		size_t n = (size_t)cpu + 1;
		struct cpu_state *p = realloc(c->cpus, n * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + c->nr_cpus, 0, (n - c->nr_cpus) * sizeof(*p));
		for (i = c->nr_cpus; i < n; i++) {
			for (k = 0; k < MON_COST_NR; k++)
				p[i].cost[k] = mon_calibration_cost(
					&c->cal, (unsigned int)i, k);
			p[i].per_switch = per_switch(&c->cal, (unsigned int)i);
		}
		c->cpus = p;
		c->nr_cpus = n;
	}
	return &c->cpus[cpu];
}

static uint32_t hash_tid(uint32_t tid)
{
	return tid * 0x9e3779b1u;
}

static int threads_grow(struct compensate *c)
{
	size_t cap = c->cap ? c->cap * 2 : 256, i;
	struct thread_state *t = calloc(cap, sizeof(*t)), *old = c->threads;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < c->cap; i++) {
		size_t j = hash_tid(old[i].tid) & (cap - 1);

		if (!old[i].tid)
			continue;
		while (t[j].tid)
			j = (j + 1) & (cap - 1);
		t[j] = old[i];
	}
	free(old);
	c->threads = t;
	c->cap = cap;
	return 0;
}

/* The state of @tid (0: none, NULL returned), made on first sight. */
static struct thread_state *thread_get(struct compensate *c, uint32_t tid,
				       int *err)
{
	size_t j;

	if (!tid)
		return NULL;
	if ((c->used + 1) * 2 > c->cap) {
		*err = threads_grow(c);
		if (*err)
			return NULL;
	}
	for (j = hash_tid(tid) & (c->cap - 1); c->threads[j].tid;
	     j = (j + 1) & (c->cap - 1))
		if (c->threads[j].tid == tid)
			return &c->threads[j];
	c->used++;
	c->threads[j].tid = tid;
	c->threads[j].run_delay = -1; /* no run of it seen begin */
	return &c->threads[j];
}

/* The state of @tid if seen, else NULL (never grows the table). */
static struct thread_state *thread_find(struct compensate *c, uint32_t tid)
{
	size_t j;

	if (!tid || !c->cap)
		return NULL;
	for (j = hash_tid(tid) & (c->cap - 1); c->threads[j].tid;
	     j = (j + 1) & (c->cap - 1))
		if (c->threads[j].tid == tid)
			return &c->threads[j];
	return NULL;
}

static void history_push(struct cpu_state *s, uint64_t t, double delay)
{
	unsigned int i = (s->hist_head + s->nr_hist) % HISTORY;

	if (s->nr_hist == HISTORY)
		s->hist_head = (s->hist_head + 1) % HISTORY;
	else
		s->nr_hist++;
	s->hist[i] = (struct step){ t, delay };
}

/* The chain's delay at time @t, or -1 if the chain did not run then. */
static double delay_at(const struct cpu_state *s, uint64_t t)
{
	unsigned int k;

	if (!s->live || t < s->chain_start)
		return -1;
	for (k = s->nr_hist; k-- > 0;) {
		const struct step *st = &s->hist[(s->hist_head + k) % HISTORY];

		if (st->t < t)
			return st->delay;
	}
	return -1; /* older than the history kept */
}

/* A chain starts at @t with @delay: the CPU is busy from now on. */
static void chain_start(struct cpu_state *s, uint64_t t, double delay)
{
	s->delay = delay;
	s->live = true;
	s->chain_start = t;
	s->nr_hist = 0;
	history_push(s, t - 1, delay);
}

/* Time moves on at @s: the costs of the instant before now delay what
 * follows; an idle CPU absorbs the delay. */
static void advance(struct cpu_state *s, uint64_t t)
{
	if (t <= s->now)
		return;
	if (s->caused) { /* the records' costs are in the time */
		s->delay += (double)(t - s->now);
	} else if (s->runner || s->switch_at != s->now) {
		s->delay += s->pending;
	} else if (s->live) { /* switched to idle (or to a hidden peer) */
		s->live = false;
		s->delay = 0;
	}
	s->pending = 0;
	if (s->live)
		history_push(s, s->now, s->delay);
	s->now = t;
}

static bool own_thread(const struct compensate *c, uint32_t tid)
{
	uint32_t i;

	for (i = 0; tid && i < c->info.nr_monitor_tids; i++)
		if (c->info.monitor_tids[i] == tid)
			return true;
	return false;
}

/* True if the instant of switch record @e had one already (a SWITCH_OUT
 * before this SWITCH_IN: one switch). */
static bool same_switch(struct cpu_state *s, const struct mkm_event *e)
{
	if (s->switch_at == e->time_ns)
		return true;
	s->switch_at = e->time_ns;
	return false;
}

static double switch_in(const struct compensate *c, struct cpu_state *s,
			struct thread_state *th, const struct mkm_event *e,
			bool pair)
{
	uint64_t wait = e->flags & MKM_EVF_WAIT_US ? (uint64_t)e->arg0 * 1000 :
						     e->arg0;
	uint64_t ready = wait < e->time_ns ? e->time_ns - wait : 0;
	/*
	 * The recording's own thread took the CPU, and gave it back, or this
	 * thread waited all along: what ran meanwhile began with the
	 * monitor's work (its writes' kworkers, flushers), all of it delay.
	 */
	bool own = !pair && e->arg1 && own_thread(c, s->runner) &&
		   (own_thread(c, e->arg1) || ready <= s->runner_since);
	/* Another unmonitored thread than the one switched to: at least one
	 * switch unseen; the CPU stayed busy if this thread was runnable
	 * all along (it would not have idled). */
	bool hidden = !pair && e->arg1 && s->runner && e->arg1 != s->runner &&
		      !own && ready <= s->runner_since;
	bool busy =
		s->live &&
		(pair || (e->arg1 && (e->arg1 == s->runner || own)) || hidden);
	double ready_delay, d;

	/* An unmonitored switch the peers reveal: its constant cost. */
	if (busy && hidden)
		s->delay += s->cost[MON_COST_CONSTANT];

	/* Since the handover (the switch's costs included). */
	if (busy && own)
		s->delay = s->runner_delay +
			   (double)(e->time_ns - s->runner_since);

	if (th && th->woken)
		ready_delay = th->wake_delay;
	else if ((ready_delay = delay_at(s, ready)) < 0)
		ready_delay = th ? th->delay : 0;
	/* Busy: the CPU's handover, but not before the thread was ready.
	 * Idle: the same latency after its ready time as recorded. */
	d = busy ? fmin(s->delay, (double)wait + ready_delay) : ready_delay;
	if (th)
		th->woken = false;
	if (!busy) /* after idle, its wakeups fall anew between ticks */
		s->tick_anchor = d;
	chain_start(s, e->time_ns, d);
	s->runner = e->tid;
	/* A turn of its loop that a timeout the monitor caused began. */
	s->caused = th && th->timed_out;
	if (th) {
		th->timed_out = false;
		th->runnable = th->sleeping = false;
		th->in_at = e->time_ns;
	}
	return d;
}

/*
 * Scheduling decisions whose timing the monitor moved (mon_pipeline.h,
 * struct mon_comp_doubt): the scheduler compares run times against a
 * granularity, so a decision taken after the monitor's cost grew the run
 * times involved by c flips with a chance of about c / granularity, and
 * the wait that follows it, weighted by that chance, is at stake.
 *  - A preemption: c is the cost in the run it ended.
 *  - A wakeup by a thread that kept its CPU: c is the cost in the wakee's
 *    last run and in the waker's run so far (doubt_wakeup()).
 */
static void doubt_switch_out(struct thread_state *th, const struct mkm_event *e,
			     double d)
{
	double c, run;

	if (!th)
		return;
	c = th->run_delay >= 0 ? fmax(d - th->run_delay, 0) : 0;
	th->last_run_cost = c;
	th->flip = th->bflip = 0;
	th->preempted = e->arg0 == MKM_TS_RUNNING;
	if (e->arg0 != MKM_TS_RUNNING || !(e->flags & MKM_EVF_PREEMPTED) ||
	    !(c > 0))
		return;
	th->flip = fmin(1, c / MON_COMPENSATE_PREEMPT_GRAN_NS);
	/*
	 * For the bounds: the run time the scheduler compared grew over this
	 * run at least, so the decision fell c into a stretch of at most the
	 * run's length (shorter than the granularity: stress-ng's mq
	 * stressor, preempted after runs of tens of microseconds, switched
	 * 4% more often monitored, which c / 1 ms did not foresee).
	 */
	run = th->in_at && th->in_at <= e->time_ns ?
		      (double)(e->time_ns - th->in_at) :
		      MON_COMPENSATE_PREEMPT_GRAN_NS;
	th->bflip =
		fmin(1, c / fmax(fmin(run, MON_COMPENSATE_PREEMPT_GRAN_NS), c));
	th->flip_at = e->time_ns;
	th->doubt.preemptions++;
	th->doubt.preempt_cost_ns += c;
}

/* @th woken at @e by a thread (not an interrupt) whose run began when
 * its CPU's delay was @waker_run_delay (< 0: not seen begin), the delay
 * now @d. */
static void doubt_wakeup(struct thread_state *th, double waker_run_delay,
			 const struct mkm_event *e, double d)
{
	double c = th->last_run_cost;

	if (waker_run_delay >= 0)
		c += fmax(d - waker_run_delay, 0);
	if (!(c > 0))
		return;
	th->flip = th->bflip = fmin(1, c / MON_COMPENSATE_PREEMPT_GRAN_NS);
	th->flip_at = e->time_ns;
	th->doubt.wakeups++;
	th->doubt.wakeup_cost_ns += c;
}

/* The wait that ends at switch-in @e, weighted by the chance that the
 * decision which began it was the monitor's. Without WAKEUP records, a
 * wait after a sleep is taken to begin at its ready time (the wait the
 * SWITCH_IN records) with the cost of the wakee's last run alone. */
static int doubt_switch_in(struct compensate *c, struct thread_state *th,
			   const struct mkm_event *e)
{
	uint64_t wait = e->flags & MKM_EVF_WAIT_US ? (uint64_t)e->arg0 * 1000 :
						     e->arg0;
	double p;
	int ret = 0;

	if (!th)
		return 0;
	if (th->flip > 0 && e->time_ns > th->flip_at) {
		th->doubt.at_stake_ns +=
			th->flip * (double)(e->time_ns - th->flip_at);
		ret = comp_bounds_stake(c->bounds, th->tid,
					1u << TRACE_BOUND_RUNQ, th->bflip,
					(double)(e->time_ns - th->flip_at),
					true);
	} else if (!th->flip && !th->preempted && wait &&
		   th->last_run_cost > 0) {
		p = fmin(1, th->last_run_cost / MON_COMPENSATE_PREEMPT_GRAN_NS);
		th->doubt.wakeups++;
		th->doubt.wakeup_cost_ns += th->last_run_cost;
		th->doubt.at_stake_ns += p * (double)wait;
		ret = comp_bounds_stake(c->bounds, th->tid,
					1u << TRACE_BOUND_RUNQ, p, (double)wait,
					true);
	}
	th->flip = th->bflip = 0;
	return ret;
}

/*
 * A wait behind a waker that ran on to the tick (mon_pipeline.h, struct
 * mon_comp_doubt): whether @th, which slept, switches in at @e (one switch
 * with its switch out) from its waker, preempted, more than a wakeup
 * granularity after the wakeup, which therefore did not preempt it.
 */
static bool tick_run(const struct cpu_state *s, const struct thread_state *th,
		     const struct mkm_event *e)
{
	/* One switch: its SWITCH_OUT, at this instant, was arg1's. */
	return th && s->live && e->arg1 && !th->runnable &&
	       th->waker == e->arg1 && th->woke_at > th->out_at &&
	       s->out_preempted &&
	       (double)(e->time_ns - th->woke_at) >
		       MON_COMPENSATE_PREEMPT_GRAN_NS;
}

/*
 * The tick ended the waker's run in tick_run(); which tick depends on where
 * the wakeup fell between ticks, moved by the monitor's delay on the CPU
 * since the last such run ended (@before, the chain's delay before this
 * switch, less the anchor). Both threads' at stake grow by the wait,
 * weighted by the chance of a tick sooner or later; this run, ended on a
 * tick, is the next one's anchor (@d, the chain's delay after it).
 */
static int doubt_tick(struct compensate *c, struct cpu_state *s,
		      struct thread_state *th, const struct mkm_event *e,
		      double before, double d)
{
	uint64_t wait = e->time_ns - th->woke_at;
	double moved = fmax(before - s->tick_anchor, 0);
	double p = fmin(1, moved / MON_COMPENSATE_TICK_NS);
	struct thread_state *k;
	int ret;

	s->tick_anchor = d;
	th->doubt.tick_runs++;
	th->doubt.tick_delay_ns += moved;
	th->doubt.at_stake_ns += p * (double)wait;
	/* The wakee's wait, the waker's run: one decision. */
	ret = comp_bounds_stake(c->bounds, th->tid, 1u << TRACE_BOUND_RUNQ, p,
				(double)wait, true);
	k = thread_find(c, e->arg1);
	if (k && k != th) {
		k->doubt.tick_runs++;
		k->doubt.tick_delay_ns += moved;
		k->doubt.at_stake_ns += p * (double)wait;
		if (!ret)
			ret = comp_bounds_stake(c->bounds, k->tid,
						1u << TRACE_BOUND_RUN, p,
						(double)wait, false);
	}
	return ret;
}

/*
 * Whether @th, woken by an interrupt at @e (its timer: a timed wait that
 * expired), was woken so only because the monitor held up its waker, as
 * the order of events proves it: @th slept on this CPU and handed it
 * straight to one of the recording's own threads, which holds it still
 * (nothing but the monitor ran since it slept: switches among unmonitored
 * threads are not seen), while its last waker, a monitored thread, was
 * runnable on this CPU since before it slept, with no record lost since
 * (its switch in may be among them). Unmonitored, that waker would have
 * had the CPU from the moment @th slept.
 */
static bool timeout_caused(struct compensate *c, const struct cpu_state *s,
			   const struct thread_state *th,
			   const struct mkm_event *e)
{
	const struct thread_state *k;

	if (!th->sleeping || th->out_cpu != e->cpu || !s->live ||
	    !own_thread(c, s->runner) || s->runner_since != th->out_at)
		return false;
	k = thread_find(c, th->waker);
	return k && k != th && k->runnable && k->out_cpu == e->cpu &&
	       k->out_at <= th->out_at && k->out_at > c->lost_at;
}

/*
 * @th woken by thread @k at delay @d after timeouts taken as the monitor's:
 * had @k run from when @th first slept, did it wake @th before that timer
 * expired? Its run from its switch-in to this wakeup, less the monitor's
 * cost in it, against the first sleep's length; if not (or not known: @k
 * not running here, or not the waker the timeout blamed), the timer would
 * have expired unmonitored too, and what was taken out is at stake.
 */
static int timeout_check(struct compensate *c, struct thread_state *th,
			 const struct thread_state *k,
			 const struct mkm_event *e, double d)
{
	double x = -1;
	int ret = 0;

	if (!th->check_len)
		return 0;
	if (k && k->tid == th->check_waker && k->in_at &&
	    k->in_at <= e->time_ns && !k->runnable && !k->sleeping &&
	    k->run_delay >= 0)
		x = (double)(e->time_ns - k->in_at) - fmax(d - k->run_delay, 0);
	if (x < 0 || x > (double)th->check_len) {
		th->doubt.timeouts_unproven++;
		th->doubt.at_stake_ns += th->check_ns;
		/* The sleep and the turn taken out, whole. */
		ret = comp_bounds_stake(c->bounds, th->tid,
					1u << TRACE_BOUND_RUN |
						1u << TRACE_BOUND_SLEEP,
					1, th->check_ns, true);
	}
	th->check_len = 0;
	th->check_ns = 0;
	return ret;
}

/* The first error stays (place() returns it). */
static void keep_err(struct compensate *c, int err)
{
	if (!c->err)
		c->err = err;
}

/* The delay of @e (of thread @th, NULL for tid 0), from its CPU's chain
 * and the causal edges it closes. */
static double delay_of(struct compensate *c, struct cpu_state *s,
		       struct thread_state *th, const struct mkm_event *e)
{
	double d, charge = 1, caused = 0, before;
	bool pair, tick;

	advance(s, e->time_ns);
	d = s->live ? s->delay : 0;
	switch (e->type) {
	case MKM_EV_LOST:
		/* The CPU was busy, but who ran after the gap is not
		 * known, nor what the records lost cost: none is added. */
		s->runner = 0;
		s->caused = false;
		c->lost_at = e->time_ns;
		return d;
	case MKM_EV_SWITCH_IN:
		pair = same_switch(s, e);
		before = d;
		tick = pair && tick_run(s, th, e);
		d = switch_in(c, s, th, e, pair);
		keep_err(c, doubt_switch_in(c, th, e));
		if (tick)
			keep_err(c, doubt_tick(c, s, th, e, before, d));
		if (pair && s->per_switch) /* its SWITCH_OUT paid for both */
			charge = 0;
		break;
	case MKM_EV_SWITCH_OUT:
		same_switch(s, e);
		if (!s->live) /* the thread ran from before we saw it */
			chain_start(s, e->time_ns, 0);
		if (s->caused && th) { /* the turn the timeout caused, out */
			caused = (double)(e->time_ns - th->in_at);
			th->doubt.timeout_ns += caused;
			th->check_ns += caused;
		}
		s->caused = false;
		s->runner = e->arg1;
		s->runner_since = e->time_ns;
		s->runner_delay = d;
		s->out_preempted = e->arg0 == MKM_TS_RUNNING &&
				   (e->flags & MKM_EVF_PREEMPTED);
		/* Not the monitor's cost in a run that was its doing. */
		doubt_switch_out(th, e, d - caused);
		if (th) {
			th->runnable = e->arg0 == MKM_TS_RUNNING;
			th->sleeping = e->arg0 == MKM_TS_INTERRUPTIBLE;
			th->out_cpu = e->cpu;
			th->out_at = e->time_ns;
			/* Its switch in may have been lost: a timeout is
			 * for one sleep only. */
			th->timed_out = false;
		}
		break;
	case MKM_EV_MIGRATE:
		/* Moved while it waited or at its wakeup: it waits there
		 * now, and CPU out_cpu was no longer its to take. */
		if (th)
			th->out_cpu = (uint16_t)e->arg0;
		break;
	case MKM_EV_DETACH:
		/* Its switches are no longer seen: none of its state holds. */
		if (th)
			th->runnable = th->sleeping = false;
		break;
	case MKM_EV_WAKING:
	case MKM_EV_WAKEUP:
	case MKM_EV_WAKEUP_NEW:
		/* An interrupt's wakeup keeps the sleep's own length, but for
		 * a timeout the monitor caused (its WAKING decides, for its
		 * WAKEUP too). */
		if (th && !(e->flags & MKM_EVF_IN_IRQ)) {
			th->woken = true;
			th->wake_delay = d;
			if (e->type != MKM_EV_WAKEUP_NEW) {
				th->waker = e->arg1;
				th->woke_at = e->time_ns;
				keep_err(c,
					 timeout_check(c, th,
						       thread_find(c, e->arg1),
						       e, d));
			}
		} else if (th && e->type != MKM_EV_WAKEUP_NEW &&
			   (th->timed_out || timeout_caused(c, s, th, e))) {
			if (!th->timed_out) {
				uint64_t len = e->time_ns - th->out_at;

				th->timed_out = true;
				th->woken = true;
				th->wake_delay = th->delay + (double)len;
				if (!th->check_len) {
					th->check_len = len;
					th->check_waker = th->waker;
				}
				th->check_ns += (double)len;
				th->doubt.timeouts++;
				th->doubt.timeout_ns += (double)len;
			}
			d = fmax(d, th->wake_delay);
		} else if (th && e->type == MKM_EV_WAKEUP && d > 0 &&
			   th->waker && th->waker != th->tid &&
			   thread_find(c, th->waker)) {
			/* A timed wait may have expired because the monitor
			 * held up its waker: by up to d. Only a thread that a
			 * monitored thread woke before waits on one: a plain
			 * sleep (nanosleep) ends on its timer alone, and its
			 * length is kept. */
			th->doubt.timer_wakeups++;
			th->doubt.timer_delay_ns += d;
			th->doubt.at_stake_ns += d;
			keep_err(c, comp_bounds_stake(
					    c->bounds, th->tid,
					    1u << TRACE_BOUND_SLEEP |
						    1u << TRACE_BOUND_RUNQ,
					    1, d, false));
		}
		break;
	}
	s->pending += charge * s->cost[kind_of(e->type)];
	if (th && e->type == MKM_EV_SWITCH_OUT)
		th->delay = d + s->pending;
	if (th && e->type == MKM_EV_SWITCH_IN)
		th->run_delay = d + s->pending;
	return d;
}

static int flush(struct compensate *c, struct mon_emit *out)
{
	struct mon_msg m = { .type = MON_MSG_EVENTS,
			     .events = c->out,
			     .nr_events = c->n };

	if (!c->n)
		return 0;
	c->n = 0;
	return mon_emit(out, &m);
}

/*
 * The time @e comes out at (its thread @th, NULL for tid 0), the CPU's and
 * the thread's state moved on past it.
 */
static int place(struct compensate *c, struct mkm_event *e)
{
	struct cpu_state *s = cpu_get(c, e->cpu);
	struct thread_state *th;
	uint64_t t, floor;
	double d;
	int ret = 0;

	th = thread_get(c, e->tid, &ret);
	if (!s || ret)
		return -ENOMEM;
	if (th && !th->first_in) {
		th->first_in = e->time_ns;
		th->run_delay = -1; /* a run begun before the trace */
	}
	if (th)
		th->last_in = e->time_ns;
	d = delay_of(c, s, th, e);
	if (c->err)
		return c->err;
	if (th && e->type == MKM_EV_WAKEUP && !(e->flags & MKM_EVF_IN_IRQ)) {
		/* Either lookup may grow the table: th again. */
		const struct thread_state *w = thread_get(c, e->arg1, &ret);
		double waker_run_delay = w ? w->run_delay : -1;

		if (!ret)
			th = thread_get(c, e->tid, &ret);
		if (ret)
			return -ENOMEM;
		doubt_wakeup(th, waker_run_delay, e, d);
	}
	/* Never before the CPU's or the thread's last record, nor below the
	 * horizon already passed on (LOST: tid 0, no th). */
	floor = s->last_out > c->floor ? s->last_out : c->floor;
	if (th && th->last_out > floor)
		floor = th->last_out;
	t = (uint64_t)fmax((double)e->time_ns - d, 0);
	if (e->time_ns > 0 && t < floor)
		t = floor < e->time_ns ? floor : e->time_ns;
	c->max_delay = fmax(c->max_delay, (double)(e->time_ns - t));
	if (th) {
		c->max_delay = fmax(c->max_delay, th->delay);
		th->doubt.shift_ns =
			fmax(th->doubt.shift_ns, (double)(e->time_ns - t));
	}
	e->time_ns = t;
	s->last_out = t;
	if (th)
		th->last_out = t;
	return 0;
}

static int put(struct compensate *c, const struct mkm_event *e,
	       struct mon_emit *out)
{
	c->out[c->n++] = *e;
	return c->n == OUT_BATCH ? flush(c, out) : 0;
}

/* Whether the figure charged for @e has no interval of its own: a
 * measured figure of fewer than two trials (an estimated one carries the
 * interval of the figure it copies). */
static bool no_interval(const struct compensate *c, const struct mkm_event *e)
{
	const struct trace_cost *k;
	uint32_t i;

	if (!c->cal.hdr.nr_cpus)
		return true;
	for (i = 0; i < c->cal.hdr.nr_cpus; i++)
		if (c->cal.cpu[i].cpu == e->cpu)
			break;
	if (i == c->cal.hdr.nr_cpus)
		i = 0;
	k = &c->cal.cpu[i].cost[kind_of(e->type)];
	return k->flags & MON_COST_MEASURED && k->samples < 2;
}

/* place(), and the same record in the two shadows, for the bounds. */
static int place_all(struct compensate *c, struct mkm_event *e)
{
	struct mkm_event raw = *e, lo = *e, hi = *e;
	int ret = place(c, e);

	if (ret || !c->bounds)
		return ret;
	ret = place(c->shadow[0], &lo);
	if (!ret)
		ret = place(c->shadow[1], &hi);
	return ret ? ret :
		     comp_bounds_note(c->bounds, &raw, e->time_ns, lo.time_ns,
				      hi.time_ns, no_interval(c, &raw));
}

/*
 * A SWITCH is its SWITCH_OUT and its SWITCH_IN placed one after the other
 * (same_switch() makes them one switch). It stays one record when both
 * come out at one time; else (next was ready later than prev's
 * compensated end) it goes out as the two, and the CPU's later seq
 * numbers move up by one.
 */
static int place_switch(struct compensate *c, struct mkm_event *e,
			struct mon_emit *out)
{
	struct mkm_event half[2];
	uint32_t shift;
	int ret;

	if (mon_split_note(c->split, e))
		return -ENOMEM;
	mon_event_split(e, mon_split_unique_id(c->split, e->arg1), half);
	ret = place_all(c, &half[0]);
	if (!ret)
		ret = place_all(c, &half[1]);
	if (ret)
		return ret;
	shift = c->cpus[e->cpu].seq_shift;
	if (half[0].time_ns == half[1].time_ns) {
		e->time_ns = half[0].time_ns;
		e->seq += shift;
		return put(c, e, out);
	}
	half[0].seq += shift;
	half[1].seq += shift + 1;
	c->cpus[e->cpu].seq_shift++;
	ret = put(c, &half[0], out);
	return ret ? ret : put(c, &half[1], out);
}

static int compensate_events(struct compensate *c, const struct mon_msg *msg,
			     struct mon_emit *out)
{
	size_t i;
	int ret = 0;

	if (!c->have_cal)
		return -ENOENT; /* events before any calibration */
	for (i = 0; i < msg->nr_events && !ret; i++) {
		struct mkm_event e = msg->events[i];

		if (e.type == MKM_EV_SWITCH) {
			ret = place_switch(c, &e, out);
			continue;
		}
		if (mon_split_note(c->split, &e))
			return -ENOMEM;
		ret = place_all(c, &e);
		if (!ret) {
			e.seq += c->cpus[e.cpu].seq_shift;
			ret = put(c, &e, out);
		}
	}
	return ret ? ret : flush(c, out);
}

static void compensate_destroy(void *priv);

/*
 * The two shadows of @c (struct compensate): its calibration with every
 * figure at the low end of its 99% interval (not below 0), and at the
 * high end, the interval Student's t's over the figure's trials, and the
 * gatherer of the bounds.
 */
static int make_shadows(struct compensate *c)
{
	int k, ret;

	c->bounds = comp_bounds_new();
	if (!c->bounds)
		return -ENOMEM;
	for (k = 0; k < 2; k++) {
		struct compensate *sh = calloc(1, sizeof(*sh));
		uint32_t i, j;

		if (!sh)
			return -ENOMEM;
		c->shadow[k] = sh;
		ret = mon_calibration_set(&sh->cal, &c->cal.hdr, c->cal.cpu,
					  c->cal.hdr.nr_cpus);
		if (ret)
			return ret;
		for (i = 0; i < sh->cal.hdr.nr_cpus; i++)
			for (j = 0; j < MON_COST_NR; j++) {
				struct trace_cost *f = &sh->cal.cpu[i].cost[j];
				int64_t h = (int64_t)mon_cost_half_width_ps(f);

				if (f->mean_ps <= 0)
					continue;
				f->mean_ps = k ? f->mean_ps + h :
						 (f->mean_ps > h ?
							  f->mean_ps - h :
							  0);
			}
		sh->have_cal = sh->own_cal = true;
		sh->info = c->info;
	}
	return 0;
}

static int take_calibration(struct compensate *c, const struct mon_msg *msg,
			    struct mon_emit *out)
{
	struct mon_msg m = *msg;
	int ret;

	if (!c->own_cal && !c->have_cal) {
		ret = mon_calibration_set(&c->cal, msg->calibration_hdr,
					  msg->calibration,
					  msg->nr_calibration);
		if (!ret && !(c->opts.flags & MON_COMPENSATE_FORCE))
			ret = mon_calibration_judge(&c->cal, NULL, 0);
		if (!ret)
			ret = make_shadows(c);
		if (ret)
			return ret;
		c->have_cal = true;
	}
	if (c->own_cal) { /* the output carries the calibration used */
		m.calibration_hdr = &c->cal.hdr;
		m.calibration = c->cal.cpu;
		m.nr_calibration = c->cal.hdr.nr_cpus;
	}
	return mon_emit(out, &m);
}

static int compensate_process(void *priv, const struct mon_msg *msg,
			      struct mon_emit *out)
{
	struct compensate *c = priv;
	struct mon_msg m = *msg;
	double margin;
	int k, ret;

	switch (msg->type) {
	case MON_MSG_INFO:
		if (msg->info->trace_flags & TRACE_F_COMPENSATED)
			return -EALREADY;
		c->info = *msg->info;
		c->info.trace_flags |= TRACE_F_COMPENSATED;
		for (k = 0; k < 2; k++)
			if (c->shadow[k])
				c->shadow[k]->info = c->info;
		m.info = &c->info;
		ret = mon_emit(out, &m);
		if (ret || !c->own_cal)
			return ret;
		/* A calibration given replaces the stream's, at once. */
		m = (struct mon_msg){ .type = MON_MSG_CALIBRATION };
		return take_calibration(c, &m, out);
	case MON_MSG_EVENTS:
		return compensate_events(c, msg, out);
	case MON_MSG_HORIZON:
		/* Later records may move back by as much as any carried. */
		margin = ceil(c->max_delay);
		m.horizon_ns = msg->horizon_ns > margin ?
				       msg->horizon_ns - (uint64_t)margin :
				       0;
		if (m.horizon_ns <= c->floor)
			return 0;
		c->floor = m.horizon_ns;
		return mon_emit(out, &m);
	case MON_MSG_CALIBRATION:
		if (c->own_cal)
			return 0; /* replaced: sent after INFO */
		return take_calibration(c, msg, out);
	}
	return mon_emit(out, msg);
}

/* Every thread's bounds, to opts.bounds and on as a BOUNDS message. */
static int finish_bounds(struct compensate *c, struct mon_emit *out)
{
	struct mon_msg m = { .type = MON_MSG_BOUNDS };
	struct trace_bounds *b;
	size_t n;
	int ret;

	if (!(c->info.classes & MKM_CLASS_WAKEUP))
		comp_bounds_flag_all(c->bounds, TRACE_BOUND_NO_WAKEUPS);
	ret = comp_bounds_result(c->bounds, &b, &n);
	if (ret || !n)
		return ret;
	if (c->opts.bounds)
		c->opts.bounds(c->opts.arg, b, n);
	m.bounds = b;
	m.nr_bounds = n;
	ret = mon_emit(out, &m);
	free(b);
	return ret;
}

/* Every thread's doubt, to opts.doubt (struct mon_comp_doubt), and the
 * bounds. */
static int compensate_finish(void *priv, struct mon_emit *out)
{
	struct compensate *c = priv;
	size_t i;

	if (!c->opts.doubt)
		return finish_bounds(c, out);
	for (i = 0; i < c->cap; i++) {
		struct thread_state *th = &c->threads[i];
		struct mon_comp_doubt d;

		if (!th->tid)
			continue;
		d = th->doubt;
		d.tid = th->tid;
		d.life_ns = th->last_in - th->first_in;
		d.unsure = d.at_stake_ns > 0 &&
			   d.at_stake_ns >=
				   MON_COMPENSATE_UNSURE_SHIFT * d.shift_ns &&
			   d.at_stake_ns >= MON_COMPENSATE_UNSURE_LIFE *
						    (double)d.life_ns;
		c->opts.doubt(c->opts.arg, &d);
	}
	return finish_bounds(c, out);
}

static void compensate_destroy(void *priv)
{
	struct compensate *c = priv;
	int k;

	if (!c)
		return;
	for (k = 0; k < 2; k++)
		compensate_destroy(c->shadow[k]);
	comp_bounds_free(c->bounds);
	mon_calibration_free(&c->cal);
	mon_split_free(c->split);
	free(c->cpus);
	free(c->threads);
	free(c);
}

static const struct mon_stage_ops compensate_ops = {
	.name = "compensate",
	.process = compensate_process,
	.finish = compensate_finish,
	.destroy = compensate_destroy,
};

int mon_stage_compensate_opts(struct mon_stage **stp,
			      const struct mon_calibration *cal,
			      const struct mon_compensate_opts *opts)
{
	struct compensate *c;
	int ret;

	if (!stp || (cal && (!cal->hdr.nr_cpus || !cal->cpu)))
		return -EINVAL;
	if (cal && !(opts && opts->flags & MON_COMPENSATE_FORCE)) {
		ret = mon_calibration_judge(cal, NULL, 0);
		if (ret)
			return ret;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->split = mon_split_new();
	if (!c->split) {
		free(c);
		return -ENOMEM;
	}
	if (opts)
		c->opts = *opts;
	if (cal) {
		ret = mon_calibration_set(&c->cal, &cal->hdr, cal->cpu,
					  cal->hdr.nr_cpus);
		if (ret) {
			mon_split_free(c->split);
			free(c);
			return ret;
		}
		c->have_cal = c->own_cal = true;
		ret = make_shadows(c);
		if (ret) {
			compensate_destroy(c);
			return ret;
		}
	}
	ret = mon_stage_new(stp, &compensate_ops, c);
	if (ret)
		compensate_destroy(c);
	return ret;
}

int mon_stage_compensate(struct mon_stage **stp,
			 const struct mon_calibration *cal)
{
	return mon_stage_compensate_opts(stp, cal, NULL);
}
