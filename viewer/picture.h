/* SPDX-License-Identifier: GPL-2.0 */
/*
 * picture.h - the timeline as a picture (SVG or PNG, through cairo), for
 * reports and papers: the viewer's layout (layout.c, one cell a pixel
 * column) with threads on rows, a time axis with units, the legend, the
 * marks, and the metering window if one is given.
 */
#ifndef MKM_PICTURE_H
#define MKM_PICTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "libmonitor.h"

struct picture_opts {
	unsigned int width; /* pixels, all of it (0: 1200) */
	uint64_t t0, t1; /* the time shown, [t0, t1) */
	uint64_t origin; /* the axis counts from it (mon_time_origin()) */
	uint64_t meter_a, meter_b; /* the metering window; equal: none */
	const char *title; /* over the axis, or NULL */
};

/* Where things are, for whoever checks the picture. */
struct picture_geom {
	unsigned int width, height;
	unsigned int plot_x, plot_w; /* the cells: pixel column c covers
					 column c of layout_row() */
	unsigned int rows_y,
		row_h; /* row r spans [rows_y + r * row_h, +row_h) */
	unsigned int legend_y;
};

/* Pixels between two ticks of the time axis, at the least: room for a
 * label ("2000.0 us") and some space. */
#define TICK_PX 100

/* The axis's step for @span_ns over @plot_w pixels: the smallest 1, 2 or
 * 5 x 10^k ns that puts ticks TICK_PX pixels apart or more. */
uint64_t picture_tick_step(uint64_t span_ns, unsigned int plot_w);

/* The geometry of the picture of @tl's threads with @o. */
void picture_geom(const struct tl *tl, const struct picture_opts *o,
		  struct picture_geom *g);

/*
 * picture_write - draw @tl's threads into @path: SVG if @svg, else PNG
 * Return: 0, -EINVAL (an empty time range), -ENOMEM, or -EIO (cairo could
 * not write the file; errno is not set by cairo, so no more detail).
 */
int picture_write(const struct tl *tl, const struct picture_opts *o,
		  const char *path, bool svg);

#endif /* MKM_PICTURE_H */
