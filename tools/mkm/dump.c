// SPDX-License-Identifier: GPL-2.0
/*
 * dump.c - mkm dump: every event of a trace, one line each, in time order
 * (like perf script), for reading what the timeline was built from: a
 * file source, the order stage, the filter stage when some threads or a
 * window are asked for, and a sink that prints.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util.h"

static const char dump_usage[] =
	"usage: mkm dump [--tid TID,...] [--from T] [--to T] FILE\n"
	"  T: a time from the recording's start, with a unit (20ms, 1.5s)";

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tid", required_argument, NULL, 't' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static uint32_t tids[MAX_TIDS];
	struct mon_filter filter = { .tids = tids };
	int64_t from = -1, to = -1;
	struct mon_pipeline *p;
	struct mon_sink *print;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "t:h", opts, NULL)) != -1) {
		if (opt == 't')
			filter.nr_tids = parse_tid_list("dump --tid", optarg,
							tids, MAX_TIDS);
		else if (opt == 'F' || opt == 'T')
			*(opt == 'F' ? &from : &to) = parse_time_arg(
				opt == 'F' ? "dump --from" : "dump --to",
				optarg);
		else if (opt == 'h') {
			puts(dump_usage);
			return 0;
		} else
			die_usage("%s", dump_usage);
	}
	if (optind != argc - 1)
		die_usage("%s", dump_usage);
	p = open_trace(argv[optind]);
	add_order_and_cut(p, argv[optind], &filter, from, to);
	ret = event_printer(&print);
	if (!ret)
		ret = mon_pipeline_add_sink(p, print);
	if (ret)
		die("%s: %s", argv[optind], monitor_strerror(ret));
	run_trace(p, argv[optind], NULL, 0);
	mon_pipeline_destroy(p);
	return 0;
}
