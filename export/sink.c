// SPDX-License-Identifier: GPL-2.0
/*
 * sink.c - what every exporter's sink shares: it tells its caller whether
 * it wrote its output. The runner keeps only the first error of a run, so
 * a sink that fails in finish() after the source met a damaged chunk is
 * not in mon_pipeline_error(): the caller's result is set from finish()
 * here instead, around the format's own operations. It also counts the
 * records, and refuses to put an output with none in place when asked
 * (a window that selected nothing is an error, not an empty trace).
 *
 * And it hands every format the two-record form of switches: a SWITCH
 * record (MKM_CONFIG_ONE_SWITCH) becomes the SWITCH_OUT and SWITCH_IN it
 * stands for (libmonitor's mon_split), so each format writes the same
 * output for a trace of SWITCH records as for its two-record equivalent,
 * and knows one form. Its records are counted as the trace holds them.
 *
 * The threads' processes that the recorder found at attach (PROCESSES)
 * go into the format's table of threads here, so every format groups a
 * -p recording's threads under their process by the same rule.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"

struct export_sink {
	struct mon_sink_ops ops; /* the runner's: these, by the format's name */
	const struct mon_sink_ops *format;
	void *priv;
	struct threads *threads;
	struct export_result *result;
	uint64_t records; /* LOST ones not counted */
	struct mon_split *split;
	struct mkm_event *ev; /* the batch split, room for cap_ev */
	size_t cap_ev;
};

/* @msg's records with every SWITCH split into *@m (its events in s->ev). */
static int es_split(struct export_sink *s, const struct mon_msg *msg,
		    struct mon_msg *m)
{
	size_t i, n = 0;
	int k;

	if (2 * msg->nr_events > s->cap_ev) {
		size_t cap = 2 * msg->nr_events;
		struct mkm_event *ev = realloc(s->ev, cap * sizeof(*ev));

		if (!ev)
			return -ENOMEM;
		s->ev = ev;
		s->cap_ev = cap;
	}
	for (i = 0; i < msg->nr_events; i++) {
		k = mon_split_event(s->split, &msg->events[i], s->ev + n);
		if (k < 0)
			return k;
		n += (size_t)k;
	}
	*m = *msg;
	m->events = s->ev;
	m->nr_events = n;
	return 0;
}

static int es_consume(void *p, const struct mon_msg *msg)
{
	struct export_sink *s = p;
	struct mon_msg m;
	size_t i;
	int ret;

	if (msg->type == MON_MSG_PROCESSES) {
		ret = threads_processes(s->threads, msg->processes,
					msg->nr_processes);
		if (ret)
			return ret;
	}
	if (msg->type != MON_MSG_EVENTS)
		return s->format->consume(s->priv, msg);
	for (i = 0; i < msg->nr_events; i++)
		s->records += msg->events[i].type != MKM_EV_LOST;
	ret = es_split(s, msg, &m);
	return ret ? ret : s->format->consume(s->priv, &m);
}

static int es_finish(void *p)
{
	struct export_sink *s = p;
	int ret;

	/* Not finished, the format's destroy() removes its temporary. */
	if (s->result && s->result->need_records && !s->records)
		ret = -ENOMSG;
	else
		ret = s->format->finish ? s->format->finish(s->priv) : 0;
	if (s->result) {
		s->result->err = ret;
		s->result->records = s->records;
	}
	return ret;
}

static void es_destroy(void *p)
{
	struct export_sink *s = p;

	s->format->destroy(s->priv);
	mon_split_free(s->split);
	free(s->ev);
	free(s);
}

int export_sink_new(struct mon_sink **skp, const struct mon_sink_ops *format,
		    void *priv, struct threads *threads,
		    struct export_result *result)
{
	struct export_sink *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	s->split = mon_split_new();
	if (!s->split) {
		free(s);
		return -ENOMEM;
	}
	s->ops.name = format->name;
	s->ops.consume = es_consume;
	s->ops.finish = es_finish;
	s->ops.destroy = es_destroy;
	s->format = format;
	s->priv = priv;
	s->threads = threads;
	s->result = result;
	if (result)
		result->err = -ECANCELED; /* until finish() says */
	ret = mon_sink_new(skp, &s->ops, s);
	if (ret) {
		mon_split_free(s->split);
		free(s);
	}
	return ret;
}
