/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spin.h - a compute phase: spin for a time, on the CPU throughout
 * (examples/cluster_barrier, tests/slurm/cluster_job.c).
 */
#ifndef EXAMPLES_SPIN_H
#define EXAMPLES_SPIN_H

#include <time.h>

static volatile unsigned long spin_sink;

/* Computes for @ms milliseconds of the thread's own CPU time: a fixed
 * amount of work, which a preemption lengthens as it would a real job's
 * compute phase (wall-clock time would end it on time regardless). */
static inline void spin(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 10000; i++)
			spin_sink += (unsigned long)i * i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
			 (t.tv_nsec - t0.tv_nsec) / 1000000 <
		 ms);
}

#endif /* EXAMPLES_SPIN_H */
