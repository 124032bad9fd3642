/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.h - a trace file read through libmonitor's pipeline, as every
 * command that reads one opens, cuts, runs and loads it. Each dies with a
 * clear message (messages.h) where it fails.
 */
#ifndef MKM_TRACE_H
#define MKM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libmonitor.h"
#include "mon_pipeline.h"

/* Why a cut (add_order_and_cut()) that kept no record of a thread fails,
 * in the words of every command that cuts. */
#define EMPTY_CUT                                                      \
	"no record in the window or threads given (--from/--to count " \
	"from the recording's start, in every command)"

/* A pipeline reading the trace file @path. */
struct mon_pipeline *open_trace(const char *path);

/*
 * Adds to @p, reading @path, the order stage, then, when some threads
 * (@filter's tids) or a window ([@from, @to) ns from mon_time_origin(); -1:
 * open) are asked for, the filter stage.
 * Return: whether a cut was asked for.
 */
bool add_order_and_cut(struct mon_pipeline *p, const char *path,
		       struct mon_filter *filter, int64_t from, int64_t to);

/*
 * Runs @p to its end. A damaged or cut trace is not fatal: it warns,
 * naming the offset, and what came before it stays (the sinks were
 * finished); damage the reader skipped (it read on from the next good
 * chunk) is warned of the same way, saying what was skipped; any other
 * failure dies. With @damage, the warning goes there
 * (@len bytes, "" if the trace is whole) instead of to stderr.
 */
void run_trace(struct mon_pipeline *p, const char *path, char *damage,
	       size_t len);

/* Reads a whole trace into a new timeline (file source -> timeline sink);
 * @meta gets the trace's metadata; @damage as run_trace(). */
struct tl *load_trace(const char *path, struct mon_meta *meta, char *damage,
		      size_t len);

/* The same through the compensation stage, with @cal and @opts (NULL:
 * none; MON_COMPENSATE_FORCE to use a calibration that is not a cost). */
struct tl *load_trace_compensated(const char *path,
				  const struct mon_calibration *cal,
				  const struct mon_compensate_opts *opts,
				  struct mon_meta *meta, char *damage,
				  size_t len);

/* The same (@cal NULL: not compensated), with @extra fed the same stream
 * as the timeline (taken by the pipeline); a damaged trace is warned of. */
struct tl *load_trace_with(const char *path, const struct mon_calibration *cal,
			   const struct mon_compensate_opts *opts,
			   struct mon_sink *extra, struct mon_meta *meta);

#endif /* MKM_TRACE_H */
