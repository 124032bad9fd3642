// SPDX-License-Identifier: GPL-2.0
/*
 * test_timeline.c - unit tests of libmonitor/src/timeline/: synthetic
 * event streams against hand-checked timelines.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include "evstream.h"

#define NONE 0xffffffffu
#define T 100

static void test_tl_feed_sleep_wakeup_flutter(void **state)
{
	struct evs s = { 0 };
	struct tl_thread th;
	struct tl *tl;

	(void)state;
	ATTACH(&s, 1000, 0, T, MKM_TS_RUNNING, 0);
	OUT(&s, 2000, 0, T, MKM_TS_INTERRUPTIBLE, 0);
	WAKEUP(&s, 5000, 1, T, 0);
	IN(&s, 6000, 0, T, 0); /* back from idle: a flutter */
	evs_add(&s, 7000, 0, MKM_EV_SWITCH_OUT, T, MKM_TS_RUNNING, 55,
		MKM_EVF_PREEMPTED);
	IN(&s, 8000, 0, T, 55); /* another thread ran: no flutter */
	tl = build(&s, 0, 2);
	EXPECT(tl, T, { 1000, 2000, TL_RUN, 0 }, { 2000, 5000, TL_SLEEP, 0 },
	       { 5000, 6000, TL_RUNQ, 0 }, { 6000, 7000, TL_RUN, 0 },
	       { 7000, 8000, TL_RUNQ, 0 }, { 8000, 8000, TL_RUN, 0 });
	assert_int_equal(tl_thread(tl, 0, &th), 0);
	assert_int_equal(th.flutters, 1);
	assert_int_equal(th.switches, 2);
	assert_int_equal(th.unique_id, T + 1000);
	assert_int_equal(th.end, TL_ALIVE);
	assert_int_equal(th.anomalies, 0);
	/* The flutter, timed: when and where the thread came back. */
	{
		struct tl_flutter f;

		assert_int_equal(tl_nr_flutters(tl), 1);
		assert_int_equal(tl_flutter(tl, 0, &f), 0);
		assert_int_equal(f.time_ns, 6000);
		assert_int_equal(f.thread, 0);
		assert_int_equal(f.cpu, 0);
		assert_int_equal(tl_flutter(tl, 1, &f), -ENOENT);
		assert_int_equal(tl_flutter(NULL, 0, &f), -EINVAL);
	}
	tl_destroy(tl);
}

static void test_tl_feed_every_switch_out_state(void **state)
{
	struct evs s = { 0 };
	struct tl_thread th;
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_RUNNING, NONE); /* runnable, off CPU */
	IN(&s, 200, 1, T, 0);
	OUT(&s, 300, 1, T, MKM_TS_UNINTERRUPTIBLE, 0);
	WAKEUP(&s, 400, 0, T, 1);
	IN(&s, 500, 1, T, 0);
	OUT(&s, 600, 1, T, MKM_TS_STOPPED, 0);
	WAKEUP(&s, 700, 1, T, 1); /* SIGCONT */
	IN(&s, 800, 1, T, 0);
	OUT(&s, 900, 1, T, MKM_TS_TRACED, 0);
	WAKEUP(&s, 1000, 1, T, 1);
	IN(&s, 1100, 1, T, 0);
	OUT(&s, 1200, 1, T, MKM_TS_PARKED, 0);
	WAKEUP(&s, 1300, 1, T, 1);
	IN(&s, 1400, 1, T, 0);
	evs_add(&s, 1500, 1, MKM_EV_EXIT, T, 0, 0, 0); /* still running */
	OUT(&s, 1600, 1, T, MKM_TS_ZOMBIE, 0); /* until its parent waits */
	evs_add(&s, 1700, 0, MKM_EV_REAP, T, 0, 0, 0);
	tl = build(&s, 0, 2);
	EXPECT(tl, T, { 100, 200, TL_RUNQ, 0 }, { 200, 300, TL_RUN, 1 },
	       { 300, 400, TL_DISK, 1 }, { 400, 500, TL_RUNQ, 1 },
	       { 500, 600, TL_RUN, 1 }, { 600, 700, TL_STOPPED, 1 },
	       { 700, 800, TL_RUNQ, 1 }, { 800, 900, TL_RUN, 1 },
	       { 900, 1000, TL_STOPPED, 1 }, { 1000, 1100, TL_RUNQ, 1 },
	       { 1100, 1200, TL_RUN, 1 }, { 1200, 1300, TL_SLEEP, 1 },
	       { 1300, 1400, TL_RUNQ, 1 }, { 1400, 1600, TL_RUN, 1 },
	       { 1600, 1700, TL_ZOMBIE, 1 });
	assert_int_equal(tl_thread(tl, 0, &th), 0);
	assert_int_equal(th.end, TL_REAPED);
	assert_int_equal(th.end_ns, 1700);
	assert_int_equal(th.anomalies, 0);
	tl_destroy(tl);
}

static void test_tl_feed_attach_states(void **state)
{
	static const struct {
		uint32_t ts;
		unsigned int expect;
	} cases[] = {
		{ MKM_TS_INTERRUPTIBLE, TL_SLEEP },
		{ MKM_TS_UNINTERRUPTIBLE, TL_DISK },
		{ MKM_TS_STOPPED, TL_STOPPED },
		{ MKM_TS_TRACED, TL_STOPPED },
		{ MKM_TS_DEAD, TL_ZOMBIE },
		{ MKM_TS_ZOMBIE, TL_ZOMBIE },
		{ MKM_TS_PARKED, TL_SLEEP },
		{ 99, TL_UNKNOWN },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct evs s = { 0 };
		struct tl_interval iv;
		struct tl *tl;

		ATTACH(&s, 100, 0, T, cases[i].ts, NONE);
		tl = build(&s, 0, 1);
		assert_int_equal(tl_interval(tl, 0, 0, &iv), 0);
		assert_string_equal(tl_state_name(iv.state),
				    tl_state_name(cases[i].expect));
		assert_int_equal(iv.open, 1);
		tl_destroy(tl);
	}
}

static void test_tl_feed_irq_nesting(void **state)
{
	struct evs s = { 0 };
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_RUNNING, 0);
	evs_add(&s, 200, 0, MKM_EV_IRQ_ENTRY, T, 5, 0, 0);
	evs_add(&s, 250, 0, MKM_EV_SOFTIRQ_ENTRY, T, 3, 0, 0);
	evs_add(&s, 300, 0, MKM_EV_SOFTIRQ_EXIT, T, 3, 0, 0);
	evs_add(&s, 400, 0, MKM_EV_IRQ_EXIT, T, 5, 1, 0);
	evs_add(&s, 500, 0, MKM_EV_SOFTIRQ_ENTRY, T, 1, 0, 0);
	evs_add(&s, 600, 0, MKM_EV_SOFTIRQ_EXIT, T, 1, 0, 0);
	OUT(&s, 700, 0, T, MKM_TS_INTERRUPTIBLE, 0);
	tl = build(&s, 0, 1);
	EXPECT(tl, T, { 100, 200, TL_RUN, 0 }, { 200, 400, TL_INTERRUPTED, 0 },
	       { 400, 500, TL_RUN, 0 }, { 500, 600, TL_INTERRUPTED, 0 },
	       { 600, 700, TL_RUN, 0 }, { 700, 700, TL_SLEEP, 0 });
	tl_destroy(tl);
}

static void test_tl_feed_irq_exit_unmatched(void **state)
{
	struct evs s = { 0 };
	struct tl_thread th;
	struct tl *tl;

	(void)state;
	/* The entry happened before the stream began. */
	ATTACH(&s, 100, 0, T, MKM_TS_RUNNING, 0);
	evs_add(&s, 200, 0, MKM_EV_IRQ_EXIT, T, 5, 1, 0);
	evs_add(&s, 300, 0, MKM_EV_IRQ_ENTRY, T, 5, 0, 0);
	tl = build(&s, 0, 1);
	EXPECT(tl, T, { 100, 300, TL_RUN, 0 }, { 300, 300, TL_INTERRUPTED, 0 });
	assert_int_equal(tl_thread(tl, 0, &th), 0);
	assert_int_equal(th.anomalies, 1);
	tl_destroy(tl);
}

static void syscall_stream(struct evs *s)
{
	ATTACH(s, 100, 0, T, MKM_TS_RUNNING, 0);
	evs_add(s, 150, 0, MKM_EV_SYSCALL_EXIT, T, 0, 0, 0);
	evs_add(s, 200, 0, MKM_EV_SYSCALL_ENTRY, T, SYS_futex, 0, 0);
	OUT(s, 300, 0, T, MKM_TS_INTERRUPTIBLE, 0);
	WAKEUP(s, 400, 1, T, 0);
	IN(s, 500, 0, T, 0);
	evs_add(s, 600, 0, MKM_EV_SYSCALL_EXIT, T, SYS_futex, 0, 0);
	evs_add(s, 700, 0, MKM_EV_SYSCALL_ENTRY, T, SYS_ppoll, 0, 0);
	OUT(s, 800, 0, T, MKM_TS_INTERRUPTIBLE, 0);
	WAKEUP(s, 900, 1, T, 0);
	IN(s, 1000, 0, T, 0);
	evs_add(s, 1100, 0, MKM_EV_SYSCALL_EXIT, T, SYS_ppoll, 0, 0);
	evs_add(s, 1200, 0, MKM_EV_SYSCALL_ENTRY, T, SYS_read, 0, 0);
	OUT(s, 1300, 0, T, MKM_TS_INTERRUPTIBLE, 0);
}

static void test_tl_feed_syscalls_refine_run_and_sleep(void **state)
{
	struct evs s = { 0 };
	struct tl *tl;

	(void)state;
	syscall_stream(&s);
	tl = build(&s, MKM_CLASS_ALL, 2);
	EXPECT(tl, T, { 100, 150, TL_RUN, 0 }, { 150, 200, TL_RUN_USER, 0 },
	       { 200, 300, TL_RUN_SYS, 0 }, { 300, 400, TL_FUTEX_SLEEP, 0 },
	       { 400, 500, TL_RUNQ, 0 }, { 500, 600, TL_RUN_SYS, 0 },
	       { 600, 700, TL_RUN_USER, 0 }, { 700, 800, TL_RUN_SYS, 0 },
	       { 800, 900, TL_POLL_SLEEP, 0 }, { 900, 1000, TL_RUNQ, 0 },
	       { 1000, 1100, TL_RUN_SYS, 0 }, { 1100, 1200, TL_RUN_USER, 0 },
	       { 1200, 1300, TL_RUN_SYS, 0 }, { 1300, 1300, TL_SLEEP, 0 });
	tl_destroy(tl);
}

/* A time of UINT64_MAX, the reorder queue's end mark, is taken as the
 * instant before it, an anomaly, also at the end of a run of records. */
static void test_tl_feed_time_max_clamped(void **state)
{
	struct evs s = { 0 };
	struct tl_stats st;
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_RUNNING, 0);
	evs_add(&s, 200, 0, MKM_EV_SYSCALL_ENTRY, T, 0, 0, 0);
	evs_add(&s, UINT64_MAX, 0, MKM_EV_SYSCALL_EXIT, T, 0, 0, 0);
	evs_add(&s, UINT64_MAX, 0, MKM_EV_SYSCALL_ENTRY, T, 0, 0, 0);
	tl = build(&s, MKM_CLASS_ALL, 1);
	assert_int_equal(tl_stats(tl, &st), 0);
	assert_int_equal(st.events, 4);
	assert_int_equal(st.anomalies, 2);
	EXPECT(tl, T, { 100, 200, TL_RUN, 0 },
	       { 200, UINT64_MAX - 1, TL_RUN_SYS, 0 },
	       { UINT64_MAX - 1, UINT64_MAX - 1, TL_RUN_SYS, 0 });
	tl_destroy(tl);
}

/*
 * A CPU's seq numbers wrap from UINT32_MAX to 0 in one batch: nothing is
 * lost, every record counts (the feed's run, which checks seq and CPU as
 * one integer, ends at the wrap and takes up again after it).
 */
static void test_tl_feed_seq_wraps(void **state)
{
	struct evs s = { 0 };
	struct tl_stats st;
	struct tl *tl;

	(void)state;
	s.seq[0] = UINT32_MAX - 1;
	ATTACH(&s, 100, 0, T, MKM_TS_RUNNING, 0);
	evs_add(&s, 200, 0, MKM_EV_SYSCALL_ENTRY, T, 0, 0, 0);
	evs_add(&s, 300, 0, MKM_EV_SYSCALL_EXIT, T, 0, 0, 0);
	evs_add(&s, 400, 0, MKM_EV_SYSCALL_ENTRY, T, 0, 0, 0);
	evs_add(&s, 500, 0, MKM_EV_SYSCALL_EXIT, T, 0, 0, 0);
	assert_int_equal(s.ev[2].seq, 0);
	tl = build(&s, MKM_CLASS_ALL, 1);
	assert_int_equal(tl_stats(tl, &st), 0);
	assert_int_equal(st.events, 5);
	assert_int_equal(st.seq_gaps, 0);
	assert_int_equal(st.lost, 0);
	assert_int_equal(st.anomalies, 0);
	EXPECT(tl, T, { 100, 200, TL_RUN, 0 }, { 200, 300, TL_RUN_SYS, 0 },
	       { 300, 400, TL_RUN_USER, 0 }, { 400, 500, TL_RUN_SYS, 0 },
	       { 500, 500, TL_RUN_USER, 0 });
	tl_destroy(tl);
}

static void test_tl_feed_syscalls_off_plain_run(void **state)
{
	struct evs s = { 0 };
	struct tl *tl;

	(void)state;
	syscall_stream(&s);
	tl = build(&s, MKM_CLASS_DEFAULT, 2);
	EXPECT(tl, T, { 100, 300, TL_RUN, 0 }, { 300, 400, TL_SLEEP, 0 },
	       { 400, 500, TL_RUNQ, 0 }, { 500, 800, TL_RUN, 0 },
	       { 800, 900, TL_SLEEP, 0 }, { 900, 1000, TL_RUNQ, 0 },
	       { 1000, 1300, TL_RUN, 0 }, { 1300, 1300, TL_SLEEP, 0 });
	tl_destroy(tl);
}

/*
 * Without WAKEUP records, SWITCH_IN's run-queue wait (ns, or us with
 * WAIT_US) ends the sleep; a wait longer than the sleep is clamped to it,
 * and a WAKEUP, when there is one, wins.
 */
static void test_tl_feed_switch_in_wait(void **state)
{
	struct evs s = { 0 };
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_RUNNING, 0);
	OUT(&s, 200, 0, T, MKM_TS_INTERRUPTIBLE, 0);
	evs_add(&s, 500, 0, MKM_EV_SWITCH_IN, T, 120, 0, 0);
	OUT(&s, 600, 0, T, MKM_TS_UNINTERRUPTIBLE, 0);
	evs_add(&s, 10600, 1, MKM_EV_SWITCH_IN, T, 3, 0, MKM_EVF_WAIT_US);
	OUT(&s, 10700, 1, T, MKM_TS_INTERRUPTIBLE, 0);
	evs_add(&s, 10900, 1, MKM_EV_SWITCH_IN, T, 1000, 0, 0);
	OUT(&s, 11000, 1, T, MKM_TS_INTERRUPTIBLE, 0);
	WAKEUP(&s, 11100, 1, T, 1);
	evs_add(&s, 11300, 1, MKM_EV_SWITCH_IN, T, 50, 0, 0);
	OUT(&s, 11400, 1, T, MKM_TS_INTERRUPTIBLE, 0);
	tl = build(&s, MKM_CLASS_DEFAULT, 2);
	EXPECT(tl, T, { 100, 200, TL_RUN, 0 }, { 200, 380, TL_SLEEP, 0 },
	       { 380, 500, TL_RUNQ, 0 }, { 500, 600, TL_RUN, 0 },
	       { 600, 7600, TL_DISK, 0 }, { 7600, 10600, TL_RUNQ, 1 },
	       { 10600, 10700, TL_RUN, 1 }, { 10700, 10900, TL_RUNQ, 1 },
	       { 10900, 11000, TL_RUN, 1 }, { 11000, 11100, TL_SLEEP, 1 },
	       { 11100, 11300, TL_RUNQ, 1 }, { 11300, 11400, TL_RUN, 1 },
	       { 11400, 11400, TL_SLEEP, 1 });
	tl_destroy(tl);
}

/*
 * A flight recorder's window (TL_WINDOW): threads begin at their CPU's
 * first record, in the state their first record shows they had there;
 * an ATTACH or a WAKEUP_NEW still begins a thread, and a stream that is
 * no window begins each at its first record.
 */
static void test_tl_feed_window_start_states(void **state)
{
	struct tl_config cfg = { .nr_cpus = 2,
				 .classes = MKM_CLASS_DEFAULT,
				 .flags = TL_WINDOW };
	struct evs s = { 0 };
	struct tl *tl;

	(void)state;
	/* CPU 0's window begins at 100: 10 was on it, 11 queued since 250. */
	evs_add(&s, 100, 0, MKM_EV_MARK, 99, 0, 0, 0);
	OUT(&s, 300, 0, 10, MKM_TS_INTERRUPTIBLE, 11);
	evs_add(&s, 300, 0, MKM_EV_SWITCH_IN, 11, 50, 10, 0);
	/* CPU 1's at 200: 12 queued longer than the window, 13 asleep. */
	evs_add(&s, 200, 1, MKM_EV_IRQ_ENTRY, 14, 33, 0, 0);
	evs_add(&s, 220, 1, MKM_EV_IRQ_EXIT, 14, 33, 1, 0);
	evs_add(&s, 400, 1, MKM_EV_SWITCH_OUT, 14, MKM_TS_RUNNING, 12,
		MKM_EVF_PREEMPTED);
	evs_add(&s, 400, 1, MKM_EV_SWITCH_IN, 12, 1000, 14, 0);
	WAKEUP(&s, 500, 1, 13, 1);
	ATTACH(&s, 600, 1, 15, MKM_TS_INTERRUPTIBLE, NONE);
	evs_add(&s, 700, 1, MKM_EV_WAKEUP_NEW, 16, 1, 12, 0);
	assert_int_equal(tl_create(&tl, &cfg), 0);
	assert_int_equal(tl_feed(tl, s.ev, s.n), 0);
	assert_int_equal(tl_flush(tl), 0);
	EXPECT(tl, 10, { 100, 300, TL_RUN, 0 }, { 300, 700, TL_SLEEP, 0 });
	EXPECT(tl, 11, { 100, 250, TL_UNKNOWN, 0 }, { 250, 300, TL_RUNQ, 0 },
	       { 300, 700, TL_RUN, 0 });
	EXPECT(tl, 12, { 200, 400, TL_RUNQ, 1 }, { 400, 700, TL_RUN, 1 });
	EXPECT(tl, 13, { 200, 500, TL_UNKNOWN, 1 }, { 500, 700, TL_RUNQ, 1 });
	EXPECT(tl, 14, { 200, 220, TL_INTERRUPTED, 1 }, { 220, 400, TL_RUN, 1 },
	       { 400, 700, TL_RUNQ, 1 });
	EXPECT(tl, 15, { 600, 700, TL_SLEEP, 1 });
	EXPECT(tl, 16, { 700, 700, TL_RUNQ, 1 });
	tl_destroy(tl);

	/* The same records as a whole recording: each from its first. */
	tl = build(&s, MKM_CLASS_DEFAULT, 2);
	EXPECT(tl, 10, { 300, 700, TL_SLEEP, 0 });
	EXPECT(tl, 12, { 400, 700, TL_RUN, 1 });
	tl_destroy(tl);
}

static void test_tl_feed_migration(void **state)
{
	struct evs s = { 0 };
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_RUNNING, 0);
	evs_add(&s, 200, 0, MKM_EV_SWITCH_OUT, T, MKM_TS_RUNNING, 7,
		MKM_EVF_PREEMPTED);
	evs_add(&s, 250, 1, MKM_EV_MIGRATE, T, 1, 0, 0);
	IN(&s, 300, 1, T, 0);
	OUT(&s, 400, 1, T, MKM_TS_INTERRUPTIBLE, 0);
	evs_add(&s, 450, 0, MKM_EV_MIGRATE, T, 0, 1, 0); /* while asleep */
	WAKEUP(&s, 460, 0, T, 0);
	IN(&s, 500, 0, T, 0);
	tl = build(&s, 0, 2);
	EXPECT(tl, T, { 100, 200, TL_RUN, 0 }, { 200, 250, TL_RUNQ, 0 },
	       { 250, 300, TL_RUNQ, 1 }, { 300, 400, TL_RUN, 1 },
	       { 400, 460, TL_SLEEP, 1 }, { 460, 500, TL_RUNQ, 0 },
	       { 500, 500, TL_RUN, 0 });
	tl_destroy(tl);
}

/* A on CPU 0, B on CPU 1, C asleep; 5 events lost on CPU 0 at 200. */
static void lost_stream(struct evs *s, bool record)
{
	ATTACH(s, 100, 0, 100, MKM_TS_RUNNING, 0);
	ATTACH(s, 100, 0, 200, MKM_TS_RUNNING, 1);
	ATTACH(s, 100, 0, 300, MKM_TS_INTERRUPTIBLE, NONE);
	if (record) {
		evs_add(s, 200, 0, MKM_EV_LOST, 0, 5, 0, 0);
		s->seq[0] += 5 - 1;
	} else {
		evs_add(s, 200, 0, MKM_EV_NAME, 100, 0, 0, 0);
		s->seq[0] += 5;
	}
	OUT(s, 600, 0, 100, MKM_TS_INTERRUPTIBLE, 0);
	evs_add(s, 700, 1, MKM_EV_SWITCH_OUT, 200, MKM_TS_RUNNING, 9,
		MKM_EVF_PREEMPTED);
	WAKEUP(s, 800, 1, 300, 1);
}

static void check_lost(struct tl *tl)
{
	struct tl_stats st;
	struct acct_cpu c;

	EXPECT(tl, 100, { 100, 200, TL_RUN, 0 }, { 200, 600, TL_UNKNOWN, 0 },
	       { 600, 800, TL_SLEEP, 0 });
	EXPECT(tl, 200, { 100, 700, TL_RUN, 1 }, { 700, 800, TL_RUNQ, 1 });
	EXPECT(tl, 300, { 100, 200, TL_SLEEP, 0 }, { 200, 800, TL_UNKNOWN, 0 },
	       { 800, 800, TL_RUNQ, 1 });
	assert_int_equal(tl_stats(tl, &st), 0);
	assert_int_equal(st.gaps, 1);
	assert_int_equal(st.lost, 5);
	assert_int_equal(acct_cpu(tl, 0, &c), 0);
	assert_int_equal(c.lost, 5);
}

static void test_tl_feed_lost_record_makes_unknown(void **state)
{
	struct evs s = { 0 };
	struct tl_stats st;
	struct tl *tl;

	(void)state;
	lost_stream(&s, true);
	tl = build(&s, 0, 2);
	check_lost(tl);
	assert_int_equal(tl_stats(tl, &st), 0);
	assert_int_equal(st.seq_gaps, 0);
	tl_destroy(tl);
}

static void test_tl_feed_seq_gap_makes_unknown(void **state)
{
	struct evs s = { 0 };
	struct tl_stats st;
	struct tl *tl;

	(void)state;
	lost_stream(&s, false);
	tl = build(&s, 0, 2);
	check_lost(tl);
	assert_int_equal(tl_stats(tl, &st), 0);
	assert_int_equal(st.seq_gaps, 1);
	tl_destroy(tl);
}

static void test_tl_feed_exit_reap_and_tid_reuse(void **state)
{
	struct evs s = { 0 };
	struct tl_thread th;
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_RUNNING, 0);
	evs_add(&s, 200, 0, MKM_EV_EXIT, T, 0, 0, 0);
	OUT(&s, 300, 0, T, MKM_TS_DEAD, 0);
	evs_add(&s, 400, 1, MKM_EV_REAP, T, 0, 0, 0);
	/* The tid is reused by a new thread. */
	ATTACH(&s, 500, 0, T, MKM_TS_INTERRUPTIBLE, NONE);
	tl = build(&s, 0, 2);
	assert_int_equal(tl_nr_threads(tl), 2);
	/* Released at exit: gone at its last switch, the late REAP ignored. */
	EXPECT_TH(tl, 0, { 100, 300, TL_RUN, 0 });
	assert_int_equal(tl_thread(tl, 0, &th), 0);
	assert_int_equal(th.end, TL_REAPED);
	assert_int_equal(th.end_ns, 300);
	assert_int_equal(tl_find(tl, T), 1);
	EXPECT(tl, T, { 500, 500, TL_SLEEP, 0 });
	tl_destroy(tl);
}

/* Preempted after its EXIT, then nothing: it ends where it left its CPU,
 * not runnable to the end of the trace. */
static void test_tl_flush_exited_and_preempted(void **state)
{
	struct evs s = { 0 };
	struct tl_thread th;
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_RUNNING, 0);
	evs_add(&s, 200, 0, MKM_EV_EXIT, T, 0, 0, 0);
	evs_add(&s, 300, 0, MKM_EV_SWITCH_OUT, T, MKM_TS_RUNNING, 9,
		MKM_EVF_PREEMPTED);
	ATTACH(&s, 400, 1, 200, MKM_TS_RUNNING, 1);
	OUT(&s, 5000, 1, 200, MKM_TS_INTERRUPTIBLE, 0);
	tl = build(&s, 0, 2);
	EXPECT(tl, T, { 100, 300, TL_RUN, 0 }, { 300, 300, TL_RUNQ, 0 });
	assert_int_equal(tl_thread(tl, (size_t)tl_find(tl, T), &th), 0);
	assert_int_equal(th.end_ns, 300);
	tl_destroy(tl);
}

static void test_tl_feed_reap_without_dead_switch(void **state)
{
	struct evs s = { 0 };
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_INTERRUPTIBLE, NONE);
	evs_add(&s, 400, 0, MKM_EV_REAP, T, 0, 0, 0);
	evs_add(&s, 500, 0, MKM_EV_REAP, 999, 0, 0, 0); /* unknown: ignored */
	tl = build(&s, 0, 1);
	assert_int_equal(tl_nr_threads(tl), 1);
	EXPECT(tl, T, { 100, 400, TL_SLEEP, 0 }, { 400, 400, TL_ZOMBIE, 0 });
	tl_destroy(tl);
}

/* Two CPUs; the right answer needs CPU 1's wakeup between CPU 0's records. */
static void ooo_stream(struct evs *s)
{
	ATTACH(s, 100, 1, 200, MKM_TS_RUNNING, 1);
	WAKEUP(s, 300, 1, T, 0);
	OUT(s, 350, 1, 200, MKM_TS_INTERRUPTIBLE, 0);
	ATTACH(s, 100, 0, T, MKM_TS_RUNNING, 0);
	OUT(s, 200, 0, T, MKM_TS_INTERRUPTIBLE, 0);
	IN(s, 400, 0, T, 0);
	evs_add(s, 500, 0, MKM_EV_SWITCH_OUT, T, MKM_TS_RUNNING, 9,
		MKM_EVF_PREEMPTED);
}

static void check_ooo(struct tl *tl)
{
	EXPECT(tl, T, { 100, 200, TL_RUN, 0 }, { 200, 300, TL_SLEEP, 0 },
	       { 300, 400, TL_RUNQ, 0 }, { 400, 500, TL_RUN, 0 },
	       { 500, 500, TL_RUNQ, 0 });
	EXPECT(tl, 200, { 100, 350, TL_RUN, 1 }, { 350, 500, TL_SLEEP, 1 });
}

static void test_tl_feed_out_of_order_cpus_buffered(void **state)
{
	static const size_t pending[] = { 4, 3, 2, 3 };
	struct tl_config cfg = { .nr_cpus = 2 };
	struct evs s = { 0 };
	struct tl_stats st;
	struct tl *tl;
	size_t i;

	(void)state;
	ooo_stream(&s);
	assert_int_equal(tl_create(&tl, &cfg), 0);
	/* CPU 1's batch first: CPU 0 not heard of, nothing is safe. */
	assert_int_equal(tl_feed(tl, s.ev, 3), 0);
	assert_int_equal(tl_stats(tl, &st), 0);
	assert_int_equal(st.pending, 3);
	assert_int_equal(tl_nr_threads(tl), 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(tl_feed(tl, &s.ev[3 + i], 1), 0);
		assert_int_equal(tl_stats(tl, &st), 0);
		assert_int_equal(st.pending, pending[i]);
	}
	assert_int_equal(st.now_ns, 350);
	assert_int_equal(tl_flush(tl), 0);
	check_ooo(tl);
	assert_int_equal(tl_stats(tl, &st), 0);
	assert_int_equal(st.late, 0);
	assert_int_equal(st.pending, 0);
	tl_destroy(tl);
}

static void test_tl_feed_any_batching_same_timeline(void **state)
{
	struct evs s = { 0 };
	size_t chunk, i;

	(void)state;
	ooo_stream(&s);
	for (chunk = 1; chunk <= s.n; chunk++) {
		struct tl_config cfg = { .nr_cpus = 2 };
		struct tl *tl;

		assert_int_equal(tl_create(&tl, &cfg), 0);
		for (i = 0; i < s.n; i += chunk)
			assert_int_equal(tl_feed(tl, &s.ev[i],
						 s.n - i < chunk ? s.n - i :
								   chunk),
					 0);
		assert_int_equal(tl_flush(tl), 0);
		check_ooo(tl);
		tl_destroy(tl);
	}
}

static void test_tl_feed_ties_broken_by_cpu_id(void **state)
{
	int order;

	(void)state;
	/* The same instant on two CPUs: CPU 0 first, whatever came first. */
	for (order = 0; order < 2; order++) {
		struct tl_config cfg = { .nr_cpus = 2 };
		struct evs s = { 0 };
		struct tl *tl;

		ATTACH(&s, 100, 0, T, MKM_TS_RUNNING, 0);
		OUT(&s, 200, 0, T, MKM_TS_INTERRUPTIBLE, 0);
		WAKEUP(&s, 200, 1, T, 0);
		assert_int_equal(tl_create(&tl, &cfg), 0);
		if (order) {
			assert_int_equal(tl_feed(tl, &s.ev[2], 1), 0);
			assert_int_equal(tl_feed(tl, s.ev, 2), 0);
		} else {
			assert_int_equal(tl_feed(tl, s.ev, 3), 0);
		}
		assert_int_equal(tl_flush(tl), 0);
		EXPECT(tl, T, { 100, 200, TL_RUN, 0 },
		       { 200, 200, TL_RUNQ, 0 });
		tl_destroy(tl);
	}
}

static void test_tl_feed_late_cpu_in_auto_mode(void **state)
{
	struct evs s = { 0 };
	struct tl_stats st;
	struct tl *tl;

	(void)state;
	ooo_stream(&s);
	assert_int_equal(tl_create(&tl, NULL), 0);
	/* CPU 0 alone first: with nr_cpus unknown it is processed. */
	assert_int_equal(tl_feed(tl, &s.ev[3], 4), 0);
	assert_int_equal(tl_feed(tl, s.ev, 3), 0);
	assert_int_equal(tl_flush(tl), 0);
	assert_int_equal(tl_stats(tl, &st), 0);
	assert_true(st.late >= 2);
	check_invariants(tl);
	tl_destroy(tl);
}

static void test_tl_advance_passes_idle_cpu(void **state)
{
	struct tl_config cfg = { .nr_cpus = 2 };
	struct evs s = { 0 };
	struct tl_stats st;
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_RUNNING, 0);
	OUT(&s, 200, 0, T, MKM_TS_INTERRUPTIBLE, 0);
	assert_int_equal(tl_create(&tl, &cfg), 0);
	assert_int_equal(tl_feed(tl, s.ev, s.n), 0);
	assert_int_equal(tl_stats(tl, &st), 0);
	assert_int_equal(st.pending, 2); /* CPU 1 silent so far */
	assert_int_equal(tl_advance(tl, 150), 0);
	EXPECT(tl, T, { 100, 150, TL_RUN, 0 });
	assert_int_equal(tl_advance(tl, 1000), 0);
	EXPECT(tl, T, { 100, 200, TL_RUN, 0 }, { 200, 1000, TL_SLEEP, 0 });
	assert_int_equal(tl_advance(tl, 900), 0); /* never goes back */
	assert_int_equal(tl_stats(tl, &st), 0);
	assert_int_equal(st.now_ns, 1000);
	assert_int_equal(st.pending, 0);
	tl_destroy(tl);
}

static void test_tl_feed_wakeup_while_running_ignored(void **state)
{
	struct evs s = { 0 };
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_RUNNING, 0);
	WAKEUP(&s, 150, 1, T, 0);
	evs_add(&s, 160, 1, MKM_EV_WAKING, T, 0, 1, 0);
	OUT(&s, 200, 0, T, MKM_TS_RUNNING, 3);
	WAKEUP(&s, 250, 1, T, 1); /* already runnable */
	tl = build(&s, 0, 2);
	EXPECT(tl, T, { 100, 200, TL_RUN, 0 }, { 200, 250, TL_RUNQ, 0 });
	tl_destroy(tl);
}

static void test_tl_feed_fork_inherited_child(void **state)
{
	struct evs s = { 0 };
	struct tl_thread th;
	struct tl *tl;
	int64_t p;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_RUNNING, 0);
	evs_add(&s, 200, 0, MKM_EV_FORK, T, 101, 101,
		MKM_EVF_THREAD | MKM_EVF_INHERITED);
	evs_add(&s, 210, 0, MKM_EV_WAKEUP_NEW, 101, 1, T, 0);
	evs_add(&s, 215, 0, MKM_EV_NAME, 101, 0x6b726f77, 0x00003172, 0);
	evs_add(&s, 216, 0, MKM_EV_NAME, 101, 0, 0, 1);
	IN(&s, 300, 1, 101, 0);
	OUT(&s, 400, 1, 101, MKM_TS_DEAD, 0);
	/* A fork of a child that is not tracked makes no timeline. */
	evs_add(&s, 500, 0, MKM_EV_FORK, T, 102, 0, MKM_EVF_THREAD);
	tl = build(&s, 0, 2);
	assert_int_equal(tl_nr_threads(tl), 2);
	EXPECT(tl, T, { 100, 500, TL_RUN, 0 });
	EXPECT_TH(tl, (size_t)tl_find(tl, 101), { 200, 210, TL_RUNQ, 0 },
		  { 210, 300, TL_RUNQ, 1 }, { 300, 400, TL_RUN, 1 });
	p = tl_find(tl, T);
	assert_int_equal(tl_thread(tl, (size_t)tl_find(tl, 101), &th), 0);
	assert_int_equal(th.parent, p);
	assert_string_equal(th.name, "workr1");
	tl_destroy(tl);
}

/* The process of a thread in the timeline (tl_thread()'s process). */
static struct tl_process proc_of(const struct tl *tl, uint32_t tid)
{
	struct tl_process pr;
	struct tl_thread th;

	assert_int_equal(tl_thread(tl, (size_t)tl_find(tl, tid), &th), 0);
	assert_int_equal(tl_process(tl, th.process, &pr), 0);
	assert_int_equal(pr.pid, th.tgid);
	return pr;
}

/*
 * Processes: a FORK's MKM_EVF_THREAD puts the child in its parent's
 * process, a FORK without it makes one; threads attached (-p) are in the
 * process the PROCESSES chunk says, else each its own; a pid seen again
 * after its process ended is a new process.
 */
static void test_tl_processes_fork_and_known(void **state)
{
	const struct trace_process known[] = { { 201, 200 }, { 202, 200 } };
	struct tl_config cfg = { .nr_cpus = 2 };
	struct evs s = { 0 };
	struct tl_process pr;
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, 200, MKM_TS_RUNNING, 0);
	ATTACH(&s, 100, 1, 201, MKM_TS_RUNNING, 1);
	ATTACH(&s, 100, 1, 202, MKM_TS_INTERRUPTIBLE, NONE);
	ATTACH(&s, 100, 1, 300, MKM_TS_INTERRUPTIBLE, NONE);
	evs_add(&s, 200, 0, MKM_EV_FORK, 200, 203, 203,
		MKM_EVF_THREAD | MKM_EVF_INHERITED);
	evs_add(&s, 300, 0, MKM_EV_FORK, 201, 400, 400, MKM_EVF_INHERITED);
	evs_add(&s, 400, 0, MKM_EV_FORK, 400, 401, 401,
		MKM_EVF_THREAD | MKM_EVF_INHERITED);
	evs_add(&s, 500, 1, MKM_EV_EXIT, 300, 0, 0, 0);
	OUT(&s, 510, 1, 300, MKM_TS_DEAD, 0);
	/* pid 300 again: a new process, not the old one's */
	ATTACH(&s, 600, 1, 300, MKM_TS_INTERRUPTIBLE, NONE);
	assert_int_equal(tl_create(&tl, &cfg), 0);
	assert_int_equal(tl_processes_known(tl, known, 2), 0);
	assert_int_equal(tl_feed(tl, s.ev, s.n), 0);
	assert_int_equal(tl_flush(tl), 0);

	assert_int_equal(tl_nr_threads(tl), 8);
	assert_int_equal(tl_nr_processes(tl), 4);
	pr = proc_of(tl, 201);
	assert_int_equal(pr.pid, 200);
	assert_int_equal(pr.nr_threads, 4); /* 200, 201, 202, 203 */
	assert_int_equal(pr.leader, tl_find(tl, 200));
	assert_int_equal(proc_of(tl, 203).pid, 200);
	pr = proc_of(tl, 401);
	assert_int_equal(pr.pid, 400);
	assert_int_equal(pr.nr_threads, 2);
	pr = proc_of(tl, 300); /* the latest */
	assert_int_equal(pr.nr_threads, 1);
	assert_int_equal(pr.nr_live, 1);
	assert_int_equal(tl_process(tl, 1, &pr), 0);
	assert_int_equal(pr.pid, 300); /* the first 300, ended */
	assert_int_equal(pr.nr_live, 0);
	assert_int_equal(tl_process(tl, 4, &pr), -ENOENT);
	tl_destroy(tl);
}

/* A PROCESSES entry that comes after its thread moves it there. */
static void test_tl_processes_known_late(void **state)
{
	const struct trace_process known = { 501, 500 };
	struct tl_config cfg = { .nr_cpus = 1 };
	struct evs s = { 0 };
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, 501, MKM_TS_RUNNING, 0);
	assert_int_equal(tl_create(&tl, &cfg), 0);
	assert_int_equal(tl_feed(tl, s.ev, s.n), 0);
	assert_int_equal(tl_flush(tl), 0);
	assert_int_equal(proc_of(tl, 501).pid, 501);
	assert_int_equal(tl_processes_known(tl, &known, 1), 0);
	assert_int_equal(proc_of(tl, 501).pid, 500);
	assert_int_equal(tl_nr_processes(tl), 1);
	assert_int_equal(tl_processes_known(NULL, &known, 1), -EINVAL);
	tl_destroy(tl);
}

/*
 * A THREADS chunk holds the names after the last record: a live thread
 * takes its name over its NAME records' (a flight window may have kept a
 * name its rename's overwritten records replaced), an ended one only if
 * its records left it unnamed, and only a tid's latest timeline does.
 */
static void test_tl_threads_known_name_the_unnamed(void **state)
{
	const struct trace_thread known[] = { { 501, 0, "renamed" },
					      { 502, 0, "late" },
					      { 503, 0, "second" },
					      { 504, 0, "reused" } };
	struct tl_config cfg = { .nr_cpus = 1 };
	struct evs s = { 0 };
	struct tl_thread th;
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, 501, MKM_TS_INTERRUPTIBLE, NONE);
	evs_add(&s, 100, 0, MKM_EV_NAME, 501, 0x006e776f, 0, 0); /* "own" */
	ATTACH(&s, 100, 0, 502, MKM_TS_INTERRUPTIBLE, NONE);
	ATTACH(&s, 100, 0, 503, MKM_TS_RUNNING, 0);
	OUT(&s, 200, 0, 503, MKM_TS_DEAD, 0);
	evs_add(&s, 300, 0, MKM_EV_REAP, 503, 0, 0, 0);
	ATTACH(&s, 400, 0, 503, MKM_TS_INTERRUPTIBLE, NONE); /* tid reused */
	ATTACH(&s, 400, 0, 504, MKM_TS_RUNNING, 0);
	evs_add(&s, 400, 0, MKM_EV_NAME, 504, 0x006e776f, 0, 0); /* "own" */
	OUT(&s, 500, 0, 504, MKM_TS_DEAD, 0);
	evs_add(&s, 600, 0, MKM_EV_REAP, 504, 0, 0, 0);
	assert_int_equal(tl_create(&tl, &cfg), 0);
	assert_int_equal(tl_feed(tl, s.ev, s.n), 0);
	assert_int_equal(tl_threads_known(tl, known, 4), 0);
	assert_int_equal(tl_flush(tl), 0);

	assert_int_equal(tl_thread(tl, (size_t)tl_find(tl, 501), &th), 0);
	assert_string_equal(th.name, "renamed");
	assert_int_equal(tl_thread(tl, (size_t)tl_find(tl, 502), &th), 0);
	assert_string_equal(th.name, "late");
	assert_int_equal(tl_thread(tl, (size_t)tl_find(tl, 504), &th), 0);
	assert_string_equal(th.name, "own");
	assert_int_equal(tl_nr_threads(tl), 5);
	assert_int_equal(tl_thread(tl, (size_t)tl_find(tl, 503), &th), 0);
	assert_string_equal(th.name, "second");
	assert_int_equal(tl_thread(tl, 2, &th), 0); /* the first 503 */
	assert_int_equal(th.tid, 503);
	assert_string_equal(th.name, "");
	assert_int_equal(tl_threads_known(NULL, known, 1), -EINVAL);
	tl_destroy(tl);
}

static void test_tl_feed_first_event_unknown(void **state)
{
	struct evs s = { 0 };
	struct tl *tl;

	(void)state;
	evs_add(&s, 50, 0, MKM_EV_MIGRATE, T, 0, 1, 0); /* unknown: ignored */
	evs_add(&s, 100, 0, MKM_EV_NAME, T, 0x74736574, 0, 0);
	IN(&s, 200, 0, T, 0);
	tl = build(&s, 0, 1);
	EXPECT(tl, T, { 100, 200, TL_UNKNOWN, 0 }, { 200, 200, TL_RUN, 0 });
	tl_destroy(tl);
}

static void test_tl_feed_exec_takes_leader_tid(void **state)
{
	struct evs s = { 0 };
	struct tl_thread th;
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_INTERRUPTIBLE, NONE); /* leader */
	ATTACH(&s, 100, 1, 101, MKM_TS_RUNNING, 1);
	evs_add(&s, 300, 1, MKM_EV_EXEC, T, 101, 0, 0);
	OUT(&s, 400, 1, T, MKM_TS_INTERRUPTIBLE, 0);
	tl = build(&s, 0, 2);
	assert_int_equal(tl_nr_threads(tl), 2);
	assert_int_equal(tl_thread(tl, 0, &th), 0);
	assert_int_equal(th.end, TL_REPLACED);
	assert_int_equal(th.end_ns, 300);
	assert_int_equal(tl_find(tl, T), 1);
	assert_int_equal(tl_find(tl, 101), -ENOENT);
	EXPECT(tl, T, { 100, 400, TL_RUN, 1 }, { 400, 400, TL_SLEEP, 1 });
	tl_destroy(tl);
}

static void test_tl_feed_detach_ends_timeline(void **state)
{
	struct evs s = { 0 };
	struct tl_thread th;
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_RUNNING, 0);
	evs_add(&s, 200, 0, MKM_EV_DETACH, T, MKM_DETACH_UNMONITOR, 0, 0);
	tl = build(&s, 0, 2);
	assert_int_equal(tl_nr_threads(tl), 1);
	EXPECT(tl, T, { 100, 200, TL_RUN, 0 });
	assert_int_equal(tl_thread(tl, 0, &th), 0);
	assert_int_equal(th.end, TL_DETACHED);
	tl_destroy(tl);
}

static void test_tl_feed_switch_in_without_out(void **state)
{
	struct evs s = { 0 };
	struct tl_thread th;
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_RUNNING, 0);
	IN(&s, 200, 0, 101, T); /* T's switch-out is missing */
	IN(&s, 300, 0, T, 101);
	tl = build(&s, 0, 1);
	EXPECT(tl, T, { 100, 200, TL_RUN, 0 }, { 200, 300, TL_UNKNOWN, 0 },
	       { 300, 300, TL_RUN, 0 });
	assert_int_equal(tl_thread(tl, 0, &th), 0);
	assert_int_equal(th.anomalies, 1);
	tl_destroy(tl);
}

static void test_tl_feed_running_event_corrects_state(void **state)
{
	struct evs s = { 0 };
	struct tl_thread th;
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_INTERRUPTIBLE, NONE);
	evs_add(&s, 200, 1, MKM_EV_SYSCALL_EXIT, T, 0, 0, 0); /* it runs */
	tl = build(&s, 0, 2);
	EXPECT(tl, T, { 100, 200, TL_SLEEP, 0 }, { 200, 200, TL_RUN, 1 });
	assert_int_equal(tl_thread(tl, 0, &th), 0);
	assert_int_equal(th.anomalies, 1);
	tl_destroy(tl);
}

static void test_tl_feed_same_instant_rewrites(void **state)
{
	struct evs s = { 0 };
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_INTERRUPTIBLE, NONE);
	WAKEUP(&s, 200, 0, T, 0);
	IN(&s, 200, 0, T, 0); /* no zero-length RUNQ */
	tl = build(&s, 0, 1);
	EXPECT(tl, T, { 100, 200, TL_SLEEP, 0 }, { 200, 200, TL_RUN, 0 });
	tl_destroy(tl);
}

static void test_tl_feed_unknown_type_skipped(void **state)
{
	struct evs s = { 0 };
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_RUNNING, 0);
	evs_add(&s, 150, 0, 200, T, 0, 0, 0);
	evs_add(&s, 160, 0, 0, T, 0, 0, 0);
	tl = build(&s, 0, 1);
	EXPECT(tl, T, { 100, 160, TL_RUN, 0 });
	tl_destroy(tl);
}

static void test_tl_mark_recorded_without_thread(void **state)
{
	struct evs s = { 0 };
	struct tl_mark m;
	struct tl *tl;

	(void)state;
	evs_add(&s, 150, 0, MKM_EV_MARK, 77, 0x89abcdef, 0x01234567, 0);
	tl = build(&s, 0, 1);
	assert_int_equal(tl_nr_threads(tl), 0);
	assert_int_equal(tl_nr_marks(tl), 1);
	assert_int_equal(tl_mark(tl, 0, &m), 0);
	assert_int_equal(m.value, 0x0123456789abcdefull);
	assert_int_equal(m.tid, 77);
	assert_int_equal(m.time_ns, 150);
	assert_int_equal(tl_mark(tl, 1, &m), -ENOENT);
	tl_destroy(tl);
}

/* A flight recorder's triggers are marks of their kind: a run-queue
 * wait's (in us past 2^32 ns) gives the wait, a mark's its value. */
static void test_tl_trigger_is_a_mark_of_its_kind(void **state)
{
	struct evs s = { 0 };
	struct tl_mark m;
	struct tl *tl;

	(void)state;
	evs_add(&s, 150, 0, MKM_EV_TRIGGER, 77, 5000000, 1000000,
		MKM_TRIGGER_RUNQ);
	evs_add(&s, 160, 1, MKM_EV_TRIGGER, 78, 5000000, 1000000,
		MKM_TRIGGER_IRQ | MKM_EVF_WAIT_US);
	evs_add(&s, 170, 0, MKM_EV_MARK, 79, 42, 0, 0);
	evs_add(&s, 170, 0, MKM_EV_TRIGGER, 79, 42, 0, MKM_TRIGGER_MARK);
	tl = build(&s, 0, 2);
	assert_int_equal(tl_nr_marks(tl), 4);
	assert_int_equal(tl_mark(tl, 0, &m), 0);
	assert_int_equal(m.trigger, MKM_TRIGGER_RUNQ);
	assert_int_equal(m.value, 5000000);
	assert_int_equal(tl_mark(tl, 1, &m), 0);
	assert_int_equal(m.trigger, MKM_TRIGGER_IRQ);
	assert_int_equal(m.value, 5000000000ull);
	assert_int_equal(tl_mark(tl, 2, &m), 0);
	assert_int_equal(m.trigger, 0);
	assert_int_equal(tl_mark(tl, 3, &m), 0);
	assert_int_equal(m.trigger, MKM_TRIGGER_MARK);
	assert_int_equal(m.value, 42);
	tl_destroy(tl);
}

struct cb_sum {
	uint64_t total;
	size_t calls;
};

static void sum_cb(void *arg, size_t th, const struct tl_interval *iv)
{
	struct cb_sum *c = arg;

	(void)th;
	assert_true(iv->end_ns > iv->start_ns);
	c->total += iv->end_ns - iv->start_ns;
	c->calls++;
}

static void test_tl_set_callback_reports_closed(void **state)
{
	struct tl_config cfg = { .nr_cpus = 1 };
	struct cb_sum c = { 0 };
	struct evs s = { 0 };
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_RUNNING, 0);
	OUT(&s, 200, 0, T, MKM_TS_INTERRUPTIBLE, 0);
	WAKEUP(&s, 300, 0, T, 0);
	IN(&s, 450, 0, T, 0);
	evs_add(&s, 500, 0, MKM_EV_REAP, T, 0, 0, 0);
	assert_int_equal(tl_create(&tl, &cfg), 0);
	assert_int_equal(tl_set_callback(tl, sum_cb, &c), 0);
	assert_int_equal(tl_feed(tl, s.ev, s.n), 0);
	assert_int_equal(tl_flush(tl), 0);
	/* RUN, SLEEP, RUNQ, RUN (cut by the reap's ZOMBIE of 0 ns). */
	assert_int_equal(c.calls, 4);
	assert_int_equal(c.total, 400);
	tl_destroy(tl);
}

static void test_tl_feed_many_threads_map_grows(void **state)
{
	struct tl_config cfg = { .nr_cpus = 1 };
	struct mkm_event ev[3];
	struct tl *tl;
	uint32_t i, seq = 0;

	(void)state;
	assert_int_equal(tl_create(&tl, &cfg), 0);
	/* 600 tids, many sharing hash slots (multiples of 64). */
	for (i = 0; i < 600; i++) {
		memset(ev, 0, sizeof(ev));
		ev[0].time_ns = 1000 + i * 10;
		ev[0].tid = 64 * (i + 1);
		ev[0].type = MKM_EV_ATTACH;
		ev[0].arg0 = MKM_TS_INTERRUPTIBLE;
		ev[0].arg1 = NONE;
		ev[0].seq = seq++;
		ev[1] = ev[0];
		ev[1].time_ns += 5;
		ev[1].type = MKM_EV_WAKEUP;
		ev[1].arg0 = 0;
		ev[1].seq = seq++;
		assert_int_equal(tl_feed(tl, ev, 2), 0);
	}
	/* Reap every third; its tid comes back as a new thread. */
	for (i = 0; i < 600; i += 3) {
		memset(ev, 0, sizeof(ev));
		ev[0].time_ns = 10000 + i;
		ev[0].tid = 64 * (i + 1);
		ev[0].type = MKM_EV_REAP;
		ev[0].seq = seq++;
		ev[1] = ev[0];
		ev[1].type = MKM_EV_ATTACH;
		ev[1].arg0 = MKM_TS_STOPPED;
		ev[1].arg1 = NONE;
		ev[1].time_ns += 1;
		ev[1].seq = seq++;
		assert_int_equal(tl_feed(tl, ev, 2), 0);
	}
	assert_int_equal(tl_flush(tl), 0);
	assert_int_equal(tl_nr_threads(tl), 800);
	for (i = 0; i < 600; i++) {
		struct tl_thread t;
		struct tl_interval iv;
		int64_t th = tl_find(tl, 64 * (i + 1));

		assert_true(th >= 0);
		assert_int_equal(tl_thread(tl, (size_t)th, &t), 0);
		assert_int_equal(t.tid, 64 * (i + 1));
		assert_int_equal(t.end, TL_ALIVE);
		assert_int_equal(tl_interval(tl, (size_t)th, 0, &iv), 0);
		if (i % 3 == 0) {
			assert_true(th >= 600);
			assert_int_equal(iv.state, TL_STOPPED);
			assert_int_equal(tl_thread(tl, i, &t), 0);
			assert_int_equal(t.end, TL_REAPED);
		} else {
			assert_int_equal(th, i);
			assert_int_equal(iv.state, TL_SLEEP);
			assert_int_equal(t.nr_intervals, 2);
		}
	}
	assert_int_equal(tl_find(tl, 63), -ENOENT);
	check_invariants(tl);
	tl_destroy(tl);
}

static void test_tl_feed_wakeup_new_sets_parent(void **state)
{
	struct evs s = { 0 };
	struct tl_thread th;
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_RUNNING, 0);
	/* The FORK was not seen (another class, or lost): WAKEUP_NEW. */
	evs_add(&s, 200, 0, MKM_EV_WAKEUP_NEW, 101, 0, T, 0);
	evs_add(&s, 210, 0, MKM_EV_WAKEUP_NEW, 102, 0, 999, 0);
	tl = build(&s, 0, 1);
	EXPECT(tl, 101, { 200, 210, TL_RUNQ, 0 });
	assert_int_equal(tl_thread(tl, (size_t)tl_find(tl, 101), &th), 0);
	assert_int_equal(th.parent, tl_find(tl, T));
	assert_int_equal(tl_thread(tl, (size_t)tl_find(tl, 102), &th), 0);
	assert_int_equal(th.parent, -1); /* an unknown parent */
	tl_destroy(tl);
}

static void test_tl_feed_lost_keeps_zombies(void **state)
{
	struct evs s = { 0 };
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_ZOMBIE, NONE);
	ATTACH(&s, 100, 0, 101, MKM_TS_RUNNING, 0);
	evs_add(&s, 200, 0, MKM_EV_LOST, 0, 1, 0, 0);
	evs_add(&s, 300, 0, MKM_EV_REAP, T, 0, 0, 0);
	IN(&s, 400, 0, 101, 0);
	tl = build(&s, 0, 1);
	EXPECT(tl, T, { 100, 300, TL_ZOMBIE, 0 });
	EXPECT(tl, 101, { 100, 200, TL_RUN, 0 }, { 200, 400, TL_UNKNOWN, 0 },
	       { 400, 400, TL_RUN, 0 });
	tl_destroy(tl);
}

static void test_tl_set_callback_detach_closes_last(void **state)
{
	struct tl_config cfg = { .nr_cpus = 1 };
	struct cb_sum c = { 0 };
	struct evs s = { 0 };
	struct tl *tl;

	(void)state;
	ATTACH(&s, 100, 0, T, MKM_TS_RUNNING, 0);
	evs_add(&s, 250, 0, MKM_EV_DETACH, T, MKM_DETACH_UNMONITOR, 0, 0);
	assert_int_equal(tl_create(&tl, &cfg), 0);
	assert_int_equal(tl_set_callback(tl, sum_cb, &c), 0);
	assert_int_equal(tl_feed(tl, s.ev, s.n), 0);
	assert_int_equal(tl_flush(tl), 0);
	assert_int_equal(c.calls, 1);
	assert_int_equal(c.total, 150);
	assert_int_equal(tl_set_callback(NULL, sum_cb, &c), -EINVAL);
	tl_destroy(tl);
}

static void test_tl_create_invalid(void **state)
{
	struct tl_config bad = { .flags = 8 }; /* not a flag */
	struct tl_config cls = { .classes = 0x100 };
	struct tl_config cpus = { .nr_cpus = 8193 };
	struct tl_interval iv;
	struct tl_thread th;
	struct tl *tl;

	(void)state;
	assert_int_equal(tl_create(NULL, NULL), -EINVAL);
	assert_int_equal(tl_create(&tl, &bad), -EINVAL);
	assert_int_equal(tl_create(&tl, &cls), -EINVAL);
	assert_int_equal(tl_create(&tl, &cpus), -EINVAL);
	assert_int_equal(tl_create(&tl, NULL), 0);
	assert_int_equal(tl_feed(tl, NULL, 1), -EINVAL);
	assert_int_equal(tl_feed(tl, NULL, 0), 0);
	assert_int_equal(tl_feed(NULL, NULL, 0), -EINVAL);
	assert_int_equal(tl_thread(tl, 0, &th), -ENOENT);
	assert_int_equal(tl_interval(tl, 0, 0, &iv), -ENOENT);
	assert_int_equal(tl_find(tl, 5), -ENOENT);
	assert_int_equal(tl_advance(NULL, 1), -EINVAL);
	assert_int_equal(tl_flush(NULL), -EINVAL);
	assert_string_equal(tl_state_name(TL_NR_STATES), "?");
	tl_destroy(tl);
	tl_destroy(NULL);
}

/* The one table of states and names: complete, distinct, consistent. */
static void test_state_and_event_names(void **state)
{
	unsigned int s, k;

	(void)state;
	for (s = 0; s < TL_NR_STATES; s++) {
		const struct tl_state_desc *d = tl_state_desc(s);

		assert_string_equal(d->name, tl_state_name(s));
		assert_true(d->legend[0] && d->glyph_utf8[0]);
		assert_true(d->glyph > ' ' && d->glyph < 127);
		assert_true(d->group < TL_NR_GROUPS);
		assert_true(d->rgb <= 0xffffff);
		/* On a CPU exactly in the running and interrupted groups. */
		assert_int_equal(d->on_cpu, d->group == TL_GROUP_RUN ||
						    d->group == TL_GROUP_INTR);
		/* states.c takes them as a range. */
		assert_int_equal(d->on_cpu, s >= TL_RUN && s <= TL_INTERRUPTED);
		for (k = 0; k < s; k++)
			assert_string_not_equal(d->name, tl_state_name(k));
	}
	assert_string_equal(tl_state_desc(TL_NR_STATES)->name, "?");
	assert_int_equal(tl_state_desc(TL_RUN_SYS)->group, TL_GROUP_RUN);
	assert_int_equal(tl_state_desc(TL_PAGING_SLEEP)->group, TL_GROUP_DISK);
	for (k = 0; k < TL_NR_GROUPS; k++)
		assert_string_not_equal(tl_group_name(k), "?");
	assert_string_equal(tl_group_name(TL_NR_GROUPS), "?");
	for (k = 1; k <= MKM_EV_TYPE_MAX; k++)
		assert_string_not_equal(mon_event_name(k), "?");
	assert_string_equal(mon_event_name(0), "?");
	assert_string_equal(mon_event_name(MKM_EV_TYPE_MAX + 1), "?");
	assert_string_equal(mon_event_name(MKM_EV_SWITCH_OUT), "switch_out");
	assert_string_equal(mon_task_state_name(MKM_TS_UNINTERRUPTIBLE), "D");
	assert_string_equal(mon_task_state_name(MKM_TS_ZOMBIE), "Z");
	assert_string_equal(mon_task_state_name(8), "?");
}

/* n switches in and out of one thread on one CPU: 2n intervals, RUN at
 * 1000 + 20 k, RUNQ at 1010 + 20 k. */
static struct tl *alternating_flags(size_t n, uint32_t flags, tl_interval_cb cb,
				    void *arg)
{
	struct tl_config cfg = { .nr_cpus = 1, .flags = flags };
	struct mkm_event ev[2];
	struct tl *tl;
	uint32_t seq = 0;
	size_t i;

	assert_int_equal(tl_create(&tl, &cfg), 0);
	assert_int_equal(tl_set_callback(tl, cb, arg), 0);
	for (i = 0; i < n; i++) {
		memset(ev, 0, sizeof(ev));
		ev[0].time_ns = 1000 + i * 20;
		ev[0].tid = T;
		ev[0].type = MKM_EV_SWITCH_IN;
		ev[0].seq = seq++;
		ev[1] = ev[0];
		ev[1].time_ns += 10;
		ev[1].type = MKM_EV_SWITCH_OUT;
		ev[1].arg0 = MKM_TS_RUNNING;
		ev[1].arg1 = 3;
		ev[1].seq = seq++;
		assert_int_equal(tl_feed(tl, ev, 2), 0);
	}
	assert_int_equal(tl_flush(tl), 0);
	return tl;
}

static struct tl *alternating(size_t n)
{
	return alternating_flags(n, 0, NULL, NULL);
}

struct collected {
	struct tl_interval iv[12000];
	size_t n;
};

static void collect(void *arg, size_t th, const struct tl_interval *iv)
{
	struct collected *c = arg;

	(void)th;
	if (c->n < 12000)
		c->iv[c->n++] = *iv;
}

/* Streaming: the same closed intervals reach the callback, and memory
 * stays one interval a thread. */
static void test_tl_streaming_reports_the_same_keeps_one(void **state)
{
	static struct collected kept, streamed;
	struct tl_interval cur, last;
	struct tl_memory mem;
	struct tl_thread t;
	struct tl *a, *b;
	size_t i;

	(void)state;
	kept.n = streamed.n = 0;
	a = alternating_flags(5000, 0, collect, &kept);
	b = alternating_flags(5000, TL_STREAMING, collect, &streamed);
	assert_int_equal(kept.n, streamed.n);
	assert_int_equal(kept.n, 9999); /* the last one is still open */
	for (i = 0; i < kept.n; i++)
		assert_memory_equal(&kept.iv[i], &streamed.iv[i],
				    sizeof(kept.iv[i]));
	assert_int_equal(tl_thread(b, 0, &t), 0);
	assert_int_equal(t.nr_intervals, 1);
	assert_int_equal(tl_interval(b, 0, 0, &cur), 0);
	assert_int_equal(tl_interval(a, 0, 9999, &last), 0);
	assert_memory_equal(&cur, &last, sizeof(cur));
	assert_int_equal(tl_memory(b, &mem), 0);
	assert_true(mem.interval_bytes < 64);
	tl_destroy(a);
	tl_destroy(b);
}

static void test_tl_feed_many_intervals_cross_blocks(void **state)
{
	struct tl_interval iv;
	struct tl_memory mem;
	struct tl *tl = alternating(5000);

	(void)state;
	check_invariants(tl);
	assert_int_equal(tl_interval(tl, 0, 9999, &iv), 0);
	assert_int_equal(iv.state, TL_RUNQ);
	assert_int_equal(iv.start_ns, 1000 + 4999 * 20 + 10);
	assert_int_equal(tl_interval(tl, 0, 10000, &iv), -ENOENT);
	assert_int_equal(tl_memory(tl, &mem), 0);
	assert_true(mem.interval_bytes < 10000 * 32); /* the goal */
	tl_destroy(tl);
}

/* Runs of intervals, across blocks, equal one-by-one reads. */
static void test_tl_intervals_match_tl_interval(void **state)
{
	static struct tl_interval run[700];
	struct tl_interval one;
	struct tl *tl = alternating(1000);
	size_t first, i;

	(void)state;
	for (first = 0; first < 2000; first += 333) {
		ssize_t n = tl_intervals(tl, 0, first, 700, run);

		assert_int_equal(n, first + 700 <= 2000 ? 700 : 2000 - first);
		for (i = 0; i < (size_t)n; i++) {
			assert_int_equal(tl_interval(tl, 0, first + i, &one),
					 0);
			assert_memory_equal(&run[i], &one, sizeof(one));
		}
	}
	assert_int_equal(tl_intervals(tl, 0, 2000, 10, run), 0);
	assert_int_equal(tl_intervals(tl, 1, 0, 10, run), -ENOENT);
	assert_int_equal(tl_intervals(tl, 0, 0, 10, NULL), -EINVAL);
	assert_int_equal(tl_intervals(NULL, 0, 0, 10, run), -EINVAL);
	tl_destroy(tl);
}

static void test_tl_interval_at_finds_the_holder(void **state)
{
	struct tl *tl = alternating(1000);
	uint64_t k;

	(void)state;
	assert_int_equal(tl_interval_at(tl, 0, 999), -ERANGE);
	assert_int_equal(tl_interval_at(tl, 0, 1000), 0);
	for (k = 0; k < 1000; k++) {
		assert_int_equal(tl_interval_at(tl, 0, 1000 + 20 * k), 2 * k);
		assert_int_equal(tl_interval_at(tl, 0, 1009 + 20 * k), 2 * k);
		assert_int_equal(tl_interval_at(tl, 0, 1010 + 20 * k),
				 2 * k + 1);
		assert_int_equal(tl_interval_at(tl, 0, 1019 + 20 * k),
				 2 * k + 1);
	}
	assert_int_equal(tl_interval_at(tl, 0, UINT64_MAX), 1999);
	assert_int_equal(tl_interval_at(tl, 1, 1000), -ENOENT);
	assert_int_equal(tl_interval_at(NULL, 0, 1000), -EINVAL);
	tl_destroy(tl);
}

/* ---- a random scheduler, for properties over long streams ------------- */

#define RS_CPUS 12 /* at most; more than the merge's 8 of the small path */
#define RS_THREADS 16
#define RS_MAX 4000

struct rs {
	int ncpu;
	bool ties; /* times may be equal across CPUs */
	struct mkm_event ev[RS_CPUS][RS_MAX];
	size_t n[RS_CPUS];
	uint64_t now[RS_CPUS];
	uint32_t seq[RS_CPUS];
	int cur[RS_CPUS];
	int state[RS_THREADS]; /* 0 running, 1 runnable, 2 asleep */
	uint64_t rng;
};

static uint32_t rs_rnd(struct rs *r, uint32_t n)
{
	r->rng ^= r->rng << 13;
	r->rng ^= r->rng >> 7;
	r->rng ^= r->rng << 17;
	return (uint32_t)((r->rng >> 33) % n);
}

static void rs_emit(struct rs *r, int c, unsigned int type, int th, uint32_t a0,
		    uint32_t a1, unsigned int flags)
{
	struct mkm_event *e = &r->ev[c][r->n[c]++];

	memset(e, 0, sizeof(*e));
	/* Unique times: ties across CPUs would make the order arbitrary. */
	e->time_ns = r->ties ? r->now[c] :
			       r->now[c] * (uint64_t)r->ncpu + (uint64_t)c;
	e->tid = (uint32_t)th + 500;
	e->cpu = (uint16_t)c;
	e->type = (uint8_t)type;
	e->flags = (uint8_t)flags;
	e->arg0 = a0;
	e->arg1 = a1;
	e->seq = r->seq[c]++;
	r->now[c] += 1 + rs_rnd(r, 5);
}

static int rs_pick(struct rs *r, int state)
{
	int th, k = (int)rs_rnd(r, RS_THREADS);

	for (th = 0; th < RS_THREADS; th++)
		if (r->state[(th + k) % RS_THREADS] == state)
			return (th + k) % RS_THREADS;
	return -1;
}

static void rs_generate(struct rs *r, uint64_t seed, int ncpu, bool ties)
{
	int c, th, step;

	memset(r, 0, sizeof(*r));
	r->ncpu = ncpu;
	r->ties = ties;
	r->rng = seed * 0x9E3779B97F4A7C15ull + 1;
	for (c = 0; c < ncpu; c++)
		r->cur[c] = -1;
	for (th = 0; th < RS_THREADS; th++) {
		c = th % ncpu;
		if (r->cur[c] < 0) {
			r->cur[c] = th;
			rs_emit(r, c, MKM_EV_ATTACH, th, MKM_TS_RUNNING,
				(uint32_t)c, 0);
		} else {
			r->state[th] = 2;
			rs_emit(r, c, MKM_EV_ATTACH, th, MKM_TS_INTERRUPTIBLE,
				NONE, 0);
		}
	}
	for (step = 0; step < 2500; step++) {
		uint32_t x;

		c = 0;
		for (th = 1; th < ncpu; th++)
			if (r->now[th] < r->now[c])
				c = th;
		if (r->n[c] > RS_MAX - 8)
			break;
		th = r->cur[c];
		x = rs_rnd(r, 100);
		if (th < 0) {
			th = rs_pick(r, 1);
			if (th >= 0) {
				r->state[th] = 0;
				r->cur[c] = th;
				rs_emit(r, c, MKM_EV_SWITCH_IN, th, 0, 0, 0);
			} else {
				r->now[c] += 10;
			}
		} else if (x < 20) {
			int w = rs_pick(r, 2);

			if (w >= 0) {
				r->state[w] = 1;
				rs_emit(r, c, MKM_EV_WAKEUP, w, (uint32_t)c,
					(uint32_t)th + 500, 0);
			}
		} else if (x < 40) {
			rs_emit(r, c, MKM_EV_IRQ_ENTRY, th, 1, 0, 0);
			if (x < 25) {
				rs_emit(r, c, MKM_EV_SOFTIRQ_ENTRY, th, 1, 0,
					0);
				rs_emit(r, c, MKM_EV_SOFTIRQ_EXIT, th, 1, 0, 0);
			}
			rs_emit(r, c, MKM_EV_IRQ_EXIT, th, 1, 1, 0);
		} else if (x < 60) {
			rs_emit(r, c, MKM_EV_SYSCALL_ENTRY, th, SYS_futex, 0,
				0);
			if (x < 50) {
				r->state[th] = 2;
				r->cur[c] = -1;
				rs_emit(r, c, MKM_EV_SWITCH_OUT, th,
					MKM_TS_INTERRUPTIBLE, 0, 0);
			} else {
				rs_emit(r, c, MKM_EV_SYSCALL_EXIT, th, 0, 0, 0);
			}
		} else if (x < 75) {
			r->state[th] = 1;
			r->cur[c] = -1;
			rs_emit(r, c, MKM_EV_SWITCH_OUT, th, MKM_TS_RUNNING, 0,
				MKM_EVF_PREEMPTED);
		} else if (x < 77) {
			/* Lost events on this CPU. */
			rs_emit(r, c, MKM_EV_LOST, 0, 2, 0, 0);
			r->seq[c] += 1;
		}
	}
}

static void same_timelines(const struct tl *a, const struct tl *b)
{
	size_t th, i;

	assert_int_equal(tl_nr_threads(a), tl_nr_threads(b));
	for (th = 0; th < tl_nr_threads(a); th++) {
		struct tl_thread x, y;
		struct tl_interval p, q;

		assert_int_equal(tl_thread(a, th, &x), 0);
		assert_int_equal(tl_thread(b, th, &y), 0);
		assert_int_equal(x.tid, y.tid);
		assert_int_equal(x.nr_intervals, y.nr_intervals);
		for (i = 0; i < x.nr_intervals; i++) {
			assert_int_equal(tl_interval(a, th, i, &p), 0);
			assert_int_equal(tl_interval(b, th, i, &q), 0);
			assert_memory_equal(&p, &q, sizeof(p));
		}
	}
}

static void random_batches(int ncpu, uint64_t seeds, bool ties)
{
	static struct rs r;
	uint64_t seed, gaps = 0;

	for (seed = 1; seed <= seeds; seed++) {
		struct tl_config cfg = { .nr_cpus = (unsigned int)ncpu,
					 .classes = MKM_CLASS_ALL };
		uint64_t timers[TL_NR_STATES], sum = 0, lives = 0;
		size_t pos[RS_CPUS] = { 0 }, left = 0, th;
		struct tl *whole, *inc;
		struct tl_stats st;
		int c, k;

		rs_generate(&r, seed, ncpu, ties);
		assert_int_equal(tl_create(&whole, &cfg), 0);
		for (c = 0; c < ncpu; c++) {
			assert_int_equal(tl_feed(whole, r.ev[c], r.n[c]), 0);
			left += r.n[c];
		}
		assert_int_equal(tl_flush(whole), 0);

		assert_int_equal(tl_create(&inc, &cfg), 0);
		while (left) {
			size_t chunk;

			c = (int)rs_rnd(&r, (uint32_t)ncpu);
			if (pos[c] == r.n[c])
				continue;
			chunk = 1 + rs_rnd(&r, 40);
			if (chunk > r.n[c] - pos[c])
				chunk = r.n[c] - pos[c];
			assert_int_equal(tl_feed(inc, &r.ev[c][pos[c]], chunk),
					 0);
			pos[c] += chunk;
			left -= chunk;
			if (rs_rnd(&r, 4) == 0) {
				/* What a reader may promise: the earliest
				 * record not delivered yet. */
				uint64_t h = UINT64_MAX;

				for (k = 0; k < ncpu; k++)
					if (pos[k] < r.n[k] &&
					    r.ev[k][pos[k]].time_ns < h)
						h = r.ev[k][pos[k]].time_ns;
				if (h != UINT64_MAX)
					assert_int_equal(tl_advance(inc, h), 0);
			}
		}
		assert_int_equal(tl_flush(inc), 0);
		check_invariants(whole);
		same_timelines(whole, inc);
		assert_int_equal(tl_stats(inc, &st), 0);
		assert_int_equal(st.late, 0);
		gaps += st.gaps;

		/* msa of all threads adds up to their lives. */
		assert_int_equal(
			acct_msa(inc, ACCT_ALL, 0, TL_NR_STATES, timers), 0);
		for (k = 0; k < TL_NR_STATES; k++)
			sum += timers[k];
		for (th = 0; th < tl_nr_threads(inc); th++) {
			struct tl_thread t;

			tl_thread(inc, th, &t);
			lives += t.end_ns - t.first_ns;
		}
		assert_int_equal(sum, lives);
		tl_destroy(whole);
		tl_destroy(inc);
	}
	assert_true(gaps > 0); /* the LOST paths ran */
}

static void test_tl_feed_random_batches_match_whole(void **state)
{
	(void)state;
	random_batches(3, 20, false);
	random_batches(3, 20, true); /* ties: CPU order decides */
}

/* More CPUs than the merge's branch-free path takes. */
static void test_tl_feed_random_batches_many_cpus(void **state)
{
	(void)state;
	random_batches(RS_CPUS, 10, false);
	random_batches(RS_CPUS, 10, true);
}

/* One SWITCH record rebuilds as its SWITCH_OUT and SWITCH_IN do: the same
 * intervals, switches, flutters, anomalies and totals. */
static void test_tl_switch_same_as_pairs(void **state)
{
	static struct evs one, two;
	struct tl *a, *b;
	struct tl_stats sa, sb;

	(void)state;
	evs_switch_run(&one, true);
	evs_switch_run(&two, false);
	a = build(&one, MKM_CLASS_DEFAULT, 2);
	b = build(&two, MKM_CLASS_DEFAULT, 2);
	expect_same_timelines(a, b);
	assert_int_equal(tl_stats(a, &sa), 0);
	assert_int_equal(tl_stats(b, &sb), 0);
	assert_int_equal(sa.events, one.n);
	assert_int_equal(sb.events, two.n);
	assert_int_equal(sa.lost, 0);
	assert_int_equal(sa.anomalies, sb.anomalies);
	assert_int_equal(sa.intervals, sb.intervals);
	/* The run as drawn: 11 waits on a lock from 400, 14 exits. */
	EXPECT(a, 11, { 101, 200, TL_SLEEP, 0 }, { 200, 300, TL_RUNQ, 0 },
	       { 300, 400, TL_RUN, 0 }, { 400, 560, TL_DISK, 0 },
	       { 560, 700, TL_RUNQ, 0 }, { 700, 900, TL_RUN, 0 });
	EXPECT(a, 14, { 350, 450, TL_RUNQ, 1 }, { 450, 650, TL_RUN, 1 });
	tl_destroy(a);
	tl_destroy(b);
}

/* A SWITCH to a thread never seen: a timeline for it, whose unique_id its
 * first record of its own gives. */
static void test_tl_switch_next_unseen(void **state)
{
	struct evs s;
	struct tl *tl;
	struct tl_thread t;

	(void)state;
	memset(&s, 0, sizeof(s));
	ATTACH(&s, 100, 0, 1, MKM_TS_RUNNING, 0);
	evs_switch(&s, true, 200, 0, 1, MKM_TS_INTERRUPTIBLE, 0, 2, 0, 0);
	evs_add(&s, 300, 0, MKM_EV_SYSCALL_ENTRY, 2, 0, 0, 0);
	evs_switch(&s, true, 400, 0, 2, MKM_TS_RUNNING, MKM_EVF_PREEMPTED, 3, 0,
		   0);
	tl = build(&s, MKM_CLASS_DEFAULT, 1);
	EXPECT(tl, 1, { 100, 200, TL_RUN, 0 }, { 200, 400, TL_SLEEP, 0 });
	EXPECT(tl, 2, { 200, 400, TL_RUN, 0 }, { 400, 400, TL_RUNQ, 0 });
	assert_int_equal(tl_thread(tl, (size_t)tl_find(tl, 2), &t), 0);
	assert_int_equal(t.unique_id, 1002);
	assert_int_equal(t.switches, 1);
	assert_int_equal(tl_thread(tl, (size_t)tl_find(tl, 3), &t), 0);
	assert_int_equal(t.unique_id, 0); /* no record of its own */
	assert_int_equal(t.switches, 1);
	tl_destroy(tl);
}

/* The same, switched to again on another CPU before a record of its own
 * (its switch-out lost): its first record there still names it. */
static void test_tl_switch_next_unseen_named_on_other_cpu(void **state)
{
	struct evs s;
	struct tl *tl;
	struct tl_thread t;

	(void)state;
	memset(&s, 0, sizeof(s));
	ATTACH(&s, 100, 0, 1, MKM_TS_RUNNING, 0);
	ATTACH(&s, 100, 1, 4, MKM_TS_RUNNING, 1);
	evs_switch(&s, true, 200, 0, 1, MKM_TS_INTERRUPTIBLE, 0, 2, 0, 0);
	evs_add(&s, 250, 0, MKM_EV_LOST, 0, 1, 0, 0);
	evs_switch(&s, true, 300, 1, 4, MKM_TS_INTERRUPTIBLE, 0, 2, 0, 0);
	evs_add(&s, 350, 1, MKM_EV_SYSCALL_ENTRY, 2, 0, 0, 0);
	tl = build(&s, MKM_CLASS_DEFAULT, 2);
	assert_int_equal(tl_thread(tl, (size_t)tl_find(tl, 2), &t), 0);
	assert_int_equal(t.unique_id, 1002);
	tl_destroy(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tl_feed_sleep_wakeup_flutter),
		cmocka_unit_test(test_tl_switch_same_as_pairs),
		cmocka_unit_test(test_tl_switch_next_unseen),
		cmocka_unit_test(test_tl_switch_next_unseen_named_on_other_cpu),
		cmocka_unit_test(test_tl_feed_every_switch_out_state),
		cmocka_unit_test(test_tl_feed_attach_states),
		cmocka_unit_test(test_tl_feed_irq_nesting),
		cmocka_unit_test(test_tl_feed_irq_exit_unmatched),
		cmocka_unit_test(test_tl_feed_syscalls_refine_run_and_sleep),
		cmocka_unit_test(test_tl_feed_time_max_clamped),
		cmocka_unit_test(test_tl_feed_seq_wraps),
		cmocka_unit_test(test_tl_feed_syscalls_off_plain_run),
		cmocka_unit_test(test_tl_feed_switch_in_wait),
		cmocka_unit_test(test_tl_feed_window_start_states),
		cmocka_unit_test(test_tl_feed_migration),
		cmocka_unit_test(test_tl_feed_lost_record_makes_unknown),
		cmocka_unit_test(test_tl_feed_seq_gap_makes_unknown),
		cmocka_unit_test(test_tl_feed_exit_reap_and_tid_reuse),
		cmocka_unit_test(test_tl_flush_exited_and_preempted),
		cmocka_unit_test(test_tl_feed_reap_without_dead_switch),
		cmocka_unit_test(test_tl_feed_out_of_order_cpus_buffered),
		cmocka_unit_test(test_tl_feed_any_batching_same_timeline),
		cmocka_unit_test(test_tl_feed_ties_broken_by_cpu_id),
		cmocka_unit_test(test_tl_feed_late_cpu_in_auto_mode),
		cmocka_unit_test(test_tl_advance_passes_idle_cpu),
		cmocka_unit_test(test_tl_feed_wakeup_while_running_ignored),
		cmocka_unit_test(test_tl_feed_fork_inherited_child),
		cmocka_unit_test(test_tl_processes_fork_and_known),
		cmocka_unit_test(test_tl_processes_known_late),
		cmocka_unit_test(test_tl_threads_known_name_the_unnamed),
		cmocka_unit_test(test_tl_feed_first_event_unknown),
		cmocka_unit_test(test_tl_feed_exec_takes_leader_tid),
		cmocka_unit_test(test_tl_feed_detach_ends_timeline),
		cmocka_unit_test(test_tl_feed_switch_in_without_out),
		cmocka_unit_test(test_tl_feed_running_event_corrects_state),
		cmocka_unit_test(test_tl_feed_same_instant_rewrites),
		cmocka_unit_test(test_tl_feed_unknown_type_skipped),
		cmocka_unit_test(test_tl_mark_recorded_without_thread),
		cmocka_unit_test(test_tl_trigger_is_a_mark_of_its_kind),
		cmocka_unit_test(test_tl_set_callback_reports_closed),
		cmocka_unit_test(test_tl_feed_many_threads_map_grows),
		cmocka_unit_test(test_tl_feed_wakeup_new_sets_parent),
		cmocka_unit_test(test_tl_feed_lost_keeps_zombies),
		cmocka_unit_test(test_tl_set_callback_detach_closes_last),
		cmocka_unit_test(test_tl_create_invalid),
		cmocka_unit_test(test_state_and_event_names),
		cmocka_unit_test(test_tl_feed_many_intervals_cross_blocks),
		cmocka_unit_test(test_tl_intervals_match_tl_interval),
		cmocka_unit_test(test_tl_streaming_reports_the_same_keeps_one),
		cmocka_unit_test(test_tl_interval_at_finds_the_holder),
		cmocka_unit_test(test_tl_feed_random_batches_match_whole),
		cmocka_unit_test(test_tl_feed_random_batches_many_cpus),
	};

	return cmocka_run_group_tests_name("timeline", tests, NULL, NULL);
}
