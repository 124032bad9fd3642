// SPDX-License-Identifier: GPL-2.0
/*
 * test_lifecycle.c - create (open), version, configure, resume, suspend,
 * read, poll, mark and terminate (close), and every call in the wrong state.
 */
#include "abi.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>

static void test_open_creates_suspended_monitor(void **state)
{
	struct mkm_event ev;
	(void)state;

	int fd = abi_open();
	/* Suspended and empty: read returns 0, a mark is refused. */
	ABI_EQ(read(fd, &ev, sizeof(ev)), 0);
	ABI_ERR(abi_mark(fd, 1), EAGAIN);
	ABI_OK(close(fd));
}

static void test_version_values(void **state)
{
	struct mkm_version v;
	(void)state;

	int fd = abi_open();
	memset(&v, 0xa5, sizeof(v));
	ABI_OK(ioctl(fd, MKM_IOC_VERSION, &v));
	ABI_EQ(v.major, MKM_ABI_MAJOR);
	ABI_EQ(v.minor, MKM_ABI_MINOR);
	ABI_EQ(v.event_size, sizeof(struct mkm_event));
	ABI_EQ(v.event_size, 32);
	ABI_EQ(v.reserved, 0);
	ABI_OK(close(fd));
}

static void test_configure_returns_allocated_size(void **state)
{
	struct mkm_config c;
	struct mkm_cpu_stats *cpus;
	(void)state;

	int fd = abi_open();
	uint32_t nr = abi_stats(fd, &cpus);
	free(cpus);
	abi_configure(fd, 8192, 0, 0, &c);
	ABI_EQ(c.ring_bytes, 8192);
	ABI_EQ(c.total_bytes, 8192ull * nr);
	/* Reconfiguring a suspended, empty monitor is fine. */
	abi_configure(fd, 65536, MKM_CLASS_ALL, MKM_CONFIG_INHERIT, &c);
	ABI_EQ(c.ring_bytes, 65536);
	ABI_EQ(c.total_bytes, 65536ull * nr);
	abi_configure(fd, MKM_RING_MIN_BYTES, 0, 0, &c);
	ABI_EQ(c.ring_bytes, MKM_RING_MIN_BYTES);
	ABI_OK(close(fd));
}

static void test_configure_reuses_returned_config(void **state)
{
	struct mkm_config c;
	(void)state;

	int fd = abi_open();
	memset(&c, 0, sizeof(c));
	c.ring_bytes = 8192;
	ABI_OK(ioctl(fd, MKM_IOC_CONFIGURE, &c));
	ABI_EQ(c.ring_bytes, 8192);
	assert_true(c.total_bytes >= 8192);
	/* total_bytes is an output: what a call returned is valid input. */
	c.ring_bytes = 16384;
	ABI_OK(ioctl(fd, MKM_IOC_CONFIGURE, &c));
	ABI_EQ(c.ring_bytes, 16384);
	ABI_OK(close(fd));
}

static void test_configure_while_resumed_ebusy(void **state)
{
	struct mkm_config c = { .ring_bytes = 8192 };
	(void)state;

	int fd = abi_open();
	abi_resume(fd);
	ABI_ERR(ioctl(fd, MKM_IOC_CONFIGURE, &c), EBUSY);
	abi_suspend(fd);
	c.ring_bytes = 8192;
	ABI_OK(ioctl(fd, MKM_IOC_CONFIGURE, &c));
	ABI_EQ(c.ring_bytes, 8192);
	ABI_OK(close(fd));
}

static void test_configure_with_unread_events_ebusy(void **state)
{
	struct mkm_config c;
	struct abi_trace t = { 0 };
	(void)state;

	int fd = abi_open();
	abi_configure(fd, 8192, 0, 0, NULL);
	abi_resume(fd);
	ABI_OK(abi_mark(fd, 7));
	abi_suspend(fd);
	memset(&c, 0, sizeof(c));
	c.ring_bytes = 16384;
	ABI_ERR(ioctl(fd, MKM_IOC_CONFIGURE, &c), EBUSY);
	/* Nothing was dropped by the refused configure. */
	abi_drain(fd, &t);
	ABI_EQ(t.n, 1);
	ABI_EQ(t.ev[0].type, MKM_EV_MARK);
	ABI_EQ(t.ev[0].arg0, 7);
	memset(&c, 0, sizeof(c));
	c.ring_bytes = 16384;
	ABI_OK(ioctl(fd, MKM_IOC_CONFIGURE, &c));
	ABI_EQ(c.ring_bytes, 16384);
	abi_trace_free(&t);
	ABI_OK(close(fd));
}

static void test_resume_twice_returns_0(void **state)
{
	(void)state;

	int fd = abi_open();
	ABI_OK(ioctl(fd, MKM_IOC_RESUME));
	ABI_OK(ioctl(fd, MKM_IOC_RESUME));
	ABI_OK(abi_mark(fd, 1));
	ABI_OK(ioctl(fd, MKM_IOC_SUSPEND));
	ABI_OK(ioctl(fd, MKM_IOC_RESUME));
	ABI_OK(ioctl(fd, MKM_IOC_RESUME));
	ABI_OK(ioctl(fd, MKM_IOC_SUSPEND));
	ABI_OK(close(fd));
}

static void test_suspend_twice_returns_0(void **state)
{
	(void)state;

	int fd = abi_open();
	/* Suspending a never-resumed monitor does nothing. */
	ABI_OK(ioctl(fd, MKM_IOC_SUSPEND));
	ABI_OK(ioctl(fd, MKM_IOC_SUSPEND));
	abi_resume(fd);
	ABI_OK(ioctl(fd, MKM_IOC_SUSPEND));
	ABI_OK(ioctl(fd, MKM_IOC_SUSPEND));
	ABI_ERR(abi_mark(fd, 1), EAGAIN);
	ABI_OK(close(fd));
}

static void test_read_suspended_empty_returns_0(void **state)
{
	char buf[4096];
	(void)state;

	int fd = abi_open();
	ABI_EQ(read(fd, buf, sizeof(buf)), 0);
	abi_resume(fd);
	abi_suspend(fd);
	ABI_EQ(read(fd, buf, sizeof(buf)), 0);
	/* Also with O_NONBLOCK: suspended and empty is end of data. */
	ABI_OK(fcntl(fd, F_SETFL, O_NONBLOCK));
	ABI_EQ(read(fd, buf, sizeof(buf)), 0);
	ABI_OK(close(fd));
}

static void test_read_nonblock_empty_resumed_eagain(void **state)
{
	char buf[4096];
	(void)state;

	int fd = abi_open_flags(O_RDWR | O_NONBLOCK);
	abi_resume(fd);
	ABI_ERR(read(fd, buf, sizeof(buf)), EAGAIN);
	ABI_ERR(read(fd, buf, sizeof(buf)), EAGAIN);
	/* Drained back to empty after a record: EAGAIN again. */
	ABI_OK(abi_mark(fd, 3));
	ABI_EQ(read(fd, buf, sizeof(buf)), 32);
	ABI_ERR(read(fd, buf, sizeof(buf)), EAGAIN);
	ABI_OK(close(fd));
}

static void test_read_count_below_record_einval(void **state)
{
	char buf[64];
	(void)state;

	int fd = abi_open();
	/* With a record ready, so EINVAL is about the count alone. */
	abi_resume(fd);
	ABI_OK(abi_mark(fd, 9));
	abi_suspend(fd);
	ABI_ERR(read(fd, buf, 0), EINVAL);
	ABI_ERR(read(fd, buf, 1), EINVAL);
	ABI_ERR(read(fd, buf, 31), EINVAL);
	ABI_EQ(read(fd, buf, 32), 32);
	ABI_EQ(((struct mkm_event *)buf)->type, MKM_EV_MARK);
	/* And on an empty monitor too. */
	ABI_ERR(read(fd, buf, 31), EINVAL);
	ABI_OK(close(fd));
}

static void test_read_partial_count_whole_records(void **state)
{
	struct mkm_event ev[4];
	(void)state;

	int fd = abi_open();
	ABI_OK(abi_pin_self(abi_cpu_online(0)));
	abi_resume(fd);
	for (int i = 0; i < 3; i++)
		ABI_OK(abi_mark(fd, 100 + i));
	abi_suspend(fd);
	memset(ev, 0xee, sizeof(ev));
	ABI_EQ(read(fd, ev, 2 * 32 + 31), 64);
	ABI_EQ(ev[0].arg0, 100);
	ABI_EQ(ev[1].arg0, 101);
	/* The partial third slot is untouched. */
	ABI_EQ(ev[2].type, 0xee);
	ABI_EQ(read(fd, ev, 33), 32);
	ABI_EQ(ev[0].arg0, 102);
	ABI_EQ(read(fd, ev, sizeof(ev)), 0);
	ABI_OK(close(fd));
}

static void mark_later_fn(struct abi_worker *w)
{
	int fd = *(int *)w->arg;

	abi_sleep_ms(100);
	if (abi_mark(fd, 0x77))
		w->error = __LINE__;
}

static void test_read_blocks_until_record(void **state)
{
	struct mkm_config c;
	struct abi_worker w;
	struct mkm_event ev[8];
	(void)state;

	int fd = abi_open();
	memset(&c, 0, sizeof(c));
	c.ring_bytes = MKM_RING_MIN_BYTES;
	c.wakeup_bytes = sizeof(struct mkm_event);
	ABI_OK(ioctl(fd, MKM_IOC_CONFIGURE, &c));
	abi_resume(fd);
	abi_worker_start(&w, "abi-marker", -1, mark_later_fn, &fd);
	uint64_t t0 = abi_now_ns();
	abi_worker_run(&w);
	/* Blocks (the monitor is resumed and empty) until the mark. */
	ssize_t r = read(fd, ev, sizeof(ev));
	uint64_t t1 = abi_now_ns();
	ABI_EQ(r, 32);
	ABI_EQ(ev[0].type, MKM_EV_MARK);
	ABI_EQ(ev[0].arg0, 0x77);
	ABI_EQ(ev[0].tid, w.tid);
	assert_true(t1 - t0 >= 90 * 1000000ull);
	abi_worker_wait(&w);
	abi_worker_stop(&w);
	ABI_OK(close(fd));
}

static void suspend_later_fn(struct abi_worker *w)
{
	int fd = *(int *)w->arg;

	abi_sleep_ms(100);
	if (ioctl(fd, MKM_IOC_SUSPEND))
		w->error = __LINE__;
}

static void test_read_blocked_returns_0_on_suspend(void **state)
{
	struct abi_worker w;
	char buf[64];
	(void)state;

	int fd = abi_open();
	abi_resume(fd);
	abi_worker_start(&w, "abi-suspender", -1, suspend_later_fn, &fd);
	abi_worker_run(&w);
	/* Blocked on an empty resumed monitor; suspended: end of data. */
	ABI_EQ(read(fd, buf, sizeof(buf)), 0);
	abi_worker_wait(&w);
	abi_worker_stop(&w);
	ABI_OK(close(fd));
}

static void test_poll_blocks_until_wakeup_bytes(void **state)
{
	struct mkm_config c;
	struct abi_worker w;
	(void)state;

	int fd = abi_open();
	memset(&c, 0, sizeof(c));
	c.ring_bytes = MKM_RING_MIN_BYTES;
	c.wakeup_bytes = sizeof(struct mkm_event);
	ABI_OK(ioctl(fd, MKM_IOC_CONFIGURE, &c));
	abi_resume(fd);
	abi_worker_start(&w, "abi-marker", -1, mark_later_fn, &fd);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint64_t t0 = abi_now_ns();
	abi_worker_run(&w);
	/* Asleep in poll until the mark's deferred wakeup. */
	ABI_EQ(poll(&p, 1, 10000), 1);
	assert_true(p.revents & POLLIN);
	assert_true(abi_now_ns() - t0 >= 90 * 1000000ull);
	abi_worker_wait(&w);
	abi_worker_stop(&w);
	ABI_OK(close(fd));
}

static void test_mark_records_value_tid_cpu_time(void **state)
{
	struct abi_trace t = { 0 };
	(void)state;

	int cpu = abi_cpu_online(abi_nr_cpus_online() - 1);
	ABI_OK(abi_pin_self(cpu));
	int fd = abi_open();
	abi_resume(fd);
	uint64_t t0 = abi_now_ns();
	ABI_OK(abi_mark(fd, 0x1122334455667788ull));
	uint64_t t1 = abi_now_ns();
	abi_suspend(fd);
	ABI_ERR(abi_mark(fd, 1), EAGAIN);
	abi_drain(fd, &t);
	ABI_EQ(t.n, 1);
	ABI_EQ(t.ev[0].type, MKM_EV_MARK);
	ABI_EQ(t.ev[0].arg0, 0x55667788);
	ABI_EQ(t.ev[0].arg1, 0x11223344);
	ABI_EQ(t.ev[0].tid, abi_gettid());
	ABI_EQ(t.ev[0].cpu, cpu);
	assert_true(t.ev[0].time_ns >= t0 && t.ev[0].time_ns <= t1);
	abi_trace_free(&t);
	ABI_OK(close(fd));
}

static void test_poll_pollin_at_wakeup_bytes(void **state)
{
	struct mkm_config c;
	(void)state;

	ABI_OK(abi_pin_self(abi_cpu_online(0)));
	int fd = abi_open();
	memset(&c, 0, sizeof(c));
	c.ring_bytes = MKM_RING_MIN_BYTES;
	c.wakeup_bytes = 2 * sizeof(struct mkm_event);
	ABI_OK(ioctl(fd, MKM_IOC_CONFIGURE, &c));
	abi_resume(fd);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ABI_EQ(poll(&p, 1, 0), 0);
	ABI_OK(abi_mark(fd, 1));
	/* One record is below the watermark of two. */
	ABI_EQ(poll(&p, 1, 50), 0);
	ABI_OK(abi_mark(fd, 2));
	ABI_EQ(poll(&p, 1, 5000), 1);
	assert_true(p.revents & POLLIN);
	ABI_OK(close(fd));
}

static void test_poll_suspended_with_records_pollin(void **state)
{
	(void)state;

	int fd = abi_open(); /* default watermark: half a 1 MiB ring */
	abi_resume(fd);
	ABI_OK(abi_mark(fd, 1));
	abi_suspend(fd);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ABI_EQ(poll(&p, 1, 1000), 1);
	assert_true(p.revents & POLLIN);
	ABI_OK(close(fd));
}

/* Suspended and drained: POLLHUP, as read() returns 0; not while resumed. */
static void test_poll_hup_when_suspended_and_drained(void **state)
{
	struct abi_trace t = { 0 };
	(void)state;

	int fd = abi_open();
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ABI_EQ(poll(&p, 1, 0), 1); /* never resumed: nothing will come */
	assert_true(p.revents & POLLHUP);
	abi_resume(fd);
	ABI_EQ(poll(&p, 1, 0), 0);
	ABI_OK(abi_mark(fd, 1));
	abi_suspend(fd);
	ABI_EQ(poll(&p, 1, 0), 1);
	ABI_EQ(p.revents, POLLIN); /* a record left: not hung up yet */
	abi_drain(fd, &t);
	ABI_EQ(t.n, 1);
	ABI_EQ(poll(&p, 1, 0), 1);
	ABI_EQ(p.revents, POLLHUP);
	abi_resume(fd);
	ABI_EQ(poll(&p, 1, 0), 0);
	abi_trace_free(&t);
	ABI_OK(close(fd));
}

static void test_thread_monitor_self_attach_name_detach(void **state)
{
	struct abi_trace t = { 0 };
	char old[17] = { 0 }, name[17];
	(void)state;

	int cpu = abi_cpu_online(0);
	ABI_OK(abi_pin_self(cpu));
	prctl(PR_GET_NAME, old);
	prctl(PR_SET_NAME, "abi-attach-name");
	pid_t me = abi_gettid();
	int fd = abi_open();
	abi_resume(fd);
	ABI_OK(abi_monitor(fd, me, 4242));
	ABI_ERR(abi_monitor(fd, me, 4243), EEXIST);
	ABI_OK(abi_unmonitor(fd, me));
	ABI_ERR(abi_unmonitor(fd, me), ENOENT);
	abi_suspend(fd);
	prctl(PR_SET_NAME, old);
	abi_drain(fd, &t);

	long a = abi_find(&t, 0, me, MKM_EV_ATTACH);
	assert_true(a >= 0);
	ABI_EQ(t.ev[a].unique_id, 4242);
	ABI_EQ(t.ev[a].arg0, MKM_TS_RUNNING);
	ABI_EQ(t.ev[a].arg1, cpu); /* on a CPU: the caller itself */
	long n0 = abi_find(&t, (size_t)a, me, MKM_EV_NAME);
	assert_true(n0 >= 0);
	long n1 = abi_find(&t, (size_t)n0 + 1, me, MKM_EV_NAME);
	assert_true(n1 >= 0);
	ABI_EQ(t.ev[n0].flags, 0);
	ABI_EQ(t.ev[n1].flags, 1);
	abi_name_of(&t.ev[n0], &t.ev[n1], name);
	assert_string_equal(name, "abi-attach-name");
	long d = abi_find(&t, (size_t)n1, me, MKM_EV_DETACH);
	assert_true(d >= 0);
	ABI_EQ(t.ev[d].arg0, MKM_DETACH_UNMONITOR);
	ABI_EQ(t.ev[d].unique_id, 4242);
	ABI_EQ(abi_count(&t, me, MKM_EV_ATTACH), 1);
	ABI_EQ(abi_count(&t, me, MKM_EV_DETACH), 1);
	abi_check_stream(&t, 1024, NULL, NULL);
	abi_trace_free(&t);
	ABI_OK(close(fd));
}

static void nop_fn(struct abi_worker *w)
{
	(void)w;
}

static void test_close_terminates_monitor(void **state)
{
	struct abi_worker w;
	(void)state;

	abi_worker_start(&w, "abi-close", -1, nop_fn, NULL);
	int fd1 = abi_open();
	abi_resume(fd1);
	ABI_OK(abi_monitor(fd1, w.tid, 1));
	int fd2 = abi_open();
	ABI_ERR(abi_monitor(fd2, w.tid, 2), EBUSY);
	/* Closing while resumed terminates: the thread is free again. */
	ABI_OK(close(fd1));
	ABI_OK(abi_monitor(fd2, w.tid, 2));
	ABI_OK(close(fd2));
	int fd3 = abi_open();
	ABI_OK(abi_monitor(fd3, w.tid, 3));
	ABI_OK(close(fd3));
	abi_worker_stop(&w);
}

static void test_stats_fresh_monitor_zero(void **state)
{
	struct mkm_cpu_stats *cpus;
	(void)state;

	int fd = abi_open();
	uint32_t nr = abi_stats(fd, &cpus);
	assert_true(nr >= (uint32_t)abi_nr_cpus_online());
	for (uint32_t i = 0; i < nr; i++) {
		ABI_EQ(cpus[i].produced, 0);
		ABI_EQ(cpus[i].lost, 0);
		ABI_EQ(cpus[i].read, 0);
		ABI_EQ(cpus[i].buffered, 0);
	}
	free(cpus);
	ABI_OK(close(fd));
}

int main(int argc, char **argv)
{
	abi_main(argc, argv);
	const struct CMUnitTest tests[] = {
		ABI_TEST(test_open_creates_suspended_monitor),
		ABI_TEST(test_version_values),
		ABI_TEST(test_configure_returns_allocated_size),
		ABI_TEST(test_configure_reuses_returned_config),
		ABI_TEST(test_configure_while_resumed_ebusy),
		ABI_TEST(test_configure_with_unread_events_ebusy),
		ABI_TEST(test_resume_twice_returns_0),
		ABI_TEST(test_suspend_twice_returns_0),
		ABI_TEST(test_read_suspended_empty_returns_0),
		ABI_TEST(test_read_nonblock_empty_resumed_eagain),
		ABI_TEST(test_read_count_below_record_einval),
		ABI_TEST(test_read_partial_count_whole_records),
		ABI_TEST(test_read_blocks_until_record),
		ABI_TEST(test_read_blocked_returns_0_on_suspend),
		ABI_TEST(test_poll_blocks_until_wakeup_bytes),
		ABI_TEST(test_mark_records_value_tid_cpu_time),
		ABI_TEST(test_poll_pollin_at_wakeup_bytes),
		ABI_TEST(test_poll_suspended_with_records_pollin),
		ABI_TEST(test_poll_hup_when_suspended_and_drained),
		ABI_TEST(test_thread_monitor_self_attach_name_detach),
		ABI_TEST(test_close_terminates_monitor),
		ABI_TEST(test_stats_fresh_monitor_zero),
	};
	return cmocka_run_group_tests_name("lifecycle", tests, NULL, NULL);
}
