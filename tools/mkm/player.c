// SPDX-License-Identifier: GPL-2.0
/* player.c - a trace played back compensated (see player.h). */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "calibration.h"
#include "messages.h"
#include "player.h"
#include "trace.h"

#define OUT_BATCH 1024
#define NAP_NS 100000000L /* a stop is seen within 100 ms */

struct player {
	struct mon_calibration cal;
	double speed; /* 0: no waiting */
	bool started;
	uint64_t t0; /* the first record's time */
	struct timespec wall0; /* when it was handed on */
	atomic_bool stop;
	size_t n;
	struct mkm_event out[OUT_BATCH];
};

static int flush(struct player *pl, struct mon_emit *out)
{
	struct mon_msg m = { .type = MON_MSG_EVENTS,
			     .events = pl->out,
			     .nr_events = pl->n };

	if (!pl->n)
		return 0;
	pl->n = 0;
	return mon_emit(out, &m);
}

static double elapsed_ns(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) * 1e9 +
	       (double)(b.tv_nsec - a->tv_nsec);
}

/* Waits until @t is due; false if stopped meanwhile. */
static bool wait_until(struct player *pl, uint64_t t)
{
	double due = (double)(t - pl->t0) / pl->speed, left;

	while ((left = due - elapsed_ns(&pl->wall0)) > 0) {
		struct timespec nap = { 0, (long)fmin(left, NAP_NS) };

		if (atomic_load(&pl->stop))
			return false;
		nanosleep(&nap, NULL);
	}
	return !atomic_load(&pl->stop);
}

static int pace_process(void *priv, const struct mon_msg *msg,
			struct mon_emit *out)
{
	struct player *pl = priv;
	size_t i;
	int ret;

	if (atomic_load(&pl->stop))
		return MON_DONE;
	if (msg->type != MON_MSG_EVENTS)
		return mon_emit(out, msg);
	for (i = 0; i < msg->nr_events; i++) {
		const struct mkm_event *e = &msg->events[i];

		if (!pl->started) {
			pl->t0 = e->time_ns;
			clock_gettime(CLOCK_MONOTONIC, &pl->wall0);
			pl->started = true;
		}
		/* What is due goes on before the wait for what is not. */
		if (pl->speed > 0 && e->time_ns > pl->t0 &&
		    (double)(e->time_ns - pl->t0) / pl->speed >
			    elapsed_ns(&pl->wall0)) {
			ret = flush(pl, out);
			if (ret)
				return ret;
			if (!wait_until(pl, e->time_ns))
				return MON_DONE;
		}
		pl->out[pl->n++] = *e;
		if (pl->n == OUT_BATCH) {
			ret = flush(pl, out);
			if (ret)
				return ret;
		}
	}
	return flush(pl, out);
}

static const struct mon_stage_ops pace_ops = {
	.name = "pace",
	.process = pace_process,
};

struct mon_pipeline *player_open(struct player **plp, const char *path,
				 const char *cal_file, bool force, double speed,
				 struct mon_sink *sink)
{
	struct mon_compensate_opts opts = {
		.flags = force ? MON_COMPENSATE_FORCE : 0,
	};
	struct player *pl = calloc(1, sizeof(*pl));
	struct mon_stage *order, *comp, *pace;
	struct mon_pipeline *p;
	int ret;

	if (!pl)
		die("out of memory");
	pl->speed = speed;
	calibration_for(path, cal_file, force, &pl->cal);
	p = open_trace(path);
	ret = mon_stage_order(&order);
	if (!ret)
		ret = mon_pipeline_add_stage(p, order);
	if (!ret)
		ret = mon_stage_compensate_opts(&comp, &pl->cal, &opts);
	if (!ret)
		ret = mon_pipeline_add_stage(p, comp);
	if (!ret)
		ret = mon_stage_new(&pace, &pace_ops, pl);
	if (!ret)
		ret = mon_pipeline_add_stage(p, pace);
	if (!ret)
		ret = mon_pipeline_add_sink(p, sink);
	if (ret)
		die("%s: %s", path, monitor_strerror(ret));
	*plp = pl;
	return p;
}

void player_stop(struct player *pl)
{
	atomic_store(&pl->stop, true);
}

void player_destroy(struct player *pl)
{
	if (!pl)
		return;
	mon_calibration_free(&pl->cal);
	free(pl);
}
