// SPDX-License-Identifier: LGPL-2.1-or-later
/* calibrate/stats.c - mean, standard deviation and 99% confidence interval. */
#include <math.h>
#include <stdint.h>

#include "internal.h"
#include "mon_calibrate.h"
#include "mon_trace.h"

#define Z995 2.576

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
	out->ci99 = Z995 * out->stddev / sqrt((double)n);
}

double mon_student_t995(unsigned long df)
{
	/* Any table of Student's t, to three decimals (NIST/SEMATECH
	 * e-Handbook of Statistical Methods, 1.3.6.7.2). */
	static const double t[] = {
		63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355,
		3.250,	3.169, 3.106, 3.055, 3.012, 2.977, 2.947, 2.921,
		2.898,	2.878, 2.861, 2.845, 2.831, 2.819, 2.807, 2.797,
		2.787,	2.779, 2.771, 2.763, 2.756, 2.750,
	};
	/* The normal's own quantile, t's limit: the stored interval's
	 * 2.576 is the paper's rounding. */
	double z = 2.5758293035489, z3 = z * z * z, z5 = z3 * z * z, v;

	if (df < 1)
		df = 1;
	if (df <= ARRAY_SIZE(t))
		return t[df - 1];
	v = (double)df;
	/* Beyond: the Cornish-Fisher expansion in 1/df (Abramowitz and
	 * Stegun 26.7.5), within 0.0005 of the table at 30. */
	return z + (z3 + z) / (4 * v) +
	       (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
	       (3 * z5 * z * z + 19 * z5 + 17 * z3 - 15 * z) /
		       (384 * v * v * v);
}

uint64_t mon_cost_half_width_ps(const struct trace_cost *c)
{
	if (c->samples < 2)
		return c->ci99_ps;
	return (uint64_t)llround((double)c->ci99_ps *
				 mon_student_t995(c->samples - 1) / Z995);
}
