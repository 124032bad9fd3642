// SPDX-License-Identifier: GPL-2.0
/*
 * test_lost.c - lost.c: a hole in a CPU's seq numbers becomes the LOST
 * record that stands for it (mon_seq_lost), the rule the timeline, the
 * pipeline's stages and the exporters share.
 */
#include <errno.h>

#include "evstream.h"

static struct mkm_event rec(uint32_t seq, uint8_t type, uint32_t arg0)
{
	return (struct mkm_event){ .time_ns = 1000 + seq,
				   .seq = seq,
				   .cpu = 3,
				   .type = type,
				   .arg0 = arg0 };
}

static void test_mon_seq_lost_consecutive(void **state)
{
	struct mon_seq_track t = { 0 };
	struct mkm_event lost = { 0 }, e;

	(void)state;
	/* The first record opens the stream, whatever its seq. */
	e = rec(40, MKM_EV_SWITCH_IN, 0);
	assert_int_equal(mon_seq_lost(&t, &e, 5, &lost), 0);
	for (uint32_t s = 41; s < 50; s++) {
		e = rec(s, MKM_EV_SWITCH_OUT, 0);
		assert_int_equal(mon_seq_lost(&t, &e, 5, &lost), 0);
	}
	assert_int_equal(t.next, 50);
}

static void test_mon_seq_lost_hole(void **state)
{
	struct mon_seq_track t = { 0 };
	struct mkm_event lost = { 0 }, e;

	(void)state;
	e = rec(10, MKM_EV_SWITCH_IN, 0);
	mon_seq_lost(&t, &e, 0, &lost);
	e = rec(17, MKM_EV_SWITCH_OUT, 0);
	assert_int_equal(mon_seq_lost(&t, &e, 1234, &lost), 1);
	assert_int_equal(lost.type, MKM_EV_LOST);
	assert_int_equal(lost.arg0, 6); /* 11 to 16 */
	assert_int_equal(lost.seq, 11);
	assert_int_equal(lost.cpu, 3);
	assert_int_equal(lost.time_ns, 1234);
	assert_int_equal(t.next, 18);
}

static void test_mon_seq_lost_announced(void **state)
{
	struct mon_seq_track t = { 0 };
	struct mkm_event lost = { 0 }, e;

	(void)state;
	e = rec(10, MKM_EV_SWITCH_IN, 0);
	mon_seq_lost(&t, &e, 0, &lost);
	/* A LOST record at the hole's start announces it: nothing more. */
	e = rec(11, MKM_EV_LOST, 100);
	assert_int_equal(mon_seq_lost(&t, &e, 0, &lost), 0);
	e = rec(111, MKM_EV_SWITCH_OUT, 0);
	assert_int_equal(mon_seq_lost(&t, &e, 0, &lost), 0);
	/* One after a hole of its own: only that hole is missing. */
	e = rec(115, MKM_EV_LOST, 5);
	assert_int_equal(mon_seq_lost(&t, &e, 0, &lost), 1);
	assert_int_equal(lost.arg0, 3);
	assert_int_equal(lost.seq, 112);
	assert_int_equal(t.next, 120);
}

static void test_mon_seq_lost_backwards(void **state)
{
	struct mon_seq_track t = { 0 };
	struct mkm_event lost = { .arg0 = 77 }, e;

	(void)state;
	e = rec(10, MKM_EV_SWITCH_IN, 0);
	mon_seq_lost(&t, &e, 0, &lost);
	e = rec(8, MKM_EV_SWITCH_OUT, 0);
	assert_int_equal(mon_seq_lost(&t, &e, 0, &lost), -ERANGE);
	assert_int_equal(lost.arg0, 77); /* untouched */
	/* The stream goes on from the repeat. */
	assert_int_equal(t.next, 9);
	e = rec(9, MKM_EV_SWITCH_IN, 0);
	assert_int_equal(mon_seq_lost(&t, &e, 0, &lost), 0);
}

static void test_mon_seq_lost_wraps(void **state)
{
	struct mon_seq_track t = { 0 };
	struct mkm_event lost = { 0 }, e;

	(void)state;
	e = rec(UINT32_MAX - 1, MKM_EV_SWITCH_IN, 0);
	mon_seq_lost(&t, &e, 0, &lost);
	/* UINT32_MAX and 0 missing across the wrap: a loss, not a repeat. */
	e = rec(1, MKM_EV_SWITCH_OUT, 0);
	assert_int_equal(mon_seq_lost(&t, &e, 0, &lost), 1);
	assert_int_equal(lost.arg0, 2);
	assert_int_equal(lost.seq, UINT32_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mon_seq_lost_consecutive),
		cmocka_unit_test(test_mon_seq_lost_hole),
		cmocka_unit_test(test_mon_seq_lost_announced),
		cmocka_unit_test(test_mon_seq_lost_backwards),
		cmocka_unit_test(test_mon_seq_lost_wraps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
