// SPDX-License-Identifier: GPL-2.0
/* layout.c - intervals to timeline columns (see layout.h). */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"

size_t layout_lower_bound(size_t n,
			  bool (*before)(const void *ctx, size_t i, uint64_t x),
			  const void *ctx, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (before(ctx, mid, x))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t layout_column_start(uint64_t t0, uint64_t t1, unsigned int width,
			     unsigned int c)
{
	/* t0 + c * (t1 - t0) / width, without overflow. */
	return t0 + (uint64_t)((unsigned __int128)(t1 - t0) * c / width);
}

void layout_span(uint64_t t0, uint64_t t1, unsigned int width, uint64_t a,
		 uint64_t b, bool *on)
{
	unsigned int c = 0;

	if (a >= b || b <= t0 || a >= t1 || t0 >= t1 || !width)
		return;
	if (a > t0) { /* the column holding a, rounded as the columns are cut */
		c = (unsigned int)((unsigned __int128)(a - t0) * width /
				   (t1 - t0));
		if (c >= width)
			c = width - 1;
		while (c + 1 < width &&
		       layout_column_start(t0, t1, width, c + 1) <= a)
			c++;
		while (c > 0 && layout_column_start(t0, t1, width, c) > a)
			c--;
	}
	for (; c < width && layout_column_start(t0, t1, width, c) < b; c++)
		on[c] = true;
}

struct layout_cell layout_cell_of(const uint64_t *time)
{
	struct layout_cell cell = { .state = LAYOUT_NONE };
	uint64_t covered = 0, best = 0;
	unsigned int s;

	for (s = 0; s < TL_NR_STATES; s++) {
		covered += time[s];
		if (time[s] > best) {
			best = time[s];
			cell.state = (uint8_t)s;
		}
	}
	cell.mixed = covered && best * 5 < covered * 3;
	return cell;
}

void layout_row(const struct tl_interval *iv, size_t n, uint64_t t0,
		uint64_t t1, unsigned int width, struct layout_cell *cells)
{
	uint64_t time[TL_NR_STATES];
	unsigned int c;
	size_t i = 0;

	for (c = 0; c < width; c++) {
		uint64_t lo = layout_column_start(t0, t1, width, c);
		uint64_t hi = layout_column_start(t0, t1, width, c + 1);
		size_t j;

		memset(time, 0, sizeof(time));
		/* Intervals ending before this column never matter again. */
		while (i < n && iv[i].end_ns <= lo)
			i++;
		for (j = i; j < n && iv[j].start_ns < hi; j++) {
			uint64_t a = iv[j].start_ns > lo ? iv[j].start_ns : lo;
			uint64_t b = iv[j].end_ns < hi ? iv[j].end_ns : hi;

			if (b > a && iv[j].state < TL_NR_STATES)
				time[iv[j].state] += b - a;
		}
		cells[c] = layout_cell_of(time);
	}
}

char layout_glyph(struct layout_cell cell)
{
	if (cell.state >= TL_NR_STATES)
		return ' ';
	return cell.mixed ? LAYOUT_MIXED : tl_state_desc(cell.state)->glyph;
}

const char *layout_legend(void)
{
	static char legend[512];
	size_t len = 0;
	unsigned int s, k;

	if (legend[0])
		return legend;
	/* Running states first, UNKNOWN last; one entry per glyph. */
	for (k = 1; k <= TL_NR_STATES; k++) {
		const struct tl_state_desc *d = tl_state_desc(k % TL_NR_STATES);
		bool seen = false;

		for (s = 1; s < k; s++)
			seen |= tl_state_desc(s % TL_NR_STATES)->glyph ==
				d->glyph;
		if (!seen)
			len += (size_t)snprintf(legend + len,
						sizeof(legend) - len, "%c %s  ",
						d->glyph, d->legend);
	}
	snprintf(legend + len, sizeof(legend) - len, "%c too fine to show",
		 LAYOUT_MIXED);
	return legend;
}
