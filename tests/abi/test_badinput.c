// SPDX-License-Identifier: GPL-2.0
/*
 * test_badinput.c - clean errors for bad input: seeking, unknown ioctl numbers,
 * bad pointers (unmapped, read-only, kernel, straddling a hole), sizes of
 * 0 and 2^63, odd sizes, nonzero reserved fields, unknown bits, and STATS
 * with fewer or more entries than CPUs.
 */
#include "abi.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <termios.h>

#define KERNEL_PTR ((void *)0xffffffff81000000ul)

/* read(2) without the compiler's opinion of the buffer. */
static long raw_read(int fd, void *buf, size_t count)
{
	return syscall(SYS_read, fd, buf, count);
}

struct big {
	char x[64];
};

/*
 * A monitor is a stream: no seeking, no positioned reads (stream_open();
 * the file has no .llseek, which 6.12 removed no_llseek for).
 */
static void test_lseek_and_pread_espipe(void **state)
{
	char buf[64];
	(void)state;

	int fd = abi_open();
	ABI_ERR(lseek(fd, 0, SEEK_SET), ESPIPE);
	ABI_ERR(lseek(fd, 0, SEEK_CUR), ESPIPE);
	ABI_ERR(pread(fd, buf, sizeof(buf), 0), ESPIPE);
	ABI_OK(close(fd));
}

static void test_ioctl_unknown_number_enotty(void **state)
{
	struct big b;
	uint64_t u = 0;
	struct termios tio;
	(void)state;

	int fd = abi_open();
	memset(&b, 0, sizeof(b));
	ABI_ERR(ioctl(fd, _IO(MKM_IOC_MAGIC, 0x00)), ENOTTY);
	ABI_ERR(ioctl(fd, _IO(MKM_IOC_MAGIC, 0x09)), ENOTTY);
	ABI_ERR(ioctl(fd, _IO(MKM_IOC_MAGIC, 0xff)), ENOTTY);
	ABI_ERR(ioctl(fd, _IOWR(MKM_IOC_MAGIC, 0x42, struct big), &b), ENOTTY);
	/* Known numbers with the wrong size or direction. */
	ABI_ERR(ioctl(fd, _IOR(MKM_IOC_MAGIC, 0x01, struct big), &b), ENOTTY);
	ABI_ERR(ioctl(fd, _IO(MKM_IOC_MAGIC, 0x01)), ENOTTY);
	ABI_ERR(ioctl(fd, _IOWR(MKM_IOC_MAGIC, 0x02, uint64_t), &u), ENOTTY);
	ABI_ERR(ioctl(fd, _IOW(MKM_IOC_MAGIC, 0x03, int), &u), ENOTTY);
	ABI_ERR(ioctl(fd, _IOR(MKM_IOC_MAGIC, 0x07, struct mkm_stats), &b),
		ENOTTY);
	/* Other magics, and a tty ioctl. */
	ABI_ERR(ioctl(fd, _IO('x', 0x01)), ENOTTY);
	ABI_ERR(ioctl(fd, _IOR(MKM_IOC_MAGIC + 1, 0x01, struct mkm_version),
		      &b),
		ENOTTY);
	ABI_ERR(ioctl(fd, TCGETS, &tio), ENOTTY);
	ABI_EQ(isatty(fd), 0);
	/* The monitor still works. */
	struct mkm_version v;
	ABI_OK(ioctl(fd, MKM_IOC_VERSION, &v));
	ABI_OK(close(fd));
}

static void test_ioctl_bad_pointer_efault(void **state)
{
	void *const bad[] = { NULL, (void *)1, KERNEL_PTR };
	(void)state;

	int fd = abi_open();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		void *p = bad[i];
		ABI_ERR(ioctl(fd, MKM_IOC_VERSION, p), EFAULT);
		ABI_ERR(ioctl(fd, MKM_IOC_CONFIGURE, p), EFAULT);
		ABI_ERR(ioctl(fd, MKM_IOC_THREAD_MONITOR, p), EFAULT);
		ABI_ERR(ioctl(fd, MKM_IOC_THREAD_UNMONITOR, p), EFAULT);
		ABI_ERR(ioctl(fd, MKM_IOC_STATS, p), EFAULT);
	}
	abi_resume(fd);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ABI_ERR(ioctl(fd, MKM_IOC_MARK, bad[i]), EFAULT);
	/* STATS with a bad array. */
	struct mkm_stats s = { .nr_cpus = 1, .cpus = 1 };
	ABI_ERR(ioctl(fd, MKM_IOC_STATS, &s), EFAULT);
	s.nr_cpus = 1;
	s.cpus = (uint64_t)(uintptr_t)KERNEL_PTR;
	ABI_ERR(ioctl(fd, MKM_IOC_STATS, &s), EFAULT);
	ABI_OK(close(fd));
}

static void test_ioctl_readonly_out_param_efault(void **state)
{
	(void)state;

	long page = sysconf(_SC_PAGESIZE);
	char *ro = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(ro != MAP_FAILED);
	/* Valid input in a page we may read but not write. */
	struct mkm_config *c = (struct mkm_config *)ro;
	c->ring_bytes = 8192;
	struct mkm_stats *s = (struct mkm_stats *)(ro + 1024);
	s->nr_cpus = 0;
	ABI_OK(mprotect(ro, (size_t)page, PROT_READ));

	int fd = abi_open();
	ABI_ERR(ioctl(fd, MKM_IOC_VERSION, ro + 2048), EFAULT);
	ABI_ERR(ioctl(fd, MKM_IOC_CONFIGURE, c), EFAULT);
	ABI_ERR(ioctl(fd, MKM_IOC_STATS, s), EFAULT);
	/* An array the kernel may not write to. */
	struct mkm_stats s2 = { .nr_cpus = 1, .cpus = (uintptr_t)(ro + 2048) };
	ABI_ERR(ioctl(fd, MKM_IOC_STATS, &s2), EFAULT);
	/* read() into it, with records ready (one per try, in case). */
	abi_resume(fd);
	for (int i = 0; i < 3; i++)
		ABI_OK(abi_mark(fd, 1));
	abi_suspend(fd);
	ABI_ERR(raw_read(fd, ro + 2048, 32), EFAULT);
	ABI_ERR(raw_read(fd, (void *)1, 32), EFAULT);
	ABI_ERR(raw_read(fd, KERNEL_PTR, 32), EFAULT);
	ABI_OK(close(fd));
	munmap(ro, (size_t)page);
}

static void test_ioctl_struct_across_hole_efault(void **state)
{
	(void)state;

	long page = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	ABI_OK(mprotect(m + page, (size_t)page, PROT_NONE));
	/* The struct starts in the mapped page and ends in the hole. */
	char *edge = m + page - 8;
	memset(edge, 0, 8);
	int fd = abi_open();
	ABI_ERR(ioctl(fd, MKM_IOC_VERSION, edge), EFAULT);
	ABI_ERR(ioctl(fd, MKM_IOC_CONFIGURE, edge), EFAULT);
	ABI_ERR(ioctl(fd, MKM_IOC_STATS, edge), EFAULT);
	ABI_ERR(ioctl(fd, MKM_IOC_THREAD_MONITOR, m + page - 4), EFAULT);
	abi_resume(fd);
	ABI_ERR(ioctl(fd, MKM_IOC_MARK, m + page - 4), EFAULT);
	ABI_OK(close(fd));
	munmap(m, 2 * (size_t)page);
}

static int configure_ring(int fd, uint64_t bytes, uint64_t *got)
{
	struct mkm_config c;

	memset(&c, 0, sizeof(c));
	c.ring_bytes = bytes;
	int r = ioctl(fd, MKM_IOC_CONFIGURE, &c);
	if (got)
		*got = c.ring_bytes;
	return r;
}

static void test_configure_ring_bytes_zero_einval(void **state)
{
	(void)state;

	int fd = abi_open();
	ABI_ERR(configure_ring(fd, 0, NULL), EINVAL);
	ABI_OK(close(fd));
}

static void test_configure_ring_bytes_huge_einval(void **state)
{
	(void)state;

	int fd = abi_open();
	ABI_ERR(configure_ring(fd, 1ull << 63, NULL), EINVAL);
	ABI_ERR(configure_ring(fd, UINT64_MAX, NULL), EINVAL);
	ABI_ERR(configure_ring(fd, (uint64_t)MKM_RING_MAX_BYTES + 1, NULL),
		EINVAL);
	ABI_ERR(configure_ring(fd, 2ull * MKM_RING_MAX_BYTES, NULL), EINVAL);
	ABI_ERR(configure_ring(fd, 1ull << 32, NULL), EINVAL);
	ABI_ERR(configure_ring(fd, (1ull << 32) + 4096, NULL), EINVAL);
	/* A sane request still works afterwards. */
	uint64_t got;
	ABI_OK(configure_ring(fd, 8192, &got));
	ABI_EQ(got, 8192);
	abi_resume(fd);
	ABI_OK(abi_mark(fd, 1));
	ABI_OK(close(fd));
}

static void test_configure_odd_size_rounded_up(void **state)
{
	static const struct {
		uint64_t ask, want;
	} cases[] = {
		{ 5000, 8192 },
		{ 1, MKM_RING_MIN_BYTES },
		{ 33, MKM_RING_MIN_BYTES },
		{ MKM_RING_MIN_BYTES - 1, 4096 },
		{ 4097, 8192 },
		{ 100000, 131072 },
		{ 65536, 65536 },
		{ (1u << 20) + 1, 2u << 20 },
	};
	(void)state;

	int fd = abi_open();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t got = 0;
		ABI_OK(configure_ring(fd, cases[i].ask, &got));
		/* A power-of-two number of records, at least the request. */
		uint64_t recs = got / sizeof(struct mkm_event);
		if (got % sizeof(struct mkm_event) || (recs & (recs - 1)) ||
		    got < cases[i].ask || got != cases[i].want)
			fail_msg("ring_bytes %llu gave %llu, expected %llu",
				 (unsigned long long)cases[i].ask,
				 (unsigned long long)got,
				 (unsigned long long)cases[i].want);
	}
	ABI_OK(close(fd));
}

static void test_configure_unknown_class_or_flag_einval(void **state)
{
	/* The fair class's state only beside the records it adds to. */
	static const uint32_t bad_classes[] = {
		MKM_CLASS_ALL + 1,
		1u << 6,
		1u << 31,
		0xffffffffu,
		MKM_CLASS_SCHED_STATE,
		MKM_CLASS_SCHED_STATE | MKM_CLASS_SCHED,
	};
	static const uint32_t bad_flags[] = { MKM_CONFIG_ALL + 1, 1u << 4,
					      1u << 31, 0xffffffffu };
	struct mkm_config c;
	(void)state;

	int fd = abi_open();
	for (size_t i = 0; i < sizeof(bad_classes) / sizeof(*bad_classes);
	     i++) {
		memset(&c, 0, sizeof(c));
		c.ring_bytes = 8192;
		c.classes = bad_classes[i];
		ABI_ERR(ioctl(fd, MKM_IOC_CONFIGURE, &c), EINVAL);
	}
	for (size_t i = 0; i < sizeof(bad_flags) / sizeof(*bad_flags); i++) {
		memset(&c, 0, sizeof(c));
		c.ring_bytes = 8192;
		c.flags = bad_flags[i];
		ABI_ERR(ioctl(fd, MKM_IOC_CONFIGURE, &c), EINVAL);
	}
	memset(&c, 0, sizeof(c));
	c.ring_bytes = 8192;
	c.classes = MKM_CLASS_ALL;
	c.flags = MKM_CONFIG_ALL;
	ABI_OK(ioctl(fd, MKM_IOC_CONFIGURE, &c));
	ABI_OK(close(fd));
}

static void test_configure_wakeup_bytes_beyond_ring_einval(void **state)
{
	struct mkm_config c;
	(void)state;

	int fd = abi_open();
	memset(&c, 0, sizeof(c));
	c.ring_bytes = MKM_RING_MIN_BYTES;
	c.wakeup_bytes = MKM_RING_MIN_BYTES + 1;
	ABI_ERR(ioctl(fd, MKM_IOC_CONFIGURE, &c), EINVAL);
	c.ring_bytes = MKM_RING_MIN_BYTES;
	c.wakeup_bytes = UINT64_MAX;
	ABI_ERR(ioctl(fd, MKM_IOC_CONFIGURE, &c), EINVAL);
	c.ring_bytes = MKM_RING_MIN_BYTES;
	c.wakeup_bytes = MKM_RING_MIN_BYTES;
	ABI_OK(ioctl(fd, MKM_IOC_CONFIGURE, &c));
	ABI_OK(close(fd));
}

static uint32_t possible_cpus(void)
{
	char buf[256] = { 0 };
	int f = open("/sys/devices/system/cpu/possible", O_RDONLY);

	assert_true(f >= 0);
	assert_true(read(f, buf, sizeof(buf) - 1) > 0);
	close(f);
	/* "0", "0-1", "0-3,5": the highest id + 1 */
	char *p = buf + strlen(buf);
	while (p > buf && (p[-1] < '0' || p[-1] > '9'))
		p--;
	while (p > buf && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return (uint32_t)strtoul(p, NULL, 10) + 1;
}

static void test_stats_nr_cpus_zero_returns_count(void **state)
{
	struct mkm_cpu_stats sentinel[4];
	(void)state;

	int fd = abi_open();
	memset(sentinel, 0xab, sizeof(sentinel));
	struct mkm_stats s = { .nr_cpus = 0, .cpus = (uintptr_t)sentinel };
	ABI_OK(ioctl(fd, MKM_IOC_STATS, &s));
	ABI_EQ(s.nr_cpus, possible_cpus());
	for (size_t i = 0; i < sizeof(sentinel); i++)
		ABI_EQ(((unsigned char *)sentinel)[i], 0xab);
	/* Nothing is touched: even a bad pointer is fine. */
	s.nr_cpus = 0;
	s.cpus = 1;
	ABI_OK(ioctl(fd, MKM_IOC_STATS, &s));
	ABI_EQ(s.nr_cpus, possible_cpus());
	s.nr_cpus = 0;
	s.cpus = 0;
	ABI_OK(ioctl(fd, MKM_IOC_STATS, &s));
	ABI_OK(close(fd));
}

static void test_stats_fills_min_of_given_and_possible(void **state)
{
	(void)state;

	uint32_t nr = possible_cpus();
	struct mkm_cpu_stats *a = calloc(nr + 3, sizeof(*a));
	assert_non_null(a);
	int fd = abi_open();
	abi_resume(fd);
	ABI_OK(abi_mark(fd, 1));
	abi_suspend(fd);

	/* One entry given: only it is written. */
	memset(a, 0xab, (nr + 3) * sizeof(*a));
	struct mkm_stats s = { .nr_cpus = 1,
			       .cpus = (uintptr_t)a,
			       .cpu_stats_size = sizeof(*a) };
	ABI_OK(ioctl(fd, MKM_IOC_STATS, &s));
	ABI_EQ(s.nr_cpus, nr);
	assert_true(a[0].produced <= 1 && a[0].lost == 0 && a[0].read == 0);
	for (size_t i = sizeof(*a); i < (nr + 3) * sizeof(*a); i++)
		ABI_EQ(((unsigned char *)a)[i], 0xab);

	/* Size 0: the entry of ABI 2.6, whatever the caller's header says. */
	memset(a, 0xab, (nr + 3) * sizeof(*a));
	s.nr_cpus = 1;
	s.cpu_stats_size = 0;
	ABI_OK(ioctl(fd, MKM_IOC_STATS, &s));
	for (size_t i = MKM_CPU_STATS_SIZE_2_6; i < (nr + 3) * sizeof(*a); i++)
		ABI_EQ(((unsigned char *)a)[i], 0xab);
	s.cpu_stats_size = sizeof(*a);

	/* More given than possible: the extra entries stay untouched. */
	memset(a, 0xab, (nr + 3) * sizeof(*a));
	s.nr_cpus = nr + 3;
	ABI_OK(ioctl(fd, MKM_IOC_STATS, &s));
	ABI_EQ(s.nr_cpus, nr);
	uint64_t produced = 0;
	for (uint32_t i = 0; i < nr; i++) {
		produced += a[i].produced;
		ABI_EQ(a[i].buffered, a[i].produced);
	}
	ABI_EQ(produced, 1);
	for (size_t i = nr * sizeof(*a); i < (nr + 3) * sizeof(*a); i++)
		ABI_EQ(((unsigned char *)a)[i], 0xab);

	/* A huge count is not a size to trust: min() still applies. */
	s.nr_cpus = 0xffffffffu;
	ABI_OK(ioctl(fd, MKM_IOC_STATS, &s));
	ABI_EQ(s.nr_cpus, nr);
	free(a);
	ABI_OK(close(fd));
}

static void test_stats_reserved_nonzero_einval(void **state)
{
	struct mkm_cpu_stats a[256];
	(void)state;

	int fd = abi_open();
	struct mkm_stats s = { .nr_cpus = 256,
			       .busy_threads = 1,
			       .cpus = (uintptr_t)a };
	ABI_ERR(ioctl(fd, MKM_IOC_STATS, &s), EINVAL);
	s.busy_threads = 0x80000000u;
	ABI_ERR(ioctl(fd, MKM_IOC_STATS, &s), EINVAL);
	ABI_OK(close(fd));
}

/*
 * The reserved fields ABI 2.4 gave struct mkm_thread and mkm_mark: non-zero
 * is refused, as everywhere else in the ABI.
 */
static void test_reserved_fields_of_2_4_nonzero_einval(void **state)
{
	struct mkm_cpu_stats a[256];
	(void)state;

	int fd = abi_open();
	struct mkm_thread th = { .tid = abi_gettid(),
				 .unique_id = 1,
				 .reserved = 1 };
	ABI_ERR(ioctl(fd, MKM_IOC_THREAD_MONITOR, &th), EINVAL);
	ABI_ERR(ioctl(fd, MKM_IOC_THREAD_UNMONITOR, &th), EINVAL);
	struct mkm_mark m = { .value = 1, .reserved = 1u << 31 };
	abi_resume(fd);
	ABI_ERR(ioctl(fd, MKM_IOC_MARK, &m), EINVAL);
	abi_suspend(fd);
	/* ABI 2.5 made the stats' reserved field an output (deferrals):
	 * what comes in is ignored, so that a struct can be used again. */
	struct mkm_stats s = { .nr_cpus = 256,
			       .cpus = (uintptr_t)a,
			       .deferrals = 0x7fffffffu };
	ABI_OK(ioctl(fd, MKM_IOC_STATS, &s));
	assert_true(s.deferrals != 0x7fffffffu);
	/* An entry size the module cannot serve. */
	const uint32_t bad_sizes[] = { 8, 24, 33, 4104, 0xffffffffu };
	for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(*bad_sizes); i++) {
		s.cpu_stats_size = bad_sizes[i];
		ABI_ERR(ioctl(fd, MKM_IOC_STATS, &s), EINVAL);
	}
	ABI_OK(close(fd));
}

/*
 * The calls of ABI 2.3, with their smaller structs, still work: a
 * reader built before the reserved fields keeps working.
 */
static void test_calls_of_abi_2_3_still_served(void **state)
{
	uint32_t nr = possible_cpus();
	struct abi_trace t = { 0 };
	(void)state;

	int fd = abi_open();
	abi_resume(fd);
	struct mkm_thread_2_3 th = { .tid = abi_gettid(), .unique_id = 23 };
	ABI_OK(ioctl(fd, MKM_IOC_THREAD_MONITOR_2_3, &th));
	struct mkm_mark_2_3 m = { .value = 0x1234 };
	ABI_OK(ioctl(fd, MKM_IOC_MARK_2_3, &m));
	ABI_OK(ioctl(fd, MKM_IOC_THREAD_UNMONITOR_2_3, &th));
	abi_suspend(fd);

	/* Entries of 32 bytes, and the stats they had. */
	struct {
		uint64_t produced, lost, read, buffered;
	} *a = calloc(nr + 1, MKM_CPU_STATS_SIZE_2_6);
	_Static_assert(sizeof(*a) == MKM_CPU_STATS_SIZE_2_6, "2.3's entry");
	assert_non_null(a);
	memset(a, 0xab, (nr + 1) * sizeof(*a));
	struct mkm_stats_2_3 s = { .nr_cpus = nr, .cpus = (uintptr_t)a };
	ABI_OK(ioctl(fd, MKM_IOC_STATS_2_3, &s));
	ABI_EQ(s.nr_cpus, nr);
	uint64_t produced = 0;
	for (uint32_t i = 0; i < nr; i++)
		produced += a[i].produced;
	for (size_t i = nr * sizeof(*a); i < (nr + 1) * sizeof(*a); i++)
		ABI_EQ(((unsigned char *)a)[i], 0xab);

	abi_drain(fd, &t);
	ABI_EQ(produced, t.n);
	long i = abi_find(&t, 0, abi_gettid(), MKM_EV_ATTACH);
	assert_true(i >= 0);
	ABI_EQ(t.ev[i].unique_id, 23);
	i = abi_find(&t, 0, abi_gettid(), MKM_EV_MARK);
	assert_true(i >= 0);
	ABI_EQ(t.ev[i].arg0, 0x1234);
	ABI_EQ(abi_count(&t, abi_gettid(), MKM_EV_DETACH), 1);
	abi_trace_free(&t);
	free(a);
	ABI_OK(close(fd));
}

/*
 * cpu_stats_size: an entry larger than the module's struct gets the
 * struct and zeros after it, and no byte past the entries is touched.
 */
static void test_stats_larger_entries_zero_filled(void **state)
{
	const size_t size = 64;
	uint32_t nr = possible_cpus();
	(void)state;

	unsigned char *a = malloc((nr + 1) * size);
	assert_non_null(a);
	int fd = abi_open();
	abi_resume(fd);
	ABI_OK(abi_mark(fd, 1));
	abi_suspend(fd);
	memset(a, 0xab, (nr + 1) * size);
	struct mkm_stats s = { .nr_cpus = nr,
			       .cpus = (uintptr_t)a,
			       .cpu_stats_size = size };
	ABI_OK(ioctl(fd, MKM_IOC_STATS, &s));
	uint64_t produced = 0;
	for (uint32_t cpu = 0; cpu < nr; cpu++) {
		struct mkm_cpu_stats e;

		memcpy(&e, a + cpu * size, sizeof(e));
		produced += e.produced;
		ABI_EQ(e.buffered, e.produced);
		for (size_t k = sizeof(e); k < size; k++)
			ABI_EQ(a[cpu * size + k], 0);
	}
	ABI_EQ(produced, 1);
	for (size_t k = nr * size; k < (nr + 1) * size; k++)
		ABI_EQ(a[k], 0xab);
	free(a);
	ABI_OK(close(fd));
}

/*
 * The fd's access mode counts (ABI 2.6): one opened read-only may watch
 * the monitor (VERSION, STATS, CLOCK, read, poll) but not drive it, as
 * write() on it is refused: EBADF for every call that changes it, in
 * both numberings. One opened write-only drives it, and cannot read.
 */
static void test_readonly_fd_reads_but_does_not_drive(void **state)
{
	struct mkm_config cfg = { .ring_bytes = 65536 };
	struct mkm_thread th = { .tid = abi_gettid(), .unique_id = 1 };
	struct mkm_thread_2_3 th23 = { .tid = abi_gettid(), .unique_id = 1 };
	struct mkm_mark mark = { .value = 1 };
	struct mkm_mark_2_3 mark23 = { .value = 1 };
	struct mkm_clock clk = { .cpu = (uint32_t)abi_cpu_online(0) };
	struct mkm_version v;
	struct mkm_event ev;
	struct mkm_cpu_stats *cpus;
	int fd = abi_open_flags(O_RDONLY);
	(void)state;

	ABI_OK(ioctl(fd, MKM_IOC_VERSION, &v));
	ABI_ERR(ioctl(fd, MKM_IOC_CONFIGURE, &cfg), EBADF);
	ABI_ERR(ioctl(fd, MKM_IOC_RESUME), EBADF);
	ABI_ERR(ioctl(fd, MKM_IOC_SUSPEND), EBADF);
	ABI_ERR(ioctl(fd, MKM_IOC_THREAD_MONITOR, &th), EBADF);
	ABI_ERR(ioctl(fd, MKM_IOC_THREAD_MONITOR_2_3, &th23), EBADF);
	ABI_ERR(ioctl(fd, MKM_IOC_THREAD_UNMONITOR, &th), EBADF);
	ABI_ERR(ioctl(fd, MKM_IOC_THREAD_UNMONITOR_2_3, &th23), EBADF);
	ABI_ERR(ioctl(fd, MKM_IOC_MARK, &mark), EBADF);
	ABI_ERR(ioctl(fd, MKM_IOC_MARK_2_3, &mark23), EBADF);
	ABI_OK(ioctl(fd, MKM_IOC_CLOCK, &clk));
	assert_true(abi_stats(fd, &cpus) > 0);
	free(cpus);
	/* Never resumed: nothing to read, and suspended. */
	ABI_EQ(raw_read(fd, &ev, sizeof(ev)), 0);
	/* No rings were ever made. */
	assert_true(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) ==
		    MAP_FAILED);
	ABI_EQ(errno, EINVAL);
	ABI_OK(close(fd));

	fd = abi_open_flags(O_WRONLY);
	ABI_OK(ioctl(fd, MKM_IOC_CONFIGURE, &cfg));
	ABI_OK(ioctl(fd, MKM_IOC_THREAD_MONITOR, &th));
	ABI_OK(ioctl(fd, MKM_IOC_RESUME));
	ABI_OK(ioctl(fd, MKM_IOC_MARK, &mark));
	ABI_ERR(raw_read(fd, &ev, sizeof(ev)), EBADF);
	ABI_OK(ioctl(fd, MKM_IOC_SUSPEND));
	ABI_OK(close(fd));
}

int main(int argc, char **argv)
{
	abi_main(argc, argv);
	const struct CMUnitTest tests[] = {
		ABI_TEST(test_lseek_and_pread_espipe),
		ABI_TEST(test_ioctl_unknown_number_enotty),
		ABI_TEST(test_ioctl_bad_pointer_efault),
		ABI_TEST(test_ioctl_readonly_out_param_efault),
		ABI_TEST(test_ioctl_struct_across_hole_efault),
		ABI_TEST(test_configure_ring_bytes_zero_einval),
		ABI_TEST(test_configure_ring_bytes_huge_einval),
		ABI_TEST(test_configure_odd_size_rounded_up),
		ABI_TEST(test_configure_unknown_class_or_flag_einval),
		ABI_TEST(test_configure_wakeup_bytes_beyond_ring_einval),
		ABI_TEST(test_stats_nr_cpus_zero_returns_count),
		ABI_TEST(test_stats_fills_min_of_given_and_possible),
		ABI_TEST(test_stats_reserved_nonzero_einval),
		ABI_TEST(test_reserved_fields_of_2_4_nonzero_einval),
		ABI_TEST(test_calls_of_abi_2_3_still_served),
		ABI_TEST(test_stats_larger_entries_zero_filled),
		ABI_TEST(test_readonly_fd_reads_but_does_not_drive),
	};
	return cmocka_run_group_tests_name("badinput", tests, NULL, NULL);
}
