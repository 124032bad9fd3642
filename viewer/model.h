/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model.h - what the viewer shows, without a terminal: the time window on
 * screen, the cursor, the metering lines, the rows and which is selected.
 * Pure functions of numbers, unit-tested; the input code changes the model,
 * the drawing code reads it.
 */
#ifndef MKM_MODEL_H
#define MKM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VIEW_UNSET UINT64_MAX
/* The narrowest window: one nanosecond a column is as deep as it goes. */
#define VIEW_MIN_SPAN_PER_COL 1

struct view {
	uint64_t begin, end; /* the trace's time range */
	uint64_t t0, t1; /* the window on screen, [t0, t1) */
	uint64_t cursor; /* always within [t0, t1) */
	uint64_t meter[2]; /* metering lines A and B, or VIEW_UNSET */
	unsigned int cols; /* columns of the time area */
	size_t nr_rows, sel, top; /* rows, the selected one, the first shown */
	unsigned int page; /* rows shown at once */
	bool follow; /* live: the window keeps the newest time in view */
};

/* A view of [begin, end) on @cols columns, fitted, cursor at the start. */
void view_init(struct view *v, uint64_t begin, uint64_t end, unsigned int cols);
/* The trace grew (live) or the screen changed size. */
void view_set_range(struct view *v, uint64_t begin, uint64_t end);
void view_set_size(struct view *v, unsigned int cols, unsigned int page);
void view_set_rows(struct view *v, size_t nr_rows);

/* The whole trace on screen. */
void view_fit(struct view *v);
/* Zoom by @num/@den around the cursor (2/1 zooms out, 1/2 in). */
void view_zoom(struct view *v, uint64_t num, uint64_t den);
/* Show [a, b) (the metering window), cursor at a. */
void view_zoom_to(struct view *v, uint64_t a, uint64_t b);
/* Pan by @cols columns (negative: earlier); the cursor moves along. */
void view_pan(struct view *v, int64_t cols);
/* Move the cursor to @t, panning if it leaves the screen. */
void view_set_cursor(struct view *v, uint64_t t);
/* Move the cursor by @cols columns. */
void view_move_cursor(struct view *v, int64_t cols);
/* Select row sel + @delta (clamped), scrolling it into view. */
void view_select(struct view *v, int64_t delta);

/* The first instant of column @c; the column of @t, or -1 off screen. */
uint64_t view_col_time(const struct view *v, unsigned int c);
int view_time_col(const struct view *v, uint64_t t);
/* Nanoseconds a column covers (at least 1). */
uint64_t view_col_span(const struct view *v);

/* What the metering panes cover, into [@a, @b): A..B in time order when
 * both lines are set (then true), else the window on screen (false). */
bool view_meter_window(const struct view *v, uint64_t *a, uint64_t *b);

#endif /* MKM_MODEL_H */
