// SPDX-License-Identifier: GPL-2.0
/* test_ring.c - the per-CPU event ring (kernel/ring.h), built in userspace. */

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ring.h"

/* One offset, 0: times as the writer stamped them. */
static const struct ring_clock same_clock;

static struct mkm_ring *ring_new_flags(u32 capacity, u32 wakeup, u32 flags)
{
	/* Aligned as the module's vmalloc'd rings, a whole number of pages. */
	u64 bytes = (ring_alloc_size(capacity) + MKM_RING_PAGE_BYTES - 1) &
		    ~(u64)(MKM_RING_PAGE_BYTES - 1);
	struct mkm_ring *r = aligned_alloc(MKM_RING_PAGE_BYTES, bytes);

	assert_non_null(r);
	memset(r, 0, ring_alloc_size(capacity));
	ring_init(r, capacity, wakeup, flags);
	return r;
}

static struct mkm_ring *ring_new(u32 capacity, u32 wakeup)
{
	return ring_new_flags(capacity, wakeup, 0);
}

/* Writes one event of type SWITCH_IN stamped ts; returns false if dropped. */
static bool put(struct mkm_ring *r, u64 ts, u32 tid)
{
	struct mkm_event *ev = ring_reserve(r);

	if (!ev)
		return false;
	ev->tid = tid;
	ev->type = MKM_EV_SWITCH_IN;
	ring_commit(r, ev, ts);
	return true;
}

/* Drains everything (max records per call) and consumes it. */
static u32 drain(struct mkm_ring *r, struct mkm_event *dst, u32 max,
		 bool quiescent)
{
	struct ring_cursor c;
	u32 n;

	ring_cursor_start(&r->rd, &c);
	n = ring_peek(r, &c, dst, max, quiescent, 3, &same_clock);
	ring_consume(&r->rd, &c);
	return n;
}

static void test_ring_reserve_fifo(void **state)
{
	struct mkm_ring *r = ring_new(8, 0);
	struct mkm_event ev[8];
	u32 i;

	(void)state;
	for (i = 0; i < 3; i++)
		assert_true(put(r, 100 + i, 10 + i));
	assert_int_equal(ring_buffered(r), 3);
	assert_int_equal(drain(r, ev, 8, false), 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(ev[i].tid, 10 + i);
		assert_int_equal(ev[i].seq, i);
		assert_int_equal(ev[i].time_ns, 100 + i);
		assert_int_equal(ev[i].cpu, 3); /* the reader's to fill in */
	}
	assert_int_equal(ring_buffered(r), 0);
	assert_int_equal(r->rd.read, 3);
	free(r);
}

static void test_ring_reserve_full_drops_and_reports_lost(void **state)
{
	struct mkm_ring *r = ring_new(4, 0);
	struct mkm_event ev[8];
	u32 i, kept = 0;

	(void)state;
	for (i = 0; i < 6; i++)
		kept += put(r, 10 * (i + 1), i);
	assert_int_equal(kept, 4);
	assert_int_equal(ring_produced(r), 6);
	assert_int_equal(r->lost, 2);
	assert_int_equal(drain(r, ev, 8, false), 4);

	/* The drops show up in-band before the next record. */
	assert_true(put(r, 70, 6));
	assert_int_equal(drain(r, ev, 8, false), 2);
	assert_int_equal(ev[0].type, MKM_EV_LOST);
	assert_int_equal(ev[0].arg0, 2);
	assert_int_equal(ev[0].seq, 4);
	assert_int_equal(ev[0].time_ns, 40); /* the last record before */
	assert_int_equal(ev[0].cpu, 3);
	assert_int_equal(ev[1].tid, 6);
	assert_int_equal(ev[1].seq, 6);
	assert_int_equal(ring_produced(r), r->rd.read + r->lost);
	assert_int_equal(r->rd.read_lost, r->lost);
	free(r);
}

static void test_ring_peek_quiescent_reports_trailing_lost(void **state)
{
	struct mkm_ring *r = ring_new(4, 0);
	struct mkm_event ev[8];
	u32 i;

	(void)state;
	for (i = 0; i < 7; i++)
		put(r, i, i);
	/* A writer may still be active: trailing drops wait. */
	assert_int_equal(drain(r, ev, 8, false), 4);
	assert_int_equal(drain(r, ev, 8, false), 0);
	/* Suspended: they are reported, once. */
	assert_int_equal(drain(r, ev, 8, true), 1);
	assert_int_equal(ev[0].type, MKM_EV_LOST);
	assert_int_equal(ev[0].arg0, 3);
	assert_int_equal(drain(r, ev, 8, true), 0);
	/* Sequence numbers continue after the reported gap. */
	put(r, 9, 9);
	assert_int_equal(drain(r, ev, 8, true), 1);
	assert_int_equal(ev[0].seq, 7);
	assert_int_equal(ring_produced(r), r->rd.read + r->lost);
	free(r);
}

static void test_ring_peek_one_slot_makes_progress(void **state)
{
	struct mkm_ring *r = ring_new(4, 0);
	struct mkm_event ev[1];
	u32 i, lost = 0, got = 0;

	(void)state;
	for (i = 0; i < 6; i++)
		put(r, i, i);
	drain(r, ev, 1, false);
	drain(r, ev, 1, false);
	drain(r, ev, 1, false);
	drain(r, ev, 1, false);
	put(r, 7, 7);
	/* A gap and a record with room for one: the LOST, then the record. */
	while (drain(r, ev, 1, false) == 1) {
		if (ev[0].type == MKM_EV_LOST)
			lost += ev[0].arg0;
		else
			got++;
	}
	assert_int_equal(lost, 2);
	assert_int_equal(got, 1);
	free(r);
}

static void test_ring_peek_without_consume_keeps_records(void **state)
{
	struct mkm_ring *r = ring_new(4, 0);
	struct mkm_event ev[4];
	struct ring_cursor c;

	(void)state;
	put(r, 1, 1);
	put(r, 2, 2);
	ring_cursor_start(&r->rd, &c);
	assert_int_equal(ring_peek(r, &c, ev, 4, false, 0, &same_clock), 2);
	/* Not consumed (a failed copy to user space): still there. */
	assert_int_equal(ring_buffered(r), 2);
	assert_int_equal(drain(r, ev, 4, false), 2);
	assert_int_equal(ev[1].tid, 2);
	free(r);
}

static void test_ring_peek_clamps_time(void **state)
{
	struct mkm_ring *r = ring_new(4, 0);
	struct mkm_event ev[4];

	(void)state;
	put(r, 50, 1);
	put(r, 40, 2);
	put(r, 60, 3);
	assert_int_equal(drain(r, ev, 4, false), 3);
	assert_int_equal(ev[1].time_ns, 50);
	assert_int_equal(ev[2].time_ns, 60);
	free(r);
}

/* The reader's clock offset moves between reads: times still never go back. */
static void test_ring_peek_maps_time_across_reads(void **state)
{
	struct mkm_ring *r = ring_new(4, 0);
	struct mkm_event ev[4];
	struct ring_cursor c;

	(void)state;
	put(r, 100, 1);
	put(r, 200, 2);
	ring_cursor_start(&r->rd, &c);
	assert_int_equal(ring_peek(r, &c, ev, 4, false, 0,
				   &(struct ring_clock){ .off1 = 1000 }),
			 2);
	ring_consume(&r->rd, &c);
	assert_int_equal(ev[0].time_ns, 1100);
	assert_int_equal(ev[1].time_ns, 1200);
	put(r, 250, 3);
	put(r, 400, 4);
	ring_cursor_start(&r->rd, &c);
	assert_int_equal(ring_peek(r, &c, ev, 4, false, 0,
				   &(struct ring_clock){ .off1 = 900 }),
			 2);
	ring_consume(&r->rd, &c);
	assert_int_equal(ev[0].time_ns, 1200); /* 1150, clamped */
	assert_int_equal(ev[1].time_ns, 1300);
	free(r);
}

/* Two points: each record takes the offset of its own time, interpolated
 * (an NTP slew between reads moves old records by what it was then). */
static void test_ring_clock_interpolates(void **state)
{
	struct ring_clock k = {
		.t0 = 1000, .t1 = 2000, .off0 = 500, .off1 = 400
	};
	struct ring_clock up = {
		.t0 = 0, .t1 = 4000000000000ull, .off0 = 0, .off1 = 2000000000
	};

	(void)state;
	assert_int_equal(ring_clock_map(&k, 900), 1400); /* before t0 */
	assert_int_equal(ring_clock_map(&k, 1000), 1500);
	assert_int_equal(ring_clock_map(&k, 1250), 1725);
	assert_int_equal(ring_clock_map(&k, 1500), 1950);
	assert_int_equal(ring_clock_map(&k, 2000), 2400);
	assert_int_equal(ring_clock_map(&k, 3000), 3400); /* after t1 */
	/* 500 ppm over 4000 s: the product needs more than 64 bits. */
	assert_int_equal(ring_clock_map(&up, 1000000000000ull),
			 1000500000000ull);
	/* One point (t1 <= t0): its offset everywhere. */
	k.t1 = k.t0;
	assert_int_equal(ring_clock_map(&k, 1250), 1650);
}

/* The line (a multiplication a record) against exact division: 0 or 1 ns. */
static void test_ring_clock_line_within_1ns_of_exact(void **state)
{
	u64 seed = 88172645463325252ull;

	(void)state;
	for (int i = 0; i < 200000; i++) {
		struct ring_clock k;
		struct ring_clock_line l;
		u64 span, x, rise, want, got;
		s64 d;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		span = 1 + (seed >> (i % 40 + 20)); /* 1 ns to ~2^44 ns */
		k.t0 = seed >> 20;
		k.t1 = k.t0 + span;
		/* Slews of up to a few thousand ppm, and steps past the span. */
		d = (s64)((seed >> 3) % (span / 64 + 3)) -
		    (s64)(span / 128 + 1);
		if (i % 97 == 0)
			d = (s64)span * 3;
		k.off0 = (s64)(seed % 1000000) - 500000;
		k.off1 = k.off0 + d;
		x = (seed * 2654435761u) % span;
		rise = d < 0 ? -(u64)d : (u64)d;
		want = (u64)((unsigned __int128)rise * x / span);
		want = k.t0 + x + k.off0 + (d < 0 ? -(s64)want : (s64)want);
		ring_clock_line(&l, &k);
		got = ring_clock_line_map(&l, k.t0 + x);
		if (got - want > 1)
			fail_msg("t0 %llu span %llu off0 %lld d %lld x %llu: "
				 "line %llu, exact %llu",
				 (unsigned long long)k.t0,
				 (unsigned long long)span, (long long)k.off0,
				 (long long)d, (unsigned long long)x,
				 (unsigned long long)got,
				 (unsigned long long)want);
	}
}

static void test_ring_commit_wakeup_once_per_crossing(void **state)
{
	struct mkm_ring *r = ring_new(8, 3);
	struct mkm_event ev[8];
	int i, wakeups = 0;

	(void)state;
	for (i = 0; i < 6; i++) {
		struct mkm_event *e = ring_reserve(r);

		wakeups += ring_commit(r, e, i);
	}
	assert_int_equal(wakeups, 1);
	drain(r, ev, 8, false);
	for (i = 0; i < 3; i++) {
		struct mkm_event *e = ring_reserve(r);

		wakeups += ring_commit(r, e, 10 + i);
	}
	assert_int_equal(wakeups, 2);
	free(r);
}

/*
 * ring_write() is ring_reserve(), the fields and ring_commit() in one: the
 * same records, drops, seq and wakeups, through fills, drops and drains.
 */
static void test_ring_write_matches_reserve_commit(void **state)
{
	struct mkm_ring *a = ring_new(8, 3), *b = ring_new(8, 3);
	struct mkm_event ea[8], eb[8];
	int round, i, wa = 0, wb = 0, dropped = 0;
	u32 n;

	(void)state;
	for (round = 0; round < 20; round++) {
		for (i = 0; i < round % 11; i++) {
			u64 t = round * 100 + i;
			struct mkm_event *e = ring_reserve(a);
			int w = ring_write(b, 10 + i, 20 + i, MKM_EV_SWITCH,
					   (u8)i, 30 + i, 40 + i, t);

			assert_int_equal(w < 0, e == NULL);
			dropped += w < 0;
			wb += w > 0;
			if (!e)
				continue;
			e->tid = 10 + i;
			e->unique_id = 20 + i;
			e->type = MKM_EV_SWITCH;
			e->flags = (u8)i;
			e->arg0 = 30 + i;
			e->arg1 = 40 + i;
			wa += ring_commit(a, e, t);
		}
		assert_int_equal(a->head, b->head);
		assert_int_equal(a->lost, b->lost);
		assert_int_equal(wa, wb);
		n = drain(a, ea, 8, false);
		assert_int_equal(drain(b, eb, 8, false), n);
		assert_memory_equal(ea, eb, n * sizeof(ea[0]));
	}
	assert_true(dropped > 0);
	assert_true(wb > 1);
	free(a);
	free(b);
}

static void test_ring_reserve_wraps_around(void **state)
{
	struct mkm_ring *r = ring_new(8, 0);
	struct mkm_event ev[8];
	u32 round, i, seq = 0;

	(void)state;
	for (round = 0; round < 100; round++) {
		u32 k = 1 + round % 8;

		for (i = 0; i < k; i++)
			assert_true(put(r, round * 10 + i, i));
		assert_int_equal(drain(r, ev, 8, false), k);
		for (i = 0; i < k; i++)
			assert_int_equal(ev[i].seq, seq++);
	}
	assert_int_equal(r->lost, 0);
	free(r);
}

static void test_ring_peek_gap_across_seq_wrap(void **state)
{
	struct mkm_ring *r = ring_new(2, 0);
	struct mkm_event ev[4];

	(void)state;
	/* As if 2^32 - 1 events had gone through already. */
	r->head = 0xffffffffu; /* records consumed already: */
	r->rd.tail = 0xffffffffu;
	r->rd.next_seq = 0xffffffffu;
	r->rd.read = 0xffffffffu;
	put(r, 1, 1); /* seq 0xffffffff */
	put(r, 2, 2); /* seq 0 */
	put(r, 3, 3); /* dropped: seq 1 */
	assert_int_equal(drain(r, ev, 4, false), 2);
	assert_int_equal(ev[1].seq, 0);
	put(r, 4, 4); /* seq 2 */
	assert_int_equal(drain(r, ev, 4, false), 2);
	assert_int_equal(ev[0].type, MKM_EV_LOST);
	assert_int_equal(ev[0].arg0, 1);
	assert_int_equal(ev[1].seq, 2);
	free(r);
}

/* More than 2^32 drops between two records: seq wrapped, the count must
 * not; LOST records carry it in pieces of at most U32_MAX. */
static void test_ring_peek_drops_past_2_32_exact(void **state)
{
	const u64 run = (1ull << 32) + 5, tail_run = (1ull << 32) + 7;
	struct mkm_ring *r = ring_new(4, 0);
	struct mkm_event ev[8];
	u64 lost = 0;
	u32 n, i;

	(void)state;
	put(r, 1, 1);
	r->lost += run; /* as if the ring had been full that long */
	put(r, 2, 2);
	n = drain(r, ev, 8, false);
	assert_int_equal(n, 4);
	assert_int_equal(ev[0].type, MKM_EV_SWITCH_IN);
	for (i = 1; i < 3; i++) {
		assert_int_equal(ev[i].type, MKM_EV_LOST);
		lost += ev[i].arg0;
	}
	assert_true(lost == run);
	assert_int_equal(ev[3].tid, 2);
	assert_int_equal(ev[3].seq, (u32)(1 + run));
	/* And at the end, suspended: the trailing drops, exact too. */
	r->lost += tail_run;
	lost = 0;
	n = drain(r, ev, 8, true);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++) {
		assert_int_equal(ev[i].type, MKM_EV_LOST);
		lost += ev[i].arg0;
	}
	assert_true(lost == tail_run);
	assert_true(r->rd.read_lost == r->lost);
	free(r);
}

/* Drains a flight ring as the readers do (ring_peek_flight()). */
static u32 drain_flight(struct mkm_ring *r, struct mkm_event *dst, u32 max,
			bool quiescent)
{
	struct ring_cursor c;
	u32 n;

	ring_cursor_start(&r->rd, &c);
	n = ring_peek_flight(r, &c, dst, max, quiescent, 3, &same_clock);
	ring_consume(&r->rd, &c);
	return n;
}

static void test_ring_flight_overwrites_oldest(void **state)
{
	struct mkm_ring *r = ring_new_flags(128, 0, MKM_RING_OVERWRITE);
	struct mkm_event ev[256];
	u32 i, n = 0, k;

	(void)state;
	for (i = 0; i < 1000; i++)
		assert_int_equal(ring_write(r, i, 0, MKM_EV_MARK, 0, i, 0, i),
				 0);
	assert_int_equal(r->lost, 0);
	assert_int_equal(ring_buffered(r), 128);
	assert_int_equal(ring_overwritten(r), 1000 - 128);
	/* Quiescent: all 128 kept, after one record of what was not. */
	while ((k = drain_flight(r, ev + n, 256 - n, true)))
		n += k;
	assert_int_equal(n, 129);
	assert_int_equal(ev[0].type, MKM_EV_LOST);
	assert_int_equal(ev[0].flags, MKM_EVF_OVERWRITTEN);
	assert_int_equal(ev[0].arg0, 1000 - 128);
	assert_int_equal(ev[0].arg1, 0);
	assert_int_equal(ev[0].seq, 0);
	for (i = 1; i < n; i++) {
		assert_int_equal(ev[i].arg0, 1000 - 128 + i - 1);
		assert_int_equal(ev[i].seq, 1000 - 128 + i - 1);
	}
	assert_int_equal(r->rd.overwritten, 1000 - 128);
	assert_int_equal(r->rd.read, 128);
	assert_int_equal(ring_overwritten(r), 1000 - 128);
	free(r);
}

/* Resumed: the reader keeps clear of the records the writer comes to. */
static void test_ring_flight_live_read_keeps_margin(void **state)
{
	struct mkm_ring *r = ring_new_flags(128, 0, MKM_RING_OVERWRITE);
	struct mkm_event ev[256];
	u32 i, n = 0, k, margin = ring_flight_margin(r->mask);

	(void)state;
	for (i = 0; i < 1000; i++)
		ring_write(r, i, 0, MKM_EV_MARK, 0, i, 0, i);
	while ((k = drain_flight(r, ev + n, 256 - n, false)))
		n += k;
	assert_int_equal(n, 1 + 128 - margin);
	assert_int_equal(ev[0].arg0, 1000 - 128 + margin);
	assert_int_equal(ev[1].arg0, 1000 - 128 + margin);
	assert_int_equal(ev[n - 1].arg0, 999);
	/* Caught up: the next read has only what came since. */
	ring_write(r, 1000, 0, MKM_EV_MARK, 0, 1000, 0, 1000);
	assert_int_equal(drain_flight(r, ev, 256, false), 1);
	assert_int_equal(ev[0].arg0, 1000);
	assert_int_equal(ev[0].seq, 1000);
	free(r);
}

/* Triggers: seen once read, so that poll() waits for the next. */
static void test_ring_flight_triggers_seen(void **state)
{
	struct mkm_ring *r = ring_new_flags(128, 0, MKM_RING_OVERWRITE);

	(void)state;
	assert_false(ring_untriggered(r));
	ring_triggered(r);
	assert_true(ring_untriggered(r));
	ring_see_triggers(r, &r->rd);
	assert_false(ring_untriggered(r));
	free(r);
}

struct flight_writer {
	struct mkm_ring *r;
	int stop;
	u32 written;
};

static void *flight_writer_fn(void *arg)
{
	struct flight_writer *w = arg;
	u32 i;

	for (i = 0; !READ_ONCE(w->stop); i++)
		ring_write(w->r, 1, 0, MKM_EV_MARK, 0, i, 0, i);
	w->written = i;
	return NULL;
}

/*
 * A writer on another thread, the reader racing it: every record read is
 * one the writer wrote, in order, with no hole between two reads but the
 * ones an OVERWRITTEN record tells, and the counts add up.
 */
static void test_ring_flight_concurrent_reads_have_no_hole(void **state)
{
	struct mkm_ring *r = ring_new_flags(128, 0, MKM_RING_OVERWRITE);
	struct flight_writer w = { .r = r };
	static struct mkm_event ev[64];
	u64 next = 0, read = 0, skipped = 0;
	pthread_t t;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, flight_writer_fn, &w), 0);
	/* Until both happened often: reads that kept up, and laps. */
	for (u32 loop = 0, laps = 0; laps < 20 || read < 10000; loop++) {
		u32 n, i;

		/* Now and then, a reader too slow: the writer laps it. */
		if (loop % 64 == 63) {
			while (smp_load_acquire(&r->head) - r->rd.tail < 512)
				;
			laps++;
		}
		n = drain_flight(r, ev, 64, false);

		for (i = 0; i < n; i++) {
			if (ev[i].type == MKM_EV_LOST) {
				assert_int_equal(ev[i].flags,
						 MKM_EVF_OVERWRITTEN);
				next += ev[i].arg0;
				skipped += ev[i].arg0;
				continue;
			}
			if (ev[i].arg0 != (u32)next || ev[i].seq != (u32)next)
				fail_msg("record %llu: value %u seq %u",
					 (unsigned long long)next, ev[i].arg0,
					 ev[i].seq);
			next++;
			read++;
		}
	}
	WRITE_ONCE(w.stop, 1);
	pthread_join(t, NULL);
	while (true) {
		u32 n = drain_flight(r, ev, 64, true), i;

		if (!n)
			break;
		for (i = 0; i < n; i++) {
			if (ev[i].type == MKM_EV_LOST) {
				next += ev[i].arg0;
				skipped += ev[i].arg0;
				continue;
			}
			assert_int_equal(ev[i].arg0, (u32)next);
			next++;
			read++;
		}
	}
	assert_int_equal(next, w.written);
	assert_int_equal(read + skipped, w.written);
	assert_true(skipped > 0);
	assert_int_equal(r->rd.read, read);
	assert_int_equal(r->rd.overwritten, skipped);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_reserve_fifo),
		cmocka_unit_test(test_ring_reserve_full_drops_and_reports_lost),
		cmocka_unit_test(
			test_ring_peek_quiescent_reports_trailing_lost),
		cmocka_unit_test(test_ring_peek_one_slot_makes_progress),
		cmocka_unit_test(test_ring_peek_without_consume_keeps_records),
		cmocka_unit_test(test_ring_peek_clamps_time),
		cmocka_unit_test(test_ring_peek_maps_time_across_reads),
		cmocka_unit_test(test_ring_clock_interpolates),
		cmocka_unit_test(test_ring_clock_line_within_1ns_of_exact),
		cmocka_unit_test(test_ring_commit_wakeup_once_per_crossing),
		cmocka_unit_test(test_ring_write_matches_reserve_commit),
		cmocka_unit_test(test_ring_reserve_wraps_around),
		cmocka_unit_test(test_ring_peek_drops_past_2_32_exact),
		cmocka_unit_test(test_ring_peek_gap_across_seq_wrap),
		cmocka_unit_test(test_ring_flight_overwrites_oldest),
		cmocka_unit_test(test_ring_flight_live_read_keeps_margin),
		cmocka_unit_test(test_ring_flight_triggers_seen),
		cmocka_unit_test(
			test_ring_flight_concurrent_reads_have_no_hole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
