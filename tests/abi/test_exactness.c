// SPDX-License-Identifier: GPL-2.0
/*
 * test_exactness.c - two monitored threads ping-pong N times over pipes,
 * pinned to one CPU, then an unmonitored pair does the same on that CPU.
 * The stream must hold exactly the switches and wakeups the run implies,
 * checked against the kernel's own counters (voluntary_ctxt_switches and
 * nonvoluntary_ctxt_switches in /proc/self/task/<tid>/status) over the same
 * window. The window is exact because every thread is blocked (asleep, with
 * stable counters) when monitoring starts and when it stops.
 *
 * The run happens once, in the first test; every test checks one property
 * of its stream.
 */
#include "abi.h"

#define N 1000

static struct {
	int attempted, done;
	int cpu;
	pid_t a, b, c, d, main_tid;
	struct abi_ctxt a0, a1, b0, b1;
	uint64_t t0, t1;
	struct abi_trace t;
	struct mkm_cpu_stats *stats;
	uint32_t nr_cpus;
} x;

static void exact_run(void)
{
	struct abi_pingpong mon, unmon;

	if (x.done)
		return;
	if (x.attempted)
		fail_msg("the ping-pong run failed in an earlier test");
	x.attempted = 1;
	x.cpu = abi_cpu_online(abi_nr_cpus_online() - 1);
	x.main_tid = abi_gettid();
	abi_pingpong_start(&mon, "abi-mon", x.cpu, x.cpu, N);
	abi_pingpong_start(&unmon, "abi-unm", x.cpu, x.cpu, N);
	x.a = mon.a.tid;
	x.b = mon.b.tid;
	x.c = unmon.a.tid;
	x.d = unmon.b.tid;

	int fd = abi_open();
	abi_configure(fd, 4u << 20, MKM_CLASS_DEFAULT | MKM_CLASS_WAKEUP, 0,
		      NULL);
	abi_wait_blocked(x.a);
	abi_wait_blocked(x.b);
	abi_resume(fd);
	x.t0 = abi_now_ns();
	ABI_OK(abi_monitor(fd, x.a, 1001));
	ABI_OK(abi_monitor(fd, x.b, 1002));
	abi_ctxt(x.a, &x.a0);
	abi_ctxt(x.b, &x.b0);

	/* One pair after the other, so the monitored sequence is simple. */
	abi_pingpong_run(&mon);
	abi_pingpong_run(&unmon);
	ABI_EQ(mon.a.progress, N);
	ABI_EQ(unmon.a.progress, N);

	abi_wait_blocked(x.a);
	abi_wait_blocked(x.b);
	abi_ctxt(x.a, &x.a1);
	abi_ctxt(x.b, &x.b1);
	abi_suspend(fd);
	x.t1 = abi_now_ns();
	struct abi_ctxt a2, b2;
	abi_ctxt(x.a, &a2);
	abi_ctxt(x.b, &b2);
	if (a2.vol != x.a1.vol || a2.nonvol != x.a1.nonvol ||
	    b2.vol != x.b1.vol || b2.nonvol != x.b1.nonvol)
		fail_msg("a worker switched while it should be blocked");

	abi_drain(fd, &x.t);
	x.nr_cpus = abi_stats(fd, &x.stats);
	ABI_OK(close(fd));
	abi_pingpong_stop(&mon);
	abi_pingpong_stop(&unmon);
	printf("# cpu %d, %zu events; a: vol %lu nonvol %lu, b: vol %lu "
	       "nonvol %lu\n",
	       x.cpu, x.t.n, x.a1.vol - x.a0.vol, x.a1.nonvol - x.a0.nonvol,
	       x.b1.vol - x.b0.vol, x.b1.nonvol - x.b0.nonvol);
	x.done = 1;
}

static size_t count_switch_out(pid_t tid, uint8_t preempted)
{
	return abi_count_where(&x.t, tid, MKM_EV_SWITCH_OUT, ABI_ANY,
			       MKM_EVF_PREEMPTED, preempted);
}

static void test_switch_out_voluntary_matches_ctxt_switches(void **state)
{
	(void)state;
	exact_run();
	ABI_EQ(count_switch_out(x.a, 0), x.a1.vol - x.a0.vol);
	ABI_EQ(count_switch_out(x.b, 0), x.b1.vol - x.b0.vol);
}

static void test_switch_out_preempted_matches_ctxt_switches(void **state)
{
	(void)state;
	exact_run();
	ABI_EQ(count_switch_out(x.a, MKM_EVF_PREEMPTED),
	       x.a1.nonvol - x.a0.nonvol);
	ABI_EQ(count_switch_out(x.b, MKM_EVF_PREEMPTED),
	       x.b1.nonvol - x.b0.nonvol);
}

static void test_switch_out_at_least_n(void **state)
{
	(void)state;
	exact_run();
	/* Sharing one CPU, each side must leave it once per round trip. */
	assert_true(abi_count(&x.t, x.a, MKM_EV_SWITCH_OUT) >= N);
	assert_true(abi_count(&x.t, x.b, MKM_EV_SWITCH_OUT) >= N);
}

static void check_alternation(pid_t tid)
{
	int expect = MKM_EV_SWITCH_IN; /* blocked at start and at end */
	size_t n = 0;

	for (size_t i = 0; i < x.t.n; i++) {
		const struct mkm_event *e = &x.t.ev[i];
		if (e->tid != (uint32_t)tid || (e->type != MKM_EV_SWITCH_IN &&
						e->type != MKM_EV_SWITCH_OUT))
			continue;
		if (e->type != expect)
			fail_msg("tid %d: event %zu is %s, expected %s",
				 (int)tid, i, abi_type_name(e->type),
				 abi_type_name((unsigned int)expect));
		expect = expect == MKM_EV_SWITCH_IN ? MKM_EV_SWITCH_OUT :
						      MKM_EV_SWITCH_IN;
		n++;
	}
	if (expect != MKM_EV_SWITCH_IN)
		fail_msg("tid %d: stream ends switched in", (int)tid);
	ABI_EQ(abi_count(&x.t, tid, MKM_EV_SWITCH_IN),
	       abi_count(&x.t, tid, MKM_EV_SWITCH_OUT));
	assert_true(n >= 2 * N);
}

static void test_switch_in_alternates_with_switch_out(void **state)
{
	(void)state;
	exact_run();
	check_alternation(x.a);
	check_alternation(x.b);
}

static int monitored(uint32_t tid)
{
	return tid == (uint32_t)x.a || tid == (uint32_t)x.b;
}

static void test_switch_out_followed_by_switch_in_of_next(void **state)
{
	struct mkm_event *ev;
	size_t pairs = 0;
	(void)state;
	exact_run();

	size_t n = abi_cpu_events(&x.t, (unsigned int)x.cpu, &ev);
	for (size_t i = 0; i < n; i++) {
		if (ev[i].type == MKM_EV_SWITCH_OUT && monitored(ev[i].arg1)) {
			if (i + 1 >= n || ev[i + 1].type != MKM_EV_SWITCH_IN ||
			    ev[i + 1].tid != ev[i].arg1 ||
			    ev[i + 1].arg1 != ev[i].tid)
				fail_msg("cpu %d record %zu: SWITCH_OUT of %u "
					 "to %u not followed by its SWITCH_IN",
					 x.cpu, i, ev[i].tid, ev[i].arg1);
			pairs++;
		}
		if (ev[i].type == MKM_EV_SWITCH_IN && monitored(ev[i].arg1)) {
			if (i == 0 || ev[i - 1].type != MKM_EV_SWITCH_OUT ||
			    ev[i - 1].tid != ev[i].arg1 ||
			    ev[i - 1].arg1 != ev[i].tid)
				fail_msg("cpu %d record %zu: SWITCH_IN of %u "
					 "from %u without its SWITCH_OUT",
					 x.cpu, i, ev[i].tid, ev[i].arg1);
		}
	}
	free(ev);
	/* About two hand-overs per round trip; allow for intruders. */
	assert_true(pairs >= N);
}

static void test_switch_out_state_matches_preemption(void **state)
{
	(void)state;
	exact_run();
	for (size_t i = 0; i < x.t.n; i++) {
		const struct mkm_event *e = &x.t.ev[i];
		if (e->type != MKM_EV_SWITCH_OUT)
			continue;
		/* Blocking means a pipe read here: interruptible sleep. */
		uint32_t want = (e->flags & MKM_EVF_PREEMPTED) ?
					MKM_TS_RUNNING :
					MKM_TS_INTERRUPTIBLE;
		if (e->arg0 != want)
			fail_msg("event %zu: SWITCH_OUT flags %#x state %u, "
				 "expected %u",
				 i, e->flags, e->arg0, want);
		if (e->flags & ~MKM_EVF_PREEMPTED)
			fail_msg("event %zu: SWITCH_OUT flags %#x", i,
				 e->flags);
	}
}

static void check_wakeups(pid_t tid, pid_t partner, const struct abi_ctxt *c0,
			  const struct abi_ctxt *c1)
{
	size_t wakeup = abi_count(&x.t, tid, MKM_EV_WAKEUP);
	size_t waking = abi_count(&x.t, tid, MKM_EV_WAKING);
	unsigned long vol = c1->vol - c0->vol, nonvol = c1->nonvol - c0->nonvol;
	size_t other_wakeup = 0, other_waking = 0;

	/*
	 * Blocked at both ends: one wakeup per blocking, the last blocking
	 * being balanced by the first wakeup (from the main thread). A
	 * thread preempted on its way to sleep is woken without having
	 * blocked, hence the range.
	 */
	if (wakeup < vol || wakeup > vol + nonvol)
		fail_msg("tid %d: %zu WAKEUP for %lu blockings, %lu "
			 "preemptions",
			 (int)tid, wakeup, vol, nonvol);
	ABI_EQ(waking, wakeup);
	for (size_t i = 0; i < x.t.n; i++) {
		const struct mkm_event *e = &x.t.ev[i];
		if (e->tid != (uint32_t)tid ||
		    (e->type != MKM_EV_WAKEUP && e->type != MKM_EV_WAKING))
			continue;
		if (e->type == MKM_EV_WAKEUP && e->arg0 != (uint32_t)x.cpu)
			fail_msg(
				"event %zu: WAKEUP target cpu %u, pinned to %d",
				i, e->arg0, x.cpu);
		if (e->arg1 == (uint32_t)partner) {
			/* A local wakeup from a pipe write, in a syscall. */
			if (e->flags & MKM_EVF_IN_IRQ)
				fail_msg("event %zu: %s by %u flagged IN_IRQ",
					 i, abi_type_name(e->type), e->arg1);
			continue;
		}
		/*
		 * The one wakeup from the main thread, maybe on another CPU
		 * (then the kernel may finish it in an IPI on the target).
		 * WAKING runs in the waker's context: it names main.
		 */
		if (e->type == MKM_EV_WAKING) {
			other_waking++;
			if (e->arg1 != (uint32_t)x.main_tid)
				fail_msg(
					"event %zu: WAKING of %d by %u: only %d "
					"and %d wake it",
					i, (int)tid, e->arg1, (int)partner,
					(int)x.main_tid);
		} else {
			other_wakeup++;
		}
	}
	ABI_EQ(other_waking, 1);
	ABI_EQ(other_wakeup, 1);
	ABI_EQ(abi_count(&x.t, tid, MKM_EV_WAKEUP_NEW), 0);
}

static void test_wakeup_matches_blocking(void **state)
{
	(void)state;
	exact_run();
	check_wakeups(x.a, x.b, &x.a0, &x.a1);
	check_wakeups(x.b, x.a, &x.b0, &x.b1);
}

/*
 * The run-queue waits told by SWITCH_IN add up to what the kernel added to
 * run_delay (/proc/self/task/<tid>/schedstat) over the window. The kernel
 * stops each wait at its run-queue clock, read as __schedule() begins;
 * mkm at the switch tracepoint, a little later: never less, and at most
 * SLACK_NS more per switch in.
 */
#define SLACK_NS 50000ull

static void check_waits(pid_t tid, const struct abi_ctxt *c0,
			const struct abi_ctxt *c1)
{
	uint64_t kernel = c1->run_delay - c0->run_delay, ours = 0;
	size_t ins = 0;

	for (size_t i = 0; i < x.t.n; i++) {
		const struct mkm_event *e = &x.t.ev[i];
		if (e->tid != (uint32_t)tid || e->type != MKM_EV_SWITCH_IN)
			continue;
		ins++;
		ours += e->flags & MKM_EVF_WAIT_US ? e->arg0 * 1000ull :
						     e->arg0;
	}
	printf("# tid %d: %zu switches in, run-queue wait %" PRIu64
	       " ns by mkm, %" PRIu64 " ns by schedstat\n",
	       (int)tid, ins, ours, kernel);
	if (ours < kernel || ours - kernel > ins * SLACK_NS)
		fail_msg("tid %d: mkm's run-queue wait %" PRIu64
			 " ns, schedstat's %" PRIu64 " ns over %zu switches",
			 (int)tid, ours, kernel, ins);
}

static void test_switch_in_wait_matches_run_delay(void **state)
{
	(void)state;
	exact_run();
	check_waits(x.a, &x.a0, &x.a1);
	check_waits(x.b, &x.b0, &x.b1);
}

static void test_unmonitored_threads_no_events(void **state)
{
	(void)state;
	exact_run();
	ABI_EQ(abi_count(&x.t, x.c, ABI_ANY), 0);
	ABI_EQ(abi_count(&x.t, x.d, ABI_ANY), 0);
	ABI_EQ(abi_count(&x.t, x.main_tid, ABI_ANY), 0);
	for (size_t i = 0; i < x.t.n; i++) {
		const struct mkm_event *e = &x.t.ev[i];
		if (!monitored(e->tid))
			fail_msg("event %zu (%s) of unmonitored tid %u", i,
				 abi_type_name(e->type), e->tid);
		uint32_t uid = e->tid == (uint32_t)x.a ? 1001 : 1002;
		if (e->unique_id != uid)
			fail_msg(
				"event %zu: tid %u with unique_id %u, given %u",
				i, e->tid, e->unique_id, uid);
	}
}

static void test_timestamps_monotonic_within_window(void **state)
{
	(void)state;
	exact_run();
	abi_check_stream(&x.t, x.nr_cpus, NULL, NULL);
	for (size_t i = 0; i < x.t.n; i++)
		if (x.t.ev[i].time_ns < x.t0 || x.t.ev[i].time_ns > x.t1)
			fail_msg("event %zu: time %llu outside [%llu, %llu]", i,
				 (unsigned long long)x.t.ev[i].time_ns,
				 (unsigned long long)x.t0,
				 (unsigned long long)x.t1);
}

static void test_seq_contiguous_no_lost(void **state)
{
	uint64_t rec[1024] = { 0 }, lost[1024] = { 0 };
	(void)state;
	exact_run();
	assert_true(x.nr_cpus <= 1024);
	ABI_EQ(abi_count(&x.t, ABI_ANY, MKM_EV_LOST), 0);
	abi_check_stream(&x.t, x.nr_cpus, rec, lost);
	for (uint32_t cpu = 0; cpu < x.nr_cpus; cpu++) {
		ABI_EQ(x.stats[cpu].lost, 0);
		ABI_EQ(x.stats[cpu].buffered, 0);
		ABI_EQ(x.stats[cpu].produced, rec[cpu]);
		ABI_EQ(x.stats[cpu].read, rec[cpu]);
	}
}

static void check_attach(pid_t tid, const char *name)
{
	long i = abi_find(&x.t, 0, tid, MKM_EV_ATTACH);

	assert_true(i >= 0);
	ABI_EQ(abi_count(&x.t, tid, MKM_EV_ATTACH), 1);
	ABI_EQ(x.t.ev[i].arg0, MKM_TS_INTERRUPTIBLE);
	ABI_EQ(x.t.ev[i].arg1, (uint32_t)-1);
	long n0 = abi_find(&x.t, (size_t)i, tid, MKM_EV_NAME);
	assert_true(n0 >= 0);
	ABI_EQ(x.t.ev[n0].flags, 0);
	char got[9];
	for (int k = 0; k < 8; k++)
		got[k] = (char)((k < 4 ? x.t.ev[n0].arg0 : x.t.ev[n0].arg1) >>
				(8 * (k % 4)));
	got[8] = 0;
	assert_memory_equal(got, name, 8);
	/* Nothing of this thread comes before its ATTACH. */
	for (size_t k = 0; k < x.t.n; k++)
		if (x.t.ev[k].tid == (uint32_t)tid &&
		    x.t.ev[k].time_ns < x.t.ev[i].time_ns)
			fail_msg("event %zu (%s) before the ATTACH of %d", k,
				 abi_type_name(x.t.ev[k].type), (int)tid);
}

static void test_attach_reports_blocked_thread(void **state)
{
	(void)state;
	exact_run();
	check_attach(x.a, "abi-mon-a");
	check_attach(x.b, "abi-mon-b");
}

static void test_switch_events_on_pinned_cpu(void **state)
{
	(void)state;
	exact_run();
	for (size_t i = 0; i < x.t.n; i++) {
		const struct mkm_event *e = &x.t.ev[i];
		if ((e->type == MKM_EV_SWITCH_IN ||
		     e->type == MKM_EV_SWITCH_OUT) &&
		    e->cpu != x.cpu)
			fail_msg("event %zu: %s on cpu %u, pinned to %d", i,
				 abi_type_name(e->type), e->cpu, x.cpu);
	}
	ABI_EQ(abi_count(&x.t, x.a, MKM_EV_MIGRATE), 0);
	ABI_EQ(abi_count(&x.t, x.b, MKM_EV_MIGRATE), 0);
}

static int exact_teardown(void **state)
{
	(void)state;
	abi_trace_free(&x.t);
	free(x.stats);
	return 0;
}

int main(int argc, char **argv)
{
	abi_main(argc, argv);
	const struct CMUnitTest tests[] = {
		ABI_TEST(test_switch_out_voluntary_matches_ctxt_switches),
		ABI_TEST(test_switch_out_preempted_matches_ctxt_switches),
		ABI_TEST(test_switch_out_at_least_n),
		ABI_TEST(test_switch_in_alternates_with_switch_out),
		ABI_TEST(test_switch_out_followed_by_switch_in_of_next),
		ABI_TEST(test_switch_out_state_matches_preemption),
		ABI_TEST(test_wakeup_matches_blocking),
		ABI_TEST(test_switch_in_wait_matches_run_delay),
		ABI_TEST(test_unmonitored_threads_no_events),
		ABI_TEST(test_timestamps_monotonic_within_window),
		ABI_TEST(test_seq_contiguous_no_lost),
		ABI_TEST(test_attach_reports_blocked_thread),
		ABI_TEST(test_switch_events_on_pinned_cpu),
	};
	return cmocka_run_group_tests_name("exactness", tests, NULL,
					   exact_teardown);
}
