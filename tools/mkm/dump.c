// SPDX-License-Identifier: GPL-2.0
/*
 * dump.c - mkm dump: every event of a trace, one line each (a comm's two
 * records: one), in time order, as text or JSON objects (like perf script), for reading what the timeline was built from: a
 * file source, the order stage, the filter stage when some threads (by tid
 * or comm) or a window are asked for, and a sink that prints; a cut that
 * keeps no record is an error, as in mkm export.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "libmonitor.h"
#include "messages.h"
#include "parse.h"
#include "trace.h"
#include "printer.h"

const char dump_usage[] =
	"usage: mkm dump [--json] [--tid TID,... | --comm NAME] [--from T] [--to T] FILE\n"
	"  T: a time from the recording's start, with a unit (20ms, 1.5s)";

/* The tids of the threads named @comm (as the timeline names them: the
 * last comm each had) into @tids; dies if there is none. */
static size_t comm_tids(const char *path, const char *comm, uint32_t *tids,
			size_t max)
{
	struct mon_meta meta;
	struct tl *tl = load_trace(path, &meta, NULL, 0);
	size_t th, n = 0;

	for (th = 0; th < tl_nr_threads(tl) && n < max; th++) {
		struct tl_thread t;

		if (!tl_thread(tl, th, &t) && !strcmp(t.name, comm))
			tids[n++] = t.tid;
	}
	tl_destroy(tl);
	if (!n)
		die("dump --comm %s: no thread of that name in %s", comm, path);
	return n;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "tid", required_argument, NULL, 't' },
		{ "comm", required_argument, NULL, 'c' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static uint32_t tids[MAX_TIDS];
	struct mon_filter filter = { .tids = tids };
	int64_t from = -1, to = -1;
	const char *comm = NULL;
	bool json = false;
	struct mon_pipeline *p;
	struct mon_sink *print;
	uint64_t printed = 0;
	bool cut;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "t:h", opts, NULL)) != -1) {
		if (opt == 'j')
			json = true;
		else if (opt == 't')
			filter.nr_tids = parse_tid_list("dump --tid", optarg,
							tids, MAX_TIDS);
		else if (opt == 'c')
			comm = optarg;
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
	if (comm && filter.nr_tids)
		die_usage("dump: --tid or --comm, not both");
	/* A first read for the names: a comm comes in NAME records, which a
	 * thread's first records may precede. */
	if (comm)
		filter.nr_tids = comm_tids(argv[optind], comm, tids, MAX_TIDS);
	p = open_trace(argv[optind]);
	cut = add_order_and_cut(p, argv[optind], &filter, from, to);
	ret = event_printer(&print, &printed, json);
	if (!ret)
		ret = mon_pipeline_add_sink(p, print);
	if (ret)
		die("%s: %s", argv[optind], monitor_strerror(ret));
	run_trace(p, argv[optind], NULL, 0);
	mon_pipeline_destroy(p);
	/* As export: a cut that keeps nothing is a mistake to say. */
	if (cut && !printed)
		die("%s: " EMPTY_CUT, argv[optind]);
	return 0;
}
