// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - mkm replay: a trace compensated for the monitor's own cost
 * (the compensation stage, docs/compensation.md), written as a new trace
 * that every command opens (-o), or played back in time order at real or
 * scaled speed, one line per event as mkm dump prints them (--play), as
 * PIE replayed its traces.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "builtin.h"
#include "util.h"

#define USAGE                                                  \
	"usage: mkm replay [--calibration FILE] -o OUT FILE\n" \
	"       mkm replay [--calibration FILE] --play [--speed X] FILE"

struct player {
	double speed; /* 0: as fast as it prints */
	bool started;
	uint64_t t0; /* the first record's time */
	struct timespec wall0; /* when it was played */
};

/* Sleeps until @t is due at the player's speed. */
static void wait_until(const struct player *pl, uint64_t t)
{
	double due = (double)(t - pl->t0) / pl->speed;
	struct timespec at = pl->wall0;

	at.tv_sec += (time_t)(due / 1e9);
	at.tv_nsec += (long)fmod(due, 1e9);
	if (at.tv_nsec >= 1000000000L) {
		at.tv_sec++;
		at.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) ==
	       EINTR)
		;
}

static int play_consume(void *priv, const struct mon_msg *msg)
{
	struct player *pl = priv;
	size_t i;

	if (msg->type != MON_MSG_EVENTS || !msg->nr_events)
		return 0;
	if (!pl->started) {
		pl->t0 = msg->events[0].time_ns;
		clock_gettime(CLOCK_MONOTONIC, &pl->wall0);
		pl->started = true;
	}
	for (i = 0; i < msg->nr_events; i++) {
		const struct mkm_event *e = &msg->events[i];

		if (pl->speed > 0 && e->time_ns > pl->t0) {
			fflush(stdout);
			wait_until(pl, e->time_ns);
		}
		print_event_line(e, pl->t0);
	}
	return ferror(stdout) ? -EIO : 0;
}

static const struct mon_sink_ops play_ops = {
	.name = "play",
	.consume = play_consume,
};

int cmd_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "calibration", required_argument, NULL, 'C' },
		{ "play", no_argument, NULL, 'P' },
		{ "speed", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct player pl = { .speed = 1 };
	const char *out = NULL, *cal_file = NULL, *path;
	struct mon_calibration cal;
	struct mon_stage *order, *comp;
	struct mon_sink *sink;
	struct mon_pipeline *p;
	bool play = false;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'C':
			cal_file = optarg;
			break;
		case 'P':
			play = true;
			break;
		case 's':
			pl.speed = atof(optarg);
			if (pl.speed < 0)
				die_usage(
					"--speed: '%s': 0 (no waiting) or a factor, e.g. 0.5 or 10",
					optarg);
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
	path = argv[optind];
	calibration_for(path, cal_file, &cal);

	p = open_trace(path);
	ret = mon_stage_order(&order);
	if (!ret)
		ret = mon_pipeline_add_stage(p, order);
	if (!ret)
		ret = mon_stage_compensate(&comp, &cal);
	if (!ret)
		ret = mon_pipeline_add_stage(p, comp);
	if (!ret && out) {
		/* The sink writes INFO when it creates the file. */
		struct trace_info info =
			*mon_source_info(mon_pipeline_source(p));

		info.trace_flags |= TRACE_F_COMPENSATED;
		ret = mon_sink_trace(&sink, out, &info);
	} else if (!ret) {
		ret = mon_sink_new(&sink, &play_ops, &pl);
	}
	if (!ret)
		ret = mon_pipeline_add_sink(p, sink);
	if (ret)
		die("%s: %s", out ? out : path, monitor_strerror(ret));
	run_trace(p, path, NULL, 0);
	if (out)
		fprintf(stderr, "mkm: wrote %s: %llu events, compensated\n",
			out, (unsigned long long)mon_pipeline_meta(p)->events);
	mon_pipeline_destroy(p);
	mon_calibration_free(&cal);
	return 0;
}
