// SPDX-License-Identifier: GPL-2.0
/*
 * test_trace.c - unit tests of libmonitor/src/trace/: round trips, and
 * every truncation and a corruption of a real file, which must give a
 * clear error at the right offset with everything before it readable.
 */
#define _GNU_SOURCE /* statx */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "evstream.h"
#include "internal.h"
#include "trace/format.h"

struct file {
	char path[64];
	uint8_t *data;
	size_t len;
};

static void tmp_path(struct file *f)
{
	int fd;

	strcpy(f->path, "/tmp/test_trace.XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	close(fd);
}

static void slurp(struct file *f)
{
	struct stat st;
	int fd = open(f->path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	f->len = (size_t)st.st_size;
	f->data = malloc(f->len + 1);
	assert_int_equal(read(fd, f->data, f->len), (ssize_t)f->len);
	close(fd);
}

static void drop(struct file *f)
{
	unlink(f->path);
	free(f->data);
}

/*
 * The writer's writev() (tests/unit/build.mk wraps it): the n-th call
 * from now fails as a file system may fail a direct write it let open,
 * with EINVAL, or short (its first block alone, writev_block bytes).
 */
enum writev_fault { WRITEV_OK, WRITEV_EINVAL, WRITEV_SHORT };
static enum writev_fault writev_fault;
static int writev_countdown;
static size_t writev_block;

ssize_t __real_writev(int fd, const struct iovec *iov, int n);
ssize_t __wrap_writev(int fd, const struct iovec *iov, int n);

ssize_t __wrap_writev(int fd, const struct iovec *iov, int n)
{
	enum writev_fault f = writev_fault;
	struct iovec block;

	if (f == WRITEV_OK || --writev_countdown > 0)
		return __real_writev(fd, iov, n);
	writev_fault = WRITEV_OK;
	if (f == WRITEV_EINVAL) {
		errno = EINVAL;
		return -1;
	}
	while (n > 1 && !iov->iov_len) /* out may be empty, the batch not */
		iov++, n--;
	assert_true(iov->iov_len >= writev_block);
	block = (struct iovec){ iov->iov_base, writev_block };
	return __real_writev(fd, &block, 1);
}

static void fill(struct mkm_event *ev, size_t n, uint64_t t0)
{
	size_t i;

	memset(ev, 0, n * sizeof(*ev));
	for (i = 0; i < n; i++) {
		ev[i].time_ns = t0 + i;
		ev[i].tid = 100 + (uint32_t)(i % 3);
		ev[i].seq = (uint32_t)i;
		ev[i].type = MKM_EV_MARK;
		ev[i].arg0 = (uint32_t)i;
	}
}

static const struct trace_info info = {
	.nr_cpus = 4,
	.classes = MKM_CLASS_ALL,
	.flags = MKM_CONFIG_INHERIT,
	.ring_bytes = 65536,
	.start_mono_ns = 123,
	.start_real_ns = 456,
	.hostname = "host",
	.kernel = "6.1.0-test",
	.machine = "x86_64",
	.clock_res_ps = 16000, /* arm64's timer at 62.5 MHz */
};

/* INFO, EVENTS 2048, EVENTS 952, HORIZON, THREADS, STATS, CALIB, END. */
static void write_full(struct file *f)
{
	static struct mkm_event ev[3000];
	struct trace_thread th[2] = { { 100, 1, "main" },
				      { 101, 2, "0123456789abcdef" } };
	struct mkm_cpu_stats st[4] = {
		{ .produced = 10, .lost = 1, .read = 9 }
	};
	struct trace_calibration cal = { .cpu = 1 };
	struct trace_calibration_hdr calh = { .rounds = 10,
					      .kernel = "6.1.0-test" };
	struct trace_writer *w;

	tmp_path(f);
	fill(ev, 3000, 1000);
	assert_int_equal(trace_writer_open(&w, f->path, &info), 0);
	assert_int_equal(trace_writer_events(w, ev, 1000), 0);
	assert_int_equal(trace_writer_events(w, ev + 1000, 2000), 0);
	assert_int_equal(trace_writer_horizon(w, 500), 0);
	assert_int_equal(trace_writer_threads(w, th, 2), 0);
	assert_int_equal(trace_writer_stats(w, st, 4), 0);
	cal.cost[MON_COST_SWITCH].mean_ps = 300000;
	assert_int_equal(trace_writer_calibration(w, &calh, &cal, 1), 0);
	assert_int_equal(trace_writer_close(w), 0);
	slurp(f);
}

/* PROCESSES (1.3): the threads' processes, as written; a length that is
 * not a whole number of entries is corruption. */
static void test_trace_processes_roundtrip(void **state)
{
	const struct trace_process p[3] = { { 700, 700 },
					    { 701, 700 },
					    { 4000000, 7 } };
	struct trace_reader *r;
	struct trace_writer *w;
	struct trace_chunk c;
	struct file f;

	(void)state;
	tmp_path(&f);
	assert_int_equal(trace_writer_open(&w, f.path, &info), 0);
	assert_int_equal(trace_writer_processes(w, p, 3), 0);
	assert_int_equal(trace_writer_processes(w, NULL, 1), -EINVAL);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(trace_reader_open(&r, f.path), 0);
	assert_int_equal(trace_reader_next(r, &c), 1);
	assert_int_equal(c.type, TRACE_CHUNK_PROCESSES);
	assert_int_equal(c.nr_processes, 3);
	assert_memory_equal(c.processes, p, sizeof(p));
	assert_int_equal(trace_reader_next(r, &c), 1);
	assert_int_equal(c.type, TRACE_CHUNK_END);
	trace_reader_close(r);
	unlink(f.path);
}

static void test_trace_writer_roundtrip(void **state)
{
	static const uint32_t types[] = {
		TRACE_CHUNK_EVENTS,  TRACE_CHUNK_EVENTS,
		TRACE_CHUNK_HORIZON, TRACE_CHUNK_THREADS,
		TRACE_CHUNK_STATS,   TRACE_CHUNK_CALIBRATION,
		TRACE_CHUNK_END,
	};
	const struct trace_info *in;
	struct trace_reader *r;
	struct trace_chunk c;
	struct file f;
	size_t i, events = 0;

	(void)state;
	write_full(&f);
	assert_int_equal(trace_reader_open(&r, f.path), 0);
	in = trace_reader_info(r);
	assert_int_equal(in->clock, 1); /* CLOCK_MONOTONIC */
	assert_int_equal(in->abi_major, MKM_ABI_MAJOR);
	assert_int_equal(in->event_size, 32);
	assert_int_equal(in->nr_cpus, 4);
	assert_int_equal(in->classes, MKM_CLASS_ALL);
	assert_int_equal(in->flags, MKM_CONFIG_INHERIT);
	assert_int_equal(in->ring_bytes, 65536);
	assert_int_equal(in->start_mono_ns, 123);
	assert_int_equal(in->start_real_ns, 456);
	assert_string_equal(in->hostname, "host");
	assert_string_equal(in->kernel, "6.1.0-test");
	assert_string_equal(in->machine, "x86_64");
	assert_int_equal(in->clock_res_ps, 16000);
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		assert_int_equal(trace_reader_next(r, &c), 1);
		assert_int_equal(c.type, types[i]);
		assert_int_equal(c.index, i + 1);
		if (c.type == TRACE_CHUNK_EVENTS) {
			size_t k;

			for (k = 0; k < c.nr_events; k++)
				assert_int_equal(c.events[k].arg0, events + k);
			events += c.nr_events;
		}
	}
	assert_int_equal(events, 3000);
	assert_int_equal(trace_reader_next(r, &c), 0);
	assert_int_equal(trace_reader_next(r, &c), 0);
	assert_string_equal(trace_reader_error(r, NULL), "");
	trace_reader_close(r);

	/* The decoded payloads of the small chunks. */
	assert_int_equal(trace_reader_open_mem(&r, f.data, f.len), 0);
	for (;;) {
		assert_int_equal(trace_reader_next(r, &c), 1);
		if (c.type == TRACE_CHUNK_HORIZON)
			assert_int_equal(c.horizon_ns, 500);
		if (c.type == TRACE_CHUNK_THREADS) {
			assert_int_equal(c.nr_threads, 2);
			assert_int_equal(c.threads[1].tid, 101);
			assert_memory_equal(c.threads[1].name,
					    "0123456789abcdef", 16);
		}
		if (c.type == TRACE_CHUNK_STATS) {
			assert_int_equal(c.nr_stats, 4);
			assert_int_equal(c.stats[0].lost, 1);
		}
		if (c.type == TRACE_CHUNK_CALIBRATION) {
			assert_int_equal(c.nr_calibration, 1);
			assert_int_equal(c.calibration_hdr->version, 1);
			assert_int_equal(c.calibration_hdr->nr_cpus, 1);
			assert_int_equal(c.calibration_hdr->rounds, 10);
			assert_string_equal(c.calibration_hdr->kernel,
					    "6.1.0-test");
			assert_int_equal(c.calibration[0].cpu, 1);
			assert_int_equal(
				c.calibration[0].cost[MON_COST_SWITCH].mean_ps,
				300000);
			break;
		}
	}
	trace_reader_close(r);
	drop(&f);
}

/* Offsets of the chunks of a valid file, and records before each. */
static size_t chunk_offsets(const struct file *f, uint64_t *off,
			    uint64_t *events_before, size_t max)
{
	struct trace_reader *r;
	struct trace_chunk c;
	uint64_t ev = 0;
	size_t n = 0;

	assert_int_equal(trace_reader_open_mem(&r, f->data, f->len), 0);
	while (trace_reader_next(r, &c) == 1) {
		assert_true(n < max);
		off[n] = c.offset;
		events_before[n++] = ev;
		ev += c.nr_events;
	}
	off[n] = f->len;
	events_before[n] = ev;
	trace_reader_close(r);
	return n;
}

/*
 * SWITCH records are stored as given (32 bytes a switch, not 64), in a
 * file of major 2 that older readers refuse; one without them stays major
 * 1. Both replay to the timeline of the two-record form.
 */
static void test_trace_switch_records_major_2(void **state)
{
	static struct evs one, two;
	struct trace_info fi = info;
	struct tl_config cfg = { .nr_cpus = 2 };
	struct mon_source *src;
	struct trace_writer *w;
	struct tl *a, *b;
	struct file f, g;

	(void)state;
	evs_switch_run(&one, true);
	evs_switch_run(&two, false);
	fi.flags |= MKM_CONFIG_ONE_SWITCH;
	tmp_path(&f);
	assert_int_equal(trace_writer_open(&w, f.path, &fi), 0);
	assert_int_equal(trace_writer_events(w, one.ev, one.n), 0);
	assert_int_equal(trace_writer_close(w), 0);
	slurp(&f);
	assert_int_equal(f.data[8] | f.data[9] << 8, TRACE_MAJOR_SWITCH);
	assert_int_equal(f.data[10] | f.data[11] << 8, TRACE_MINOR);
	tmp_path(&g);
	assert_int_equal(trace_writer_open(&w, g.path, &info), 0);
	assert_int_equal(trace_writer_events(w, two.ev, two.n), 0);
	assert_int_equal(trace_writer_close(w), 0);
	slurp(&g);
	assert_int_equal(g.data[8] | g.data[9] << 8, TRACE_MAJOR);
	/* The same chunks but for the records: 32 bytes per record kept. */
	assert_int_equal(g.len - f.len, (two.n - one.n) * 32);

	assert_int_equal(tl_create(&a, &cfg), 0);
	assert_int_equal(mon_source_file(&src, f.path), 0);
	assert_int_equal(mon_source_info(src)->flags & MKM_CONFIG_ONE_SWITCH,
			 MKM_CONFIG_ONE_SWITCH);
	assert_int_equal(replay(src, a), 0);
	assert_int_equal(tl_create(&b, &cfg), 0);
	assert_int_equal(mon_source_file(&src, g.path), 0);
	assert_int_equal(replay(src, b), 0);
	expect_same_timelines(a, b);
	tl_destroy(a);
	tl_destroy(b);
	drop(&f);
	drop(&g);
}

static void test_trace_reader_every_truncation(void **state)
{
	uint64_t off[16], before[16];
	struct file f;
	size_t len, n;

	(void)state;
	write_full(&f);
	n = chunk_offsets(&f, off, before, 15);
	assert_int_equal(n, 7);
	for (len = 0; len < f.len; len++) {
		struct trace_reader *r;
		struct trace_chunk c;
		uint64_t events = 0, at, expect_off;
		size_t k;
		int err;

		err = trace_reader_open_mem(&r, f.data, len);
		if (len < off[0]) {
			/* The header or the INFO chunk is cut. */
			assert_true(err == -ENODATA || err == -EINVAL);
			trace_reader_close(r);
			continue;
		}
		assert_int_equal(err, 0);
		while ((err = trace_reader_next(r, &c)) == 1)
			events += c.nr_events;
		assert_int_equal(err, -ENODATA);
		/* It stops at the first chunk not wholly in the file. */
		for (k = 0; k < n && off[k + 1] <= len; k++)
			;
		expect_off = off[k];
		trace_reader_error(r, &at);
		assert_int_equal(at, expect_off);
		assert_int_equal(events, before[k]);
		assert_non_null(strstr(trace_reader_error(r, NULL), "offset"));
		assert_int_equal(trace_reader_next(r, &c), -ENODATA);
		trace_reader_close(r);
	}
	drop(&f);
}

/* Reads @f to its end: the records, and what the last call returned. */
static int read_all(const struct file *f, struct trace_reader **rp,
		    uint64_t *events, uint32_t *types)
{
	struct trace_chunk c;
	int err;

	*events = 0;
	*types = 0;
	assert_int_equal(trace_reader_open_mem(rp, f->data, f->len), 0);
	while ((err = trace_reader_next(*rp, &c)) == 1) {
		*events += c.nr_events;
		*types |= 1u << c.type;
	}
	return err;
}

/* Says what was skipped, from where to where. */
static void says_skipped(struct trace_reader *r, uint64_t from, uint64_t to,
			 const char *why)
{
	const char *msg = trace_reader_error(r, NULL);
	char want[128];
	uint64_t at;

	trace_reader_error(r, &at);
	assert_int_equal(at, from);
	snprintf(want, sizeof(want), "offset %llu: ", (unsigned long long)from);
	assert_non_null(strstr(msg, want));
	assert_non_null(strstr(msg, why));
	snprintf(
		want, sizeof(want),
		"skipped %llu bytes (1 chunk) to the next good chunk, at offset %llu",
		(unsigned long long)(to - from), (unsigned long long)to);
	if (!strstr(msg, want))
		fail_msg("\"%s\" does not say \"%s\"", msg, want);
}

/*
 * Four flipped bytes in the first EVENTS chunk: the reader says where and
 * what it skipped, and reads on from the next good chunk to END (issue
 * 28: such a trace lost half its records).
 */
static void test_trace_reader_resyncs_after_corrupt_payload(void **state)
{
	uint64_t off[16], before[16], events;
	struct trace_reader *r;
	struct trace_chunk c;
	uint32_t types;
	struct file f;

	(void)state;
	write_full(&f);
	chunk_offsets(&f, off, before, 15);
	memset(f.data + off[0] + 16 + 100, 0xa5, 4);
	assert_int_equal(read_all(&f, &r, &events, &types), 0);
	assert_int_equal(events, 952);
	assert_true(types & (1u << TRACE_CHUNK_END));
	assert_true(types & (1u << TRACE_CHUNK_CALIBRATION));
	says_skipped(r, off[0], off[1], "checksum");
	assert_int_equal(trace_reader_next(r, &c), 0);
	trace_reader_close(r);
	drop(&f);
}

/* A length that lies: the next chunk is found by its checksum. */
static void test_trace_reader_resyncs_after_corrupt_length(void **state)
{
	uint64_t off[16], before[16], events;
	struct trace_reader *r;
	uint32_t types;
	struct file f;

	(void)state;
	write_full(&f);
	chunk_offsets(&f, off, before, 15);
	f.data[off[2] + 4] ^= 0x01; /* HORIZON's length: 8 -> 9 */
	assert_int_equal(read_all(&f, &r, &events, &types), 0);
	assert_int_equal(events, 3000);
	assert_false(types & (1u << TRACE_CHUNK_HORIZON));
	assert_true(types & (1u << TRACE_CHUNK_THREADS));
	says_skipped(r, off[2], off[3], "checksum");
	trace_reader_close(r);
	drop(&f);

	write_full(&f);
	f.data[off[1] + 7] = 0xff; /* the second EVENTS: 4 GiB long */
	assert_int_equal(read_all(&f, &r, &events, &types), 0);
	assert_int_equal(events, 2048);
	says_skipped(r, off[1], off[2], "impossible length");
	trace_reader_close(r);
	drop(&f);
}

/* Damage with no good chunk after it stops there, as a cut does. */
static void test_trace_reader_corrupt_last_chunk_stops(void **state)
{
	uint64_t off[16], before[16], events, at;
	struct trace_reader *r;
	uint32_t types;
	struct file f;

	(void)state;
	write_full(&f);
	chunk_offsets(&f, off, before, 15);
	f.data[off[6] + 16] ^= 0x40; /* inside END */
	assert_int_equal(read_all(&f, &r, &events, &types), -EBADMSG);
	assert_int_equal(events, 3000);
	trace_reader_error(r, &at);
	assert_int_equal(at, off[6]);
	assert_non_null(strstr(trace_reader_error(r, NULL), "checksum"));
	assert_non_null(strstr(trace_reader_error(r, NULL), "are valid"));
	trace_reader_close(r);
	drop(&f);
}

static void test_trace_reader_bad_header(void **state)
{
	struct trace_reader *r;
	struct file f;
	uint32_t crc;

	(void)state;
	write_full(&f);
	f.data[0] = 'X';
	assert_int_equal(trace_reader_open_mem(&r, f.data, f.len), -EINVAL);
	assert_non_null(strstr(trace_reader_error(r, NULL), "magic"));
	trace_reader_close(r);
	f.data[0] = 'M';
	f.data[8] = TRACE_MAJOR_SWITCH + 1; /* a newer major, checksum fixed */
	crc = mon_crc32c(0, f.data, 28);
	memcpy(f.data + 28, &crc, 4);
	assert_int_equal(trace_reader_open_mem(&r, f.data, f.len), -EPROTO);
	trace_reader_close(r);
	f.data[8] = TRACE_MAJOR;
	crc = mon_crc32c(0, f.data, 28);
	memcpy(f.data + 28, &crc, 4);
	assert_int_equal(trace_reader_open_mem(&r, f.data, f.len), 0);
	trace_reader_close(r);
	f.data[12] ^= 1; /* header size, checksum not fixed */
	assert_int_equal(trace_reader_open_mem(&r, f.data, f.len), -EBADMSG);
	trace_reader_close(r);
	assert_int_equal(trace_reader_open(&r, "/nonexistent/x.mkm"), -ENOENT);
	assert_null(r);
	drop(&f);
}

static void test_trace_reader_unknown_abi(void **state)
{
	struct trace_info newer = info;
	struct trace_reader *r;
	struct trace_writer *w;
	struct file f;

	(void)state;
	tmp_path(&f);
	newer.abi_major = MKM_ABI_MAJOR + 1;
	assert_int_equal(trace_writer_open(&w, f.path, &newer), 0);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(trace_reader_open(&r, f.path), -EPROTO);
	assert_non_null(strstr(trace_reader_error(r, NULL), "ABI"));
	trace_reader_close(r);

	/* ABI 1's records are ABI 2's: still read. */
	newer.abi_major = 1;
	assert_int_equal(trace_writer_open(&w, f.path, &newer), 0);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(trace_reader_open(&r, f.path), 0);
	trace_reader_close(r);
	unlink(f.path);
}

/* A recorder that crashed after flushing: no END chunk. */
static void test_trace_reader_crash_loses_only_unflushed(void **state)
{
	static struct mkm_event ev[100];
	struct trace_reader *r;
	struct trace_writer *w;
	struct trace_chunk c;
	struct file f, copy;
	uint64_t events = 0;
	int err;

	(void)state;
	tmp_path(&f);
	fill(ev, 100, 0);
	assert_int_equal(trace_writer_open(&w, f.path, &info), 0);
	assert_int_equal(trace_writer_events(w, ev, 60), 0);
	assert_int_equal(trace_writer_flush(w, 1), 0);
	assert_int_equal(trace_writer_events(w, ev + 60, 40), 0);
	slurp(&f); /* the file as a crash now would leave it */
	copy = f;
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(trace_reader_open_mem(&r, copy.data, copy.len), 0);
	while ((err = trace_reader_next(r, &c)) == 1)
		events += c.nr_events;
	assert_int_equal(err, -ENODATA);
	assert_int_equal(events, 60);
	assert_non_null(strstr(trace_reader_error(r, NULL), "END"));
	trace_reader_close(r);
	drop(&f);
}

static void test_trace_replay_matches_direct(void **state)
{
	struct tl_config cfg = { .nr_cpus = 2 };
	struct mon_source *src;
	struct trace_writer *w;
	struct tl *direct, *replayed;
	struct evs s = { 0 };
	struct file f;
	size_t i, th;

	(void)state;
	ATTACH(&s, 100, 1, 200, MKM_TS_RUNNING, 1);
	WAKEUP(&s, 300, 1, 100, 0);
	OUT(&s, 350, 1, 200, MKM_TS_INTERRUPTIBLE, 0);
	ATTACH(&s, 100, 0, 100, MKM_TS_RUNNING, 0);
	OUT(&s, 200, 0, 100, MKM_TS_INTERRUPTIBLE, 0);
	IN(&s, 400, 0, 100, 0);
	tmp_path(&f);
	assert_int_equal(trace_writer_open(&w, f.path, &info), 0);
	for (i = 0; i < s.n; i++) {
		assert_int_equal(trace_writer_events(w, &s.ev[i], 1), 0);
		assert_int_equal(trace_writer_horizon(w, 50 * i), 0);
		assert_int_equal(trace_writer_flush(w, 0), 0);
	}
	assert_int_equal(trace_writer_close(w), 0);
	direct = build(&s, 0, 2);
	assert_int_equal(tl_create(&replayed, &cfg), 0);
	assert_int_equal(mon_source_file(&src, f.path), 0);
	assert_int_equal(replay(src, replayed), 0);
	assert_int_equal(tl_nr_threads(replayed), tl_nr_threads(direct));
	for (th = 0; th < tl_nr_threads(direct); th++) {
		struct tl_thread a, b;
		struct tl_interval x, y;

		tl_thread(direct, th, &a);
		tl_thread(replayed, th, &b);
		assert_int_equal(a.nr_intervals, b.nr_intervals);
		for (i = 0; i < a.nr_intervals; i++) {
			tl_interval(direct, th, i, &x);
			tl_interval(replayed, th, i, &y);
			assert_memory_equal(&x, &y, sizeof(x));
		}
	}
	tl_destroy(direct);
	tl_destroy(replayed);
	unlink(f.path);
}

static void test_trace_replay_keeps_valid_prefix(void **state)
{
	uint64_t off[16], before[16];
	struct mon_source *src;
	struct tl_stats st;
	struct file f;
	struct tl *tl;

	(void)state;
	write_full(&f);
	chunk_offsets(&f, off, before, 15);
	assert_int_equal(tl_create(&tl, NULL), 0);
	/* Cut inside the second EVENTS chunk. */
	assert_int_equal(mon_source_mem(&src, f.data, off[2] - 5), 0);
	assert_int_equal(replay(src, tl), -ENODATA);
	assert_int_equal(tl_nr_marks(tl), 2048);
	assert_int_equal(tl_stats(tl, &st), 0);
	assert_int_equal(st.pending, 0);
	tl_destroy(tl);
	drop(&f);
}

/*
 * Batches go out from the caller's memory: a small one is buffered, the
 * next large one completes its chunk and the rest of it goes out in
 * chunks of its own, up to WRITER_BATCH records each (the
 * writer does not copy the tail of every batch); the records come
 * back in order, each once.
 */
static void test_trace_writer_batches_in_place(void **state)
{
	static struct mkm_event ev[7000];
	size_t want[] = { 2048, 2048, 1904, 1000 }, nr = 0, seen = 0;
	struct trace_reader *r;
	struct trace_writer *w;
	struct trace_chunk c;
	struct file f = { 0 }; /* drop() frees its data: none here */

	(void)state;
	tmp_path(&f);
	fill(ev, 7000, 1000);
	assert_int_equal(trace_writer_open(&w, f.path, &info), 0);
	assert_int_equal(trace_writer_events(w, ev, 1000), 0);
	assert_int_equal(trace_writer_events(w, ev + 1000, 5000), 0);
	assert_int_equal(trace_writer_events(w, ev + 6000, 1000), 0);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(trace_reader_open(&r, f.path), 0);
	while (trace_reader_next(r, &c) == 1) {
		if (c.type != TRACE_CHUNK_EVENTS)
			continue;
		/* The last 1000 were buffered, written at the close. */
		assert_true(nr < 4);
		assert_int_equal(c.nr_events, want[nr]);
		for (size_t i = 0; i < c.nr_events; i++)
			assert_int_equal(c.events[i].arg0, seen + i);
		seen += c.nr_events;
		nr++;
	}
	assert_int_equal(nr, 4);
	assert_int_equal(seen, 7000);
	trace_reader_close(r);
	drop(&f);
}

static void test_trace_writer_errors(void **state)
{
	struct trace_writer *w;
	struct mkm_cpu_stats st;

	(void)state;
	assert_int_equal(trace_writer_open(&w, "/nonexistent/dir/x.mkm", &info),
			 -ENOENT);
	assert_null(w);
	assert_int_equal(trace_writer_open(&w, "/tmp/x.mkm", NULL), -EINVAL);
	assert_int_equal(trace_writer_events(NULL, NULL, 0), -EINVAL);
	assert_int_equal(trace_writer_stats(NULL, &st, 1), -EINVAL);
	assert_int_equal(trace_writer_close(NULL), 0);
}

/* A hand-made file: chunks and INFO items of a newer minor are skipped. */
static size_t put_chunk(uint8_t *b, uint32_t type, uint32_t index,
			const void *payload, uint32_t len)
{
	uint32_t crc;

	memcpy(b, &type, 4);
	memcpy(b + 4, &len, 4);
	memcpy(b + 8, &index, 4);
	crc = mon_crc32c(mon_crc32c(0, b, 12), payload, len);
	memcpy(b + 12, &crc, 4);
	memcpy(b + 16, payload, len);
	return 16 + len;
}

static void test_trace_reader_skips_newer_minor(void **state)
{
	static uint8_t f[512];
	uint8_t items[64], other[5] = "hello";
	uint32_t abi[3] = { MKM_ABI_MAJOR, 99, 32 }, crc;
	uint64_t end[2] = { 0, 2 };
	uint16_t minor = TRACE_MINOR + 7, tag, len;
	struct trace_reader *r;
	struct trace_chunk c;
	size_t n = 0, i = 0;

	(void)state;
	memcpy(f, "MKMTRACE", 8);
	f[8] = TRACE_MAJOR;
	memcpy(f + 10, &minor, 2);
	f[12] = 32;
	crc = mon_crc32c(0, f, 28);
	memcpy(f + 28, &crc, 4);
	n = 32;
	tag = 2; /* ABI */
	len = 12;
	memcpy(items + i, &tag, 2);
	memcpy(items + i + 2, &len, 2);
	memcpy(items + i + 4, abi, 12);
	i += 16;
	tag = 300; /* unknown */
	len = 5;
	memcpy(items + i, &tag, 2);
	memcpy(items + i + 2, &len, 2);
	memcpy(items + i + 4, other, 5);
	i += 9;
	n += put_chunk(f + n, TRACE_CHUNK_INFO, 0, items, (uint32_t)i);
	n += put_chunk(f + n, 99, 1, other, 5);
	n += put_chunk(f + n, TRACE_CHUNK_END, 2, end, 16);
	assert_int_equal(trace_reader_open_mem(&r, f, n), 0);
	assert_int_equal(trace_reader_info(r)->abi_minor, 99);
	assert_int_equal(trace_reader_next(r, &c), 1);
	assert_int_equal(c.type, 99);
	assert_int_equal(trace_reader_next(r, &c), 1);
	assert_int_equal(c.type, TRACE_CHUNK_END);
	assert_int_equal(trace_reader_next(r, &c), 0);
	trace_reader_close(r);
	/* The same without the ABI item is not a trace we can read. */
	n = 32;
	n += put_chunk(f + n, TRACE_CHUNK_INFO, 0, items + 16, 9);
	assert_int_equal(trace_reader_open_mem(&r, f, n), -EBADMSG);
	assert_non_null(strstr(trace_reader_error(r, NULL), "ABI"));
	trace_reader_close(r);
}

/* A valid INFO payload: the ABI item alone. */
static size_t abi_item(uint8_t *b)
{
	uint32_t abi[3] = { MKM_ABI_MAJOR, MKM_ABI_MINOR, 32 };
	uint16_t tag = 2, len = 12;

	memcpy(b, &tag, 2);
	memcpy(b + 2, &len, 2);
	memcpy(b + 4, abi, 12);
	return 16;
}

static size_t file_header(uint8_t *f)
{
	uint16_t major = TRACE_MAJOR;
	uint32_t crc, hsize = 32;

	memset(f, 0, 32);
	memcpy(f, "MKMTRACE", 8);
	memcpy(f + 8, &major, 2);
	memcpy(f + 12, &hsize, 4);
	crc = mon_crc32c(0, f, 28);
	memcpy(f + 28, &crc, 4);
	return 32;
}

static void test_trace_reader_malformed_payloads(void **state)
{
	static const struct {
		const char *what;
		uint32_t type;
		uint8_t payload[40];
		uint32_t len;
		bool in_info; /* appended to INFO instead of its own chunk */
		const char *says;
	} cases[] = {
		{ "events not whole",
		  TRACE_CHUNK_EVENTS,
		  { 0 },
		  33,
		  false,
		  "bad length" },
		{ "horizon size",
		  TRACE_CHUNK_HORIZON,
		  { 0 },
		  4,
		  false,
		  "bad length" },
		{ "threads not whole",
		  TRACE_CHUNK_THREADS,
		  { 0 },
		  23,
		  false,
		  "bad length" },
		{ "stats short",
		  TRACE_CHUNK_STATS,
		  { 0 },
		  4,
		  false,
		  "bad length" },
		{ "stats count",
		  TRACE_CHUNK_STATS,
		  { 2 },
		  8 + 32,
		  false,
		  "bad length" },
		{ "calibration",
		  TRACE_CHUNK_CALIBRATION,
		  { 0 },
		  25,
		  false,
		  "bad length" },
		{ "end size", TRACE_CHUNK_END, { 0 }, 8, false, "bad length" },
		{ "end counts", TRACE_CHUNK_END, { 5 }, 16, false, "END counts" },
		{ "second info",
		  TRACE_CHUNK_INFO,
		  { 0 },
		  0,
		  false,
		  "second INFO" },
		{ "item cut", 0, { 1, 0 }, 2, true, "cut short" },
		{ "item overrun", 0, { 1, 0, 9, 0 }, 4, true, "overruns" },
		{ "clock size", 0, { 1, 0, 2, 0, 1, 0 }, 6, true, "has size" },
		{ "ring size",
		  0,
		  { 6, 0, 4, 0, 1, 0, 0, 0 },
		  8,
		  true,
		  "has size" },
		{ "abi size",
		  0,
		  { 2, 0, 4, 0, 1, 0, 0, 0 },
		  8,
		  true,
		  "has size" },
		{ "cpus", 0, { 3, 0, 4, 0, 0, 0, 2, 0 }, 8, true, "CPUs" },
		{ "clock step size",
		  0,
		  { 16, 0, 2, 0, 0x80, 0x3e },
		  6,
		  true,
		  "has size" },
	};
	static uint8_t f[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct trace_reader *r;
		struct trace_chunk c;
		uint8_t items[96];
		size_t n = file_header(f), k = abi_item(items);
		int err;

		if (cases[i].in_info) {
			memcpy(items + k, cases[i].payload, cases[i].len);
			k += cases[i].len;
		}
		n += put_chunk(f + n, TRACE_CHUNK_INFO, 0, items, (uint32_t)k);
		if (!cases[i].in_info)
			n += put_chunk(f + n, cases[i].type, 1,
				       cases[i].payload, cases[i].len);
		err = trace_reader_open_mem(&r, f, n);
		if (!err) {
			err = trace_reader_next(r, &c);
			assert_int_equal(c.offset, 32 + 16 + k);
		}
		if (err != -EBADMSG ||
		    !strstr(trace_reader_error(r, NULL), cases[i].says))
			fail_msg("%s: %d %s", cases[i].what, err,
				 trace_reader_error(r, NULL));
		trace_reader_close(r);
	}
}

/* A node's trace: its name and job in INFO, clock exchanges in CLOCK_SYNC
 * chunks (two, added up by readers), as the recorder writes them. */
static void test_trace_node_info_and_clock_sync_roundtrip(void **state)
{
	struct trace_info in = info;
	struct trace_clock_sync_hdr h = { .node = "n2",
					  .reference = "n0",
					  .clock = 1 };
	struct trace_clock_sample s[3] = {
		{ .local_ns = 1000,
		  .offset_ns = -5000000000LL,
		  .rtt_ns = 4000,
		  .error_ns = 2000,
		  .kind = TRACE_CLOCK_START,
		  .rounds = 16,
		  .flags = TRACE_CLOCK_NTP_KNOWN | TRACE_CLOCK_NTP_SYNCED,
		  .ntp_status = 0x2001,
		  .ntp_freq = -123456,
		  .ntp_maxerror_us = 16000,
		  .ntp_esterror_us = 12 },
		{ .local_ns = 9000,
		  .offset_ns = -4999999990LL,
		  .rtt_ns = 3000,
		  .error_ns = 1500,
		  .kind = TRACE_CLOCK_PERIODIC },
		{ .local_ns = 20000,
		  .offset_ns = -4999999980LL,
		  .rtt_ns = 3000,
		  .error_ns = 1500,
		  .kind = TRACE_CLOCK_END,
		  .flags = TRACE_CLOCK_STEPPED },
	};
	struct mkm_event ev[4];
	struct trace_reader *r;
	struct trace_chunk c;
	struct trace_writer *w;
	size_t got = 0, chunks = 0;
	struct file f = { .data = NULL };

	(void)state;
	strcpy(in.node, "n2");
	in.job_id = 4242;
	in.step_id = 7;
	in.node_id = 2;
	in.nr_nodes = 3;
	tmp_path(&f);
	fill(ev, 4, 1000);
	assert_int_equal(trace_writer_open(&w, f.path, &in), 0);
	assert_int_equal(trace_writer_clock_sync(w, &h, s, 1), 0);
	assert_int_equal(trace_writer_events(w, ev, 4), 0);
	assert_int_equal(trace_writer_clock_sync(w, &h, s + 1, 2), 0);
	assert_int_equal(trace_writer_close(w), 0);

	assert_int_equal(trace_reader_open(&r, f.path), 0);
	assert_string_equal(trace_reader_info(r)->node, "n2");
	assert_int_equal(trace_reader_info(r)->job_id, 4242);
	assert_int_equal(trace_reader_info(r)->step_id, 7);
	assert_int_equal(trace_reader_info(r)->node_id, 2);
	assert_int_equal(trace_reader_info(r)->nr_nodes, 3);
	while (trace_reader_next(r, &c) == 1) {
		if (c.type != TRACE_CHUNK_CLOCK_SYNC)
			continue;
		chunks++;
		assert_non_null(c.clock_sync_hdr);
		assert_int_equal(c.clock_sync_hdr->version, 1);
		assert_string_equal(c.clock_sync_hdr->node, "n2");
		assert_string_equal(c.clock_sync_hdr->reference, "n0");
		assert_int_equal(c.clock_sync_hdr->nr_samples,
				 c.nr_clock_samples);
		assert_memory_equal(c.clock_samples, s + got,
				    c.nr_clock_samples * sizeof(*s));
		got += c.nr_clock_samples;
	}
	assert_string_equal(trace_reader_error(r, NULL), "");
	assert_int_equal(chunks, 2);
	assert_int_equal(got, 3);
	trace_reader_close(r);
	drop(&f);
}

/* A trace without a node (format 1.1, or a one-machine recording) reads
 * with an empty node name; one with a node is one trace to the pipeline,
 * which carries its CLOCK_SYNC chunks as messages, and a trace sink
 * writes them again (mkm replay of a node's trace keeps its clock). */
static void test_trace_node_fields_absent_and_skipped(void **state)
{
	struct trace_info in = info;
	struct trace_clock_sync_hdr h = { .node = "n1", .reference = "n0" };
	struct trace_clock_sample s = { .kind = TRACE_CLOCK_START };
	struct mon_source *src;
	struct mkm_event ev[8];
	struct trace_writer *w;
	struct trace_reader *r;
	struct mon_pipeline *p;
	struct trace_chunk c;
	struct mon_sink *sink;
	struct mon_msg m;
	size_t events = 0, syncs = 0;
	struct file f = { .data = NULL }, g = { .data = NULL };
	int ret;

	(void)state;
	tmp_path(&f);
	assert_int_equal(trace_writer_open(&w, f.path, &info), 0);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(trace_reader_open(&r, f.path), 0);
	assert_string_equal(trace_reader_info(r)->node, "");
	assert_int_equal(trace_reader_info(r)->nr_nodes, 0);
	trace_reader_close(r);

	strcpy(in.node, "n1");
	fill(ev, 8, 5000);
	assert_int_equal(trace_writer_open(&w, f.path, &in), 0);
	assert_int_equal(trace_writer_clock_sync(w, &h, &s, 1), 0);
	assert_int_equal(trace_writer_events(w, ev, 8), 0);
	assert_int_equal(trace_writer_clock_sync(w, &h, &s, 1), 0);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(mon_source_file(&src, f.path), 0);
	while ((ret = mon_source_next(src, &m)) == 1) {
		if (m.type == MON_MSG_EVENTS)
			events += m.nr_events;
		if (m.type == MON_MSG_CLOCK_SYNC) {
			syncs++;
			assert_string_equal(m.clock_sync_hdr->node, "n1");
			assert_int_equal(m.nr_clock_samples, 1);
		}
	}
	assert_int_equal(ret, 0);
	assert_int_equal(events, 8);
	assert_int_equal(syncs, 2);
	mon_source_destroy(src);

	/* Through a pipeline into a new trace: the exchanges are kept. */
	tmp_path(&g);
	assert_int_equal(mon_source_file(&src, f.path), 0);
	assert_int_equal(mon_pipeline_create(&p, src), 0);
	assert_int_equal(mon_sink_trace(&sink, g.path, &in), 0);
	assert_int_equal(mon_pipeline_add_sink(p, sink), 0);
	assert_int_equal(mon_pipeline_run(p), 0);
	mon_pipeline_destroy(p);
	assert_int_equal(trace_reader_open(&r, g.path), 0);
	assert_string_equal(trace_reader_info(r)->node, "n1");
	syncs = 0;
	while (trace_reader_next(r, &c) == 1)
		syncs += c.type == TRACE_CHUNK_CLOCK_SYNC;
	assert_int_equal(syncs, 2);
	trace_reader_close(r);
	drop(&f);
	drop(&g);
}

static void test_trace_nodes_roundtrip_and_checks(void **state)
{
	struct trace_nodes_hdr h = { .job_id = 99, .step_id = 1 };
	struct trace_node nd[2] = {
		{ .name = "n0",
		  .kernel = "6.1.0",
		  .index = 0,
		  .cpu_base = 0,
		  .nr_cpus = 2,
		  .flags = TRACE_NODE_REFERENCE },
		{ .name = "n1",
		  .kernel = "6.1.0",
		  .index = 1,
		  .cpu_base = 2,
		  .nr_cpus = 4,
		  .offset_ns = -77,
		  .drift_ppb = 12000,
		  .error_ns = 3000,
		  .events = 10 },
	};
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_chunk c;
	bool seen = false;
	struct file f = { .data = NULL };

	(void)state;
	tmp_path(&f);
	assert_int_equal(trace_writer_open(&w, f.path, &info), 0);
	assert_int_equal(trace_writer_nodes(w, &h, nd, 2), 0);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(trace_reader_open(&r, f.path), 0);
	while (trace_reader_next(r, &c) == 1)
		if (c.type == TRACE_CHUNK_NODES) {
			seen = true;
			assert_int_equal(c.nr_nodes, 2);
			assert_int_equal(c.nodes_hdr->tid_shift,
					 TRACE_NODE_TID_SHIFT);
			assert_int_equal(c.nodes_hdr->job_id, 99);
			assert_memory_equal(c.nodes, nd, sizeof(nd));
		}
	assert_true(seen);
	trace_reader_close(r);

	/* CPU ranges that overlap are corrupt: CPUs could not be mapped
	 * back to their node. */
	nd[1].cpu_base = 1;
	assert_int_equal(trace_writer_open(&w, f.path, &info), 0);
	assert_int_equal(trace_writer_nodes(w, &h, nd, 2), 0);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(trace_reader_open(&r, f.path), 0);
	assert_int_equal(trace_reader_next(r, &c), -EBADMSG);
	assert_non_null(strstr(trace_reader_error(r, NULL), "NODES"));
	trace_reader_close(r);
	drop(&f);

	assert_int_equal(trace_writer_nodes(NULL, &h, nd, 2), -EINVAL);
	assert_int_equal(trace_writer_clock_sync(NULL, NULL, NULL, 0), -EINVAL);
}

static void test_mon_crc32c_known_value(void **state)
{
	(void)state;
	assert_int_equal(mon_crc32c(0, "123456789", 9), 0xE3069283u);
	/* Incremental equals one shot. */
	assert_int_equal(mon_crc32c(mon_crc32c(0, "1234", 4), "56789", 5),
			 0xE3069283u);
}

/* Batches of any size come back whole and in order, whole chunks written
 * from the caller's memory (the recorder's 4096-record batches) as well as
 * buffered remainders, each chunk at most WRITER_BATCH records, and the
 * horizon after the records that came before it. */
/*
 * TRACE_WRITE_DIRECT in @dir: on a file system that gives a direct I/O
 * alignment (the build machine's ext4) the file goes out with O_DIRECT,
 * each write padded to it, batches in aligned memory written from there
 * and the others buffered; elsewhere (tmpfs) as usual. Either way every
 * record, the horizon and the threads read back in order, and END counts
 * them (the reader checks it). With @fault, the third write fails (see
 * __wrap_writev): direct I/O is off from there on and nothing is lost.
 */
static void direct_roundtrip(const char *dir, enum writev_fault fault)
{
	static const struct {
		size_t n, skew; /* records, and bytes off the page */
	} calls[] = { { 5, 0 },	   { 4096, 0 }, { 300, 0 },	 { 4099, 32 },
		      { 2048, 0 }, { 1, 0 },	{ 8192 + 7, 0 }, { 17, 64 } };
	const struct trace_thread th = { 100, 1, "main" };
	size_t i, at = 0, events = 0, pads = 0, threads = 0;
	struct mkm_event *all, *page;
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_chunk c;
	struct file f = { 0 };
	struct stat st;
	bool direct;
	int fd;

	snprintf(f.path, sizeof(f.path), "%s/test_trace.XXXXXX", dir);
	fd = mkstemp(f.path);
	if (fd < 0) {
		print_message("no %s: skipped\n", dir);
		return;
	}
	close(fd);
	all = malloc(20000 * sizeof(*all));
	page = aligned_alloc(4096, 20480 * sizeof(*page));
	assert_non_null(all);
	assert_non_null(page);
	fill(all, 20000, 1000);
	assert_int_equal(trace_writer_open_flags(&w, f.path, &info, 8),
			 -EINVAL);
	assert_int_equal(trace_writer_open_flags(&w, f.path, &info,
						 TRACE_WRITE_DIRECT),
			 0);
	direct = trace_writer_direct(w);
	if (fault && !direct) {
		print_message("%s: no direct I/O to fail: skipped\n", dir);
		assert_int_equal(trace_writer_close(w), 0);
		goto done;
	}
	if (fault) {
		struct statx sx;

		assert_int_equal(
			statx(AT_FDCWD, f.path, 0, STATX_DIOALIGN, &sx), 0);
		writev_block = sx.stx_dio_offset_align;
	}
	writev_fault = fault;
	writev_countdown = 3;
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		struct mkm_event *ev = (void *)((char *)page + calls[i].skew);

		memcpy(ev, all + at, calls[i].n * sizeof(*ev));
		assert_int_equal(trace_writer_events(w, ev, calls[i].n), 0);
		memset(ev, 0xa5, calls[i].n * sizeof(*ev)); /* not kept */
		at += calls[i].n;
		if (i == 2)
			assert_int_equal(trace_writer_horizon(w, 1000 + 5), 0);
		if (i == 4)
			assert_int_equal(trace_writer_threads(w, &th, 1), 0);
		if (i == 5)
			assert_int_equal(trace_writer_flush(w, 1), 0);
	}
	assert_int_equal(writev_fault, WRITEV_OK); /* it did fail */
	assert_int_equal(trace_writer_direct(w), direct && !fault);
	assert_int_equal(trace_writer_close(w), 0);

	assert_int_equal(stat(f.path, &st), 0);
	assert_int_equal(trace_reader_open(&r, f.path), 0);
	while (trace_reader_next(r, &c) == 1) {
		pads += c.type == TRACE_CHUNK_PAD;
		threads += c.type == TRACE_CHUNK_THREADS;
		if (c.type == TRACE_CHUNK_HORIZON)
			assert_true(events >= 5);
		if (c.type != TRACE_CHUNK_EVENTS)
			continue;
		assert_memory_equal(c.events, all + events,
				    c.nr_events * sizeof(*all));
		events += c.nr_events;
	}
	assert_string_equal(trace_reader_error(r, NULL), "");
	assert_int_equal(events, at);
	assert_int_equal(threads, 1);
	if (fault) { /* padded up to the failed write, not after */
		assert_true(pads > 0);
	} else if (direct) { /* every write ended on a block, END too */
		assert_true(pads > 0);
		assert_int_equal(st.st_size % 512, 0);
	} else {
		assert_int_equal(pads, 0);
	}
	print_message("%s: %s%s, %zu PAD chunks, %lld bytes\n", dir,
		      direct ? "O_DIRECT" : "buffered",
		      fault == WRITEV_EINVAL ? ", then EINVAL" :
		      fault == WRITEV_SHORT  ? ", then a short write" :
					       "",
		      pads, (long long)st.st_size);
	trace_reader_close(r);
done:
	free(all);
	free(page);
	drop(&f);
}

static void test_trace_writer_direct_io(void **state)
{
	(void)state;
	direct_roundtrip("/tmp", WRITEV_OK);
	direct_roundtrip("/dev/shm", WRITEV_OK);
}

/* A direct write refused after the file opened with O_DIRECT (EINVAL, or
 * short): the writer goes on through the page cache, every record kept. */
static void test_trace_writer_direct_io_refused(void **state)
{
	(void)state;
	direct_roundtrip("/tmp", WRITEV_EINVAL);
	direct_roundtrip("/tmp", WRITEV_SHORT);
}

static void test_trace_writer_batches_any_size(void **state)
{
	static const size_t sizes[] = {
		5, 2 * WRITER_BATCH + 3, WRITER_BATCH, WRITER_BATCH - 1,
		1, WRITER_BATCH + 1
	};
	static struct mkm_event ev[6 * WRITER_BATCH];
	struct trace_writer *w;
	struct trace_reader *r;
	struct trace_chunk c;
	size_t i, at = 0, events = 0, horizon_after = 0;
	struct file f = { 0 }; /* no data: drop() frees NULL */

	(void)state;
	tmp_path(&f);
	fill(ev, 6 * WRITER_BATCH, 1000);
	assert_int_equal(trace_writer_open(&w, f.path, &info), 0);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		assert_int_equal(trace_writer_events(w, ev + at, sizes[i]), 0);
		at += sizes[i];
		if (i == 1)
			assert_int_equal(trace_writer_horizon(w, 777), 0);
	}
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(trace_reader_open(&r, f.path), 0);
	while (trace_reader_next(r, &c) == 1) {
		if (c.type == TRACE_CHUNK_HORIZON) {
			assert_int_equal(c.horizon_ns, 777);
			horizon_after = events;
		}
		if (c.type != TRACE_CHUNK_EVENTS)
			continue;
		assert_true(c.nr_events > 0 && c.nr_events <= WRITER_BATCH);
		for (i = 0; i < c.nr_events; i++)
			assert_int_equal(c.events[i].time_ns,
					 1000 + events + i);
		events += c.nr_events;
	}
	assert_string_equal(trace_reader_error(r, NULL), "");
	assert_int_equal(events, at);
	/* Not before the records given before it. */
	assert_true(horizon_after >= sizes[0] + sizes[1]);
	trace_reader_close(r);
	drop(&f);
}

/* The CPU's crc32 instruction and the table agree on every length from 0
 * to 64 and every alignment, and on one chunk's worth of records. */
static void test_mon_crc32c_hard_matches_table(void **state)
{
	static uint8_t buf[65536 + 8];
	uint32_t x = 0x12345678;
	size_t i, len, off;

	(void)state;
	for (i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (off = 0; off < 8; off++)
		for (len = 0; len <= 64; len++)
			assert_int_equal(mon_crc32c(0x5a5a5a5a, buf + off, len),
					 mon_crc32c_soft(0x5a5a5a5a, buf + off,
							 len));
	assert_int_equal(mon_crc32c(0, buf + 3, 65536),
			 mon_crc32c_soft(0, buf + 3, 65536));
	assert_int_equal(mon_crc32c_soft(0, "123456789", 9), 0xE3069283u);
#if defined(__x86_64__)
	/* Every x86-64 CPU since 2008 has it; a test run without it
	 * would not exercise the fast path at all. */
	if (!mon_crc32c_hard())
		print_message("crc32c: this CPU has no SSE4.2: table only\n");
#endif
}

/* A calibration knows the clock it was measured with (INFO's CLOCK_RES,
 * 1.6), and which of its costs are finer than one step of it; a trace
 * that does not say (before 1.6) has none below. */
static void test_trace_costs_below_the_clock_step(void **state)
{
	static const struct trace_cost sound = { .mean_ps = 10000,
						 .stddev_ps = 500,
						 .ci99_ps = 900,
						 .samples = 10,
						 .flags = MON_COST_MEASURED |
							  MON_COST_JUDGED };
	struct trace_calibration_hdr calh = { .version = 1, .nr_cpus = 1 };
	struct trace_calibration cal = { .cpu = 0 };
	struct trace_info in = info;
	struct mon_calibration got;
	struct trace_writer *w;
	struct file f;
	unsigned int k;

	(void)state;
	for (k = 0; k < MON_COST_NR; k++) {
		cal.cost[k] = sound;
		cal.cost[k].mean_ps = 300000; /* 300 ns: above */
	}
	cal.cost[MON_COST_SWITCH].mean_ps = 10000; /* 10 ns: below 16 */
	cal.cost[MON_COST_MARK].mean_ps = 16000; /* one step: not below */
	cal.cost[MON_COST_OTHER].flags = 0; /* estimated: left out */
	cal.cost[MON_COST_OTHER].mean_ps = 1000;
	tmp_path(&f);
	assert_int_equal(trace_writer_open(&w, f.path, &in), 0);
	assert_int_equal(trace_writer_calibration(w, &calh, &cal, 1), 0);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(mon_calibration_load(&got, f.path), 0);
	assert_int_equal(got.clock_res_ps, 16000);
	assert_int_equal(mon_calibration_below_resolution(&got),
			 1u << MON_COST_SWITCH);
	mon_calibration_free(&got);
	unlink(f.path);

	in.clock_res_ps = 0;
	assert_int_equal(trace_writer_open(&w, f.path, &in), 0);
	assert_int_equal(trace_writer_calibration(w, &calh, &cal, 1), 0);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(mon_calibration_load(&got, f.path), 0);
	assert_int_equal(got.clock_res_ps, 0);
	assert_int_equal(mon_calibration_below_resolution(&got), 0);
	mon_calibration_free(&got);
	unlink(f.path);
	assert_int_equal(mon_calibration_below_resolution(NULL), 0);
#if defined(__x86_64__)
	assert_int_equal(mon_clock_resolution_ps(), 1000);
#elif defined(__aarch64__)
	assert_true(mon_clock_resolution_ps() >= 1000);
#endif
}

/* A merged trace's calibrations, one a node on its own CPUs, load as one,
 * a later chunk superseding an earlier one's CPU; a one-recording trace's
 * first calibration is its own, the file not read further. */
static void test_trace_calibrations_of_a_merged_trace(void **state)
{
	struct trace_calibration_hdr h0 = { .version = 1,
					    .nr_cpus = 2,
					    .kernel = "n0" },
				     h1 = { .version = 1,
					    .nr_cpus = 3,
					    .kernel = "n1" };
	struct trace_calibration n0[2] = { { .cpu = 0 }, { .cpu = 1 } },
				 n1[3] = { { .cpu = 2 },
					   { .cpu = 3 },
					   { .cpu = 1 } };
	struct trace_info in = info;
	struct mon_calibration got;
	struct trace_writer *w;
	struct file f;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++)
		n0[i].cost[MON_COST_SWITCH].mean_ps = 100000;
	for (i = 0; i < 3; i++)
		n1[i].cost[MON_COST_SWITCH].mean_ps = 300000;
	tmp_path(&f);
	in.trace_flags = TRACE_F_MERGED;
	assert_int_equal(trace_writer_open(&w, f.path, &in), 0);
	assert_int_equal(trace_writer_calibration(w, &h0, n0, 2), 0);
	assert_int_equal(trace_writer_calibration(w, &h1, n1, 3), 0);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(mon_calibration_load(&got, f.path), 0);
	assert_int_equal(got.hdr.nr_cpus, 4);
	assert_string_equal(got.hdr.kernel, "n0");
	assert_true(mon_calibration_cost(&got, 0, MON_COST_SWITCH) == 100);
	assert_true(mon_calibration_cost(&got, 1, MON_COST_SWITCH) == 300);
	assert_true(mon_calibration_cost(&got, 3, MON_COST_SWITCH) == 300);
	mon_calibration_free(&got);
	unlink(f.path);

	in.trace_flags = 0;
	assert_int_equal(trace_writer_open(&w, f.path, &in), 0);
	assert_int_equal(trace_writer_calibration(w, &h0, n0, 2), 0);
	assert_int_equal(trace_writer_calibration(w, &h1, n1, 3), 0);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(mon_calibration_load(&got, f.path), 0);
	assert_int_equal(got.hdr.nr_cpus, 2);
	assert_true(mon_calibration_cost(&got, 1, MON_COST_SWITCH) == 100);
	mon_calibration_free(&got);
	unlink(f.path);
}

/* A merged trace's recorders, more than the 8 a recording names, go in
 * their own INFO tag (older readers skip it); 8 or fewer in the old one. */
static void test_trace_monitor_tids_past_eight(void **state)
{
	struct trace_info in = info;
	struct trace_writer *w;
	struct trace_reader *r;
	struct file f;
	uint32_t i, n;

	(void)state;
	for (n = 8; n <= 12; n += 4) {
		in.nr_monitor_tids = n;
		for (i = 0; i < n; i++)
			in.monitor_tids[i] = 500 + i;
		tmp_path(&f);
		assert_int_equal(trace_writer_open(&w, f.path, &in), 0);
		assert_int_equal(trace_writer_close(w), 0);
		slurp(&f);
		assert_int_equal(trace_reader_open(&r, f.path), 0);
		assert_int_equal(trace_reader_info(r)->nr_monitor_tids, n);
		assert_int_equal(trace_reader_info(r)->monitor_tids[n - 1],
				 500 + n - 1);
		trace_reader_close(r);
		/* The tag: 13 for 8, 17 past it. */
		assert_non_null(memmem(
			f.data, f.len,
			n <= 8 ? "\x0d\x00\x20\x00" : "\x11\x00\x30\x00", 4));
		drop(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_writer_roundtrip),
		cmocka_unit_test(test_trace_processes_roundtrip),
		cmocka_unit_test(test_trace_switch_records_major_2),
		cmocka_unit_test(test_trace_reader_every_truncation),
		cmocka_unit_test(
			test_trace_reader_resyncs_after_corrupt_payload),
		cmocka_unit_test(
			test_trace_reader_resyncs_after_corrupt_length),
		cmocka_unit_test(test_trace_reader_corrupt_last_chunk_stops),
		cmocka_unit_test(test_trace_reader_bad_header),
		cmocka_unit_test(test_trace_reader_unknown_abi),
		cmocka_unit_test(test_trace_reader_crash_loses_only_unflushed),
		cmocka_unit_test(test_trace_replay_matches_direct),
		cmocka_unit_test(test_trace_replay_keeps_valid_prefix),
		cmocka_unit_test(test_trace_writer_batches_in_place),
		cmocka_unit_test(test_trace_writer_errors),
		cmocka_unit_test(test_trace_reader_skips_newer_minor),
		cmocka_unit_test(test_trace_reader_malformed_payloads),
		cmocka_unit_test(test_trace_node_info_and_clock_sync_roundtrip),
		cmocka_unit_test(test_trace_node_fields_absent_and_skipped),
		cmocka_unit_test(test_trace_nodes_roundtrip_and_checks),
		cmocka_unit_test(test_mon_crc32c_known_value),
		cmocka_unit_test(test_mon_crc32c_hard_matches_table),
		cmocka_unit_test(test_trace_writer_batches_any_size),
		cmocka_unit_test(test_trace_writer_direct_io),
		cmocka_unit_test(test_trace_writer_direct_io_refused),
		cmocka_unit_test(test_trace_costs_below_the_clock_step),
		cmocka_unit_test(test_trace_calibrations_of_a_merged_trace),
		cmocka_unit_test(test_trace_monitor_tids_past_eight),
	};

	return cmocka_run_group_tests_name("trace", tests, NULL, NULL);
}
