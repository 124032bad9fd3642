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

#endif /* TESTS_UNIT_EVSTREAM_H */
