/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evstream.h - synthetic mkm event streams for the library's unit tests:
 * a builder that numbers each CPU's records as the kernel does, and checks
 * of a rebuilt timeline against a hand-written expectation.
 */
#ifndef TESTS_UNIT_EVSTREAM_H
#define TESTS_UNIT_EVSTREAM_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "libmonitor.h"

#define EVS_MAX 512
#define EVS_CPUS 8

struct evs {
	struct mkm_event ev[EVS_MAX];
	size_t n;
	uint32_t seq[EVS_CPUS];
};

static inline struct mkm_event *evs_add(struct evs *s, uint64_t t,
					unsigned int cpu, unsigned int type,
					uint32_t tid, uint32_t a0, uint32_t a1,
					unsigned int flags)
{
	struct mkm_event *e;

	assert_true(s->n < EVS_MAX && cpu < EVS_CPUS);
	e = &s->ev[s->n++];
	memset(e, 0, sizeof(*e));
	e->time_ns = t;
	e->cpu = (uint16_t)cpu;
	e->type = (uint8_t)type;
	e->tid = tid;
	e->unique_id = tid + 1000;
	e->arg0 = a0;
	e->arg1 = a1;
	e->flags = (uint8_t)flags;
	e->seq = s->seq[cpu]++;
	return e;
}

/* Shorthands for the common records. */
#define ATTACH(s, t, c, tid, ts, on) \
	evs_add(s, t, c, MKM_EV_ATTACH, tid, ts, on, 0)
#define OUT(s, t, c, tid, ts, next) \
	evs_add(s, t, c, MKM_EV_SWITCH_OUT, tid, ts, next, 0)
#define IN(s, t, c, tid, prev) \
	evs_add(s, t, c, MKM_EV_SWITCH_IN, tid, 0, prev, 0)
#define WAKEUP(s, t, c, tid, target) \
	evs_add(s, t, c, MKM_EV_WAKEUP, tid, target, 1, 0)

/*
 * A switch on CPU c from prev (left in kernel state ts, flags pf:
 * PREEMPTED, LOCK_WAIT) to next (runnable for wait ns, or us with nf
 * MKM_EVF_WAIT_US): one SWITCH record
 * when both are tracked and one, else a SWITCH_OUT and a SWITCH_IN, of
 * the tracked ones only (tid 0, idle, and tids from EVS_UNTRACKED on are
 * not).
 */
#define EVS_UNTRACKED 70
static inline void evs_switch(struct evs *s, bool one, uint64_t t,
			      unsigned int c, uint32_t prev, uint32_t ts,
			      unsigned int pf, uint32_t next, uint32_t wait,
			      unsigned int nf)
{
	bool p = prev && prev < EVS_UNTRACKED, n = next && next < EVS_UNTRACKED;

	if (one && p && n) {
		evs_add(s, t, c, MKM_EV_SWITCH, prev, wait, next,
			pf | nf | ts << MKM_EVF_STATE_SHIFT);
		return;
	}
	if (p)
		evs_add(s, t, c, MKM_EV_SWITCH_OUT, prev, ts, next, pf);
	if (n)
		evs_add(s, t, c, MKM_EV_SWITCH_IN, next, wait, prev, nf);
}

/*
 * The same run in either form (@one: SWITCH records): two CPUs, a
 * ping-pong with wakeups, a preemption, a flutter through idle, a sleep
 * on a PREEMPT_RT lock, an inherited child switched to and exiting, a
 * switch to an untracked thread (77) and back.
 */
static inline void evs_switch_run(struct evs *s, bool one)
{
	memset(s, 0, sizeof(*s));
	ATTACH(s, 100, 0, 10, MKM_TS_RUNNING, 0);
	ATTACH(s, 101, 0, 11, MKM_TS_INTERRUPTIBLE, 0xffffffffu);
	ATTACH(s, 102, 1, 12, MKM_TS_RUNNING, 1);
	ATTACH(s, 103, 1, 13, MKM_TS_RUNNING, 0xffffffffu);
	WAKEUP(s, 200, 0, 11, 0);
	evs_switch(s, one, 300, 0, 10, MKM_TS_RUNNING, MKM_EVF_PREEMPTED, 11,
		   100, 0);
	evs_switch(s, one, 400, 0, 11, MKM_TS_UNINTERRUPTIBLE,
		   MKM_EVF_LOCK_WAIT, 10, 100, 0);
	evs_switch(s, one, 500, 0, 10, MKM_TS_INTERRUPTIBLE, 0, 0, 0, 0);
	evs_add(s, 560, 0, MKM_EV_WAKEUP, 11, 0, 0, MKM_EVF_LOCK_WAIT);
	evs_switch(s, one, 600, 0, 0, MKM_TS_RUNNING, 0, 10, 0, 0);
	evs_switch(s, one, 700, 0, 10, MKM_TS_RUNNING, MKM_EVF_PREEMPTED, 11,
		   140, 0);
	evs_switch(s, one, 250, 1, 12, MKM_TS_UNINTERRUPTIBLE, 0, 13, 150, 0);
	evs_add(s, 350, 1, MKM_EV_FORK, 13, 14, 1014,
		MKM_EVF_THREAD | MKM_EVF_INHERITED);
	evs_switch(s, one, 450, 1, 13, MKM_TS_RUNNING, MKM_EVF_PREEMPTED, 14,
		   100, 0);
	WAKEUP(s, 550, 1, 12, 1);
	evs_add(s, 600, 1, MKM_EV_EXIT, 14, 0, 0, 0);
	evs_switch(s, one, 650, 1, 14, MKM_TS_DEAD, 0, 12, 100, 0);
	evs_switch(s, one, 750, 1, 12, MKM_TS_INTERRUPTIBLE, 0, 77, 0, 0);
	evs_switch(s, one, 800, 1, 77, MKM_TS_RUNNING, 0, 13, 350, 0);
	evs_switch(s, one, 900, 1, 13, MKM_TS_RUNNING, MKM_EVF_PREEMPTED, 12, 5,
		   MKM_EVF_WAIT_US);
}

struct exp_iv {
	uint64_t start, end;
	unsigned int state, cpu;
};

/* Every thread's intervals are contiguous and well-ordered. */
static inline void check_invariants(const struct tl *tl)
{
	size_t th, i;

	for (th = 0; th < tl_nr_threads(tl); th++) {
		struct tl_thread t;
		struct tl_interval iv, prev;

		assert_int_equal(tl_thread(tl, th, &t), 0);
		for (i = 0; i < t.nr_intervals; i++) {
			assert_int_equal(tl_interval(tl, th, i, &iv), 0);
			assert_true(iv.start_ns <= iv.end_ns);
			assert_true(iv.state < TL_NR_STATES);
			if (i == 0)
				assert_true(iv.start_ns == t.first_ns);
			else
				assert_true(prev.end_ns == iv.start_ns);
			prev = iv;
		}
		if (t.nr_intervals)
			assert_true(prev.end_ns == t.end_ns);
	}
}

static inline void print_timeline(const struct tl *tl, size_t th)
{
	struct tl_thread t;
	struct tl_interval iv;
	size_t i;

	if (tl_thread(tl, th, &t))
		return;
	fprintf(stderr, "thread %zu tid %u:\n", th, t.tid);
	for (i = 0; i < t.nr_intervals; i++) {
		tl_interval(tl, th, i, &iv);
		fprintf(stderr, "  { %llu, %llu, TL_%s, %u },\n",
			(unsigned long long)iv.start_ns,
			(unsigned long long)iv.end_ns, tl_state_name(iv.state),
			iv.cpu);
	}
}

/* The timeline of thread index th is exactly exp[0..n). */
static inline void expect_timeline(const struct tl *tl, int64_t th,
				   const struct exp_iv *exp, size_t n)
{
	struct tl_thread t;
	struct tl_interval iv;
	size_t i;

	assert_true(th >= 0);
	assert_int_equal(tl_thread(tl, (size_t)th, &t), 0);
	if (t.nr_intervals != n)
		print_timeline(tl, (size_t)th);
	assert_int_equal(t.nr_intervals, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(tl_interval(tl, (size_t)th, i, &iv), 0);
		if (iv.start_ns != exp[i].start || iv.end_ns != exp[i].end ||
		    iv.state != exp[i].state || iv.cpu != exp[i].cpu) {
			fprintf(stderr, "interval %zu differs\n", i);
			print_timeline(tl, (size_t)th);
		}
		assert_int_equal(iv.start_ns, exp[i].start);
		assert_int_equal(iv.end_ns, exp[i].end);
		assert_string_equal(tl_state_name(iv.state),
				    tl_state_name(exp[i].state));
		assert_int_equal(iv.cpu, exp[i].cpu);
	}
	check_invariants(tl);
}

#define EXPECT_TH(tl, th, ...)                                                 \
	do {                                                                   \
		static const struct exp_iv exp_[] = { __VA_ARGS__ };           \
		expect_timeline(tl, th, exp_, sizeof(exp_) / sizeof(exp_[0])); \
	} while (0)
/* The latest timeline of tid. */
#define EXPECT(tl, tid, ...) EXPECT_TH(tl, tl_find(tl, tid), __VA_ARGS__)

/*
 * Replay a source into tl through the pipeline (source -> timeline sink);
 * the run's result. The source is owned by the call.
 */
static inline int replay(struct mon_source *src, struct tl *tl)
{
	struct mon_pipeline *p;
	struct mon_sink *sink;
	int err;

	assert_int_equal(mon_pipeline_create(&p, src), 0);
	assert_int_equal(mon_sink_timeline(&sink, tl), 0);
	assert_int_equal(mon_pipeline_add_sink(p, sink), 0);
	err = mon_pipeline_run(p);
	mon_pipeline_destroy(p);
	return err;
}

/* A timeline of the whole stream, fed at once and flushed. */
static inline struct tl *build(const struct evs *s, uint32_t classes,
			       unsigned int nr_cpus)
{
	struct tl_config cfg = { .nr_cpus = nr_cpus, .classes = classes };
	struct tl *tl;

	assert_int_equal(tl_create(&tl, &cfg), 0);
	assert_int_equal(tl_feed(tl, s->ev, s->n), 0);
	assert_int_equal(tl_flush(tl), 0);
	return tl;
}

/* Timelines a and b hold the same threads, intervals and totals. */
static inline void expect_same_timelines(const struct tl *a, const struct tl *b)
{
	size_t th, i, n = tl_nr_threads(a);
	struct acct_cell ca[8 * 16], cb[8 * 16];

	assert_int_equal(tl_nr_threads(b), n);
	assert_true(n <= 16);
	for (th = 0; th < n; th++) {
		struct tl_thread ta, tb;
		struct tl_interval ia, ib;
		uint64_t ma[TL_NR_STATES], mb[TL_NR_STATES];

		assert_int_equal(tl_thread(a, th, &ta), 0);
		assert_int_equal(tl_thread(b, th, &tb), 0);
		if (ta.tid != tb.tid || ta.first_ns != tb.first_ns ||
		    ta.end_ns != tb.end_ns) {
			print_timeline(a, th);
			print_timeline(b, th);
		}
		assert_int_equal(ta.tid, tb.tid);
		assert_int_equal(ta.unique_id, tb.unique_id);
		assert_int_equal(ta.parent, tb.parent);
		assert_int_equal(ta.end, tb.end);
		assert_int_equal(ta.first_ns, tb.first_ns);
		assert_int_equal(ta.end_ns, tb.end_ns);
		assert_int_equal(ta.switches, tb.switches);
		assert_int_equal(ta.flutters, tb.flutters);
		assert_int_equal(ta.anomalies, tb.anomalies);
		if (ta.nr_intervals != tb.nr_intervals) {
			print_timeline(a, th);
			print_timeline(b, th);
		}
		assert_int_equal(ta.nr_intervals, tb.nr_intervals);
		for (i = 0; i < ta.nr_intervals; i++) {
			assert_int_equal(tl_interval(a, th, i, &ia), 0);
			assert_int_equal(tl_interval(b, th, i, &ib), 0);
			assert_int_equal(ia.start_ns, ib.start_ns);
			assert_int_equal(ia.end_ns, ib.end_ns);
			assert_string_equal(tl_state_name(ia.state),
					    tl_state_name(ib.state));
			assert_int_equal(ia.cpu, ib.cpu);
		}
		assert_int_equal(acct_msa(a, ACCT_THREAD, th, TL_NR_STATES, ma),
				 0);
		assert_int_equal(acct_msa(b, ACCT_THREAD, th, TL_NR_STATES, mb),
				 0);
		assert_memory_equal(ma, mb, sizeof(ma));
	}
	assert_int_equal(acct_matrix(a, ca, 8, n), 0);
	assert_int_equal(acct_matrix(b, cb, 8, n), 0);
	assert_memory_equal(ca, cb, 8 * n * sizeof(ca[0]));
	check_invariants(a);
	check_invariants(b);
}

#endif /* TESTS_UNIT_EVSTREAM_H */
