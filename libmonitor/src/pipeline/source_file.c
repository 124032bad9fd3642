// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * source_file.c - the file source: a .mkm trace's chunks as messages (the
 * chunk types are the message types; END ends the stream).
 */
#include <errno.h>
#include <stdlib.h>

#include "pipeline/pipeline_internal.h"

static int file_next(void *priv, struct mon_msg *msg)
{
	struct trace_reader *r = priv;
	struct trace_chunk c;
	int ret;

	for (;;) {
		ret = trace_reader_next(r, &c);
		if (ret <= 0)
			return ret;
		msg->type = c.type;
		msg->offset = c.offset;
		switch (c.type) {
		case TRACE_CHUNK_EVENTS:
			msg->events = c.events;
			msg->nr_events = c.nr_events;
			return 1;
		case TRACE_CHUNK_HORIZON:
			msg->horizon_ns = c.horizon_ns;
			return 1;
		case TRACE_CHUNK_THREADS:
			msg->threads = c.threads;
			msg->nr_threads = c.nr_threads;
			return 1;
		case TRACE_CHUNK_PROCESSES:
			msg->processes = c.processes;
			msg->nr_processes = c.nr_processes;
			return 1;
		case TRACE_CHUNK_STATS:
			msg->stats = c.stats;
			msg->nr_stats = c.nr_stats;
			return 1;
		case TRACE_CHUNK_CALIBRATION:
			if (!c.calibration_hdr)
				continue; /* a newer layout */
			msg->calibration_hdr = c.calibration_hdr;
			msg->calibration = c.calibration;
			msg->nr_calibration = c.nr_calibration;
			return 1;
		case TRACE_CHUNK_CLOCK_SYNC:
			if (!c.clock_sync_hdr)
				continue; /* a newer layout */
			msg->clock_sync_hdr = c.clock_sync_hdr;
			msg->clock_samples = c.clock_samples;
			msg->nr_clock_samples = c.nr_clock_samples;
			return 1;
		case TRACE_CHUNK_NODES:
			if (!c.nodes_hdr)
				continue;
			msg->nodes_hdr = c.nodes_hdr;
			msg->nodes = c.nodes;
			msg->nr_nodes = c.nr_nodes;
			return 1;
		case TRACE_CHUNK_BOUNDS:
			if (!c.bounds)
				continue; /* a newer layout */
			msg->bounds = c.bounds;
			msg->nr_bounds = c.nr_bounds;
			return 1;
		}
		/* A chunk type this version does not know: skipped. */
	}
}

static const char *file_error(void *priv, uint64_t *offset)
{
	return trace_reader_error(priv, offset);
}

static void file_destroy(void *priv)
{
	trace_reader_close(priv);
}

static const struct mon_source_ops file_ops = {
	.name = "file",
	.next = file_next,
	.error = file_error,
	.destroy = file_destroy,
};

/* A source around an open reader; on a header error, one that only
 * reports it. */
static int wrap(struct mon_source **srcp, struct trace_reader *r, int err)
{
	static const struct trace_info none;
	const struct trace_info *info = err ? &none : trace_reader_info(r);
	int ret;

	if (!r)
		return err;
	ret = mon_source_new(srcp, &file_ops, r, info);
	if (ret) {
		trace_reader_close(r);
		return ret;
	}
	return err;
}

int mon_source_file(struct mon_source **srcp, const char *path)
{
	struct trace_reader *r = NULL;
	int err;

	if (!srcp || !path)
		return -EINVAL;
	*srcp = NULL;
	err = trace_reader_open(&r, path);
	return wrap(srcp, r, err);
}

int mon_source_mem(struct mon_source **srcp, const void *buf, size_t len)
{
	struct trace_reader *r = NULL;
	int err;

	if (!srcp || !buf)
		return -EINVAL;
	*srcp = NULL;
	err = trace_reader_open_mem(&r, buf, len);
	return wrap(srcp, r, err);
}
