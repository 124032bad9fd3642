/* SPDX-License-Identifier: GPL-2.0 */
/* calibration.h - a trace's calibration: its table as mkm calibrate and
 * mkm report print it, and the one a command compensates with. */
#ifndef MKM_CALIBRATION_H
#define MKM_CALIBRATION_H

#include <stdbool.h>
#include <stddef.h>

#include "libmonitor.h"

/* The names of the cost kinds in @mask (1u << enum mon_cost_kind), comma
 * separated, into @buf. */
const char *cost_kinds_str(unsigned int mask, char *buf, size_t size);

/* The calibration table, as mkm calibrate and mkm report print it; the
 * costs below the clock's step (mon_calibration_below_resolution()) say
 * so, in their row and after the table. */
void print_calibration(const struct mon_calibration *cal);

/*
 * The calibration to compensate trace @path with: the one in @cal_file
 * (NULL: the trace's own). Dies with a clear message when there is none,
 * when the trace is compensated already, or when a figure is not a cost
 * (mon_calibration_judge()) unless @force (then it warns); warns when it
 * was taken on another kernel release or CPU model than the trace.
 */
void calibration_for(const char *path, const char *cal_file, bool force,
		     struct mon_calibration *cal);

#endif /* MKM_CALIBRATION_H */
