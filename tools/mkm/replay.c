// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - mkm replay: a trace compensated for the monitor's own cost
 * (the compensation stage, docs/compensation.md), written as a new trace
 * that every command opens (-o), or played back in time order at real or
 * scaled speed, one line per event as mkm dump prints them (--play; mkm
 * view --play shows the same in the viewer), as PIE replayed its traces.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "builtin.h"
#include "player.h"
#include "libmonitor.h"
#include "messages.h"
#include "parse.h"
#include "trace.h"
#include "printer.h"
#include "calibration.h"

#define USAGE                                                                        \
	"usage: mkm replay [--calibration FILE] [--force-calibration] -o OUT FILE\n" \
	"       mkm replay [--calibration FILE] [--force-calibration] --play [--speed X] FILE"
const char replay_usage[] = USAGE;

/* file -> order -> compensate -> a new trace */
static void write_compensated(const char *path, const char *cal_file,
			      bool force, const char *out)
{
	struct mon_compensate_opts opts = {
		.flags = force ? MON_COMPENSATE_FORCE : 0,
	};
	struct mon_calibration cal;
	struct mon_stage *order, *comp;
	struct trace_info info;
	struct mon_pipeline *p;
	struct mon_sink *sink;
	int ret;

	calibration_for(path, cal_file, force, &cal);
	p = open_trace(path);
	/* The sink writes INFO when it creates the file. */
	info = *mon_source_info(mon_pipeline_source(p));
	info.trace_flags |= TRACE_F_COMPENSATED;
	ret = mon_stage_order(&order);
	if (!ret)
		ret = mon_pipeline_add_stage(p, order);
	if (!ret)
		ret = mon_stage_compensate_opts(&comp, &cal, &opts);
	if (!ret)
		ret = mon_pipeline_add_stage(p, comp);
	if (!ret)
		ret = mon_sink_trace(&sink, out, &info);
	if (!ret)
		ret = mon_pipeline_add_sink(p, sink);
	if (ret)
		die("%s: %s", out, monitor_strerror(ret));
	run_trace(p, path, NULL, 0);
	fprintf(stderr, "mkm: wrote %s: %llu events, compensated\n", out,
		(unsigned long long)mon_pipeline_meta(p)->events);
	mon_pipeline_destroy(p);
	mon_calibration_free(&cal);
}

int cmd_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "calibration", required_argument, NULL, 'C' },
		{ "force-calibration", no_argument, NULL, 'F' },
		{ "play", no_argument, NULL, 'P' },
		{ "speed", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *out = NULL, *cal_file = NULL;
	struct mon_pipeline *p;
	struct mon_sink *sink;
	struct player *pl;
	bool play = false, force = false;
	double speed = 1;
	int opt;

	while ((opt = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'C':
			cal_file = optarg;
			break;
		case 'F':
			force = true;
			break;
		case 'P':
			play = true;
			break;
		case 's':
			speed = parse_speed(optarg);
			break;
		case 'h':
			puts(USAGE);
			return 0;
		default:
			die_usage(USAGE);
		}
	}
	if (optind != argc - 1 || !play == !out)
		die_usage(USAGE);
	if (out) {
		write_compensated(argv[optind], cal_file, force, out);
		return 0;
	}
	if (event_printer(&sink, NULL, false))
		die("out of memory");
	p = player_open(&pl, argv[optind], cal_file, force, speed, sink);
	run_trace(p, argv[optind], NULL, 0);
	mon_pipeline_destroy(p);
	player_destroy(pl);
	return 0;
}
