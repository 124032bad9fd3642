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
#include "state.h"

void path_clear(struct viewer_state *vs)
{
	mon_path_free(&vs->path);
	vs->path_pane = false;
}

void path_toggle(struct viewer_state *vs)
{
	const struct row *sel = rows_selected(vs);
	struct tl_thread t;
	char when[32];
	int err;

	if (vs->path_pane) {
		path_clear(vs);
		return;
	}
	if (vs->cpu_view || !sel || tl_thread(vs->tl, sel->id, &t)) {
		snprintf(
			vs->message, sizeof(vs->message),
			"P shows a thread's critical path: select a thread (Tab: the threads view)");
		return;
	}
	err = mon_critical_path(vs->tl, sel->id, vs->view.begin,
				vs->view.cursor, &vs->path);
	if (err) {
		snprintf(vs->message, sizeof(vs->message), "critical path: %s",
			 monitor_strerror(err));
		return;
	}
	vs->path_pane = true;
	vs->path_th = sel->id;
	vs->path_at = vs->view.cursor;
	mon_fmt_time(when, sizeof(when), vs->path_at,
		     mon_time_origin(&vs->meta.info));
	if (!(vs->meta.info.classes & MKM_CLASS_WAKEUP) && !tl_nr_wakes(vs->tl))
		snprintf(
			vs->message, sizeof(vs->message),
			"this trace has no wakeups: the path cannot leave %u %s (record with --events default)",
			t.tid, t.name);
	else if (!vs->path.nr)
		snprintf(vs->message, sizeof(vs->message),
			 "%u %s: nothing before %s", t.tid, t.name, when);
}

static bool seg_ends_by(const void *path, size_t i, uint64_t t)
{
	return ((const struct mon_path *)path)->seg[i].end_ns <= t;
}

void path_row(const struct viewer_state *vs, size_t th, bool *on)
{
	const struct view *v = &vs->view;
	size_t i;

	memset(on, 0, v->cols * sizeof(*on));
	/* The segments follow each other in time: those on screen only. */
	i = layout_lower_bound(vs->path.nr, seg_ends_by, &vs->path, v->t0);
	for (; i < vs->path.nr && vs->path.seg[i].start_ns < v->t1; i++) {
		const struct mon_path_seg *s = &vs->path.seg[i];

		if (s->thread == th)
			layout_span(v->t0, v->t1, v->cols, s->start_ns,
				    s->end_ns, on);
	}
}
