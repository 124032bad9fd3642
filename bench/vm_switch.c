// SPDX-License-Identifier: GPL-2.0
/*
 * vm_switch.c - the cost of a context switch under each tracer, in the guest.
 *
 * Runs in the test VM as root, under QEMU's -icount with one virtual CPU,
 * where guest time is a function of guest instructions: the difference in
 * CLOCK_MONOTONIC per context switch between a configuration and the
 * no-tracing baseline is the number of instructions the tracer added
 * (times two, with shift=1), free of host noise.
 *
 * Two threads pinned to CPU 0 ping-pong a byte over pipes (examples/common
 * pingpong.c): every round trip is two context switches. First the
 * baseline, runs times, with mkm.ko never loaded in this boot (the image
 * keeps it away from the guest's init). With wakeup preemption on, the
 * baseline cost 30 to 150 instructions more than "loaded", varying from
 * one measurement to the next, though no mkm code runs in either state
 * (below, and docs/performance.md); before any load is where it is
 * steadiest. Then mkm.ko is loaded, and in each run the other
 * configurations are measured one after the other, so that drift hits
 * them alike:
 *
 *   base        mkm.ko not loaded: the no-tracing baseline
 *   loaded      mkm.ko loaded, no monitor: must cost nothing
 *   suspended   both threads tracked by a monitor that is not resumed:
 *               must cost nothing either (no switch probe is registered)
 *   const       a monitor resumed on another, sleeping thread: every switch
 *               pays the "is this thread monitored?" check (MKM Fig. 13)
 *   mon         both threads monitored, default classes (MKM Fig. 12),
 *               a switch between them one record (MKM_CONFIG_ONE_SWITCH)
 *   mon-two     the same in the two records of ABI 2.3 (SWITCH_OUT and
 *               SWITCH_IN), as a reader that does not ask for one gets it
 *   mon-wake    the same and MKM_CLASS_WAKEUP: switches and wakeups, as
 *               the ftrace configurations record
 *   mon-all     both threads monitored, every class of --events all
 *               (MON_CLASS_RECORD_ALL: not the fair class's state)
 *   ftrace-pid  ftrace: sched_switch and sched_wakeup, set_event_pid to the
 *               two threads
 *   ftrace-all  ftrace: the same events, unfiltered
 *   perf-task   perf record of sched_switch, sched_waking and sched_wakeup
 *               attached to the two threads (-t), writing to a tmpfs
 *   perf-other  the same attached to another process's sleeping thread
 *   lttng-pid   an LTTng kernel session recording the same three events,
 *               tracking this process's PID, its consumer draining to a
 *               tmpfs
 *   lttng-other the same session tracking another, sleeping process
 *   bpf-pid     the eBPF peer (bench/peers/bpf_sched.bpf.c): tp_btf
 *               programs on sched_switch and sched_wakeup, filtered in BPF
 *               to the two threads, into a BPF ring buffer that
 *               bpf_sched drains to a tmpfs
 *   bpf-batch   the same, waking its reader only once 256 KiB wait (as
 *               perf record's default buffer does at half its size)
 *   bpf-other   the same as bpf-pid, filtered to another process's sleeping
 *               thread
 *   bpftrace-pid  a bpftrace one-liner printing the same events of the
 *               two threads to a tmpfs
 *   floor-none  floor.ko loaded, no probe (bench/floor/floor.c)
 *   floor-nop   floor.ko's probe on sched_switch, returning at once
 *   floor-count floor.ko's probe on sched_switch, bumping a per-CPU counter
 *   mon-sys     a system-wide monitor (MKM_CONFIG_SYSTEM), default classes:
 *               every thread of the machine, the two among them
 *   mon-flight  mon as a flight recorder armed and never triggered
 *               (MKM_CONFIG_FLIGHT, a 1 s run-queue trigger), its rings
 *               small enough to come round many times a run: every
 *               record takes the overwriting branch, no reader runs
 *
 * LTTng's kernel PID tracker matches the current task's tgid (lttng-modules
 * 2.13, tracepoint-event-impl.h), not its tid: tracking this process's PID
 * covers both threads, and a thread of it created later too; a switch is
 * recorded when the thread going out is tracked, a wakeup when the waker
 * is. The peers run as children of this program, set up before the timed
 * run and stopped after it; their consumers (perf record's reads,
 * lttng-consumerd, bpf_sched's and bpftrace's drains) run during it, on
 * the same CPU, so their cost is in the figure. A configuration whose tool or module is not in the image (the
 * smoke test's) is skipped with a message.
 *
 * Each line of the output file is one measurement:
 *   run config rounds switches ns events lost other irqs softirqs preempted
 * (events and lost: records mkm produced and dropped, samples perf wrote,
 * records bpf_sched and bpftrace wrote and dropped,
 * the probe calls floor.ko counted, 0 where unknown; other: context switches
 * of the rest of the machine meanwhile; irqs and softirqs: the machine's
 * interrupts and softirqs meanwhile, /proc/stat; preempted: the two
 * threads' involuntary switches, 0 with wakeup preemption off, as set
 * below). The host turns it into a table (bench/table.awk).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calibrate/workload.h"

#define TRACEFS "/sys/kernel/tracing"

enum config {
	C_BASE,
	C_LOADED,
	C_SUSPENDED,
	C_CONST,
	C_MON,
	C_MON_TWO,
	C_MON_WAKE,
	C_MON_ALL,
	C_FTRACE_PID,
	C_FTRACE_ALL,
	C_PERF_TASK,
	C_PERF_OTHER,
	C_LTTNG_PID,
	C_LTTNG_OTHER,
	C_BPF_PID,
	C_BPF_BATCH,
	C_BPF_OTHER,
	C_BPFTRACE_PID,
	C_FLOOR_NONE,
	C_FLOOR_NOP,
	C_FLOOR_COUNT,
	C_MON_SYS,
	C_MON_FLIGHT,
	C_NR
};

static const char *const config_name[C_NR] = {
	"base",	       "loaded",       "suspended",  "const",
	"mon",	       "mon-two",      "mon-wake",   "mon-all",
	"ftrace-pid",  "ftrace-all",   "perf-task",  "perf-other",
	"lttng-pid",   "lttng-other",  "bpf-pid",    "bpf-batch",
	"bpf-other",   "bpftrace-pid", "floor-none", "floor-nop",
	"floor-count", "mon-sys",      "mon-flight",
};

static const char *module_path = "/mkm.ko";
static const char *floor_path = "/bench/floor.ko";

static int module_load(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0) {
		fprintf(stderr, "vm_switch: %s: %s\n", path, strerror(errno));
		return -1;
	}
	ret = (int)syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	if (ret && errno != EEXIST) {
		fprintf(stderr, "vm_switch: loading %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	return 0;
}

static int module_unload(const char *name)
{
	if (syscall(SYS_delete_module, name, O_NONBLOCK) && errno != ENOENT) {
		fprintf(stderr, "vm_switch: unloading %s: %s\n", name,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* The whole machine's context switches, interrupts and softirqs so far. */
struct machine {
	unsigned long long ctxt, intr, softirq;
};

static struct machine machine_now(void)
{
	struct machine m = { 0, 0, 0 };
	/* intr's line lists every IRQ: only its first number is read. */
	static char line[16384];
	FILE *f = fopen("/proc/stat", "re");

	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "ctxt %llu", &m.ctxt);
		sscanf(line, "intr %llu", &m.intr);
		sscanf(line, "softirq %llu", &m.softirq);
	}
	if (f)
		fclose(f);
	return m;
}

static int write_file(const char *path, const char *text)
{
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		fprintf(stderr, "vm_switch: %s: %s\n", path, strerror(errno));
		ret = -1;
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

static int tracefs_write(const char *file, const char *text)
{
	char path[256];

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	return write_file(path, text);
}

static int ftrace_events(const char *on)
{
	if (tracefs_write("events/sched/sched_switch/enable", on) ||
	    tracefs_write("events/sched/sched_wakeup/enable", on))
		return -1;
	return 0;
}

/*
 * The peers run as children: fds 3 and 4 of the child are @ctl and @ack if
 * given, its output goes to @log. Returns the child's pid, or -1.
 */
static pid_t spawn(const char *const argv[], const char *log, int ctl, int ack)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		if (ctl >= 0 && (dup2(ctl, 3) < 0 || dup2(ack, 4) < 0))
			_exit(126);
		/* execvp's prototype predates const; it writes nothing. */
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid < 0)
		fprintf(stderr, "vm_switch: fork: %s\n", strerror(errno));
	return pid;
}

static void print_log(const char *log)
{
	char line[512];
	FILE *f = fopen(log, "re");

	while (f && fgets(line, sizeof(line), f))
		fprintf(stderr, "  %s", line);
	if (f)
		fclose(f);
}

#define PEER_LOG "/tmp/vm_switch.peer.log"

/* Runs a command to its end; 0 if it succeeded, else says why. */
static int run(const char *const argv[])
{
	pid_t pid = spawn(argv, PEER_LOG, -1, -1);
	int st = 0;

	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    !WEXITSTATUS(st))
		return 0;
	fprintf(stderr, "vm_switch: failed (status %d):", st);
	for (int i = 0; argv[i]; i++)
		fprintf(stderr, " %s", argv[i]);
	fprintf(stderr, "\n");
	print_log(PEER_LOG);
	return -1;
}

/*
 * The thread the "other" configurations attach to: a process of its own
 * (LTTng tracks processes), asleep for the whole benchmark.
 */
static pid_t other_pid = -1;

static int other_start(void)
{
	other_pid = fork();
	if (other_pid == 0)
		for (;;)
			pause();
	return other_pid > 0 ? 0 : -1;
}

static void other_stop(void)
{
	if (other_pid > 0 && !kill(other_pid, SIGKILL))
		waitpid(other_pid, NULL, 0);
}

/* What a configuration holds while it is measured. */
struct setup {
	struct keeper *keeper;
	struct monitor *mon;
	pid_t perf;
	int perf_ctl, perf_ack;
	pid_t bpf; /* bpf_sched or bpftrace */
};

#define PERF_LOG "/tmp/vm_switch.perf.log"
#define PERF_DATA "/dev/shm/vm_switch.perf.data"

/*
 * perf record of the three events on @tids, per task (-t: no inherit, one
 * event per thread). It starts with its events off (-D -1) and is told to
 * turn them on through its control pipe, which it acknowledges: the timed
 * run starts with perf recording, past its start-up.
 */
static int perf_start(struct setup *s, const char *tids)
{
	const char *argv[] = { "perf",	    "record",
			       "-e",	    "sched:sched_switch",
			       "-e",	    "sched:sched_waking",
			       "-e",	    "sched:sched_wakeup",
			       "-t",	    tids,
			       "-D",	    "-1",
			       "--control", "fd:3,4",
			       "-o",	    PERF_DATA,
			       NULL };
	int ctl[2], ack[2], ret = -1;
	char buf[16];
	ssize_t n;

	if (pipe2(ctl, O_CLOEXEC) || pipe2(ack, O_CLOEXEC))
		return -1;
	s->perf = spawn(argv, PERF_LOG, ctl[0], ack[1]);
	close(ctl[0]);
	close(ack[1]);
	/*
	 * Both stay open until perf stops: a control pipe closed under it
	 * makes perf record 6.1 give up ("Thread and evlist pollfd index
	 * mismatch").
	 */
	s->perf_ctl = ctl[1];
	s->perf_ack = ack[0];
	if (s->perf > 0 && write(ctl[1], "enable\n", 7) == 7) {
		n = read(ack[0], buf, sizeof(buf) - 1);
		if (n > 0 && !strncmp(buf, "ack", 3))
			ret = 0;
	}
	if (ret) {
		fprintf(stderr, "vm_switch: perf record did not start:\n");
		print_log(PERF_LOG);
	}
	return ret;
}

/* Stops perf record; the samples it wrote, from its closing line. */
static int perf_stop(struct setup *s, uint64_t *samples)
{
	char line[512];
	unsigned long long n;
	int st = 0;
	FILE *f;

	if (s->perf <= 0)
		return 0;
	kill(s->perf, SIGINT);
	waitpid(s->perf, &st, 0);
	close(s->perf_ctl);
	close(s->perf_ack);
	/*
	 * perf's hooks in every context switch stay on for a second after
	 * its last event is closed (perf_sched_events is turned off by a
	 * delayed work): wait it out (free under -icount's sleep=on), or the
	 * next configuration pays for them (floor-none measured +151 over
	 * loaded right after perf-other, where LTTng did not come between).
	 */
	sleep(2);
	f = fopen(PERF_LOG, "re");
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, " samples) ]");

		while (p && p > line && p[-1] >= '0' && p[-1] <= '9')
			p--;
		if (p && sscanf(p, "%llu", &n) == 1)
			*samples = n;
	}
	if (f)
		fclose(f);
	unlink(PERF_DATA);
	return 0;
}

#define LTTNG_SESSION "vm_switch"
#define LTTNG_OUTPUT "/dev/shm/vm_switch.lttng"
#define LTTNG_CONSUMERD \
	"/usr/lib/x86_64-linux-gnu/lttng/libexec/lttng-consumerd"

/*
 * The session daemon, started once (-d returns once it is ready), loading
 * only the probes of the sched events of LTTng's modules. Its consumer
 * daemon starts with the first kernel session and stays.
 */
static int lttng_daemon(void)
{
	static int started;
	const char *argv[] = { "lttng-sessiond", "-d", "--kmod-probes=sched",
			       "--consumerd64-path=" LTTNG_CONSUMERD, NULL };

	if (started)
		return started > 0 ? 0 : -1;
	/* Its run directory, /var/run/lttng: the image has no /var. */
	mkdir("/var", 0755);
	mkdir("/var/run", 0755);
	started = run(argv) ? -1 : 1;
	return started > 0 ? 0 : -1;
}

/* A kernel session recording the three events of process @pid. */
static int lttng_start(pid_t pid)
{
	char track[32];
	const char *create[] = { "lttng", "create", LTTNG_SESSION,
				 "--output=" LTTNG_OUTPUT, NULL };
	const char *events[] = { "lttng",
				 "enable-event",
				 "--kernel",
				 "--session=" LTTNG_SESSION,
				 "sched_switch,sched_waking,sched_wakeup",
				 NULL };
	const char *tracker[] = { "lttng",    "track",
				  "--kernel", "--session=" LTTNG_SESSION,
				  track,      NULL };
	const char *start[] = { "lttng", "start", LTTNG_SESSION, NULL };

	snprintf(track, sizeof(track), "--pid=%d", (int)pid);
	if (lttng_daemon() || run(create) || run(events) || run(tracker) ||
	    run(start))
		return -1;
	return 0;
}

/* Ends the session; the events it discarded, from lttng stop's warning. */
static void lttng_stop(uint64_t *discarded)
{
	const char *stop[] = { "lttng", "stop", LTTNG_SESSION, NULL };
	const char *destroy[] = { "lttng", "destroy", LTTNG_SESSION, NULL };
	const char *rm[] = { "rm", "-rf", LTTNG_OUTPUT, NULL };
	unsigned long long n;
	char line[512];
	FILE *f;

	run(stop);
	f = fopen(PEER_LOG, "re");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "events were discarded") &&
		    sscanf(line, "Warning: %llu", &n) == 1)
			*discarded = n;
	if (f)
		fclose(f);
	run(destroy);
	run(rm);
}

#define BPF_LOG "/tmp/vm_switch.bpf.log"
#define BPF_DATA "/dev/shm/vm_switch.bpf"

/* bpf-batch's wakeup: half of perf record's default 512 KiB a CPU. */
#define BPF_BATCH_WAKEUP "262144"

/*
 * The eBPF peer: bpf_sched loads its programs filtered to @tids, with a
 * ring buffer of @ring_bytes that wakes its reader at @wakeup bytes ("0":
 * the ring buffer's default), and says "ready" on fd 4 once they are
 * attached; it drains the ring into a tmpfs file until SIGINT.
 */
static int bpf_start(struct setup *s, const char *tids, uint64_t ring_bytes,
		     const char *wakeup)
{
	char size[32];
	const char *argv[] = { "bpf_sched", "-b", size, "-w", wakeup, "-o",
			       BPF_DATA,    "-r", "4",	tids, NULL };
	int ack[2], ret = -1;
	char buf[16];
	ssize_t n;

	snprintf(size, sizeof(size), "%llu", (unsigned long long)ring_bytes);
	if (pipe2(ack, O_CLOEXEC))
		return -1;
	s->bpf = spawn(argv, BPF_LOG, ack[1], ack[1]);
	close(ack[1]);
	if (s->bpf > 0) {
		n = read(ack[0], buf, sizeof(buf) - 1);
		if (n > 0 && !strncmp(buf, "ready", 5))
			ret = 0;
	}
	close(ack[0]);
	if (ret) {
		fprintf(stderr, "vm_switch: bpf_sched did not start:\n");
		print_log(BPF_LOG);
	}
	return ret;
}

/* Stops bpf_sched; the records it wrote and those its program dropped. */
static void bpf_stop(struct setup *s, uint64_t *records, uint64_t *lost)
{
	unsigned long long n, l;
	char line[512];
	FILE *f;

	kill(s->bpf, SIGINT);
	waitpid(s->bpf, NULL, 0);
	f = fopen(BPF_LOG, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "bpf_sched: %llu records, %llu lost", &n,
			   &l) == 2) {
			*records = n;
			*lost = l;
		}
	if (f)
		fclose(f);
	unlink(BPF_DATA);
}

#define BPFTRACE_DATA "/dev/shm/vm_switch.bpftrace"

/* Whether bpftrace's output has an event line yet (S or W, below). */
static bool bpftrace_recording(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen(BPFTRACE_DATA, "re");

	while (f && !found && fgets(line, sizeof(line), f))
		found = (line[0] == 'S' || line[0] == 'W') && line[1] == ' ';
	if (f)
		fclose(f);
	return found;
}

/*
 * The bpftrace one-liner a user would type for the same events of the two
 * threads, its output redirected to a tmpfs. bpftrace compiles it with
 * LLVM and attaches it to the tracepoints (perf's tracepoint events, each
 * a BPF program's hook); its events come back through a perf buffer per
 * CPU, which bpftrace polls and formats. It says nothing once attached,
 * and its output may be fully buffered: ping-pong until the first event
 * lines are in the file.
 */
static int bpftrace_start(struct setup *s, struct pingpong *pp,
			  uint64_t ring_bytes)
{
	char prog[1024], pages[32];
	const char *argv[] = { "bpftrace", "-e", prog, NULL };
	int a = (int)pp->main_tid, b = (int)pp->peer_tid;

	snprintf(prog, sizeof(prog),
		 "tracepoint:sched:sched_switch"
		 " /args->prev_pid == %d || args->prev_pid == %d ||"
		 " args->next_pid == %d || args->next_pid == %d/"
		 " { printf(\"S %%llu %%d %%d %%d %%d\\n\", nsecs, cpu,"
		 " args->prev_pid, args->prev_state, args->next_pid); }"
		 " tracepoint:sched:sched_wakeup"
		 " /args->pid == %d || args->pid == %d/"
		 " { printf(\"W %%llu %%d %%d %%d %%d\\n\", nsecs, cpu,"
		 " args->pid, tid, args->target_cpu); }",
		 a, b, a, b, a, b);
	/* Its perf buffer per CPU as big as the others' rings (pages). */
	snprintf(pages, sizeof(pages), "%llu",
		 (unsigned long long)ring_bytes / 4096);
	setenv("BPFTRACE_PERF_RB_PAGES", pages, 1);
	s->bpf = spawn(argv, BPFTRACE_DATA, -1, -1);
	if (s->bpf <= 0)
		return -1;
	/* LLVM under TCG: up to a few minutes of the host's time. */
	for (int i = 0; i < 3000; i++) {
		if (bpftrace_recording())
			return 0;
		if (waitpid(s->bpf, NULL, WNOHANG) == s->bpf)
			break;
		pingpong_run(pp, 20);
		usleep(100000);
	}
	fprintf(stderr, "vm_switch: bpftrace recorded nothing:\n");
	print_log(BPFTRACE_DATA);
	return -1;
}

/* bpftrace's event lines so far, and the events it said it lost. */
static uint64_t bpftrace_lines(uint64_t *lost)
{
	unsigned long long n, lines = 0;
	char line[512];
	FILE *f = fopen(BPFTRACE_DATA, "re");

	while (f && fgets(line, sizeof(line), f)) {
		if ((line[0] == 'S' || line[0] == 'W') && line[1] == ' ')
			lines++;
		else if (lost && sscanf(line, "Lost %llu events", &n) == 1)
			*lost += n;
	}
	if (f)
		fclose(f);
	return lines;
}

/* Stops bpftrace; the event lines it wrote and the events it lost. */
static void bpftrace_stop(struct setup *s, uint64_t *records, uint64_t *lost)
{
	uint64_t behind = bpftrace_lines(NULL);
	off_t size = -1024;
	struct stat st;

	/*
	 * bpftrace does not drain its buffers when interrupted, and its
	 * reader, formatting each event, falls behind the run: let it catch
	 * up first (after the timed run: this costs the figure nothing),
	 * so that the count is of every event. This thread is one of the
	 * two, so its own sleeps add a few lines each time: caught up is
	 * under 1 KiB more in half a second.
	 */
	for (int i = 0;
	     i < 600 && !stat(BPFTRACE_DATA, &st) && st.st_size > size + 1024;
	     i++) {
		size = st.st_size;
		usleep(500000);
	}
	kill(s->bpf, SIGINT);
	waitpid(s->bpf, NULL, 0);
	*records = bpftrace_lines(lost);
	printf("vm_switch: bpftrace had written %llu of its %llu events when "
	       "the run ended\n",
	       (unsigned long long)behind, (unsigned long long)*records);
	unlink(BPFTRACE_DATA);
}

/* Involuntary switches of the ping-pong's two threads so far (/proc). */
static uint64_t preempted(const struct pingpong *pp)
{
	pid_t tids[2] = { pp->main_tid, pp->peer_tid };
	unsigned long long v, n = 0;
	char path[64], line[128];

	for (int i = 0; i < 2; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/task/%d/status",
			 (int)tids[i]);
		f = fopen(path, "re");
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "nonvoluntary_ctxt_switches: %llu",
				   &v) == 1)
				n += v;
		if (f)
			fclose(f);
	}
	return n;
}

/*
 * CFS's wakeup preemption off: the ping-pong's every switch then blocks
 * one thread and wakes the other. With it on, a thread whose write wakes
 * a peer far enough behind in virtual runtime is preempted at once (an
 * involuntary switch, cheaper: no sleep and wakeup for the writer), and
 * how far behind depends on what the measuring thread did before (loading
 * a module, starting a tracer): the mix of the two kinds of switch, and
 * the cost per switch with it, moved with the history of the boot by up
 * to 150 instructions (docs/performance.md). The tunable is in debugfs
 * on 6.1 (SCHED_DEBUG); EEVDF (6.6 on) has none, and the scheduler
 * feature WAKEUP_PREEMPTION is turned off instead; a kernel with neither
 * keeps its default.
 */
#define WAKEUP_GRANULARITY "/sys/kernel/debug/sched/wakeup_granularity_ns"
#define SCHED_FEATURES "/sys/kernel/debug/sched/features"

/* The setting found, put back at the end (the smoke test's guest goes on). */
static char wakeup_granularity[32];
static int wakeup_feature_off;

static void no_wakeup_preemption(void)
{
	FILE *f = fopen(WAKEUP_GRANULARITY, "re");

	if (f && fgets(wakeup_granularity, sizeof(wakeup_granularity), f) &&
	    !write_file(WAKEUP_GRANULARITY, "1000000000")) {
		fclose(f);
		return;
	}
	wakeup_granularity[0] = 0;
	if (f)
		fclose(f);
	if (!write_file(SCHED_FEATURES, "NO_WAKEUP_PREEMPTION")) {
		wakeup_feature_off = 1;
		return;
	}
	printf("vm_switch: neither %s nor %s: wakeup preemption left as it is\n",
	       WAKEUP_GRANULARITY, SCHED_FEATURES);
}

static void wakeup_preemption_restore(void)
{
	if (wakeup_granularity[0])
		write_file(WAKEUP_GRANULARITY, wakeup_granularity);
	if (wakeup_feature_off)
		write_file(SCHED_FEATURES, "WAKEUP_PREEMPTION");
}

/* The probe calls floor.ko counted so far (mode=count). */
static uint64_t floor_switches(void)
{
	unsigned long long v = 0;
	FILE *f = fopen("/sys/module/floor/parameters/switches", "re");

	if (f && fscanf(f, "%llu", &v) != 1)
		v = 0;
	if (f)
		fclose(f);
	return v;
}

/*
 * The window of a QEMU plugin's profile (bench/prof/tbprof.c) around each
 * timed run: two instructions that do nothing, which no compiler emits.
 * The plugin knows x86-64's only: on another architecture (bench-vm-arm64)
 * there is no window, and nothing is emitted.
 */
#ifdef __x86_64__
static inline void prof_open(void)
{
	__asm__ volatile("xchg %%rbx, %%rbx" ::: "memory");
}

static inline void prof_close(void)
{
	__asm__ volatile("xchg %%rcx, %%rcx" ::: "memory");
}
#else
static inline void prof_open(void)
{
}

static inline void prof_close(void)
{
}
#endif

/* Whether this image has what configuration @c needs. */
static bool available(enum config c)
{
	switch (c) {
	case C_FTRACE_PID:
	case C_FTRACE_ALL:
		return !access(TRACEFS "/events/sched/sched_switch/enable",
			       W_OK);
	case C_PERF_TASK:
	case C_PERF_OTHER:
		return !access("/usr/bin/perf", X_OK);
	case C_LTTNG_PID:
	case C_LTTNG_OTHER:
		return !access("/usr/bin/lttng-sessiond", X_OK);
	case C_BPF_PID:
	case C_BPF_BATCH:
	case C_BPF_OTHER:
		return !access("/usr/bin/bpf_sched", X_OK);
	case C_BPFTRACE_PID:
		return !access("/usr/bin/bpftrace", X_OK);
	case C_FLOOR_NONE:
	case C_FLOOR_NOP:
	case C_FLOOR_COUNT:
		return !access(floor_path, R_OK);
	default:
		return true;
	}
}

/*
 * A ring with room for every record of a run of @rounds round trips (a few
 * per switch per class), a power of two; mkm's and the eBPF peer's alike.
 */
static uint64_t ring_size(unsigned long rounds)
{
	uint64_t want = (uint64_t)rounds * 2 * 16 * sizeof(struct mkm_event);
	/* At least the default: interrupts add records on a slow guest. */
	uint64_t bytes = MKM_RING_DEFAULT_BYTES;

	while (bytes < want && bytes < MKM_RING_MAX_BYTES)
		bytes *= 2;
	return bytes;
}

/* A monitor configured as @cfg, tracking the two threads. */
static int pair_start(struct setup *s, const struct pingpong *pp,
		      struct monitor_config cfg, bool resume)
{
	int ret;

	ret = monitor_create_at(&s->mon, NULL, &cfg);
	if (!ret)
		ret = thread_monitor(s->mon, 1, pp->main_tid);
	if (!ret)
		ret = thread_monitor(s->mon, 2, pp->peer_tid);
	if (!ret && resume)
		ret = monitor_resume(s->mon);
	if (ret)
		fprintf(stderr, "vm_switch: monitor: %s\n",
			monitor_strerror(ret));
	return ret;
}

static int monitored_start(struct setup *s, const struct pingpong *pp,
			   unsigned long rounds, uint32_t classes, bool resume,
			   uint32_t flags)
{
	struct monitor_config cfg = { .classes = classes,
				      .ring_bytes = ring_size(rounds),
				      .flags = flags };

	return pair_start(s, pp, cfg, resume);
}

/*
 * A flight recorder armed, never triggered: rings of 64 KiB, which a run
 * fills many times over, so that every record overwrites.
 */
static int flight_start(struct setup *s, const struct pingpong *pp)
{
	struct monitor_config cfg = { .ring_bytes = 64 << 10,
				      .flags = MKM_CONFIG_ONE_SWITCH |
					       MKM_CONFIG_FLIGHT,
				      .trigger_runq_ns = 1000000000ull };

	return pair_start(s, pp, cfg, true);
}

/* A system-wide monitor: it takes the two threads with all the others. */
static int system_start(struct setup *s, unsigned long rounds)
{
	struct monitor_config cfg = { .ring_bytes = ring_size(rounds),
				      .flags = MKM_CONFIG_SYSTEM |
					       MKM_CONFIG_ONE_SWITCH };
	int ret;

	ret = monitor_create_at(&s->mon, NULL, &cfg);
	if (!ret)
		ret = monitor_resume(s->mon);
	if (ret)
		fprintf(stderr, "vm_switch: monitor: %s\n",
			monitor_strerror(ret));
	return ret;
}

static int setup(enum config c, struct setup *s, struct pingpong *pp,
		 unsigned long rounds)
{
	char pids[64];

	memset(s, 0, sizeof(*s));
	switch (c) {
	case C_BASE:
		return module_unload("mkm");
	case C_LOADED:
		return module_load(module_path, "");
	case C_SUSPENDED:
		return monitored_start(s, pp, rounds, MKM_CLASS_DEFAULT, false,
				       MKM_CONFIG_ONE_SWITCH);
	case C_CONST:
		return keeper_start(&s->keeper);
	case C_MON:
		return monitored_start(s, pp, rounds, MKM_CLASS_DEFAULT, true,
				       MKM_CONFIG_ONE_SWITCH);
	case C_MON_TWO:
		return monitored_start(s, pp, rounds, MKM_CLASS_DEFAULT, true,
				       0);
	case C_MON_WAKE:
		return monitored_start(s, pp, rounds,
				       MKM_CLASS_DEFAULT | MKM_CLASS_WAKEUP,
				       true, MKM_CONFIG_ONE_SWITCH);
	case C_MON_ALL:
		return monitored_start(s, pp, rounds, MON_CLASS_RECORD_ALL, true,
				       MKM_CONFIG_ONE_SWITCH);
	case C_FTRACE_PID:
		snprintf(pids, sizeof(pids), "%d %d", (int)pp->main_tid,
			 (int)pp->peer_tid);
		if (tracefs_write("set_event_pid", pids))
			return -1;
		return ftrace_events("1");
	case C_FTRACE_ALL:
		return ftrace_events("1");
	case C_PERF_TASK:
		snprintf(pids, sizeof(pids), "%d,%d", (int)pp->main_tid,
			 (int)pp->peer_tid);
		return perf_start(s, pids);
	case C_PERF_OTHER:
		snprintf(pids, sizeof(pids), "%d", (int)other_pid);
		return perf_start(s, pids);
	case C_LTTNG_PID:
		return lttng_start(getpid());
	case C_LTTNG_OTHER:
		return lttng_start(other_pid);
	case C_BPF_PID:
	case C_BPF_BATCH:
		snprintf(pids, sizeof(pids), "%d,%d", (int)pp->main_tid,
			 (int)pp->peer_tid);
		return bpf_start(s, pids, ring_size(rounds),
				 c == C_BPF_BATCH ? BPF_BATCH_WAKEUP : "0");
	case C_BPF_OTHER:
		snprintf(pids, sizeof(pids), "%d", (int)other_pid);
		return bpf_start(s, pids, ring_size(rounds), "0");
	case C_BPFTRACE_PID:
		return bpftrace_start(s, pp, ring_size(rounds));
	case C_FLOOR_NONE:
		return module_load(floor_path, "mode=none");
	case C_FLOOR_NOP:
		return module_load(floor_path, "mode=nop");
	case C_FLOOR_COUNT:
		return module_load(floor_path, "mode=count");
	case C_MON_SYS:
		return system_start(s, rounds);
	case C_MON_FLIGHT:
		return flight_start(s, pp);
	default:
		return -1;
	}
}

/* Undoes setup(); the records mkm produced and dropped. */
static void teardown(enum config c, struct setup *s, uint64_t *events,
		     uint64_t *lost)
{
	struct mkm_cpu_stats st[64];
	unsigned int n = 64, i;

	*events = *lost = 0;
	if (s->mon) {
		monitor_suspend(s->mon);
		if (!monitor_statistics(s->mon, st, &n))
			for (i = 0; i < n && i < 64; i++) {
				*events += st[i].produced;
				*lost += st[i].lost;
			}
		monitor_terminate(s->mon);
	}
	keeper_stop(s->keeper);
	if (c == C_FTRACE_PID || c == C_FTRACE_ALL) {
		ftrace_events("0");
		tracefs_write("set_event_pid", "");
		tracefs_write("trace", "");
	}
	if (c == C_PERF_TASK || c == C_PERF_OTHER)
		perf_stop(s, events);
	if (c == C_LTTNG_PID || c == C_LTTNG_OTHER)
		lttng_stop(lost);
	if (c == C_BPF_PID || c == C_BPF_BATCH || c == C_BPF_OTHER)
		bpf_stop(s, events, lost);
	if (c == C_BPFTRACE_PID)
		bpftrace_stop(s, events, lost);
	if (c == C_FLOOR_NONE || c == C_FLOOR_NOP || c == C_FLOOR_COUNT)
		module_unload("floor");
}

static void usage(void)
{
	fprintf(stderr, "usage: vm_switch [-n ROUNDS] [-r RUNS] [-m MODULE] "
			"[-f FLOOR-MODULE] [-o FILE] [-c CONFIG,...] [-P]\n");
	exit(2);
}

/* Whether name is one of the comma-separated list. */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p; p = strchr(p, ',')) {
		p += *p == ',';
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	unsigned long rounds = 20000, runs = 5, r;
	const char *out = "/out/vm_switch.tsv", *only = NULL;
	struct pingpong pp;
	int opt, ret;
	bool skip[C_NR], preemption = false;
	FILE *f;

	while ((opt = getopt(argc, argv, "n:r:m:f:o:c:P")) != -1) {
		if (opt == 'n' && atol(optarg) > 0)
			rounds = atol(optarg);
		else if (opt == 'r' && atol(optarg) > 0)
			runs = atol(optarg);
		else if (opt == 'm')
			module_path = optarg;
		else if (opt == 'f')
			floor_path = optarg;
		else if (opt == 'o')
			out = optarg;
		else if (opt == 'c')
			only = optarg;
		else if (opt == 'P')
			preemption = true;
		else
			usage();
	}
	f = fopen(out, "w");
	if (!f) {
		fprintf(stderr, "vm_switch: %s: %s\n", out, strerror(errno));
		return 1;
	}
	for (enum config c = 0; c < C_NR; c++) {
		/*
		 * The baseline and "loaded" always: the table needs them, and
		 * "loaded" loads mkm.ko for the configurations after it.
		 */
		skip[c] = c != C_BASE && c != C_LOADED && only &&
			  !listed(only, config_name[c]);
		if (!skip[c] && !available(c)) {
			printf("vm_switch: %s skipped: not in this image\n",
			       config_name[c]);
			skip[c] = true;
		}
	}
	/* ftrace's buffer big enough for a run, so that it never wraps. */
	if ((!skip[C_FTRACE_PID] || !skip[C_FTRACE_ALL]) &&
	    (tracefs_write("buffer_size_kb", "32768") ||
	     tracefs_write("trace", "")))
		return 1;
	/* Before the ping-pong's thread: a fork of one thread only. */
	if ((!skip[C_PERF_OTHER] || !skip[C_LTTNG_OTHER] ||
	     !skip[C_BPF_OTHER]) &&
	    other_start()) {
		fprintf(stderr, "vm_switch: fork: %s\n", strerror(errno));
		return 1;
	}
	/* -P: as the kernel has it, to see what it did to the figures. */
	if (!preemption)
		no_wakeup_preemption();
	ret = pingpong_start(&pp, 0);
	if (ret) {
		fprintf(stderr, "vm_switch: ping-pong: %s\n", strerror(-ret));
		return 1;
	}
	fprintf(f, "# run config rounds switches ns events lost other irqs "
		   "softirqs preempted\n");
	for (r = 0; r < 2 * runs; r++) {
		enum config c;

		for (c = 0; c < C_NR; c++) {
			uint64_t sw, ns, events, lost, counted = 0, invol;
			struct machine m0, m1;
			struct setup s;

			/* The baselines first, then the rest. */
			if ((r < runs) != (c == C_BASE) || skip[c])
				continue;
			if (setup(c, &s, &pp, rounds))
				return 1;
			/*
			 * Past the setup's deferred work (RCU callbacks,
			 * kworkers), which runs while the CPU idles, and any
			 * first-time cost.
			 */
			usleep(20000);
			pingpong_run(&pp, 200);
			if (c == C_FLOOR_COUNT)
				counted = floor_switches();
			m0 = machine_now();
			sw = pingpong_switches(&pp);
			invol = preempted(&pp);
			prof_open();
			ns = pingpong_run(&pp, rounds);
			prof_close();
			sw = pingpong_switches(&pp) - sw;
			invol = preempted(&pp) - invol;
			m1 = machine_now();
			if (c == C_FLOOR_COUNT)
				counted = floor_switches() - counted;
			teardown(c, &s, &events, &lost);
			if (c == C_FLOOR_COUNT)
				events = counted;
			fprintf(f,
				"%lu %s %lu %llu %llu %llu %llu %llu %llu "
				"%llu %llu\n",
				r % runs + 1, config_name[c], rounds,
				(unsigned long long)sw, (unsigned long long)ns,
				(unsigned long long)events,
				(unsigned long long)lost,
				m1.ctxt - m0.ctxt - sw, m1.intr - m0.intr,
				m1.softirq - m0.softirq,
				(unsigned long long)invol);
			fflush(f);
		}
		printf("vm_switch: %s run %lu of %lu done\n",
		       r < runs ? "baseline" : "traced", r % runs + 1, runs);
		fflush(stdout);
	}
	pingpong_stop(&pp);
	other_stop();
	wakeup_preemption_restore();
	fclose(f);
	/* Leave the module loaded, as the guest's init expects. */
	return module_load(module_path, "") ? 1 : 0;
}
