// SPDX-License-Identifier: GPL-2.0
/*
 * test_switch.c - switch.c: a SWITCH record split into the SWITCH_OUT and
 * SWITCH_IN it stands for, alone (mon_event_split) and over a stream
 * (mon_split: next's unique_id from its own records, seq numbers moved up
 * so that the output is the stream the kernel writes without
 * MKM_CONFIG_ONE_SWITCH).
 */
#include <errno.h>
#include <stdlib.h>

#include "evstream.h"

static void expect_same_event(const struct mkm_event *a,
			      const struct mkm_event *b)
{
	assert_int_equal(a->time_ns, b->time_ns);
	assert_int_equal(a->cpu, b->cpu);
	assert_string_equal(mon_event_name(a->type), mon_event_name(b->type));
	assert_int_equal(a->tid, b->tid);
	assert_int_equal(a->unique_id, b->unique_id);
	assert_int_equal(a->flags, b->flags);
	assert_int_equal(a->arg0, b->arg0);
	assert_int_equal(a->arg1, b->arg1);
	assert_int_equal(a->seq, b->seq);
}

static void test_mon_event_split_switch(void **state)
{
	struct mkm_event e = {
		.time_ns = 5000,
		.tid = 7,
		.unique_id = 70,
		.seq = 41,
		.cpu = 3,
		.type = MKM_EV_SWITCH,
		.flags = MKM_EVF_PREEMPTED | MKM_EVF_LOCK_WAIT |
			 MKM_EVF_WAIT_US |
			 MKM_TS_UNINTERRUPTIBLE << MKM_EVF_STATE_SHIFT,
		.arg0 = 12,
		.arg1 = 8,
	};
	struct mkm_event out[2];

	(void)state;
	assert_int_equal(mon_event_split(&e, 80, out), 2);
	assert_int_equal(out[0].type, MKM_EV_SWITCH_OUT);
	assert_int_equal(out[0].tid, 7);
	assert_int_equal(out[0].unique_id, 70);
	assert_int_equal(out[0].flags, MKM_EVF_PREEMPTED | MKM_EVF_LOCK_WAIT);
	assert_int_equal(out[0].arg0, MKM_TS_UNINTERRUPTIBLE);
	assert_int_equal(out[0].arg1, 8);
	assert_int_equal(out[1].type, MKM_EV_SWITCH_IN);
	assert_int_equal(out[1].tid, 8);
	assert_int_equal(out[1].unique_id, 80);
	assert_int_equal(out[1].flags, MKM_EVF_WAIT_US);
	assert_int_equal(out[1].arg0, 12);
	assert_int_equal(out[1].arg1, 7);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(out[k].time_ns, 5000);
		assert_int_equal(out[k].cpu, 3);
		assert_int_equal(out[k].seq, 41);
	}
	/* Every state fits: ZOMBIE is the highest. */
	e.flags = MKM_TS_ZOMBIE << MKM_EVF_STATE_SHIFT;
	assert_int_equal(mon_event_split(&e, 0, out), 2);
	assert_int_equal(out[0].arg0, MKM_TS_ZOMBIE);
	assert_int_equal(out[0].flags, 0);
	assert_int_equal(out[1].flags, 0);
}

static void test_mon_event_split_other(void **state)
{
	struct mkm_event e = { .time_ns = 9,
			       .tid = 4,
			       .type = MKM_EV_SWITCH_OUT,
			       .flags = MKM_EVF_PREEMPTED,
			       .arg1 = 5 };
	struct mkm_event out[2];

	(void)state;
	assert_int_equal(mon_event_split(&e, 99, out), 1);
	assert_memory_equal(&out[0], &e, sizeof(e));
}

/* The SWITCH stream, split, is the two-record stream, record by record. */
static void test_mon_split_event_stream(void **state)
{
	static struct evs one, two;
	struct mon_split *sp = mon_split_new();
	struct mkm_event out[2];
	size_t i, n = 0;
	int k;

	(void)state;
	assert_non_null(sp);
	evs_switch_run(&one, true);
	evs_switch_run(&two, false);
	assert_true(one.n < two.n);
	for (i = 0; i < one.n; i++) {
		k = mon_split_event(sp, &one.ev[i], out);
		assert_true(k == 1 || k == 2);
		assert_int_equal(k == 2, one.ev[i].type == MKM_EV_SWITCH);
		for (int j = 0; j < k; j++) {
			assert_true(n < two.n);
			expect_same_event(&out[j], &two.ev[n++]);
		}
	}
	assert_int_equal(n, two.n);
	assert_int_equal(mon_split_unique_id(sp, 14), 1014);
	assert_int_equal(mon_split_unique_id(sp, 77), 0);
	mon_split_free(sp);
}

/* A hole in a CPU's seq numbers stays a hole of the same size; a LOST
 * record's seq moves with the rest; another CPU's seqs do not. */
static void test_mon_split_event_holes(void **state)
{
	struct evs s;
	struct mon_split *sp = mon_split_new();
	struct mkm_event out[2];

	(void)state;
	memset(&s, 0, sizeof(s));
	ATTACH(&s, 10, 0, 1, MKM_TS_RUNNING, 0);
	ATTACH(&s, 11, 0, 2, MKM_TS_RUNNING, 0xffffffffu);
	evs_switch(&s, true, 20, 0, 1, MKM_TS_RUNNING, 0, 2, 5, 0);
	s.seq[0] += 3; /* three events dropped */
	evs_switch(&s, true, 30, 0, 2, MKM_TS_RUNNING, 0, 1, 5, 0);
	evs_add(&s, 30, 0, MKM_EV_LOST, 0, 4, 0, 0);
	s.seq[0] += 3; /* the four: the LOST's seq and three more */
	evs_add(&s, 40, 0, MKM_EV_MARK, 1, 0, 0, 0);
	evs_add(&s, 40, 1, MKM_EV_MARK, 1, 0, 0, 0);

	assert_int_equal(mon_split_event(sp, &s.ev[0], out), 1);
	assert_int_equal(out[0].seq, 0);
	assert_int_equal(mon_split_event(sp, &s.ev[1], out), 1);
	assert_int_equal(out[0].seq, 1);
	assert_int_equal(mon_split_event(sp, &s.ev[2], out), 2);
	assert_int_equal(out[0].seq, 2);
	assert_int_equal(out[1].seq, 3);
	assert_int_equal(out[1].unique_id, 1002);
	assert_int_equal(mon_split_event(sp, &s.ev[3], out), 2);
	assert_int_equal(out[0].seq, 4 + 3); /* the hole of 3 kept */
	assert_int_equal(out[1].seq, 8);
	assert_int_equal(out[1].unique_id, 1001);
	assert_int_equal(mon_split_event(sp, &s.ev[4], out), 1);
	assert_int_equal(out[0].seq, 9); /* LOST: 4 from here */
	assert_int_equal(mon_split_event(sp, &s.ev[5], out), 1);
	assert_int_equal(out[0].seq, 13);
	assert_int_equal(mon_split_event(sp, &s.ev[6], out), 1);
	assert_int_equal(out[0].seq, 0); /* CPU 1: nothing split there */
	mon_split_free(sp);
}

/* Next's unique_id: from its ATTACH, from an inheriting FORK, the latest
 * record of its tid (a tid reused), 0 before any. */
static void test_mon_split_event_unique_id(void **state)
{
	struct mon_split *sp = mon_split_new();
	struct mkm_event e = { .tid = 1,
			       .unique_id = 100,
			       .type = MKM_EV_SWITCH,
			       .arg1 = 2 },
			 other = { .tid = 2,
				   .unique_id = 200,
				   .type = MKM_EV_ATTACH },
			 fork = { .tid = 1,
				  .unique_id = 100,
				  .type = MKM_EV_FORK,
				  .flags = MKM_EVF_INHERITED,
				  .arg0 = 3,
				  .arg1 = 3 };
	struct mkm_event out[2];

	(void)state;
	assert_int_equal(mon_split_event(sp, &e, out), 2);
	assert_int_equal(out[1].unique_id, 0); /* not seen yet */
	assert_int_equal(mon_split_note(sp, &other), 0);
	assert_int_equal(mon_split_event(sp, &e, out), 2);
	assert_int_equal(out[1].unique_id, 200);
	other.unique_id = 201; /* tid 2 reused by another thread */
	assert_int_equal(mon_split_note(sp, &other), 0);
	assert_int_equal(mon_split_event(sp, &e, out), 2);
	assert_int_equal(out[1].unique_id, 201);
	assert_int_equal(mon_split_note(sp, &fork), 0);
	e.arg1 = 3;
	assert_int_equal(mon_split_event(sp, &e, out), 2);
	assert_int_equal(out[1].unique_id, 3);
	/* Many threads: the map grows and keeps them all. */
	for (uint32_t t = 10; t < 1010; t++) {
		other.tid = t;
		other.unique_id = t * 7;
		assert_int_equal(mon_split_note(sp, &other), 0);
	}
	for (uint32_t t = 10; t < 1010; t++)
		assert_int_equal(mon_split_unique_id(sp, t), t * 7);
	assert_int_equal(mon_split_unique_id(sp, 100000), 0);
	assert_int_equal(mon_split_event(NULL, &e, out), -EINVAL);
	mon_split_free(sp);
	mon_split_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mon_event_split_switch),
		cmocka_unit_test(test_mon_event_split_other),
		cmocka_unit_test(test_mon_split_event_stream),
		cmocka_unit_test(test_mon_split_event_holes),
		cmocka_unit_test(test_mon_split_event_unique_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
