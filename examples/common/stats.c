// SPDX-License-Identifier: GPL-2.0
/* stats.c - mean, standard deviation and 99% confidence interval. */

#include <math.h>
#include <stdio.h>

#include "stats.h"

void stats_compute(const double *x, size_t n, struct sample_stats *out)
{
	double sum = 0, sq = 0;
	size_t i;

	*out = (struct sample_stats){ .n = n };
	if (!n)
		return;
	out->min = out->max = x[0];
	for (i = 0; i < n; i++) {
		sum += x[i];
		if (x[i] < out->min)
			out->min = x[i];
		if (x[i] > out->max)
			out->max = x[i];
	}
	out->mean = sum / n;
	for (i = 0; i < n; i++)
		sq += (x[i] - out->mean) * (x[i] - out->mean);
	out->stddev = n > 1 ? sqrt(sq / (n - 1)) : 0;
	/* Normal approximation, as the paper's: z(0.995) = 2.576. */
	out->ci99 = 2.576 * out->stddev / sqrt((double)n);
}

void stats_print_row(const char *name, const struct sample_stats *s,
		     double scale, const char *unit)
{
	printf("%-22s %12.3f %-4s %12.3f %-4s %12.3f +- %.3f\n", name,
	       s->mean * scale, unit, s->stddev * scale, unit, s->mean * scale,
	       s->ci99 * scale);
}
