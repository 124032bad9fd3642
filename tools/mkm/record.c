// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - mkm record: monitor a command or running threads into a trace.
 *
 * The pipeline "live source -> trace sink": the live source's drain thread
 * empties the monitor as its rings fill, a runner thread writes what it
 * queues as it comes (so a crash loses at most the last chunk), and the
 * main thread starts the command, waits for it or for Ctrl-C with
 * sigtimedwait(), prints the live status line, and ends the recording by
 * stopping the source: it suspends the monitor and drains it to the end,
 * LOST records and the kernel's counts included, before the file closes.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "util.h"

struct recorder {
	struct monitor *mon;
	struct mon_pipeline *p; /* live source -> trace sink */
	const char *path;
	int run_err; /* of the runner thread */
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

static void *runner_thread(void *arg)
{
	struct recorder *rec = arg;

	rec->run_err = mon_pipeline_run(rec->p);
	return NULL;
}

static void status_line(struct recorder *rec, uint64_t start, uint64_t *last_t,
			uint64_t *last_events, bool final)
{
	uint64_t t = now_ns(CLOCK_MONOTONIC), ev = 0, lost = 0;
	double dt, rate;
	struct stat st;

	mon_source_live_counts(mon_pipeline_source(rec->p), &ev, &lost);
	dt = (t - *last_t) / 1e9;
	rate = dt > 0 ? (ev - *last_events) / dt : 0;

	if (stat(rec->path, &st))
		st.st_size = 0;
	fprintf(stderr, "\rmkm: %6.1f s  %8.0f events/s  %llu lost  %.1f MiB%s",
		(t - start) / 1e9, rate, (unsigned long long)lost,
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

/* The pipeline: the monitor's records into the file, as they come. */
static void open_pipeline(struct recorder *rec, const char *out)
{
	struct mon_source *src;
	struct mon_sink *sink;
	int ret;

	ret = mon_source_live(&src, rec->mon, NULL);
	if (ret)
		die("%s: %s", MKM_DEVICE, monitor_strerror(ret));
	ret = mon_pipeline_create(&rec->p, src);
	if (ret)
		die("%s", monitor_strerror(ret));
	ret = mon_sink_trace(&sink, out, mon_source_info(src));
	if (ret)
		die("%s: %s", out, monitor_strerror(ret));
	ret = mon_pipeline_add_sink(rec->p, sink);
	if (ret)
		die("%s", monitor_strerror(ret));
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
	struct recorder rec = { 0 };
	const char *out = NULL;
	char default_out[256];
	const struct mon_meta *meta;
	pthread_t runner;
	uint64_t start, last_t, last_ev = 0, events = 0;
	unsigned int i;
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
	open_pipeline(&rec, out);

	if (argc) {
		child = spawn(argv, &go_fd, &err_fd);
		add_tid(&rec, child);
	}
	for (i = 0; i < rec.nr_tids; i++)
		monitor_or_die(&rec, rec.tids[i]);
	ret = monitor_resume(rec.mon);
	if (ret)
		die("resume: %s", monitor_strerror(ret));

	if (pthread_create(&runner, NULL, runner_thread, &rec))
		die("cannot start the writer thread");

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
	mon_source_live_stop(mon_pipeline_source(rec.p));
	pthread_join(runner, NULL);
	if (tty)
		status_line(&rec, start, &last_t, &last_ev, true);
	if (exec_failed)
		waitpid(child, &status, 0);
	else if (child && !reaped)
		warnx_("%s (pid %d) still runs, no longer monitored", argv[0],
		       child);

	if (rec.run_err)
		die("%s: %s: the trace is incomplete", out,
		    mon_pipeline_error(rec.p, NULL));
	meta = mon_pipeline_meta(rec.p);
	mon_source_live_counts(mon_pipeline_source(rec.p), &events, NULL);
	fprintf(stderr, "mkm: wrote %s: %llu events from %zu thread%s\n", out,
		(unsigned long long)events, rec.nr_tids,
		rec.nr_tids == 1 ? " and its children" : "s");
	if (meta->lost_by_stats)
		fprintf(stderr,
			"mkm: %llu events lost (rings full): shown as UNKNOWN; a larger --buffer-size keeps them\n",
			(unsigned long long)meta->lost_by_stats);
	mon_pipeline_destroy(rec.p);
	monitor_terminate(rec.mon);
	free(rec.tids);
	return exec_failed ? 127 : 0;
}
