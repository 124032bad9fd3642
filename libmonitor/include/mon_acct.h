/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mon_acct.h - accounting over a timeline (acct_): msa() totals, burst
 * statistics, the CPU x thread matrix, per-CPU summaries (included by
 * libmonitor.h).
 */
/* First, outside the guard, so that any of the library's headers may be
 * included first (libmonitor.h includes them all). */
#include "libmonitor.h"

#ifndef MON_ACCT_H
#define MON_ACCT_H

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Accounting (acct_)
 * ======================================================================
 *
 * Computed from a timeline's intervals at the time of the call. Totals
 * count every interval, the open ones up to the time processed so far;
 * burst statistics count closed intervals only (an open one is not a whole
 * burst).
 */

/* Whose time: as the which argument of msa() in Linux MSA. */
enum acct_scope {
	ACCT_THREAD = 0, /* thread th alone */
	ACCT_ALL, /* every thread of the timeline (th ignored) */
	ACCT_CHILDREN, /* th's descendants by FORK events, not th itself */
};

/*
 * acct_msa - nanoseconds per microstate (msa() of Linux MSA)
 * @tl: the timeline
 * @scope: enum acct_scope
 * @th: the thread (ignored for ACCT_ALL)
 * @ntimers: entries at @timers; the first min(@ntimers, TL_NR_STATES)
 *           are filled, indexed by enum tl_state
 * @timers: out
 *
 * Return: 0, or -EINVAL (bad scope, NULL), -ENOENT (@th out of range).
 */
MON_API int acct_msa(const struct tl *tl, enum acct_scope scope, size_t th,
		     unsigned int ntimers, uint64_t *timers);

struct acct_burst {
	uint64_t count; /* closed intervals in the state */
	uint64_t total_ns;
	uint64_t min_ns; /* 0 when count is 0 */
	uint64_t max_ns;
	double mean_ns;
	double stddev_ns; /* population standard deviation */
};

/*
 * acct_bursts - burst statistics per microstate
 * @tl, @scope, @th: as acct_msa()
 * @out: TL_NR_STATES entries, indexed by enum tl_state
 *
 * Return: 0, or -EINVAL, -ENOENT.
 */
MON_API int acct_bursts(const struct tl *tl, enum acct_scope scope, size_t th,
			struct acct_burst *out);

struct acct_cell {
	uint64_t run_ns; /* RUN, RUN_USER, RUN_SYS and TRAP time on the CPU */
	uint64_t dispatches; /* times put on the CPU (a stretch on the CPU
				interrupted by IRQs counts once) */
};

/*
 * acct_matrix - the CPU x thread matrix
 * @tl: the timeline
 * @cells: out: @nr_cpus * @nr_threads cells, cell (cpu, th) at
 *         cells[cpu * nr_threads + th]; zeroed first
 * @nr_cpus: rows (tl_nr_cpus() covers all); higher CPUs are left out
 * @nr_threads: columns (tl_nr_threads() covers all)
 *
 * Return: 0, or -EINVAL (NULL @cells with a non-empty matrix), -EOVERFLOW
 * (the product overflows).
 */
MON_API int acct_matrix(const struct tl *tl, struct acct_cell *cells,
			unsigned int nr_cpus, size_t nr_threads);

struct acct_cpu {
	uint64_t run_ns; /* monitored threads running on it */
	uint64_t interrupted_ns; /* ... of which stolen by handlers */
	uint64_t switches; /* monitored threads switched in */
	uint64_t flutters; /* switched out and back in, only idle between */
	uint64_t events; /* records of this CPU */
	uint64_t lost; /* events lost on this CPU */
	uint64_t threads; /* distinct monitored threads run on it */
	uint64_t first_ns,
		last_ns; /* first and last record time (0, 0: none) */
	uint64_t idle_ns; /* TL_IDLE: of run_ns, its idle thread's */
};

/*
 * acct_cpu - summary of CPU @cpu
 *
 * Return: 0, or -EINVAL, -ENOENT (@cpu >= tl_nr_cpus()).
 */
MON_API int acct_cpu(const struct tl *tl, unsigned int cpu,
		     struct acct_cpu *out);

/*
 * acct_cpus - summaries of CPUs 0 .. @nr_cpus - 1 in one walk of the
 * timeline (acct_cpu() walks it once per call)
 * @tl: the timeline
 * @out: @nr_cpus entries; CPUs from tl_nr_cpus() on are left untouched
 * @nr_cpus: entries at @out
 *
 * Return: 0, or -EINVAL, -ENOMEM.
 */
MON_API int acct_cpus(const struct tl *tl, struct acct_cpu *out,
		      unsigned int nr_cpus);

#ifdef __cplusplus
}
#endif

#endif /* MON_ACCT_H */
