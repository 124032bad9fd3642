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

struct printer {
	uint64_t t0; /* the first record's time: times print relative to it */
	bool started;
};

static int print_consume(void *priv, const struct mon_msg *msg)
{
	struct printer *pr = priv;
	size_t i;

	if (msg->type != MON_MSG_EVENTS || !msg->nr_events)
		return 0;
	if (!pr->started) {
		pr->t0 = msg->events[0].time_ns;
		pr->started = true;
	}
	for (i = 0; i < msg->nr_events; i++)
		print_event_line(&msg->events[i], pr->t0);
	return ferror(stdout) ? -EIO : 0;
}

static const struct mon_sink_ops print_ops = {
	.name = "print",
	.consume = print_consume,
};

int cmd_dump(int argc, char **argv)
{
	struct printer pr = { 0 };
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
		ret = mon_sink_new(&print, &print_ops, &pr);
	if (!ret)
		ret = mon_pipeline_add_sink(p, print);
	if (ret)
		die("%s: %s", argv[1], monitor_strerror(ret));
	run_trace(p, argv[1], NULL, 0);
	mon_pipeline_destroy(p);
	return 0;
}
