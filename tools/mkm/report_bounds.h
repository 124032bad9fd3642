/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_bounds.h - mkm report: the bounds of the compensated figures
 * (struct trace_bounds, docs/compensation.md "Bounds"), from the
 * compensation stage (--compensated) or a replayed trace's BOUNDS chunk,
 * printed as each figure's low and high and given in --json.
 */
#ifndef MKM_REPORT_BOUNDS_H
#define MKM_REPORT_BOUNDS_H

#include <stddef.h>

#include "bounds.h" /* viewer/: the figures, their bounds in words */
#include "libmonitor.h"

/* mon_compensate_opts.bounds (mkm report --compensated, mkm view's K):
 * copies into @arg, a struct mon_bounds. */
void bounds_collect(void *arg, const struct trace_bounds *b, size_t n);

/*
 * The bounds table of the threads @rows[0 .. @n-1] of the compensated
 * timeline @tl (each figure, its low and high, the parts), then the
 * elapsed time's and what could not be computed, thread by thread.
 */
void bounds_print(const struct mon_bounds *bs, const struct tl *tl,
		  const size_t *rows, size_t n);

/* Thread @th's bounds as a JSON member: ,"bounds":{...} (nothing if it
 * has none). */
void bounds_json_thread(const struct mon_bounds *bs, const struct tl *tl,
			size_t th);

/* The elapsed time's bounds as a JSON member: ,"elapsed":{...}. */
void bounds_json_elapsed(const struct mon_bounds *bs, const struct tl *tl);

#endif /* MKM_REPORT_BOUNDS_H */
