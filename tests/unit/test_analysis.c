// SPDX-License-Identifier: GPL-2.0
/*
 * test_analysis.c - system-wide timelines (idle threads, handler runs) and
 * the noise and idle analyses, on synthetic event streams.
 */
#include <errno.h>
#include <pthread.h>

#include "evstream.h"

#define IRQ(s, t, c, tid, type, num, flags) \
	evs_add(s, t, c, type, tid, num, 0, flags)
#define TIMER MKM_X86_LOCAL_TIMER_VECTOR

static struct tl *build_idle(const struct evs *s)
{
	struct tl_config cfg = { .nr_cpus = 1,
				 .classes = MKM_CLASS_DEFAULT,
				 .flags = TL_IDLE };
	struct tl *tl;

	assert_int_equal(tl_create(&tl, &cfg), 0);
	assert_int_equal(tl_feed(tl, s->ev, s->n), 0);
	assert_int_equal(tl_flush(tl), 0);
	return tl;
}

/*
 * One CPU: thread 10 runs, is preempted by 20, interrupted by the tick,
 * sleeps; the idle CPU takes a tick, runs 20, idles, runs 10.
 */
static void workload(struct evs *s)
{
	ATTACH(s, 1000, 0, 10, MKM_TS_RUNNING, 0);
	evs_add(s, 2000, 0, MKM_EV_SWITCH_OUT, 10, MKM_TS_RUNNING, 20,
		MKM_EVF_PREEMPTED);
	IN(s, 2000, 0, 20, 10);
	OUT(s, 2500, 0, 20, MKM_TS_INTERRUPTIBLE, 10);
	evs_add(s, 2500, 0, MKM_EV_SWITCH_IN, 10, 500, 20, 0);
	IRQ(s, 3000, 0, 10, MKM_EV_IRQ_ENTRY, TIMER, MKM_EVF_VECTOR);
	IRQ(s, 3100, 0, 10, MKM_EV_IRQ_EXIT, TIMER, MKM_EVF_VECTOR);
	OUT(s, 4000, 0, 10, MKM_TS_INTERRUPTIBLE, 0);
	IRQ(s, 5000, 0, 0, MKM_EV_IRQ_ENTRY, TIMER, MKM_EVF_VECTOR);
	IRQ(s, 5050, 0, 0, MKM_EV_IRQ_EXIT, TIMER, MKM_EVF_VECTOR);
	IN(s, 6000, 0, 20, 0);
	OUT(s, 6500, 0, 20, MKM_TS_INTERRUPTIBLE, 0);
	IN(s, 8000, 0, 10, 0);
	evs_add(s, 9000, 0, MKM_EV_MARK, 10, 1, 0, 0);
}

static void test_idle_thread_rebuilt(void **state)
{
	struct evs s = { 0 };
	struct tl_thread t;
	struct acct_cpu c;
	struct tl_irq r;
	struct tl *tl;
	int64_t idle;
	(void)state;

	workload(&s);
	tl = build_idle(&s);
	idle = tl_idle_thread(tl, 0);
	assert_true(idle >= 0);
	assert_int_equal(tl_thread(tl, (size_t)idle, &t), 0);
	assert_string_equal(t.name, "swapper/0");
	assert_int_equal(t.tid, 0);
	assert_int_equal(t.idle_cpu, 0);
	EXPECT_TH(tl, idle, { 4000, 5000, TL_RUN, 0 },
		  { 5000, 5050, TL_INTERRUPTED, 0 }, { 5050, 6000, TL_RUN, 0 },
		  { 6000, 6500, TL_SLEEP, 0 }, { 6500, 8000, TL_RUN, 0 },
		  { 8000, 9000, TL_SLEEP, 0 });
	/* Every ns of the CPU from the first record on is someone's. */
	assert_int_equal(acct_cpu(tl, 0, &c), 0);
	assert_int_equal(c.run_ns, 9000 - 1000);
	assert_int_equal(c.idle_ns, 3500);
	/* The handler runs, the one on the idle CPU with its idle thread. */
	assert_int_equal(tl_nr_irqs(tl), 2);
	assert_int_equal(tl_irq(tl, 1, &r), 0);
	assert_int_equal(r.start_ns, 5000);
	assert_int_equal(r.end_ns, 5050);
	assert_int_equal(r.kind, TL_IRQ_VECTOR);
	assert_int_equal(r.number, TIMER);
	assert_int_equal(r.thread, idle);
	tl_destroy(tl);
}

/* Without TL_IDLE, tid 0 is nobody: no thread is made for it. */
static void test_no_idle_thread_when_selective(void **state)
{
	struct evs s = { 0 };
	struct tl *tl;
	(void)state;

	workload(&s);
	tl = build(&s, MKM_CLASS_DEFAULT, 1);
	assert_int_equal(tl_idle_thread(tl, 0), -ENOENT);
	assert_int_equal(tl_nr_threads(tl), 2);
	tl_destroy(tl);
}

static void test_noise_thread_intruders(void **state)
{
	struct noise_result r;
	struct evs s = { 0 };
	struct noise *n;
	struct tl *tl;
	(void)state;

	workload(&s);
	tl = build_idle(&s);
	assert_int_equal(noise_create(&n, tl), 0);
	assert_int_equal(
		noise_thread(n, (size_t)tl_find(tl, 10), 0, UINT64_MAX, &r), 0);
	assert_int_equal(r.run_ns, 1000 + 500 + 900 + 1000);
	assert_int_equal(r.taken_ns, 600);
	assert_int_equal(r.unknown_ns, 0);
	assert_int_equal(r.nr_sources, 2);
	assert_int_equal(r.sources[0].kind, NOISE_THREAD);
	assert_int_equal(r.sources[0].thread, tl_find(tl, 20));
	assert_int_equal(r.sources[0].taken_ns, 500);
	assert_int_equal(r.sources[0].count, 1);
	assert_int_equal(r.sources[1].kind, NOISE_IRQ_VECTOR);
	assert_string_equal(r.sources[1].name, "local_timer");
	assert_int_equal(r.sources[1].taken_ns, 100);
	assert_int_equal(r.sources[1].period.activations, 2);
	noise_result_free(&r);
	/* A window: only the preemption. */
	assert_int_equal(
		noise_thread(n, (size_t)tl_find(tl, 10), 1500, 2800, &r), 0);
	assert_int_equal(r.nr_sources, 1);
	assert_int_equal(r.taken_ns, 500);
	noise_result_free(&r);
	noise_destroy(n);
	tl_destroy(tl);
}

/* A daemon that wakes every 10 us and runs 1 us, over a spinner. */
static void test_noise_periodic_intruder(void **state)
{
	struct noise_result r;
	struct evs s = { 0 };
	struct noise *n;
	struct tl *tl;
	uint64_t k;
	(void)state;

	ATTACH(&s, 0, 0, 10, MKM_TS_RUNNING, 0);
	for (k = 1; k <= 12; k++) {
		uint64_t t = k * 10000;

		evs_add(&s, t, 0, MKM_EV_SWITCH_OUT, 10, MKM_TS_RUNNING, 20,
			MKM_EVF_PREEMPTED);
		IN(&s, t, 0, 20, 10);
		OUT(&s, t + 1000, 0, 20, MKM_TS_INTERRUPTIBLE, 10);
		evs_add(&s, t + 1000, 0, MKM_EV_SWITCH_IN, 10, 1000, 20, 0);
	}
	evs_add(&s, 140000, 0, MKM_EV_MARK, 10, 1, 0, 0);
	tl = build_idle(&s);
	assert_int_equal(noise_create(&n, tl), 0);
	assert_int_equal(
		noise_thread(n, (size_t)tl_find(tl, 10), 0, UINT64_MAX, &r), 0);
	assert_int_equal(r.nr_sources, 1);
	assert_int_equal(r.sources[0].taken_ns, 12000);
	assert_int_equal(r.sources[0].count, 12);
	assert_int_equal(r.sources[0].max_ns, 1000);
	/* Its first run is from an unknown state: 11 wakeups seen. */
	assert_int_equal(r.sources[0].period.activations, 11);
	assert_int_equal(r.sources[0].period.period_ns, 10000);
	assert_true(r.sources[0].period.regular > 0.99);
	assert_int_equal(r.sources[0].period.busy_ns, 12000);
	noise_result_free(&r);
	noise_destroy(n);
	tl_destroy(tl);
}

static void test_idle_analyse_table(void **state)
{
	struct idle_report rep;
	struct evs s = { 0 };
	struct noise *n;
	struct tl *tl;
	const struct idle_cpu *c;
	(void)state;

	workload(&s);
	tl = build_idle(&s);
	assert_int_equal(noise_create(&n, tl), 0);
	assert_int_equal(idle_analyse(n, &rep), 0);
	assert_int_equal(rep.nr_cpus, 1);
	c = &rep.cpus[0];
	/*
	 * [4000, 5000) ended by the tick; [5050, 6000) is the tick's tail
	 * (the switch to the thread it woke): idle, not an interval;
	 * [6500, 8000) ended by switching to 10 with no interrupt here.
	 */
	assert_int_equal(c->count, 2);
	assert_int_equal(c->min_ns, 1000);
	assert_int_equal(c->max_ns, 1500);
	assert_true(c->mean_ns > 1249.9 && c->mean_ns < 1250.1);
	assert_true(c->stddev_ns > 249.9 && c->stddev_ns < 250.1);
	assert_int_equal(c->idle_ns, 1000 + 950 + 1500);
	assert_int_equal(c->span_ns, 9000 - 4000);
	/* Both in [1, 2) us. */
	assert_int_equal(c->hist[0], 0);
	assert_int_equal(c->hist[1], 2);
	assert_int_equal(c->nr_causes, 2);
	/* Same counts: by name ("local_timer" before "tid 10"). */
	assert_string_equal(c->causes[0].name, "local_timer");
	assert_int_equal(c->causes[0].kind, NOISE_IRQ_VECTOR);
	assert_int_equal(c->causes[0].idle_ns, 1000);
	assert_int_equal(c->causes[1].kind, NOISE_THREAD);
	assert_int_equal(c->causes[1].thread, tl_find(tl, 10));
	idle_report_free(&rep);
	noise_destroy(n);
	tl_destroy(tl);
}

#define NR_TICKS 120 /* of 4 records each, in an evs */

/*
 * Thread 10 runs from 1000 while the tick interrupts it @n times; with
 * @nested, a softirq runs inside each tick and ends first (so the
 * timeline stores the handlers' runs out of start order).
 */
static struct tl *build_ticks(size_t n, bool nested)
{
	static struct evs s;
	size_t i;

	memset(&s, 0, sizeof(s));
	ATTACH(&s, 1000, 0, 10, MKM_TS_RUNNING, 0);
	for (i = 0; i < n; i++) {
		uint64_t t = 2000 + i * 1000;

		IRQ(&s, t, 0, 10, MKM_EV_IRQ_ENTRY, TIMER, MKM_EVF_VECTOR);
		if (nested) {
			IRQ(&s, t + 10, 0, 10, MKM_EV_SOFTIRQ_ENTRY, 1, 0);
			IRQ(&s, t + 60, 0, 10, MKM_EV_SOFTIRQ_EXIT, 1, 0);
		}
		IRQ(&s, t + 100, 0, 10, MKM_EV_IRQ_EXIT, TIMER, MKM_EVF_VECTOR);
	}
	OUT(&s, 2000 + n * 1000, 0, 10, MKM_TS_INTERRUPTIBLE, 0);
	return build_idle(&s);
}

struct build_job {
	const struct tl *tl;
	uint64_t taken_ns, run_ns; /* of the first build */
	int failures;
};

static uint64_t taken(const struct tl *tl, uint64_t *run_ns)
{
	struct noise_result r;
	struct noise *n;
	uint64_t t;

	if (noise_create(&n, tl))
		return UINT64_MAX;
	if (noise_thread(n, (size_t)tl_find(tl, 10), 0, UINT64_MAX, &r)) {
		noise_destroy(n);
		return UINT64_MAX;
	}
	t = r.taken_ns;
	*run_ns = r.run_ns;
	noise_result_free(&r);
	noise_destroy(n);
	return t;
}

static void *build_many(void *arg)
{
	struct build_job *job = arg;
	int i;

	for (i = 0; i < 3000; i++) {
		uint64_t run = 0, t = taken(job->tl, &run);

		job->failures += t != job->taken_ns || run != job->run_ns;
	}
	return NULL;
}

/*
 * Two indexes built at once in two threads, of two timelines whose
 * handlers' runs are stored in different orders, each give what one
 * build alone gives (the sort once compared through a static global).
 */
static void test_noise_create_concurrent_builds(void **state)
{
	struct build_job job[2];
	pthread_t t[2];
	int k;

	(void)state;
	job[0] = (struct build_job){ .tl = build_ticks(NR_TICKS, false) };
	job[1] = (struct build_job){ .tl = build_ticks(NR_TICKS, true) };
	for (k = 0; k < 2; k++) {
		job[k].taken_ns = taken(job[k].tl, &job[k].run_ns);
		assert_int_not_equal(job[k].taken_ns, UINT64_MAX);
	}
	/* Each tick took 100 ns from the thread, nested or not. */
	assert_int_equal(job[0].taken_ns, NR_TICKS * 100);
	assert_int_equal(job[1].taken_ns, NR_TICKS * 100);
	for (k = 0; k < 2; k++)
		assert_int_equal(
			pthread_create(&t[k], NULL, build_many, &job[k]), 0);
	for (k = 0; k < 2; k++)
		assert_int_equal(pthread_join(t[k], NULL), 0);
	assert_int_equal(job[0].failures, 0);
	assert_int_equal(job[1].failures, 0);
	for (k = 0; k < 2; k++)
		tl_destroy((struct tl *)job[k].tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_noise_create_concurrent_builds),
		cmocka_unit_test(test_idle_thread_rebuilt),
		cmocka_unit_test(test_no_idle_thread_when_selective),
		cmocka_unit_test(test_noise_thread_intruders),
		cmocka_unit_test(test_noise_periodic_intruder),
		cmocka_unit_test(test_idle_analyse_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
