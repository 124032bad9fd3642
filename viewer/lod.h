/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lod.h - the viewer's level-of-detail index: for each thread, the time it
 * spent in each state up to every LOD_BLOCK-th interval. The time a thread
 * spent in each state up to any instant is then one block's totals plus
 * at most LOD_BLOCK intervals, found in O(log n); a row of W columns costs
 * W + 1 such lookups whatever the number of intervals on screen, and gives
 * the same cells as layout_row() over every interval.
 *
 * The index grows with the timeline (lod_update), so a live view extends
 * it instead of rebuilding it. The same lookups give what a frame shows
 * besides the rows: a window's time per state group (the metering pane)
 * and the flutters on screen.
 */
#ifndef MKM_LOD_H
#define MKM_LOD_H

#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "libmonitor.h"

/* Intervals per block: the index costs 14 x 8 bytes per block (1.75 bytes
 * per 12-byte interval), a lookup reads at most this many intervals. */
#define LOD_BLOCK 64

struct lod;

/* A new index of @tl's threads (kept: @tl must outlive it). */
int lod_create(struct lod **lodp, const struct tl *tl);
void lod_destroy(struct lod *lod);

/* Index the threads and intervals added to the timeline since. */
int lod_update(struct lod *lod);

/* Bytes the index holds. */
size_t lod_bytes(const struct lod *lod);

/*
 * lod_time - thread @th's time in each state within [@a, @b): TL_NR_STATES
 * entries at @time. Return: 0, -ENOENT (no such thread) or -ENOMEM.
 */
int lod_time(const struct lod *lod, size_t th, uint64_t a, uint64_t b,
	     uint64_t *time);

/*
 * lod_group_time - the same summed by state group (tl_state_desc()'s
 * group): TL_NR_GROUPS entries at @time, as the metering pane shows them.
 * Return: 0 or -ENOENT.
 */
int lod_group_time(const struct lod *lod, size_t th, uint64_t a, uint64_t b,
		   uint64_t *time);

/* The index of the first flutter (tl_flutter()) at or after @t, or
 * tl_nr_flutters() if none: those on screen, and the next one. */
size_t lod_first_flutter(const struct lod *lod, uint64_t t);

/*
 * lod_row - the cells of thread @th for [@t0, @t1) over @width columns:
 * the same as layout_row() on all its intervals, in O(width log n).
 * Return: 0, -ENOENT or -ENOMEM.
 */
int lod_row(const struct lod *lod, size_t th, uint64_t t0, uint64_t t1,
	    unsigned int width, struct layout_cell *cells);

#endif /* MKM_LOD_H */
