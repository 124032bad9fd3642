// SPDX-License-Identifier: GPL-2.0
/* viewer.c - the viewer's loop: a key to an action, an action to the model. */

#define _XOPEN_SOURCE_EXTENDED
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "layout.h"
#include "viewer.h"

/* The time the timeline covers: its threads' lives. */
static void time_range(const struct tl *tl, uint64_t *begin, uint64_t *end)
{
	size_t th;

	*begin = UINT64_MAX;
	*end = 0;
	for (th = 0; th < tl_nr_threads(tl); th++) {
		struct tl_thread t;

		tl_thread(tl, th, &t);
		if (t.first_ns < *begin)
			*begin = t.first_ns;
		if (t.end_ns > *end)
			*end = t.end_ns;
	}
	if (*begin > *end)
		*begin = *end = 0;
}

int viewer_open(struct viewer *w, const char *file, struct tl *tl,
		const struct mon_meta *meta)
{
	uint64_t begin, end;
	int err;

	memset(w, 0, sizeof(*w));
	w->file = file;
	w->tl = tl;
	w->meta = *meta;
	/* A merged trace's nodes group its threads; any other has none (and
	 * is not read again for them). */
	if (file && meta->info.trace_flags & TRACE_F_MERGED &&
	    !mon_nodes_load(&w->nodes, file)) {
		w->groups = calloc(w->nodes.hdr.nr_nodes, sizeof(*w->groups));
		if (!w->groups) {
			mon_nodes_free(&w->nodes);
			memset(&w->nodes, 0, sizeof(w->nodes));
		}
	} else {
		memset(&w->nodes, 0, sizeof(w->nodes));
	}
	time_range(tl, &begin, &end);
	view_init(&w->view, begin, end, 80);
	err = lod_create(&w->lod, tl);
	if (!err)
		err = rows_update(w);
	return err;
}

int viewer_refresh(struct viewer *w)
{
	uint64_t begin, end;
	int err = lod_update(w->lod);

	if (!err)
		err = rows_update(w);
	time_range(w->tl, &begin, &end);
	view_set_range(&w->view, begin, end);
	return err;
}

int viewer_swap(struct viewer *w, struct tl *tl, const struct mon_meta *meta)
{
	struct lod *lod;
	int err = lod_create(&lod, tl);

	if (err)
		return err;
	lod_destroy(w->lod);
	rows_free(w);
	w->lod = lod;
	w->tl = tl;
	w->meta = *meta;
	w->threads = w->cpus = NULL;
	w->order = NULL;
	w->nr_threads = w->nr_cpus = w->nr_order = 0;
	w->events_cursor = UINT64_MAX; /* the pane reads them again */
	noise_destroy(w->noise); /* it indexed the other timeline */
	w->noise = NULL;
	w->noise_pane = false;
	path_clear(w); /* its times are the other timeline's */
	err = rows_update(w);
	return err ? err : rows_order(w);
}

void viewer_close(struct viewer *w)
{
	noise_result_free(&w->noise_res);
	noise_destroy(w->noise);
	mon_path_free(&w->path);
	free(w->events);
	rows_free(w);
	lod_destroy(w->lod);
	free(w->groups);
	mon_nodes_free(&w->nodes);
}

static bool on_cpu(const struct tl_interval *iv)
{
	return tl_state_desc(iv->state)->on_cpu;
}

/*
 * The next (dir > 0) or previous switch of thread th from time t: an
 * interval start where the thread gets or leaves a CPU. UINT64_MAX if none.
 */
static uint64_t find_switch(const struct viewer *w, size_t th, uint64_t t,
			    int dir)
{
	struct tl_interval prev, cur;
	int64_t i = tl_interval_at(w->tl, th, t);
	size_t k;

	if (i < 0)
		i = 0;
	if (dir > 0) {
		for (k = (size_t)i + 1; !tl_interval(w->tl, th, k, &cur); k++) {
			if (tl_interval(w->tl, th, k - 1, &prev))
				break;
			if (cur.start_ns > t && on_cpu(&prev) != on_cpu(&cur))
				return cur.start_ns;
		}
		return UINT64_MAX;
	}
	for (k = (size_t)i; k > 0; k--) {
		if (tl_interval(w->tl, th, k, &cur) ||
		    tl_interval(w->tl, th, k - 1, &prev))
			continue;
		if (cur.start_ns < t && on_cpu(&prev) != on_cpu(&cur))
			return cur.start_ns;
	}
	return UINT64_MAX;
}

/* The start of the next interval after t of thread th that is UNKNOWN
 * after a known state (a LOST gap), or longer than min_ns if set. */
static uint64_t find_interval(const struct viewer *w, size_t th, uint64_t t,
			      uint64_t min_ns)
{
	struct tl_interval iv[256];
	int64_t at = tl_interval_at(w->tl, th, t);
	size_t first = at < 0 ? 0 : (size_t)at;
	ssize_t n, j;

	for (; (n = tl_intervals(w->tl, th, first, 256, iv)) > 0;
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

static void jump(struct viewer *w, uint64_t t, const char *none)
{
	if (t == UINT64_MAX) {
		snprintf(w->message, sizeof(w->message), "%s", none);
		return;
	}
	view_set_cursor(&w->view, t);
}

static void next_lost(struct viewer *w)
{
	uint64_t best = UINT64_MAX;
	size_t th;

	for (th = 0; th < w->nr_threads; th++) {
		uint64_t t = find_interval(w, th, w->view.cursor, 0);

		if (t < best)
			best = t;
	}
	jump(w, best, "no LOST gap after the cursor");
}

static void next_mark(struct viewer *w)
{
	size_t k;

	for (k = 0; k < tl_nr_marks(w->tl); k++) {
		struct tl_mark m;

		if (!tl_mark(w->tl, k, &m) && m.time_ns > w->view.cursor) {
			view_set_cursor(&w->view, m.time_ns);
			snprintf(w->message, sizeof(w->message),
				 "mark %llu of tid %u",
				 (unsigned long long)m.value, m.tid);
			return;
		}
	}
	jump(w, UINT64_MAX, "no mark after the cursor");
}

/* Hide the threads that neither ran nor waited for a CPU on screen. */
static void collapse(struct viewer *w)
{
	uint64_t time[TL_NR_STATES];
	size_t i, hidden = 0;
	unsigned int s;

	if (w->cpu_view)
		return;
	for (i = 0; i < w->nr_threads; i++) {
		uint64_t busy = 0;

		if (w->threads[i].hidden ||
		    lod_time(w->lod, i, w->view.t0, w->view.t1, time))
			continue;
		for (s = 0; s < TL_NR_STATES; s++) {
			unsigned int g = tl_state_desc(s)->group;

			if (g == TL_GROUP_RUN || g == TL_GROUP_INTR ||
			    g == TL_GROUP_RUNQ)
				busy += time[s];
		}
		if (!busy && hidden + 1 < w->nr_order) {
			w->threads[i].hidden = true;
			hidden++;
		}
	}
	rows_order(w);
	snprintf(w->message, sizeof(w->message),
		 "%zu idle thread%s hidden (U shows them)", hidden,
		 hidden == 1 ? "" : "s");
}

/* The next flutter after the cursor, its thread's row selected. */
static void next_flutter(struct viewer *w)
{
	size_t i = lod_first_flutter(w->lod, w->view.cursor + 1), k;
	struct tl_flutter f;

	if (tl_flutter(w->tl, i, &f)) {
		jump(w, UINT64_MAX, "no flutter after the cursor");
		return;
	}
	view_set_cursor(&w->view, f.time_ns);
	for (k = 0; !w->cpu_view && k < w->nr_order; k++)
		if (rows_at(w, k) && rows_at(w, k)->id == f.thread)
			view_select(&w->view,
				    (int64_t)k - (int64_t)w->view.sel);
	snprintf(w->message, sizeof(w->message),
		 "flutter: back on cpu %u from idle", f.cpu);
}

static void search(struct viewer *w)
{
	char buf[sizeof(w->search)] = "";
	int64_t i;

	if (draw_prompt("/", buf, sizeof(buf)))
		snprintf(w->search, sizeof(w->search), "%s", buf);
	if (!w->search[0])
		return;
	i = rows_find(w, w->search);
	if (i < 0)
		snprintf(w->message, sizeof(w->message),
			 "no row matches \"%s\"", w->search);
	else
		view_select(&w->view, i - (int64_t)w->view.sel);
}

static void next_long(struct viewer *w, const struct row *sel)
{
	char buf[32] = "";
	uint64_t d;

	if (!sel || w->cpu_view ||
	    !draw_prompt("longer than: ", buf, sizeof(buf)))
		return;
	d = mon_parse_time(buf) > 0 ? (uint64_t)mon_parse_time(buf) : 0;
	if (!d) {
		snprintf(w->message, sizeof(w->message),
			 "\"%s\": give a time such as 5ms, 200us or 2s", buf);
		return;
	}
	jump(w, find_interval(w, sel->id, w->view.cursor, d),
	     "no such interval after the cursor");
}

static void mouse(struct viewer *w)
{
	MEVENT ev;

	if (getmouse(&ev) != OK)
		return;
	if (ev.bstate & BUTTON4_PRESSED) {
		view_zoom(&w->view, 1, 2);
	} else if (ev.bstate & BUTTON5_PRESSED) {
		view_zoom(&w->view, 2, 1);
	} else if (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)) {
		int col;
		int64_t row;

		draw_locate(w, ev.y, ev.x, &col, &row);
		if (col >= 0)
			view_set_cursor(&w->view,
					view_col_time(&w->view,
						      (unsigned int)col));
		if (row >= 0)
			view_select(&w->view, row - (int64_t)w->view.sel);
	}
}

/*
 * Tab: the other view (threads or CPUs), each keeping its own selection
 * and scroll; the CPUs view, the first time, selects the CPU the selected
 * thread is on (or queued on, or last ran on) at the cursor.
 */
static void switch_view(struct viewer *w, const struct row *sel)
{
	struct view *v = &w->view;
	struct kept_place *here = &w->kept[w->cpu_view];
	struct kept_place *there = &w->kept[!w->cpu_view];

	*here = (struct kept_place){ .id = sel ? sel->id : 0,
				     .top = v->top,
				     .valid = sel != NULL };
	if (!w->cpu_view && sel && !there->valid) {
		struct tl_interval iv;
		int64_t i = tl_interval_at(w->tl, sel->id, v->cursor);

		if (i >= 0 && !tl_interval(w->tl, sel->id, (size_t)i, &iv))
			*there = (struct kept_place){ .id = iv.cpu,
						      .valid = true };
	}
	w->cpu_view = !w->cpu_view;
	v->sel = v->top = 0;
	if (rows_order(w)) {
		w->cpu_view = false;
		rows_order(w);
		snprintf(w->message, sizeof(w->message),
			 "out of memory for the CPUs view");
		return;
	}
	if (!there->valid)
		return;
	v->top = there->top;
	view_select(v, 0);
	rows_select_id(w, there->id);
}

static void act_on(struct viewer *w, enum action a, struct view *v,
		   struct row *sel, int64_t pan)
{
	switch (a) {
	case ACT_NONE:
	case ACT_REDRAW:
		break;
	case ACT_QUIT:
		w->quit = true;
		break;
	case ACT_HELP:
		w->help = true;
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
			snprintf(w->message, sizeof(w->message),
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
		w->meter_pane = false;
		break;
	case ACT_METER_PANE:
		w->meter_pane = !w->meter_pane;
		if (v->meter[0] == VIEW_UNSET || v->meter[1] == VIEW_UNSET)
			snprintf(w->message, sizeof(w->message),
				 "set the metering lines first (A, B)");
		break;
	case ACT_NEXT_SWITCH:
	case ACT_PREV_SWITCH:
		if (sel && !w->cpu_view)
			jump(w,
			     find_switch(w, sel->id, v->cursor,
					 a == ACT_NEXT_SWITCH ? 1 : -1),
			     "no switch there");
		break;
	case ACT_NEXT_LOST:
		next_lost(w);
		break;
	case ACT_NEXT_MARK:
		next_mark(w);
		break;
	case ACT_NEXT_FLUTTER:
		next_flutter(w);
		break;
	case ACT_NEXT_LONG:
		next_long(w, sel);
		break;
	case ACT_SEARCH:
		search(w);
		break;
	case ACT_HIDE:
		if (sel && w->nr_order > 1) {
			sel->hidden = true;
			rows_order(w);
		}
		break;
	case ACT_SHOW_ALL: {
		size_t i;

		for (i = 0; i < w->nr_threads; i++)
			w->threads[i].hidden = false;
		for (i = 0; i < w->nr_cpus; i++)
			w->cpus[i].hidden = false;
		rows_order(w);
		break;
	}
	case ACT_COLLAPSE:
		collapse(w);
		break;
	case ACT_FOLD:
		if (rows_fold(w) == -ENOENT)
			snprintf(w->message, sizeof(w->message),
				 "no node to fold: not a merged trace "
				 "(mkm merge)");
		break;
	case ACT_SORT:
		w->sort = (w->sort + 1) % NR_SORTS;
		rows_order(w);
		/* A sort is asked for its first rows: they are shown, with
		 * the selection if it is among them, else on the first. */
		if (v->sel >= v->page)
			view_select(v, -(int64_t)v->sel);
		v->top = 0;
		snprintf(w->message, sizeof(w->message), "sorted by %s",
			 rows_sort_name(w->sort));
		break;
	case ACT_NOISE: {
		int err = 0;

		w->noise_pane = !w->noise_pane && sel && !w->cpu_view;
		/* Indexed now: a live timeline shows what it held then. */
		noise_destroy(w->noise);
		w->noise = NULL;
		if (w->noise_pane)
			err = noise_create(&w->noise, w->tl);
		if (err) {
			w->noise_pane = false;
			snprintf(w->message, sizeof(w->message), "noise: %s",
				 monitor_strerror(err));
		}
		break;
	}
	case ACT_WAKER:
		waker_follow(w);
		break;
	case ACT_BACK:
		waker_back(w);
		break;
	case ACT_PATH:
		path_toggle(w);
		break;
	case ACT_EVENTS:
		w->events_pane = !w->events_pane && sel;
		w->events_cursor = UINT64_MAX; /* read them now */
		break;
	case ACT_COMPENSATED:
		if (w->toggle)
			w->toggle(w, w->toggle_arg);
		else
			snprintf(
				w->message, sizeof(w->message),
				"live: no compensated view (mkm replay the trace)");
		break;
	case ACT_FOLLOW:
		v->follow = true;
		view_set_range(v, v->begin, v->end);
		break;
	case ACT_CPUS:
		switch_view(w, sel);
		break;
	}
}

static void act(struct viewer *w, enum action a)
{
	struct view *v = &w->view;
	struct row *sel = rows_selected(w);
	int64_t pan = v->cols / 8 ? v->cols / 8 : 1;
	uint64_t t0 = v->t0, t1 = v->t1;

	act_on(w, a, v, sel, pan);
	sel = rows_selected(w);
	/* The events pane follows the cursor and the selection. */
	if (w->events_pane && sel) {
		struct tl_thread t = { 0 };
		int cpu = w->cpu_view ? (int)sel->id : -1;

		if (!w->cpu_view)
			tl_thread(w->tl, sel->id, &t);
		if (t.tid != w->events_tid || cpu != w->events_cpu ||
		    v->cursor != w->events_cursor)
			events_around(w, t.tid, cpu,
				      v->page > 2 ? v->page - 1 : 1);
	}
	/* Live: a look elsewhere stops following the newest time. */
	if (a != ACT_FOLLOW && (v->t0 != t0 || v->t1 != t1))
		v->follow = false;
}

/* Who took time from the selected thread (mon_analysis.h) in the metering
 * window, or in the window on screen when A and B are not both set: the
 * noise pane's figures, computed for each frame, which draw.c shows. */
static void noise_update(struct viewer *w)
{
	const struct row *sel = rows_selected(w);
	uint64_t a, b;

	noise_result_free(&w->noise_res);
	memset(&w->noise_res, 0, sizeof(w->noise_res));
	w->noise_metered = view_meter_window(&w->view, &a, &b);
	w->noise_ok = w->noise_pane && sel && w->noise &&
		      !noise_thread(w->noise, sel->id, a, b, &w->noise_res);
}

int viewer_run(struct viewer *w)
{
	const char *cs;

	cs = nl_langinfo(CODESET);
	w->utf8 = !w->ascii_only && cs && !strcmp(cs, "UTF-8");
	if (draw_init(w))
		return -1;
	if (w->tick)
		timeout(100);
	while (!w->quit) {
		int ch;

		if (w->tick)
			w->tick(w, w->tick_arg);
		noise_update(w);
		draw(w);
		ch = getch();
		if (ch == ERR && w->tick)
			continue; /* no key: the next tick */
		w->message[0] = 0;
		if (ch == ERR)
			break;
		if (w->help) {
			w->help = false;
			continue;
		}
		if (ch == KEY_RESIZE)
			continue;
		if (ch == KEY_MOUSE) {
			mouse(w);
			continue;
		}
		act(w, key_action(ch));
	}
	draw_end();
	return 0;
}
