/* SPDX-License-Identifier: GPL-2.0 */
/*
 * truth.h - the kernel's ground truth a workload thread records about
 * itself just before it ends: its /proc/thread-self/schedstat (time on CPU,
 * time waiting on a run queue, times run), and CLOCK_MONOTONIC. Nothing
 * here comes from mkm: these are what mkm's figures are compared to.
 *
 * The time on CPU is taken from CLOCK_THREAD_CPUTIME_ID, the same
 * sum_exec_runtime as schedstat's first field but brought up to date: the
 * file's figure stops at the last tick or switch, up to 4 ms (HZ=250) short.
 * The wait is exact in the file: it cannot grow while the thread runs.
 */
#ifndef MKM_BENCH_TRUTH_H
#define MKM_BENCH_TRUTH_H

#include <stdint.h>
#include <stdio.h>

struct truth {
	char name[16];
	int tid;
	uint64_t run_ns; /* CLOCK_THREAD_CPUTIME_ID */
	uint64_t stat_run_ns, wait_ns, slices; /* schedstat's three fields */
};

/* CLOCK_MONOTONIC in ns. */
uint64_t truth_now(void);
/*
 * Fills @t for the calling thread, named @name (also given to the thread
 * with pthread_setname_np, so that mkm records the same name). Reads the
 * schedstat last: call it as the thread's last act. Returns 0 or -errno.
 */
int truth_self(struct truth *t, const char *name);
/* Names the calling thread (prctl, as pthread_setname_np does). */
void truth_name(const char *name);
/* Writes "thread NAME TID RUN_NS WAIT_NS SLICES STAT_RUN_NS". */
void truth_print(FILE *f, const struct truth *t);

#endif /* MKM_BENCH_TRUTH_H */
