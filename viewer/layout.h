/* SPDX-License-Identifier: GPL-2.0 */
/*
 * layout.h - maps a thread's microstate intervals onto the columns of a
 * text timeline: pure functions, no terminal, unit-tested; the ncurses
 * viewer and `mkm timeline` only paint what they return.
 */
#ifndef MKM_LAYOUT_H
#define MKM_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libmonitor.h"

/* A column with no interval of the thread: before its birth, after its end. */
#define LAYOUT_NONE 0xff
/* The glyph of a column where no state holds most of the time. */
#define LAYOUT_MIXED '~'

struct layout_cell {
	uint8_t state; /* the state that holds most of the column, or NONE */
	uint8_t mixed; /* no state holds most of it: detail too fine to show */
};

/*
 * layout_lower_bound - the first index of [0, @n) at which @before(@ctx,
 * i, @x) is false, @before being true on a prefix (the entries of a table
 * in time order that come before @x): the viewer's one binary search
 * (CPU slices, peers, flutters). Return: that index, @n if none.
 */
size_t layout_lower_bound(size_t n,
			  bool (*before)(const void *ctx, size_t i, uint64_t x),
			  const void *ctx, uint64_t x);

/* The first instant of column @c of @width over [@t0, @t1). */
uint64_t layout_column_start(uint64_t t0, uint64_t t1, unsigned int width,
			     unsigned int c);

/*
 * The cell for a column in which the thread spent @time[s] in state s
 * (TL_NR_STATES entries): the state holding most of it, mixed when that
 * is under 60% of the covered time; LAYOUT_NONE if nothing is covered.
 */
struct layout_cell layout_cell_of(const uint64_t *time);

/*
 * layout_row - one thread's row
 * @iv: the thread's intervals, in time order, non-overlapping
 * @n: how many
 * @t0, @t1: the time range shown, t0 < t1; column c covers
 *           [t0 + c * (t1 - t0) / width, t0 + (c + 1) * (t1 - t0) / width)
 * @width: columns, at least 1
 * @cells: out: @width cells
 */
void layout_row(const struct tl_interval *iv, size_t n, uint64_t t0,
		uint64_t t1, unsigned int width, struct layout_cell *cells);

/*
 * layout_span - mark the columns that [@a, @b) overlaps, of @width over
 * [@t0, @t1) (as layout_row() cuts them): @on[c] set to true for those,
 * the others left as they are (the critical path's segments on a row)
 */
void layout_span(uint64_t t0, uint64_t t1, unsigned int width, uint64_t a,
		 uint64_t b, bool *on);

/* The character a cell is drawn with: its state's glyph, or LAYOUT_MIXED. */
char layout_glyph(struct layout_cell cell);

/* A one-line legend of the glyphs. */
const char *layout_legend(void);

#endif /* MKM_LAYOUT_H */
