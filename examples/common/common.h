/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common.h - what the examples share: a fixed amount of work to time (the
 * FTQ studies' quantum), and a system-wide recording into a timeline.
 */
#ifndef MKM_EXAMPLES_COMMON_H
#define MKM_EXAMPLES_COMMON_H

#include <stdint.h>

#include "libmonitor.h"

/* CLOCK_MONOTONIC in ns. */
uint64_t now_ns(void);
/* The same arithmetic, iterations times: nothing but the CPU's work. */
void fixed_work(unsigned long iterations);
/* Iterations of fixed_work() that take about target_ns, best of a few. */
unsigned long fixed_work_iterations(uint64_t target_ns);

/*
 * A system-wide monitor, resumed, whose live source is drained only when
 * mon_pipeline_run() is called at the end (no drain thread to add noise),
 * into the timeline *tl, and into the trace file out too unless it is NULL.
 * prog names the example in the message that says CAP_PERFMON is needed.
 */
int record_system(const char *prog, struct monitor **mon,
		  struct mon_source **src, struct mon_pipeline **p,
		  struct tl **tl, const char *out);

#endif /* MKM_EXAMPLES_COMMON_H */
