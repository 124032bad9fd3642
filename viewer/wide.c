// SPDX-License-Identifier: GPL-2.0
/*
 * wide.c - where the compensated timeline's bounds are wide (K, or a
 * compensated trace with its BOUNDS chunk; docs/compensation.md
 * "Bounds"): each thread's mark for its row, and the selected thread's
 * figures with their bounds as the lines of the pane above the detail
 * lines. The figures, their width and what is not known come from
 * bounds.c, as mkm report --compensated prints them.
 *
 * A row is marked wide when the bound of its run, runq, sleep or life is
 * wider (high - low) than BOUNDS_WIDE_PERCENT of the figure (a zero
 * figure with a bound of any width included); else not known when
 * records were lost in its life (nothing bounds their cost). A part left
 * out otherwise (a switch's split not measurable, no interval, no WAKEUP
 * records) is said in the pane only: the bound is there, narrower than it
 * would be. A thread the stage gave no bounds (a CPU's idle task in a
 * system-wide trace) is not marked: there is nothing to judge, and the
 * pane says so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "bounds.h"
#include "viewer.h"

static enum wide_mark mark_of(const struct viewer_state *vs, size_t th)
{
	uint64_t fig[TRACE_BOUND_FIGURES];
	const struct trace_bounds *b;
	struct tl_thread t;

	tl_thread(vs->tl, th, &t);
	b = mon_bounds_find(vs->bounds, t.tid);
	if (!b)
		return WIDE_NONE;
	bounds_figures(vs->tl, th, fig);
	if (bounds_widest(b, fig) >= 0)
		return WIDE_WIDE;
	return b->flags & TRACE_BOUND_LOST ? WIDE_UNKNOWN : WIDE_NONE;
}

int wide_set(struct viewer_state *vs, const struct mon_bounds *bs)
{
	size_t th, n = tl_nr_threads(vs->tl);

	free(vs->wide);
	vs->wide = NULL;
	vs->nr_wide = 0;
	vs->bounds = bs;
	if (!bs)
		return 0;
	vs->wide = calloc(n + 1, 1);
	if (!vs->wide) {
		vs->bounds = NULL;
		return -ENOMEM;
	}
	for (th = 0; th < n; th++)
		vs->wide[th] = (unsigned char)mark_of(vs, th);
	vs->nr_wide = n;
	return 0;
}

enum wide_mark wide_mark(const struct viewer_state *vs, size_t th)
{
	return vs->bounds && th < vs->nr_wide ? (enum wide_mark)vs->wide[th] :
						WIDE_NONE;
}

/* The first line: whose, and the verdict the row's mark gives. */
static void title(char *line, const struct tl_thread *t,
		  const struct trace_bounds *b,
		  const uint64_t fig[TRACE_BOUND_FIGURES])
{
	int f = bounds_widest(b, fig);
	struct trace_bound tot;
	double pct;

	if (f >= 0) {
		mon_bound_total(b, (unsigned int)f, &tot);
		if (bounds_width(fig[f], &tot, &pct))
			snprintf(
				line, WIDE_LINE,
				"bounds of %u %s (99%%): wide: %s's %.2f%% of the figure, over %g%%",
				t->tid, t->name[0] ? t->name : "?",
				bounds_figure_name((unsigned int)f), pct,
				BOUNDS_WIDE_PERCENT);
		else
			snprintf(
				line, WIDE_LINE,
				"bounds of %u %s (99%%): wide: %s is 0, its bound is not",
				t->tid, t->name[0] ? t->name : "?",
				bounds_figure_name((unsigned int)f));
	} else if (b->flags & TRACE_BOUND_LOST) {
		snprintf(
			line, WIDE_LINE,
			"bounds of %u %s (99%%): not known: records were lost in its life",
			t->tid, t->name[0] ? t->name : "?");
	} else {
		snprintf(
			line, WIDE_LINE,
			"bounds of %u %s (99%%): narrow, each within %g%% of its figure",
			t->tid, t->name[0] ? t->name : "?",
			BOUNDS_WIDE_PERCENT);
	}
}

unsigned int wide_text(const struct viewer_state *vs, char (*text)[WIDE_LINE],
		       unsigned int max)
{
	uint64_t fig[TRACE_BOUND_FIGURES];
	const struct row *sel = rows_selected(vs);
	const struct trace_bounds *b;
	struct tl_thread t;
	unsigned int n = 0, k;
	char c[6][40];
	double pct;

	if (!vs->bounds || vs->cpu_view || !sel || !max)
		return 0;
	tl_thread(vs->tl, sel->id, &t);
	b = mon_bounds_find(vs->bounds, t.tid);
	if (!b) {
		snprintf(
			text[n++], WIDE_LINE,
			"bounds of %u %s: none, the compensation stage gave it none (as it does a CPU's idle task)",
			t.tid, t.name[0] ? t.name : "?");
		return n;
	}
	bounds_figures(vs->tl, sel->id, fig);
	title(text[n++], &t, b, fig);
	if (n < max)
		snprintf(text[n++], WIDE_LINE,
			 "  %-6s %10s %10s %10s %7s  %-18s %-18s %s", "FIGURE",
			 "comp", "low", "high", "width", "calibration",
			 "scheduling", "split");
	for (k = 0;
	     k < sizeof(bounds_shown) / sizeof(bounds_shown[0]) && n < max;
	     k++) {
		unsigned int f = bounds_shown[k];
		struct trace_bound tot;
		char w[16];

		mon_bound_total(b, f, &tot);
		if (bounds_width(fig[f], &tot, &pct))
			snprintf(w, sizeof(w), "%.2f%%", pct);
		else
			snprintf(w, sizeof(w), "-"); /* no share of nothing */
		snprintf(text[n++], WIDE_LINE,
			 "  %-6s %10s %10s %10s %7s  %-18s %-18s %s",
			 bounds_figure_name(f),
			 mon_fmt_ns(c[0], sizeof(c[0]), fig[f]),
			 mon_fmt_ns(c[1], sizeof(c[1]),
				    bounds_low(fig[f], tot.below_ns)),
			 mon_fmt_ns(c[2], sizeof(c[2]), fig[f] + tot.above_ns),
			 w,
			 bounds_part_str(c[3], sizeof(c[3]),
					 &b->part[TRACE_BOUND_CALIBRATION][f]),
			 bounds_part_str(c[4], sizeof(c[4]),
					 &b->part[TRACE_BOUND_SCHEDULING][f]),
			 bounds_part_str(c[5], sizeof(c[5]),
					 &b->part[TRACE_BOUND_SPLIT][f]));
	}
	if (b->flags && n < max)
		snprintf(text[n++], WIDE_LINE,
			 "  not in the bounds (not known, so not bounded):");
	for (k = 0; k < BOUNDS_NR_FLAGS && n < max; k++) {
		char why[160];

		if (bounds_unknown(why, sizeof(why), b, k)[0])
			snprintf(text[n++], WIDE_LINE, "    %s", why);
	}
	return n;
}
