/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_noise.h - mkm report --noise and --idle: the tables of seeds 001
 * to 003 from libmonitor's noise and idle analyses (mon_analysis.h).
 */
#ifndef MKM_REPORT_NOISE_H
#define MKM_REPORT_NOISE_H

#include <stdbool.h>

#include "util.h"

struct noise_opts {
	const char *tids; /* --tid LIST: the threads to analyse */
	const char *comm; /* --comm NAME: threads of that name */
	unsigned int top; /* sources shown per thread */
	bool json;
	const struct mon_nodes *nodes; /* a merged trace's: rows name nodes */
};

/* Prints who took time from the chosen threads, and the CPU x thread
 * matrix of them and their intruders. Return: the exit status. */
int report_noise(struct tl *tl, const struct mon_meta *meta,
		 const struct noise_opts *o);
/* Prints each CPU's idle intervals and what ended them. */
int report_idle(struct tl *tl, const struct mon_meta *meta, bool json);

#endif /* MKM_REPORT_NOISE_H */
