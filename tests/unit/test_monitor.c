// SPDX-License-Identifier: GPL-2.0
/*
 * test_monitor.c - unit tests of libmonitor/src/monitor.c and strerror.c
 * without the module: open, ioctl, read and close are replaced at link
 * time (-Wl,--wrap) by a fake /dev/mkm that records what it was asked.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "evstream.h"

#define FAKE_FD 1000

static struct {
	const char *path;
	int open_flags;
	int open_err;
	struct mkm_version version;
	int ioctl_err[16]; /* by _IOC_NR */
	unsigned long last_req;
	struct mkm_config cfg;
	struct mkm_thread thread;
	uint64_t mark;
	ssize_t read_ret;
	int read_err;
	int closes;
	int close_err;
	unsigned int calls[16]; /* ioctls by _IOC_NR */
	unsigned int mmaps; /* refused: the fake device cannot be mapped */
	uint32_t deferrals; /* what STATS gives (ABI 2.5) */
	uint32_t deferrals_in; /* what STATS was given */
} fake;

int __wrap_open(const char *path, int flags, ...);
int __wrap_ioctl(int fd, unsigned long req, ...);
ssize_t __wrap_read(int fd, void *buf, size_t n);
int __wrap_close(int fd);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off);
int __real_close(int fd);
ssize_t __real_read(int fd, void *buf, size_t n);

int __wrap_open(const char *path, int flags, ...)
{
	fake.path = path;
	fake.open_flags = flags;
	if (fake.open_err) {
		errno = fake.open_err;
		return -1;
	}
	return FAKE_FD;
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	unsigned int nr = _IOC_NR(req);
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	assert_int_equal(fd, FAKE_FD);
	fake.last_req = req;
	if (nr < 16)
		fake.calls[nr]++;
	if (nr < 16 && fake.ioctl_err[nr]) {
		errno = fake.ioctl_err[nr];
		return -1;
	}
	switch (req) {
	case MKM_IOC_VERSION:
		memcpy(arg, &fake.version, sizeof(fake.version));
		break;
	case MKM_IOC_CONFIGURE: {
		struct mkm_config *c = arg;
		uint64_t r = MKM_RING_MIN_BYTES;

		fake.cfg = *c;
		while (r < c->ring_bytes)
			r *= 2;
		c->ring_bytes = r;
		c->total_bytes = r * 4;
		break;
	}
	case MKM_IOC_THREAD_MONITOR:
	case MKM_IOC_THREAD_UNMONITOR:
		memcpy(&fake.thread, arg, sizeof(fake.thread));
		break;
	case MKM_IOC_MARK:
		fake.mark = ((struct mkm_mark *)arg)->value;
		break;
	case MKM_IOC_STATS: {
		struct mkm_stats *s = arg;
		struct mkm_cpu_stats *cpus =
			(struct mkm_cpu_stats *)(uintptr_t)s->cpus;
		uint32_t i;

		for (i = 0; i < s->nr_cpus && i < 4; i++) {
			cpus[i].produced = 10 + i;
			cpus[i].lost = i;
			cpus[i].read = 10;
		}
		s->nr_cpus = 4;
		fake.deferrals_in = s->deferrals;
		s->deferrals = fake.deferrals;
		break;
	}
	}
	return 0;
}

ssize_t __wrap_read(int fd, void *buf, size_t n)
{
	if (fd != FAKE_FD)
		return __real_read(fd, buf, n);
	if (fake.read_err) {
		errno = fake.read_err;
		return -1;
	}
	assert_true((size_t)fake.read_ret <= n);
	memset(buf, 0x5a, (size_t)fake.read_ret);
	return fake.read_ret;
}

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off)
{
	(void)addr;
	(void)len;
	(void)prot;
	(void)flags;
	(void)off;
	assert_int_equal(fd, FAKE_FD);
	fake.mmaps++;
	errno = ENODEV;
	return MAP_FAILED;
}

int __wrap_close(int fd)
{
	if (fd != FAKE_FD)
		return __real_close(fd);
	fake.closes++;
	if (fake.close_err) {
		errno = fake.close_err;
		return -1;
	}
	return 0;
}

static int reset(void **state)
{
	(void)state;
	memset(&fake, 0, sizeof(fake));
	fake.version.major = MKM_ABI_MAJOR;
	fake.version.minor = MKM_ABI_MINOR + 3; /* newer minors are fine */
	fake.version.event_size = sizeof(struct mkm_event);
	return 0;
}

static struct monitor *created(void)
{
	struct monitor *mon;

	assert_int_equal(monitor_create(&mon, NULL), 0);
	return mon;
}

static void test_monitor_create_configures(void **state)
{
	struct mkm_version v;
	struct monitor *mon;
	size_t size = 5000;

	(void)state;
	assert_int_equal(monitor_create(&mon, &size), 0);
	assert_string_equal(fake.path, "/dev/mkm");
	assert_true(fake.open_flags & O_NONBLOCK);
	assert_true(fake.open_flags & O_CLOEXEC);
	assert_int_equal(fake.cfg.ring_bytes, 5000);
	assert_int_equal(fake.cfg.classes, 0);
	assert_int_equal(size, 8192);
	assert_int_equal(monitor_fd(mon), FAKE_FD);
	assert_int_equal(monitor_version(mon, &v), 0);
	assert_int_equal(v.minor, MKM_ABI_MINOR + 3);
	assert_int_equal(monitor_terminate(mon), 0);
	assert_int_equal(fake.closes, 1);
}

static void test_monitor_create_default_size(void **state)
{
	struct monitor *mon;
	size_t size = 0;

	(void)state;
	assert_int_equal(monitor_create(&mon, &size), 0);
	assert_int_equal(fake.cfg.ring_bytes, MKM_RING_DEFAULT_BYTES);
	assert_int_equal(size, MKM_RING_DEFAULT_BYTES);
	monitor_terminate(mon);
}

static void test_monitor_create_no_device(void **state)
{
	struct monitor *mon = (struct monitor *)1;

	(void)state;
	fake.open_err = ENOENT;
	assert_int_equal(monitor_create(&mon, NULL), -ENOENT);
	assert_null(mon);
	assert_int_equal(fake.closes, 0);
	assert_non_null(strstr(monitor_strerror(-ENOENT), "modprobe mkm"));
}

static void test_monitor_create_refuses_unknown_major(void **state)
{
	struct monitor *mon;

	(void)state;
	fake.version.major = MKM_ABI_MAJOR + 1;
	assert_int_equal(monitor_create(&mon, NULL), -EPROTO);
	assert_null(mon);
	assert_int_equal(fake.closes, 1);
	reset(NULL);
	fake.version.event_size = 48;
	assert_int_equal(monitor_create(&mon, NULL), -EPROTO);
	assert_int_equal(fake.closes, 1);
}

static void test_monitor_create_configure_fails(void **state)
{
	struct monitor *mon;
	size_t size = 1;

	(void)state;
	fake.ioctl_err[_IOC_NR(MKM_IOC_CONFIGURE)] = ENOMEM;
	assert_int_equal(monitor_create(&mon, &size), -ENOMEM);
	assert_int_equal(size, 1);
	assert_int_equal(fake.closes, 1);
	assert_int_equal(monitor_create(NULL, &size), -EINVAL);
}

static void test_monitor_create_at_without_config(void **state)
{
	struct monitor *mon;

	(void)state;
	assert_int_equal(monitor_create_at(&mon, "/tmp/fake-mkm", NULL), 0);
	assert_string_equal(fake.path, "/tmp/fake-mkm");
	assert_int_equal(fake.last_req, MKM_IOC_VERSION);
	monitor_terminate(mon);
}

/*
 * One record per switch is the caller's to ask for: passed on to a module
 * of ABI 2.4, dropped (and said so) on 2.3, never added unasked.
 */
static void test_monitor_configure_one_switch_asked(void **state)
{
	struct monitor_config cfg = { .flags = MKM_CONFIG_INHERIT |
					       MKM_CONFIG_ONE_SWITCH };
	struct monitor *mon;

	(void)state;
	fake.version.minor = 3;
	mon = created();
	assert_int_equal(monitor_configure(mon, &cfg), 0);
	assert_int_equal(fake.cfg.flags, MKM_CONFIG_INHERIT);
	assert_int_equal(cfg.flags, MKM_CONFIG_INHERIT);
	monitor_terminate(mon);
	fake.version.minor = 4;
	mon = created();
	cfg.flags = MKM_CONFIG_ONE_SWITCH;
	assert_int_equal(monitor_configure(mon, &cfg), 0);
	assert_int_equal(fake.cfg.flags, MKM_CONFIG_ONE_SWITCH);
	assert_int_equal(cfg.flags, MKM_CONFIG_ONE_SWITCH);
	cfg.flags = 0;
	assert_int_equal(monitor_configure(mon, &cfg), 0);
	assert_int_equal(fake.cfg.flags, 0);
	monitor_terminate(mon);
}

static void test_monitor_configure_in_out(void **state)
{
	struct monitor_config cfg = { .ring_bytes = 70000,
				      .classes = MKM_CLASS_ALL,
				      .flags = MKM_CONFIG_INHERIT,
				      .wakeup_bytes = 4096 };
	struct monitor *mon = created();

	(void)state;
	assert_int_equal(monitor_configure(mon, &cfg), 0);
	assert_int_equal(fake.cfg.classes, MKM_CLASS_ALL);
	assert_int_equal(fake.cfg.flags, MKM_CONFIG_INHERIT);
	assert_int_equal(cfg.flags, MKM_CONFIG_INHERIT);
	assert_int_equal(fake.cfg.wakeup_bytes, 4096);
	assert_int_equal(fake.cfg.trigger_runq_ns | fake.cfg.trigger_irq_ns, 0);
	assert_int_equal(cfg.ring_bytes, 131072);
	assert_int_equal(cfg.total_bytes, 4 * 131072);
	fake.ioctl_err[_IOC_NR(MKM_IOC_CONFIGURE)] = EBUSY;
	assert_int_equal(monitor_configure(mon, &cfg), -EBUSY);
	assert_int_equal(monitor_configure(mon, NULL), -EINVAL);
	monitor_terminate(mon);
}

static void test_monitor_resume_suspend(void **state)
{
	struct monitor *mon = created();

	(void)state;
	assert_int_equal(monitor_resume(mon), 0);
	assert_int_equal(fake.calls[_IOC_NR(MKM_IOC_RESUME)], 1);
	/* It tried to map the rings, and will read(2) them instead. */
	assert_int_equal(fake.mmaps, 1);
	assert_int_equal(monitor_resume(mon), 0);
	assert_int_equal(fake.mmaps, 1);
	assert_int_equal(monitor_suspend(mon), 0);
	assert_int_equal(fake.last_req, MKM_IOC_SUSPEND);
	fake.ioctl_err[_IOC_NR(MKM_IOC_RESUME)] = ENOMEM;
	assert_int_equal(monitor_resume(mon), -ENOMEM);
	assert_int_equal(monitor_resume(NULL), -EINVAL);
	assert_int_equal(monitor_suspend(NULL), -EINVAL);
	monitor_terminate(mon);
}

static void test_monitor_read_records(void **state)
{
	struct monitor *mon = created();
	struct mkm_event buf[4];
	size_t n = 99;

	(void)state;
	fake.read_ret = 2 * sizeof(struct mkm_event);
	assert_int_equal(monitor_resume(mon), 0); /* the mapping refused */
	assert_int_equal(monitor_read(mon, buf, 4, &n), 0);
	assert_int_equal(n, 2);
	monitor_terminate(mon);
}

static void test_monitor_read_empty_is_not_an_error(void **state)
{
	struct monitor *mon = created();
	struct mkm_event buf[4];
	size_t n = 99;

	(void)state;
	fake.read_err = EAGAIN;
	assert_int_equal(monitor_read(mon, buf, 4, &n), 0);
	assert_int_equal(n, 0);
	fake.read_err = 0;
	fake.read_ret = 0; /* suspended and drained */
	n = 99;
	assert_int_equal(monitor_read(mon, buf, 4, &n), 0);
	assert_int_equal(n, 0);
	monitor_terminate(mon);
}

static void test_monitor_read_errors(void **state)
{
	struct monitor *mon = created();
	struct mkm_event buf[4];
	size_t n;

	(void)state;
	fake.read_ret = sizeof(struct mkm_event) + 3;
	assert_int_equal(monitor_read(mon, buf, 4, &n), -EIO);
	fake.read_err = EFAULT;
	assert_int_equal(monitor_read(mon, buf, 4, &n), -EFAULT);
	assert_int_equal(monitor_read(mon, buf, 0, &n), -EINVAL);
	assert_int_equal(monitor_read(mon, NULL, 4, &n), -EINVAL);
	assert_int_equal(monitor_read(mon, buf, 4, NULL), -EINVAL);
	monitor_terminate(mon);
}

static void test_thread_monitor_passes_ids(void **state)
{
	struct monitor *mon = created();

	(void)state;
	assert_int_equal(thread_monitor(mon, 77, 1234), 0);
	assert_int_equal(fake.last_req, MKM_IOC_THREAD_MONITOR);
	assert_int_equal(fake.thread.tid, 1234);
	assert_int_equal(fake.thread.unique_id, 77);
	assert_int_equal(thread_unmonitor(mon, 1234), 0);
	assert_int_equal(fake.last_req, MKM_IOC_THREAD_UNMONITOR);
	assert_int_equal(fake.thread.unique_id, 0);
	monitor_terminate(mon);
}

static void test_thread_monitor_errors(void **state)
{
	static const int errs[] = { ESRCH, EPERM, EBUSY, EEXIST, EINVAL };
	struct monitor *mon = created();
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		fake.ioctl_err[_IOC_NR(MKM_IOC_THREAD_MONITOR)] = errs[i];
		assert_int_equal(thread_monitor(mon, 1, 1234), -errs[i]);
	}
	fake.ioctl_err[_IOC_NR(MKM_IOC_THREAD_UNMONITOR)] = ENOENT;
	assert_int_equal(thread_unmonitor(mon, 1234), -ENOENT);
	assert_int_equal(thread_monitor(mon, 1, 0), -EINVAL);
	assert_int_equal(thread_monitor(mon, 1, -5), -EINVAL);
	assert_int_equal(thread_unmonitor(mon, 0), -EINVAL);
	assert_int_equal(thread_monitor(NULL, 1, 1), -EINVAL);
	monitor_terminate(mon);
}

static void test_monitor_mark_value(void **state)
{
	struct monitor *mon = created();

	(void)state;
	assert_int_equal(monitor_mark(mon, 0x1122334455667788ull), 0);
	assert_int_equal(fake.mark, 0x1122334455667788ull);
	fake.ioctl_err[_IOC_NR(MKM_IOC_MARK)] = EAGAIN;
	assert_int_equal(monitor_mark(mon, 1), -EAGAIN);
	monitor_terminate(mon);
}

static void test_monitor_statistics_counts(void **state)
{
	struct monitor *mon = created();
	struct mkm_cpu_stats st[2];
	unsigned int n = 2;

	(void)state;
	assert_int_equal(monitor_statistics(mon, st, &n), 0);
	assert_int_equal(n, 4);
	assert_int_equal(st[1].produced, 11);
	assert_int_equal(st[1].lost, 1);
	n = 0;
	assert_int_equal(monitor_statistics(mon, NULL, &n), 0);
	assert_int_equal(n, 4);
	n = 1;
	assert_int_equal(monitor_statistics(mon, NULL, &n), -EINVAL);
	assert_int_equal(monitor_statistics(mon, st, NULL), -EINVAL);
	monitor_terminate(mon);
}

static void test_monitor_deferrals_passed_on(void **state)
{
	struct monitor *mon = created();
	uint32_t d = 1;

	(void)state;
	/* A module before 2.5 leaves the field as given: 0 means none. */
	assert_int_equal(monitor_deferrals(mon, &d), 0);
	assert_int_equal(d, 0);
	fake.deferrals_in = 1;
	fake.deferrals = 3 | MKM_STATS_DEFERRING;
	assert_int_equal(monitor_deferrals(mon, &d), 0);
	assert_int_equal(fake.deferrals_in, 0); /* 2.4 refuses non-zero */
	assert_int_equal(d, 3 | MKM_STATS_DEFERRING);
	assert_int_equal(monitor_deferrals(mon, NULL), -EINVAL);
	assert_int_equal(monitor_deferrals(NULL, &d), -EINVAL);
	fake.ioctl_err[_IOC_NR(MKM_IOC_STATS)] = EFAULT;
	assert_int_equal(monitor_deferrals(mon, &d), -EFAULT);
	monitor_terminate(mon);
}

static void test_monitor_terminate_close_error(void **state)
{
	struct monitor *mon = created();

	(void)state;
	fake.close_err = EIO;
	assert_int_equal(monitor_terminate(mon), -EIO);
	assert_int_equal(monitor_terminate(NULL), 0);
	assert_int_equal(monitor_fd(NULL), -EINVAL);
}

static void test_monitor_strerror_all(void **state)
{
	(void)state;
	assert_string_equal(monitor_strerror(0), "success");
	assert_non_null(strstr(monitor_strerror(-EPROTO), "version"));
	assert_string_equal(monitor_strerror(-EBADMSG),
			    monitor_strerror(EBADMSG));
	assert_non_null(strstr(monitor_strerror(-ENODATA), "truncated"));
	assert_non_null(strstr(monitor_strerror(-EBUSY), "another monitor"));
	assert_non_null(monitor_strerror(-ENOMEM));
	assert_string_equal(monitor_strerror(-100000), "unknown error");
}

static void test_ring_bytes_for_grows_with_classes_and_cpus(void **state)
{
	uint64_t ram = 8ull << 30;
	uint64_t dflt = mon_ring_bytes_for(MKM_CLASS_DEFAULT, 2, ram);
	uint64_t wake = mon_ring_bytes_for(MKM_CLASS_DEFAULT | MKM_CLASS_WAKEUP,
					   2, ram);
	uint64_t all = mon_ring_bytes_for(MKM_CLASS_ALL, 2, ram);

	(void)state;
	/* Never below what the module gave before sizing existed. */
	assert_true(dflt >= MKM_RING_DEFAULT_BYTES);
	assert_true(wake > dflt);
	assert_true(all > wake);
	assert_int_equal(mon_ring_bytes_for(0, 2, ram), dflt);
	/* What hackbench needed to lose nothing: 4M with mkm
	 * record's default classes, 16M with all of them (8M lost 12-28%). */
	assert_int_equal(wake, 4 << 20);
	assert_int_equal(all, 16 << 20);
	/* More rings for the one reader to visit: larger ones. */
	assert_true(mon_ring_bytes_for(MKM_CLASS_ALL, 64, 1ull << 40) > all);
	/* Powers of two, within the module's bounds. */
	assert_int_equal(all & (all - 1), 0);
	assert_int_equal(mon_ring_bytes_for(MKM_CLASS_ALL, 4096, 1ull << 50),
			 MKM_RING_MAX_BYTES);
}

static void test_ring_bytes_for_within_ram(void **state)
{
	uint64_t b = mon_ring_bytes_for(MKM_CLASS_ALL, 64, 1ull << 30);

	(void)state;
	assert_true(b * 64 <= (1ull << 30) / 32);
	assert_true(b >= MKM_RING_MIN_BYTES);
	/* A tiny machine still gets the module's smallest ring. */
	assert_int_equal(mon_ring_bytes_for(MKM_CLASS_ALL, 64, 1 << 20),
			 MKM_RING_MIN_BYTES);
}

static void test_ring_bytes_after_loss(void **state)
{
	(void)state;
	assert_int_equal(mon_ring_bytes_after_loss(1 << 20, 1000, 0), 1 << 20);
	/* 69% lost (hackbench with --events all): 1000 read, 2226 lost. */
	assert_int_equal(mon_ring_bytes_after_loss(1 << 20, 1000, 2226),
			 8 << 20);
	assert_int_equal(mon_ring_bytes_after_loss(1 << 20, 1000, 1), 4 << 20);
	assert_int_equal(mon_ring_bytes_after_loss(4096, 0, 5), 65536);
	assert_int_equal(mon_ring_bytes_after_loss(128 << 20, 10, 1000),
			 MKM_RING_MAX_BYTES);
	/* Already the largest: no size keeps them. */
	assert_int_equal(mon_ring_bytes_after_loss(MKM_RING_MAX_BYTES, 10, 1),
			 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup(f, reset)
		T(test_monitor_create_configures),
		T(test_monitor_create_default_size),
		T(test_monitor_create_no_device),
		T(test_monitor_create_refuses_unknown_major),
		T(test_monitor_create_configure_fails),
		T(test_monitor_create_at_without_config),
		T(test_monitor_configure_one_switch_asked),
		T(test_monitor_configure_in_out),
		T(test_monitor_resume_suspend),
		T(test_monitor_read_records),
		T(test_monitor_read_empty_is_not_an_error),
		T(test_monitor_read_errors),
		T(test_thread_monitor_passes_ids),
		T(test_thread_monitor_errors),
		T(test_monitor_mark_value),
		T(test_monitor_statistics_counts),
		T(test_monitor_deferrals_passed_on),
		T(test_monitor_terminate_close_error),
		T(test_monitor_strerror_all),
		T(test_ring_bytes_for_grows_with_classes_and_cpus),
		T(test_ring_bytes_for_within_ram),
		T(test_ring_bytes_after_loss),
#undef T
	};

	return cmocka_run_group_tests_name("monitor", tests, NULL, NULL);
}
