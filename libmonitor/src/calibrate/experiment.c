// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * calibrate/experiment.c - one figure: trials alternating the sensors on
 * and off over the same work on one CPU (mon_calibrate.h says which work
 * each kind times).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "calibrate/workload.h"
#include "internal.h"
#include "mon_calibrate.h"

#define DEFAULT_ROUNDS MON_CALIBRATE_ROUNDS
#define DEFAULT_TRIALS 10ul
#define READ_BATCH 4096
#define SETTLE_US 10000

struct experiment {
	enum mon_cost_kind kind;
	unsigned long rounds;
	struct monitor *mon; /* the one measured (none for CONSTANT) */
	struct keeper *keeper; /* CONSTANT's monitor on other threads */
	struct keeper *holder; /* keeps the switch probes in between trials */
	struct pingpong pp;
	bool pp_up;
	struct irq_timer timer; /* IRQ's interrupts */
	bool timer_up;
	struct mkm_event *buf;
	uint32_t classes; /* configured (0: not yet) */
};

/* The classes recorded with the sensors on and off. */
static uint32_t classes_of(enum mon_cost_kind kind, bool on)
{
	if (kind == MON_COST_WAKEUP && on)
		return MKM_CLASS_SCHED | MKM_CLASS_WAKEUP;
	if (kind == MON_COST_SYSCALL && on)
		return MKM_CLASS_SCHED | MKM_CLASS_SYSCALL;
	if (kind == MON_COST_IRQ && on)
		return MKM_CLASS_SCHED | MKM_CLASS_IRQ;
	return MKM_CLASS_SCHED;
}

/* The kinds whose "off" trials record too, only another set of classes. */
static bool class_added(enum mon_cost_kind kind)
{
	return kind == MON_COST_WAKEUP || kind == MON_COST_SYSCALL ||
	       kind == MON_COST_IRQ;
}

static bool counted(enum mon_cost_kind kind, uint8_t type)
{
	switch (kind) {
	case MON_COST_SWITCH:
		return type == MKM_EV_SWITCH_OUT || type == MKM_EV_SWITCH_IN ||
		       type == MKM_EV_SWITCH;
	case MON_COST_WAKEUP:
		return type == MKM_EV_WAKING || type == MKM_EV_WAKEUP;
	case MON_COST_SYSCALL:
		return type == MKM_EV_SYSCALL_ENTRY ||
		       type == MKM_EV_SYSCALL_EXIT;
	case MON_COST_IRQ:
		return type == MKM_EV_IRQ_ENTRY || type == MKM_EV_IRQ_EXIT ||
		       type == MKM_EV_SOFTIRQ_ENTRY ||
		       type == MKM_EV_SOFTIRQ_EXIT;
	case MON_COST_MARK:
		return type == MKM_EV_MARK;
	default:
		return false;
	}
}

/*
 * Reads everything the (suspended) monitor holds; counts the kind's
 * records, a switch's once (MON_COST_PER_SWITCH): one SWITCH record
 * (MKM_CONFIG_ONE_SWITCH, which monitor_configure() asks for), or a
 * SWITCH_OUT and the SWITCH_IN at its instant. A loss would make the
 * figure wrong: -EOVERFLOW.
 */
static int drain(struct experiment *x, double *events)
{
	uint64_t out_at = UINT64_MAX; /* the last SWITCH_OUT's instant */
	size_t n, i;
	int ret;

	*events = 0;
	do {
		ret = monitor_read(x->mon, x->buf, READ_BATCH, &n);
		for (i = 0; !ret && i < n; i++) {
			const struct mkm_event *e = &x->buf[i];

			if (e->type == MKM_EV_LOST)
				return -EOVERFLOW;
			if (e->type == MKM_EV_SWITCH_IN && e->time_ns == out_at)
				continue;
			out_at = e->type == MKM_EV_SWITCH_OUT ? e->time_ns :
								UINT64_MAX;
			*events += counted(x->kind, e->type);
		}
	} while (!ret && n);
	return ret;
}

/* Only when the classes change: the rings are kept then. */
static int configure(struct experiment *x, bool on)
{
	/* Room for a whole trial: at most 8 records a round trip. */
	struct monitor_config cfg = {
		.ring_bytes =
			x->rounds * 8 * sizeof(struct mkm_event) + (64 << 10),
		.classes = classes_of(x->kind, on),
		/* What mkm record records: the switch costs as it pays them. */
		.flags = MKM_CONFIG_ONE_SWITCH,
	};
	int ret;

	if (cfg.classes == x->classes)
		return 0;
	ret = monitor_configure(x->mon, &cfg);
	x->classes = ret ? 0 : cfg.classes;
	return ret;
}

static uint64_t run_work(struct experiment *x, unsigned long rounds)
{
	uint64_t t0;
	unsigned long i;

	switch (x->kind) {
	case MON_COST_SYSCALL:
		t0 = now_ns(CLOCK_MONOTONIC);
		for (i = 0; i < rounds; i++)
			syscall(SYS_getppid);
		return now_ns(CLOCK_MONOTONIC) - t0;
	case MON_COST_MARK:
		t0 = now_ns(CLOCK_MONOTONIC);
		for (i = 0; i < rounds; i++)
			monitor_mark(x->mon, i); /* -EAGAIN when off */
		return now_ns(CLOCK_MONOTONIC) - t0;
	case MON_COST_IRQ:
		return irq_timer_run(&x->timer, rounds);
	default:
		return pingpong_run(&x->pp, rounds);
	}
}

/* One trial: *t in s, *n the kernel's count of the work, *events the
 * records of the kind written (on), or the switches (CONSTANT). */
static int trial(struct experiment *x, bool on, double *t, double *n,
		 double *events)
{
	uint64_t sw = x->pp_up ? pingpong_switches(&x->pp) : 0;
	bool resume = x->mon && (on || class_added(x->kind));
	int ret = 0;

	*events = 0;
	if (x->kind == MON_COST_CONSTANT) {
		if (on)
			ret = keeper_start(&x->keeper);
		/*
		 * Registering and unregistering the probes leaves work for
		 * later (RCU callbacks, kworkers) that would land in a short
		 * trial: let it run first.
		 */
		usleep(SETTLE_US);
	}
	if (!ret && x->mon)
		ret = configure(x, on);
	if (!ret && resume)
		ret = monitor_resume(x->mon);
	if (ret)
		return ret;
	/*
	 * Untimed first: what a monitor's start leaves behind (a keeper's
	 * sleeper blocking, work the probes' registration deferred) must not
	 * be charged to a figure whose trials are short.
	 */
	run_work(x, x->rounds / 10 + 10);
	if (x->mon && resume) {
		double warm;

		ret = monitor_suspend(x->mon);
		if (!ret)
			ret = drain(x, &warm);
		if (!ret)
			ret = monitor_resume(x->mon);
		if (ret)
			return ret;
	}
	sw = x->pp_up ? pingpong_switches(&x->pp) : 0;
	*t = (double)run_work(x, x->rounds) / 1e9;
	if (x->mon) {
		ret = monitor_suspend(x->mon);
		if (!ret)
			ret = drain(x, on ? events : &(double){ 0 });
	}
	keeper_stop(x->keeper);
	x->keeper = NULL;
	*n = x->pp_up ? (double)(pingpong_switches(&x->pp) - sw) :
			(double)x->rounds;
	if (x->kind == MON_COST_CONSTANT && !on)
		*events = *n;
	return ret;
}

static int setup(struct experiment *x, unsigned int cpu)
{
	int ret = pin_to(cpu);

	if (ret)
		return ret;
	x->buf = malloc(READ_BATCH * sizeof(*x->buf));
	if (!x->buf)
		return -ENOMEM;
	if (x->kind == MON_COST_SWITCH || x->kind == MON_COST_WAKEUP ||
	    x->kind == MON_COST_CONSTANT) {
		ret = pingpong_start(&x->pp, cpu);
		if (ret)
			return ret;
		x->pp_up = true;
	}
	if (x->kind == MON_COST_CONSTANT)
		return 0;
	ret = monitor_create(&x->mon, NULL);
	if (ret)
		return ret;
	if (x->pp_up) {
		ret = thread_monitor(x->mon, 1, x->pp.main_tid);
		if (!ret)
			ret = thread_monitor(x->mon, 2, x->pp.peer_tid);
	} else if (x->kind == MON_COST_SYSCALL || x->kind == MON_COST_IRQ) {
		ret = thread_monitor(x->mon, 1, gettid());
	}
	if (!ret && x->kind == MON_COST_IRQ) {
		ret = irq_timer_start(&x->timer);
		x->timer_up = !ret;
	}
	/*
	 * SWITCH's "off" trials run with no probe registered: the figure is
	 * a monitored switch's whole cost over an untraced one, the probe's
	 * entry and filter included, which is what compensation charges it
	 * (CONSTANT is charged to unmonitored switches alone).
	 *
	 * These kinds record switches in both halves of a trial (WAKEUP,
	 * SYSCALL, IRQ) or time no switch (MARK): a holder keeps the switch
	 * probes registered between trials, which spares unregistering them
	 * after each one. That patches kernel text, and the module rations
	 * it for users without CAP_PERFMON (monitor_deferrals()).
	 */
	if (!ret && (class_added(x->kind) || x->kind == MON_COST_MARK))
		ret = keeper_start(&x->holder);
	return ret;
}

static void teardown(struct experiment *x)
{
	keeper_stop(x->keeper);
	keeper_stop(x->holder);
	if (x->timer_up)
		irq_timer_stop(&x->timer);
	if (x->mon)
		monitor_terminate(x->mon);
	if (x->pp_up)
		pingpong_stop(&x->pp);
	free(x->buf);
}

void mon_trials_free(struct mon_trials *t)
{
	if (!t)
		return;
	free(t->t_on);
	free(t->t_off);
	free(t->n_on);
	free(t->n_off);
	free(t->events);
	free(t->cost_ns);
	*t = (struct mon_trials){ 0 };
}

static int trials_alloc(struct mon_trials *t, size_t n)
{
	*t = (struct mon_trials){ .n = n };
	t->t_on = calloc(n, sizeof(double));
	t->t_off = calloc(n, sizeof(double));
	t->n_on = calloc(n, sizeof(double));
	t->n_off = calloc(n, sizeof(double));
	t->events = calloc(n, sizeof(double));
	t->cost_ns = calloc(n, sizeof(double));
	if (t->t_on && t->t_off && t->n_on && t->n_off && t->events &&
	    t->cost_ns)
		return 0;
	mon_trials_free(t);
	return -ENOMEM;
}

/*
 * The module's deferred probe drops now (monitor_deferrals()), read
 * through a monitor of its own that records nothing.
 */
static int deferrals_now(uint32_t *v)
{
	size_t ring = MKM_RING_MIN_BYTES;
	struct monitor *m;
	int ret = monitor_create(&m, &ring);

	if (ret)
		return ret;
	ret = monitor_deferrals(m, v);
	monitor_terminate(m);
	return ret;
}

#define DEFERRED_WAIT_MS 100
#define DEFERRED_WAITS 30 /* the module's deferral ends after 1 s quiet */

/*
 * Waits until no probe the trials do not ask for is kept registered: one
 * would cost the "off" trials time (a calibration too low) or outlive
 * them (a recording costlier than calibrated).
 */
static int wait_no_deferral(uint32_t *v)
{
	int i, ret = deferrals_now(v);

	for (i = 0; !ret && *v & MKM_STATS_DEFERRING && i < DEFERRED_WAITS;
	     i++) {
		usleep(DEFERRED_WAIT_MS * 1000);
		ret = deferrals_now(v);
	}
	if (!ret && *v & MKM_STATS_DEFERRING)
		ret = -ESTALE;
	return ret;
}

int mon_calibrate_kind(enum mon_cost_kind kind, unsigned int cpu,
		       unsigned long rounds, unsigned long trials,
		       struct mon_trials *out)
{
	struct experiment x = { .kind = kind,
				.rounds = rounds ? rounds : DEFAULT_ROUNDS };
	uint32_t deferred_before, deferred_after;
	double on_events;
	size_t i;
	int ret;

	if (!out || trials == 1 ||
	    (kind != MON_COST_SWITCH && kind != MON_COST_WAKEUP &&
	     kind != MON_COST_SYSCALL && kind != MON_COST_IRQ &&
	     kind != MON_COST_MARK && kind != MON_COST_CONSTANT))
		return -EINVAL;
	ret = trials_alloc(out, trials ? trials : DEFAULT_TRIALS);
	if (!ret)
		ret = wait_no_deferral(&deferred_before);
	if (ret) {
		mon_trials_free(out);
		return ret;
	}
	ret = setup(&x, cpu);
	/* A first pair, not kept: the first trials after the monitor's
	 * start run slower (seen under -icount: +35% on the switch). */
	if (!ret)
		ret = trial(&x, true, &out->t_on[0], &out->n_on[0], &on_events);
	if (!ret)
		ret = trial(&x, false, &out->t_off[0], &out->n_off[0],
			    &out->events[0]);
	for (i = 0; !ret && i < out->n; i++) {
		ret = trial(&x, true, &out->t_on[i], &out->n_on[i], &on_events);
		if (!ret)
			ret = trial(&x, false, &out->t_off[i], &out->n_off[i],
				    &out->events[i]);
		if (kind != MON_COST_CONSTANT)
			out->events[i] = on_events;
		if (!ret && out->events[i] > 0)
			out->cost_ns[i] = (out->t_on[i] - out->t_off[i]) * 1e9 /
					  out->events[i];
		else if (!ret)
			ret = -ENODATA; /* nothing recorded: no figure */
	}
	teardown(&x);
	/* The module rationed our own drops, or another user's: not exact. */
	if (!ret && !deferrals_now(&deferred_after) &&
	    (deferred_after != deferred_before))
		ret = -ESTALE;
	if (ret)
		mon_trials_free(out);
	return ret;
}
