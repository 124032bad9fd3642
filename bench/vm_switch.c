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
 * keeps it away from the guest's init). Without the module, before its
 * first load and more so after an unload, a switch costs 30 to 150
 * instructions more than with it loaded and no monitor, varying from one
 * measurement to the next, though no mkm code runs in either state
 * (docs/performance.md); before any load is where it is steadiest. Then
 * mkm.ko is loaded, and in each run the other configurations are measured
 * one after the other, so that drift hits them alike:
 *
 *   base        mkm.ko not loaded: the no-tracing baseline
 *   loaded      mkm.ko loaded, no monitor: must cost nothing
 *   suspended   both threads tracked by a monitor that is not resumed:
 *               must cost nothing either (no switch probe is registered)
 *   const       a monitor resumed on another, sleeping thread: every switch
 *               pays the "is this thread monitored?" check (MKM Fig. 13)
 *   mon         both threads monitored, default classes (MKM Fig. 12)
 *   mon-wake    the same and MKM_CLASS_WAKEUP: switches and wakeups, as
 *               the ftrace configurations record
 *   mon-all     both threads monitored, every class (MKM_CLASS_ALL)
 *   ftrace-pid  ftrace: sched_switch and sched_wakeup, set_event_pid to the
 *               two threads
 *   ftrace-all  ftrace: the same events, unfiltered
 *
 * Each line of the output file is one measurement:
 *   run config rounds switches ns events lost other
 * (events and lost: records mkm produced and dropped, 0 for the others;
 * other: context switches of the rest of the machine meanwhile). The host
 * turns it into a table (bench/table.awk).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "calibrate/workload.h"

#define TRACEFS "/sys/kernel/tracing"

enum config {
	C_BASE,
	C_LOADED,
	C_SUSPENDED,
	C_CONST,
	C_MON,
	C_MON_WAKE,
	C_MON_ALL,
	C_FTRACE_PID,
	C_FTRACE_ALL,
	C_NR
};

static const char *const config_name[C_NR] = {
	"base",	    "loaded",  "suspended",  "const",	   "mon",
	"mon-wake", "mon-all", "ftrace-pid", "ftrace-all",
};

static const char *module_path = "/mkm.ko";

static int module_load(void)
{
	int fd = open(module_path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0) {
		fprintf(stderr, "vm_switch: %s: %s\n", module_path,
			strerror(errno));
		return -1;
	}
	ret = (int)syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	if (ret && errno != EEXIST) {
		fprintf(stderr, "vm_switch: loading %s: %s\n", module_path,
			strerror(errno));
		return -1;
	}
	return 0;
}

static int module_unload(void)
{
	if (syscall(SYS_delete_module, "mkm", O_NONBLOCK) && errno != ENOENT) {
		fprintf(stderr, "vm_switch: unloading mkm: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

/* Context switches of the whole machine so far (/proc/stat ctxt). */
static uint64_t machine_switches(void)
{
	unsigned long long v = 0;
	char line[256];
	FILE *f = fopen("/proc/stat", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "ctxt %llu", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

static int tracefs_write(const char *file, const char *text)
{
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		fprintf(stderr, "vm_switch: %s: %s\n", path, strerror(errno));
		ret = -1;
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

static int ftrace_events(const char *on)
{
	if (tracefs_write("events/sched/sched_switch/enable", on) ||
	    tracefs_write("events/sched/sched_wakeup/enable", on))
		return -1;
	return 0;
}

/* What a configuration holds while it is measured. */
struct setup {
	struct keeper *keeper;
	struct monitor *mon;
};

static int monitored_start(struct setup *s, const struct pingpong *pp,
			   unsigned long rounds, uint32_t classes, bool resume)
{
	/* Room for every record of the run: a few per switch per class. */
	uint64_t want = (uint64_t)rounds * 2 * 16 * sizeof(struct mkm_event);
	struct monitor_config cfg = { .classes = classes };
	int ret;

	/* At least the default: interrupts add records on a slow guest. */
	cfg.ring_bytes = MKM_RING_DEFAULT_BYTES;
	while (cfg.ring_bytes < want && cfg.ring_bytes < MKM_RING_MAX_BYTES)
		cfg.ring_bytes *= 2;
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

static int setup(enum config c, struct setup *s, const struct pingpong *pp,
		 unsigned long rounds)
{
	char pids[64];

	memset(s, 0, sizeof(*s));
	switch (c) {
	case C_BASE:
		return module_unload();
	case C_LOADED:
		return module_load();
	case C_SUSPENDED:
		return monitored_start(s, pp, rounds, MKM_CLASS_DEFAULT, false);
	case C_CONST:
		return keeper_start(&s->keeper);
	case C_MON:
		return monitored_start(s, pp, rounds, MKM_CLASS_DEFAULT, true);
	case C_MON_WAKE:
		return monitored_start(s, pp, rounds,
				       MKM_CLASS_DEFAULT | MKM_CLASS_WAKEUP,
				       true);
	case C_MON_ALL:
		return monitored_start(s, pp, rounds, MKM_CLASS_ALL, true);
	case C_FTRACE_PID:
		snprintf(pids, sizeof(pids), "%d %d", (int)pp->main_tid,
			 (int)pp->peer_tid);
		if (tracefs_write("set_event_pid", pids))
			return -1;
		return ftrace_events("1");
	case C_FTRACE_ALL:
		return ftrace_events("1");
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
}

static void usage(void)
{
	fprintf(stderr,
		"usage: vm_switch [-n ROUNDS] [-r RUNS] [-m MODULE] [-o FILE] "
		"[-c CONFIG,...]\n");
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
	int opt, ret, have_ftrace;
	FILE *f;

	while ((opt = getopt(argc, argv, "n:r:m:o:c:")) != -1) {
		if (opt == 'n' && atol(optarg) > 0)
			rounds = atol(optarg);
		else if (opt == 'r' && atol(optarg) > 0)
			runs = atol(optarg);
		else if (opt == 'm')
			module_path = optarg;
		else if (opt == 'o')
			out = optarg;
		else if (opt == 'c')
			only = optarg;
		else
			usage();
	}
	f = fopen(out, "w");
	if (!f) {
		fprintf(stderr, "vm_switch: %s: %s\n", out, strerror(errno));
		return 1;
	}
	/* ftrace's buffer big enough for a run, so that it never wraps. */
	have_ftrace =
		!access(TRACEFS "/events/sched/sched_switch/enable", W_OK);
	if (!have_ftrace)
		printf("vm_switch: no ftrace sched events in this kernel: "
		       "ftrace skipped\n");
	else if (tracefs_write("buffer_size_kb", "32768") ||
		 tracefs_write("trace", ""))
		return 1;
	ret = pingpong_start(&pp, 0);
	if (ret) {
		fprintf(stderr, "vm_switch: ping-pong: %s\n", strerror(-ret));
		return 1;
	}
	fprintf(f, "# run config rounds switches ns events lost other\n");
	for (r = 0; r < 2 * runs; r++) {
		enum config c;

		for (c = 0; c < C_NR; c++) {
			uint64_t sw, ns, events, lost, all;
			struct setup s;

			/* The baselines first, then the rest. */
			if ((r < runs) != (c == C_BASE))
				continue;
			if (!have_ftrace &&
			    (c == C_FTRACE_PID || c == C_FTRACE_ALL))
				continue;
			/* The baseline always: the table needs it. */
			if (c != C_BASE && only &&
			    !listed(only, config_name[c]))
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
			all = machine_switches();
			sw = pingpong_switches(&pp);
			ns = pingpong_run(&pp, rounds);
			sw = pingpong_switches(&pp) - sw;
			all = machine_switches() - all;
			teardown(c, &s, &events, &lost);
			fprintf(f, "%lu %s %lu %llu %llu %llu %llu %llu\n",
				r % runs + 1, config_name[c], rounds,
				(unsigned long long)sw, (unsigned long long)ns,
				(unsigned long long)events,
				(unsigned long long)lost,
				(unsigned long long)(all - sw));
			fflush(f);
		}
		printf("vm_switch: %s run %lu of %lu done\n",
		       r < runs ? "baseline" : "traced", r % runs + 1, runs);
		fflush(stdout);
	}
	pingpong_stop(&pp);
	fclose(f);
	/* Leave the module loaded, as the guest's init expects. */
	return module_load() ? 1 : 0;
}
