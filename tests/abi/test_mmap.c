// SPDX-License-Identifier: GPL-2.0
/*
 * test_mmap.c - ABI tests of reading in place: the rings mapped (uapi,
 * "Reading in place"), MKM_IOC_CLOCK, and libmonitor's monitor_read() on
 * the mapping against read() of the same records.
 */
#include "abi.h"

#include <poll.h>
#include <sys/mman.h>

#include "ring.h"

#define PAGE MKM_RING_PAGE_BYTES

static void *map_ring(int fd, int cpu, size_t ring_bytes)
{
	return mmap(NULL, MKM_RING_MAP_BYTES(ring_bytes), PROT_READ, MAP_SHARED,
		    fd, (off_t)MKM_MMAP_RING(cpu));
}

static struct mkm_ring_reader *map_reader(int fd, int cpu)
{
	return mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    (off_t)MKM_MMAP_RING(cpu) + MKM_RING_READER_OFFSET);
}

static void test_mmap_before_rings_einval(void **state)
{
	(void)state;

	int fd = abi_open();
	assert_true(map_ring(fd, 0, 4096) == MAP_FAILED);
	ABI_EQ(errno, EINVAL);
	ABI_OK(close(fd));
}

/* Writable is the reader page alone; the rest is read-only for good. */
static void test_mmap_protections_and_bounds(void **state)
{
	struct mkm_cpu_stats *st;
	(void)state;

	int fd = abi_open();
	abi_configure(fd, 4096, 0, 0, NULL);
	size_t len = MKM_RING_MAP_BYTES(4096);
	off_t ring0 = (off_t)MKM_MMAP_RING(0);
	void *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, ring0);
	assert_true(p == MAP_FAILED);
	ABI_EQ(errno, EACCES);
	/* A private copy would not follow the sensor: refused. */
	p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, ring0);
	assert_true(p == MAP_FAILED);
	ABI_EQ(errno, EINVAL);
	/* Past the ring, by length or by offset. */
	p = mmap(NULL, len + PAGE, PROT_READ, MAP_SHARED, fd, ring0);
	assert_true(p == MAP_FAILED);
	ABI_EQ(errno, EINVAL);
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, ring0 + (off_t)len);
	assert_true(p == MAP_FAILED);
	ABI_EQ(errno, EINVAL);
	/* No ring for a CPU id that cannot exist. */
	uint32_t nr = abi_stats(fd, &st);
	free(st);
	p = map_ring(fd, (int)nr, 4096);
	assert_true(p == MAP_FAILED);
	ABI_EQ(errno, EINVAL);
	/* Records and control page with the reader page: read-only. */
	p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 ring0 + PAGE);
	assert_true(p == MAP_FAILED);
	ABI_EQ(errno, EACCES);

	p = map_ring(fd, 0, 4096);
	assert_true(p != MAP_FAILED);
	ABI_ERR(mprotect(p, len, PROT_READ | PROT_WRITE), EACCES);
	struct mkm_ring_reader *rd = map_reader(fd, 0);
	assert_true(rd != MAP_FAILED);
	/* The same page, seen through both mappings. */
	rd->reserved = 0x5a;
	ABI_EQ(((const struct mkm_ring *)p)->rd.reserved, 0x5a);
	rd->reserved = 0;
	ABI_OK(munmap(rd, PAGE));
	ABI_OK(munmap(p, len));
	ABI_OK(close(fd));
}

static void test_mmap_configure_ebusy_while_mapped(void **state)
{
	struct mkm_config c;
	(void)state;

	int fd = abi_open();
	abi_configure(fd, 4096, 0, 0, NULL);
	void *p = map_ring(fd, 0, 4096);
	assert_true(p != MAP_FAILED);
	memset(&c, 0, sizeof(c));
	c.ring_bytes = 8192;
	ABI_ERR(ioctl(fd, MKM_IOC_CONFIGURE, &c), EBUSY);
	ABI_OK(munmap(p, MKM_RING_MAP_BYTES(4096)));
	ABI_OK(ioctl(fd, MKM_IOC_CONFIGURE, &c));
	ABI_EQ(c.ring_bytes, 8192);
	ABI_OK(close(fd));
}

/* Whether CONFIGURE finds the rings still mapped somewhere. */
static int configure_busy(int fd, uint64_t ring_bytes)
{
	struct mkm_config c = { .ring_bytes = ring_bytes };

	if (ioctl(fd, MKM_IOC_CONFIGURE, &c) == 0)
		return 0;
	assert_int_equal(errno, EBUSY);
	return 1;
}

/*
 * The module counts mappings of the rings, so that it never frees rings
 * that a process can still read. Every way a mapping is copied or moved
 * keeps the count: a split (munmap of a middle page), mremap to another
 * place, and a fork after MADV_DOFORK, which undoes the mapping's
 * VM_DONTCOPY (the child's copy holds the rings until it exits).
 */
static void test_mmap_count_survives_split_mremap_dofork(void **state)
{
	const size_t len = MKM_RING_MAP_BYTES(16384);
	int hold[2], fd = abi_open();
	char *p, *q;
	pid_t pid;
	(void)state;

	abi_configure(fd, 16384, 0, 0, NULL);
	/* A split: two mappings, each holds the rings. */
	p = map_ring(fd, 0, 16384);
	assert_true(p != MAP_FAILED);
	ABI_OK(munmap(p + 2 * PAGE, PAGE));
	assert_true(configure_busy(fd, 16384 * 2));
	ABI_OK(munmap(p, 2 * PAGE));
	assert_true(configure_busy(fd, 16384 * 2));
	ABI_OK(munmap(p + 3 * PAGE, len - 3 * PAGE));
	assert_false(configure_busy(fd, 16384));

	/* Moved by mremap: the new place holds them, the old one not. */
	p = map_ring(fd, 0, 16384);
	assert_true(p != MAP_FAILED);
	q = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(q != MAP_FAILED);
	q = mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, q);
	assert_true(q != MAP_FAILED);
	assert_true(configure_busy(fd, 16384 * 2));
	ABI_OK(munmap(q, len));
	assert_false(configure_busy(fd, 16384));

	/* MADV_DOFORK: a child's copy holds them until it exits. */
	p = map_ring(fd, 0, 16384);
	assert_true(p != MAP_FAILED);
	if (madvise(p, len, MADV_DOFORK)) {
		/*
		 * The debug kernel's tinyconfig has no madvise(2); 7.x
		 * refuses to make such a mapping copyable (EINVAL).
		 */
		assert_true(errno == ENOSYS || errno == EINVAL);
		print_message("MADV_DOFORK: %s: not copied by fork\n",
			      strerror(errno));
		ABI_OK(munmap(p, len));
		ABI_OK(close(fd));
		return;
	}
	ABI_OK(pipe(hold));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;

		close(hold[1]);
		/* The copy is the rings: the control page reads the same. */
		_exit(read(hold[0], &c, 1) == 0 &&
				      ((const struct mkm_ring *)p)->mask ==
					      16384 / sizeof(struct mkm_event) -
						      1 ?
			      0 :
			      1);
	}
	close(hold[0]);
	ABI_OK(munmap(p, len));
	assert_true(configure_busy(fd, 16384 * 2));
	close(hold[1]);
	abi_expect_child_ok(pid);
	assert_false(configure_busy(fd, 16384 * 2));
	ABI_OK(close(fd));
}

static void test_clock_bad_arguments_einval(void **state)
{
	struct mkm_cpu_stats *st;
	struct mkm_clock k = { 0 };
	(void)state;

	int fd = abi_open();
	uint32_t nr = abi_stats(fd, &st);
	free(st);
	k.cpu = nr;
	ABI_ERR(ioctl(fd, MKM_IOC_CLOCK, &k), EINVAL);
	k.cpu = 0;
	k.reserved = 1;
	ABI_ERR(ioctl(fd, MKM_IOC_CLOCK, &k), EINVAL);
	k.reserved = 0;
	ABI_OK(ioctl(fd, MKM_IOC_CLOCK, &k));
	ABI_OK(close(fd));
}

/*
 * Marks in a mapped ring: the control page counts them, the records sit in
 * their slots with the ring clock, which MKM_IOC_CLOCK maps onto
 * CLOCK_MONOTONIC; a ring overfilled shows its drops in lost and in seq;
 * freeing through the reader page is what STATS and poll() see.
 */
static void test_mmap_records_in_place(void **state)
{
	struct mkm_cpu_stats *st;
	struct mkm_clock k = { 0 };
	(void)state;

	int cpu = abi_cpu_online(0);
	ABI_OK(abi_pin_self(cpu));
	int fd = abi_open();
	abi_configure(fd, 4096, 0, 0, NULL); /* 128 records */
	const struct mkm_ring *r = map_ring(fd, cpu, 4096);
	assert_true(r != MAP_FAILED);
	struct mkm_ring_reader *rd = map_reader(fd, cpu);
	assert_true(rd != MAP_FAILED);
	ABI_EQ(r->mask, 127);
	ABI_EQ(r->head, 0);

	abi_resume(fd);
	uint64_t t0 = abi_now_ns();
	for (unsigned int i = 0; i < 200; i++)
		ABI_OK(abi_mark(fd, i));
	uint64_t t1 = abi_now_ns();
	abi_suspend(fd);
	k.cpu = (uint32_t)cpu;
	ABI_OK(ioctl(fd, MKM_IOC_CLOCK, &k));

	ABI_EQ(__atomic_load_n(&r->head, __ATOMIC_ACQUIRE), 128);
	ABI_EQ(r->lost, 72);
	for (unsigned int i = 0; i < 128; i++) {
		const struct mkm_event *ev = &r->ev[i];
		uint64_t mono = ev->time_ns + (uint64_t)k.offset_ns;

		ABI_EQ(ev->type, MKM_EV_MARK);
		ABI_EQ(ev->arg0, i);
		ABI_EQ(ev->seq, i);
		ABI_EQ(ev->tid, abi_gettid());
		if (mono < t0 || mono > t1)
			fail_msg("record %u at %" PRIu64 ", outside the marks' "
				 "[%" PRIu64 ", %" PRIu64 "]",
				 i, mono, t0, t1);
	}

	/* Drain with the module's own reader, then free the slots. */
	struct ring_clock clk = { .t0 = k.time_ns,
				  .t1 = k.time_ns,
				  .off0 = k.offset_ns,
				  .off1 = k.offset_ns };
	struct mkm_event out[256];
	struct ring_cursor c;
	ring_cursor_start(rd, &c);
	u32 n = ring_peek(r, &c, out, 256, true, (u16)cpu, &clk);
	ABI_EQ(n, 129);
	ABI_EQ(out[128].type, MKM_EV_LOST);
	ABI_EQ(out[128].arg0, 72);
	ABI_EQ(out[127].cpu, cpu);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ABI_EQ(poll(&p, 1, 0), 1);
	ABI_EQ(p.revents, POLLIN); /* nothing freed yet */
	ring_consume(rd, &c);
	ABI_EQ(poll(&p, 1, 0), 1);
	ABI_EQ(p.revents, POLLHUP); /* suspended and drained */
	abi_stats(fd, &st);
	ABI_EQ(st[cpu].read, 128);
	ABI_EQ(st[cpu].lost, 72);
	ABI_EQ(st[cpu].buffered, 0);
	free(st);

	/* The rings outlive the fd while mapped, and go with the mapping. */
	ABI_OK(close(fd));
	ABI_EQ(r->ev[5].arg0, 5);
	ABI_OK(munmap(rd, PAGE));
	ABI_OK(munmap((void *)r, MKM_RING_MAP_BYTES(4096)));
}

/* Mappings of /dev/mkm in this process. */
static unsigned int mkm_mappings(void)
{
	char line[512];
	unsigned int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, MKM_DEVICE) != NULL;
	fclose(f);
	return n;
}

/*
 * libmonitor's monitor_read() reads in place: the same records as read()
 * gives of a second monitor that saw the same marks, LOST records
 * included, and the same mapped times within the marks' bounds.
 */
static void test_monitor_read_in_place_matches_read(void **state)
{
	struct monitor *mon;
	struct monitor_config cfg = { .ring_bytes = 8192 };
	struct abi_trace t = { 0 };
	static struct mkm_event got[1024];
	size_t n = 0, k;
	(void)state;

	int cpu = abi_cpu_online(0);
	ABI_OK(abi_pin_self(cpu));
	ABI_OK(monitor_create_at(&mon, MKM_DEVICE, &cfg));
	int fd = abi_open();
	abi_configure(fd, 8192, 0, 0, NULL);
	ABI_OK(monitor_resume(mon));
	/* Two mappings a CPU: the ring, and its reader page. */
	assert_true(mkm_mappings() >= 2);
	abi_resume(fd);
	/* Both rings overflow: 256 records each, the rest lost. */
	for (unsigned int i = 0; i < 300; i++) {
		ABI_OK(monitor_mark(mon, i));
		ABI_OK(abi_mark(fd, i));
	}
	/* Some read while resumed, the rest once suspended. */
	ABI_OK(monitor_read(mon, got, 100, &k));
	ABI_EQ(k, 100);
	n += k;
	ABI_OK(monitor_suspend(mon));
	abi_suspend(fd);
	do {
		ABI_OK(monitor_read(mon, got + n, 1024 - n, &k));
		n += k;
	} while (k);
	abi_drain(fd, &t);
	ABI_EQ(n, t.n);
	ABI_EQ(n, 257);
	for (size_t i = 0; i < n; i++) {
		ABI_EQ(got[i].type, t.ev[i].type);
		ABI_EQ(got[i].arg0, t.ev[i].arg0);
		ABI_EQ(got[i].seq, t.ev[i].seq);
		ABI_EQ(got[i].cpu, t.ev[i].cpu);
		ABI_EQ(got[i].tid, t.ev[i].tid);
		if (i && got[i].time_ns < got[i - 1].time_ns)
			fail_msg("record %zu goes back in time", i);
		/* The two marks of a value came one after the other. */
		if (got[i].type == MKM_EV_MARK &&
		    got[i].time_ns > t.ev[i].time_ns)
			fail_msg("record %zu: mapped %" PRIu64
				 " after read()'s "
				 "%" PRIu64,
				 i, (uint64_t)got[i].time_ns,
				 (uint64_t)t.ev[i].time_ns);
	}
	ABI_EQ(got[256].type, MKM_EV_LOST);
	ABI_EQ(got[256].arg0, 44);
	abi_trace_free(&t);
	ABI_OK(monitor_terminate(mon));
	ABI_EQ(mkm_mappings(), 0);
	ABI_OK(close(fd));
}

/*
 * The library maps as much as the kernel's rings hold, not what it last
 * configured: a monitor reconfigured through monitor_fd() to larger rings
 * is read whole, with no read past the mapping.
 */
static void test_monitor_read_maps_the_kernels_ring_size(void **state)
{
	struct monitor *mon;
	struct monitor_config cfg = { .ring_bytes = 8192 };
	struct mkm_config big = { .ring_bytes = 65536 };
	static struct mkm_event got[2048];
	size_t n = 0, k, marks = 0;
	(void)state;

	ABI_OK(abi_pin_self(abi_cpu_online(0)));
	ABI_OK(monitor_create_at(&mon, MKM_DEVICE, &cfg));
	ABI_OK(ioctl(monitor_fd(mon), MKM_IOC_CONFIGURE, &big));
	ABI_OK(monitor_resume(mon));
	for (unsigned int i = 0; i < 1500; i++)
		ABI_OK(monitor_mark(mon, i));
	ABI_OK(monitor_suspend(mon));
	do {
		ABI_OK(monitor_read(mon, got + n, 2048 - n, &k));
		n += k;
	} while (k && n < 2048);
	for (size_t i = 0; i < n; i++) {
		assert_int_not_equal(got[i].type, MKM_EV_LOST);
		marks += got[i].type == MKM_EV_MARK;
	}
	ABI_EQ(marks, 1500);
	ABI_OK(monitor_terminate(mon));
}

int main(int argc, char **argv)
{
	abi_main(argc, argv);
	const struct CMUnitTest tests[] = {
		ABI_TEST(test_mmap_before_rings_einval),
		ABI_TEST(test_mmap_protections_and_bounds),
		ABI_TEST(test_mmap_configure_ebusy_while_mapped),
		ABI_TEST(test_clock_bad_arguments_einval),
		ABI_TEST(test_mmap_records_in_place),
		ABI_TEST(test_monitor_read_in_place_matches_read),
		ABI_TEST(test_mmap_count_survives_split_mremap_dofork),
		ABI_TEST(test_monitor_read_maps_the_kernels_ring_size),
	};
	return cmocka_run_group_tests_name("mmap", tests, NULL, NULL);
}
