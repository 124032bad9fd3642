// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sink_timeline.c - the timeline sink: the stream into the timeline
 * builder (EVENTS to tl_feed(), HORIZON to tl_advance(), tl_flush() at the
 * end of the stream), so accounting, reports and the viewer read a
 * rebuilt timeline.
 */
#include <errno.h>

#include "pipeline/pipeline_internal.h"

static int timeline_consume(void *priv, const struct mon_msg *msg)
{
	switch (msg->type) {
	case MON_MSG_INFO: {
		uint32_t flags = msg->info ? msg->info->flags : 0;
		int ret = 0;

		/* A system-wide stream: rebuild each CPU's idle task. */
		if (flags & MKM_CONFIG_SYSTEM)
			ret = tl_set_idle(priv);
		/* A flight recorder's snapshot: its threads lived before. */
		if (ret != -EINVAL && flags & MKM_CONFIG_FLIGHT)
			ret = tl_set_window(priv);
		return ret == -EINVAL ? -EINVAL : 0;
	}
	case MON_MSG_EVENTS:
		return tl_feed(priv, msg->events, msg->nr_events);
	case MON_MSG_HORIZON:
		return tl_advance(priv, msg->horizon_ns);
	case MON_MSG_PROCESSES:
		return tl_processes_known(priv, msg->processes,
					  msg->nr_processes);
	case MON_MSG_THREADS:
		return tl_threads_known(priv, msg->threads, msg->nr_threads);
	}
	return 0;
}

static int timeline_finish(void *priv)
{
	return tl_flush(priv);
}

static const struct mon_sink_ops timeline_ops = {
	.name = "timeline",
	.consume = timeline_consume,
	.finish = timeline_finish,
};

int mon_sink_timeline(struct mon_sink **skp, struct tl *tl)
{
	if (!tl)
		return -EINVAL;
	return mon_sink_new(skp, &timeline_ops, tl);
}
