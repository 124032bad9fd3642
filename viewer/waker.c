// SPDX-License-Identifier: GPL-2.0
/*
 * waker.c - follow the waker (W): from the selected thread at the cursor
 * to the thread and instant that woke it last, as Trace Compass follows a
 * wait back along its critical path; b walks back the way W came.
 *
 * The timeline keeps intervals, not wakeup edges: the wake is found in it
 * (the last start, at or before the cursor, of a run-queue or running
 * interval after a sleep), and the WAKEUP record of that instant is read
 * from the file (events_read(): a read of one nanosecond of one thread),
 * naming the waker. Every W pushes where the user was; b pops it.
 */
#include <stdio.h>
#include <string.h>

#include "state.h"

static bool busy(const struct tl_interval *iv)
{
	unsigned int g = tl_state_desc(iv->state)->group;

	return g == TL_GROUP_RUN || g == TL_GROUP_INTR || g == TL_GROUP_RUNQ;
}

/* The instant thread @th was last woken at or before @t: the start of a
 * queued or running interval that follows a sleep (or its first one);
 * @until, that interval's end; @lost, whether it follows an UNKNOWN gap
 * (the wake, if any, was among the records lost). */
static bool wake_time(const struct tl *tl, size_t th, uint64_t t,
		      uint64_t *wake, uint64_t *until, bool *lost)
{
	struct tl_interval cur, prev;
	int64_t i = tl_interval_at(tl, th, t);

	for (; i >= 0; i--) {
		if (tl_interval(tl, th, (size_t)i, &cur) || !busy(&cur))
			continue;
		if (i > 0 && tl_interval(tl, th, (size_t)i - 1, &prev))
			continue;
		if (!i || !busy(&prev)) {
			*wake = cur.start_ns;
			*until = cur.end_ns;
			*lost = i && prev.state == TL_UNKNOWN;
			return true;
		}
	}
	return false;
}

struct wake_rec {
	bool found;
	struct mkm_event ev;
};

static int wake_consume(void *priv, const struct mon_msg *msg)
{
	struct wake_rec *r = priv;
	size_t i;

	if (msg->type != MON_MSG_EVENTS)
		return 0;
	for (i = 0; i < msg->nr_events; i++) {
		const struct mkm_event *e = &msg->events[i];

		if (e->type == MKM_EV_WAKEUP || e->type == MKM_EV_WAKEUP_NEW) {
			r->ev = *e;
			r->found = true;
			return MON_DONE;
		}
	}
	return 0;
}

static const struct mon_sink_ops wake_ops = {
	.name = "waker",
	.consume = wake_consume,
};

static void push_place(struct viewer_state *vs, size_t th)
{
	struct place *p;

	if (vs->nr_places == VIEWER_PLACES) {
		memmove(vs->places, vs->places + 1,
			(VIEWER_PLACES - 1) * sizeof(vs->places[0]));
		vs->nr_places--;
	}
	p = &vs->places[vs->nr_places++];
	p->th = th;
	p->cursor = vs->view.cursor;
	p->t0 = vs->view.t0;
	p->t1 = vs->view.t1;
}

/* Selects thread @th's row, showing it if it was hidden. */
static void select_thread(struct viewer_state *vs, size_t th)
{
	if (rows_select_id(vs, th) || th >= vs->nr_threads)
		return;
	vs->threads[th].hidden = false;
	rows_order(vs);
	rows_select_id(vs, th);
}

static const char *thread_name(const struct viewer_state *vs, uint32_t tid,
			       int64_t *th, char *buf, size_t len)
{
	struct tl_thread t;

	*th = tid ? tl_find(vs->tl, tid) : -1;
	if (*th >= 0 && !tl_thread(vs->tl, (size_t)*th, &t) && t.name[0])
		snprintf(buf, len, "%u %s", tid, t.name);
	else
		snprintf(buf, len, "tid %u", tid);
	return buf;
}

void waker_follow(struct viewer_state *vs)
{
	const struct row *sel = rows_selected(vs);
	struct wake_rec r = { 0 };
	struct mon_filter filter = { .nr_tids = 1 };
	char when[32], who[48], whom[48];
	struct tl_thread t;
	int64_t th;
	uint64_t wake, until;
	uint32_t tid;
	bool lost;

	if (vs->cpu_view || !sel || tl_thread(vs->tl, sel->id, &t)) {
		snprintf(
			vs->message, sizeof(vs->message),
			"W follows a thread's waker: select a thread (Tab: the threads view)");
		return;
	}
	if (!wake_time(vs->tl, sel->id, vs->view.cursor, &wake, &until,
		       &lost)) {
		snprintf(vs->message, sizeof(vs->message),
			 "%u %s was not woken up to the cursor", t.tid, t.name);
		return;
	}
	mon_fmt_time(when, sizeof(when), wake, mon_time_origin(&vs->meta.info));
	if (lost) {
		snprintf(
			vs->message, sizeof(vs->message),
			"%u %s: what woke it before %s was lost (UNKNOWN: the rings were full)",
			t.tid, t.name, when);
		return;
	}
	tid = t.tid;
	filter.tids = &tid;
	/* Up to the end of the interval the wake began: a compensated
	 * timeline's times are earlier than the file's records. */
	filter.from_ns = wake;
	filter.to_ns = until + 1;
	if (events_read(vs, &filter, &wake_ops, &r))
		return; /* vs->message says why */
	if (!r.found && !(vs->meta.info.classes & MKM_CLASS_WAKEUP)) {
		snprintf(
			vs->message, sizeof(vs->message),
			"this trace has no wakeups: record with --events default (or wakeup)");
		return;
	}
	if (!r.found) {
		snprintf(
			vs->message, sizeof(vs->message),
			"%u %s: no wakeup record at %s (lost, or it ran on after a gap)",
			t.tid, t.name, when);
		return;
	}
	thread_name(vs, r.ev.arg1, &th, who, sizeof(who));
	snprintf(whom, sizeof(whom), "%u %s", t.tid, t.name);
	push_place(vs, sel->id);
	view_set_cursor(&vs->view, wake);
	if (r.ev.arg1 && th >= 0)
		select_thread(vs, (size_t)th);
	if (r.ev.type == MKM_EV_WAKEUP_NEW)
		snprintf(vs->message, sizeof(vs->message),
			 "%s: created at %s by %s%s; b goes back", whom, when,
			 who, th >= 0 ? "" : " (not monitored)");
	else if (!r.ev.arg1)
		snprintf(
			vs->message, sizeof(vs->message),
			"%s: woken at %s on cpu %u by an interrupt of an idle CPU (or a task the monitor may not name); b goes back",
			whom, when, r.ev.cpu);
	else
		snprintf(vs->message, sizeof(vs->message),
			 "%s: woken at %s by %s%s%s; b goes back", whom, when,
			 who,
			 r.ev.flags & MKM_EVF_IN_IRQ ?
				 " (from an interrupt while it ran)" :
				 "",
			 th >= 0 ? "" : " (not monitored)");
}

void waker_back(struct viewer_state *vs)
{
	struct place p;

	if (!vs->nr_places) {
		snprintf(
			vs->message, sizeof(vs->message),
			"b goes back after W (follow the waker): nowhere to go back to");
		return;
	}
	p = vs->places[--vs->nr_places];
	if (vs->cpu_view)
		return;
	view_zoom_to(&vs->view, p.t0, p.t1);
	view_set_cursor(&vs->view, p.cursor);
	select_thread(vs, p.th);
}
