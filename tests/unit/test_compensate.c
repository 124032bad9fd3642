// SPDX-License-Identifier: GPL-2.0
/*
 * test_compensate.c - the compensation stage on synthetic streams whose
 * compensated times are worked out by hand in the comments (the rules are
 * docs/compensation.md's). Costs, in ns: CPU 0 switch record 10, wakeup
 * 5, mark 3, constant 2 per unmonitored switch; CPU 1 switch 20, mark 7,
 * constant 4.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "evstream.h"
#include "internal.h"

struct src {
	const struct evs *s;
	const struct mon_calibration *cal; /* sent first, if any */
	bool cal_sent, sent;
};

static int src_next(void *priv, struct mon_msg *msg)
{
	struct src *p = priv;

	if (p->cal && !p->cal_sent) {
		p->cal_sent = true;
		msg->type = MON_MSG_CALIBRATION;
		msg->calibration_hdr = &p->cal->hdr;
		msg->calibration = p->cal->cpu;
		msg->nr_calibration = p->cal->hdr.nr_cpus;
		return 1;
	}
	if (p->sent)
		return 0;
	p->sent = true;
	msg->type = MON_MSG_EVENTS;
	msg->events = p->s->ev;
	msg->nr_events = p->s->n;
	return 1;
}

static const struct mon_source_ops src_ops = { .name = "synthetic",
					       .next = src_next };

struct out {
	struct mkm_event ev[EVS_MAX];
	size_t n;
	struct trace_info info;
	size_t calibrations;
};

static int out_consume(void *priv, const struct mon_msg *msg)
{
	struct out *o = priv;
	size_t i;

	if (msg->type == MON_MSG_INFO)
		o->info = *msg->info;
	if (msg->type == MON_MSG_CALIBRATION)
		o->calibrations++;
	if (msg->type == MON_MSG_EVENTS)
		for (i = 0; i < msg->nr_events; i++)
			o->ev[o->n++] = msg->events[i];
	return 0;
}

static const struct mon_sink_ops out_ops = { .name = "out",
					     .consume = out_consume };

static void set_cost(struct trace_calibration *c, enum mon_cost_kind k,
		     int64_t ns)
{
	c->cost[k].mean_ps = ns * 1000;
	c->cost[k].samples = 10;
	c->cost[k].flags = MON_COST_MEASURED;
}

static struct mon_calibration *test_calibration(void)
{
	static struct trace_calibration cpu[2];
	static struct mon_calibration cal = {
		.hdr = { .version = 1, .nr_cpus = 2, .kernel = "test" },
		.cpu = cpu
	};

	memset(cpu, 0, sizeof(cpu));
	cpu[1].cpu = 1;
	set_cost(&cpu[0], MON_COST_SWITCH, 10);
	set_cost(&cpu[0], MON_COST_WAKEUP, 5);
	set_cost(&cpu[0], MON_COST_MARK, 3);
	set_cost(&cpu[0], MON_COST_CONSTANT, 2);
	set_cost(&cpu[1], MON_COST_SWITCH, 20);
	set_cost(&cpu[1], MON_COST_MARK, 7);
	set_cost(&cpu[1], MON_COST_CONSTANT, 4);
	return &cal;
}

/* Runs @s through order and compensate into @o; returns the run's result. */
static uint32_t own_tid; /* the recording's own thread, in INFO (0: none) */

/* The same with the calibration in the stream (@stream_cal) and @opts. */
static int compensate_opts(const struct evs *s, struct out *o,
			   const struct mon_calibration *cal,
			   const struct mon_calibration *stream_cal,
			   uint32_t trace_flags,
			   const struct mon_compensate_opts *opts)
{
	struct trace_info info = { .nr_cpus = 2,
				   .trace_flags = trace_flags,
				   .nr_monitor_tids = own_tid ? 1 : 0,
				   .monitor_tids = { own_tid } };
	struct src p = { .s = s, .cal = stream_cal };
	struct mon_pipeline *pl;
	struct mon_source *src;
	struct mon_stage *st;
	struct mon_sink *sk;
	int ret;

	memset(o, 0, sizeof(*o));
	assert_int_equal(mon_source_new(&src, &src_ops, &p, &info), 0);
	assert_int_equal(mon_pipeline_create(&pl, src), 0);
	assert_int_equal(mon_stage_order(&st), 0);
	assert_int_equal(mon_pipeline_add_stage(pl, st), 0);
	assert_int_equal(opts ? mon_stage_compensate_opts(&st, cal, opts) :
				mon_stage_compensate(&st, cal),
			 0);
	assert_int_equal(mon_pipeline_add_stage(pl, st), 0);
	assert_int_equal(mon_sink_new(&sk, &out_ops, o), 0);
	assert_int_equal(mon_pipeline_add_sink(pl, sk), 0);
	ret = mon_pipeline_run(pl);
	mon_pipeline_destroy(pl);
	return ret;
}

static int compensate(const struct evs *s, struct out *o,
		      const struct mon_calibration *cal, uint32_t trace_flags)
{
	return compensate_opts(s, o, cal, NULL, trace_flags, NULL);
}

/* The compensated times of @o, in input order per CPU, against @want. */
static void expect_times(const struct out *o, const struct evs *s,
			 const uint64_t *want)
{
	size_t i, j;

	assert_int_equal(o->n, s->n);
	for (i = 0; i < s->n; i++) {
		for (j = 0; j < o->n; j++)
			if (o->ev[j].cpu == s->ev[i].cpu &&
			    o->ev[j].seq == s->ev[i].seq)
				break;
		assert_true(j < o->n);
		if (o->ev[j].time_ns != want[i])
			fail_msg("record %zu (%s at %" PRIu64 "): %" PRIu64
				 ", want %" PRIu64,
				 i, mon_event_name(s->ev[i].type),
				 s->ev[i].time_ns, o->ev[j].time_ns, want[i]);
	}
}

#define IN_WAIT(s, t, c, tid, prev, wait) \
	evs_add(s, t, c, MKM_EV_SWITCH_IN, tid, wait, prev, 0)
#define MARK(s, t, c, tid) evs_add(s, t, c, MKM_EV_MARK, tid, 0, 0, 0)
#define SLEEP MKM_TS_INTERRUPTIBLE

/* MKM's case: one CPU, two threads handing it over, then an idle gap. */
static void test_compensate_one_cpu(void **state)
{
	struct evs s = { 0 };
	struct out o;
	/*
	 * 1000 OUT 1 (first sight: no delay), IN 2 ready at 900, before the
	 *      chain began: its own delay, 0. The instant costs 10+10.
	 * 2000 MARK: 20 -> 1980; costs 3.
	 * 3000 OUT 2: 23 -> 2977 (thread 2 carries 23+10 = 33); IN 1
	 *      ready at 2500, when the chain's delay was 23: min(23, 500+23).
	 * 4000 OUT 1 to idle: 23+20 = 43 -> 3957.
	 * 5000 IN 2 from idle, ready at 4800: the idle CPU absorbed the
	 *      chain's delay; thread 2's own 33 moves it: 4967 (its sleep
	 *      keeps its length). MKM's rule would subtract all 53 before.
	 */
	static const uint64_t want[] = { 1000, 1000, 1980, 2977,
					 2977, 3957, 4967 };

	(void)state;
	OUT(&s, 1000, 0, 1, SLEEP, 2);
	IN_WAIT(&s, 1000, 0, 2, 1, 100);
	MARK(&s, 2000, 0, 2);
	OUT(&s, 3000, 0, 2, SLEEP, 1);
	IN_WAIT(&s, 3000, 0, 1, 2, 500);
	OUT(&s, 4000, 0, 1, SLEEP, 0);
	IN_WAIT(&s, 5000, 0, 2, 0, 200);
	assert_int_equal(compensate(&s, &o, test_calibration(), 0), 0);
	expect_times(&o, &s, want);
	assert_true(o.info.trace_flags & TRACE_F_COMPENSATED);
	assert_int_equal(o.calibrations, 1);
}

/* A sensor firing on CPU 1 does not delay CPU 0. */
static void test_compensate_two_cpus(void **state)
{
	struct evs s = { 0 };
	struct out o;
	/*
	 * CPU 0: IN 1 at 100 (0), costs 10; marks at 200 (10), 300 (13).
	 * CPU 1: IN 2 at 150 (0), costs 20; marks at 250 (20), 350 (27).
	 */
	static const uint64_t want[] = { 100, 190, 287, 150, 230, 323 };

	(void)state;
	IN_WAIT(&s, 100, 0, 1, 0, 0);
	MARK(&s, 200, 0, 1);
	MARK(&s, 300, 0, 1);
	IN_WAIT(&s, 150, 1, 2, 0, 0);
	MARK(&s, 250, 1, 2);
	MARK(&s, 350, 1, 2);
	assert_int_equal(compensate(&s, &o, test_calibration(), 0), 0);
	expect_times(&o, &s, want);
}

/* A thread woken from CPU 0 onto idle CPU 1 inherits its waker's delay. */
static void test_compensate_wakeup_across_cpus(void **state)
{
	struct evs s = { 0 };
	struct out o;
	/*
	 * CPU 0: IN 1 at 100 (0; costs 10), MARK at 200 (10; 3), WAKEUP of
	 * 2 at 300 (13). CPU 1, idle: IN 2 at 400 ready at 300: the waker's
	 * 13 -> 387, after the wakeup's 287. Without the WAKEUP record the
	 * thread's own delay (0) would leave it at 400.
	 */
	static const uint64_t want[] = { 100, 190, 287, 387 };

	(void)state;
	IN_WAIT(&s, 100, 0, 1, 0, 0);
	MARK(&s, 200, 0, 1);
	WAKEUP(&s, 300, 0, 2, 1);
	IN_WAIT(&s, 400, 1, 2, 0, 100);
	assert_int_equal(compensate(&s, &o, test_calibration(), 0), 0);
	expect_times(&o, &s, want);
}

/* After a gap the delay goes on; the records lost add nothing unknown. */
static void test_compensate_lost_gap(void **state)
{
	struct evs s = { 0 };
	struct out o;
	/*
	 * IN 1 at 100 (0; 10), MARK 200 (10; 3), LOST at 200 (10), five seqs
	 * lost, MARK 400 (13; 3), OUT 1 to idle at 500 (16 -> 484; thread 1
	 * carries 16+10 = 26), IN 1 at 600 from idle: its own 26 -> 574.
	 */
	static const uint64_t want[] = { 100, 190, 190, 387, 484, 574 };
	struct mkm_event *lost;

	(void)state;
	IN_WAIT(&s, 100, 0, 1, 0, 0);
	MARK(&s, 200, 0, 1);
	lost = evs_add(&s, 200, 0, MKM_EV_LOST, 0, 5, 0, 0);
	s.seq[0] += 4; /* seq counts the five lost */
	(void)lost;
	MARK(&s, 400, 0, 1);
	OUT(&s, 500, 0, 1, SLEEP, 0);
	IN_WAIT(&s, 600, 0, 1, 0, 50);
	assert_int_equal(compensate(&s, &o, test_calibration(), 0), 0);
	expect_times(&o, &s, want);
}

/* The recording's own thread took the CPU from 1 while 2 waited: its
 * whole run is the monitor's cost; another thread's is not. */
static void test_compensate_own_thread(void **state)
{
	struct evs s = { 0 };
	struct out o;
	/*
	 * 1000 OUT 1 to the recorder (50): first sight, 0. 3000 IN 2 from
	 * 50, waiting since 500 (before the chain: its own delay 0): the
	 * chain's 0 at the handover plus 2000 of the recorder's run:
	 * min(2000, 2500 + 0) -> 1000, right after 1 left. MARK at 3100:
	 * 2000 + 10 -> 1090. The same with 60, not the monitor's: it
	 * started 10 late (the OUT's cost), so 2 did: 2990, the mark 3080.
	 * From 70 where 60 took over: a switch unseen (60 -> 70) while 2
	 * was runnable: 10 + the constant 2 -> 2988, the mark 3078. The
	 * same where the recorder (50) took over: what ran after it while 2
	 * waited began with its work: 1000 and 1090, as from 50 itself.
	 */
	static const uint64_t want_own[] = { 1000, 1000, 1090 };
	static const uint64_t want_other[] = { 1000, 2990, 3080 };
	static const uint64_t want_hidden[] = { 1000, 2988, 3078 };

	(void)state;
	own_tid = 50;
	OUT(&s, 1000, 0, 1, MKM_TS_RUNNING, 50);
	IN_WAIT(&s, 3000, 0, 2, 50, 2500);
	MARK(&s, 3100, 0, 2);
	assert_int_equal(compensate(&s, &o, test_calibration(), 0), 0);
	expect_times(&o, &s, want_own);
	own_tid = 60;
	assert_int_equal(compensate(&s, &o, test_calibration(), 0), 0);
	expect_times(&o, &s, want_other);
	own_tid = 0;
	memset(&s, 0, sizeof(s));
	OUT(&s, 1000, 0, 1, MKM_TS_RUNNING, 60);
	IN_WAIT(&s, 3000, 0, 2, 70, 2500);
	MARK(&s, 3100, 0, 2);
	assert_int_equal(compensate(&s, &o, test_calibration(), 0), 0);
	expect_times(&o, &s, want_hidden);
	own_tid = 60;
	assert_int_equal(compensate(&s, &o, test_calibration(), 0), 0);
	expect_times(&o, &s, want_own);
	own_tid = 0;
}

/* Whatever the costs, no CPU's and no thread's records go backwards, and
 * no record moves later. */
static void test_compensate_keeps_order(void **state)
{
	struct trace_calibration cpu[1] = { { 0 } };
	struct mon_calibration cal = { .hdr = { .version = 1, .nr_cpus = 1 },
				       .cpu = cpu };
	uint64_t last_cpu[2] = { 0 }, last_th[3] = { 0 };
	struct evs s = { 0 };
	struct out o;
	uint64_t t = 1000;
	size_t i;

	(void)state;
	set_cost(&cpu[0], MON_COST_SWITCH, 400); /* dearer than the gaps */
	set_cost(&cpu[0], MON_COST_CONSTANT, 50);
	set_cost(&cpu[0], MON_COST_MARK, 300);
	srand(7);
	for (i = 0; s.n + 6 < EVS_MAX; i++) {
		unsigned int c = i % 2, a = 1 + c, b = 2 - c;

		OUT(&s, t, c, a, SLEEP, b);
		IN_WAIT(&s, t, c, b, a, (uint32_t)(rand() % 300));
		t += 1 + rand() % 200;
		MARK(&s, t, c, b);
		t += 1 + rand() % 200;
	}
	assert_int_equal(compensate(&s, &o, &cal, 0), 0);
	assert_int_equal(o.n, s.n);
	for (i = 0; i < o.n; i++) {
		const struct mkm_event *e = &o.ev[i];

		assert_true(e->time_ns >= last_cpu[e->cpu]);
		assert_true(e->time_ns >= last_th[e->tid]);
		last_cpu[e->cpu] = last_th[e->tid] = e->time_ns;
	}
	for (i = 0; i < s.n; i++)
		assert_true(o.ev[i].time_ns <= s.ev[i].time_ns ||
			    o.ev[i].seq != s.ev[i].seq);
}

static void test_compensate_refuses(void **state)
{
	struct evs s = { 0 };
	struct out o;

	(void)state;
	MARK(&s, 100, 0, 1);
	assert_int_equal(compensate(&s, &o, test_calibration(),
				    TRACE_F_COMPENSATED),
			 -EALREADY);
	/* No calibration given and none in the stream. */
	assert_int_equal(compensate(&s, &o, NULL, 0), -ENOENT);
}

/*
 * A calibration whose figure is not a cost, as `make demo`'s trace under
 * plain TCG carried (switch -1914.7 ns from trials that straddle zero):
 * refused when given, unless forced.
 */
static struct mon_calibration *meaningless_calibration(void)
{
	struct mon_calibration *cal = test_calibration();

	cal->cpu[1].cost[MON_COST_SWITCH] = (struct trace_cost){
		.mean_ps = -1914700,
		.stddev_ps = 2500000,
		.ci99_ps = 4073000,
		.samples = 3,
		.flags = MON_COST_MEASURED,
	};
	return cal;
}

static void test_mon_stage_compensate_refuses_meaningless(void **state)
{
	struct mon_compensate_opts force = { .flags = MON_COMPENSATE_FORCE };
	struct mon_calibration *cal;
	struct mon_stage *st = NULL;

	(void)state;
	assert_int_equal(mon_stage_compensate(&st, meaningless_calibration()),
			 -EDOM);
	assert_null(st);
	assert_int_equal(mon_stage_compensate_opts(
				 &st, meaningless_calibration(), &force),
			 0);
	mon_stage_destroy(st);
	/* A stored verdict stands: the same figures judged a cost. */
	cal = meaningless_calibration();
	cal->cpu[1].cost[MON_COST_SWITCH].flags = MON_COST_MEASURED |
						  MON_COST_JUDGED;
	assert_int_equal(mon_stage_compensate(&st, cal), 0);
	mon_stage_destroy(st);
}

/* The stream's own calibration (the trace's), meaningless: refused when
 * it arrives, so no record is compensated from it; forced, it is used. */
static void test_compensate_refuses_meaningless_stream_calibration(void **state)
{
	struct mon_compensate_opts force = { .flags = MON_COMPENSATE_FORCE };
	struct evs s = { 0 };
	struct out o;

	(void)state;
	IN_WAIT(&s, 100, 0, 1, 0, 0);
	MARK(&s, 200, 0, 1);
	assert_int_equal(compensate_opts(&s, &o, NULL,
					 meaningless_calibration(), 0, NULL),
			 -EDOM);
	assert_int_equal(o.n, 0);
	assert_int_equal(compensate_opts(&s, &o, NULL,
					 meaningless_calibration(), 0, &force),
			 0);
	assert_int_equal(o.n, 2);
	assert_int_equal(o.ev[1].time_ns, 190); /* CPU 0's switch: 10 ns */
}

/* A trace from before verdicts: its figures carry none, and are judged
 * from their statistics (a spread as wide as the mean: noisy). */
static void test_compensate_judges_old_calibration(void **state)
{
	struct mon_calibration *cal = test_calibration();
	struct evs s = { 0 };
	struct out o;

	(void)state;
	cal->cpu[0].cost[MON_COST_CONSTANT] = (struct trace_cost){
		.mean_ps = 1379500,
		.stddev_ps = 1500000,
		.ci99_ps = 1221900,
		.samples = 10,
		.flags = MON_COST_MEASURED,
	};
	IN_WAIT(&s, 100, 0, 1, 0, 0);
	assert_int_equal(compensate_opts(&s, &o, NULL, cal, 0, NULL), -EDOM);
}

/* Costs that matter against the scheduler's 1 ms granularity: a mark
 * costs 100 us, a switch or wakeup record 1 us. */
static struct mon_calibration *dear_calibration(void)
{
	static struct trace_calibration cpu[2];
	static struct mon_calibration cal = {
		.hdr = { .version = 1, .nr_cpus = 2, .kernel = "test" },
		.cpu = cpu
	};
	unsigned int c;

	memset(cpu, 0, sizeof(cpu));
	for (c = 0; c < 2; c++) {
		cpu[c].cpu = c;
		set_cost(&cpu[c], MON_COST_SWITCH, 1000);
		set_cost(&cpu[c], MON_COST_WAKEUP, 1000);
		set_cost(&cpu[c], MON_COST_MARK, 100000);
	}
	return &cal;
}

struct doubts {
	struct mon_comp_doubt d[4];
	size_t n;
};

static void collect_doubt(void *arg, const struct mon_comp_doubt *d)
{
	struct doubts *ds = arg;

	assert_true(ds->n < 4);
	ds->d[ds->n++] = *d;
}

static const struct mon_comp_doubt *doubt_of(const struct doubts *ds,
					     uint32_t tid)
{
	size_t i;

	for (i = 0; i < ds->n; i++)
		if (ds->d[i].tid == tid)
			return &ds->d[i];
	fail_msg("no doubt reported for thread %u", tid);
	return NULL;
}

/*
 * Thread 1 runs 1 ms with five marks (500 us of the monitor's cost in
 * its run), then leaves the CPU to thread 2 for 10 ms: preempted, the
 * scheduler's choice may be the monitor's (500 us against the 1 ms
 * granularity: a 0.5 chance), and 0.5 x 10 ms = 5 ms of its wait is at
 * stake, more than the ~0.5 ms compensation moves it by: unsure.
 * Blocking of its own accord (SLEEP) and switched in as soon as it is
 * woken (no wait), it is not a decision the monitor's time could change:
 * sure. Thread 2 is never preempted: sure.
 */
static void doubt_run(unsigned int state_out, unsigned int flags_out,
		      uint32_t wait, struct doubts *ds)
{
	struct mon_compensate_opts opts = { .doubt = collect_doubt, .arg = ds };
	struct evs s = { 0 };
	struct out o;
	int k;

	memset(ds, 0, sizeof(*ds));
	OUT(&s, 1000000, 0, 2, SLEEP, 1);
	IN_WAIT(&s, 1000000, 0, 1, 2, 0);
	for (k = 1; k <= 5; k++)
		MARK(&s, 1000000 + 100000 * (uint64_t)k, 0, 1);
	evs_add(&s, 2000000, 0, MKM_EV_SWITCH_OUT, 1, state_out, 2, flags_out);
	IN_WAIT(&s, 2000000, 0, 2, 1, 0);
	OUT(&s, 12000000, 0, 2, SLEEP, 1);
	IN_WAIT(&s, 12000000, 0, 1, 2, wait);
	OUT(&s, 13000000, 0, 1, SLEEP, 0);
	assert_int_equal(
		compensate_opts(&s, &o, dear_calibration(), NULL, 0, &opts), 0);
	assert_int_equal(ds->n, 2);
}

static void test_compensate_doubt_preempted_after_cost(void **state)
{
	const struct mon_comp_doubt *d1, *d2;
	struct doubts ds;

	(void)state;
	doubt_run(MKM_TS_RUNNING, MKM_EVF_PREEMPTED, 10000000, &ds);
	d1 = doubt_of(&ds, 1);
	d2 = doubt_of(&ds, 2);
	assert_int_equal(d1->preemptions, 1);
	assert_float_equal(d1->preempt_cost_ns, 500000, 0.5);
	assert_float_equal(d1->at_stake_ns, 5000000, 0.5);
	assert_int_equal(d1->life_ns, 12000000);
	assert_true(d1->shift_ns > 500000 && d1->shift_ns < 1000000);
	assert_true(d1->unsure);
	assert_int_equal(d2->preemptions, 0);
	assert_float_equal(d2->at_stake_ns, 0, 0);
	assert_false(d2->unsure);
}

static void test_compensate_doubt_blocked_is_sure(void **state)
{
	const struct mon_comp_doubt *d1;
	struct doubts ds;

	(void)state;
	doubt_run(SLEEP, 0, 0, &ds);
	d1 = doubt_of(&ds, 1);
	assert_int_equal(d1->preemptions, 0);
	assert_float_equal(d1->at_stake_ns, 0, 0);
	assert_false(d1->unsure);
	assert_false(doubt_of(&ds, 2)->unsure);
}

/*
 * Thread 1, which thread 2 woke once before (on CPU 1, then idle), sleeps
 * on a timer while thread 2 runs on CPU 0 with two marks (202 us of delay
 * on the CPU's chain by then); the timer's interrupt wakes it onto idle
 * CPU 1. Had the monitor not held up CPU 0, a wakeup from thread 2 could
 * have come first: 202 us at stake, as much as compensation moves its
 * wakeup by (CPU 0's delay then): unsure. Without the earlier wakeup,
 * thread 1 is a plain sleeper, whose timer nothing else could beat.
 */
static void timer_wakeup(bool woken_before, struct doubts *ds)
{
	struct mon_compensate_opts opts = { .doubt = collect_doubt, .arg = ds };
	struct evs s = { 0 };
	struct out o;

	memset(ds, 0, sizeof(*ds));
	if (woken_before) {
		IN_WAIT(&s, 100000, 1, 2, 0, 0);
		evs_add(&s, 110000, 1, MKM_EV_WAKEUP, 1, 1, 2, 0);
		OUT(&s, 120000, 1, 2, SLEEP, 1);
		IN_WAIT(&s, 120000, 1, 1, 2, 10000);
		OUT(&s, 130000, 1, 1, SLEEP, 0);
	}
	OUT(&s, 1000000, 0, 1, SLEEP, 2);
	IN_WAIT(&s, 1000000, 0, 2, 1, 0);
	MARK(&s, 1100000, 0, 2);
	MARK(&s, 1200000, 0, 2);
	evs_add(&s, 1300000, 0, MKM_EV_WAKEUP, 1, 1, 0, MKM_EVF_IN_IRQ);
	IN_WAIT(&s, 1310000, 1, 1, 0, 10000);
	OUT(&s, 1400000, 1, 1, SLEEP, 0);
	OUT(&s, 1500000, 0, 2, SLEEP, 0);
	assert_int_equal(
		compensate_opts(&s, &o, dear_calibration(), NULL, 0, &opts), 0);
}

static void test_compensate_doubt_timer_wakeup(void **state)
{
	const struct mon_comp_doubt *d1;
	struct doubts ds;

	(void)state;
	timer_wakeup(true, &ds);
	d1 = doubt_of(&ds, 1);
	assert_int_equal(d1->timer_wakeups, 1);
	assert_float_equal(d1->timer_delay_ns, 202000, 0.5);
	assert_float_equal(d1->at_stake_ns, 202000, 0.5);
	assert_float_equal(d1->shift_ns, 202000, 0.5); /* its WAKEUP's */
	assert_true(d1->unsure);
	assert_int_equal(doubt_of(&ds, 2)->timer_wakeups, 0);
	assert_false(doubt_of(&ds, 2)->unsure);
}

static void test_compensate_doubt_plain_sleep(void **state)
{
	struct doubts ds;

	(void)state;
	timer_wakeup(false, &ds);
	for (size_t i = 0; i < ds.n; i++)
		if (ds.d[i].tid == 1) {
			assert_int_equal(ds.d[i].timer_wakeups, 0);
			assert_float_equal(ds.d[i].at_stake_ns, 0, 0);
			assert_false(ds.d[i].unsure);
		}
}

/*
 * Thread 2 runs with three marks (300 us of the monitor's cost), wakes
 * thread 1 and runs on for 4 ms before it blocks: whether the wakee
 * preempts its waker is the scheduler's run-time comparison, which the
 * monitor moved by 300 us against the 1 ms granularity: 0.3 x 4 ms =
 * 1.2 ms of thread 1's wait at stake, more than half the ~0.3 ms
 * compensation moves it by: unsure. Thread 2 is sure.
 */
static void test_compensate_doubt_wakeup_waits(void **state)
{
	struct doubts ds;
	struct mon_compensate_opts opts = { .doubt = collect_doubt,
					    .arg = &ds };
	const struct mon_comp_doubt *d1;
	struct evs s = { 0 };
	struct out o;

	(void)state;
	memset(&ds, 0, sizeof(ds));
	OUT(&s, 1000000, 0, 1, SLEEP, 2);
	IN_WAIT(&s, 1000000, 0, 2, 1, 0);
	MARK(&s, 1100000, 0, 2);
	MARK(&s, 1200000, 0, 2);
	MARK(&s, 1300000, 0, 2);
	evs_add(&s, 1400000, 0, MKM_EV_WAKEUP, 1, 0, 2, 0);
	OUT(&s, 5400000, 0, 2, SLEEP, 1);
	IN_WAIT(&s, 5400000, 0, 1, 2, 4000000);
	OUT(&s, 6000000, 0, 1, SLEEP, 0);
	assert_int_equal(
		compensate_opts(&s, &o, dear_calibration(), NULL, 0, &opts), 0);
	d1 = doubt_of(&ds, 1);
	assert_int_equal(d1->wakeups, 1);
	assert_float_equal(d1->wakeup_cost_ns, 300000, 0.5);
	assert_float_equal(d1->at_stake_ns, 1200000, 0.5);
	assert_int_equal(d1->preemptions, 0);
	assert_true(d1->shift_ns > 300000 && d1->shift_ns < 400000);
	assert_true(d1->unsure);
	assert_false(doubt_of(&ds, 2)->unsure);
}

/*
 * Without the WAKEUP class: thread 1 runs 0.2 ms with two marks (200 us
 * of the monitor's cost), sleeps, and comes back after a recorded wait
 * of 4 ms behind thread 2: its own inflated run time alone may have
 * decided that wait, 0.2 x 4 ms = 0.8 ms at stake.
 */
static void test_compensate_doubt_wait_without_wakeups(void **state)
{
	struct doubts ds;
	struct mon_compensate_opts opts = { .doubt = collect_doubt,
					    .arg = &ds };
	const struct mon_comp_doubt *d1;
	struct evs s = { 0 };
	struct out o;

	(void)state;
	memset(&ds, 0, sizeof(ds));
	OUT(&s, 1000000, 0, 2, SLEEP, 1);
	IN_WAIT(&s, 1000000, 0, 1, 2, 0);
	MARK(&s, 1100000, 0, 1);
	MARK(&s, 1150000, 0, 1);
	OUT(&s, 1200000, 0, 1, SLEEP, 2);
	IN_WAIT(&s, 1200000, 0, 2, 1, 0);
	OUT(&s, 6000000, 0, 2, SLEEP, 1);
	IN_WAIT(&s, 6000000, 0, 1, 2, 4000000);
	OUT(&s, 6100000, 0, 1, SLEEP, 0);
	assert_int_equal(
		compensate_opts(&s, &o, dear_calibration(), NULL, 0, &opts), 0);
	d1 = doubt_of(&ds, 1);
	assert_int_equal(d1->wakeups, 1);
	assert_float_equal(d1->wakeup_cost_ns, 200000, 0.5);
	assert_float_equal(d1->at_stake_ns, 800000, 0.5);
	assert_int_equal(doubt_of(&ds, 2)->wakeups, 0);
}

/*
 * A waker that ran on to the tick (a decision the monitor may have
 * changed, which compensation marks doubtful), twice. Thread 3 runs
 * with five marks (500 us on CPU 0's chain) and sleeps; thread 2 takes the
 * CPU, wakes thread 1 at 1.7 ms and runs on until it is preempted @wait
 * later, thread 1 switching in from it. Thread 1 runs 0.1 ms and sleeps, 2
 * wakes it again and runs on for @wait once more. With a 4 ms wait, longer
 * than a wakeup granularity, the wakeups did not preempt and the tick
 * ended 2's runs: the first wakeup fell 505 us later against the ticks
 * than unmonitored (the CPU's delay since it started), the second 5 us
 * (since the first such run ended, its anchor), and each wait
 * times that over the 4 ms tick is at stake for both threads. A 0.5 ms
 * wait is a wakeup that preempted, but late: not the tick's.
 */
struct bcoll;
static void collect_bounds(void *arg, const struct trace_bounds *b, size_t n);

/* With @bc (may be NULL), the bounds too. */
static void tick_run_bounds(uint64_t wait, struct doubts *ds, struct bcoll *bc);

static void tick_run_with(uint64_t wait, struct doubts *ds)
{
	tick_run_bounds(wait, ds, NULL);
}

/* The doubt and the bounds share opts.arg: both collections. */
struct tick_out {
	struct doubts *ds;
	struct bcoll *bc;
};

static void tick_doubt(void *arg, const struct mon_comp_doubt *d)
{
	collect_doubt(((struct tick_out *)arg)->ds, d);
}

static void tick_bounds(void *arg, const struct trace_bounds *b, size_t n)
{
	struct tick_out *t = arg;

	if (t->bc)
		collect_bounds(t->bc, b, n);
}

static void tick_run_bounds(uint64_t wait, struct doubts *ds, struct bcoll *bc)
{
	struct tick_out to = { ds, bc };
	struct mon_compensate_opts opts = { .doubt = tick_doubt,
					    .bounds = tick_bounds,
					    .arg = &to };
	struct evs s = { 0 };
	struct out o;
	int k;

	memset(ds, 0, sizeof(*ds));
	OUT(&s, 1000000, 0, 1, SLEEP, 3);
	IN_WAIT(&s, 1000000, 0, 3, 1, 0);
	for (k = 1; k <= 5; k++)
		MARK(&s, 1000000 + 100000 * (uint64_t)k, 0, 3);
	OUT(&s, 1600000, 0, 3, SLEEP, 2);
	IN_WAIT(&s, 1600000, 0, 2, 3, 0);
	evs_add(&s, 1700000, 0, MKM_EV_WAKEUP, 1, 0, 2, 0);
	evs_add(&s, 1700000 + wait, 0, MKM_EV_SWITCH_OUT, 2, MKM_TS_RUNNING, 1,
		MKM_EVF_PREEMPTED);
	IN_WAIT(&s, 1700000 + wait, 0, 1, 2, wait);
	OUT(&s, 1800000 + wait, 0, 1, SLEEP, 2);
	IN_WAIT(&s, 1800000 + wait, 0, 2, 1, 100000);
	evs_add(&s, 1900000 + wait, 0, MKM_EV_WAKEUP, 1, 0, 2, 0);
	evs_add(&s, 1900000 + 2 * wait, 0, MKM_EV_SWITCH_OUT, 2, MKM_TS_RUNNING,
		1, MKM_EVF_PREEMPTED);
	IN_WAIT(&s, 1900000 + 2 * wait, 0, 1, 2, wait);
	OUT(&s, 2000000 + 2 * wait, 0, 1, SLEEP, 0);
	assert_int_equal(
		compensate_opts(&s, &o, dear_calibration(), NULL, 0, &opts), 0);
	assert_int_equal(ds->n, 3);
}

static void test_compensate_doubt_waker_ran_to_tick(void **state)
{
	const struct mon_comp_doubt *d1, *d2;
	struct doubts ds;

	(void)state;
	tick_run_with(4000000, &ds);
	d1 = doubt_of(&ds, 1);
	d2 = doubt_of(&ds, 2);
	assert_int_equal(d1->tick_runs, 2);
	assert_int_equal(d2->tick_runs, 2);
	/* 505 us, then 5 us (two switches of two records at 1 us each, a
	 * wakeup's 1 us; the marks before the first only): not the first
	 * run's delay counted again for the second. */
	assert_float_equal(d2->tick_delay_ns, 510000, 0.5);
	assert_float_equal(d1->tick_delay_ns, d2->tick_delay_ns, 0);
	/* wait = tick: the delay itself, and 2's preemptions' 1 us runs add
	 * next to nothing. */
	assert_float_equal(d2->at_stake_ns, d2->tick_delay_ns, 1000);
	assert_true(d1->at_stake_ns >= d2->tick_delay_ns);
	assert_true(d2->unsure);
	assert_int_equal(doubt_of(&ds, 3)->tick_runs, 0);

	tick_run_with(500000, &ds);
	assert_int_equal(doubt_of(&ds, 1)->tick_runs, 0);
	assert_int_equal(doubt_of(&ds, 2)->tick_runs, 0);
}

/*
 * A timed wait the monitor made expire (a doubtful decision too). Thread 1 is
 * woken by thread 2 at 900 and preempts it at 1000 (2 stays runnable).
 * At 2000 thread 1 sleeps on a timed wait and hands the CPU to the
 * recording's own thread (50); its timer expires at 2500 while 50 still
 * holds the CPU, and 2 still waits: 2 would have had the CPU from 2000 on.
 * Thread 1 runs its timed-out turn from 3000 to 3200, sleeps again, and 2,
 * once it runs, wakes it 100 later (less than the timer's 500: proven).
 *  900 WAKEUP of 1 by 2: first record, 0; costs 5 (lost: no chain yet).
 * 1000 OUT 2 (chain starts, 0), IN 1 ready at 900: 0. Costs 10 + 10.
 * 2000 OUT 1 to 50: 20 -> 1980; 1 carries 30.
 * 2500 WAKING, WAKEUP by the timer: the monitor's doing; 1's ready time
 *      moves to its sleep's instant, its delay 30 + 500: both records
 *      clamped to 1980, its last.
 * 3000 IN 1 from 50: the handover's 20 + 1000 of 50's run -> 1980.
 * 3200 OUT 1, its turn's 200 all delay: 1220 -> 1980; IN 2 (ready since
 *      1000): 1220 -> 1980. 3300 WAKEUP by 2: + 10 + 10 -> 2060.
 * Before: the timer's wakeup kept the sleep (30: 2470), 1 ran 2470..2660,
 * 2 began at 2660 and woke it at 2740.
 */
/* What happens at 1500, while 2 waits and 1 runs (timeout_run_with()). */
enum timeout_between {
	NOTHING,
	MOVED, /* 2 moved to CPU 1 (MIGRATE) */
	LOST, /* records lost on CPU 1: 2's switch in may be among them */
	DETACHED, /* 2 detached */
	OTHER_WAKER, /* nothing; 3, on CPU 1 from 3250, wakes 1, not 2 */
};

static void timeout_run_with(struct evs *s, uint32_t k_state,
			     uint32_t k_wakes_at, enum timeout_between what);

static void timeout_run(struct evs *s, uint32_t k_state, uint32_t k_wakes_at)
{
	timeout_run_with(s, k_state, k_wakes_at, NOTHING);
}

static void timeout_run_with(struct evs *s, uint32_t k_state,
			     uint32_t k_wakes_at, enum timeout_between what)
{
	uint32_t waker = what == OTHER_WAKER ? 3 : 2;

	memset(s, 0, sizeof(*s));
	evs_add(s, 900, 0, MKM_EV_WAKEUP, 1, 0, 2, 0);
	evs_add(s, 1000, 0, MKM_EV_SWITCH_OUT, 2, k_state, 1,
		k_state == MKM_TS_RUNNING ? MKM_EVF_PREEMPTED : 0);
	IN_WAIT(s, 1000, 0, 1, 2, 100);
	if (what == MOVED)
		evs_add(s, 1500, 0, MKM_EV_MIGRATE, 2, 1, 0, 0);
	if (what == LOST)
		evs_add(s, 1500, 1, MKM_EV_LOST, 0, 3, 0, 0);
	if (what == DETACHED)
		evs_add(s, 1500, 0, MKM_EV_DETACH, 2, 0, 0, 0);
	OUT(s, 2000, 0, 1, SLEEP, 50);
	evs_add(s, 2500, 0, MKM_EV_WAKING, 1, 0, 50, MKM_EVF_IN_IRQ);
	evs_add(s, 2500, 0, MKM_EV_WAKEUP, 1, 0, 50, MKM_EVF_IN_IRQ);
	IN_WAIT(s, 3000, 0, 1, 50, 500);
	OUT(s, 3200, 0, 1, SLEEP, 2);
	IN_WAIT(s, 3200, 0, 2, 1, 2200);
	if (what == OTHER_WAKER)
		IN_WAIT(s, 3250, 1, 3, 0, 0);
	evs_add(s, k_wakes_at, waker == 2 ? 0 : 1, MKM_EV_WAKEUP, 1, 0, waker,
		0);
	OUT(s, k_wakes_at + 100, 0, 2, SLEEP, 1);
	IN_WAIT(s, k_wakes_at + 100, 0, 1, 2, 100);
}

/* Thread 1's doubt after timeout_run_with() with 50 the recorder and 2
 * runnable, waking 1 at @k_wakes_at. */
static const struct mon_comp_doubt *
timeout_doubt_with(struct evs *s, struct out *o, struct doubts *ds,
		   uint32_t k_wakes_at, enum timeout_between what)
{
	struct mon_compensate_opts opts = { .doubt = collect_doubt, .arg = ds };

	memset(ds, 0, sizeof(*ds));
	own_tid = 50;
	timeout_run_with(s, MKM_TS_RUNNING, k_wakes_at, what);
	assert_int_equal(
		compensate_opts(s, o, test_calibration(), NULL, 0, &opts), 0);
	own_tid = 0;
	return doubt_of(ds, 1);
}

static const struct mon_comp_doubt *timeout_doubt(struct evs *s, struct out *o,
						  struct doubts *ds,
						  uint32_t k_wakes_at)
{
	return timeout_doubt_with(s, o, ds, k_wakes_at, NOTHING);
}

static void test_compensate_timeout_caused(void **state)
{
	static const uint64_t want[] = { 900,  1000, 1000, 1980, 1980, 1980,
					 1980, 1980, 1980, 2060, 2155, 2155 };
	const struct mon_comp_doubt *d1;
	struct doubts ds;
	struct evs s;
	struct out o;

	(void)state;
	d1 = timeout_doubt(&s, &o, &ds, 3300);
	expect_times(&o, &s, want);
	assert_int_equal(d1->timeouts, 1);
	assert_float_equal(d1->timeout_ns, 700, 0.5); /* 500 asleep, 200 run */
	assert_int_equal(d1->timeouts_unproven, 0);
	assert_int_equal(d1->timer_wakeups, 0);
	assert_false(d1->unsure);
}

/* The same where 2, once it ran, took 900 to wake 1, longer than the
 * timer's 500: the timer would have expired unmonitored too, and the
 * 700 taken out is at stake (the times are the rule's all the same). */
static void test_compensate_timeout_unproven(void **state)
{
	const struct mon_comp_doubt *d1;
	struct doubts ds;
	struct evs s;
	struct out o;

	(void)state;
	d1 = timeout_doubt(&s, &o, &ds, 4100);
	assert_int_equal(d1->timeouts, 1);
	assert_int_equal(d1->timeouts_unproven, 1);
	assert_float_equal(d1->at_stake_ns, 700, 0.5);
}

/* Where the order of events does not prove it, the sleep keeps its
 * length (rule 2): thread 2 was asleep, not runnable, when 1 slept, so
 * nothing says it would have woken 1 before its timer; nor where the
 * CPU went to a thread that is not the monitor's. */
static void test_compensate_timeout_not_proven(void **state)
{
	static const uint64_t want[] = { 900,  1000, 1000, 1980, 2470,
					 2470, 2470, 2660, 2660 };
	struct evs s;
	struct out o;
	size_t i;

	(void)state;
	own_tid = 50;
	timeout_run(&s, SLEEP, 3300);
	assert_int_equal(compensate(&s, &o, test_calibration(), 0), 0);
	for (i = 0; i < 9; i++)
		if (o.ev[i].time_ns != want[i])
			fail_msg("record %zu: %" PRIu64 ", want %" PRIu64, i,
				 o.ev[i].time_ns, want[i]);
	own_tid = 60; /* 50 is not the recorder */
	timeout_run(&s, MKM_TS_RUNNING, 3300);
	assert_int_equal(compensate(&s, &o, test_calibration(), 0), 0);
	assert_int_equal(o.ev[4].time_ns, 2470); /* WAKING: the sleep kept */
	assert_true(o.ev[8].time_ns > 2000); /* 2 starts late */
	/* 2 runnable, but moved to CPU 1 before 1 slept: it could not have
	 * had CPU 0, whoever held it. */
	own_tid = 50;
	timeout_run_with(&s, MKM_TS_RUNNING, 3300, MOVED);
	assert_int_equal(compensate(&s, &o, test_calibration(), 0), 0);
	assert_int_equal(o.ev[5].time_ns, 2470); /* WAKING: the sleep kept */
	own_tid = 0;
}

/* A lost record (2's switch in may be among them) or 2's detach between
 * its switch out and 1's sleep: 2's state is no proof, the sleep kept. */
static void test_compensate_timeout_not_after_lost_or_detach(void **state)
{
	struct doubts ds;
	struct evs s;
	struct out o;

	(void)state;
	assert_int_equal(timeout_doubt_with(&s, &o, &ds, 3300, LOST)->timeouts,
			 0);
	assert_int_equal(
		timeout_doubt_with(&s, &o, &ds, 3300, DETACHED)->timeouts, 0);
}

/* The timeout blamed 2; 3, which ran only 50 before it woke 1, is no
 * check of it: unproven, though 3 was quicker than the timer. */
static void test_compensate_timeout_checked_against_its_waker(void **state)
{
	const struct mon_comp_doubt *d1;
	struct doubts ds;
	struct evs s;
	struct out o;

	(void)state;
	d1 = timeout_doubt_with(&s, &o, &ds, 3300, OTHER_WAKER);
	assert_int_equal(d1->timeouts, 1);
	assert_int_equal(d1->timeouts_unproven, 1);
}

/* test_calibration() measured as calibrations are since format 1.3: the
 * switch figure per switch (MON_COST_PER_SWITCH), not per record. */
static struct mon_calibration *per_switch_calibration(void)
{
	static struct trace_calibration cpu[2];
	static struct mon_calibration cal = {
		.hdr = { .version = 1, .nr_cpus = 2, .kernel = "test" },
		.cpu = cpu
	};

	memcpy(cpu, test_calibration()->cpu, sizeof(cpu));
	cpu[0].cost[MON_COST_SWITCH].flags |= MON_COST_PER_SWITCH;
	cpu[1].cost[MON_COST_SWITCH].flags |= MON_COST_PER_SWITCH;
	return &cal;
}

/*
 * MKM's case again (test_compensate_one_cpu), the switch figure per
 * switch: its cost, 10, is charged once per switch, whether the switch is
 * one SWITCH record or a SWITCH_OUT and SWITCH_IN pair.
 * 1000 SWITCH 1 -> 2: first sight, no delay; costs 10.
 * 2000 MARK: 10 -> 1990; costs 3.
 * 3000 SWITCH 2 -> 1, 1 ready at 2500: 13 for both halves -> 2987, one
 *      record; thread 2 carries 13 + 10.
 * 4000 OUT 1 to idle: 13 + 10 -> 3977.
 * 5000 IN 2 from idle, ready at 4800: its own 23 -> 4977.
 */
static void test_compensate_switch_charged_once(void **state)
{
	struct evs s = { 0 }, pairs = { 0 };
	struct out o;
	static const uint64_t want[] = { 1000, 1990, 2987, 3977, 4977 };
	static const uint64_t want_pairs[] = { 1000, 1000, 1990, 2987,
					       2987, 3977, 4977 };
	/* Per record, as test_compensate_one_cpu: a SWITCH costs two. */
	static const uint64_t want_old[] = { 1000, 1980, 2977, 3957, 4967 };

	(void)state;
	for (int one = 1; one >= 0; one--) {
		struct evs *p = one ? &s : &pairs;

		evs_switch(p, one, 1000, 0, 1, SLEEP, 0, 2, 100, 0);
		MARK(p, 2000, 0, 2);
		evs_switch(p, one, 3000, 0, 2, SLEEP, 0, 1, 500, 0);
		evs_switch(p, one, 4000, 0, 1, SLEEP, 0, 0, 0, 0);
		evs_switch(p, one, 5000, 0, 0, MKM_TS_RUNNING, 0, 2, 200, 0);
	}
	assert_int_equal(s.n, 5);
	assert_int_equal(compensate(&s, &o, per_switch_calibration(), 0), 0);
	expect_times(&o, &s, want);
	assert_int_equal(o.ev[2].type, MKM_EV_SWITCH);
	assert_int_equal(compensate(&pairs, &o, per_switch_calibration(), 0),
			 0);
	expect_times(&o, &pairs, want_pairs);
	assert_int_equal(compensate(&s, &o, test_calibration(), 0), 0);
	expect_times(&o, &s, want_old);
}

/*
 * A SWITCH whose halves move by different amounts goes out as the two:
 * thread 1, woken from CPU 1 (no delay there) 5 ns before the switch,
 * starts 5 ns after the switch would have begun unmonitored, while
 * thread 2 leaves 13 ns earlier. The CPU's later seq numbers move up.
 */
static void test_compensate_switch_split(void **state)
{
	struct evs s = { 0 };
	struct out o;
	struct tl_config cfg = { .nr_cpus = 2 };
	struct tl_stats st;
	struct tl *tl;

	(void)state;
	evs_switch(&s, true, 1000, 0, 1, SLEEP, 0, 2, 0, 0);
	MARK(&s, 2000, 0, 2);
	evs_add(&s, 2995, 1, MKM_EV_WAKEUP, 1, 0, 3, 0);
	evs_switch(&s, true, 3000, 0, 2, SLEEP, 0, 1, 5, 0);
	MARK(&s, 4000, 0, 1);
	assert_int_equal(compensate(&s, &o, per_switch_calibration(), 0), 0);
	assert_int_equal(o.n, s.n + 1);
	/* In input order: SWITCH, MARK, WAKEUP, then the split SWITCH. */
	assert_int_equal(o.ev[3].type, MKM_EV_SWITCH_OUT);
	assert_int_equal(o.ev[3].tid, 2);
	assert_int_equal(o.ev[3].time_ns, 2987);
	assert_int_equal(o.ev[3].seq, 2);
	assert_int_equal(o.ev[4].type, MKM_EV_SWITCH_IN);
	assert_int_equal(o.ev[4].tid, 1);
	assert_int_equal(o.ev[4].unique_id, 1001);
	assert_int_equal(o.ev[4].arg1, 2);
	assert_int_equal(o.ev[4].time_ns, 2995);
	assert_int_equal(o.ev[4].seq, 3);
	/* The MARK: the chain's 5 and the switch's 10 (once) -> 3985. */
	assert_int_equal(o.ev[5].type, MKM_EV_MARK);
	assert_int_equal(o.ev[5].time_ns, 3985);
	assert_int_equal(o.ev[5].seq, 4);
	assert_int_equal(tl_create(&tl, &cfg), 0);
	assert_int_equal(tl_feed(tl, o.ev, o.n), 0);
	assert_int_equal(tl_flush(tl), 0);
	assert_int_equal(tl_stats(tl, &st), 0);
	assert_int_equal(st.lost, 0);
	assert_int_equal(st.anomalies, 0);
	EXPECT(tl, 1, { 1000, 2990, TL_SLEEP, 0 }, { 2990, 2995, TL_RUNQ, 0 },
	       { 2995, 3985, TL_RUN, 0 });
	tl_destroy(tl);
}

/*
 * evs_switch_run() as SWITCH records and as pairs, with one calibration
 * (per switch): the same compensated timelines.
 */
static void test_compensate_switch_same_as_pairs(void **state)
{
	static struct evs one, two;
	static struct out oa, ob;
	struct tl_config cfg = { .nr_cpus = 2 };
	struct tl_stats sa, sb;
	struct tl *a, *b;

	(void)state;
	evs_switch_run(&one, true);
	evs_switch_run(&two, false);
	assert_int_equal(compensate(&one, &oa, per_switch_calibration(), 0), 0);
	assert_int_equal(compensate(&two, &ob, per_switch_calibration(), 0), 0);
	assert_int_equal(tl_create(&a, &cfg), 0);
	assert_int_equal(tl_feed(a, oa.ev, oa.n), 0);
	assert_int_equal(tl_flush(a), 0);
	assert_int_equal(tl_create(&b, &cfg), 0);
	assert_int_equal(tl_feed(b, ob.ev, ob.n), 0);
	assert_int_equal(tl_flush(b), 0);
	expect_same_timelines(a, b);
	assert_int_equal(tl_stats(a, &sa), 0);
	assert_int_equal(tl_stats(b, &sb), 0);
	assert_int_equal(sa.lost, 0);
	assert_int_equal(sb.lost, 0);
	/* Compensation moved something: the test compares moved times. */
	assert_true(memcmp(oa.ev, one.ev, one.n * sizeof(one.ev[0])));
	tl_destroy(a);
	tl_destroy(b);
}

/* ===== Bounds (mon_pipeline.h, struct trace_bounds) ===== */

struct bcoll {
	struct trace_bounds b[8];
	size_t n, calls;
};

static void collect_bounds(void *arg, const struct trace_bounds *b, size_t n)
{
	struct bcoll *bc = arg;

	assert_true(n <= 8);
	memcpy(bc->b, b, n * sizeof(*b));
	bc->n = n;
	bc->calls++;
}

static const struct trace_bounds *bounds_of(const struct bcoll *bc,
					    uint32_t tid)
{
	size_t i;

	for (i = 0; i < bc->n; i++)
		if (bc->b[i].tid == tid)
			return &bc->b[i];
	fail_msg("no bounds for thread %u", tid);
	return NULL;
}

/* Switch 10 ns and mark @mark_ns on both CPUs, the mark's interval as
 * stored (the normal approximation's) +-@stored_ps over @trials, the
 * others exact (an interval of 0). */
static struct mon_calibration *
trials_calibration(int64_t mark_ns, int64_t stored_ps, uint32_t trials)
{
	static struct trace_calibration cpu[2];
	static struct mon_calibration cal = {
		.hdr = { .version = 1, .nr_cpus = 2, .kernel = "test" },
		.cpu = cpu
	};
	unsigned int c;

	memset(cpu, 0, sizeof(cpu));
	for (c = 0; c < 2; c++) {
		cpu[c].cpu = c;
		set_cost(&cpu[c], MON_COST_SWITCH, 10);
		set_cost(&cpu[c], MON_COST_MARK, mark_ns);
		cpu[c].cost[MON_COST_MARK].ci99_ps = (uint64_t)stored_ps;
		cpu[c].cost[MON_COST_MARK].samples = trials;
	}
	return &cal;
}

/*
 * The same, the mark's 99% interval +-@half_ns as the bounds take it,
 * over 10 trials: Student's 3.250 is 1625/1288 of the stored 2.576, so a
 * stored 10.304 ns is 13 ns exactly (@half_ns a multiple of 13).
 */
static struct mon_calibration *interval_calibration(int64_t mark_ns,
						    int64_t half_ns)
{
	assert_int_equal(half_ns % 13, 0);
	return trials_calibration(mark_ns, half_ns / 13 * 10304, 10);
}

/*
 * Thread 1 switches in from idle at 1000, writes five marks (2000 to
 * 6000) and sleeps at 7000: its run, raw 6000, compensated 6000 - 10 -
 * 5 x mark. Each mark's cost is known to +-half: the run, its end and
 * its life may be 5 x half either way, exactly; its start did not move.
 */
static void bounds_run(int64_t mark_ns, int64_t half_ns, struct bcoll *bc,
		       struct out *o)
{
	struct mon_compensate_opts opts = { .bounds = collect_bounds,
					    .arg = bc };
	struct evs s = { 0 };
	int k;

	memset(bc, 0, sizeof(*bc));
	IN_WAIT(&s, 1000, 0, 1, 0, 100);
	for (k = 0; k < 5; k++)
		MARK(&s, 2000 + 1000 * (uint64_t)k, 0, 1);
	OUT(&s, 7000, 0, 1, SLEEP, 0);
	assert_int_equal(compensate_opts(&s, o,
					 interval_calibration(mark_ns, half_ns),
					 NULL, 0, &opts),
			 0);
	assert_int_equal(bc->calls, 1);
	assert_int_equal(bc->n, 1);
}

static void test_mon_stage_compensate_bounds_calibration_counts(void **state)
{
	const struct trace_bounds *b;
	struct trace_bound r;
	struct bcoll bc;
	struct out o;

	(void)state;
	bounds_run(300, 104, &bc, &o);
	b = bounds_of(&bc, 1);
	/* The run, compensated 6000 - 10 - 1500, is 5 x 104 off either way
	 * with marks of 196 or 404: as much for its end. */
	r = b->part[TRACE_BOUND_CALIBRATION][TRACE_BOUND_RUN];
	assert_int_equal(r.below_ns, 520);
	assert_int_equal(r.above_ns, 520);
	r = b->part[TRACE_BOUND_CALIBRATION][TRACE_BOUND_END];
	assert_int_equal(r.below_ns, 520);
	assert_int_equal(r.above_ns, 520);
	r = b->part[TRACE_BOUND_CALIBRATION][TRACE_BOUND_START];
	assert_int_equal(r.below_ns, 0);
	assert_int_equal(r.above_ns, 0);
	/* No decision at stake, nothing lost, wakeups not recorded. */
	r = b->part[TRACE_BOUND_SCHEDULING][TRACE_BOUND_RUNQ];
	assert_int_equal(r.below_ns + r.above_ns, 0);
	assert_false(b->flags & TRACE_BOUND_LOST);
	assert_true(b->flags & TRACE_BOUND_NO_WAKEUPS);
	/* Its switch in from idle and its switch out to idle: no split. */
	assert_int_equal(b->split_ends, 2);
	assert_int_equal(b->split_unknown, 2);
	assert_true(b->flags & TRACE_BOUND_SPLIT_PARTIAL);
}

/*
 * Records lost in a thread's life make its bounds say so, whether a LOST
 * record tells it or only a gap in the CPU's sequence (a damaged chunk the
 * reader skipped); a window that starts past sequence 0 is no loss.
 */
static void test_mon_stage_compensate_bounds_lost_by_gap(void **state)
{
	struct bcoll bc;
	struct mon_compensate_opts opts = { .bounds = collect_bounds,
					    .arg = &bc };
	int gap;

	(void)state;
	for (gap = 0; gap <= 1; gap++) {
		struct evs s = { 0 };
		struct out o;

		memset(&bc, 0, sizeof(bc));
		s.seq[0] = 5;
		IN_WAIT(&s, 1000, 0, 1, 0, 100);
		MARK(&s, 2000, 0, 1);
		if (gap)
			s.seq[0] += 3; /* three records of CPU 0 never read */
		MARK(&s, 3000, 0, 1);
		OUT(&s, 7000, 0, 1, SLEEP, 0);
		assert_int_equal(compensate_opts(&s, &o,
						 interval_calibration(300, 104),
						 NULL, 0, &opts),
				 0);
		assert_int_equal(
			!!(bounds_of(&bc, 1)->flags & TRACE_BOUND_LOST), gap);
	}
}

/* A wider interval widens the bounds by the counts times the widening. */
static void test_mon_stage_compensate_bounds_widen_by_counts(void **state)
{
	struct trace_bound a, b;
	struct bcoll bc;
	struct out o;

	(void)state;
	bounds_run(300, 13, &bc, &o);
	a = bounds_of(&bc, 1)->part[TRACE_BOUND_CALIBRATION][TRACE_BOUND_LIFE];
	bounds_run(300, 104, &bc, &o);
	b = bounds_of(&bc, 1)->part[TRACE_BOUND_CALIBRATION][TRACE_BOUND_LIFE];
	assert_int_equal(a.below_ns, 5 * 13);
	assert_int_equal(b.below_ns - a.below_ns, 5 * 91);
	assert_int_equal(b.above_ns - a.above_ns, 5 * 91);
}

/*
 * Few trials, a wider interval: the same stored interval (the normal
 * approximation's 2.576 standard errors) is Student's 9.925 over 3
 * trials, 3.250 over 10, 2.750 over 31 (n - 1 degrees of freedom).
 */
static void test_mon_stage_compensate_bounds_student_t(void **state)
{
	/* 103.04 ns is 2576 x 40 ps: 9925 x 40 over 3 trials, 1375 x 80
	 * over 31. */
	static const struct {
		uint32_t trials;
		int64_t stored_ps, run_ns;
	} want[] = { { 3, 103040, 5 * 397 },
		     { 10, 103040, 5 * 130 },
		     { 31, 103040, 5 * 110 } };
	struct mon_compensate_opts opts = { .bounds = collect_bounds };
	size_t k;

	(void)state;
	assert_true(fabs(mon_student_t995(1) - 63.657) < 1e-9);
	assert_true(fabs(mon_student_t995(31) - 2.744) < 0.0005);
	assert_true(fabs(mon_student_t995(1000) - 2.5808) < 0.0005);
	assert_true(mon_student_t995(31) < mon_student_t995(30));
	for (k = 0; k < ARRAY_SIZE(want); k++) {
		struct evs s = { 0 };
		struct bcoll bc = { 0 };
		struct trace_bound r;
		struct out o;
		int m;

		opts.arg = &bc;
		IN_WAIT(&s, 1000, 0, 1, 0, 100);
		for (m = 0; m < 5; m++)
			MARK(&s, 2000 + 1000 * (uint64_t)m, 0, 1);
		OUT(&s, 7000, 0, 1, SLEEP, 0);
		assert_int_equal(compensate_opts(&s, &o,
						 trials_calibration(
							 500, want[k].stored_ps,
							 want[k].trials),
						 NULL, 0, &opts),
				 0);
		r = bounds_of(&bc, 1)
			    ->part[TRACE_BOUND_CALIBRATION][TRACE_BOUND_RUN];
		assert_int_equal(r.below_ns, want[k].run_ns);
		assert_int_equal(r.above_ns, want[k].run_ns);
	}
}

/*
 * The truth inside: the same run unmonitored, its marks costing what the
 * calibration's interval allows but not its mean (330 ns, against 300
 * +-52), ran 6000 - 10 - 5 x 330 = 4340 ns; the compensated run (6000 -
 * 10 - 5 x 300 = 4490) is off by 150, within its 260. Where the marks
 * cost 360 (outside the interval), it is not.
 */
static void test_mon_stage_compensate_bounds_hold_the_truth(void **state)
{
	struct tl_config cfg = { .nr_cpus = 2 };
	const struct trace_bounds *b;
	struct trace_bound r;
	uint64_t run[TL_NR_STATES];
	struct bcoll bc;
	struct out o;
	struct tl *tl;
	int64_t i;
	uint64_t comp;

	(void)state;
	bounds_run(300, 52, &bc, &o);
	assert_int_equal(tl_create(&tl, &cfg), 0);
	assert_int_equal(tl_feed(tl, o.ev, o.n), 0);
	assert_int_equal(tl_flush(tl), 0);
	i = tl_find(tl, 1);
	assert_true(i >= 0);
	assert_int_equal(
		acct_msa(tl, ACCT_THREAD, (size_t)i, TL_NR_STATES, run), 0);
	comp = run[TL_RUN] + run[TL_RUN_USER] + run[TL_RUN_SYS] +
	       run[TL_INTERRUPTED];
	tl_destroy(tl);
	assert_int_equal(comp, 4490);
	b = bounds_of(&bc, 1);
	assert_int_equal(mon_bound_total(b, TRACE_BOUND_RUN, &r), 0);
	assert_true(comp - r.below_ns <= 4340 && 4340 <= comp + r.above_ns);
	assert_false(comp - r.below_ns <= 6000 - 10 - 5 * 360);
}

/*
 * The doubt's stream (doubt_run()): thread 1, preempted after 500 us of
 * the monitor's cost in a run of 1 ms, waits 10 ms. The decision is the
 * monitor's with a chance 0.5; alone, its 99% bound is the whole wait,
 * in its runq and in the end of every thread after it: thread 2's end
 * came before it.
 */
static void test_mon_stage_compensate_bounds_preempted(void **state)
{
	struct mon_compensate_opts opts;
	struct trace_bound r;
	struct bcoll bc;
	struct evs s = { 0 };
	struct out o;
	int k;

	(void)state;
	memset(&bc, 0, sizeof(bc));
	opts = (struct mon_compensate_opts){ .bounds = collect_bounds,
					     .arg = &bc };
	OUT(&s, 1000000, 0, 2, SLEEP, 1);
	IN_WAIT(&s, 1000000, 0, 1, 2, 0);
	for (k = 1; k <= 5; k++)
		MARK(&s, 1000000 + 100000 * (uint64_t)k, 0, 1);
	evs_add(&s, 2000000, 0, MKM_EV_SWITCH_OUT, 1, MKM_TS_RUNNING, 2,
		MKM_EVF_PREEMPTED);
	IN_WAIT(&s, 2000000, 0, 2, 1, 0);
	OUT(&s, 12000000, 0, 2, SLEEP, 1);
	IN_WAIT(&s, 12000000, 0, 1, 2, 10000000);
	OUT(&s, 13000000, 0, 1, SLEEP, 0);
	assert_int_equal(
		compensate_opts(&s, &o, dear_calibration(), NULL, 0, &opts), 0);
	r = bounds_of(&bc, 1)->part[TRACE_BOUND_SCHEDULING][TRACE_BOUND_RUNQ];
	assert_int_equal(r.below_ns, 10000000);
	assert_int_equal(r.above_ns, 10000000);
	r = bounds_of(&bc, 1)->part[TRACE_BOUND_SCHEDULING][TRACE_BOUND_END];
	assert_int_equal(r.above_ns, 10000000);
	r = bounds_of(&bc, 1)->part[TRACE_BOUND_SCHEDULING][TRACE_BOUND_RUN];
	assert_int_equal(r.above_ns, 0);
	r = bounds_of(&bc, 2)->part[TRACE_BOUND_SCHEDULING][TRACE_BOUND_END];
	assert_int_equal(r.above_ns, 0);
	/* The preempted thread's split is measured at its switch in. */
	assert_int_equal(bounds_of(&bc, 1)->split_ends, 4);
}

/*
 * Preempted after short runs (stress-ng's mq stressor): 20 times thread 1
 * runs 100 us with one 10 us mark and is preempted, and waits 1 ms. Each
 * decision is the monitor's with a chance of 10 us against the 100 us run
 * (not against the 1 ms granularity: 0.01); twenty of them: 20 x 0.1 x 1
 * ms, plus 2.576 standard deviations, sqrt(20 x 0.09) ms.
 */
static void test_mon_stage_compensate_bounds_short_preempted_runs(void **state)
{
	struct mon_compensate_opts opts;
	struct trace_bound r;
	struct bcoll bc;
	struct evs s = { 0 };
	struct out o;
	uint64_t t = 1000000;
	int k;

	(void)state;
	memset(&bc, 0, sizeof(bc));
	opts = (struct mon_compensate_opts){ .bounds = collect_bounds,
					     .arg = &bc };
	OUT(&s, t, 0, 2, MKM_TS_RUNNING, 1);
	IN_WAIT(&s, t, 0, 1, 2, 0);
	for (k = 0; k < 20; k++) {
		MARK(&s, t + 50000, 0, 1);
		evs_add(&s, t + 100000, 0, MKM_EV_SWITCH_OUT, 1, MKM_TS_RUNNING,
			2, MKM_EVF_PREEMPTED);
		IN_WAIT(&s, t + 100000, 0, 2, 1, 0);
		t += 1100000;
		OUT(&s, t, 0, 2, MKM_TS_RUNNING, 1);
		IN_WAIT(&s, t, 0, 1, 2, 1000000);
	}
	OUT(&s, t + 1000, 0, 1, SLEEP, 0);
	assert_int_equal(compensate_opts(&s, &o, interval_calibration(10000, 0),
					 NULL, 0, &opts),
			 0);
	r = bounds_of(&bc, 1)->part[TRACE_BOUND_SCHEDULING][TRACE_BOUND_RUNQ];
	/* The cost in each run: the mark's 10 us (the switch's is paid
	 * before the run's start is taken). */
	assert_float_equal((double)r.above_ns,
			   20 * 0.1 * 1e6 + 2.576 * sqrt(20 * 0.1 * 0.9) * 1e6,
			   2);
	assert_true(r.above_ns < 20 * 1000000);
}

/*
 * The split: thread 2 is woken at 1000 and switched in at 2000, but the
 * kernel's wait (its SWITCH_IN's) is 700: the kernel ends the wait 300
 * before the tracepoint, so its RUNQ of thread 2 is 300 shorter, its run
 * of thread 2 300 longer, and its run of thread 1 (switched out at the
 * same clock read) 300 shorter.
 */
static void test_mon_stage_compensate_bounds_split(void **state)
{
	struct mon_compensate_opts opts;
	const struct trace_bounds *b1, *b2;
	struct bcoll bc;
	struct evs s = { 0 };
	struct out o;

	(void)state;
	memset(&bc, 0, sizeof(bc));
	opts = (struct mon_compensate_opts){ .bounds = collect_bounds,
					     .arg = &bc };
	OUT(&s, 500, 0, 2, SLEEP, 1);
	IN_WAIT(&s, 500, 0, 1, 2, 0);
	evs_add(&s, 1000, 0, MKM_EV_WAKEUP, 2, 0, 1, 0);
	OUT(&s, 2000, 0, 1, SLEEP, 2);
	IN_WAIT(&s, 2000, 0, 2, 1, 700);
	OUT(&s, 3000, 0, 2, SLEEP, 0);
	assert_int_equal(
		compensate_opts(&s, &o, test_calibration(), NULL, 0, &opts), 0);
	b1 = bounds_of(&bc, 1);
	b2 = bounds_of(&bc, 2);
	assert_int_equal(b2->part[TRACE_BOUND_SPLIT][TRACE_BOUND_RUNQ].below_ns,
			 300);
	assert_int_equal(b2->part[TRACE_BOUND_SPLIT][TRACE_BOUND_RUNQ].above_ns,
			 0);
	assert_int_equal(b2->part[TRACE_BOUND_SPLIT][TRACE_BOUND_RUN].above_ns,
			 300);
	assert_int_equal(b1->part[TRACE_BOUND_SPLIT][TRACE_BOUND_RUN].below_ns,
			 300);
	assert_int_equal(b1->part[TRACE_BOUND_SPLIT][TRACE_BOUND_RUN].above_ns,
			 0);
	/* Thread 2's first switch out (its start) and its last (to idle),
	 * thread 1's first switch in: not measurable. */
	assert_int_equal(b2->split_ends, 3);
	assert_int_equal(b2->split_unknown, 2);
	assert_int_equal(b1->split_unknown, 1);
}

/*
 * The waker that ran on to the tick (tick_run_with()): each of its two
 * runs was the monitor's with a chance of the delay that moved its wakeup
 * against the ticks over the 4 ms tick (505 us, then 5 us); the 4 ms wait
 * of each is at stake in thread 1's runq and in thread 2's run, and in the
 * end of every thread after it.
 */
static void test_mon_stage_compensate_bounds_tick_run(void **state)
{
	double p1 = 505000 / 4e6, p2 = 5000 / 4e6, w = 4e6, want;
	struct trace_bound r;
	struct doubts ds;
	struct bcoll bc;

	(void)state;
	memset(&bc, 0, sizeof(bc));
	tick_run_bounds(4000000, &ds, &bc);
	want = fmin(2 * w, (p1 + p2) * w + 2.576 * sqrt((p1 * (1 - p1) +
							 p2 * (1 - p2)) *
							w * w));
	r = bounds_of(&bc, 1)->part[TRACE_BOUND_SCHEDULING][TRACE_BOUND_RUNQ];
	assert_float_equal((double)r.above_ns, want, 2000);
	r = bounds_of(&bc, 2)->part[TRACE_BOUND_SCHEDULING][TRACE_BOUND_RUN];
	assert_float_equal((double)r.above_ns, want, 2000);
	/* Thread 2's own waits: after its preemptions, a few microseconds of
	 * the monitor's cost in 4 ms runs; not the tick's stake. */
	r = bounds_of(&bc, 2)->part[TRACE_BOUND_SCHEDULING][TRACE_BOUND_RUNQ];
	assert_true(r.above_ns < 100000);
	/* Thread 1's last record came after both (and after thread 2's
	 * preemptions' few microseconds). */
	r = bounds_of(&bc, 1)->part[TRACE_BOUND_SCHEDULING][TRACE_BOUND_END];
	assert_true(r.above_ns + 2000 >= want && r.above_ns < want + 100000);
	/* Thread 3 slept before either. */
	r = bounds_of(&bc, 3)->part[TRACE_BOUND_SCHEDULING][TRACE_BOUND_END];
	assert_int_equal(r.above_ns, 0);
}

/* Records lost in a thread's life: its bounds say so. */
static void test_mon_stage_compensate_bounds_lost(void **state)
{
	struct mon_compensate_opts opts;
	struct bcoll bc;
	struct evs s = { 0 };
	struct out o;

	(void)state;
	memset(&bc, 0, sizeof(bc));
	opts = (struct mon_compensate_opts){ .bounds = collect_bounds,
					     .arg = &bc };
	IN_WAIT(&s, 1000, 0, 1, 0, 100);
	IN_WAIT(&s, 1500, 1, 2, 0, 100);
	evs_add(&s, 2000, 0, MKM_EV_LOST, 0, 3, 0, 0);
	s.seq[0] += 2; /* seq counts the three lost */
	OUT(&s, 3000, 0, 1, SLEEP, 0);
	OUT(&s, 1800, 1, 2, SLEEP, 0);
	assert_int_equal(
		compensate_opts(&s, &o, test_calibration(), NULL, 0, &opts), 0);
	assert_true(bounds_of(&bc, 1)->flags & TRACE_BOUND_LOST);
	assert_false(bounds_of(&bc, 2)->flags & TRACE_BOUND_LOST);
}

static void test_mon_bound_total_adds_parts(void **state)
{
	struct trace_bounds b = { .tid = 1 };
	struct trace_bound r;

	(void)state;
	b.part[TRACE_BOUND_CALIBRATION][TRACE_BOUND_RUNQ] =
		(struct trace_bound){ 1, 2 };
	b.part[TRACE_BOUND_SCHEDULING][TRACE_BOUND_RUNQ] =
		(struct trace_bound){ 10, 20 };
	b.part[TRACE_BOUND_SPLIT][TRACE_BOUND_RUNQ] =
		(struct trace_bound){ 100, 0 };
	b.part[TRACE_BOUND_SPLIT][TRACE_BOUND_RUN] =
		(struct trace_bound){ 5000, 5000 };
	assert_int_equal(mon_bound_total(&b, TRACE_BOUND_RUNQ, &r), 0);
	assert_int_equal(r.below_ns, 111);
	assert_int_equal(r.above_ns, 22);
	assert_int_equal(mon_bound_total(&b, TRACE_BOUND_FIGURES, &r), -EINVAL);
	assert_int_equal(mon_bound_total(NULL, TRACE_BOUND_RUN, &r), -EINVAL);
	assert_int_equal(mon_bound_total(&b, TRACE_BOUND_RUN, NULL), -EINVAL);
}

/* end - start: the end's bound, and the start's turned round. */
static void test_mon_bound_elapsed_turns_the_start(void **state)
{
	struct trace_bounds a = { .tid = 1 }, z = { .tid = 2 };
	struct trace_bound r;

	(void)state;
	a.part[TRACE_BOUND_CALIBRATION][TRACE_BOUND_START] =
		(struct trace_bound){ 1, 2 };
	z.part[TRACE_BOUND_SCHEDULING][TRACE_BOUND_END] =
		(struct trace_bound){ 30, 40 };
	assert_int_equal(mon_bound_elapsed(&a, &z, &r), 0);
	assert_int_equal(r.below_ns, 32);
	assert_int_equal(r.above_ns, 41);
	assert_int_equal(mon_bound_elapsed(NULL, &z, &r), -EINVAL);
	assert_int_equal(mon_bound_elapsed(&a, &z, NULL), -EINVAL);
}

/* The trace sink writes the bounds (mkm replay's BOUNDS chunk); they read
 * back as given; a trace without them is -ENOENT. */
static void test_mon_bounds_load_round_trip(void **state)
{
	char path[] = "/tmp/test_bounds_XXXXXX";
	struct trace_info info = { .nr_cpus = 2 };
	struct mon_compensate_opts opts;
	struct mon_bounds got;
	struct mon_pipeline *pl;
	struct mon_source *src;
	struct mon_stage *st;
	struct mon_sink *sk;
	struct bcoll bc;
	struct evs s = { 0 };
	struct src p = { .s = &s };
	struct trace_writer *w;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	memset(&bc, 0, sizeof(bc));
	opts = (struct mon_compensate_opts){ .bounds = collect_bounds,
					     .arg = &bc };
	IN_WAIT(&s, 1000, 0, 1, 0, 100);
	MARK(&s, 2000, 0, 1);
	OUT(&s, 3000, 0, 1, SLEEP, 0);
	IN_WAIT(&s, 1500, 1, 2, 0, 100);
	OUT(&s, 2500, 1, 2, SLEEP, 0);
	assert_int_equal(mon_source_new(&src, &src_ops, &p, &info), 0);
	assert_int_equal(mon_pipeline_create(&pl, src), 0);
	assert_int_equal(mon_stage_order(&st), 0);
	assert_int_equal(mon_pipeline_add_stage(pl, st), 0);
	assert_int_equal(mon_stage_compensate_opts(
				 &st, interval_calibration(300, 26), &opts),
			 0);
	assert_int_equal(mon_pipeline_add_stage(pl, st), 0);
	assert_int_equal(mon_sink_trace(&sk, path, &info), 0);
	assert_int_equal(mon_pipeline_add_sink(pl, sk), 0);
	assert_int_equal(mon_pipeline_run(pl), 0);
	mon_pipeline_destroy(pl);
	assert_int_equal(bc.n, 2);
	assert_int_equal(mon_bounds_load(&got, path), 0);
	assert_int_equal(got.n, 2);
	assert_memory_equal(got.b, bc.b, 2 * sizeof(*got.b));
	assert_ptr_equal(mon_bounds_find(&got, 2), &got.b[1]);
	assert_null(mon_bounds_find(&got, 3));
	assert_int_equal(
		got.b[0].part[TRACE_BOUND_CALIBRATION][TRACE_BOUND_RUN].below_ns,
		26);
	mon_bounds_free(&got);
	assert_null(got.b);
	/* An uncompensated trace: no bounds. */
	assert_int_equal(trace_writer_open(&w, path, &info), 0);
	assert_int_equal(trace_writer_events(w, s.ev, s.n), 0);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(mon_bounds_load(&got, path), -ENOENT);
	assert_int_equal(mon_bounds_load(NULL, path), -EINVAL);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compensate_one_cpu),
		cmocka_unit_test(test_compensate_switch_charged_once),
		cmocka_unit_test(test_compensate_switch_split),
		cmocka_unit_test(test_compensate_switch_same_as_pairs),
		cmocka_unit_test(test_compensate_two_cpus),
		cmocka_unit_test(test_compensate_wakeup_across_cpus),
		cmocka_unit_test(test_compensate_lost_gap),
		cmocka_unit_test(test_compensate_own_thread),
		cmocka_unit_test(test_compensate_keeps_order),
		cmocka_unit_test(test_compensate_refuses),
		cmocka_unit_test(test_mon_stage_compensate_refuses_meaningless),
		cmocka_unit_test(
			test_compensate_refuses_meaningless_stream_calibration),
		cmocka_unit_test(test_compensate_judges_old_calibration),
		cmocka_unit_test(test_compensate_doubt_preempted_after_cost),
		cmocka_unit_test(test_compensate_doubt_blocked_is_sure),
		cmocka_unit_test(test_compensate_doubt_timer_wakeup),
		cmocka_unit_test(test_compensate_doubt_plain_sleep),
		cmocka_unit_test(test_compensate_doubt_wakeup_waits),
		cmocka_unit_test(test_compensate_doubt_wait_without_wakeups),
		cmocka_unit_test(test_compensate_doubt_waker_ran_to_tick),
		cmocka_unit_test(test_compensate_timeout_caused),
		cmocka_unit_test(test_compensate_timeout_unproven),
		cmocka_unit_test(test_compensate_timeout_not_proven),
		cmocka_unit_test(
			test_compensate_timeout_not_after_lost_or_detach),
		cmocka_unit_test(
			test_compensate_timeout_checked_against_its_waker),
		cmocka_unit_test(
			test_mon_stage_compensate_bounds_calibration_counts),
		cmocka_unit_test(test_mon_stage_compensate_bounds_lost_by_gap),
		cmocka_unit_test(
			test_mon_stage_compensate_bounds_widen_by_counts),
		cmocka_unit_test(test_mon_stage_compensate_bounds_student_t),
		cmocka_unit_test(
			test_mon_stage_compensate_bounds_hold_the_truth),
		cmocka_unit_test(test_mon_stage_compensate_bounds_preempted),
		cmocka_unit_test(
			test_mon_stage_compensate_bounds_short_preempted_runs),
		cmocka_unit_test(test_mon_stage_compensate_bounds_split),
		cmocka_unit_test(test_mon_stage_compensate_bounds_tick_run),
		cmocka_unit_test(test_mon_stage_compensate_bounds_lost),
		cmocka_unit_test(test_mon_bound_total_adds_parts),
		cmocka_unit_test(test_mon_bound_elapsed_turns_the_start),
		cmocka_unit_test(test_mon_bounds_load_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
