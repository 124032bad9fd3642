// SPDX-License-Identifier: GPL-2.0
/*
 * test_critical_path.c - critical_path.c, and the wakes the timeline
 * keeps for it (tl_wake_at): a wait chain walked back from a thread
 * through its wakers, on synthetic streams.
 */
#include <errno.h>
#include <stdlib.h>

#include "evstream.h"

#define CLASSES (MKM_CLASS_DEFAULT | MKM_CLASS_WAKEUP)

/*
 * main (10) sleeps at 200 until worker-b (12) wakes it at 450, and runs
 * once worker-b sleeps at 500; worker-b slept until worker-a (11) woke it
 * at 300 from CPU 1; worker-a runs all along.
 */
static struct tl *chain(struct evs *s)
{
	memset(s, 0, sizeof(*s));
	ATTACH(s, 100, 0, 10, MKM_TS_RUNNING, 0);
	ATTACH(s, 100, 1, 11, MKM_TS_RUNNING, 1);
	ATTACH(s, 100, 0, 12, MKM_TS_INTERRUPTIBLE, 0xffffffffu);
	OUT(s, 200, 0, 10, MKM_TS_INTERRUPTIBLE, 0);
	evs_add(s, 300, 1, MKM_EV_WAKEUP, 12, 0, 11, 0);
	IN(s, 350, 0, 12, 0);
	evs_add(s, 450, 0, MKM_EV_WAKEUP, 10, 0, 12, 0);
	OUT(s, 500, 0, 12, MKM_TS_INTERRUPTIBLE, 10);
	IN(s, 500, 0, 10, 12);
	OUT(s, 600, 0, 10, MKM_TS_INTERRUPTIBLE, 0);
	OUT(s, 700, 1, 11, MKM_TS_INTERRUPTIBLE, 0);
	return build(s, CLASSES, 2);
}

struct exp_seg {
	uint32_t tid;
	const char *state;
	uint64_t start, end;
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The path of tid's thread over [from, to] is exactly exp[0..n). */
static void expect_path(const struct tl *tl, uint32_t tid, uint64_t from,
			uint64_t to, const struct exp_seg *exp, size_t n)
{
	struct mon_path path, *p = &path;
	size_t i;

	assert_int_equal(mon_critical_path(tl, (size_t)tl_find(tl, tid), from,
					   to, p),
			 0);

	for (i = 0; p->nr != n && i < p->nr; i++) {
		struct tl_thread t;

		tl_thread(tl, p->seg[i].thread, &t);
		fprintf(stderr, "  %u %s %llu..%llu\n", t.tid,
			tl_state_name(p->seg[i].state),
			(unsigned long long)p->seg[i].start_ns,
			(unsigned long long)p->seg[i].end_ns);
	}
	assert_int_equal(p->nr, n);
	for (i = 0; i < n; i++) {
		struct tl_thread t;

		assert_int_equal(tl_thread(tl, p->seg[i].thread, &t), 0);
		assert_int_equal(t.tid, exp[i].tid);
		assert_string_equal(tl_state_name(p->seg[i].state),
				    exp[i].state);
		assert_int_equal(p->seg[i].start_ns, exp[i].start);
		assert_int_equal(p->seg[i].end_ns, exp[i].end);
	}
	assert_false(p->cut);
	mon_path_free(p);
}

static void test_tl_wake_at_waker(void **state)
{
	struct evs s;
	struct tl *tl = chain(&s);
	struct tl_wake w;
	int64_t main_th = tl_find(tl, 10), b = tl_find(tl, 12);

	(void)state;
	assert_int_equal(tl_nr_wakes(tl), 2);
	assert_int_equal(tl_wake_at(tl, (size_t)b, 300, &w), 0);
	assert_int_equal(w.waker, tl_find(tl, 11));
	assert_int_equal(w.waker_tid, 11);
	assert_int_equal(w.type, MKM_EV_WAKEUP);
	assert_int_equal(tl_wake_at(tl, (size_t)main_th, 450, &w), 0);
	assert_int_equal(w.waker, b);
	/* Not woken at that instant, or not that thread. */
	assert_int_equal(tl_wake_at(tl, (size_t)main_th, 300, &w), -ENOENT);
	assert_int_equal(tl_wake_at(tl, (size_t)b, 451, &w), -ENOENT);
	assert_int_equal(tl_wake_at(NULL, 0, 0, &w), -EINVAL);
	tl_destroy(tl);
}

static void test_mon_critical_path_chain(void **state)
{
	static const struct exp_seg exp[] = {
		{ 11, "RUN", 100, 300 }, /* worker-a, up to waking b */
		{ 12, "RUNQ", 300, 350 }, { 12, "RUN", 350, 450 },
		{ 10, "RUNQ", 450, 500 }, { 10, "RUN", 500, 600 },
	};
	struct evs s;
	struct tl *tl = chain(&s);

	(void)state;
	expect_path(tl, 10, 0, 600, exp, ARRAY_SIZE(exp));
	tl_destroy(tl);
}

static void test_mon_critical_path_from(void **state)
{
	static const struct exp_seg exp[] = {
		{ 12, "RUN", 400, 450 },
		{ 10, "RUNQ", 450, 500 },
		{ 10, "RUN", 500, 550 },
	};
	struct evs s;
	struct tl *tl = chain(&s);

	(void)state;
	expect_path(tl, 10, 400, 550, exp, ARRAY_SIZE(exp));
	tl_destroy(tl);
}

/* From inside a sleep whose end is still to come: the sleep so far. */
static void test_mon_critical_path_asleep(void **state)
{
	static const struct exp_seg exp[] = {
		{ 10, "RUN", 100, 200 },
		{ 10, "SLEEP", 200, 400 },
	};
	struct evs s;
	struct tl *tl = chain(&s);

	(void)state;
	expect_path(tl, 10, 0, 400, exp, ARRAY_SIZE(exp));
	tl_destroy(tl);
}

/*
 * A wake from an interrupt (IN_IRQ) and one by tid 0 (an idle CPU's
 * timer) are not the running thread's work: the sleeps stay on the path.
 */
static void test_mon_critical_path_interrupt(void **state)
{
	static const struct exp_seg exp[] = {
		{ 10, "RUN", 100, 200 },   { 10, "SLEEP", 200, 300 },
		{ 10, "RUNQ", 300, 350 },  { 10, "RUN", 350, 400 },
		{ 10, "SLEEP", 400, 500 }, { 10, "RUNQ", 500, 550 },
		{ 10, "RUN", 550, 600 },
	};
	struct evs s;
	struct tl *tl;

	(void)state;
	memset(&s, 0, sizeof(s));
	ATTACH(&s, 100, 0, 10, MKM_TS_RUNNING, 0);
	ATTACH(&s, 100, 1, 11, MKM_TS_RUNNING, 1);
	OUT(&s, 200, 0, 10, MKM_TS_INTERRUPTIBLE, 0);
	evs_add(&s, 300, 1, MKM_EV_WAKEUP, 10, 0, 11, MKM_EVF_IN_IRQ);
	IN(&s, 350, 0, 10, 0);
	OUT(&s, 400, 0, 10, MKM_TS_INTERRUPTIBLE, 0);
	evs_add(&s, 500, 0, MKM_EV_WAKEUP, 10, 0, 0, 0);
	IN(&s, 550, 0, 10, 0);
	OUT(&s, 600, 0, 10, MKM_TS_INTERRUPTIBLE, 0);
	OUT(&s, 700, 1, 11, MKM_TS_INTERRUPTIBLE, 0);
	tl = build(&s, CLASSES, 2);
	expect_path(tl, 10, 0, 600, exp, ARRAY_SIZE(exp));
	tl_destroy(tl);
}

/* A thread's first instant leads to the thread that created it. */
static void test_mon_critical_path_fork(void **state)
{
	static const struct exp_seg exp[] = {
		{ 10, "RUN", 100, 200 },
		{ 20, "RUNQ", 200, 250 },
		{ 20, "RUN", 250, 300 },
	};
	struct evs s;
	struct tl *tl;

	(void)state;
	memset(&s, 0, sizeof(s));
	ATTACH(&s, 100, 0, 10, MKM_TS_RUNNING, 0);
	evs_add(&s, 200, 0, MKM_EV_FORK, 10, 20, 1020,
		MKM_EVF_THREAD | MKM_EVF_INHERITED);
	evs_add(&s, 200, 0, MKM_EV_WAKEUP_NEW, 20, 1, 10, 0);
	IN(&s, 250, 1, 20, 0);
	OUT(&s, 300, 1, 20, MKM_TS_INTERRUPTIBLE, 0);
	OUT(&s, 400, 0, 10, MKM_TS_INTERRUPTIBLE, 0);
	tl = build(&s, CLASSES, 2);
	expect_path(tl, 20, 0, 300, exp, ARRAY_SIZE(exp));
	tl_destroy(tl);
}

static void test_mon_critical_path_bad(void **state)
{
	struct evs s;
	struct tl *tl = chain(&s);
	struct mon_path p;

	(void)state;
	assert_int_equal(mon_critical_path(tl, 99, 0, 600, &p), -ENOENT);
	assert_int_equal(mon_critical_path(tl, 0, 600, 500, &p), -EINVAL);
	assert_int_equal(mon_critical_path(NULL, 0, 0, 600, &p), -EINVAL);
	mon_path_free(NULL);
	tl_destroy(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tl_wake_at_waker),
		cmocka_unit_test(test_mon_critical_path_chain),
		cmocka_unit_test(test_mon_critical_path_from),
		cmocka_unit_test(test_mon_critical_path_asleep),
		cmocka_unit_test(test_mon_critical_path_interrupt),
		cmocka_unit_test(test_mon_critical_path_fork),
		cmocka_unit_test(test_mon_critical_path_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
