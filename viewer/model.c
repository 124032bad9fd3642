// SPDX-License-Identifier: GPL-2.0
/* model.c - the viewer's window, cursor and rows (see model.h). */

#include "layout.h"
#include "model.h"

uint64_t view_col_span(const struct view *v)
{
	uint64_t s = (v->t1 - v->t0) / v->cols;

	return s ? s : 1;
}

bool view_meter_window(const struct view *v, uint64_t *a, uint64_t *b)
{
	if (v->meter[0] == VIEW_UNSET || v->meter[1] == VIEW_UNSET) {
		*a = v->t0;
		*b = v->t1;
		return false;
	}
	*a = v->meter[0] < v->meter[1] ? v->meter[0] : v->meter[1];
	*b = v->meter[0] < v->meter[1] ? v->meter[1] : v->meter[0];
	return true;
}

uint64_t view_col_time(const struct view *v, unsigned int c)
{
	return layout_column_start(v->t0, v->t1, v->cols, c);
}

int view_time_col(const struct view *v, uint64_t t)
{
	unsigned int c;

	if (t < v->t0 || t >= v->t1)
		return -1;
	c = (unsigned int)((unsigned __int128)(t - v->t0) * v->cols /
			   (v->t1 - v->t0));
	/* Rounding: the column whose range, as view_col_time() cuts them,
	 * holds t. */
	while (c + 1 < v->cols && view_col_time(v, c + 1) <= t)
		c++;
	while (c > 0 && view_col_time(v, c) > t)
		c--;
	return (int)c;
}

/* The widest window: the whole trace, and never under a ns a column. */
static uint64_t max_span(const struct view *v)
{
	uint64_t s = v->end - v->begin;

	return s > v->cols ? s : v->cols;
}

/* Put the window of @span at @t0, inside the trace where it fits. */
static void place(struct view *v, uint64_t t0, uint64_t span)
{
	uint64_t min = (uint64_t)v->cols * VIEW_MIN_SPAN_PER_COL;

	if (span < min)
		span = min;
	if (span > max_span(v))
		span = max_span(v);
	if (t0 < v->begin)
		t0 = v->begin;
	if (t0 + span > v->begin + max_span(v))
		t0 = v->begin + max_span(v) - span;
	v->t0 = t0;
	v->t1 = t0 + span;
	if (v->cursor < v->t0)
		v->cursor = v->t0;
	if (v->cursor >= v->t1)
		v->cursor = v->t1 - 1;
}

void view_init(struct view *v, uint64_t begin, uint64_t end, unsigned int cols)
{
	*v = (struct view){
		.begin = begin,
		.end = end > begin ? end : begin + 1,
		.cursor = begin,
		.meter = { VIEW_UNSET, VIEW_UNSET },
		.cols = cols ? cols : 1,
		.page = 1,
	};
	view_fit(v);
}

void view_set_range(struct view *v, uint64_t begin, uint64_t end)
{
	uint64_t span = v->t1 - v->t0;
	bool fitted = v->t0 == v->begin && span == max_span(v);

	v->begin = begin;
	v->end = end > begin ? end : begin + 1;
	/* Following: the whole trace while it is all shown, else the newest
	 * span's worth of it. */
	if (v->follow && fitted)
		view_fit(v);
	else if (v->follow)
		place(v, v->end > span ? v->end - span : 0, span);
	else
		place(v, v->t0, span);
}

void view_set_size(struct view *v, unsigned int cols, unsigned int page)
{
	v->cols = cols ? cols : 1;
	v->page = page ? page : 1;
	place(v, v->t0, v->t1 - v->t0);
	view_select(v, 0);
}

void view_set_rows(struct view *v, size_t nr_rows)
{
	v->nr_rows = nr_rows;
	view_select(v, 0);
}

void view_fit(struct view *v)
{
	place(v, v->begin, max_span(v));
}

void view_zoom(struct view *v, uint64_t num, uint64_t den)
{
	uint64_t span = v->t1 - v->t0, nspan, left;

	nspan = (uint64_t)((unsigned __int128)span * num / den);
	if (nspan == span && num != den)
		nspan = num > den ? span + 1 : span - 1;
	/* The cursor keeps its place on screen. */
	left = (uint64_t)((unsigned __int128)(v->cursor - v->t0) * nspan /
			  span);
	place(v, v->cursor > left ? v->cursor - left : 0, nspan);
}

void view_zoom_to(struct view *v, uint64_t a, uint64_t b)
{
	if (b < a) {
		uint64_t t = a;

		a = b;
		b = t;
	}
	v->cursor = a;
	place(v, a, b > a ? b - a : 1);
}

void view_pan(struct view *v, int64_t cols)
{
	uint64_t span = v->t1 - v->t0, d = view_col_span(v), t0 = v->t0;
	uint64_t shift = (uint64_t)(cols < 0 ? -cols : cols) * d;

	if (cols < 0) {
		t0 = t0 > v->begin + shift ? t0 - shift : v->begin;
		v->cursor = v->cursor > shift ? v->cursor - shift : 0;
	} else {
		t0 += shift;
		v->cursor += shift;
	}
	place(v, t0, span);
}

void view_set_cursor(struct view *v, uint64_t t)
{
	uint64_t span = v->t1 - v->t0;

	if (t < v->begin)
		t = v->begin;
	if (t >= v->begin + max_span(v))
		t = v->begin + max_span(v) - 1;
	v->cursor = t;
	if (t < v->t0)
		place(v, t, span);
	else if (t >= v->t1)
		place(v, t - span + view_col_span(v), span);
}

void view_move_cursor(struct view *v, int64_t cols)
{
	uint64_t d = (uint64_t)(cols < 0 ? -cols : cols) * view_col_span(v);

	if (cols < 0)
		view_set_cursor(v, v->cursor > d ? v->cursor - d : 0);
	else
		view_set_cursor(v, v->cursor + d);
}

void view_select(struct view *v, int64_t delta)
{
	int64_t s = (int64_t)v->sel + delta;

	if (s >= (int64_t)v->nr_rows)
		s = (int64_t)v->nr_rows - 1;
	if (s < 0)
		s = 0;
	v->sel = (size_t)s;
	if (v->sel < v->top)
		v->top = v->sel;
	if (v->sel >= v->top + v->page)
		v->top = v->sel - v->page + 1;
	if (v->top + v->page > v->nr_rows)
		v->top = v->nr_rows > v->page ? v->nr_rows - v->page : 0;
}
