// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sink_trace.c - the trace sink: the stream into a .mkm file, message by
 * message as the chunk of the same type, so a recording, a replay or a
 * merge is written the same way. Buffered records reach the file at
 * least once a second, so a recording can be read while it runs and a
 * killed recorder loses at most its last second.
 */
#include <errno.h>
#include <stdlib.h>

#include "pipeline/pipeline_internal.h"

#define FLUSH_EVERY_NS 1000000000ull

struct trace_sink {
	struct trace_writer *w; /* NULL once closed */
	uint64_t flushed_ns; /* CLOCK_MONOTONIC of the last flush */
	bool direct; /* the writer wrote with O_DIRECT to the end */
};

/* Called at each horizon: the live source sends one at least every
 * poll_ms, also when no records come. */
static int flush_if_due(struct trace_sink *ts)
{
	uint64_t t = now_ns(CLOCK_MONOTONIC);

	if (t - ts->flushed_ns < FLUSH_EVERY_NS)
		return 0;
	ts->flushed_ns = t;
	return trace_writer_flush(ts->w, 0);
}

static int trace_consume(void *priv, const struct mon_msg *msg)
{
	struct trace_sink *ts = priv;
	struct trace_writer *w = ts->w;
	int ret;

	switch (msg->type) {
	case MON_MSG_EVENTS:
		return trace_writer_events(w, msg->events, msg->nr_events);
	case MON_MSG_HORIZON:
		ret = trace_writer_horizon(w, msg->horizon_ns);
		return ret ? ret : flush_if_due(ts);
	case MON_MSG_THREADS:
		return trace_writer_threads(w, msg->threads, msg->nr_threads);
	case MON_MSG_PROCESSES:
		return trace_writer_processes(w, msg->processes,
					      msg->nr_processes);
	case MON_MSG_STATS:
		return trace_writer_stats(w, msg->stats, msg->nr_stats);
	case MON_MSG_CALIBRATION:
		return trace_writer_calibration(w, msg->calibration_hdr,
						msg->calibration,
						msg->nr_calibration);
	case MON_MSG_CLOCK_SYNC:
		return trace_writer_clock_sync(w, msg->clock_sync_hdr,
					       msg->clock_samples,
					       msg->nr_clock_samples);
	case MON_MSG_NODES:
		return trace_writer_nodes(w, msg->nodes_hdr, msg->nodes,
					  msg->nr_nodes);
	case MON_MSG_BOUNDS:
		return msg->nr_bounds ? trace_writer_bounds(w, msg->bounds,
							    msg->nr_bounds) :
					0;
	}
	return 0; /* INFO: written when the file was created */
}

/* The end of the stream, also after an error upstream: what came is
 * valid, so the file ends properly (END chunk) and closing errors count. */
static int trace_finish(void *priv)
{
	struct trace_sink *ts = priv;
	int ret;

	ts->direct = trace_writer_direct(ts->w);
	ret = trace_writer_close(ts->w);

	ts->w = NULL;
	return ret;
}

static void trace_destroy(void *priv)
{
	struct trace_sink *ts = priv;

	trace_writer_close(ts->w);
	free(ts);
}

static const struct mon_sink_ops trace_ops;

bool mon_sink_trace_direct(const struct mon_sink *sk)
{
	const struct trace_sink *ts = mon_sink_priv(sk, &trace_ops);

	return ts && (ts->w ? trace_writer_direct(ts->w) : ts->direct);
}

static const struct mon_sink_ops trace_ops = {
	.name = "trace",
	.consume = trace_consume,
	.finish = trace_finish,
	.destroy = trace_destroy,
};

int mon_sink_trace(struct mon_sink **skp, const char *path,
		   const struct trace_info *info)
{
	return mon_sink_trace_flags(skp, path, info, 0);
}

int mon_sink_trace_flags(struct mon_sink **skp, const char *path,
			 const struct trace_info *info, unsigned int flags)
{
	struct trace_sink *ts;
	int ret;

	if (!skp || !path || !info)
		return -EINVAL;
	ts = calloc(1, sizeof(*ts));
	if (!ts)
		return -ENOMEM;
	ret = trace_writer_open_flags(&ts->w, path, info, flags);
	if (!ret)
		ret = mon_sink_new(skp, &trace_ops, ts);
	if (ret) {
		trace_writer_close(ts->w);
		free(ts);
	}
	return ret;
}
