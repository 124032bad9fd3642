// SPDX-License-Identifier: GPL-2.0
/*
 * recorder.c - mkm record's and mkm view --live's side of a recording
 * (see recorder.h); the recording itself is libmonitor's session
 * (mon_session.h).
 *
 * The session's runner thread writes the monitor's records as they come
 * (so a crash loses at most the last chunk); the caller's thread starts
 * the command, waits for it or for Ctrl-C with sigtimedwait(), and ends
 * the recording by stopping the session: it suspends the monitor and
 * drains it to the end, LOST records and the kernel's counts included,
 * before the file closes.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "messages.h"
#include "module.h"
#include "parse.h"
#include "recorder.h"

static uint32_t parse_events(const char *list)
{
	uint32_t classes;
	char bad[64];

	if (mon_classes_parse(list, &classes, bad, sizeof(bad)))
		die_usage("--events: unknown class '%s' (" MON_CLASS_NAMES ")",
			  bad);
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
	int ret = mon_session_track(rec->s, tid);

	if (ret == -EPERM)
		die("thread %d: not allowed to monitor it: it belongs to another user or is not dumpable (run as its owner, or with CAP_PERFMON)",
		    tid);
	if (ret == -EBUSY)
		die("thread %d: another monitor already tracks it", tid);
	if (ret && ret != -EEXIST)
		die("thread %d: %s", tid, monitor_strerror(ret));
}

/* PR_GET_THP_DISABLE's answer before recorder_start() turned it on. */
static int thp_disable_before;

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
		/* CMD gets the huge page policy it would have unrecorded
		 * (the flag would outlive exec: recorder_start()). */
		prctl(PR_SET_THP_DISABLE, thp_disable_before, 0, 0, 0);
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

/*
 * The session and its monitor: without --events, MON_CLASS_RECORD_DEFAULT
 * (less the IRQ class where the module refuses it to this user);
 * without --buffer-size, rings sized for those classes and this
 * machine's CPUs, halved while the module refuses them
 * (mon_session_create()).
 */
static void open_monitor(struct recorder *rec)
{
	const struct monitor_config *cfg = &rec->cfg.monitor;
	int ret = mon_session_create(&rec->s, &rec->cfg);

	if (ret == -ENOENT)
		die_no_module();
	if (ret == -EPERM && cfg->flags & MKM_CONFIG_SYSTEM)
		die("record -a: recording the whole machine needs CAP_PERFMON (or root): run it as root, or give mkm the capability (setcap cap_perfmon+ep)");
	if (ret == -EBUSY && cfg->flags & MKM_CONFIG_SYSTEM)
		die("record -a: another system-wide monitor is recording: only one may at a time");
	if (ret == -EACCES && access(MKM_DEVICE, R_OK | W_OK) == 0) {
		char names[64];

		mon_classes_format(names, sizeof(names),
				   cfg->classes &
					   (MKM_CLASS_IRQ | MKM_CLASS_SYSCALL));
		die("--events %s: the irq and syscall classes need CAP_PERFMON (or the module's paranoid setting at 0): the first times every interrupt, the second slows every system call of the machine",
		    names);
	}
	if (ret == -EACCES)
		die("%s: permission denied: check the device's mode (0666 by default)",
		    MKM_DEVICE);
	if (ret == -EPROTO)
		die("%s: the module speaks another ABI version than this mkm: install matching versions",
		    MKM_DEVICE);
	if (ret)
		die("%s: %s", MKM_DEVICE, monitor_strerror(ret));
}

/*
 * The short calibration stored with every recording
 * (MON_SESSION_CAL_QUICK: a few trials per figure on one CPU, where mkm
 * calibrate measures every CPU with more trials; the command waits for
 * it), or the one --calibration gives, checked against this machine. It
 * is stored with its verdict.
 */
static void calibrate(struct recorder *rec)
{
	const struct mon_calibration *cal;
	struct trace_info here = { 0 };
	char model[128], why[256];
	struct utsname u;
	const char *differs;
	int ret;

	if (rec->no_calibrate)
		return;
	ret = mon_session_calibrate(rec->s);
	cal = mon_session_calibration(rec->s);
	if (!rec->cal_file) {
		if (ret)
			warnx_("calibration: %s: recording without one (compensating will need --calibration FILE)",
			       monitor_strerror(ret));
		else if (mon_calibration_judge(cal, why, sizeof(why)))
			warnx_("calibration is not a cost (%s), even after more trials: stored with its verdict; to compensate, run mkm calibrate -o cal.mkm on a quiet machine and pass --calibration cal.mkm",
			       why);
		return;
	}
	if (ret == -ENOENT)
		die("%s: no calibration in this file (mkm calibrate -o FILE writes one)",
		    rec->cal_file);
	if (ret)
		die("%s: %s", rec->cal_file, monitor_strerror(ret));
	if (!uname(&u))
		snprintf(here.kernel, sizeof(here.kernel), "%s", u.release);
	mon_cpu_model(model, sizeof(model));
	differs = mon_calibration_check(cal, &here, model);
	if (differs)
		warnx_("%s: calibration %s than this machine's: its costs may not apply",
		       rec->cal_file, differs);
	if (mon_calibration_judge(cal, why, sizeof(why)))
		warnx_("%s: calibration is not a cost (%s): compensating this recording will be refused",
		       rec->cal_file, why);
}

bool recorder_flight_option(struct recorder *rec, int opt, const char *arg)
{
	struct mon_session_flight *f = &rec->cfg.flight;
	char *end;
	long n;

	switch (opt) {
	case RECORDER_OPT_FLIGHT:
		if (mon_parse_size(arg) < (int64_t)MKM_RING_MIN_BYTES)
			die_usage(
				"--flight: '%s' is not a size of at least 4K (e.g. 64M)",
				arg);
		rec->flight_bytes = (uint64_t)mon_parse_size(arg);
		return true;
	case RECORDER_OPT_TRIGGER:
		if (mon_session_trigger_parse(&rec->cfg, arg))
			die_usage(
				"--trigger: '%s' is not a trigger: give %s; quote the >",
				arg, MON_TRIGGER_SPECS);
		return true;
	case RECORDER_OPT_PRE:
		f->pre_ns = (uint64_t)parse_time_arg("--pre", arg);
		return true;
	case RECORDER_OPT_POST:
		f->post_ns = (uint64_t)parse_time_arg("--post", arg);
		return true;
	case RECORDER_OPT_HOLD_OFF:
		f->hold_off_ns = (uint64_t)parse_time_arg("--hold-off", arg);
		return true;
	case RECORDER_OPT_MAX_SNAPSHOTS:
		errno = 0;
		n = strtol(arg, &end, 10);
		if (errno || end == arg || *end || n < 1 || n > UINT32_MAX)
			die_usage(
				"--max-snapshots: '%s' is not a count of at least 1",
				arg);
		f->max_snapshots = (uint32_t)n;
		return true;
	}
	return false;
}

/* The session's lines (a flight recorder's snapshots, its failures). */
static void say_line(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "mkm: %s\n", line);
}

/*
 * A flight recorder: its rings, SIZE over every CPU. The flight options
 * without --flight are a mistake worth saying.
 */
static void flight_setup(struct recorder *rec)
{
	const struct mon_session_flight none = { 0 };
	struct monitor_config *m = &rec->cfg.monitor;

	if (!rec->flight_bytes) {
		if (memcmp(&rec->cfg.flight, &none, sizeof(none)) ||
		    m->trigger_runq_ns || m->trigger_irq_ns)
			die_usage(
				"--trigger, --pre, --post, --max-snapshots and --hold-off go with --flight SIZE");
		return;
	}
	if (m->ring_bytes)
		die_usage(
			"--flight SIZE sets the rings' size: no --buffer-size with it");
	if (m->trigger_irq_ns && m->classes && !(m->classes & MKM_CLASS_IRQ))
		die_usage(
			"--trigger irq>T needs the irq events (--events ...,irq)");
	mon_session_flight_size(&rec->cfg, rec->flight_bytes);
}

/* SIGUSR2's handler, never run: recorder_wait() takes the signal. */
static void ignore_signal(int sig)
{
	(void)sig;
}

void recorder_init(struct recorder *rec)
{
	memset(rec, 0, sizeof(*rec));
	/* mkm's readers all take a switch as one record (half the work). */
	rec->cfg.monitor.flags = MKM_CONFIG_INHERIT | MKM_CONFIG_ONE_SWITCH;
	/* From the first moment on, before any option is read: a Ctrl-C
	 * is the recorder's to handle (recorder_wait()), never a silent
	 * death. */
	sigemptyset(&rec->sigs);
	sigaddset(&rec->sigs, SIGINT);
	sigaddset(&rec->sigs, SIGTERM);
	sigaddset(&rec->sigs, SIGCHLD);
	/* mkm trigger's: a flight recorder's snapshot, never a death. */
	sigaddset(&rec->sigs, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &rec->sigs, NULL);
	/*
	 * Caught too, by a handler that does nothing: a thread in
	 * sigtimedwait() has the signals it waits for unblocked, so while
	 * the recorder waits /proc shows SIGUSR2 neither blocked nor, but
	 * for this, caught, and mkm trigger would think it deadly.
	 */
	sigaction(SIGUSR2, &(struct sigaction){ .sa_handler = ignore_signal },
		  NULL);
}

void recorder_release(struct recorder *rec)
{
	signal(SIGUSR2, SIG_DFL);
	pthread_sigmask(SIG_UNBLOCK, &rec->sigs, NULL);
	free(rec->tids);
	rec->tids = NULL;
}

bool recorder_option(struct recorder *rec, int opt, const char *arg)
{
	switch (opt) {
	case 'o':
		rec->out = arg;
		return true;
	case 'b':
		if (mon_parse_size(arg) <= 0)
			die_usage("--buffer-size: '%s' is not a size (e.g. 4M)",
				  arg);
		rec->cfg.monitor.ring_bytes = mon_parse_size(arg);
		return true;
	case 'e':
		rec->cfg.monitor.classes = parse_events(arg);
		return true;
	case 't':
		parse_tids(rec, arg);
		return true;
	case 'p':
		add_process(rec, arg);
		return true;
	case 'S':
		rec->system = true;
		rec->cfg.monitor.flags |= MKM_CONFIG_SYSTEM;
		return true;
	case 'D':
		rec->buffered_io = true;
		return true;
	case 'N':
		rec->no_calibrate = true;
		return true;
	case 'C':
		rec->cal_file = arg;
		return true;
	case 'R': {
		char *end;
		long prio;

		errno = 0;
		prio = strtol(arg, &end, 10);
		if (errno || end == arg || *end || prio < 1 ||
		    prio > sched_get_priority_max(SCHED_FIFO))
			die_usage(
				"--realtime: '%s' is not a SCHED_FIFO priority (1 to %d)",
				arg, sched_get_priority_max(SCHED_FIFO));
		rec->cfg.realtime = (uint32_t)prio;
		return true;
	}
	}
	return false;
}

void recorder_command(struct recorder *rec, int argc, char **argv,
		      const char *who)
{
	if (!argc && !rec->nr_tids && !rec->system)
		die_usage(
			"%s: give a command (-- CMD ARGS), threads (-t, -p) or -a",
			who);
	if (argc && rec->nr_tids)
		die_usage("%s: a command, or -t/-p, not both", who);
	if (rec->system && rec->nr_tids)
		die_usage("%s: -a records every thread: no -t/-p with it", who);
	rec->cmd = argc ? argv : NULL;
	if (!rec->out) {
		const char *base = argc ? strrchr(argv[0], '/') : NULL;

		snprintf(rec->default_out, sizeof(rec->default_out), "%s.mkm",
			 argc ? (base ? base + 1 : argv[0]) : "mkm");
		rec->out = rec->default_out;
	}
}

/* Before anything takes time: an output that cannot be written is said
 * at once, naming it. */
static void check_output(const char *out)
{
	char dir[PATH_MAX];
	struct stat st;

	if (!stat(out, &st) && S_ISDIR(st.st_mode))
		die("-o %s: is a directory: give a file name", out);
	snprintf(dir, sizeof(dir), "%s", out);
	if (access(dirname(dir), W_OK))
		die("-o %s: cannot write there: %s", out, strerror(errno));
}

/*
 * Why execvp() could not run @cmd, found as it finds it (an empty PATH
 * entry is the current folder), or 0: a command that cannot run is told
 * before the calibration, not after it.
 */
static int command_error(const char *cmd)
{
	const char *path = getenv("PATH");
	char file[PATH_MAX];
	int err = ENOENT;

	if (strchr(cmd, '/'))
		return access(cmd, X_OK) ? errno : 0;
	for (path = path ? path : "/bin:/usr/bin";; path++) {
		size_t n = strcspn(path, ":");

		snprintf(file, sizeof(file), "%.*s%s%s", (int)n, path,
			 n ? "/" : "", cmd);
		if (!access(file, X_OK))
			return 0;
		if (errno == EACCES)
			err = EACCES;
		path += n;
		if (!*path)
			return err;
	}
}

/* An existing trace is kept as FILE.old, as perf keeps perf.data.old. */
static void keep_old_output(const char *out)
{
	char old[PATH_MAX];
	struct stat st;

	if (stat(out, &st) || !S_ISREG(st.st_mode) || !st.st_size)
		return;
	if (snprintf(old, sizeof(old), "%s.old", out) >= (int)sizeof(old))
		die("-o %s: name too long", out);
	if (rename(out, old))
		die("%s: cannot keep it as %s: %s", out, old, strerror(errno));
	warnx_("%s existed: kept as %s", out, old);
}

/* A Ctrl-C (or SIGTERM) while calibrating: the user asked to stop before
 * anything was recorded, so nothing is (the command is not started). */
static void stop_if_asked(const struct recorder *rec)
{
	struct timespec now = { 0, 0 };
	sigset_t stop;
	int sig;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sig = sigtimedwait(&stop, NULL, &now);
	if (sig <= 0)
		return;
	warnx_("interrupted (%s) before the recording started: nothing recorded, %s not written",
	       strsignal(sig), rec->out);
	exit(128 + sig);
}

/* What mon_session_prepare() can fail on: the file, mostly. */
static void prepare_or_die(struct recorder *rec, struct mon_sink *extra)
{
	struct mon_session_output out = { .path = rec->out, .extra = extra };
	int ret = mon_session_prepare(rec->s, &out);

	if (ret == -EAGAIN)
		die("cannot start the writer thread");
	if (ret == -EPERM && rec->cfg.realtime)
		die("--realtime %u: cannot run the writer thread at SCHED_FIFO priority %u: %s (root, CAP_SYS_NICE or RLIMIT_RTPRIO lets it)",
		    rec->cfg.realtime, rec->cfg.realtime, strerror(-ret));
	if (ret)
		die("-o %s: cannot write the trace: %s", rec->out,
		    strerror(-ret));
}

void recorder_start(struct recorder *rec, struct mon_sink *extra)
{
	int go_fd = -1, err_fd = -1, ret;
	size_t i;

	if (rec->no_calibrate && rec->cal_file)
		die_usage("--no-calibrate or --calibration, not both");
	rec->cfg.calibration = rec->no_calibrate ? MON_SESSION_CAL_NONE :
			       rec->cal_file	 ? MON_SESSION_CAL_FILE :
						   MON_SESSION_CAL_QUICK;
	rec->cfg.calibration_file = rec->cal_file;
	if (rec->buffered_io)
		rec->cfg.flags |= MON_SESSION_BUFFERED_IO;
	rec->cfg.warn = rec->say ? rec->say : say_line;
	rec->cfg.warn_arg = rec->say_arg;
	flight_setup(rec);
	/* What can fail is tried before the calibration takes its time: the
	 * device and the right to record (-a), the output, the threads
	 * given (one that does not exist leaves no file). The monitor stays
	 * suspended meanwhile: it costs the calibration nothing. A
	 * system-wide monitor takes every thread at its resume. */
	open_monitor(rec);
	check_output(rec->out);
	/*
	 * No transparent huge pages for the recorder's own memory: a huge
	 * page fault clears 2 MiB, and the first one registers the process
	 * with khugepaged, whose scan then takes the CPU from the workload
	 * for milliseconds (4.3 ms at a time in bench-compensation's boots,
	 * in none of the unrecorded runs).
	 */
	thp_disable_before = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) > 0;
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	if (rec->cmd && (ret = command_error(rec->cmd[0]))) {
		warnx_("%s: %s", rec->cmd[0], strerror(ret));
		exit(127);
	}
	for (i = 0; i < rec->nr_tids && !rec->system; i++)
		monitor_or_die(rec, rec->tids[i]);
	/* Signals stay blocked since recorder_init(): recorder_wait() takes
	 * them with sigtimedwait(), and one that came while calibrating
	 * stops everything before the file is made. */
	calibrate(rec);
	stop_if_asked(rec);
	/* A flight recorder writes FILE.1, FILE.2, ...: FILE stays. */
	if (!rec->flight_bytes)
		keep_old_output(rec->out);
	prepare_or_die(rec, extra);
	if (rec->cmd) {
		rec->child = spawn(rec->cmd, &go_fd, &err_fd);
		add_tid(rec, rec->child);
		monitor_or_die(rec, rec->child);
	}
	ret = mon_session_start(rec->s, NULL);
	if (ret)
		die("resume: %s", monitor_strerror(ret));
	rec->running = true;
	if (rec->system) {
		unsigned int busy = 0;

		if (!monitor_busy_threads(mon_session_monitor(rec->s), &busy) &&
		    busy)
			warnx_("record -a: %u thread%s left out: another monitor tracks %s",
			       busy, busy == 1 ? "" : "s",
			       busy == 1 ? "it" : "them");
	}
	if (rec->child) {
		int e;

		if (write(go_fd, "g", 1) != 1)
			die("cannot start %s", rec->cmd[0]);
		close(go_fd);
		/* The error pipe closes on a successful exec. */
		if (read(err_fd, &e, sizeof(e)) == sizeof(e)) {
			warnx_("%s: %s", rec->cmd[0], strerror(e));
			rec->exec_failed = true;
		}
		close(err_fd);
	}
}

bool recorder_wait(struct recorder *rec, int ms)
{
	struct timespec tick = { ms / 1000, (long)(ms % 1000) * 1000000 };
	int sig;

	if (rec->exec_failed)
		return false;
	sig = sigtimedwait(&rec->sigs, NULL, &tick);
	if (sig == SIGUSR2 && !rec->flight_bytes)
		warnx_("SIGUSR2 (mkm trigger): not a flight recorder (--flight): ignored");
	if (sig == SIGUSR2 && rec->flight_bytes) {
		/* mkm trigger: a snapshot, as a mark that triggers. */
		int ret = mon_session_snapshot(rec->s, 0);

		if (ret)
			warnx_("SIGUSR2: no snapshot: %s",
			       monitor_strerror(ret));
	}
	if (sig == SIGINT || sig == SIGTERM) {
		/* Ctrl-C reached the command too; a second one ends us. */
		if (rec->child && rec->stop_asked)
			rec->stop_sig = sig;
		if (!rec->child || rec->stop_asked)
			return false;
		rec->stop_asked = true;
		kill(rec->child, sig);
	}
	if (rec->child &&
	    waitpid(rec->child, &rec->status, WNOHANG) == rec->child) {
		rec->reaped = true;
		return false;
	}
	return rec->child || rec->system || any_alive(rec);
}

void recorder_counts(struct recorder *rec, uint64_t *events, uint64_t *lost)
{
	mon_session_counts(rec->s, events, lost);
}

void recorder_stop(struct recorder *rec)
{
	if (!rec->running)
		return;
	rec->run_err = mon_session_stop(rec->s);
	rec->running = false;
}

/* A size as --buffer-size takes it: "512K", "4M", "1G". */
static const char *fmt_ring(char *buf, size_t len, uint64_t bytes)
{
	if (bytes >= 1u << 30 && !(bytes & ((1u << 30) - 1)))
		snprintf(buf, len, "%lluG", (unsigned long long)(bytes >> 30));
	else if (bytes >= 1u << 20 && !(bytes & ((1u << 20) - 1)))
		snprintf(buf, len, "%lluM", (unsigned long long)(bytes >> 20));
	else
		snprintf(buf, len, "%lluK", (unsigned long long)(bytes >> 10));
	return buf;
}

/*
 * A recording that lost events is not the one asked for: said last and
 * loudly, with how much went, what it looks like in the trace, and the
 * option that would have kept it.
 */
static void say_loss(const struct recorder *rec, uint64_t events, uint64_t lost)
{
	const struct monitor_config *cfg = mon_session_monitor_config(rec->s);
	uint64_t ring = cfg->ring_bytes;
	uint64_t more = mon_ring_bytes_after_loss(ring, events, lost);
	char have[32], want[32];

	fprintf(stderr,
		"mkm: WARNING: %llu events lost (%.1f%% of %llu): the rings (%s per CPU) filled faster than mkm read them; the threads' time in the gaps shows as UNKNOWN\n",
		(unsigned long long)lost, 100.0 * lost / (events + lost),
		(unsigned long long)(events + lost),
		fmt_ring(have, sizeof(have), ring));
	if (more)
		fprintf(stderr,
			"mkm: WARNING: to keep them, record again with --buffer-size %s%s\n",
			fmt_ring(want, sizeof(want), more),
			cfg->classes & MKM_CLASS_SYSCALL ?
				" (or without syscall events: --events default)" :
				"");
	else
		fprintf(stderr,
			"mkm: WARNING: the rings were the largest there are (%s): record fewer event classes (--events sched,lifecycle) or fewer threads\n",
			have);
}

/*
 * Probes that the module kept registered though no monitor wanted them
 * (another user's resume/suspend loop spent the ration of drops: struct
 * mkm_stats) cost the threads time that no record accounts for.
 */
static void say_deferrals(const struct mon_session_stats *st)
{
	if (st->deferrals_end == st->deferrals_start &&
	    !(st->deferrals_start & MKM_STATS_DEFERRING))
		return;
	warnx_("the module kept probes registered that no monitor wanted during the recording (a resume/suspend loop of a user without CAP_PERFMON): the threads paid for them, and compensation cannot take that out");
}

/* A flight recorder's end: what it wrote, and what it did not. */
static void say_flight(const struct recorder *rec)
{
	struct mon_session_flight_counts c;

	if (mon_session_flight_counts(rec->s, &c))
		return;
	fprintf(stderr,
		"mkm: flight recorder: %u snapshot%s written (%s.1 on), %llu trigger%s",
		c.written, c.written == 1 ? "" : "s", rec->out,
		(unsigned long long)c.triggers, c.triggers == 1 ? "" : "s");
	if (c.held_off)
		fprintf(stderr, "; %u within --hold-off", c.held_off);
	if (c.over_max)
		fprintf(stderr, "; %u past --max-snapshots", c.over_max);
	if (c.failed)
		fprintf(stderr, "; %u could not be written", c.failed);
	fputc('\n', stderr);
}

int recorder_finish(struct recorder *rec)
{
	const struct mon_meta *meta;
	struct mon_session_stats st;
	uint64_t events = 0;
	double cpu_ns;

	recorder_stop(rec);
	if (rec->exec_failed)
		waitpid(rec->child, &rec->status, 0);
	else if (rec->child && !rec->reaped)
		warnx_("%s (pid %d) still runs, no longer monitored",
		       rec->cmd[0], rec->child);
	if (rec->flight_bytes) {
		if (rec->run_err)
			warnx_("flight recorder: %s", strerror(-rec->run_err));
		say_flight(rec);
		goto out;
	}
	if (rec->run_err)
		die("%s: %s: the trace is incomplete", rec->out,
		    mon_session_error(rec->s));
	meta = mon_session_meta(rec->s);
	recorder_counts(rec, &events, NULL);
	if (rec->system)
		fprintf(stderr,
			"mkm: wrote %s: %llu events from every thread of the machine\n",
			rec->out, (unsigned long long)events);
	else
		fprintf(stderr,
			"mkm: wrote %s: %llu events from %zu thread%s\n",
			rec->out, (unsigned long long)events, rec->nr_tids,
			rec->nr_tids == 1 ? " and its children" : "s");
	/* The recorder's own cost: part of what monitoring perturbs, which
	 * compensation must account for. */
	if (mon_session_stats(rec->s, &st))
		memset(&st, 0, sizeof(st));
	cpu_ns = st.user_ns + st.sys_ns;
	if (st.live.events)
		fprintf(stderr,
			"mkm: recorder: %.1f ms CPU for %llu events (%.0f ns each, %.0f%% in the kernel; %llu drains, %llu reads, %llu batches, %llu wake-ups; %s)\n",
			cpu_ns / 1e6, (unsigned long long)st.live.events,
			cpu_ns / (double)st.live.events,
			cpu_ns > 0 ? 100 * st.sys_ns / cpu_ns : 0,
			(unsigned long long)st.live.drains,
			(unsigned long long)st.live.reads,
			(unsigned long long)st.live.batches,
			(unsigned long long)st.live.signals,
			st.direct ? "written with O_DIRECT" :
				    "written through the page cache");
	say_deferrals(&st);
	if (meta->lost_by_stats)
		say_loss(rec, events, meta->lost_by_stats);
out:
	mon_session_destroy(rec->s);
	rec->s = NULL;
	free(rec->tids);
	/* As strace, time and perf: the command's status, 128 + its signal,
	 * or ours if a second Ctrl-C left it running. */
	if (rec->exec_failed)
		return 127;
	if (rec->reaped && WIFEXITED(rec->status))
		return WEXITSTATUS(rec->status);
	if (rec->reaped && WIFSIGNALED(rec->status))
		return 128 + WTERMSIG(rec->status);
	return rec->stop_sig ? 128 + rec->stop_sig : 0;
}
