// SPDX-License-Identifier: GPL-2.0
/* picture.c - the timeline as an SVG or PNG through cairo (see picture.h). */

#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "picture.h"

#define LABEL_PX 170
#define MARGIN 10
#define TITLE_H 20
#define AXIS_H 34 /* labels, ticks, then the marks' triangles */
#define ROW_H 16
#define LEGEND_LINE_H 18
#define FONT_SIZE 11.0

/* The legend's entries: one a colour, running states first. */
static unsigned int legend_states(unsigned int *out)
{
	unsigned int k, j, n = 0;

	for (k = 1; k <= TL_NR_STATES; k++) {
		unsigned int s = k % TL_NR_STATES;
		bool seen = false;

		for (j = 0; j < n; j++)
			seen |= tl_state_desc(out[j])->rgb ==
				tl_state_desc(s)->rgb;
		if (!seen)
			out[n++] = s;
	}
	return n;
}

/* Legend entries a line holds at this width (each 12 px + text). */
#define LEGEND_ENTRY_W 120

void picture_geom(const struct tl *tl, const struct picture_opts *o,
		  struct picture_geom *g)
{
	unsigned int states[TL_NR_STATES];
	unsigned int per_line, lines;

	g->width = o->width ? o->width : 1200;
	if (g->width < LABEL_PX + MARGIN + 100)
		g->width = LABEL_PX + MARGIN + 100;
	g->plot_x = LABEL_PX;
	g->plot_w = g->width - LABEL_PX - MARGIN;
	g->rows_y = MARGIN + (o->title ? TITLE_H : 0) + AXIS_H;
	g->row_h = ROW_H;
	per_line = (g->width - 2 * MARGIN) / LEGEND_ENTRY_W;
	lines = (legend_states(states) + per_line - 1) / per_line;
	/* Below the rows: the metering window's label, then the legend. */
	g->legend_y = g->rows_y + (unsigned int)tl_nr_threads(tl) * ROW_H +
		      MARGIN + (o->meter_a != o->meter_b ? LEGEND_LINE_H : 0);
	g->height = g->legend_y + lines * LEGEND_LINE_H + MARGIN;
}

static void set_rgb(cairo_t *cr, uint32_t rgb)
{
	cairo_set_source_rgb(cr, (rgb >> 16) / 255.0,
			     ((rgb >> 8) & 0xff) / 255.0, (rgb & 0xff) / 255.0);
}

static void text(cairo_t *cr, double x, double y, const char *s)
{
	cairo_move_to(cr, x, y);
	cairo_show_text(cr, s);
}

/* x of time t (may fall outside the plot). */
static double x_of(const struct picture_geom *g, const struct picture_opts *o,
		   uint64_t t)
{
	return g->plot_x + (double)((int64_t)(t - o->t0)) * g->plot_w /
				   (double)(o->t1 - o->t0);
}

uint64_t picture_tick_step(uint64_t span_ns, unsigned int plot_w)
{
	uint64_t want = plot_w ? (span_ns * TICK_PX + plot_w - 1) / plot_w :
				 span_ns;
	uint64_t step = 1;

	/* The first round step as wide as a label or wider: rounding
	 * down put "2000.0 us" labels 51 pixels apart, over each other. */
	while (step < want && step < UINT64_MAX / 10) {
		if (step * 2 >= want)
			return step * 2;
		if (step * 5 >= want)
			return step * 5;
		step *= 10;
	}
	return step;
}

/* A tick every picture_tick_step(), at round times from the origin,
 * labelled with them. */
static void axis(cairo_t *cr, const struct picture_geom *g,
		 const struct picture_opts *o)
{
	uint64_t step = picture_tick_step(o->t1 - o->t0, g->plot_w);
	double y = g->rows_y - 14;
	char buf[32];
	uint64_t t;
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 1);
	cairo_move_to(cr, g->plot_x, y + 0.5);
	cairo_line_to(cr, g->plot_x + g->plot_w, y + 0.5);
	cairo_stroke(cr);
	t = o->t0 > o->origin ? o->t0 - o->origin : 0;
	for (t = (t + step - 1) / step * step; o->origin + t <= o->t1;
	     t += step) {
		double x = x_of(g, o, o->origin + t);

		cairo_move_to(cr, (int)x + 0.5, y - 4);
		cairo_line_to(cr, (int)x + 0.5, y + 4);
		cairo_stroke(cr);
		if (x + 40 < g->plot_x + g->plot_w)
			text(cr, x + 2, y - 6, mon_fmt_ns(buf, sizeof(buf), t));
	}
}

/* Marks: a triangle on the axis and the mark's value. */
static void marks(cairo_t *cr, const struct tl *tl,
		  const struct picture_geom *g, const struct picture_opts *o)
{
	double y = g->rows_y - 8;
	size_t k;
	char buf[32];

	for (k = 0; k < tl_nr_marks(tl); k++) {
		struct tl_mark m;
		double x;

		if (tl_mark(tl, k, &m) || m.time_ns < o->t0 ||
		    m.time_ns >= o->t1)
			continue;
		x = x_of(g, o, m.time_ns);
		cairo_set_source_rgb(cr, 0.8, 0, 0);
		cairo_move_to(cr, x - 4, y - 4);
		cairo_line_to(cr, x + 4, y - 4);
		cairo_line_to(cr, x, y + 2);
		cairo_close_path(cr);
		cairo_fill(cr);
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)m.value);
		text(cr, x + 5, y + 2, buf);
	}
}

/* One thread's row: runs of cells of one state as one rectangle each. */
static int row(cairo_t *cr, const struct tl *tl, size_t th,
	       const struct picture_geom *g, const struct picture_opts *o,
	       struct layout_cell *cells, struct tl_interval **iv, size_t *cap)
{
	double y = g->rows_y + (double)th * g->row_h;
	struct tl_thread t;
	unsigned int c, start;
	char label[48];
	size_t n = 0;
	ssize_t got;

	tl_thread(tl, th, &t);
	if (t.nr_intervals > *cap) {
		struct tl_interval *p =
			realloc(*iv, t.nr_intervals * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*iv = p;
		*cap = t.nr_intervals;
	}
	while ((got = tl_intervals(tl, th, n, t.nr_intervals - n, *iv + n)) > 0)
		n += (size_t)got;
	layout_row(*iv, n, o->t0, o->t1, g->plot_w, cells);
	cairo_set_source_rgb(cr, 0, 0, 0);
	snprintf(label, sizeof(label), "%u %s", t.tid,
		 t.name[0] ? t.name : "?");
	cairo_save(cr);
	cairo_rectangle(cr, MARGIN, y, LABEL_PX - MARGIN - 4, g->row_h);
	cairo_clip(cr);
	text(cr, MARGIN, y + g->row_h - 4, label);
	cairo_restore(cr);
	for (c = 0; c < g->plot_w; c = start) {
		struct layout_cell cell = cells[c];

		for (start = c + 1;
		     start < g->plot_w && cells[start].state == cell.state &&
		     cells[start].mixed == cell.mixed;
		     start++)
			;
		if (cell.state == LAYOUT_NONE)
			continue;
		set_rgb(cr, tl_state_desc(cell.state)->rgb);
		cairo_rectangle(cr, g->plot_x + c, y + 2, start - c,
				g->row_h - 4);
		cairo_fill(cr);
		if (cell.mixed) {
			/* Too fine to show: a dark line through the run. */
			cairo_set_source_rgba(cr, 0, 0, 0, 0.6);
			cairo_rectangle(cr, g->plot_x + c, y + g->row_h / 2 - 1,
					start - c, 2);
			cairo_fill(cr);
		}
	}
	return 0;
}

static void meter(cairo_t *cr, const struct tl *tl,
		  const struct picture_geom *g, const struct picture_opts *o)
{
	uint64_t a = o->meter_a < o->meter_b ? o->meter_a : o->meter_b;
	uint64_t b = o->meter_a ^ o->meter_b ^ a;
	double xa = x_of(g, o, a), xb = x_of(g, o, b);
	double bottom = g->rows_y + (double)tl_nr_threads(tl) * g->row_h;
	char buf[48], d[32];

	cairo_set_source_rgba(cr, 0.2, 0.2, 0.2, 0.12);
	cairo_rectangle(cr, xa, g->rows_y, xb - xa, bottom - g->rows_y);
	cairo_fill(cr);
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 1);
	cairo_move_to(cr, (int)xa + 0.5, g->rows_y - 2);
	cairo_line_to(cr, (int)xa + 0.5, bottom);
	cairo_move_to(cr, (int)xb + 0.5, g->rows_y - 2);
	cairo_line_to(cr, (int)xb + 0.5, bottom);
	cairo_stroke(cr);
	snprintf(buf, sizeof(buf), "A .. B: %s",
		 mon_fmt_ns(d, sizeof(d), b - a));
	text(cr, xa + 3, bottom + FONT_SIZE + 2, buf);
}

static void legend(cairo_t *cr, const struct picture_geom *g, double y)
{
	unsigned int states[TL_NR_STATES], n = legend_states(states), k;
	unsigned int per_line = (g->width - 2 * MARGIN) / LEGEND_ENTRY_W;

	for (k = 0; k < n; k++) {
		double x = MARGIN + (k % per_line) * LEGEND_ENTRY_W;
		double ly = y + (k / per_line) * LEGEND_LINE_H;

		set_rgb(cr, tl_state_desc(states[k])->rgb);
		cairo_rectangle(cr, x, ly, 12, 12);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		text(cr, x + 16, ly + 10, tl_state_desc(states[k])->legend);
	}
}

int picture_write(const struct tl *tl, const struct picture_opts *o,
		  const char *path, bool svg)
{
	struct layout_cell *cells;
	struct tl_interval *iv = NULL;
	cairo_surface_t *s;
	struct picture_geom g;
	size_t th, cap = 0;
	cairo_t *cr;
	int err = 0;

	if (o->t1 <= o->t0)
		return -EINVAL;
	picture_geom(tl, o, &g);
	cells = calloc(g.plot_w, sizeof(*cells));
	if (!cells)
		return -ENOMEM;
	s = svg ? cairo_svg_surface_create(path, g.width, g.height) :
		  cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)g.width,
					     (int)g.height);
	cr = cairo_create(s);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, FONT_SIZE);
	if (o->title) {
		cairo_set_source_rgb(cr, 0, 0, 0);
		text(cr, MARGIN, MARGIN + FONT_SIZE + 2, o->title);
	}
	axis(cr, &g, o);
	for (th = 0; th < tl_nr_threads(tl) && !err; th++)
		err = row(cr, tl, th, &g, o, cells, &iv, &cap);
	marks(cr, tl, &g, o);
	if (o->meter_a != o->meter_b)
		meter(cr, tl, &g, o);
	legend(cr, &g, g.legend_y);
	cairo_destroy(cr);
	if (!err && !svg &&
	    cairo_surface_write_to_png(s, path) != CAIRO_STATUS_SUCCESS)
		err = -EIO;
	cairo_surface_finish(s);
	if (!err && cairo_surface_status(s) != CAIRO_STATUS_SUCCESS)
		err = -EIO;
	cairo_surface_destroy(s);
	free(cells);
	free(iv);
	return err;
}
