// SPDX-License-Identifier: GPL-2.0
/*
 * events.c - the viewer's events pane: the selected thread's records
 * around the cursor (who woke it, which IRQ, its migrations), read again
 * from the trace file through a pipeline: file source -> filter stage
 * (the thread, the window on screen) -> a sink that keeps the records
 * just before the cursor and the first ones after it. The timeline keeps
 * intervals, not records, so this costs a read of the file; it runs when
 * asked (e), not every frame.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

struct around {
	uint64_t cursor;
	int cpu; /* keep this CPU's records only, or -1 */
	struct mkm_event *ev; /* before: a ring of nb; then after */
	size_t want_before, want_after;
	size_t nb, head, na;
};

static int around_consume(void *priv, const struct mon_msg *msg)
{
	struct around *a = priv;
	size_t i;

	if (msg->type != MON_MSG_EVENTS)
		return 0;
	for (i = 0; i < msg->nr_events; i++) {
		const struct mkm_event *e = &msg->events[i];

		if (a->cpu >= 0 && e->cpu != a->cpu)
			continue;
		if (e->time_ns < a->cursor) {
			if (!a->want_before)
				continue;
			a->ev[a->head] = *e;
			a->head = (a->head + 1) % a->want_before;
			if (a->nb < a->want_before)
				a->nb++;
		} else {
			a->ev[a->want_before + a->na++] = *e;
			if (a->na == a->want_after)
				return MON_DONE;
		}
	}
	return 0;
}

static const struct mon_sink_ops around_ops = {
	.name = "events pane",
	.consume = around_consume,
};

int events_read(struct viewer_state *vs, const struct mon_filter *filter,
		const struct mon_sink_ops *ops, void *priv)
{
	struct mon_source *src = NULL;
	struct mon_pipeline *p;
	struct mon_stage *keep, *order;
	struct mon_sink *sink;
	int err;

	if (!vs->file) {
		snprintf(vs->message, sizeof(vs->message),
			 "no trace file to read the records from");
		return -ENOENT;
	}
	err = mon_source_file(&src, vs->file);
	if (err) {
		snprintf(vs->message, sizeof(vs->message), "%s: %s", vs->file,
			 src ? mon_source_error(src, NULL) :
			       monitor_strerror(err));
		mon_source_destroy(src);
		return err;
	}
	err = mon_pipeline_create(&p, src);
	if (err)
		return err;
	if (filter) {
		err = mon_stage_filter(&keep, filter);
		if (!err)
			err = mon_pipeline_add_stage(p, keep);
	}
	if (!err)
		err = mon_stage_order(&order);
	if (!err)
		err = mon_pipeline_add_stage(p, order);
	if (!err)
		err = mon_sink_new(&sink, ops, priv);
	if (!err)
		err = mon_pipeline_add_sink(p, sink);
	if (!err)
		err = mon_pipeline_run(p);
	if (err == -ENODATA || err == -EBADMSG)
		err = 0;
	else if (err)
		snprintf(vs->message, sizeof(vs->message), "%s",
			 mon_pipeline_error(p, NULL));
	mon_pipeline_destroy(p);
	return err;
}

int events_around(struct viewer_state *vs, uint32_t tid, int cpu, size_t max)
{
	struct around a = { .cursor = vs->view.cursor, .cpu = cpu };
	struct mon_filter filter = {
		.tids = &tid,
		.nr_tids = tid ? 1 : 0,
		.from_ns = vs->view.t0,
		.to_ns = vs->view.t1,
	};
	struct mkm_event *ev;
	size_t i, k = 0;
	int err;

	a.want_before = max / 2;
	a.want_after = max - a.want_before;
	ev = calloc(max + 1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	a.ev = ev;
	err = events_read(vs, &filter, &around_ops, &a);
	free(vs->events);
	vs->events = calloc(a.nb + a.na + 1, sizeof(*vs->events));
	vs->nr_events = 0;
	vs->events_before = a.nb;
	if (!vs->events) {
		free(ev);
		return -ENOMEM;
	}
	/* The ring's oldest first. */
	for (i = 0; i < a.nb; i++)
		vs->events[k++] = ev[(a.head + a.want_before - a.nb + i) %
				     (a.want_before ? a.want_before : 1)];
	for (i = 0; i < a.na; i++)
		vs->events[k++] = ev[a.want_before + i];
	vs->nr_events = k;
	vs->events_tid = tid;
	vs->events_cpu = cpu;
	vs->events_cursor = vs->view.cursor;
	free(ev);
	return err;
}

/* The sink that keeps every switch's next task (a SWITCH_OUT's or a
 * SWITCH's arg1), per CPU. */
static int peers_consume(void *priv, const struct mon_msg *msg)
{
	struct viewer_state *vs = priv;
	size_t i;

	if (msg->type != MON_MSG_EVENTS)
		return 0;
	for (i = 0; i < msg->nr_events; i++) {
		const struct mkm_event *e = &msg->events[i];
		struct cpu_track *t;

		if ((e->type != MKM_EV_SWITCH_OUT &&
		     e->type != MKM_EV_SWITCH) ||
		    e->cpu >= vs->nr_cpus)
			continue;
		t = &vs->tracks[e->cpu];
		if (t->nr_peers == t->cap_peers) {
			size_t cap = t->cap_peers ? t->cap_peers * 2 : 64;
			struct cpu_peer *p =
				realloc(t->peers, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			t->peers = p;
			t->cap_peers = cap;
		}
		t->peers[t->nr_peers++] =
			(struct cpu_peer){ e->time_ns, e->arg1 };
	}
	return 0;
}

static const struct mon_sink_ops peers_ops = {
	.name = "cpu peers",
	.consume = peers_consume,
};

int events_peers(struct viewer_state *vs)
{
	return events_read(vs, NULL, &peers_ops, vs);
}
