// SPDX-License-Identifier: GPL-2.0
/*
 * dump.c - mkm dump: every event of a trace, one line each, in time order
 * (like perf script), for reading what the timeline was built from: a
 * file source, the order stage, and a sink that prints.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util.h"

int cmd_dump(int argc, char **argv)
{
	struct mon_pipeline *p;
	struct mon_stage *order;
	struct mon_sink *print;
	int ret;

	if (argc != 2 || argv[1][0] == '-')
		die_usage("usage: mkm dump FILE");
	p = open_trace(argv[1]);
	ret = mon_stage_order(&order);
	if (!ret)
		ret = mon_pipeline_add_stage(p, order);
	if (!ret)
		ret = event_printer(&print);
	if (!ret)
		ret = mon_pipeline_add_sink(p, print);
	if (ret)
		die("%s: %s", argv[1], monitor_strerror(ret));
	run_trace(p, argv[1], NULL, 0);
	mon_pipeline_destroy(p);
	return 0;
}
