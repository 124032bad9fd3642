// SPDX-License-Identifier: GPL-2.0
/*
 * states.c - the microstates of the stream for the exporters that draw
 * them (Paraver, OTF2): libmonitor's timeline builder, the one state
 * machine, fed as the timeline sink feeds it; each interval reaches the
 * exporter through the builder's callback as it closes, and the intervals
 * still open at the end through states_finish().
 *
 * The builder streams (TL_STREAMING): it keeps each thread's current
 * interval only, so these exporters' memory grows with the threads, not
 * with the trace.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

int states_consume(struct states *s, const struct mon_msg *msg)
{
	struct tl_config cfg = { 0 };
	int ret;

	switch (msg->type) {
	case MON_MSG_INFO:
		if (s->tl)
			return 0;
		cfg.nr_cpus = msg->info->nr_cpus;
		cfg.classes = msg->info->classes;
		cfg.flags = TL_STREAMING;
		ret = tl_create(&s->tl, &cfg);
		return ret ? ret : tl_set_callback(s->tl, s->cb, s->arg);
	case MON_MSG_EVENTS:
		return s->tl ? tl_feed(s->tl, msg->events, msg->nr_events) :
			       -EPROTO;
	case MON_MSG_HORIZON:
		return s->tl ? tl_advance(s->tl, msg->horizon_ns) : 0;
	default:
		return 0;
	}
}

int states_finish(struct states *s)
{
	size_t th, n;
	int ret;

	if (!s->tl)
		return 0;
	ret = tl_flush(s->tl);
	n = tl_nr_threads(s->tl);
	/* The last interval of a thread still alive never closes. */
	for (th = 0; th < n && !ret; th++) {
		struct tl_thread t;
		struct tl_interval iv;

		if (tl_thread(s->tl, th, &t) || !t.nr_intervals ||
		    tl_interval(s->tl, th, t.nr_intervals - 1, &iv))
			continue;
		if (iv.open)
			s->cb(s->arg, th, &iv);
	}
	return ret;
}

uint32_t states_number(struct states *s, struct threads *t, size_t th)
{
	struct tl_thread info;

	/* a lookup per interval would cost a tl_thread() copy: cached */
	if (th < s->nr_number && s->number[th])
		return s->number[th];
	if (array_grow(&s->number, &s->nr_number, th, sizeof(*s->number)) ||
	    tl_thread(s->tl, th, &info))
		return 0;
	s->number[th] = threads_number(t, info.tid);
	return s->number[th];
}

void states_free(struct states *s)
{
	tl_destroy(s->tl);
	free(s->number);
	s->tl = NULL;
	s->number = NULL;
}
