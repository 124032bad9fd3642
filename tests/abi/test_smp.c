// SPDX-License-Identifier: GPL-2.0
/*
 * test_smp.c - events from every CPU (the VM has two), migrations with
 * their source and destination, marks on the CPU that made them, and timer
 * wakeups flagged as coming from an interrupt.
 */
#include "abi.h"

#define SLEEPS 10

static void sleep_fn(struct abi_worker *w)
{
	for (int i = 0; i < SLEEPS; i++) {
		usleep(1000);
		w->progress++;
	}
}

static void need_two_cpus(void)
{
	if (abi_nr_cpus_online() < 2) {
		printf("# needs 2 CPUs, %d online\n", abi_nr_cpus_online());
		skip();
	}
}

/* Monitor the workers, run them once, and drain (suspended at the end). */
static void run_monitored(struct abi_worker **w, int n, struct abi_trace *t)
{
	int fd = abi_open();

	abi_configure(fd, 1u << 20, MKM_CLASS_DEFAULT | MKM_CLASS_WAKEUP, 0,
		      NULL);
	for (int i = 0; i < n; i++)
		abi_wait_blocked(w[i]->tid);
	abi_resume(fd);
	for (int i = 0; i < n; i++)
		ABI_OK(abi_monitor(fd, w[i]->tid, 100 + (uint32_t)i));
	for (int i = 0; i < n; i++)
		abi_worker_run(w[i]);
	for (int i = 0; i < n; i++)
		abi_worker_wait(w[i]);
	for (int i = 0; i < n; i++)
		abi_wait_blocked(w[i]->tid);
	abi_suspend(fd);
	abi_drain(fd, t);
	struct mkm_cpu_stats *st;
	uint32_t nr = abi_stats(fd, &st);
	abi_check_stream(t, nr, NULL, NULL);
	free(st);
	ABI_OK(close(fd));
}

static void test_events_from_both_cpus(void **state)
{
	struct abi_worker w0, w1;
	struct abi_worker *ws[2] = { &w0, &w1 };
	struct abi_trace t = { 0 };
	(void)state;

	need_two_cpus();
	int c0 = abi_cpu_online(0), c1 = abi_cpu_online(1);
	abi_worker_start(&w0, "abi-cpu0", c0, sleep_fn, NULL);
	abi_worker_start(&w1, "abi-cpu1", c1, sleep_fn, NULL);
	run_monitored(ws, 2, &t);

	ABI_EQ(abi_count_where(&t, w0.tid, MKM_EV_SWITCH_OUT, c0, 0, 0),
	       abi_count(&t, w0.tid, MKM_EV_SWITCH_OUT));
	ABI_EQ(abi_count_where(&t, w1.tid, MKM_EV_SWITCH_OUT, c1, 0, 0),
	       abi_count(&t, w1.tid, MKM_EV_SWITCH_OUT));
	ABI_EQ(abi_count_where(&t, w0.tid, MKM_EV_SWITCH_IN, c0, 0, 0),
	       abi_count(&t, w0.tid, MKM_EV_SWITCH_IN));
	ABI_EQ(abi_count_where(&t, w1.tid, MKM_EV_SWITCH_IN, c1, 0, 0),
	       abi_count(&t, w1.tid, MKM_EV_SWITCH_IN));
	assert_true(abi_count(&t, w0.tid, MKM_EV_SWITCH_OUT) >= SLEEPS);
	assert_true(abi_count(&t, w1.tid, MKM_EV_SWITCH_OUT) >= SLEEPS);
	assert_true(abi_count_where(&t, ABI_ANY, ABI_ANY, c0, 0, 0) > 0);
	assert_true(abi_count_where(&t, ABI_ANY, ABI_ANY, c1, 0, 0) > 0);
	abi_trace_free(&t);
	abi_worker_stop(&w0);
	abi_worker_stop(&w1);
}

static void test_wakeup_timer_flagged_in_irq(void **state)
{
	struct abi_worker w;
	struct abi_worker *ws[1] = { &w };
	struct abi_trace t = { 0 };
	(void)state;

	abi_worker_start(&w, "abi-sleeper", abi_cpu_online(0), sleep_fn, NULL);
	run_monitored(ws, 1, &t);
	/* Each usleep ends with an hrtimer expiring in hard interrupt. */
	size_t irq = abi_count_where(&t, w.tid, MKM_EV_WAKEUP, ABI_ANY,
				     MKM_EVF_IN_IRQ, MKM_EVF_IN_IRQ);
	if (irq < SLEEPS)
		fail_msg("%zu WAKEUP flagged IN_IRQ for %d timer sleeps "
			 "(%zu WAKEUP in all)",
			 irq, SLEEPS, abi_count(&t, w.tid, MKM_EV_WAKEUP));
	abi_trace_free(&t);
	abi_worker_stop(&w);
}

/*
 * A wakeup across CPUs: the wakee's CPU is idle, so try_to_wake_up()
 * queues the wakee on that CPU's wake list and the WAKEUP fires there,
 * from an IPI or the idle loop, where current is not the waker. Both
 * records of each wakeup name the thread that woke it, from task context.
 */
static void test_cross_cpu_wakeup_names_the_waker(void **state)
{
	const long n = 200;
	struct abi_pingpong pp;
	struct abi_trace t = { 0 };
	size_t wakeups = 0;
	(void)state;

	need_two_cpus();
	abi_pingpong_start(&pp, "abi-xcpu", abi_cpu_online(0),
			   abi_cpu_online(1), n);
	int fd = abi_open();
	abi_configure(fd, 1u << 20, MKM_CLASS_DEFAULT | MKM_CLASS_WAKEUP, 0,
		      NULL);
	abi_pingpong_record(fd, &pp, &t);
	ABI_OK(close(fd));
	abi_sort_by_time(&t);
	for (size_t i = 0; i < t.n; i++) {
		const struct mkm_event *e = &t.ev[i];
		uint32_t partner = e->tid == (uint32_t)pp.a.tid ?
					   (uint32_t)pp.b.tid :
					   (uint32_t)pp.a.tid;

		if (e->type != MKM_EV_WAKEUP && e->type != MKM_EV_WAKING)
			continue;
		/* The pair's wakeups, and the test thread's start command. */
		if (e->arg1 != partner && e->arg1 != (uint32_t)abi_gettid())
			fail_msg("record %zu: %s of %u on cpu %u by %u, not "
				 "%u",
				 i, mon_event_name(e->type), e->tid, e->cpu,
				 e->arg1, partner);
		if (e->flags & MKM_EVF_IN_IRQ)
			fail_msg("record %zu: %s of %u on cpu %u from an "
				 "interrupt",
				 i, mon_event_name(e->type), e->tid, e->cpu);
		wakeups += e->type == MKM_EV_WAKEUP && e->arg1 == partner;
	}
	printf("# %zu WAKEUP by the partner\n", wakeups);
	assert_true(wakeups >= (size_t)n);
	abi_trace_free(&t);
	abi_pingpong_stop(&pp);
}

static void migrate_self_fn(struct abi_worker *w)
{
	int dest = *(int *)w->arg;

	if (abi_pin_self(dest)) {
		w->error = __LINE__;
		return;
	}
	if (sched_getcpu() != dest)
		w->error = __LINE__;
	sleep_fn(w);
}

/* The MIGRATE of tid to dest from orig, and switches on dest after it. */
static void check_migration(const struct abi_trace *t, pid_t tid, int orig,
			    int dest)
{
	long m = abi_find(t, 0, tid, MKM_EV_MIGRATE);

	if (m < 0)
		fail_msg("no MIGRATE of %d from cpu %d to %d", (int)tid, orig,
			 dest);
	ABI_EQ(abi_count(t, tid, MKM_EV_MIGRATE), 1);
	ABI_EQ(t->ev[m].arg0, dest);
	ABI_EQ(t->ev[m].arg1, orig);
	ABI_EQ(t->ev[m].unique_id, 100);
	size_t after = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct mkm_event *e = &t->ev[i];
		if (e->tid != (uint32_t)tid || e->type != MKM_EV_SWITCH_IN ||
		    e->time_ns <= t->ev[m].time_ns)
			continue;
		if (e->cpu != dest)
			fail_msg("event %zu: SWITCH_IN on cpu %u after the "
				 "migration to %d",
				 i, e->cpu, dest);
		after++;
	}
	assert_true(after >= SLEEPS);
}

static void test_migrate_running_thread_dest_cpu(void **state)
{
	struct abi_worker w;
	struct abi_worker *ws[1] = { &w };
	struct abi_trace t = { 0 };
	(void)state;

	need_two_cpus();
	int c0 = abi_cpu_online(0), c1 = abi_cpu_online(1);
	abi_worker_start(&w, "abi-mover", c0, migrate_self_fn, &c1);
	run_monitored(ws, 1, &t);
	check_migration(&t, w.tid, c0, c1);
	abi_trace_free(&t);
	abi_worker_stop(&w);
}

static void test_migrate_sleeping_thread_on_wakeup(void **state)
{
	struct abi_worker w;
	struct abi_trace t = { 0 };
	(void)state;

	need_two_cpus();
	int c0 = abi_cpu_online(0), c1 = abi_cpu_online(1);
	abi_worker_start(&w, "abi-moved", c1, sleep_fn, NULL);
	abi_wait_blocked(w.tid);
	int fd = abi_open();
	abi_resume(fd);
	ABI_OK(abi_monitor(fd, w.tid, 100));
	/* Moved while asleep: it runs on c0 from its next wakeup. */
	ABI_OK(abi_pin_tid(w.tid, c0));
	abi_worker_run(&w);
	abi_worker_wait(&w);
	abi_wait_blocked(w.tid);
	abi_suspend(fd);
	abi_drain(fd, &t);
	ABI_OK(close(fd));
	check_migration(&t, w.tid, c1, c0);
	abi_trace_free(&t);
	abi_worker_stop(&w);
}

static void mark_fn(struct abi_worker *w)
{
	int fd = *(int *)w->arg;

	if (abi_mark(fd, (uint64_t)w->cpu << 32 | 0xabcu))
		w->error = __LINE__;
}

static void test_mark_on_each_cpu(void **state)
{
	struct abi_worker w[64];
	struct abi_trace t = { 0 };
	struct mkm_cpu_stats *st;
	(void)state;

	int n = abi_nr_cpus_online();
	if (n > 64)
		n = 64;
	int fd = abi_open();
	abi_resume(fd);
	for (int i = 0; i < n; i++) {
		abi_worker_start(&w[i], "abi-marker", abi_cpu_online(i),
				 mark_fn, &fd);
		abi_worker_run(&w[i]);
		abi_worker_wait(&w[i]);
	}
	abi_suspend(fd);
	abi_drain(fd, &t);
	uint32_t nr = abi_stats(fd, &st);
	ABI_EQ(t.n, n);
	for (int i = 0; i < n; i++) {
		long k = abi_find(&t, 0, w[i].tid, MKM_EV_MARK);
		assert_true(k >= 0);
		ABI_EQ(t.ev[k].cpu, w[i].cpu);
		ABI_EQ(t.ev[k].arg0, 0xabc);
		ABI_EQ(t.ev[k].arg1, w[i].cpu);
		assert_true((uint32_t)w[i].cpu < nr);
		ABI_EQ(st[w[i].cpu].produced, 1);
		ABI_EQ(st[w[i].cpu].read, 1);
		abi_worker_stop(&w[i]);
	}
	free(st);
	abi_trace_free(&t);
	ABI_OK(close(fd));
}

int main(int argc, char **argv)
{
	abi_main(argc, argv);
	const struct CMUnitTest tests[] = {
		ABI_TEST(test_events_from_both_cpus),
		ABI_TEST(test_wakeup_timer_flagged_in_irq),
		ABI_TEST(test_cross_cpu_wakeup_names_the_waker),
		ABI_TEST(test_migrate_running_thread_dest_cpu),
		ABI_TEST(test_migrate_sleeping_thread_on_wakeup),
		ABI_TEST(test_mark_on_each_cpu),
	};
	return cmocka_run_group_tests_name("smp", tests, NULL, NULL);
}
