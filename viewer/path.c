// SPDX-License-Identifier: GPL-2.0
/*
 * path.c - the critical path (P): what the selected thread waited for,
 * walked back from the cursor through its wakers (mon_critical_path(),
 * as Trace Compass's critical path). The path is computed once, when P
 * is pressed, over the whole trace up to the cursor; the rows underline
 * its segments (path_row()) and a pane below them lists it (draw.c).
 * P again, or another timeline (K), drops it.
 */
#include <stdio.h>
#include <string.h>

#include "layout.h"
#include "viewer.h"

void path_clear(struct viewer *w)
{
	mon_path_free(&w->path);
	w->path_pane = false;
}

void path_toggle(struct viewer *w)
{
	struct row *sel = rows_selected(w);
	struct tl_thread t;
	char when[32];
	int err;

	if (w->path_pane) {
		path_clear(w);
		return;
	}
	if (w->cpu_view || !sel || tl_thread(w->tl, sel->id, &t)) {
		snprintf(
			w->message, sizeof(w->message),
			"P shows a thread's critical path: select a thread (Tab: the threads view)");
		return;
	}
	err = mon_critical_path(w->tl, sel->id, w->view.begin, w->view.cursor,
				&w->path);
	if (err) {
		snprintf(w->message, sizeof(w->message), "critical path: %s",
			 monitor_strerror(err));
		return;
	}
	w->path_pane = true;
	w->path_th = sel->id;
	w->path_at = w->view.cursor;
	mon_fmt_time(when, sizeof(when), w->path_at,
		     mon_time_origin(&w->meta.info));
	if (!(w->meta.info.classes & MKM_CLASS_WAKEUP) && !tl_nr_wakes(w->tl))
		snprintf(
			w->message, sizeof(w->message),
			"this trace has no wakeups: the path cannot leave %u %s (record with --events default)",
			t.tid, t.name);
	else if (!w->path.nr)
		snprintf(w->message, sizeof(w->message),
			 "%u %s: nothing before %s", t.tid, t.name, when);
}

static bool seg_ends_by(const void *path, size_t i, uint64_t t)
{
	return ((const struct mon_path *)path)->seg[i].end_ns <= t;
}

void path_row(const struct viewer *w, size_t th, bool *on)
{
	const struct view *v = &w->view;
	size_t i;

	memset(on, 0, v->cols * sizeof(*on));
	/* The segments follow each other in time: those on screen only. */
	i = layout_lower_bound(w->path.nr, seg_ends_by, &w->path, v->t0);
	for (; i < w->path.nr && w->path.seg[i].start_ns < v->t1; i++) {
		const struct mon_path_seg *s = &w->path.seg[i];

		if (s->thread == th)
			layout_span(v->t0, v->t1, v->cols, s->start_ns,
				    s->end_ns, on);
	}
}
