/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * comp_bounds.h - the compensation stage's bounds, gathered as it places
 * each record (comp_bounds.c; what they cover: mon_pipeline.h, struct
 * trace_bounds in mon_trace.h, docs/compensation.md "Bounds").
 */
#ifndef MON_COMP_BOUNDS_H
#define MON_COMP_BOUNDS_H

#include "internal.h"
#include "mon_pipeline.h"

struct comp_bounds;

/* A new gatherer, or NULL (no memory). */
MON_HIDDEN struct comp_bounds *comp_bounds_new(void);
MON_HIDDEN void comp_bounds_free(struct comp_bounds *b);

/*
 * Record @e (input: raw time) came out at @t, and at @t_lo and @t_hi when
 * every cost is at the low and at the high end of its 99% interval;
 * @no_interval: the figure charged for it has no interval of its own.
 * Return: 0 or -ENOMEM.
 */
MON_HIDDEN int comp_bounds_note(struct comp_bounds *b,
				const struct mkm_event *e, uint64_t t,
				uint64_t t_lo, uint64_t t_hi, bool no_interval);

/*
 * A scheduling decision that was the monitor's with chance @p, @w ns at
 * stake in it for the figures @figs (1 << TRACE_BOUND_RUN, _RUNQ, _SLEEP)
 * of @tid; @global: it counts for the ends of every thread after it too
 * (one call per decision with it set).
 * Return: 0 or -ENOMEM.
 */
MON_HIDDEN int comp_bounds_stake(struct comp_bounds *b, uint32_t tid,
				 unsigned int figs, double p, double w,
				 bool global);

/* Flags (TRACE_BOUND_*) that hold for every thread. */
MON_HIDDEN void comp_bounds_flag_all(struct comp_bounds *b, uint32_t flags);

/*
 * Every thread's bounds, by tid (*@out: @*n entries, malloc()ed, NULL when
 * none).
 * Return: 0 or -ENOMEM.
 */
MON_HIDDEN int comp_bounds_result(struct comp_bounds *b,
				  struct trace_bounds **out, size_t *n);

#endif /* MON_COMP_BOUNDS_H */
