/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_latency.h - mkm latency's table: each thread's waits on a run
 * queue, from runnable to running, with the longest and when it was (as
 * perf sched latency gives them); and why the longest wakeups were late.
 */
#ifndef MKM_REPORT_LATENCY_H
#define MKM_REPORT_LATENCY_H

#include <stdbool.h>
#include <stddef.h>

#include "libmonitor.h"
#include "mon_pipeline.h"

/* Prints the latency table (or JSON) of the threads @rows (@nr of them,
 * timeline indexes), the longest wait first, the first @top (0: all);
 * on a merged trace (@nodes' NODES) each row names its node.
 * Return: the exit status. */
int report_latency(struct tl *tl, const struct mon_meta *meta,
		   const struct mon_nodes *nodes, const char *path,
		   const size_t *rows, size_t nr, size_t top, bool json);

/* Prints (or JSON) the @top longest wakeups of threads @rows, each taken
 * apart (mon_late_wakeups(); @w the trace's WAKING records).
 * Return: the exit status. */
int report_latency_why(struct tl *tl, const struct mon_meta *meta,
		       const struct mon_nodes *nodes, const char *path,
		       const size_t *rows, size_t nr, struct mon_wakings *w,
		       size_t top, bool json);

#endif /* MKM_REPORT_LATENCY_H */
