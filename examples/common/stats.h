/* SPDX-License-Identifier: GPL-2.0 */
/* stats.h - sample statistics as the MKM paper's Tables 2 and 3 give them. */
#ifndef MKM_EXAMPLES_STATS_H
#define MKM_EXAMPLES_STATS_H

#include <stddef.h>

struct sample_stats {
	size_t n;
	double mean, stddev, min, max;
	double ci99; /* half-width of the 99% confidence interval of the mean */
};

void stats_compute(const double *x, size_t n, struct sample_stats *out);
/* One row: name, mean, std dev, mean +- ci99, in the given unit. */
void stats_print_row(const char *name, const struct sample_stats *s,
		     double scale, const char *unit);

#endif /* MKM_EXAMPLES_STATS_H */
