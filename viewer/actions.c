// SPDX-License-Identifier: GPL-2.0
/*
 * actions.c - a key's action applied to the viewer's state (state.h):
 * zoom, pan, the cursor and its jumps, the selection, Tab, sort, hide,
 * fold, the panes. No terminal: what the user typed comes in as text,
 * and the drawing shows the result.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "state.h"

static bool on_cpu(const struct tl_interval *iv)
{
	return tl_state_desc(iv->state)->on_cpu;
}

/*
 * The next (dir > 0) or previous switch of thread th from time t: an
 * interval start where the thread gets or leaves a CPU. UINT64_MAX if none.
 */
static uint64_t find_switch(const struct viewer_state *vs, size_t th,
			    uint64_t t, int dir)
{
	struct tl_interval prev, cur;
	int64_t i = tl_interval_at(vs->tl, th, t);
	size_t k;

	if (i < 0)
		i = 0;
	if (dir > 0) {
		for (k = (size_t)i + 1; !tl_interval(vs->tl, th, k, &cur);
		     k++) {
			if (tl_interval(vs->tl, th, k - 1, &prev))
				break;
			if (cur.start_ns > t && on_cpu(&prev) != on_cpu(&cur))
				return cur.start_ns;
		}
		return UINT64_MAX;
	}
	for (k = (size_t)i; k > 0; k--) {
		if (tl_interval(vs->tl, th, k, &cur) ||
		    tl_interval(vs->tl, th, k - 1, &prev))
			continue;
		if (cur.start_ns < t && on_cpu(&prev) != on_cpu(&cur))
			return cur.start_ns;
	}
	return UINT64_MAX;
}

/* The start of the next interval after t of thread th that is UNKNOWN
 * after a known state (a LOST gap), or longer than min_ns if set. */
static uint64_t find_interval(const struct viewer_state *vs, size_t th,
			      uint64_t t, uint64_t min_ns)
{
	struct tl_interval iv[256];
	int64_t at = tl_interval_at(vs->tl, th, t);
	size_t first = at < 0 ? 0 : (size_t)at;
	ssize_t n, j;

	for (; (n = tl_intervals(vs->tl, th, first, 256, iv)) > 0;
	     first += (size_t)n) {
		for (j = 0; j < n; j++) {
			if (iv[j].start_ns <= t)
				continue;
			if (min_ns ? iv[j].end_ns - iv[j].start_ns > min_ns :
				     iv[j].state == TL_UNKNOWN &&
					     first + (size_t)j > 0)
				return iv[j].start_ns;
		}
	}
	return UINT64_MAX;
}

static void jump(struct viewer_state *vs, uint64_t t, const char *none)
{
	if (t == UINT64_MAX) {
		snprintf(vs->message, sizeof(vs->message), "%s", none);
		return;
	}
	view_set_cursor(&vs->view, t);
}

static void next_lost(struct viewer_state *vs)
{
	uint64_t best = UINT64_MAX;
	size_t th;

	for (th = 0; th < vs->nr_threads; th++) {
		uint64_t t = find_interval(vs, th, vs->view.cursor, 0);

		if (t < best)
			best = t;
	}
	jump(vs, best, "no LOST gap after the cursor");
}

static void next_mark(struct viewer_state *vs)
{
	size_t k;

	for (k = 0; k < tl_nr_marks(vs->tl); k++) {
		struct tl_mark m;

		if (!tl_mark(vs->tl, k, &m) && m.time_ns > vs->view.cursor) {
			view_set_cursor(&vs->view, m.time_ns);
			snprintf(vs->message, sizeof(vs->message),
				 "mark %llu of tid %u",
				 (unsigned long long)m.value, m.tid);
			return;
		}
	}
	jump(vs, UINT64_MAX, "no mark after the cursor");
}

/* Hide the threads that neither ran nor waited for a CPU on screen. */
static void collapse(struct viewer_state *vs)
{
	uint64_t time[TL_NR_STATES];
	size_t i, hidden = 0;
	unsigned int s;

	if (vs->cpu_view)
		return;
	for (i = 0; i < vs->nr_threads; i++) {
		uint64_t busy = 0;

		if (vs->threads[i].hidden ||
		    lod_time(vs->lod, i, vs->view.t0, vs->view.t1, time))
			continue;
		for (s = 0; s < TL_NR_STATES; s++) {
			unsigned int g = tl_state_desc(s)->group;

			if (g == TL_GROUP_RUN || g == TL_GROUP_INTR ||
			    g == TL_GROUP_RUNQ)
				busy += time[s];
		}
		if (!busy && hidden + 1 < vs->nr_order) {
			vs->threads[i].hidden = true;
			hidden++;
		}
	}
	rows_order(vs);
	snprintf(vs->message, sizeof(vs->message),
		 "%zu idle thread%s hidden (U shows them)", hidden,
		 hidden == 1 ? "" : "s");
}

/* The next flutter after the cursor, its thread's row selected. */
static void next_flutter(struct viewer_state *vs)
{
	size_t i = lod_first_flutter(vs->lod, vs->view.cursor + 1), k;
	struct tl_flutter f;

	if (tl_flutter(vs->tl, i, &f)) {
		jump(vs, UINT64_MAX, "no flutter after the cursor");
		return;
	}
	view_set_cursor(&vs->view, f.time_ns);
	for (k = 0; !vs->cpu_view && k < vs->nr_order; k++)
		if (rows_at(vs, k) && rows_at(vs, k)->id == f.thread)
			view_select(&vs->view,
				    (int64_t)k - (int64_t)vs->view.sel);
	snprintf(vs->message, sizeof(vs->message),
		 "flutter: back on cpu %u from idle", f.cpu);
}

/* Find the row @what names; an empty search repeats the last. */
static void search(struct viewer_state *vs, const char *what)
{
	int64_t i;

	if (what && what[0])
		snprintf(vs->search, sizeof(vs->search), "%s", what);
	if (!vs->search[0])
		return;
	i = rows_find(vs, vs->search);
	if (i < 0)
		snprintf(vs->message, sizeof(vs->message),
			 "no row matches \"%s\"", vs->search);
	else
		view_select(&vs->view, i - (int64_t)vs->view.sel);
}

/* The next interval of the selected thread longer than @text (5ms). */
static void next_long(struct viewer_state *vs, const struct row *sel,
		      const char *text)
{
	uint64_t d;

	if (!sel || vs->cpu_view || !text || !text[0])
		return;
	d = mon_parse_time(text) > 0 ? (uint64_t)mon_parse_time(text) : 0;
	if (!d) {
		snprintf(vs->message, sizeof(vs->message),
			 "\"%s\": give a time such as 5ms, 200us or 2s", text);
		return;
	}
	jump(vs, find_interval(vs, sel->id, vs->view.cursor, d),
	     "no such interval after the cursor");
}

/*
 * Tab: the other view (threads or CPUs), each keeping its own selection
 * and scroll; the CPUs view, the first time, selects the CPU the selected
 * thread is on (or queued on, or last ran on) at the cursor.
 */
static void switch_view(struct viewer_state *vs, const struct row *sel)
{
	struct view *v = &vs->view;
	struct kept_place *here = &vs->kept[vs->cpu_view];
	struct kept_place *there = &vs->kept[!vs->cpu_view];
	int node = rows_node_at(vs, v->sel);

	*here = (struct kept_place){ .id = sel ? sel->id : (size_t)node,
				     .top = v->top,
				     .node = !sel && node >= 0,
				     .valid = sel || node >= 0 };
	if (!vs->cpu_view && sel && !there->valid) {
		struct tl_interval iv;
		int64_t i = tl_interval_at(vs->tl, sel->id, v->cursor);

		if (i >= 0 && !tl_interval(vs->tl, sel->id, (size_t)i, &iv))
			*there = (struct kept_place){ .id = iv.cpu,
						      .valid = true };
	}
	vs->cpu_view = !vs->cpu_view;
	v->sel = v->top = 0;
	if (rows_order(vs)) {
		vs->cpu_view = false;
		rows_order(vs);
		snprintf(vs->message, sizeof(vs->message),
			 "out of memory for the CPUs view");
		return;
	}
	if (!there->valid)
		return;
	v->top = there->top;
	view_select(v, 0);
	if (there->node)
		rows_select_node(vs, (int)there->id);
	else
		rows_select_id(vs, there->id);
}

static void act_on(struct viewer_state *vs, enum action a, struct view *v,
		   const struct row *sel, int64_t pan, const char *text)
{
	switch (a) {
	case ACT_NONE:
	case ACT_REDRAW:
	case ACT_QUIT: /* the terminal's (viewer.c) */
	case ACT_HELP:
	case ACT_COMPENSATED:
		break;
	case ACT_ZOOM_IN:
		view_zoom(v, 1, 2);
		break;
	case ACT_ZOOM_OUT:
		view_zoom(v, 2, 1);
		break;
	case ACT_PAN_LEFT:
		view_pan(v, -pan);
		break;
	case ACT_PAN_RIGHT:
		view_pan(v, pan);
		break;
	case ACT_CURSOR_LEFT:
		view_move_cursor(v, -1);
		break;
	case ACT_CURSOR_RIGHT:
		view_move_cursor(v, 1);
		break;
	case ACT_CURSOR_LEFT_FAST:
		view_move_cursor(v, -10);
		break;
	case ACT_CURSOR_RIGHT_FAST:
		view_move_cursor(v, 10);
		break;
	case ACT_FIT:
		view_fit(v);
		break;
	case ACT_ZOOM_METER:
		if (v->meter[0] == VIEW_UNSET || v->meter[1] == VIEW_UNSET)
			snprintf(vs->message, sizeof(vs->message),
				 "set the metering lines first (A, B)");
		else
			view_zoom_to(v, v->meter[0], v->meter[1]);
		break;
	case ACT_START:
		view_set_cursor(v, v->begin);
		break;
	case ACT_END:
		view_set_cursor(v, v->end - 1);
		break;
	case ACT_UP:
		view_select(v, -1);
		break;
	case ACT_DOWN:
		view_select(v, 1);
		break;
	case ACT_PAGE_UP:
		view_select(v, -(int64_t)v->page);
		break;
	case ACT_PAGE_DOWN:
		view_select(v, v->page);
		break;
	case ACT_METER_A:
	case ACT_METER_B:
		v->meter[a == ACT_METER_B] = v->cursor;
		break;
	case ACT_METER_CLEAR:
		v->meter[0] = v->meter[1] = VIEW_UNSET;
		vs->meter_pane = false;
		break;
	case ACT_METER_PANE:
		vs->meter_pane = !vs->meter_pane;
		if (v->meter[0] == VIEW_UNSET || v->meter[1] == VIEW_UNSET)
			snprintf(vs->message, sizeof(vs->message),
				 "set the metering lines first (A, B)");
		break;
	case ACT_NEXT_SWITCH:
	case ACT_PREV_SWITCH:
		if (sel && !vs->cpu_view)
			jump(vs,
			     find_switch(vs, sel->id, v->cursor,
					 a == ACT_NEXT_SWITCH ? 1 : -1),
			     "no switch there");
		break;
	case ACT_NEXT_LOST:
		next_lost(vs);
		break;
	case ACT_NEXT_MARK:
		next_mark(vs);
		break;
	case ACT_NEXT_FLUTTER:
		next_flutter(vs);
		break;
	case ACT_NEXT_LONG:
		next_long(vs, sel, text);
		break;
	case ACT_SEARCH:
		search(vs, text);
		break;
	case ACT_HIDE:
		rows_hide_selected(vs);
		break;
	case ACT_SHOW_ALL:
		rows_show_all(vs);
		break;
	case ACT_COLLAPSE:
		collapse(vs);
		break;
	case ACT_FOLD:
		if (rows_fold(vs) == -ENOENT)
			snprintf(vs->message, sizeof(vs->message),
				 "no node to fold: not a merged trace "
				 "(mkm merge)");
		break;
	case ACT_SORT:
		vs->sort = (vs->sort + 1) % NR_SORTS;
		rows_order(vs);
		/* A sort is asked for its first rows: they are shown, with
		 * the selection if it is among them, else on the first. */
		if (v->sel >= v->page)
			view_select(v, -(int64_t)v->sel);
		v->top = 0;
		snprintf(vs->message, sizeof(vs->message), "sorted by %s",
			 rows_sort_name(vs->sort));
		break;
	case ACT_NOISE: {
		int err = 0;

		vs->noise_pane = !vs->noise_pane && sel && !vs->cpu_view;
		/* Indexed now: a live timeline shows what it held then. */
		noise_destroy(vs->noise);
		vs->noise = NULL;
		if (vs->noise_pane)
			err = noise_create(&vs->noise, vs->tl);
		if (err) {
			vs->noise_pane = false;
			snprintf(vs->message, sizeof(vs->message), "noise: %s",
				 monitor_strerror(err));
		}
		break;
	}
	case ACT_WAKER:
		waker_follow(vs);
		break;
	case ACT_BACK:
		waker_back(vs);
		break;
	case ACT_PATH:
		path_toggle(vs);
		break;
	case ACT_EVENTS:
		vs->events_pane = !vs->events_pane && sel;
		vs->events_cursor = UINT64_MAX; /* read them now */
		break;
	case ACT_FOLLOW:
		v->follow = true;
		view_set_range(v, v->begin, v->end);
		break;
	case ACT_CPUS:
		switch_view(vs, sel);
		break;
	}
}

const char *act_prompt(const struct viewer_state *vs, enum action a)
{
	if (a == ACT_SEARCH)
		return "/";
	/* Only a thread's intervals are searched by length. */
	if (a == ACT_NEXT_LONG && rows_selected(vs) && !vs->cpu_view)
		return "longer than: ";
	return NULL;
}

void act(struct viewer_state *vs, enum action a, const char *text)
{
	struct view *v = &vs->view;
	const struct row *sel = rows_selected(vs);
	int64_t pan = v->cols / 8 ? v->cols / 8 : 1;
	uint64_t t0 = v->t0, t1 = v->t1;

	act_on(vs, a, v, sel, pan, text);
	sel = rows_selected(vs);
	/* The events pane follows the cursor and the selection. */
	if (vs->events_pane && sel) {
		struct tl_thread t = { 0 };
		int cpu = vs->cpu_view ? (int)sel->id : -1;

		if (!vs->cpu_view)
			tl_thread(vs->tl, sel->id, &t);
		if (t.tid != vs->events_tid || cpu != vs->events_cpu ||
		    v->cursor != vs->events_cursor)
			events_around(vs, t.tid, cpu,
				      v->page > 2 ? v->page - 1 : 1);
	}
	/* Live: a look elsewhere stops following the newest time. */
	if (a != ACT_FOLLOW && (v->t0 != t0 || v->t1 != t1))
		v->follow = false;
}
