// SPDX-License-Identifier: GPL-2.0
/*
 * late.c - the wakeup pane: when the selected thread's interval under the
 * cursor is a wakeup's wait on a run queue, or the cursor is on the
 * switch-in that ended it (n and N put it there; in the events pane, the
 * record at > is that SWITCH_IN), why it waited, as mkm latency --why
 * takes it apart: libmonitor's mon_late_wakeup_at() over a noise index
 * of the timeline and the file's WAKING records, both made the first time
 * a wakeup is under the cursor (again, live, for a wait that ends past
 * them). Computed before each frame, again only when the wait under the
 * cursor changes; draw.c lists it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

/* The instant the pane explains: the events pane's SWITCH_IN at >, else
 * the cursor. */
static uint64_t late_instant(const struct viewer_state *vs, uint32_t tid)
{
	const struct mkm_event *e;

	if (!vs->events_pane || vs->events_before >= vs->nr_events)
		return vs->view.cursor;
	e = &vs->events[vs->events_before];
	if ((e->type == MKM_EV_SWITCH_IN && e->tid == tid) ||
	    (e->type == MKM_EV_SWITCH && e->arg1 == tid))
		return e->time_ns;
	return vs->view.cursor;
}

/* The interval of thread @th, a wait on a run queue, that holds @t or
 * that a switch-in at @t ended; -1 if none. */
static int64_t late_wait_at(const struct tl *tl, size_t th, uint64_t t)
{
	struct tl_interval iv, prev;
	int64_t i = tl_interval_at(tl, th, t);

	if (i < 0 || tl_interval(tl, th, (size_t)i, &iv))
		return -1;
	if (iv.state == TL_RUNQ && t < iv.end_ns)
		return i;
	if (i > 0 && iv.start_ns == t && tl_state_desc(iv.state)->on_cpu &&
	    !tl_interval(tl, th, (size_t)i - 1, &prev) && prev.state == TL_RUNQ)
		return i - 1;
	return -1;
}

static int wakings_consume(void *priv, const struct mon_msg *msg)
{
	if (msg->type != MON_MSG_EVENTS)
		return 0;
	return mon_wakings_add(priv, msg->events, msg->nr_events);
}

static const struct mon_sink_ops wakings_ops = {
	.name = "wakeup pane",
	.consume = wakings_consume,
};

/*
 * The index and the WAKING records; made again only when the timeline has
 * grown (live) and the wait to explain ends past what they hold: the
 * past does not change, and a live view refreshes every 100 ms.
 */
static int late_index(struct viewer_state *vs, uint64_t until)
{
	int err;

	if (vs->late_noise && (!vs->late_stale || until <= vs->late_upto))
		return 0;
	noise_destroy(vs->late_noise);
	vs->late_noise = NULL;
	mon_wakings_destroy(vs->late_wakings);
	vs->late_wakings = NULL;
	err = noise_create(&vs->late_noise, vs->tl);
	if (err)
		return err;
	vs->late_stale = false;
	vs->late_upto = vs->view.end;
	/* Without the file (or its WAKING records) the wait counts from the
	 * enqueue, as mkm latency --why's does. */
	if (!vs->file || mon_wakings_create(&vs->late_wakings))
		return 0;
	if (events_read(vs, NULL, &wakings_ops, vs->late_wakings)) {
		mon_wakings_destroy(vs->late_wakings);
		vs->late_wakings = NULL;
	}
	return 0;
}

void late_clear(struct viewer_state *vs)
{
	mon_late_free(&vs->late);
	vs->late_ok = false;
	vs->late_iv = -1;
}

void late_update(struct viewer_state *vs)
{
	const struct row *sel = rows_selected(vs);
	struct tl_interval w;
	struct tl_thread t;
	int64_t iv;
	int err;

	if (vs->cpu_view || !sel || tl_thread(vs->tl, sel->id, &t)) {
		late_clear(vs);
		return;
	}
	iv = late_wait_at(vs->tl, sel->id, late_instant(vs, t.tid));
	if (iv < 0) {
		late_clear(vs);
		return;
	}
	/* The same wait as the last frame's; one that was none (a wait
	 * after a preemption) is asked again once the timeline grew. */
	if (vs->late_th == sel->id && vs->late_iv == iv &&
	    (vs->late_ok || !vs->late_stale))
		return;
	late_clear(vs);
	tl_interval(vs->tl, sel->id, (size_t)iv, &w);
	if (w.open)
		return; /* live: still waiting, no switch-in yet */
	vs->late_th = sel->id;
	vs->late_iv = iv;
	err = late_index(vs, w.end_ns);
	if (!err)
		err = mon_late_wakeup_at(vs->late_noise, sel->id, w.start_ns,
					 vs->late_wakings, &vs->late);
	vs->late_ok = !err;
	if (err && err != -ESRCH)
		snprintf(vs->message, sizeof(vs->message), "wakeup: %s",
			 monitor_strerror(err));
}

void late_free(struct viewer_state *vs)
{
	late_clear(vs);
	noise_destroy(vs->late_noise);
	vs->late_noise = NULL;
	mon_wakings_destroy(vs->late_wakings);
	vs->late_wakings = NULL;
}
