// SPDX-License-Identifier: GPL-2.0
/* main.c - mkm: record threads' context switches, report where time went. */

#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "libmonitor.h"

#ifndef MKM_VERSION
#error "MKM_VERSION: the build passes it from VERSION"
#endif

static const char usage[] =
	"usage: mkm COMMAND [ARGS]\n"
	"\n"
	"  record [-o FILE] [--buffer-size N] [--events LIST] -- CMD [ARGS...]\n"
	"  record [-o FILE] ... -t TID[,TID...] | -p PID\n"
	"  record [-o FILE] ... -a [-- CMD [ARGS...]]\n"
	"      monitor CMD and every thread and child it creates, running\n"
	"      threads, or with -a every thread of the machine, and write a\n"
	"      trace file (default CMD.mkm / mkm.mkm; an older one is kept as\n"
	"      FILE.old); a short calibration first (--no-calibrate,\n"
	"      --calibration FILE); written with O_DIRECT where the file\n"
	"      system allows (--buffered-io: not); exits with CMD's status\n"
	"  report [--json] [--compensated [--calibration FILE]]\n"
	"         [--tid TID,... | --comm NAME] [--sort KEY] [--top N] FILE\n"
	"  report --noise [--tid TID,... | --comm NAME] [--top N] [--json] FILE\n"
	"  report --idle [--json] FILE\n"
	"  report --latency [--tid TID,... | --comm NAME] [--top N] [--json] FILE\n"
	"      per-thread microstates, per-CPU summary, bursts, CPU x thread;\n"
	"      --compensated: raw and compensated side by side; --noise: who\n"
	"      took time from the threads; --idle: each CPU's idle intervals;\n"
	"      --latency: each thread's run-queue delays, the longest and when\n"
	"      (as perf sched latency)\n"
	"      (--noise and --idle need a system-wide trace, record -a)\n"
	"  timeline [-w WIDTH] [--from T] [--to T] FILE\n"
	"  timeline --png OUT | --svg OUT [-w PIXELS] [--from T] [--to T]\n"
	"           [--shade T..T] FILE\n"
	"      the threads' timeline as text, one row per thread, or as a\n"
	"      picture; --from/--to zoom to a window, --shade marks one\n"
	"  dump [--tid TID,... | --comm NAME] [--from T] [--to T] FILE\n"
	"      every event, one line each, in time order\n"
	"  view [--ascii] FILE\n"
	"  view [--ascii] --live [record's options] -- CMD [ARGS...] | -p PID\n"
	"  view [--ascii] --play [--speed X] FILE\n"
	"      the timeline, interactive: zoom, pan, cursor, metering lines;\n"
	"      --live records and shows at once; --play plays FILE back,\n"
	"      compensated\n"
	"  export -f FORMAT [-o OUT] [--threads TID,...] [--from T] [--to T] FILE\n"
	"      the trace in another tool's format (mkm export -h lists them)\n"
	"  calibrate [-o FILE] [-r ROUNDS] [-n TRIALS] [--cpu N]\n"
	"      what the monitor costs here, per CPU and kind of event\n"
	"  replay [--calibration FILE] -o OUT FILE\n"
	"  replay [--calibration FILE] --play [--speed X] FILE\n"
	"      the trace compensated for the monitor's cost: written, or\n"
	"      played back in time order\n"
	"  merge [-o OUT] [--job ID[.STEP]] DIR | FILE...\n"
	"      the node traces of a job step (srun --mkm's DIR/%j/%N.mkm) as\n"
	"      one trace on one node's clock, aligned by the clock exchanges\n"
	"      they carry (default OUT: DIR.mkm); exits 3 if some input was\n"
	"      left out or cut, or a node is missing (the rest is merged)\n"
	"  --version, --help\n"
	"\n"
	"Times (T) count from the recording's start, in every command, and\n"
	"take a unit: ns, us, ms, s. See mkm(1).\n";

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "timeline"))
		return cmd_timeline(argc - 1, argv + 1);
	if (!strcmp(cmd, "dump"))
		return cmd_dump(argc - 1, argv + 1);
	if (!strcmp(cmd, "view"))
		return cmd_view(argc - 1, argv + 1);
	if (!strcmp(cmd, "export"))
		return cmd_export(argc - 1, argv + 1);
	if (!strcmp(cmd, "calibrate"))
		return cmd_calibrate(argc - 1, argv + 1);
	if (!strcmp(cmd, "replay"))
		return cmd_replay(argc - 1, argv + 1);
	if (!strcmp(cmd, "merge"))
		return cmd_merge(argc - 1, argv + 1);
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		printf("mkm %s (MKM ABI %u.%u)\n", MKM_VERSION, MKM_ABI_MAJOR,
		       MKM_ABI_MINOR);
		return 0;
	}
	if (!*cmd) {
		fputs(usage, stderr);
		return 2;
	}
	fprintf(stderr,
		"mkm: unknown command '%s': record, report, timeline, dump, view, export, calibrate, replay (mkm --help)\n",
		cmd);
	return 2;
}
