/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common.h - what the examples share: a fixed amount of work to time (the
 * FTQ studies' quantum), a recording into a timeline, and a row of
 * figures with their spread.
 */
#ifndef MKM_EXAMPLES_COMMON_H
#define MKM_EXAMPLES_COMMON_H

#include <stddef.h>
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

/* The end of record_system()'s recording (or one like it): the monitor
 * suspended, what is left drained into the timeline (and the file), the
 * pipeline and the monitor closed. Return: 0 or the first error. */
int record_finish(struct monitor *mon, struct mon_source *src,
		  struct mon_pipeline *p);

/* A line of @n samples @x (times @scale, in @unit): name, mean, standard
 * deviation, and the mean with its 99% confidence interval. */
void stats_row(const char *name, const double *x, size_t n, double scale,
	       const char *unit);

/*
 * osnoise's table for thread @th of @nz (rtla osnoise top's columns, time
 * in us), beside an example's own figures (mkm noise prints it for any
 * thread; HW and NMI: no tracepoint shows them).
 */
void print_osnoise(struct noise *nz, size_t th);

#endif /* MKM_EXAMPLES_COMMON_H */
