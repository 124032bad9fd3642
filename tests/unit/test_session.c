// SPDX-License-Identifier: GPL-2.0
/*
 * test_session.c - unit tests of libmonitor/src/session/ (mon_session.h)
 * without the module: open, ioctl, read, close and mmap of the device are
 * replaced at link time (-Wl,--wrap) by a fake /dev/mkm whose descriptor
 * is a real eventfd that never polls readable (no records), so a whole
 * recording runs: the trace it writes must carry the calibration, the
 * recorder's own threads, the processes of the threads tracked and, on a
 * node, the clock exchanges.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evstream.h"

#define FAKE_DEV "/fake/mkm"

static struct {
	int fd; /* the fake device's last opened: an eventfd */
	int fds[4]; /* those open (two sessions at a time), +1; 0: free */
	int open_err;
	int configure_err; /* while ring_bytes > configure_err_above */
	uint64_t configure_err_above;
	uint32_t refuse_classes; /* EACCES while asked for */
	struct mkm_config cfg; /* the last CONFIGURE */
	unsigned int configures, resumes, suspends;
	int thread_err;
	uint32_t tids[8];
	unsigned int nr_tids;
} fake;

static char dir[64];
static const char *fake_path = FAKE_DEV; /* the path opened as the device */

int __wrap_open(const char *path, int flags, ...);
int __wrap_ioctl(int fd, unsigned long req, ...);
ssize_t __wrap_read(int fd, void *buf, size_t n);
int __wrap_close(int fd);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off);
int __real_open(const char *path, int flags, ...);
int __real_ioctl(int fd, unsigned long req, ...);
ssize_t __real_read(int fd, void *buf, size_t n);
int __real_close(int fd);
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off);

int __wrap_open(const char *path, int flags, ...)
{
	va_list ap;
	int mode;

	va_start(ap, flags);
	mode = va_arg(ap, int);
	va_end(ap);
	if (strcmp(path, fake_path))
		return __real_open(path, flags, mode);
	if (fake.open_err) {
		errno = fake.open_err;
		return -1;
	}
	fake.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	for (int i = 0; i < 4; i++)
		if (!fake.fds[i]) {
			fake.fds[i] = fake.fd + 1;
			break;
		}
	return fake.fd;
}

static bool is_fake(int fd)
{
	for (int i = 0; fd >= 0 && i < 4; i++)
		if (fake.fds[i] == fd + 1)
			return true;
	return false;
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!is_fake(fd))
		return __real_ioctl(fd, req, arg);
	switch (req) {
	case MKM_IOC_VERSION: {
		struct mkm_version *v = arg;

		v->major = MKM_ABI_MAJOR;
		v->minor = MKM_ABI_MINOR;
		v->event_size = sizeof(struct mkm_event);
		break;
	}
	case MKM_IOC_CONFIGURE: {
		struct mkm_config *c = arg;

		fake.cfg = *c;
		fake.configures++;
		if (c->classes & fake.refuse_classes) {
			errno = EACCES;
			return -1;
		}
		if (fake.configure_err &&
		    c->ring_bytes > fake.configure_err_above) {
			errno = fake.configure_err;
			return -1;
		}
		c->total_bytes = c->ring_bytes * 2;
		break;
	}
	case MKM_IOC_RESUME:
		fake.resumes++;
		break;
	case MKM_IOC_SUSPEND:
		fake.suspends++;
		break;
	case MKM_IOC_THREAD_MONITOR:
		if (fake.thread_err) {
			errno = fake.thread_err;
			return -1;
		}
		if (fake.nr_tids < 8)
			fake.tids[fake.nr_tids++] =
				(uint32_t)((struct mkm_thread *)arg)->tid;
		break;
	case MKM_IOC_STATS: {
		struct mkm_stats *s = arg;

		s->nr_cpus = 0;
		s->deferrals = 0;
		break;
	}
	}
	return 0;
}

ssize_t __wrap_read(int fd, void *buf, size_t n)
{
	if (!is_fake(fd))
		return __real_read(fd, buf, n);
	return 0; /* no records, ever */
}

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off)
{
	if (!is_fake(fd))
		return __real_mmap(addr, len, prot, flags, fd, off);
	errno = ENODEV; /* the fake rings cannot be mapped: read() it is */
	return MAP_FAILED;
}

int __wrap_close(int fd)
{
	for (int i = 0; fd >= 0 && i < 4; i++)
		if (fake.fds[i] == fd + 1)
			fake.fds[i] = 0;
	if (fd == fake.fd)
		fake.fd = -1;
	return __real_close(fd);
}

static int setup(void **state)
{
	(void)state;
	memset(&fake, 0, sizeof(fake));
	fake.fd = -1;
	fake_path = FAKE_DEV;
	snprintf(dir, sizeof(dir), "/tmp/test_session.XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static struct mon_session_config config(void)
{
	struct mon_session_config cfg = {
		.device = FAKE_DEV,
		.monitor = { .flags = MKM_CONFIG_INHERIT },
		.calibration = MON_SESSION_CAL_NONE,
	};

	return cfg;
}

/* A flight recorder's options as the front ends take them. */
static void test_session_trigger_parse_and_flight_size(void **state)
{
	struct mon_session_config cfg = { 0 };

	(void)state;
	assert_int_equal(mon_session_trigger_parse(&cfg, "runq>1.5ms,exit"), 0);
	assert_int_equal(cfg.monitor.trigger_runq_ns, 1500000);
	assert_int_equal(cfg.flight.flags, MON_FLIGHT_AT_END);
	assert_int_equal(mon_session_trigger_parse(&cfg, "irq=200us"), 0);
	assert_int_equal(cfg.monitor.trigger_irq_ns, 200000);
	assert_int_equal(cfg.monitor.trigger_runq_ns, 1500000);
	/* Refused whole: nothing of a bad list is taken. */
	assert_int_equal(mon_session_trigger_parse(&cfg, "runq>2ms,foo>1ms"),
			 -EINVAL);
	assert_int_equal(cfg.monitor.trigger_runq_ns, 1500000);
	assert_int_equal(mon_session_trigger_parse(&cfg, "runq>5"), -EINVAL);
	assert_int_equal(mon_session_trigger_parse(&cfg, "runq>0ms"), -EINVAL);
	assert_int_equal(mon_session_trigger_parse(&cfg, "run>1ms"), -EINVAL);
	assert_int_equal(mon_session_trigger_parse(&cfg, "runq>1ms,"), -EINVAL);
	assert_int_equal(mon_session_trigger_parse(&cfg, ""), -EINVAL);
	assert_int_equal(mon_session_trigger_parse(NULL, "exit"), -EINVAL);

	assert_int_equal(mon_session_flight_size(&cfg, 1024), -EINVAL);
	assert_int_equal(mon_session_flight_size(&cfg, 64u << 20), 0);
	assert_int_equal(cfg.mode, MON_SESSION_MODE_FLIGHT);
	assert_true(cfg.monitor.ring_bytes >= MKM_RING_MIN_BYTES &&
		    cfg.monitor.ring_bytes <= 64u << 20);
	/* One size, not two. */
	assert_int_equal(mon_session_flight_size(&cfg, 64u << 20), -EINVAL);
}

static void test_session_create_checks_config(void **state)
{
	struct mon_session_config cfg = config();
	struct mon_session *s = NULL;

	(void)state;
	assert_int_equal(mon_session_create(NULL, &cfg), -EINVAL);
	assert_int_equal(mon_session_create(&s, NULL), -EINVAL);
	cfg.reserved[2] = 1;
	assert_int_equal(mon_session_create(&s, &cfg), -EINVAL);
	cfg = config();
	cfg.flags = 1u << 31;
	assert_int_equal(mon_session_create(&s, &cfg), -EINVAL);
	cfg = config();
	cfg.realtime = 100; /* past SCHED_FIFO's 99 */
	assert_int_equal(mon_session_create(&s, &cfg), -EINVAL);
	cfg = config();
	cfg.mode = MON_SESSION_MODE_FLIGHT + 1; /* a mode to come */
	assert_int_equal(mon_session_create(&s, &cfg), -EOPNOTSUPP);
	cfg = config();
	cfg.flight.post_ns = 1; /* a flight recorder's, not this mode's */
	assert_int_equal(mon_session_create(&s, &cfg), -EINVAL);
	cfg.mode = MON_SESSION_MODE_FLIGHT;
	cfg.flight.flags = 1u << 31;
	assert_int_equal(mon_session_create(&s, &cfg), -EINVAL);
	cfg.flight.flags = 0;
	cfg.calibration = MON_SESSION_CAL_QUICK;
	cfg.flags =
		MON_SESSION_CALIBRATE_AT_END; /* a snapshot needs it first */
	assert_int_equal(mon_session_create(&s, &cfg), -EINVAL);
	cfg = config();
	cfg.calibration = MON_SESSION_CAL_FILE; /* without a file */
	assert_int_equal(mon_session_create(&s, &cfg), -EINVAL);
	cfg.calibration = 7;
	assert_int_equal(mon_session_create(&s, &cfg), -EINVAL);
	assert_null(s);
	assert_int_equal(fake.configures, 0); /* the device never opened */
}

static void test_session_create_no_device(void **state)
{
	struct mon_session_config cfg = config();
	struct mon_session *s = NULL;

	(void)state;
	fake.open_err = ENOENT;
	assert_int_equal(mon_session_create(&s, &cfg), -ENOENT);
	assert_null(s);
}

static void test_session_create_resolves_classes_and_rings(void **state)
{
	struct mon_session_config cfg = config();
	const struct monitor_config *got;
	struct mon_session *s;

	(void)state;
	assert_int_equal(mon_session_create(&s, &cfg), 0);
	got = mon_session_monitor_config(s);
	assert_int_equal(got->classes, MON_CLASS_RECORD_DEFAULT);
	assert_int_equal(fake.cfg.classes, MON_CLASS_RECORD_DEFAULT);
	assert_true(got->ring_bytes >= MKM_RING_MIN_BYTES);
	assert_int_equal(got->ring_bytes, fake.cfg.ring_bytes);
	assert_int_equal(fake.resumes, 0); /* suspended until started */
	assert_non_null(mon_session_monitor(s));
	mon_session_destroy(s);
	assert_int_equal(fake.fd, -1); /* the monitor closed */
}

/* The user's ring budget refuses the rings: halved down to the module's
 * default, and no further. */
static void test_session_create_halves_refused_rings(void **state)
{
	struct mon_session_config cfg = config();
	struct mon_session *s;

	(void)state;
	cfg.monitor.ring_bytes = 0;
	fake.configure_err = EPERM;
	fake.configure_err_above = MKM_RING_DEFAULT_BYTES;
	assert_int_equal(mon_session_create(&s, &cfg), 0);
	assert_int_equal(mon_session_monitor_config(s)->ring_bytes,
			 MKM_RING_DEFAULT_BYTES);
	mon_session_destroy(s);

	/* Below the default: refused, said. */
	fake.configure_err_above = MKM_RING_DEFAULT_BYTES / 4;
	assert_int_equal(mon_session_create(&s, &cfg), -EPERM);

	/* A size asked for is not changed. */
	cfg.monitor.ring_bytes = 4 * MKM_RING_DEFAULT_BYTES;
	fake.configure_err_above = MKM_RING_DEFAULT_BYTES;
	assert_int_equal(mon_session_create(&s, &cfg), -EPERM);
	assert_int_equal(fake.cfg.ring_bytes, 4 * MKM_RING_DEFAULT_BYTES);
}

/* Neither does a class asked for by name: only the default's IRQ class
 * is dropped when the module refuses it. */
static void test_session_create_drops_refused_irq(void **state)
{
	struct mon_session_config cfg = config();
	struct mon_session *s;
	char dev[96];
	int fd;

	(void)state;
	/* The fallback checks that the device itself may be opened. */
	snprintf(dev, sizeof(dev), "%s/dev", dir);
	fd = __real_open(dev, O_CREAT | O_WRONLY, 0666);
	assert_true(fd >= 0);
	__real_close(fd);
	fake_path = dev;
	cfg.device = dev;
	fake.refuse_classes = MKM_CLASS_IRQ;
	cfg.monitor.classes = MKM_CLASS_ALL;
	assert_int_equal(mon_session_create(&s, &cfg), -EACCES);
	cfg.monitor.classes = 0;
	assert_true(MON_CLASS_RECORD_DEFAULT & MKM_CLASS_IRQ);
	assert_int_equal(mon_session_create(&s, &cfg), 0);
	assert_int_equal(mon_session_monitor_config(s)->classes,
			 MON_CLASS_RECORD_DEFAULT & ~MKM_CLASS_IRQ);
	mon_session_destroy(s);
}

static void test_session_track_passes_errors(void **state)
{
	struct mon_session_config cfg = config();
	struct mon_session *s;

	(void)state;
	assert_int_equal(mon_session_create(&s, &cfg), 0);
	assert_int_equal(mon_session_track(s, 0), -EINVAL);
	fake.thread_err = EBUSY;
	assert_int_equal(mon_session_track(s, getpid()), -EBUSY);
	fake.thread_err = EPERM;
	assert_int_equal(mon_session_track(s, getpid()), -EPERM);
	fake.thread_err = 0;
	assert_int_equal(mon_session_track(s, getpid()), 0);
	assert_int_equal(fake.tids[0], (uint32_t)getpid());
	mon_session_destroy(s);

	/* A system-wide session passes it on too (mkm record -a's command). */
	cfg.monitor.flags |= MKM_CONFIG_SYSTEM;
	assert_int_equal(mon_session_create(&s, &cfg), 0);
	fake.thread_err = EEXIST;
	assert_int_equal(mon_session_track(s, getpid()), -EEXIST);
	mon_session_destroy(s);
}

/* A calibration file as mkm calibrate -o writes one: two CPUs. */
static void write_calibration(const char *path)
{
	struct trace_calibration_hdr hdr = { .version = 1,
					     .rounds = 300,
					     .trials = 10 };
	struct trace_calibration c[2];
	struct trace_info info = { 0 };
	struct trace_writer *w;

	memset(c, 0, sizeof(c));
	c[0].cpu = 0;
	c[1].cpu = 1;
	c[0].cost[MON_COST_SWITCH].mean_ps = 400000;
	c[1].cost[MON_COST_SWITCH].mean_ps = 420000;
	assert_int_equal(trace_writer_open(&w, path, &info), 0);
	assert_int_equal(trace_writer_calibration(w, &hdr, c, 2), 0);
	assert_int_equal(trace_writer_close(w), 0);
}

static void test_session_calibration_from_file(void **state)
{
	struct mon_session_config cfg = config();
	const struct mon_calibration *cal;
	struct mon_session *s;
	char path[96];

	(void)state;
	snprintf(path, sizeof(path), "%s/none.mkm", dir);
	cfg.calibration = MON_SESSION_CAL_FILE;
	cfg.calibration_file = path;
	assert_int_equal(mon_session_create(&s, &cfg), 0);
	assert_true(mon_session_calibrate(s) < 0); /* no such file */
	assert_null(mon_session_calibration(s));
	mon_session_destroy(s);

	write_calibration(path);
	assert_int_equal(mon_session_create(&s, &cfg), 0);
	assert_int_equal(mon_session_calibrate(s), 0);
	cal = mon_session_calibration(s);
	assert_non_null(cal);
	assert_int_equal(cal->hdr.nr_cpus, 2);
	assert_true(cal->cpu[1].cost[MON_COST_SWITCH].mean_ps == 420000);
	mon_session_destroy(s);

	cfg.calibration = MON_SESSION_CAL_NONE;
	assert_int_equal(mon_session_create(&s, &cfg), 0);
	assert_int_equal(mon_session_calibrate(s), 0);
	assert_null(mon_session_calibration(s));
	mon_session_destroy(s);
}

/* What a recording's trace must carry, read back chunk by chunk. */
struct carried {
	struct trace_info info;
	size_t calibration, processes, clock_samples;
	uint32_t first_kind, last_kind;
	uint32_t process_tid, process_tgid;
	bool end;
};

static void read_back(const char *path, struct carried *c)
{
	struct trace_reader *r;
	struct trace_chunk ch;
	int ret;

	memset(c, 0, sizeof(*c));
	assert_int_equal(trace_reader_open(&r, path), 0);
	c->info = *trace_reader_info(r);
	while ((ret = trace_reader_next(r, &ch)) > 0) {
		if (ch.type == TRACE_CHUNK_CALIBRATION)
			c->calibration = ch.nr_calibration;
		if (ch.type == TRACE_CHUNK_PROCESSES && ch.nr_processes) {
			c->processes = ch.nr_processes;
			c->process_tid = ch.processes[0].tid;
			c->process_tgid = ch.processes[0].tgid;
		}
		if (ch.type == TRACE_CHUNK_CLOCK_SYNC && ch.nr_clock_samples) {
			if (!c->clock_samples)
				c->first_kind = ch.clock_samples[0].kind;
			c->clock_samples += ch.nr_clock_samples;
			c->last_kind =
				ch.clock_samples[ch.nr_clock_samples - 1].kind;
		}
		if (ch.type == TRACE_CHUNK_END)
			c->end = true;
	}
	assert_int_equal(ret, 0);
	trace_reader_close(r);
}

static bool has_tid(const struct trace_info *info, uint32_t tid)
{
	for (uint32_t i = 0; i < info->nr_monitor_tids; i++)
		if (info->monitor_tids[i] == tid)
			return true;
	return false;
}

static void test_session_records_calibration_and_own_threads(void **state)
{
	struct mon_session_config cfg = config();
	struct mon_session_output out = { 0 };
	struct mon_session_stats st;
	struct mon_session *s;
	char cal[96], path[96];
	struct carried c;
	uint64_t events = 1, lost = 1;

	(void)state;
	snprintf(cal, sizeof(cal), "%s/cal.mkm", dir);
	snprintf(path, sizeof(path), "%s/rec.mkm", dir);
	write_calibration(cal);
	cfg.calibration = MON_SESSION_CAL_FILE;
	cfg.calibration_file = cal;
	cfg.flags = MON_SESSION_BUFFERED_IO;
	assert_int_equal(mon_session_create(&s, &cfg), 0);
	assert_int_equal(mon_session_track(s, getpid()), 0);
	assert_null(mon_session_info(s));
	assert_int_equal(mon_session_start(s, NULL), -EINVAL); /* no output */
	out.path = path;
	assert_int_equal(mon_session_prepare(s, &out), 0);
	assert_int_equal(mon_session_prepare(s, &out), -EALREADY);
	assert_int_equal(mon_session_calibrate(s), 0); /* taken by prepare */
	assert_int_equal(fake.resumes, 0);
	assert_int_equal(mon_session_start(s, NULL), 0);
	assert_int_equal(fake.resumes, 1);
	assert_int_equal(mon_session_start(s, NULL), -EALREADY);
	assert_int_equal(mon_session_counts(s, &events, &lost), 0);
	assert_int_equal(events, 0);
	assert_int_equal(lost, 0);
	assert_int_equal(mon_session_stop(s), 0);
	assert_int_equal(mon_session_stop(s), 0); /* idempotent */
	assert_true(fake.suspends >= 1);
	assert_string_equal(mon_session_error(s), "");
	assert_int_equal(mon_session_stats(s, &st), 0);
	assert_false(st.direct); /* MON_SESSION_BUFFERED_IO */
	/* The caller (this thread) and the runner are the recorder's; the
	 * trace is told so, and so is the live source's drain thread. */
	assert_true(has_tid(mon_session_info(s), (uint32_t)gettid()));
	assert_true(mon_session_info(s)->nr_monitor_tids >= 2);
	mon_session_destroy(s);

	read_back(path, &c);
	assert_true(c.end);
	assert_int_equal(c.calibration, 2);
	assert_int_equal(c.processes, 1);
	assert_int_equal(c.process_tid, (uint32_t)getpid());
	assert_int_equal(c.process_tgid, (uint32_t)getpid());
	assert_true(has_tid(&c.info, (uint32_t)gettid()));
	assert_true(c.info.nr_monitor_tids >= 2);
	assert_int_equal(c.clock_samples, 0); /* one machine */
}

/* A plugin's host thread is not the recorder's; a node of one gets its
 * own clock at the start and the end, and its name, job and step. */
static void test_session_node_foreign_caller(void **state)
{
	struct mon_session_config cfg = config();
	struct mon_session_node node = { .name = "n0",
					 .reference = "n0",
					 .job_id = 77,
					 .step_id = 3,
					 .nr_nodes = 1 };
	struct mon_session_output out = { .node = &node };
	struct mon_session *s;
	char path[96];
	struct carried c;

	(void)state;
	snprintf(path, sizeof(path), "%s/n0.mkm", dir);
	cfg.flags = MON_SESSION_FOREIGN_CALLER | MON_SESSION_BUFFERED_IO;
	assert_int_equal(mon_session_create(&s, &cfg), 0);
	out.path = path;
	assert_int_equal(mon_session_start(s, &out), 0); /* prepares too */
	assert_int_equal(mon_session_track(s, getpid()), 0); /* after */
	assert_int_equal(mon_session_stop(s), 0);
	mon_session_destroy(s);

	read_back(path, &c);
	assert_true(c.end);
	assert_false(has_tid(&c.info, (uint32_t)gettid()));
	assert_true(c.info.nr_monitor_tids >= 1); /* the runner, the drain */
	assert_string_equal(c.info.node, "n0");
	assert_int_equal(c.info.job_id, 77);
	assert_int_equal(c.info.step_id, 3);
	assert_int_equal(c.info.nr_nodes, 1);
	assert_int_equal(c.calibration, 0); /* MON_SESSION_CAL_NONE */
	assert_int_equal(c.processes, 0); /* tracked after prepare */
	assert_int_equal(c.clock_samples, 2);
	assert_int_equal(c.first_kind, TRACE_CLOCK_START);
	assert_int_equal(c.last_kind, TRACE_CLOCK_END);

	/* A node's names are checked. */
	node.name = "";
	assert_int_equal(mon_session_create(&s, &cfg), 0);
	assert_int_equal(mon_session_prepare(s, &out), -EINVAL);
	assert_int_equal(mon_session_start(s, NULL), -EINVAL);
	mon_session_destroy(s);
}

/* A flight recorder on a node: its snapshot carries the node and the
 * exchanges that span its window (here the start's and the end's: the
 * snapshot at the end, after the end exchange). */
static void test_session_flight_node_snapshot_aligns(void **state)
{
	struct mon_session_config cfg = config();
	struct mon_session_node node = {
		.name = "n0", .reference = "n0", .job_id = 78, .nr_nodes = 1
	};
	struct mon_session_output out = { .node = &node };
	struct mon_session_flight_counts fc;
	struct mon_session *s;
	char path[96], snap[112];
	struct carried c;

	(void)state;
	snprintf(path, sizeof(path), "%s/f0.mkm", dir);
	snprintf(snap, sizeof(snap), "%s.1", path);
	cfg.flags = MON_SESSION_FOREIGN_CALLER | MON_SESSION_BUFFERED_IO;
	assert_int_equal(mon_session_flight_size(&cfg, 1u << 20), 0);
	assert_int_equal(mon_session_trigger_parse(&cfg, "exit"), 0);
	assert_int_equal(mon_session_create(&s, &cfg), 0);
	out.path = path;
	assert_int_equal(mon_session_start(s, &out), 0);
	assert_int_equal(mon_session_stop(s), 0);
	assert_int_equal(mon_session_flight_counts(s, &fc), 0);
	assert_int_equal(fc.written, 1);
	assert_int_equal(fc.last, 1); /* FILE.1 */
	mon_session_destroy(s);

	assert_int_equal(access(path, F_OK), -1); /* only its snapshots */
	read_back(snap, &c);
	assert_true(c.end);
	assert_string_equal(c.info.node, "n0");
	assert_int_equal(c.info.job_id, 78);
	assert_true(c.info.flags & MKM_CONFIG_FLIGHT);
	assert_int_equal(c.clock_samples, 2);
	assert_int_equal(c.first_kind, TRACE_CLOCK_START);
	assert_int_equal(c.last_kind, TRACE_CLOCK_END);
}

/* Two nodes of a step, on loopback: the reference answers the other's
 * start, periodic and end exchanges, and each trace carries its own. */
static void test_session_two_nodes_exchange_clocks(void **state)
{
	struct mon_session_config cfg = config();
	struct mon_session_node n0 = { .name = "n0",
				       .reference = "localhost",
				       .job_id = 5,
				       .nr_nodes = 2,
				       .port = (uint16_t)(20000 +
							  getpid() % 20000),
				       .timeout_ms = 5000 };
	struct mon_session_node n1 = n0;
	struct mon_session_output out0 = { .node = &n0 };
	struct mon_session_output out1 = { .node = &n1 };
	struct mon_session *s0, *s1;
	char p0[96], p1[96];
	struct carried c;

	(void)state;
	snprintf(p0, sizeof(p0), "%s/n0.mkm", dir);
	snprintf(p1, sizeof(p1), "%s/n1.mkm", dir);
	n1.name = "n1";
	n1.node_id = 1;
	n1.sync_ns = 50000000; /* 50 ms */
	cfg.flags = MON_SESSION_FOREIGN_CALLER | MON_SESSION_BUFFERED_IO;
	out0.path = p0;
	out1.path = p1;
	assert_int_equal(mon_session_create(&s0, &cfg), 0);
	assert_int_equal(mon_session_create(&s1, &cfg), 0);
	assert_int_equal(mon_session_start(s0, &out0), 0); /* listens */
	assert_int_equal(mon_session_start(s1, &out1), 0); /* connects */
	usleep(300000); /* periodic exchanges */
	assert_int_equal(mon_session_stop(s1), 0); /* its end exchange */
	assert_int_equal(mon_session_stop(s0), 0); /* waits for it */
	mon_session_destroy(s1);
	mon_session_destroy(s0);

	read_back(p1, &c);
	assert_string_equal(c.info.node, "n1");
	assert_int_equal(c.info.node_id, 1);
	assert_int_equal(c.info.nr_nodes, 2);
	assert_true(c.clock_samples >= 3); /* start, periodic, end */
	assert_int_equal(c.first_kind, TRACE_CLOCK_START);
	assert_int_equal(c.last_kind, TRACE_CLOCK_END);
	read_back(p0, &c);
	assert_int_equal(c.clock_samples, 2); /* its own clock, exactly */
	assert_int_equal(c.first_kind, TRACE_CLOCK_START);
	assert_int_equal(c.last_kind, TRACE_CLOCK_END);
}

/* A node with no reference to reach: said, through warn, and refused. */
static void warned(void *arg, const char *line)
{
	snprintf(arg, 256, "%s", line);
}

static void test_session_node_without_reference(void **state)
{
	struct mon_session_config cfg = config();
	struct mon_session_node n1 = { .name = "n1",
				       .reference = "localhost",
				       .node_id = 1,
				       .nr_nodes = 2,
				       .port = 1, /* nobody listens */
				       .timeout_ms = 200 };
	struct mon_session_output out = { .node = &n1 };
	struct mon_session *s;
	char line[256] = "";
	char path[96];

	(void)state;
	snprintf(path, sizeof(path), "%s/n1.mkm", dir);
	out.path = path;
	cfg.warn = warned;
	cfg.warn_arg = line;
	assert_int_equal(mon_session_create(&s, &cfg), 0);
	assert_true(mon_session_prepare(s, &out) < 0);
	assert_non_null(strstr(line, "no clock exchange with node 0 "
				     "(localhost, port 1): "));
	mon_session_destroy(s);
	assert_int_equal(fake.resumes, 0);
}

/* A calibration at the end is not taken before: the recording starts at
 * once, and mon_session_stop() measures it (here it cannot: no module). */
static void test_session_calibrate_at_end(void **state)
{
	struct mon_session_config cfg = config();
	struct mon_session_output out = { 0 };
	struct mon_session *s;
	char path[96];
	struct carried c;

	(void)state;
	snprintf(path, sizeof(path), "%s/end.mkm", dir);
	out.path = path;
	cfg.calibration = MON_SESSION_CAL_QUICK;
	cfg.flags = MON_SESSION_CALIBRATE_AT_END | MON_SESSION_BUFFERED_IO;
	assert_int_equal(mon_session_create(&s, &cfg), 0);
	assert_int_equal(mon_session_calibrate(s), 0); /* not now */
	assert_int_equal(mon_session_start(s, &out), 0);
	assert_null(mon_session_calibration(s));
	assert_int_equal(mon_session_stop(s), 0);
	/* Measured at the stop: the real /dev/mkm is not there. */
	assert_true(mon_session_calibrate(s) < 0);
	assert_null(mon_session_calibration(s));
	mon_session_destroy(s);
	read_back(path, &c);
	assert_true(c.end);
	assert_int_equal(c.calibration, 0);
}

/* The trace cannot be made: said, and the session can only go. */
static void test_session_prepare_unwritable(void **state)
{
	struct mon_session_config cfg = config();
	struct mon_session_output out = { 0 };
	struct mon_session *s;
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/no/such/dir/t.mkm", dir);
	assert_int_equal(mon_session_create(&s, &cfg), 0);
	out.path = path;
	assert_int_equal(mon_session_prepare(s, &out), -ENOENT);
	assert_int_equal(mon_session_start(s, NULL), -EINVAL);
	assert_int_equal(fake.resumes, 0);
	mon_session_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_session_create_checks_config),
		T(test_session_trigger_parse_and_flight_size),
		T(test_session_create_no_device),
		T(test_session_create_resolves_classes_and_rings),
		T(test_session_create_halves_refused_rings),
		T(test_session_create_drops_refused_irq),
		T(test_session_track_passes_errors),
		T(test_session_calibration_from_file),
		T(test_session_records_calibration_and_own_threads),
		T(test_session_node_foreign_caller),
		T(test_session_flight_node_snapshot_aligns),
		T(test_session_two_nodes_exchange_clocks),
		T(test_session_node_without_reference),
		T(test_session_calibrate_at_end),
		T(test_session_prepare_unwritable),
#undef T
	};

	return cmocka_run_group_tests_name("session", tests, NULL, NULL);
}
