// SPDX-License-Identifier: GPL-2.0
/*
 * draw.c - paints the viewer's state (state.h) with ncurses; reads it
 * (const) and decides nothing: viewer.c sizes the window to draw_size()
 * before each frame.
 *
 *   header      file, duration, threads, CPUs, lost events, view
 *   axis        time ticks; below it the cursor (^), metering lines (A, B)
 *               and marks (v)
 *   rows        label, then one cell a column: the state holding most of
 *               it, a squiggle where none holds most (over the dominant
 *               one's colour)
 *   detail      the interval under the cursor in the selected row; the
 *               metering window and the selected thread's time in it
 *   footer      the time range on screen, the cursor's time, a message
 *   path        with P, the critical path under the rows (its segments
 *               underlined in them): one line a segment, the latest last
 *   wakeup      above the detail lines, while the cursor is on a wakeup's
 *               wait or its switch-in: why it waited (late_update()
 *               computed it), one line a thread or handler, the largest
 *               first
 *   bounds      with the compensated timeline's bounds, its rows marked
 *               at the label's end (± wide, ? not known) and above the
 *               detail lines the selected thread's figures with their
 *               bounds (wide_text())
 */
#define _XOPEN_SOURCE_EXTENDED
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "layout.h"
#include "viewer.h"

#define LABEL_W 22
#define PANE_LABEL_W 18 /* the metering table: 8 columns of 10 besides */
#define MIN_COLS 40
#define MIN_LINES 10
/* Header, axis and marks above the rows; detail (2) and footer below. */
#define TOP_LINES 3
#define BOTTOM_LINES 3

/* Colour pairs: state s is pair 1 + s; mixed over state s is PAIR_MIXED +
 * s; the CPUs view's threads cycle through PAIR_THREAD + k. */
#define PAIR_MIXED (1 + TL_NR_STATES)
#define PAIR_THREAD (PAIR_MIXED + TL_NR_STATES)
#define NR_THREAD_COLOURS 6
/* The critical path's segments in the rows. */
#define PATH_ATTR (A_UNDERLINE | A_BOLD)

static short colour_of(uint32_t rgb)
{
	static const uint32_t basic[8] = { 0x000000, 0xcd0000, 0x00cd00,
					   0xcdcd00, 0x0000ee, 0xcd00cd,
					   0x00cdcd, 0xe5e5e5 };
	int r = rgb >> 16, g = (rgb >> 8) & 0xff, b = rgb & 0xff;
	long best = -1;
	short k, pick = COLOR_WHITE;

	if (COLORS >= 256) /* xterm's 6x6x6 cube */
		return (short)(16 + 36 * ((r * 5 + 127) / 255) +
			       6 * ((g * 5 + 127) / 255) + (b * 5 + 127) / 255);
	for (k = 1; k < 8; k++) { /* the nearest of 7, black left out */
		int dr = r - (int)(basic[k] >> 16);
		int dg = g - (int)((basic[k] >> 8) & 0xff);
		int db = b - (int)(basic[k] & 0xff);
		long d = (long)dr * dr + (long)dg * dg + (long)db * db;

		if (best < 0 || d < best) {
			best = d;
			pick = k;
		}
	}
	return pick;
}

int draw_init(struct viewer *w)
{
	unsigned int s;

	if (!initscr())
		return -1;
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED |
			  BUTTON5_PRESSED,
		  NULL);
	w->colour = has_colors() && !getenv("NO_COLOR");
	if (w->colour) {
		start_color();
		use_default_colors();
		for (s = 0; s < TL_NR_STATES; s++) {
			short c = colour_of(tl_state_desc(s)->rgb);

			init_pair((short)(1 + s), c, -1);
			init_pair((short)(PAIR_MIXED + s), COLOR_BLACK, c);
		}
		for (s = 0; s < NR_THREAD_COLOURS; s++)
			init_pair((short)(PAIR_THREAD + s), (short)(1 + s), -1);
	}
	return 0;
}

void draw_end(void)
{
	endwin();
}

static const char *rel(const struct viewer_state *vs, char *buf, size_t len,
		       uint64_t t)
{
	return mon_fmt_time(buf, len, t, mon_time_origin(&vs->meta.info));
}

static void header(const struct viewer_state *vs)
{
	struct tl_stats st = { 0 };
	char dur[32];

	/* Lost as the records say (LOST, seq gaps) or as the kernel counted. */
	tl_stats(vs->tl, &st);
	mvprintw(0, 0,
		 "mkm view  %s%s  %s  %zu threads  %zu CPUs  %llu lost  [%s%s]",
		 vs->file,
		 vs->meta.info.trace_flags & TRACE_F_COMPENSATED ?
			 " (compensated)" :
			 "",
		 mon_fmt_ns(dur, sizeof(dur), vs->view.end - vs->view.begin),
		 vs->nr_threads, vs->nr_cpus,
		 (unsigned long long)(st.lost > vs->meta.lost_by_stats ?
					      st.lost :
					      vs->meta.lost_by_stats),
		 vs->cpu_view ? "CPUs" : "threads",
		 vs->cpu_view ? "" : (vs->sort ? ", sorted" : ""));
	clrtoeol();
}

/* Ticks every 16 columns or so, each with its offset from the start. */
static void axis(const struct viewer_state *vs)
{
	const struct view *v = &vs->view;
	unsigned int c;
	char buf[32];
	int x0 = LABEL_W + 1;
	size_t k;

	move(1, 0);
	clrtoeol();
	move(2, 0);
	clrtoeol();
	for (c = 0; c + 8 < v->cols; c += 16) {
		mvaddch(1, x0 + (int)c, '|');
		addstr(rel(vs, buf, sizeof(buf), view_col_time(v, c)));
	}
	mvprintw(2, 0, "%-*s", LABEL_W, "");
	for (k = 0; k < tl_nr_marks(vs->tl); k++) {
		struct tl_mark m;
		int col;

		if (tl_mark(vs->tl, k, &m))
			break;
		col = view_time_col(v, m.time_ns);
		if (col < 0)
			continue;
		/* The mark and its value, cut where the screen ends; a
		 * trigger as T and what fired it. */
		if (m.trigger && m.trigger != MKM_TRIGGER_MARK)
			snprintf(buf, sizeof(buf), "T%s %.2fms",
				 m.trigger == MKM_TRIGGER_RUNQ ? "runq" : "irq",
				 m.value / 1e6);
		else
			snprintf(buf, sizeof(buf), "%s%llu",
				 m.trigger ? "T" : "v",
				 (unsigned long long)m.value);
		mvaddnstr(2, x0 + col, buf, (int)v->cols - col);
	}
	for (k = 0; k < 2; k++) {
		int col = view_time_col(v, v->meter[k]);

		if (v->meter[k] != VIEW_UNSET && col >= 0)
			mvaddch(2, x0 + col, k ? 'B' : 'A');
	}
	if (view_time_col(v, v->cursor) >= 0)
		mvaddch(2, x0 + view_time_col(v, v->cursor), '^');
}

static void state_cell(const struct viewer *w, struct layout_cell cell)
{
	const struct tl_state_desc *d;

	if (cell.state == LAYOUT_NONE) {
		addch(' ');
		return;
	}
	d = tl_state_desc(cell.state);
	if (w->colour)
		attron(COLOR_PAIR(cell.mixed ? PAIR_MIXED + cell.state :
					       1 + cell.state));
	if (cell.mixed)
		addch(LAYOUT_MIXED);
	else if (w->utf8)
		addstr(d->glyph_utf8);
	else
		addch((chtype)(unsigned char)d->glyph);
	if (w->colour)
		attroff(COLOR_PAIR(cell.mixed ? PAIR_MIXED + cell.state :
						1 + cell.state));
}

/* A thread's letter in the CPUs view: its row's place, cycling a-z A-Z. */
static char thread_glyph(uint32_t th)
{
	static const char set[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

	return set[th % (sizeof(set) - 1)];
}

/* A thread's letter, in its colour; a squiggle where several ran. */
static void cpu_cell(const struct viewer *w, uint32_t who)
{
	uint32_t th = (who & ~CPU_CELL_MIXED) - 1;
	int pair = PAIR_THREAD + (int)(th % NR_THREAD_COLOURS);

	if (!who) {
		addch(' ');
		return;
	}
	if (w->colour)
		attron(COLOR_PAIR(pair));
	addch(who & CPU_CELL_MIXED ? LAYOUT_MIXED : (chtype)thread_glyph(th));
	if (w->colour)
		attroff(COLOR_PAIR(pair));
}

/*
 * Flutters on screen, a * in their thread's row: at most a screenful of
 * them (zoomed out on a long trace they would cover the rows anyway).
 */
static void flutter_ticks(const struct viewer_state *vs)
{
	const struct view *v = &vs->view;
	size_t i = lod_first_flutter(vs->lod, v->t0),
	       n = tl_nr_flutters(vs->tl);
	size_t budget = (size_t)v->cols * v->page, r;
	struct tl_flutter f;

	for (; i < n && budget--; i++) {
		int col;

		if (tl_flutter(vs->tl, i, &f) || f.time_ns >= v->t1)
			break;
		col = view_time_col(v, f.time_ns);
		for (r = 0; r < v->page && v->top + r < vs->nr_order; r++) {
			const struct row *row = rows_at(vs, v->top + r);

			if (!row || row->id != f.thread)
				continue;
			mvaddch(TOP_LINES + (int)r, LABEL_W + 1 + col, '*');
			break;
		}
	}
}

static void rows(const struct viewer *w)
{
	const struct viewer_state *vs = &w->vs;
	const struct view *v = &vs->view;
	struct layout_cell *cells = calloc(v->cols, sizeof(*cells));
	uint32_t *who = calloc(v->cols, sizeof(*who));
	bool *on_path = calloc(v->cols, sizeof(*on_path));
	int cur = view_time_col(v, v->cursor);
	unsigned int r, c;

	for (r = 0; r < v->page; r++) {
		size_t i = v->top + r;
		const struct row *row;
		int y = TOP_LINES + (int)r;

		move(y, 0);
		clrtoeol();
		if (i >= vs->nr_order || !cells || !who || !on_path)
			continue;
		row = rows_at(vs, i);
		if (i == v->sel)
			attron(A_REVERSE);
		if (!row) /* a node's header: its threads' rows follow */
			printw("%-*.*s", LABEL_W, LABEL_W,
			       vs->groups[rows_node_at(vs, i)].label);
		else if (vs->nodes.hdr.nr_nodes)
			printw("  %-*.*s", LABEL_W - 2, LABEL_W - 2,
			       row->label);
		else
			printw("%-*.*s", LABEL_W, LABEL_W, row->label);
		/* Its compensated figures' bounds: wide, or not known. */
		if (row && !vs->cpu_view && wide_mark(vs, row->id) != WIDE_NONE)
			mvaddstr(y, LABEL_W - 1,
				 wide_mark(vs, row->id) == WIDE_UNKNOWN ? "?" :
				 w->utf8				? "±" :
									  "+");
		if (i == v->sel)
			attroff(A_REVERSE);
		addch(' ');
		if (!row) {
			/* nothing drawn: its threads' rows show their time */
		} else if (vs->cpu_view) {
			rows_cpu_cells(vs, row->id, who);
			for (c = 0; c < v->cols; c++)
				cpu_cell(w, who[c]);
		} else {
			lod_row(vs->lod, row->id, v->t0, v->t1, v->cols, cells);
			path_row(vs, row->id, on_path);
			for (c = 0; c < v->cols; c++) {
				if (on_path[c])
					attron(PATH_ATTR);
				state_cell(w, cells[c]);
				if (on_path[c])
					attroff(PATH_ATTR);
			}
		}
		/* The cursor's column, in reverse on every row. */
		if (cur >= 0)
			mvchgat(y, LABEL_W + 1 + cur, 1, A_REVERSE, 0, NULL);
	}
	free(cells);
	free(who);
	free(on_path);
	if (!vs->cpu_view)
		flutter_ticks(vs);
}

/* A merged trace's node, its header row selected, as one line. */
static void detail_node(const struct viewer_state *vs, int g)
{
	const struct trace_node *n = &vs->nodes.node[g];

	printw("node %s (%u of job %u.%u): %zu threads (tid %u << %u | tid), "
	       "cpus %u-%u; Space %s",
	       n->name, n->node_id, vs->nodes.hdr.job_id, vs->nodes.hdr.step_id,
	       vs->groups[g].nr_threads, n->index, TRACE_NODE_TID_SHIFT,
	       n->cpu_base, n->cpu_base + (n->nr_cpus ? n->nr_cpus - 1 : 0),
	       vs->groups[g].folded ? "unfolds it" : "folds it");
}

/* The interval of thread th under the cursor, as one line. */
static void detail_thread(const struct viewer_state *vs, size_t th)
{
	struct tl_interval iv;
	struct tl_thread t;
	char a[32], d[32];
	int64_t i = tl_interval_at(vs->tl, th, vs->view.cursor);

	tl_thread(vs->tl, th, &t);
	if (i < 0 || tl_interval(vs->tl, th, (size_t)i, &iv) ||
	    vs->view.cursor >= iv.end_ns) {
		printw("%u %s: no interval here", t.tid, t.name);
		return;
	}
	printw("%u %s: %s from %s for %s on cpu %u (interval %lld of %zu%s)",
	       t.tid, t.name, tl_state_name(iv.state),
	       rel(vs, a, sizeof(a), iv.start_ns),
	       mon_fmt_ns(d, sizeof(d), iv.end_ns - iv.start_ns), iv.cpu,
	       (long long)i + 1, t.nr_intervals, iv.open ? ", open" : "");
	/* The thread's flutters over its whole life (* marks each). */
	if (t.flutters)
		printw("  %llu flutter%s", (unsigned long long)t.flutters,
		       t.flutters == 1 ? "" : "s");
}

static void detail_cpu(const struct viewer_state *vs, size_t cpu)
{
	int col = view_time_col(&vs->view, vs->view.cursor);
	const struct row *r = &vs->cpus[cpu];
	const struct cpu_peer *p;
	char a[32], name[sizeof(vs->nodes.node[0].name) + sizeof(r->label)];
	uint32_t who;

	if (col < 0)
		return;
	/* A merged trace's CPU: its node's name and its own number. */
	if (r->node >= 0)
		snprintf(name, sizeof(name), "%s %s",
			 vs->nodes.node[r->node].name, r->label);
	else
		snprintf(name, sizeof(name), "%s", r->label);
	who = rows_cpu_cell(vs, cpu, (unsigned int)col);
	p = rows_cpu_peer(vs, cpu, vs->view.cursor);
	if (who)
		printw("%s: %s ran here%s", name,
		       vs->threads[(who & ~CPU_CELL_MIXED) - 1].label,
		       who & CPU_CELL_MIXED ? ", among others" : "");
	else if (p && p->tid)
		printw("%s: no monitored thread; tid %u was switched in at %s",
		       name, p->tid, rel(vs, a, sizeof(a), p->time));
	else if (p)
		printw("%s: no monitored thread; idle (or unnamed) from %s",
		       name, rel(vs, a, sizeof(a), p->time));
	else
		printw("%s: no monitored thread ran here", name);
}

static void detail(const struct viewer_state *vs)
{
	const struct view *v = &vs->view;
	const struct row *sel = rows_selected(vs);
	int y = LINES - BOTTOM_LINES;
	char a[32], b[32], d[32];
	uint64_t lo, hi;

	move(y, 0);
	clrtoeol();
	if (sel && vs->cpu_view)
		detail_cpu(vs, sel->id);
	else if (sel)
		detail_thread(vs, sel->id);
	else if (rows_node_at(vs, v->sel) >= 0)
		detail_node(vs, rows_node_at(vs, v->sel));
	move(y + 1, 0);
	clrtoeol();
	if (!view_meter_window(v, &lo, &hi)) {
		printw("metering: %s%s%s (A and B set the lines)",
		       v->meter[0] == VIEW_UNSET ? "A unset" : "A ",
		       v->meter[0] == VIEW_UNSET ?
			       "" :
			       rel(vs, a, sizeof(a), v->meter[0]),
		       v->meter[1] == VIEW_UNSET ? ", B unset" : ", B set");
		return;
	}
	printw("A %s  B %s  B-A %s", rel(vs, a, sizeof(a), v->meter[0]),
	       rel(vs, b, sizeof(b), v->meter[1]),
	       mon_fmt_ns(d, sizeof(d), hi - lo));
	if (sel && !vs->cpu_view) {
		uint64_t g[TL_NR_GROUPS];
		unsigned int k;

		if (lod_group_time(vs->lod, sel->id, lo, hi, g))
			return;
		addstr("  |");
		for (k = 0; k < TL_NR_GROUPS; k++)
			if (g[k])
				printw(" %s %s", tl_group_name(k),
				       mon_fmt_ns(d, sizeof(d), g[k]));
	}
}

static void footer(const struct viewer_state *vs)
{
	const struct view *v = &vs->view;
	char a[32], b[32], c[32], s[32], line[160];
	bool fits;

	snprintf(line, sizeof(line), "[%s .. %s]  cursor %s  %s/col  ",
		 rel(vs, a, sizeof(a), v->t0), rel(vs, b, sizeof(b), v->t1),
		 rel(vs, c, sizeof(c), v->cursor),
		 mon_fmt_ns(s, sizeof(s), view_col_span(v)));
	fits = strlen(line) + strlen(vs->message) <= (size_t)COLS;
	move(LINES - 1, 0);
	clrtoeol();
	attron(A_REVERSE);
	printw("%s%s", line,
	       vs->message[0] && fits ? vs->message : "? help  q quit");
	attroff(A_REVERSE);
	if (vs->message[0] && !fits) {
		/* A long message takes the detail lines for one frame. */
		move(LINES - BOTTOM_LINES, 0);
		clrtoeol();
		move(LINES - BOTTOM_LINES + 1, 0);
		clrtoeol();
		mvaddnstr(LINES - BOTTOM_LINES, 0, vs->message, 2 * COLS);
	}
}

/* The report's table over the metering window, one line a shown row. */
static void meter_pane(const struct viewer_state *vs)
{
	const struct view *v = &vs->view;
	unsigned int r, k;
	uint64_t lo, hi;
	char d[32];

	view_meter_window(v, &lo, &hi);
	move(TOP_LINES, 0);
	clrtoeol();
	printw("%-*s", PANE_LABEL_W, "between A and B");
	for (k = 0; k < TL_NR_GROUPS; k++)
		printw(" %9s", tl_group_name(k));
	for (r = 1; r < v->page; r++) {
		size_t i = v->top + r - 1;
		uint64_t g[TL_NR_GROUPS];

		move(TOP_LINES + (int)r, 0);
		clrtoeol();
		if (i >= vs->nr_order)
			continue;
		if (!rows_at(vs, i)) { /* a node's header */
			printw("%-*.*s", PANE_LABEL_W, PANE_LABEL_W,
			       vs->groups[rows_node_at(vs, i)].label);
			continue;
		}
		if (lod_group_time(vs->lod, rows_at(vs, i)->id, lo, hi, g))
			memset(g, 0, sizeof(g));
		printw("%-*.*s", PANE_LABEL_W, PANE_LABEL_W,
		       rows_at(vs, i)->label);
		for (k = 0; k < TL_NR_GROUPS; k++)
			printw(" %9s",
			       g[k] ? mon_fmt_ns(d, sizeof(d), g[k]) : "-");
	}
}

/* The events pane: one line a record, > at the first at or after the
 * cursor. */
/* A thread's comm as the timeline knows it, to name the tids records
 * give (next=, by=, ...). */
static const char *timeline_comm(void *arg, uint32_t tid)
{
	static struct tl_thread t; /* the name is read before the next call */
	const struct viewer_state *vs = arg;
	int64_t th = tl_find(vs->tl, tid);

	return th >= 0 && !tl_thread(vs->tl, (size_t)th, &t) ? t.name : NULL;
}

static void events_pane(const struct viewer_state *vs)
{
	struct mon_event_fmt f = { .machine = vs->meta.info.machine,
				   .comm = timeline_comm,
				   .arg = (void *)vs };
	const struct view *v = &vs->view;
	unsigned int r;
	char args[128];

	move(TOP_LINES, 0);
	clrtoeol();
	if (vs->events_cpu >= 0)
		printw("events on cpu %d in the window on screen, around the "
		       "cursor (e closes)",
		       vs->events_cpu);
	else
		printw("events of tid %u in the window on screen, around the "
		       "cursor (e closes)",
		       vs->events_tid);
	for (r = 1; r < v->page; r++) {
		const struct mkm_event *e, *prev;
		char half[9] = "";

		move(TOP_LINES + (int)r, 0);
		clrtoeol();
		if (r - 1 >= vs->nr_events) {
			if (r == 1)
				addstr("  (none)");
			continue;
		}
		e = &vs->events[r - 1];
		/* A comm's second record, after its first: the whole comm. */
		prev = r > 1 ? &vs->events[r - 2] : NULL;
		f.first_half = NULL;
		if (e->type == MKM_EV_NAME && e->flags && prev &&
		    prev->type == MKM_EV_NAME && !prev->flags &&
		    prev->tid == e->tid) {
			memcpy(half, &prev->arg0, 4);
			memcpy(half + 4, &prev->arg1, 4);
			f.first_half = half;
		}
		printw("%c %14.6f ms  cpu%-2u %7u %-13s %s",
		       r - 1 == vs->events_before ? '>' : ' ',
		       ((double)e->time_ns -
			(double)mon_time_origin(&vs->meta.info)) /
			       1e6,
		       e->cpu, e->tid, mon_event_name(e->type),
		       mon_fmt_event_args(args, sizeof(args), e, &f));
	}
}

/* The noise pane: who took time from the selected thread (as
 * state_noise_update() computed it for this frame). */
static void noise_pane(const struct viewer_state *vs)
{
	const struct view *v = &vs->view;
	const struct noise_result r = vs->noise_res;
	struct tl_thread t = { 0 }, u;
	char x[32], y[32], z[32], name[48];
	unsigned int row;

	move(TOP_LINES, 0);
	clrtoeol();
	if (!vs->noise_ok || tl_thread(vs->tl, r.thread, &t)) {
		addstr("noise: no thread selected (i closes)");
		return;
	}
	printw("taken from %s (%u), %s: ran %s, taken %s, not recorded %s (i closes)",
	       t.name[0] ? t.name : "?", t.tid,
	       vs->noise_metered ? "A..B" : "on screen",
	       mon_fmt_ns(x, sizeof(x), r.run_ns),
	       mon_fmt_ns(y, sizeof(y), r.taken_ns),
	       mon_fmt_ns(z, sizeof(z), r.unknown_ns));
	move(TOP_LINES + 1, 0);
	clrtoeol();
	printw("  %-24s %-7s %7s %10s %10s %10s", "SOURCE", "KIND", "COUNT",
	       "TAKEN", "MAX", "PERIOD");
	for (row = 2; row < v->page; row++) {
		const struct noise_source *s;

		move(TOP_LINES + (int)row, 0);
		clrtoeol();
		if (row - 2 >= r.nr_sources) {
			if (row == 2)
				addstr("  (none)");
			continue;
		}
		s = &r.sources[row - 2];
		/* Threads by tid too: forty "hackbench" rows say nothing. */
		if (s->kind == NOISE_THREAD &&
		    !tl_thread(vs->tl, (size_t)s->thread, &u))
			snprintf(name, sizeof(name), "%u %s", u.tid,
				 u.name[0] ? u.name : "?");
		else
			snprintf(name, sizeof(name), "%s", s->name);
		printw("  %-24.24s %-7s %7llu %10s %10s %10s%s", name,
		       noise_kind_name(s->kind), (unsigned long long)s->count,
		       mon_fmt_ns(x, sizeof(x), s->taken_ns),
		       mon_fmt_ns(y, sizeof(y), s->max_ns),
		       s->period.period_ns ?
			       mon_fmt_ns(z, sizeof(z), s->period.period_ns) :
			       "-",
		       s->period.period_ns &&
				       s->period.regular >= NOISE_PERIODIC ?
			       " periodic" :
			       "");
	}
}

/* Lines the critical path's pane takes below the rows: its segments and
 * two lines of titles, in at most half of the rows' place. */
static unsigned int path_lines(const struct viewer_state *vs, unsigned int area)
{
	size_t want = vs->path.nr + 2 > 3 ? vs->path.nr + 2 : 3;

	if (!vs->path_pane || vs->cpu_view)
		return 0;
	return want < area / 2 ? (unsigned int)want : area / 2;
}

/* The critical path, one line a segment, the latest (the cursor's) last:
 * who, in what state, from when to when, for how long. */
static void path_pane(const struct viewer_state *vs, int y, unsigned int lines)
{
	size_t i, shown = lines - 2 < vs->path.nr ? lines - 2 : vs->path.nr;
	double origin = (double)mon_time_origin(&vs->meta.info);
	struct tl_thread t = { 0 };
	char a[32], d[32];
	unsigned int r;

	tl_thread(vs->tl, vs->path_th, &t);
	move(y, 0);
	clrtoeol();
	printw("critical path of %u %s up to %s: %zu segment%s", t.tid, t.name,
	       rel(vs, a, sizeof(a), vs->path_at), vs->path.nr,
	       vs->path.nr == 1 ? "" : "s");
	if (shown < vs->path.nr)
		printw(", the last %zu shown", shown);
	addstr(" (P closes)");
	move(y + 1, 0);
	clrtoeol();
	printw("  %-22s %-12s %17s %17s %12s", "THREAD", "STATE", "FROM (ms)",
	       "TO (ms)", "DURATION");
	for (r = 2; r < lines; r++) {
		move(y + (int)r, 0);
		clrtoeol();
	}
	if (!vs->path.nr)
		mvaddstr(y + 2, 0, "  (none)");
	for (r = 2, i = vs->path.nr - shown; i < vs->path.nr; i++, r++) {
		const struct mon_path_seg *s = &vs->path.seg[i];
		char who[48];

		if (tl_thread(vs->tl, s->thread, &t))
			continue;
		snprintf(who, sizeof(who), "%u %s", t.tid,
			 t.name[0] ? t.name : "?");
		/* In ms to the ns, as the events pane: a chain's steps are
		 * microseconds apart in a run of seconds. */
		mvprintw(y + (int)r, 0, "  %-22.22s %-12s %17.6f %17.6f %12s",
			 who, tl_state_name(s->state),
			 ((double)s->start_ns - origin) / 1e6,
			 ((double)s->end_ns - origin) / 1e6,
			 mon_fmt_ns(d, sizeof(d), s->end_ns - s->start_ns));
	}
}

/* Lines the wakeup pane takes: three of summary, titles and a line a
 * part, in at most half of @area; none if not even the summary fits. */
static unsigned int late_lines(const struct viewer_state *vs, unsigned int area)
{
	size_t want = 4 + (vs->late.nr_parts ? vs->late.nr_parts : 1);

	if (!vs->late_ok || vs->cpu_view || area / 2 < 3)
		return 0;
	return want < area / 2 ? (unsigned int)want : area / 2;
}

/* A thread of the timeline as "tid name", or by the tid the records gave
 * when the trace does not follow it. */
static void late_who(const struct viewer_state *vs, int64_t th, uint32_t tid,
		     char *buf, size_t len)
{
	struct tl_thread t;

	if (th >= 0 && !tl_thread(vs->tl, (size_t)th, &t))
		snprintf(buf, len, "%u %s", t.tid, t.name[0] ? t.name : "?");
	else if (tid)
		snprintf(buf, len, "tid %u", tid);
	else
		snprintf(buf, len, "an interrupt");
}

/* A part's time, "-" for none: the summary's zeros say nothing. */
static const char *late_ns(char *buf, size_t len, uint64_t ns)
{
	return ns ? mon_fmt_ns(buf, len, ns) : "-";
}

/* Why the wakeup under the cursor waited: who woke it, where it was
 * queued and when it ran, the wait's parts by kind, then each thread and
 * handler, the largest first. */
static void late_pane(const struct viewer_state *vs, int y, unsigned int lines)
{
	const struct mon_late *l = &vs->late;
	char a[32], b[32], c[32], d[32], e[32], who[64];
	size_t k, shown = lines > 4 ? lines - 4 : 0;
	struct tl_thread t = { 0 };
	unsigned int r;

	for (r = 0; r < lines; r++) {
		move(y + (int)r, 0);
		clrtoeol();
	}
	tl_thread(vs->tl, l->thread, &t);
	late_who(vs, l->waker, l->waker_tid, who, sizeof(who));
	mvprintw(y, 0, "wakeup of %u %s: %s from %s, %s by %s", t.tid,
		 t.name[0] ? t.name : "?",
		 mon_fmt_ns(a, sizeof(a), l->latency_ns),
		 rel(vs, b, sizeof(b),
		     l->waking_ns ? l->waking_ns : l->wakeup_ns),
		 l->type == MKM_EV_WAKEUP_NEW ? "created" : "woken", who);
	if (l->waker_cpu >= 0)
		printw(" on cpu %d", l->waker_cpu);
	mvprintw(y + 1, 0, "  queued on cpu %u at %s", l->cpu,
		 rel(vs, a, sizeof(a), l->wakeup_ns));
	if (l->waking_ns)
		printw(" (%s after the call)",
		       mon_fmt_ns(b, sizeof(b), l->wakeup_ns - l->waking_ns));
	printw(", in at %s on cpu %u", rel(vs, c, sizeof(c), l->switch_in_ns),
	       l->run_cpu);
	if (l->migrations)
		printw(", moved %u time%s", l->migrations,
		       l->migrations == 1 ? "" : "s");
	/* Handlers with how many began in the wait (one running at the
	 * enqueue has time and no count). */
	mvprintw(y + 2, 0, "  threads %s  irq %s",
		 late_ns(a, sizeof(a), l->thread_ns),
		 late_ns(b, sizeof(b), l->irq_ns));
	if (l->irqs)
		printw(" (%llu begun)", (unsigned long long)l->irqs);
	printw("  softirq %s", late_ns(c, sizeof(c), l->softirq_ns));
	if (l->softirqs)
		printw(" (%llu begun)", (unsigned long long)l->softirqs);
	printw("  idle %s  not recorded %s", late_ns(d, sizeof(d), l->idle_ns),
	       late_ns(e, sizeof(e), l->unknown_ns));
	if (lines < 4)
		return;
	mvprintw(y + 3, 0, "  %10s %6s  %-24s %s", "TIME", "COUNT", "WHAT",
		 "HOW IT HELD THE CPU, HOW IT LET GO");
	if (!l->nr_parts && shown)
		mvaddstr(
			y + 4, 0,
			"  (no recorded thread or handler ran on its CPU meanwhile)");
	/* The last line says how many more when they do not all fit. */
	if (l->nr_parts > shown && shown)
		shown--;
	for (k = 0; k < l->nr_parts && k < shown; k++) {
		const struct mon_late_part *p = &l->parts[k];
		char how[96] = "";

		if (p->kind == NOISE_THREAD && p->thread >= 0)
			late_who(vs, p->thread, 0, who, sizeof(who));
		else if (p->kind == NOISE_THREAD)
			snprintf(who, sizeof(who), "%s", p->name);
		else
			snprintf(who, sizeof(who), "%s (%s)", p->name,
				 noise_kind_name(p->kind));
		if (p->kind == NOISE_THREAD && p->idle)
			snprintf(how, sizeof(how), "idle: the CPU waking up");
		else if (p->kind == NOISE_THREAD)
			snprintf(how, sizeof(how), "%s; %s",
				 mon_late_came_name(p->came),
				 mon_late_left_name(p->left));
		mvprintw(y + 4 + (int)k, 0, "  %10s %6llu  %-24.24s %s",
			 mon_fmt_ns(a, sizeof(a), p->ns),
			 (unsigned long long)p->count, who, how);
	}
	if (k < l->nr_parts)
		mvprintw(y + 4 + (int)k, 0, "  ... %zu more", l->nr_parts - k);
}

/* Lines the bounds pane takes: wide_text()'s, in at most half of @area
 * (the first, its verdict, always). */
#define WIDE_MAX_LINES 16
static unsigned int wide_lines(const struct viewer_state *vs, unsigned int area)
{
	char lines[WIDE_MAX_LINES][WIDE_LINE];
	unsigned int want = wide_text(vs, lines, WIDE_MAX_LINES);

	if (!want || !area)
		return 0;
	return want < area / 2 ? want : (area / 2 ? area / 2 : 1);
}

/* The selected thread's compensated figures with their bounds; the last
 * line says how many more when they do not all fit. */
static void wide_pane(const struct viewer_state *vs, int y, unsigned int lines)
{
	char text[WIDE_MAX_LINES][WIDE_LINE];
	unsigned int r, n = wide_text(vs, text, WIDE_MAX_LINES);

	if (n > lines && lines > 1)
		snprintf(text[lines - 1], WIDE_LINE,
			 "  ... %u more lines (a taller terminal shows them)",
			 n - lines + 1);
	for (r = 0; r < lines; r++) {
		move(y + (int)r, 0);
		clrtoeol();
		if (r < n)
			mvaddnstr(y + (int)r, 0, text[r], COLS);
	}
}

static void help(void)
{
	int y = 0;
	size_t i;

	erase();
	mvaddstr(y++, 0, "mkm view: keys (any key closes this)");
	for (i = 0; i < nr_keys && y < LINES; i++) {
		size_t j;
		char names[48] = "";

		if (!keys[i].help)
			continue;
		/* The keys of one action, listed together. */
		for (j = i; j < nr_keys && (j == i || !keys[j].help); j++) {
			if (j > i)
				strncat(names, " ",
					sizeof(names) - strlen(names) - 1);
			strncat(names, keys[j].name,
				sizeof(names) - strlen(names) - 1);
		}
		mvprintw(y++, 2, "%-16s %s", names, keys[i].help);
	}
	if (y < LINES)
		mvaddstr(y, 2, "mouse: wheel zooms, a click sets the cursor");
}

static bool too_small(void)
{
	return COLS < MIN_COLS || LINES < MIN_LINES;
}

/* The lines between the top lines and the bottom ones: the rows', and the
 * critical path's pane under them. */
static unsigned int rows_area(void)
{
	return (unsigned int)(LINES - TOP_LINES - BOTTOM_LINES);
}

bool draw_size(const struct viewer_state *vs, unsigned int *cols,
	       unsigned int *page)
{
	if (too_small())
		return false;
	unsigned int area = rows_area(), path = path_lines(vs, area);
	unsigned int late = late_lines(vs, area - path);

	*cols = (unsigned int)(COLS - LABEL_W - 1);
	*page = area - path - late - wide_lines(vs, area - path - late);
	return true;
}

void draw(const struct viewer *w)
{
	const struct viewer_state *vs = &w->vs;
	unsigned int area = rows_area(), pane, late, wide;

	if (too_small()) {
		erase();
		/* Short lines: they must fit the screen they complain of. */
		mvprintw(0, 0, "too small: %dx%d", COLS, LINES);
		mvprintw(1, 0, "needs: %dx%d", MIN_COLS, MIN_LINES);
		refresh();
		return;
	}
	pane = path_lines(vs, area);
	late = late_lines(vs, area - pane);
	wide = wide_lines(vs, area - pane - late);
	if (w->help) {
		help();
		refresh();
		return;
	}
	header(vs);
	axis(vs);
	if (vs->noise_pane)
		noise_pane(vs);
	else if (vs->events_pane)
		events_pane(vs);
	else if (vs->meter_pane && !vs->cpu_view &&
		 vs->view.meter[0] != VIEW_UNSET &&
		 vs->view.meter[1] != VIEW_UNSET)
		meter_pane(vs);
	else
		rows(w);
	if (pane)
		path_pane(vs, TOP_LINES + (int)(area - wide - late - pane),
			  pane);
	if (late)
		late_pane(vs, TOP_LINES + (int)(area - wide - late), late);
	if (wide)
		wide_pane(vs, TOP_LINES + (int)(area - wide), wide);
	detail(vs);
	footer(vs);
	refresh();
}

void draw_locate(const struct viewer_state *vs, int y, int x, int *col,
		 int64_t *row)
{
	const struct view *v = &vs->view;

	*col = x > LABEL_W && x - LABEL_W - 1 < (int)v->cols ? x - LABEL_W - 1 :
							       -1;
	*row = y >= TOP_LINES && y - TOP_LINES < (int)v->page &&
			       v->top + (size_t)(y - TOP_LINES) < vs->nr_order ?
		       (int64_t)v->top + y - TOP_LINES :
		       -1;
}

bool draw_prompt(const char *prompt, char *buf, size_t len)
{
	int ok;

	move(LINES - 1, 0);
	clrtoeol();
	addstr(prompt);
	echo();
	curs_set(1);
	ok = getnstr(buf, (int)len - 1);
	noecho();
	curs_set(0);
	return ok != ERR && buf[0];
}
