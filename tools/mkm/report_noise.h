/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_noise.h - the tables of mkm noise and mkm idle (the Barcelona
 * Supercomputing Center's and Tsafrir et al.'s noise attribution,
 * Vaddagiri's idle CPUs) from libmonitor's noise and idle analyses
 * (mon_analysis.h).
 */
#ifndef MKM_REPORT_NOISE_H
#define MKM_REPORT_NOISE_H

#include <stdbool.h>

#include "libmonitor.h"
#include "mon_pipeline.h"

struct noise_opts {
	const char *tids; /* --tid LIST: the threads to analyse */
	const char *comm; /* --comm NAME: threads of that name */
	unsigned int top; /* sources shown per thread */
	bool json;
	bool barriers; /* --barriers: the threads meet at barriers */
	/* osnoise's table (osnoise_threads()): */
	uint64_t period_ns; /* --period (0: the whole recording is one) */
	uint64_t threshold_ns; /* --threshold: shorter noises are no samples */
	bool hist; /* --hist: the samples' histogram, rtla osnoise hist's */
	uint64_t bucket_ns; /* --bucket-size (0: 1 us) */
	unsigned int entries; /* --entries (0: 256) */
	const struct mon_nodes *nodes; /* a merged trace's: rows name nodes */
};

/* Prints who took time from the chosen threads, osnoise's table of them
 * (per thread and CPU; in a system-wide trace per CPU too), and the CPU x
 * thread matrix of them and their intruders; with @o->barriers, their
 * barriers (report_barrier.h). Return: the exit status. */
int report_noise(struct tl *tl, const struct mon_meta *meta,
		 const struct noise_opts *o);
/* The CPU x thread matrix of threads @cols (@ncol of them): time run and
 * dispatches; a row per CPU, on a merged trace with its node. */
void print_noise_matrix(const struct tl *tl, const struct mon_nodes *nodes,
			const size_t *cols, size_t ncol);
/* Prints each CPU's idle intervals and what ended them. */
int report_idle(struct tl *tl, const struct mon_meta *meta, bool json);

#endif /* MKM_REPORT_NOISE_H */
