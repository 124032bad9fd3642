/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bounds.h - a thread's compensated figures and their bounds (struct
 * trace_bounds, docs/compensation.md "Bounds") as mkm says them: mkm
 * view's K shows where they are wide (wide.c), mkm report --compensated
 * prints them (tools/mkm/report_bounds.c).
 */
#ifndef MKM_BOUNDS_H
#define MKM_BOUNDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libmonitor.h"

/*
 * Wide: a figure whose bound (high - low) is more than this percentage
 * of the figure, the width the bounds aim at where the monitor does not
 * change the scheduling (bench/compensation/compare.py's WIDTH_GOAL).
 */
#define BOUNDS_WIDE_PERCENT 1.0

/* The figures a thread's bounds are judged by, as the report prints them. */
extern const unsigned int bounds_shown[4]; /* run, runq, sleep, life */

/* "run", "runq", ... by enum trace_bound_figure. */
const char *bounds_figure_name(unsigned int figure);

/* "calibration", "scheduling", "split" by enum trace_bound_part. */
const char *bounds_part_name(unsigned int part);

/* Thread @th's compensated figures in @tl, by enum trace_bound_figure. */
void bounds_figures(const struct tl *tl, size_t th,
		    uint64_t fig[TRACE_BOUND_FIGURES]);

/* @v less @below, not below 0: a figure's low end. */
uint64_t bounds_low(uint64_t v, uint64_t below);

/* A part's distances as "-12.3 us +4.0 us" ("0", "+-x", "+x", "-x"). */
const char *bounds_part_str(char *buf, size_t len, const struct trace_bound *p);

/*
 * The width of @fig's bound @tot, (high - low) as a percentage of @fig;
 * false when @fig is 0 (no percentage: wide if the bound has any width).
 */
bool bounds_width(uint64_t fig, const struct trace_bound *tot, double *pct);

/*
 * Whether @b's bounds are wide: the figure of bounds_shown[] whose bound
 * is the widest against it, if that is wider than BOUNDS_WIDE_PERCENT (a
 * zero figure with a bound of any width counts as wide); -1 if none is.
 */
int bounds_widest(const struct trace_bounds *b,
		  const uint64_t fig[TRACE_BOUND_FIGURES]);

/* The TRACE_BOUND_* flags, lowest first, and their names in --json. */
#define BOUNDS_NR_FLAGS 4
const char *bounds_flag_name(unsigned int k);

/* What flag 1 << @k of @b leaves out of the bounds, in words ("" if @b
 * does not have it). */
const char *bounds_unknown(char *buf, size_t len, const struct trace_bounds *b,
			   unsigned int k);

/* All of them, joined by "; " ("" if nothing is left out). */
const char *bounds_unknown_str(char *buf, size_t len,
			       const struct trace_bounds *b);

#endif /* MKM_BOUNDS_H */
