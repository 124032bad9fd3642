// SPDX-License-Identifier: LGPL-2.1-or-later
/* calibrate/stats.c - mean, standard deviation and 99% confidence interval. */
#include <math.h>

#include "internal.h"
#include "mon_calibrate.h"

void mon_sample_stats(const double *x, size_t n, struct mon_sample_stats *out)
{
	double sum = 0, sq = 0;
	size_t i;

	*out = (struct mon_sample_stats){ .n = n };
	if (!n)
		return;
	out->min = out->max = x[0];
	for (i = 0; i < n; i++) {
		sum += x[i];
		out->min = fmin(out->min, x[i]);
		out->max = fmax(out->max, x[i]);
	}
	out->mean = sum / (double)n;
	for (i = 0; i < n; i++)
		sq += (x[i] - out->mean) * (x[i] - out->mean);
	out->stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	/* Normal approximation, as the paper's: z(0.995) = 2.576. */
	out->ci99 = 2.576 * out->stddev / sqrt((double)n);
}
