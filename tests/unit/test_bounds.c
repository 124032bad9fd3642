// SPDX-License-Identifier: GPL-2.0
/*
 * test_bounds.c - how mkm report and mkm view say a thread's bounds
 * (viewer/bounds.c): a bound's width against its figure, which figure's
 * bound is the widest past BOUNDS_WIDE_PERCENT (what the K view
 * flags), a part's distances in words, and what could not be bounded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bounds.h"

/* Figure @f's bound, one part of it below and one above. */
static void bound(struct trace_bounds *b, unsigned int f, uint64_t below,
		  uint64_t above)
{
	b->part[TRACE_BOUND_CALIBRATION][f].below_ns = below;
	b->part[TRACE_BOUND_SCHEDULING][f].above_ns = above;
}

static void test_bounds_width_against_the_figure(void **state)
{
	struct trace_bound tot = { .below_ns = 30, .above_ns = 70 };
	double pct;

	(void)state;
	assert_true(bounds_width(10000, &tot, &pct));
	assert_float_equal(pct, 1.0, 1e-9);
	/* The low end stops at 0: 0 to 1070 around 1000. */
	tot.below_ns = 5000;
	assert_true(bounds_width(1000, &tot, &pct));
	assert_float_equal(pct, 107.0, 1e-9);
	/* Around nothing, no percentage. */
	assert_false(bounds_width(0, &tot, &pct));
	assert_int_equal(bounds_low(1000, 5000), 0);
	assert_int_equal(bounds_low(1000, 300), 700);
}

static void test_bounds_widest_past_the_goal(void **state)
{
	struct trace_bounds b;
	uint64_t fig[TRACE_BOUND_FIGURES] = { 0 };

	(void)state;
	memset(&b, 0, sizeof(b));
	fig[TRACE_BOUND_RUN] = 100000;
	fig[TRACE_BOUND_RUNQ] = 10000;
	fig[TRACE_BOUND_SLEEP] = 50000;
	fig[TRACE_BOUND_LIFE] = 160000;
	/* None: nothing is wide. */
	assert_int_equal(bounds_widest(&b, fig), -1);
	/* Exactly the goal is not past it: 1000 of 100000. */
	bound(&b, TRACE_BOUND_RUN, 500, 500);
	assert_int_equal(bounds_widest(&b, fig), -1);
	bound(&b, TRACE_BOUND_RUN, 500, 600);
	assert_int_equal(bounds_widest(&b, fig), TRACE_BOUND_RUN);
	/* A wider share wins: 3% of the run queue against 1.1% of the run. */
	bound(&b, TRACE_BOUND_RUNQ, 100, 200);
	assert_int_equal(bounds_widest(&b, fig), TRACE_BOUND_RUNQ);
	/* The start and the end are not judged, however wide. */
	bound(&b, TRACE_BOUND_START, 0, 1000000);
	assert_int_equal(bounds_widest(&b, fig), TRACE_BOUND_RUNQ);
}

/* A figure of 0 with a bound above it: wider than any share, wherever. */
static void test_bounds_widest_around_nothing(void **state)
{
	struct trace_bounds b;
	uint64_t fig[TRACE_BOUND_FIGURES] = { 0 };

	(void)state;
	memset(&b, 0, sizeof(b));
	fig[TRACE_BOUND_RUN] = 100000;
	fig[TRACE_BOUND_SLEEP] = 1000;
	bound(&b, TRACE_BOUND_RUN, 5000, 5000); /* 10% */
	bound(&b, TRACE_BOUND_RUNQ, 0, 3); /* around a wait of 0 */
	bound(&b, TRACE_BOUND_SLEEP, 500, 500); /* 100%, after it */
	assert_int_equal(bounds_widest(&b, fig), TRACE_BOUND_RUNQ);
	/* Below 0 is no width: a figure of 0 cannot be less. */
	bound(&b, TRACE_BOUND_RUNQ, 7, 0);
	assert_int_equal(bounds_widest(&b, fig), TRACE_BOUND_SLEEP);
}

static void test_bounds_part_in_words(void **state)
{
	struct trace_bound p = { 0 };
	char buf[64], a[32], b[32], want[64];

	(void)state;
	assert_string_equal(bounds_part_str(buf, sizeof(buf), &p), "0");
	p.below_ns = p.above_ns = 12300;
	snprintf(want, sizeof(want), "+-%s", mon_fmt_ns(a, sizeof(a), 12300));
	assert_string_equal(bounds_part_str(buf, sizeof(buf), &p), want);
	p.below_ns = 0;
	snprintf(want, sizeof(want), "+%s", mon_fmt_ns(a, sizeof(a), 12300));
	assert_string_equal(bounds_part_str(buf, sizeof(buf), &p), want);
	p.below_ns = 40;
	p.above_ns = 0;
	assert_string_equal(bounds_part_str(buf, sizeof(buf), &p), "-40 ns");
	p.above_ns = 12300;
	snprintf(want, sizeof(want), "-%s +%s", mon_fmt_ns(a, sizeof(a), 40),
		 mon_fmt_ns(b, sizeof(b), 12300));
	assert_string_equal(bounds_part_str(buf, sizeof(buf), &p), want);
}

/* What a bound leaves out is said, flag by flag, never left blank. */
static void test_bounds_unknown_said(void **state)
{
	struct trace_bounds b;
	char buf[512], one[160];

	(void)state;
	memset(&b, 0, sizeof(b));
	assert_string_equal(bounds_unknown_str(buf, sizeof(buf), &b), "");
	b.flags = TRACE_BOUND_LOST | TRACE_BOUND_SPLIT_PARTIAL;
	b.split_ends = 40;
	b.split_unknown = 3;
	bounds_unknown_str(buf, sizeof(buf), &b);
	assert_non_null(strstr(buf, "records lost"));
	assert_non_null(strstr(buf, "3 of its 40 switch ends"));
	assert_non_null(strstr(buf, "; "));
	for (unsigned int k = 0; k < BOUNDS_NR_FLAGS; k++) {
		b.flags = 1u << k;
		assert_true(bounds_unknown(one, sizeof(one), &b, k)[0]);
		assert_string_not_equal(bounds_flag_name(k), "?");
	}
	assert_string_equal(bounds_flag_name(BOUNDS_NR_FLAGS), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounds_width_against_the_figure),
		cmocka_unit_test(test_bounds_widest_past_the_goal),
		cmocka_unit_test(test_bounds_widest_around_nothing),
		cmocka_unit_test(test_bounds_part_in_words),
		cmocka_unit_test(test_bounds_unknown_said),
	};

	return cmocka_run_group_tests_name("bounds", tests, NULL, NULL);
}
