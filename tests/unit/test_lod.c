// SPDX-License-Identifier: GPL-2.0
/*
 * test_lod.c - the viewer's level-of-detail index (viewer/lod.c): a
 * property test against layout_row() over every interval, at every zoom,
 * on random timelines, also while the timeline grows.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lod.h"

#define NR_THREADS 5

/* A random stream on 2 CPUs: switches in and out with every kind of
 * state, interrupts, and runs of records close together. */
static void feed_random(struct tl *tl, unsigned int *seed, uint64_t *now,
			uint32_t *seq, size_t n)
{
	static const uint32_t ts[] = { MKM_TS_RUNNING, MKM_TS_INTERRUPTIBLE,
				       MKM_TS_UNINTERRUPTIBLE, MKM_TS_STOPPED };
	size_t i;

	for (i = 0; i < n; i++) {
		struct mkm_event ev = { 0 };
		unsigned int r = (unsigned int)rand_r(seed);

		*now += r % 7 == 0 ? 1 + r % 5000 : 1 + r % 40;
		ev.time_ns = *now;
		ev.cpu = (uint16_t)(r % 2);
		ev.seq = seq[ev.cpu]++;
		ev.tid = 100 + (r >> 4) % NR_THREADS;
		switch ((r >> 8) % 6) {
		case 0:
		case 1:
			ev.type = MKM_EV_SWITCH_IN;
			break;
		case 2:
		case 3:
			ev.type = MKM_EV_SWITCH_OUT;
			ev.arg0 = ts[(r >> 12) % 4];
			break;
		case 4:
			ev.type = MKM_EV_IRQ_ENTRY;
			break;
		default:
			ev.type = MKM_EV_IRQ_EXIT;
			break;
		}
		assert_int_equal(tl_feed(tl, &ev, 1), 0);
	}
}

static void expect_same_cells(const struct lod *lod, const struct tl *tl,
			      uint64_t t0, uint64_t t1, unsigned int width)
{
	static struct tl_interval iv[20000];
	struct layout_cell want[300], got[300];
	size_t th;

	for (th = 0; th < tl_nr_threads(tl); th++) {
		ssize_t n = tl_intervals(tl, th, 0, 20000, iv);
		unsigned int c;

		assert_true(n >= 0 && n < 20000);
		layout_row(iv, (size_t)n, t0, t1, width, want);
		assert_int_equal(lod_row(lod, th, t0, t1, width, got), 0);
		for (c = 0; c < width; c++) {
			if (want[c].state != got[c].state ||
			    want[c].mixed != got[c].mixed)
				fail_msg(
					"thread %zu [%llu, %llu) width %u col %u: "
					"want %u%s, got %u%s",
					th, (unsigned long long)t0,
					(unsigned long long)t1, width, c,
					want[c].state, want[c].mixed ? "~" : "",
					got[c].state, got[c].mixed ? "~" : "");
		}
	}
}

/* Windows from the whole trace down to a nanosecond a column. */
static void check_zooms(const struct lod *lod, const struct tl *tl,
			unsigned int *seed, uint64_t end)
{
	unsigned int k;

	expect_same_cells(lod, tl, 0, end + 100, 200);
	for (k = 0; k < 40; k++) {
		uint64_t span = 1 + (uint64_t)rand_r(seed) % (end >> (k % 12));
		uint64_t t0 = (uint64_t)rand_r(seed) % end;
		unsigned int width = 1 + (unsigned int)rand_r(seed) % 250;

		if (span < width)
			span = width; /* the viewer's deepest zoom */
		expect_same_cells(lod, tl, t0, t0 + span, width);
	}
}

static void test_lod_row_matches_layout_row_at_every_zoom(void **state)
{
	struct tl_config cfg = { .nr_cpus = 2 };
	unsigned int seed;

	(void)state;
	for (seed = 1; seed <= 8; seed++) {
		uint32_t seq[2] = { 0, 0 };
		uint64_t now = 1000;
		struct lod *lod;
		struct tl *tl;

		assert_int_equal(tl_create(&tl, &cfg), 0);
		feed_random(tl, &seed, &now, seq, 6000);
		assert_int_equal(tl_flush(tl), 0);
		assert_int_equal(lod_create(&lod, tl), 0);
		check_zooms(lod, tl, &seed, now);
		lod_destroy(lod);
		tl_destroy(tl);
	}
}

/* A live view: the timeline grows, the index is extended, not rebuilt;
 * before an update it is still right, only slower. */
static void test_lod_update_follows_a_growing_timeline(void **state)
{
	struct tl_config cfg = { .nr_cpus = 2 };
	uint32_t seq[2] = { 0, 0 };
	unsigned int seed = 42, round;
	uint64_t now = 1000;
	struct lod *lod;
	struct tl *tl;

	(void)state;
	assert_int_equal(tl_create(&tl, &cfg), 0);
	assert_int_equal(lod_create(&lod, tl), 0);
	for (round = 0; round < 6; round++) {
		feed_random(tl, &seed, &now, seq, 1500);
		assert_int_equal(tl_advance(tl, now), 0);
		check_zooms(lod, tl, &seed, now); /* not updated yet */
		assert_int_equal(lod_update(lod), 0);
		check_zooms(lod, tl, &seed, now);
	}
	lod_destroy(lod);
	tl_destroy(tl);
}

static void test_lod_time_sums_the_window(void **state)
{
	struct tl_config cfg = { .nr_cpus = 2 };
	uint32_t seq[2] = { 0, 0 };
	unsigned int seed = 7, k;
	uint64_t now = 1000, time[TL_NR_STATES];
	struct tl_memory mem;
	struct lod *lod;
	struct tl *tl;

	(void)state;
	assert_int_equal(tl_create(&tl, &cfg), 0);
	feed_random(tl, &seed, &now, seq, 20000);
	assert_int_equal(tl_flush(tl), 0);
	assert_int_equal(lod_create(&lod, tl), 0);
	for (k = 0; k < 50; k++) {
		uint64_t a = (uint64_t)rand_r(&seed) % now,
			 b = a + 1 + (uint64_t)rand_r(&seed) % 100000;
		uint64_t want[TL_NR_STATES] = { 0 };
		struct tl_interval iv;
		size_t i;
		unsigned int s;

		assert_int_equal(lod_time(lod, 1, a, b, time), 0);
		for (i = 0; !tl_interval(tl, 1, i, &iv); i++) {
			uint64_t lo = iv.start_ns > a ? iv.start_ns : a;
			uint64_t hi = iv.end_ns < b ? iv.end_ns : b;

			if (hi > lo)
				want[iv.state] += hi - lo;
		}
		for (s = 0; s < TL_NR_STATES; s++)
			assert_int_equal(time[s], want[s]);
	}
	assert_int_equal(lod_time(lod, NR_THREADS, 0, 1, time), -ENOENT);
	/* The goal: the index under a quarter of the timeline's memory. */
	assert_int_equal(tl_memory(tl, &mem), 0);
	assert_true(lod_bytes(lod) * 4 <= mem.total_bytes);
	lod_destroy(lod);
	tl_destroy(tl);
}

/* The metering pane's and detail line's figures: a state group's time is
 * the sum of its states' times. */
static void test_lod_group_time_sums_states_by_group(void **state)
{
	struct tl_config cfg = { .nr_cpus = 2 };
	uint32_t seq[2] = { 0, 0 };
	unsigned int seed = 11, k;
	uint64_t now = 1000;
	struct lod *lod;
	struct tl *tl;

	(void)state;
	assert_int_equal(tl_create(&tl, &cfg), 0);
	feed_random(tl, &seed, &now, seq, 5000);
	assert_int_equal(tl_flush(tl), 0);
	assert_int_equal(lod_create(&lod, tl), 0);
	for (k = 0; k < 20; k++) {
		uint64_t a = (uint64_t)rand_r(&seed) % now,
			 b = a + 1 + (uint64_t)rand_r(&seed) % 100000;
		uint64_t time[TL_NR_STATES], want[TL_NR_GROUPS] = { 0 };
		uint64_t got[TL_NR_GROUPS];
		unsigned int s, g;

		assert_int_equal(lod_time(lod, 2, a, b, time), 0);
		for (s = 0; s < TL_NR_STATES; s++)
			want[tl_state_desc(s)->group] += time[s];
		assert_int_equal(lod_group_time(lod, 2, a, b, got), 0);
		for (g = 0; g < TL_NR_GROUPS; g++)
			assert_int_equal(got[g], want[g]);
	}
	assert_int_equal(lod_group_time(lod, NR_THREADS, 0, 1, NULL), -ENOENT);
	lod_destroy(lod);
	tl_destroy(tl);
}

/* The flutters on screen and the next one (F): the first at or after an
 * instant, as a scan of them in time order finds it. */
static void test_lod_first_flutter_by_time(void **state)
{
	struct tl_config cfg = { .nr_cpus = 2 };
	uint32_t seq[2] = { 0, 0 };
	unsigned int seed = 5, k;
	uint64_t now = 1000;
	struct tl_flutter f;
	struct lod *lod;
	struct tl *tl;
	size_t n, i;

	(void)state;
	assert_int_equal(tl_create(&tl, &cfg), 0);
	feed_random(tl, &seed, &now, seq, 20000);
	assert_int_equal(tl_flush(tl), 0);
	assert_int_equal(lod_create(&lod, tl), 0);
	n = tl_nr_flutters(tl);
	assert_true(n > 10);
	for (k = 0; k < 200; k++) {
		uint64_t t = k == 0 ? 0 :
			     k == 1 ? now + 1 :
				      (uint64_t)rand_r(&seed) % now;

		for (i = 0; i < n; i++) {
			assert_int_equal(tl_flutter(tl, i, &f), 0);
			if (f.time_ns >= t)
				break;
		}
		assert_int_equal(lod_first_flutter(lod, t), i);
	}
	lod_destroy(lod);
	tl_destroy(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lod_row_matches_layout_row_at_every_zoom),
		cmocka_unit_test(test_lod_update_follows_a_growing_timeline),
		cmocka_unit_test(test_lod_time_sums_the_window),
		cmocka_unit_test(test_lod_group_time_sums_states_by_group),
		cmocka_unit_test(test_lod_first_flutter_by_time),
	};

	return cmocka_run_group_tests_name("lod", tests, NULL, NULL);
}
