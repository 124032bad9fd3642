// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - mkm record: monitor a command or running threads into a trace.
 *
 * Three threads. The drain thread sleeps in poll() on the monitor until a
 * ring passes its watermark (or 100 ms pass, to move the horizon on),
 * drains the monitor into batches and hands them to the writer through a
 * liburcu wait-free queue, with an eventfd to wake it. The writer appends
 * them to the trace file as they come, so a crash loses at most the last
 * chunk. The main thread starts the command, waits for it or for Ctrl-C
 * with sigtimedwait(), prints the live status line, and ends the recording:
 * the drain thread suspends the monitor and drains it to the end, LOST
 * records included, before the writer closes the file.
 */
#define _GNU_SOURCE
#define _LGPL_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <urcu/compiler.h>
#include <urcu/wfcqueue.h>

#include "cli.h"

#define BATCH_RECORDS 4096
/* Records stamped this close to a drain may still be in flight. */
#define HORIZON_MARGIN_NS 1000000ull

struct batch {
	struct cds_wfcq_node node;
	uint64_t horizon; /* every record stamped before it is delivered */
	size_t n;
	bool last;
	struct mkm_event ev[];
};

struct recorder {
	struct monitor *mon;
	struct trace_writer *w;
	const char *path;
	struct __cds_wfcq_head qhead;
	struct cds_wfcq_tail qtail;
	int wake_fd; /* eventfd: a batch is queued */
	atomic_bool stop; /* main -> drain: suspend, drain, finish */
	atomic_uint_fast64_t events, lost; /* for the status line */
	int drain_err, write_err;
	/* The threads given with -t / -p, or the command's pid. */
	pid_t *tids;
	size_t nr_tids;
};

static uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void queue_batch(struct recorder *rec, struct batch *b)
{
	uint64_t one = 1;

	cds_wfcq_node_init(&b->node);
	cds_wfcq_enqueue(&rec->qhead, &rec->qtail, &b->node);
	if (write(rec->wake_fd, &one, sizeof(one)) != sizeof(one))
		abort(); /* an eventfd write only fails on overflow */
}

static struct batch *batch_new(size_t records)
{
	struct batch *b = malloc(sizeof(*b) + records * sizeof(b->ev[0]));

	if (!b)
		die("out of memory");
	b->horizon = 0;
	b->n = 0;
	b->last = false;
	return b;
}

/* Moves everything buffered into the queue; returns 0 or a negative errno. */
static int drain_once(struct recorder *rec, uint64_t horizon)
{
	for (;;) {
		struct batch *b = batch_new(BATCH_RECORDS);
		size_t i;
		int ret;

		ret = monitor_read(rec->mon, b->ev, BATCH_RECORDS, &b->n);
		if (ret || !b->n) {
			/* Nothing more: the horizon alone. */
			b->n = 0;
			b->horizon = ret ? 0 : horizon;
			queue_batch(rec, b);
			return ret;
		}
		for (i = 0; i < b->n; i++)
			if (b->ev[i].type == MKM_EV_LOST)
				atomic_fetch_add(&rec->lost, b->ev[i].arg0);
			else
				atomic_fetch_add(&rec->events, 1);
		queue_batch(rec, b);
	}
}

static void *drain_thread(void *arg)
{
	struct recorder *rec = arg;
	struct pollfd pfd = { .fd = monitor_fd(rec->mon), .events = POLLIN };
	struct batch *end;
	int ret = 0;

	while (!atomic_load(&rec->stop) && !ret) {
		uint64_t before;

		if (poll(&pfd, 1, 100) < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		before = now_ns(CLOCK_MONOTONIC);
		ret = drain_once(rec, before - HORIZON_MARGIN_NS);
	}
	/* Suspended, a monitor's rings end, drops at their tails included. */
	if (!ret)
		ret = monitor_suspend(rec->mon);
	if (!ret)
		ret = drain_once(rec, now_ns(CLOCK_MONOTONIC));
	rec->drain_err = ret;
	end = batch_new(0);
	end->last = true;
	queue_batch(rec, end);
	return NULL;
}

static void *writer_thread(void *arg)
{
	struct recorder *rec = arg;
	bool last = false;

	while (!last) {
		struct cds_wfcq_node *node;
		uint64_t count;

		if (read(rec->wake_fd, &count, sizeof(count)) < 0 &&
		    errno != EINTR)
			break;
		/* One consumer: the lock-free dequeue is enough. */
		while ((node = __cds_wfcq_dequeue_blocking(&rec->qhead,
							   &rec->qtail))) {
			struct batch *b =
				caa_container_of(node, struct batch, node);
			int ret = 0;

			if (b->n)
				ret = trace_writer_events(rec->w, b->ev, b->n);
			if (!ret && b->horizon)
				ret = trace_writer_horizon(rec->w, b->horizon);
			if (ret && !rec->write_err)
				rec->write_err = ret;
			last = b->last;
			free(b);
		}
	}
	return NULL;
}

static void status_line(struct recorder *rec, uint64_t start, uint64_t *last_t,
			uint64_t *last_events, bool final)
{
	uint64_t t = now_ns(CLOCK_MONOTONIC), ev = atomic_load(&rec->events);
	double dt = (t - *last_t) / 1e9,
	       rate = dt > 0 ? (ev - *last_events) / dt : 0;
	struct stat st;

	if (stat(rec->path, &st))
		st.st_size = 0;
	fprintf(stderr, "\rmkm: %6.1f s  %8.0f events/s  %llu lost  %.1f MiB%s",
		(t - start) / 1e9, rate,
		(unsigned long long)atomic_load(&rec->lost),
		st.st_size / 1048576.0, final ? "\n" : "  ");
	*last_t = t;
	*last_events = ev;
}

static uint32_t parse_events(const char *list)
{
	static const struct {
		const char *name;
		uint32_t classes;
	} names[] = {
		{ "sched", MKM_CLASS_SCHED },
		{ "lifecycle", MKM_CLASS_LIFECYCLE },
		{ "irq", MKM_CLASS_IRQ },
		{ "syscall", MKM_CLASS_SYSCALL },
		{ "wakeup", MKM_CLASS_WAKEUP },
		{ "default", MKM_CLASS_DEFAULT },
		{ "all", MKM_CLASS_ALL },
	};
	char *copy = strdup(list), *save = NULL, *tok;
	uint32_t classes = 0;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(tok, names[i].name))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			die_usage(
				"--events: unknown class '%s' (sched, lifecycle, irq, syscall, wakeup, default, all)",
				tok);
		classes |= names[i].classes;
	}
	free(copy);
	return classes;
}

static void add_tid(struct recorder *rec, pid_t tid)
{
	rec->tids = realloc(rec->tids, (rec->nr_tids + 1) * sizeof(pid_t));
	if (!rec->tids)
		die("out of memory");
	rec->tids[rec->nr_tids++] = tid;
}

static void parse_tids(struct recorder *rec, const char *list)
{
	char *copy = strdup(list), *save = NULL, *tok, *end;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		long tid = strtol(tok, &end, 10);

		if (*end || tid <= 0)
			die_usage("-t: '%s' is not a thread id", tok);
		add_tid(rec, tid);
	}
	free(copy);
}

static void add_process(struct recorder *rec, const char *pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	dir = opendir(path);
	if (!dir)
		die("-p %s: no such process", pid);
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			add_tid(rec, atoi(d->d_name));
	closedir(dir);
}

static void monitor_or_die(struct recorder *rec, pid_t tid)
{
	int ret = thread_monitor(rec->mon, tid, tid);

	if (ret == -EPERM)
		die("thread %d: not allowed to monitor it: it belongs to another user or is not dumpable (run as its owner, or with CAP_PERFMON)",
		    tid);
	if (ret == -EBUSY)
		die("thread %d: another monitor already tracks it", tid);
	if (ret && ret != -EEXIST)
		die("thread %d: %s", tid, monitor_strerror(ret));
}

/* Starts CMD stopped before exec, so it is monitored from its first step. */
static pid_t spawn(char **argv, int *go_fd, int *err_fd)
{
	int go[2], err[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		sigset_t none;
		char c;
		int e;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	*go_fd = go[1];
	*err_fd = err[0];
	return pid;
}

static bool any_alive(const struct recorder *rec)
{
	size_t i;

	for (i = 0; i < rec->nr_tids; i++) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d", rec->tids[i]);
		if (!access(path, F_OK))
			return true;
	}
	return false;
}

static void open_monitor(struct recorder *rec, struct monitor_config *cfg)
{
	int ret = monitor_create_at(&rec->mon, NULL, cfg);

	if (ret == -ENOENT)
		die("%s: no such device: load the module: sudo modprobe mkm",
		    MKM_DEVICE);
	if (ret == -EACCES)
		die("%s: permission denied: check the device's mode (0666 by default)",
		    MKM_DEVICE);
	if (ret == -EPROTO)
		die("%s: the module speaks another ABI version than this mkm: install matching versions",
		    MKM_DEVICE);
	if (ret)
		die("%s: %s", MKM_DEVICE, monitor_strerror(ret));
}

static void fill_info(struct trace_info *info, const struct monitor_config *cfg,
		      struct monitor *mon)
{
	struct utsname u;
	unsigned int nr_cpus = 0;

	memset(info, 0, sizeof(*info));
	monitor_statistics(mon, NULL, &nr_cpus);
	info->nr_cpus = nr_cpus;
	info->classes = cfg->classes;
	info->flags = cfg->flags;
	info->ring_bytes = cfg->ring_bytes;
	info->start_mono_ns = now_ns(CLOCK_MONOTONIC);
	info->start_real_ns = now_ns(CLOCK_REALTIME);
	if (!uname(&u)) {
		snprintf(info->hostname, sizeof(info->hostname), "%s",
			 u.nodename);
		snprintf(info->kernel, sizeof(info->kernel), "%s", u.release);
		snprintf(info->machine, sizeof(info->machine), "%s", u.machine);
	}
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "events", required_argument, NULL, 'e' },
		{ "tid", required_argument, NULL, 't' },
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct monitor_config cfg = { .flags = MKM_CONFIG_INHERIT };
	struct recorder rec = { .wake_fd = -1 };
	const char *out = NULL;
	char default_out[256];
	struct mkm_cpu_stats *stats;
	struct trace_info info;
	pthread_t drainer, writer;
	uint64_t start, last_t, last_ev = 0, lost_stats = 0;
	unsigned int nr_cpus = 0, i;
	bool tty = isatty(STDERR_FILENO), stop_asked = false, reaped = false;
	bool exec_failed = false;
	int go_fd = -1, err_fd = -1, status = 0, opt, ret;
	pid_t child = 0;
	sigset_t sigs;

	while ((opt = getopt_long(argc, argv, "+o:b:e:t:p:h", opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'b':
			if (parse_size(optarg) <= 0)
				die_usage(
					"--buffer-size: '%s' is not a size (e.g. 4M)",
					optarg);
			cfg.ring_bytes = parse_size(optarg);
			break;
		case 'e':
			cfg.classes = parse_events(optarg);
			break;
		case 't':
			parse_tids(&rec, optarg);
			break;
		case 'p':
			add_process(&rec, optarg);
			break;
		case 'h':
			puts("usage: mkm record [-o FILE] [--buffer-size N] [--events LIST] -- CMD [ARGS...]\n"
			     "       mkm record [-o FILE] ... -t TID[,TID...] | -p PID");
			return 0;
		default:
			die_usage("record: bad option");
		}
	}
	argv += optind;
	argc -= optind;
	if (!argc && !rec.nr_tids)
		die_usage(
			"record: give a command (-- CMD ARGS) or threads (-t, -p)");
	if (argc && rec.nr_tids)
		die_usage("record: a command, or -t/-p, not both");
	if (!out) {
		const char *base = argc ? strrchr(argv[0], '/') : NULL;

		snprintf(default_out, sizeof(default_out), "%s.mkm",
			 argc ? (base ? base + 1 : argv[0]) : "mkm");
		out = default_out;
	}
	rec.path = out;

	/* Signals are taken with sigtimedwait() by the main thread only. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);

	open_monitor(&rec, &cfg);
	fill_info(&info, &cfg, rec.mon);
	ret = trace_writer_open(&rec.w, out, &info);
	if (ret)
		die("%s: %s", out, monitor_strerror(ret));

	if (argc) {
		child = spawn(argv, &go_fd, &err_fd);
		add_tid(&rec, child);
	}
	for (i = 0; i < rec.nr_tids; i++)
		monitor_or_die(&rec, rec.tids[i]);
	ret = monitor_resume(rec.mon);
	if (ret)
		die("resume: %s", monitor_strerror(ret));

	__cds_wfcq_init(&rec.qhead, &rec.qtail);
	rec.wake_fd = eventfd(0, EFD_CLOEXEC);
	if (rec.wake_fd < 0)
		die("eventfd: %s", strerror(errno));
	if (pthread_create(&drainer, NULL, drain_thread, &rec) ||
	    pthread_create(&writer, NULL, writer_thread, &rec))
		die("cannot start threads");

	start = last_t = now_ns(CLOCK_MONOTONIC);
	if (child) {
		int e;

		if (write(go_fd, "g", 1) != 1)
			die("cannot start %s", argv[0]);
		close(go_fd);
		/* The error pipe closes on a successful exec. */
		if (read(err_fd, &e, sizeof(e)) == sizeof(e)) {
			warnx_("%s: %s", argv[0], strerror(e));
			exec_failed = true;
		}
		close(err_fd);
	}
	while (!exec_failed) {
		struct timespec tick = { 0, 250000000 };
		int sig = sigtimedwait(&sigs, NULL, &tick);

		if (sig == SIGINT || sig == SIGTERM) {
			/* Ctrl-C reached the command too; a second one ends us. */
			if (!child || stop_asked)
				break;
			stop_asked = true;
			kill(child, sig);
		}
		if (child && waitpid(child, &status, WNOHANG) == child) {
			reaped = true;
			break;
		}
		if (!child && !any_alive(&rec))
			break;
		if (tty)
			status_line(&rec, start, &last_t, &last_ev, false);
	}
	atomic_store(&rec.stop, true);
	pthread_join(drainer, NULL);
	pthread_join(writer, NULL);
	if (tty)
		status_line(&rec, start, &last_t, &last_ev, true);
	if (exec_failed)
		waitpid(child, &status, 0);
	else if (child && !reaped)
		warnx_("%s (pid %d) still runs, no longer monitored", argv[0],
		       child);

	monitor_statistics(rec.mon, NULL, &nr_cpus);
	stats = calloc(nr_cpus, sizeof(*stats));
	if (stats && !monitor_statistics(rec.mon, stats, &nr_cpus)) {
		trace_writer_stats(rec.w, stats, nr_cpus);
		for (i = 0; i < nr_cpus; i++)
			lost_stats += stats[i].lost;
	}
	free(stats);
	ret = trace_writer_close(rec.w);
	if (!ret)
		ret = rec.write_err;
	if (ret)
		die("%s: %s: the trace is incomplete", out,
		    monitor_strerror(ret));
	if (rec.drain_err)
		die("reading the monitor: %s", monitor_strerror(rec.drain_err));
	monitor_terminate(rec.mon);

	fprintf(stderr, "mkm: wrote %s: %llu events from %zu thread%s\n", out,
		(unsigned long long)atomic_load(&rec.events), rec.nr_tids,
		rec.nr_tids == 1 ? " and its children" : "s");
	if (lost_stats)
		fprintf(stderr,
			"mkm: %llu events lost (rings full): shown as UNKNOWN; a larger --buffer-size keeps them\n",
			(unsigned long long)lost_stats);
	free(rec.tids);
	return exec_failed ? 127 : 0;
}
