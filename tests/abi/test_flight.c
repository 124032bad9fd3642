// SPDX-License-Identifier: GPL-2.0
/*
 * test_flight.c - a flight recorder's monitor (MKM_CONFIG_FLIGHT, ABI
 * 2.7): full rings overwrite their oldest records, what was overwritten is
 * counted (STATS) and told in-band (a LOST record with
 * MKM_EVF_OVERWRITTEN), a read while the writers go on gives each CPU's
 * window without a hole, poll() wakes on a trigger and never on
 * occupancy, the triggers (a run-queue wait, an interrupt, a mark, one
 * into the caller's own monitor) write their records where they fired,
 * and a thread's exit names it.
 */
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>

#include "abi.h"

#define MAX_CPUS 64
#define RING_BYTES 8192u
#define RING_RECORDS (RING_BYTES / sizeof(struct mkm_event))

static int open_flight(uint64_t runq_ns, uint64_t irq_ns, uint32_t classes)
{
	struct mkm_config c = { .ring_bytes = RING_BYTES,
				.classes = classes,
				.flags = MKM_CONFIG_FLIGHT,
				.trigger_runq_ns = runq_ns,
				.trigger_irq_ns = irq_ns };
	int fd = abi_open();

	ABI_OK(ioctl(fd, MKM_IOC_CONFIGURE, &c));
	ABI_EQ(c.ring_bytes, RING_BYTES);
	ABI_EQ(c.wakeup_bytes, 0);
	return fd;
}

struct marks {
	int fd;
	uint32_t n;
	volatile int stop; /* for a writer that runs until told */
};

static void marks_fn(struct abi_worker *w)
{
	struct marks *m = w->arg;

	for (uint32_t i = 0; m->n ? i < m->n : !m->stop; i++)
		if (abi_mark(m->fd, (uint64_t)w->cpu << 32 | i)) {
			w->error = __LINE__;
			return;
		}
}

/*
 * One CPU's window: an OVERWRITTEN record (when the ring came round)
 * whose count, with the marks after it, is every mark from 0 on; then
 * marks with consecutive values and seqs: no hole. Returns the marks.
 */
static size_t check_window(const struct abi_trace *t, int cpu,
			   uint64_t *overwritten)
{
	struct mkm_event *ev;
	size_t k = abi_cpu_events(t, (unsigned int)cpu, &ev), j = 0;
	uint64_t skipped = 0;

	assert_true(k > 0);
	if (ev[0].type == MKM_EV_LOST) {
		ABI_EQ(ev[0].flags, MKM_EVF_OVERWRITTEN);
		skipped = (uint64_t)ev[0].arg1 << 32 | ev[0].arg0;
		j = 1;
	}
	for (size_t i = j; i < k; i++) {
		if (ev[i].type != MKM_EV_MARK ||
		    ev[i].arg0 != skipped + (i - j) ||
		    ev[i].arg1 != (uint32_t)cpu ||
		    (i > j && ev[i].seq != ev[i - 1].seq + 1))
			fail_msg(
				"cpu %d record %zu of %zu: %s value %u seq %u, "
				"expected mark %llu",
				cpu, i, k, mon_event_name(ev[i].type),
				ev[i].arg0, ev[i].seq,
				(unsigned long long)(skipped + (i - j)));
	}
	free(ev);
	*overwritten = skipped;
	return k - j;
}

/* Overfilled with no reader: the newest records kept, the rest counted. */
static void test_flight_keeps_the_newest(void **state)
{
	struct abi_worker w;
	struct mkm_cpu_stats *st;
	struct abi_trace t = { 0 };
	const uint32_t n = 20 * RING_RECORDS;
	uint64_t skipped;
	(void)state;

	int fd = open_flight(0, 0, 0);
	struct marks m = { .fd = fd, .n = n };
	abi_resume(fd);
	abi_worker_start(&w, "abi-flight", abi_cpu_online(0), marks_fn, &m);
	abi_worker_run(&w);
	abi_worker_wait(&w);
	ABI_EQ(w.error, 0);
	abi_suspend(fd);

	abi_stats(fd, &st);
	ABI_EQ(st[w.cpu].produced, n);
	ABI_EQ(st[w.cpu].lost, 0);
	ABI_EQ(st[w.cpu].buffered, RING_RECORDS);
	ABI_EQ(st[w.cpu].overwritten, n - RING_RECORDS);
	free(st);

	/* Suspended: the whole ring, after what it overwrote. */
	abi_drain(fd, &t);
	abi_check_stream(&t, MAX_CPUS, NULL, NULL);
	ABI_EQ(check_window(&t, w.cpu, &skipped), RING_RECORDS);
	ABI_EQ(skipped, n - RING_RECORDS);
	abi_stats(fd, &st);
	ABI_EQ(st[w.cpu].produced, st[w.cpu].read + st[w.cpu].overwritten);
	ABI_EQ(st[w.cpu].buffered, 0);
	free(st);
	abi_trace_free(&t);
	abi_worker_stop(&w);
	ABI_OK(close(fd));
}

/*
 * Read while writers on every CPU go on: each window is contiguous, and
 * the reads come round again and again without a hole.
 */
static void test_flight_read_while_writing_has_no_hole(void **state)
{
	struct abi_worker w[MAX_CPUS];
	(void)state;

	int n = abi_nr_cpus_online();
	if (n > MAX_CPUS)
		n = MAX_CPUS;
	int fd = open_flight(0, 0, 0);
	struct marks m = { .fd = fd, .n = 0 };
	abi_resume(fd);
	for (int i = 0; i < n; i++) {
		abi_worker_start(&w[i], "abi-flight", abi_cpu_online(i),
				 marks_fn, &m);
		abi_worker_run(&w[i]);
	}
	for (int round = 0; round < 20; round++) {
		struct abi_trace t = { 0 };

		abi_sleep_ms(5);
		abi_drain_nonblock(fd, &t);
		abi_check_stream(&t, MAX_CPUS, NULL, NULL);
		abi_trace_free(&t);
	}
	m.stop = 1;
	for (int i = 0; i < n; i++) {
		abi_worker_wait(&w[i]);
		ABI_EQ(w[i].error, 0);
	}
	abi_suspend(fd);
	struct abi_trace t = { 0 };
	abi_drain(fd, &t);
	abi_check_stream(&t, MAX_CPUS, NULL, NULL);
	for (int i = 0; i < n; i++) {
		struct mkm_event *ev;
		size_t k = abi_cpu_events(&t, (unsigned int)w[i].cpu, &ev);

		/* The last window: the marks after the last read, in order. */
		for (size_t j = 1; j < k; j++)
			if (ev[j].type == MKM_EV_MARK &&
			    ev[j - 1].type == MKM_EV_MARK)
				ABI_EQ(ev[j].arg0, ev[j - 1].arg0 + 1);
		free(ev);
		abi_worker_stop(&w[i]);
	}
	abi_trace_free(&t);
	ABI_OK(close(fd));
}

/*
 * A thread that renames itself, then writes the ring round several times
 * and exits: its rename's NAME records are overwritten, and /proc forgets
 * it once reaped, so its exit names it again.
 */
static void test_flight_exit_names_the_thread(void **state)
{
	struct abi_trace t = { 0 };
	int go[2];
	char c = 0, name[17];
	(void)state;

	int cpu = abi_cpu_online(0);
	ABI_OK(abi_pin_self(cpu)); /* the attach's records on the same ring */
	int fd = open_flight(0, 0, 0);
	ABI_OK(pipe(go));
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		CHILD_OK(read(go[0], &c, 1) == 1 ? 0 : -1);
		prctl(PR_SET_NAME, "abi-exit-name");
		for (uint32_t i = 0; i < 3 * RING_RECORDS; i++)
			CHILD_OK(abi_mark(fd, i));
		_exit(0);
	}
	abi_resume(fd);
	ABI_OK(abi_monitor(fd, pid, 1));
	ABI_EQ(write(go[1], &c, 1), 1);
	abi_expect_child_ok(pid);
	abi_suspend(fd);
	ABI_OK(abi_pin_self(-1));
	abi_drain(fd, &t);
	abi_check_stream(&t, MAX_CPUS, NULL, NULL);

	/* The attach's and the rename's names are gone: only the exit's. */
	ABI_EQ(abi_count(&t, pid, MKM_EV_NAME), 2);
	long n0 = abi_find(&t, 0, pid, MKM_EV_NAME);
	long n1 = abi_find(&t, (size_t)n0 + 1, pid, MKM_EV_NAME);
	long e = abi_find(&t, 0, pid, MKM_EV_EXIT);
	assert_true(n0 >= 0 && n1 > n0 && e > n1);
	ABI_EQ(t.ev[n0].flags, 0);
	ABI_EQ(t.ev[n1].flags, 1);
	abi_name_of(&t.ev[n0], &t.ev[n1], name);
	assert_string_equal(name, "abi-exit-name");
	abi_trace_free(&t);
	ABI_OK(close(go[0]));
	ABI_OK(close(go[1]));
	ABI_OK(close(fd));
}

static int poll_in(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r = poll(&p, 1, timeout_ms);

	ABI_OK(r < 0 ? -1 : 0);
	return r > 0 && (p.revents & POLLIN);
}

/* poll(): never for a full ring, at once for a trigger, once per trigger. */
static void test_flight_poll_wakes_on_trigger_only(void **state)
{
	struct abi_worker w;
	struct abi_trace t = { 0 };
	(void)state;

	int fd = open_flight(0, 0, 0);
	struct marks m = { .fd = fd, .n = 4 * RING_RECORDS };
	abi_resume(fd);
	abi_worker_start(&w, "abi-flight", abi_cpu_online(0), marks_fn, &m);
	abi_worker_run(&w);
	abi_worker_wait(&w);
	assert_false(poll_in(fd, 50));

	struct mkm_mark mk = { .value = 0x1234567890ull,
			       .flags = MKM_MARK_TRIGGER };
	ABI_OK(ioctl(fd, MKM_IOC_MARK, &mk));
	assert_true(poll_in(fd, 5000));
	abi_drain_nonblock(fd, &t);
	assert_false(poll_in(fd, 50));

	/* The trigger right after its mark, naming the mark's value. */
	long i = abi_find(&t, 0, abi_gettid(), MKM_EV_TRIGGER);
	assert_true(i > 0);
	ABI_EQ(t.ev[i - 1].type, MKM_EV_MARK);
	ABI_EQ(t.ev[i].flags & MKM_EVF_TRIGGER_MASK, MKM_TRIGGER_MARK);
	ABI_EQ(t.ev[i].arg0, 0x34567890u);
	ABI_EQ(t.ev[i].arg1, 0x12u);
	ABI_EQ(t.ev[i].time_ns, t.ev[i - 1].time_ns);
	ABI_EQ(abi_count(&t, ABI_ANY, MKM_EV_TRIGGER), 1);

	struct mkm_cpu_stats *st;
	uint32_t nr = abi_stats(fd, &st);
	uint64_t triggers = 0;
	for (uint32_t cpu = 0; cpu < nr; cpu++)
		triggers += st[cpu].triggers;
	ABI_EQ(triggers, 1);
	free(st);
	abi_suspend(fd);
	abi_trace_free(&t);
	abi_worker_stop(&w);
	ABI_OK(close(fd));
}

/*
 * A mark into the caller's own monitor (MKM_MARK_OWN) through a fd of
 * another, never configured: how a program run under a recorder asks its
 * flight recorder for a snapshot. It lands, with its trigger, in the
 * monitor that tracks the thread, under the thread's unique_id, and not in
 * the fd's; untracked, ENOENT; its tracker suspended, EAGAIN.
 */
static void test_flight_own_mark_reaches_the_tracker(void **state)
{
	struct abi_trace t = { 0 }, o = { 0 };
	struct mkm_mark mk = { .value = 0xabcdef0123ull,
			       .flags = MKM_MARK_TRIGGER | MKM_MARK_OWN };
	pid_t me = abi_gettid();
	(void)state;

	int fd = open_flight(0, 0, 0), way_in = abi_open();
	ABI_ERR(ioctl(way_in, MKM_IOC_MARK, &mk), ENOENT);
	ABI_OK(abi_monitor(fd, me, 77));
	ABI_ERR(ioctl(way_in, MKM_IOC_MARK, &mk), EAGAIN);
	abi_resume(fd);
	abi_resume(way_in);
	ABI_OK(ioctl(way_in, MKM_IOC_MARK, &mk));
	assert_true(poll_in(fd, 5000));
	abi_drain_nonblock(fd, &t);
	abi_suspend(way_in);
	abi_drain_nonblock(way_in, &o);

	long i = abi_find(&t, 0, me, MKM_EV_TRIGGER);
	assert_true(i > 0);
	ABI_EQ(t.ev[i - 1].type, MKM_EV_MARK);
	ABI_EQ(t.ev[i - 1].unique_id, 77);
	ABI_EQ(t.ev[i - 1].arg0, 0xcdef0123u);
	ABI_EQ(t.ev[i - 1].arg1, 0xabu);
	ABI_EQ(t.ev[i].flags & MKM_EVF_TRIGGER_MASK, MKM_TRIGGER_MARK);
	ABI_EQ(t.ev[i].time_ns, t.ev[i - 1].time_ns);
	ABI_EQ(abi_count(&t, ABI_ANY, MKM_EV_MARK), 1);
	ABI_EQ(abi_count(&o, ABI_ANY, MKM_EV_MARK), 0);
	ABI_EQ(abi_count(&o, ABI_ANY, MKM_EV_TRIGGER), 0);

	/* Let go, the thread is nobody's again. */
	abi_suspend(fd);
	ABI_OK(abi_unmonitor(fd, me));
	ABI_ERR(ioctl(way_in, MKM_IOC_MARK, &mk), ENOENT);
	abi_trace_free(&t);
	abi_trace_free(&o);
	ABI_OK(close(way_in));
	ABI_OK(close(fd));
}

struct hog {
	volatile int spinning; /* set by the hog once it holds its CPU */
	volatile int woken; /* set by the waker once the victim is woken */
	unsigned int ms;
};

/*
 * A SCHED_FIFO thread that holds its CPU until the victim is woken, and
 * ms after: the victim's wait is then at least ms whatever the host does
 * to the guest's vCPUs meanwhile (a waker's sleep of 2 ms once took 18
 * under TCG beside other guests, and woke the victim as the hog ended).
 * It gives up after 5 s if never told.
 */
static void hog_fn(struct abi_worker *w)
{
	struct hog *h = w->arg;
	struct sched_param sp = { .sched_priority = 50 };

	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		w->error = __LINE__;
		return;
	}
	h->spinning = 1;
	uint64_t end = abi_now_ns() + 5000000000ull;
	while (!h->woken && abi_now_ns() < end)
		;
	end = abi_now_ns() + h->ms * 1000000ull;
	while (abi_now_ns() < end)
		;
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);
}

/* Until @h holds its CPU (5 s at most: then its error says why). */
static void hog_wait_spinning(const struct hog *h)
{
	for (int i = 0; i < 5000 && !h->spinning; i++)
		abi_sleep_ms(1);
}

static void wake_fn(struct abi_worker *w)
{
	(void)w;
}

/*
 * A monitored thread woken while a FIFO hog holds its CPU for 20 ms more
 * waits as long, with the triggers of the thresholds given armed.
 */
static void runq_stall(uint64_t runq_ns, uint64_t irq_ns, struct abi_trace *t,
		       pid_t *tid)
{
	struct abi_worker victim, hog;
	struct hog h = { .ms = 20 };
	int cpu = abi_cpu_online(0);

	/*
	 * The waker on the other CPU: behind the hog on this one, it would
	 * wake the victim only when the hog is done (PREEMPT_RT moved it
	 * away later than the stall lasted).
	 */
	ABI_OK(abi_pin_self(abi_cpu_online(1)));
	int fd = open_flight(runq_ns, irq_ns, 0);
	abi_worker_start(&victim, "abi-victim", cpu, wake_fn, NULL);
	abi_worker_start(&hog, "abi-hog", cpu, hog_fn, &h);
	ABI_OK(abi_monitor(fd, victim.tid, 7));
	abi_resume(fd);
	abi_worker_run(&hog);
	hog_wait_spinning(&h);
	abi_worker_run(&victim);
	h.woken = 1;
	abi_worker_wait(&victim);
	abi_worker_wait(&hog);
	ABI_OK(abi_pin_self(-1));
	ABI_EQ(hog.error, 0);
	abi_suspend(fd);
	abi_drain(fd, t);
	*tid = victim.tid;
	abi_worker_stop(&victim);
	abi_worker_stop(&hog);
	ABI_OK(close(fd));
}

/*
 * Over a 5 ms threshold, one TRIGGER right after the victim's switch-in,
 * with the wait and the threshold; over 1 s, none.
 */
static void test_flight_runq_trigger_fires_over_threshold(void **state)
{
	struct abi_trace t = { 0 };
	pid_t tid;
	(void)state;

	if (abi_nr_cpus_online() < 2)
		skip(); /* the hog would hold the test's own CPU too */
	runq_stall(5000000, 0, &t, &tid);
	long i = abi_find(&t, 0, tid, MKM_EV_TRIGGER);
	if (i <= 0)
		abi_dump(&t, 200);
	assert_true(i > 0);
	ABI_EQ(t.ev[i].flags & MKM_EVF_TRIGGER_MASK, MKM_TRIGGER_RUNQ);
	ABI_EQ(t.ev[i].unique_id, 7);
	ABI_EQ(t.ev[i].arg1, 5000000);
	assert_true(t.ev[i].arg0 > 5000000);
	ABI_EQ(t.ev[i - 1].type, MKM_EV_SWITCH_IN);
	ABI_EQ(t.ev[i - 1].arg0, t.ev[i].arg0);
	ABI_EQ(t.ev[i].time_ns, t.ev[i - 1].time_ns);
	ABI_EQ(abi_count(&t, ABI_ANY, MKM_EV_TRIGGER), 1);
	abi_trace_free(&t);

	runq_stall(1000000000, 0, &t, &tid);
	ABI_EQ(abi_count(&t, ABI_ANY, MKM_EV_TRIGGER), 0);
	assert_true(abi_count(&t, tid, MKM_EV_SWITCH_IN) > 0);
	abi_trace_free(&t);
}

/*
 * The ticks that interrupt the hog in the victim's 20 ms wait, over a 1 ns
 * interrupt threshold: a TRIGGER right after the victim's switch-in, the
 * interrupt's time within the wait no more than the wait; over 1 s, none,
 * and no run-queue trigger either way.
 */
static void test_flight_irq_trigger_for_a_waiting_thread(void **state)
{
	struct abi_trace t = { 0 };
	pid_t tid;
	(void)state;

	if (abi_nr_cpus_online() < 2)
		skip();
	runq_stall(0, 1, &t, &tid);
	/* The switch-in that ended the stall, and what follows it. */
	long i = -1;
	while ((i = abi_find(&t, (size_t)(i + 1), tid, MKM_EV_SWITCH_IN)) >= 0)
		if (!(t.ev[i].flags & MKM_EVF_WAIT_US) &&
		    t.ev[i].arg0 >= 20000000)
			break;
	if (i < 0 || (size_t)i + 1 >= t.n)
		abi_dump(&t, 200);
	assert_true(i >= 0 && (size_t)i + 1 < t.n);
	ABI_EQ(t.ev[i + 1].type, MKM_EV_TRIGGER);
	ABI_EQ(t.ev[i + 1].tid, tid);
	ABI_EQ(t.ev[i + 1].flags, MKM_TRIGGER_IRQ | MKM_EVF_WAITING);
	ABI_EQ(t.ev[i + 1].arg1, 1);
	ABI_EQ(t.ev[i + 1].time_ns, t.ev[i].time_ns);
	assert_true(t.ev[i + 1].arg0 >= 1);
	assert_true(t.ev[i + 1].arg0 <= t.ev[i].arg0);
	/* Nothing else fires a run-queue trigger, which is not armed. */
	for (size_t k = 0; k < t.n; k++)
		if (t.ev[k].type == MKM_EV_TRIGGER)
			ABI_EQ(t.ev[k].flags & MKM_EVF_TRIGGER_MASK,
			       MKM_TRIGGER_IRQ);
	abi_trace_free(&t);

	runq_stall(0, 1000000000, &t, &tid);
	ABI_EQ(abi_count(&t, ABI_ANY, MKM_EV_TRIGGER), 0);
	assert_true(abi_count(&t, tid, MKM_EV_SWITCH_IN) > 0);
	abi_trace_free(&t);
}

static void spin_fn(struct abi_worker *w)
{
	uint64_t end = abi_now_ns() + 200000000ull;

	(void)w;
	while (abi_now_ns() < end)
		;
}

/* A 1 ns interrupt threshold: every interrupt of a spinning thread. */
static void test_flight_irq_trigger_after_interrupt_exit(void **state)
{
	struct abi_worker w;
	struct abi_trace t = { 0 };
	(void)state;

	int fd = open_flight(0, 1, MKM_CLASS_DEFAULT);
	abi_worker_start(&w, "abi-spin", abi_cpu_online(0), spin_fn, NULL);
	ABI_OK(abi_monitor(fd, w.tid, 1));
	abi_resume(fd);
	abi_worker_run(&w);
	abi_worker_wait(&w);
	abi_suspend(fd);
	abi_drain(fd, &t);
	/*
	 * Each CPU's window apart: its ring came round, so its first kept
	 * record may be a trigger whose exit was overwritten.
	 */
	size_t found = 0;
	for (int cpu = 0; cpu < MAX_CPUS; cpu++) {
		struct mkm_event *ev;
		size_t k = abi_cpu_events(&t, (unsigned int)cpu, &ev);

		for (size_t i = 0; i < k; i++) {
			if (ev[i].type != MKM_EV_TRIGGER)
				continue;
			ABI_EQ(ev[i].tid, w.tid);
			ABI_EQ(ev[i].flags & MKM_EVF_TRIGGER_MASK,
			       MKM_TRIGGER_IRQ);
			ABI_EQ(ev[i].arg1, 1);
			assert_true(ev[i].arg0 >= 1);
			/* After a switch-in: a wait through an interrupt. */
			if (i == 0 || ev[i - 1].type == MKM_EV_LOST ||
			    ev[i].flags & MKM_EVF_WAITING)
				continue;
			assert_true(ev[i - 1].type == MKM_EV_IRQ_EXIT ||
				    ev[i - 1].type == MKM_EV_SOFTIRQ_EXIT);
			ABI_EQ(ev[i - 1].time_ns, ev[i].time_ns);
			found++;
		}
		free(ev);
	}
	/* The tick, at least, in 200 ms. */
	assert_true(found > 0);
	abi_trace_free(&t);
	abi_worker_stop(&w);
	ABI_OK(close(fd));
}

static void test_flight_bad_configurations(void **state)
{
	struct mkm_config c = { .ring_bytes = RING_BYTES,
				.flags = MKM_CONFIG_FLIGHT,
				.wakeup_bytes = 1024 };
	(void)state;

	int fd = abi_open();
	/* Always full: an occupancy to wake at means nothing. */
	ABI_ERR(ioctl(fd, MKM_IOC_CONFIGURE, &c), EINVAL);
	/* The interrupt trigger without the interrupts. */
	c = (struct mkm_config){ .ring_bytes = RING_BYTES,
				 .classes = MKM_CLASS_SCHED,
				 .trigger_irq_ns = 1000 };
	ABI_ERR(ioctl(fd, MKM_IOC_CONFIGURE, &c), EINVAL);
	/* A mark's unknown flag. */
	abi_resume(fd);
	struct mkm_mark mk = { .value = 1, .flags = 4 };
	ABI_ERR(ioctl(fd, MKM_IOC_MARK, &mk), EINVAL);
	abi_suspend(fd);
	ABI_OK(close(fd));

	/* Where the module refuses a user the interrupts, their trigger. */
	abi_allow_unprivileged_open();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct mkm_config u = { .ring_bytes = RING_BYTES,
					.flags = MKM_CONFIG_FLIGHT,
					.classes = MKM_CLASS_SCHED,
					.trigger_irq_ns = 1000 };

		CHILD_OK(abi_drop_privileges(1000, 1000));
		int ufd = abi_open();
		CHILD_ERR(ioctl(ufd, MKM_IOC_CONFIGURE, &u), EACCES);
		u.trigger_irq_ns = 0;
		u.trigger_runq_ns = 1000;
		CHILD_OK(ioctl(ufd, MKM_IOC_CONFIGURE, &u));
		_exit(0);
	}
	abi_expect_child_ok(pid);
}

int main(int argc, char **argv)
{
	abi_main(argc, argv);
	const struct CMUnitTest tests[] = {
		ABI_TEST(test_flight_keeps_the_newest),
		ABI_TEST(test_flight_read_while_writing_has_no_hole),
		ABI_TEST(test_flight_exit_names_the_thread),
		ABI_TEST(test_flight_poll_wakes_on_trigger_only),
		ABI_TEST(test_flight_own_mark_reaches_the_tracker),
		ABI_TEST(test_flight_runq_trigger_fires_over_threshold),
		ABI_TEST(test_flight_irq_trigger_after_interrupt_exit),
		ABI_TEST(test_flight_irq_trigger_for_a_waiting_thread),
		ABI_TEST(test_flight_bad_configurations),
	};
	return cmocka_run_group_tests_name("flight", tests, NULL, NULL);
}
