// SPDX-License-Identifier: GPL-2.0
/*
 * latency.c - mkm latency: each thread's scheduling delays, the longest
 * and when it was, as perf sched latency gives them, or with --why the
 * longest wakeups taken apart (report_latency.c prints them); also
 * reached as mkm report --latency.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "calibration.h"
#include "libmonitor.h"
#include "messages.h"
#include "report_doubt.h"
#include "report_latency.h"
#include "threads.h"
#include "trace.h"

const char latency_usage[] =
	"usage: mkm latency [--compensated [--calibration FILE] [--force-calibration]]\n"
	"                   [--tid TID[,TID...] | --comm NAME] [--pid PID[,PID...]]\n"
	"                   [--why] [--top N] [--json] FILE";

/*
 * The trace read once into a timeline and, for --why, the WAKING records
 * the timeline does not keep: file source [-> order -> compensate] ->
 * timeline and wakings sinks.
 */
static struct tl *load_why(const char *path, const struct mon_calibration *cal,
			   const struct mon_compensate_opts *copts,
			   struct mon_meta *meta, struct mon_wakings *w)
{
	struct mon_sink *wsink;
	int ret = mon_sink_wakings(&wsink, w);

	if (ret)
		die("%s: %s", path, monitor_strerror(ret));
	return load_trace_with(path, cal, copts, wsink, meta);
}

int cmd_latency(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "compensated", no_argument, NULL, 'c' },
		{ "calibration", required_argument, NULL, 'C' },
		{ "force-calibration", no_argument, NULL, 'F' },
		{ "tid", required_argument, NULL, 't' },
		{ "comm", required_argument, NULL, 'm' },
		{ "pid", required_argument, NULL, 'p' },
		{ "top", required_argument, NULL, 'T' },
		{ "why", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *cal_file = NULL, *tids = NULL, *comm = NULL, *pids = NULL;
	bool json = false, compensated = false, force = false, why = false;
	struct mon_wakings *wakings = NULL;
	struct mon_nodes nodes = { 0 };
	struct doubts doubts = { 0 };
	struct mon_calibration cal;
	struct mon_meta meta;
	size_t *rows, nr, top = 0;
	struct tl *tl;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		char *end;

		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'c':
			compensated = true;
			break;
		case 'C':
			cal_file = optarg;
			break;
		case 'F':
			force = true;
			break;
		case 't':
			tids = optarg;
			break;
		case 'm':
			comm = optarg;
			break;
		case 'p':
			pids = optarg;
			break;
		case 'T':
			top = strtoul(optarg, &end, 10);
			if (*end || !top)
				die_usage(
					"latency --top: '%s' is not a count above 0",
					optarg);
			break;
		case 'w':
			why = true;
			break;
		case 'h':
			puts(latency_usage);
			return 0;
		default:
			die_usage("%s", latency_usage);
		}
	}
	if (optind != argc - 1)
		die_usage("latency: give one trace file");
	if ((cal_file || force) && !compensated)
		die_usage(
			"latency: --calibration and --force-calibration go with --compensated");
	if (tids && comm)
		die_usage("latency: --tid or --comm, not both");
	if (tids && pids)
		die_usage("latency: --tid or --pid, not both");
	if (why && mon_wakings_create(&wakings))
		die("out of memory");
	if (compensated) {
		struct mon_compensate_opts copts = doubts_opts(&doubts, force);

		calibration_for(argv[optind], cal_file, force, &cal);
		tl = why ? load_why(argv[optind], &cal, &copts, &meta,
				    wakings) :
			   load_trace_compensated(argv[optind], &cal, &copts,
						  &meta, NULL, 0);
		mon_calibration_free(&cal);
	} else {
		tl = why ? load_why(argv[optind], NULL, NULL, &meta, wakings) :
			   load_trace(argv[optind], &meta, NULL, 0);
	}
	if (mon_nodes_load(&nodes, argv[optind]))
		mon_nodes_free(&nodes); /* not a merged trace */
	rows = calloc(tl_nr_threads(tl) + 1, sizeof(*rows));
	if (!rows)
		die("out of memory");
	nr = select_threads(tl, "latency", tids, comm, pids, rows);
	if (why)
		ret = report_latency_why(tl, &meta, &nodes, argv[optind], rows,
					 nr, wakings, top ? top : 10, json);
	else
		ret = report_latency(tl, &meta, &nodes, argv[optind], rows, nr,
				     top, json);
	mon_wakings_destroy(wakings);
	free(rows);
	doubts_free(&doubts);
	mon_nodes_free(&nodes);
	tl_destroy(tl);
	return ret;
}
