/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_barrier.h - mkm noise --barriers: the Barcelona Supercomputing
 * Center's table of long barriers, each with the node and the cause that
 * delayed its last arrival, from libmonitor's mon_barriers().
 */
#ifndef MKM_REPORT_BARRIER_H
#define MKM_REPORT_BARRIER_H

#include "report_noise.h"

/* Prints the barrier study of threads @th (@nr timeline indexes, one per
 * rank). Return: the exit status. */
int report_barriers(struct tl *tl, const struct mon_meta *meta,
		    const struct noise_opts *o, const size_t *th, size_t nr);

#endif /* MKM_REPORT_BARRIER_H */
