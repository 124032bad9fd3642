// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * calibrate/verdict.c - whether a figure is a cost: the judgement of its
 * trials, the verdict stored with it, and a calibration's as a whole.
 *
 * A calibration figure is the time "on" trials took beyond "off" ones,
 * divided by the records counted. On a noisy machine, or in a virtual one
 * whose clock is the host's, the difference drowns in the noise: the mean
 * comes out negative, or its interval reaches zero, or the trials spread
 * as widely as the mean. Such a figure is not a cost, and compensating
 * with it moves times by noise (seen: switch -1914.7 ns under plain TCG).
 * The verdict is taken where the trials are (mon_calibrate()), stored
 * with the figure, and re-derived from the stored statistics for traces
 * written before it existed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/verdict.h"
#include "internal.h"

unsigned int mon_cost_judge(const struct mon_sample_stats *s)
{
	unsigned int v = 0;

	if (!s)
		return MON_COST_FEW_TRIALS;
	if (s->n < MON_CALIBRATE_MIN_TRIALS)
		v |= MON_COST_FEW_TRIALS;
	if (!(s->mean > 0))
		v |= MON_COST_NEGATIVE;
	if (!(s->mean - s->ci99 > 0))
		v |= MON_COST_SPANS_ZERO;
	if (s->mean > 0 && s->stddev >= MON_CALIBRATE_NOISY_CV * s->mean)
		v |= MON_COST_NOISY;
	return v;
}

unsigned int mon_cost_verdict(const struct trace_cost *c)
{
	struct mon_sample_stats s;

	if (!c)
		return 0;
	if (c->flags & MON_COST_JUDGED)
		return c->flags & MON_COST_NOT_A_COST;
	if (!(c->flags & MON_COST_MEASURED))
		return 0;
	s = (struct mon_sample_stats){
		.n = c->samples,
		.mean = (double)c->mean_ps / 1000,
		.stddev = (double)c->stddev_ps / 1000,
		.ci99 = (double)c->ci99_ps / 1000,
	};
	return mon_cost_judge(&s);
}

const char *mon_cost_verdict_str(unsigned int verdict, char *buf, size_t len)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} names[] = {
		{ MON_COST_NEGATIVE, "negative" },
		{ MON_COST_SPANS_ZERO, "spans zero" },
		{ MON_COST_NOISY, "noisy" },
		{ MON_COST_FEW_TRIALS, "too few trials" },
	};
	size_t i, at = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		int n;

		if (!(verdict & names[i].bit) || at >= len)
			continue;
		n = snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
			     names[i].name);
		at += n > 0 ? (size_t)n : 0;
	}
	if (!buf[0])
		snprintf(buf, len, "a cost");
	return buf;
}

/* Figure @k of CPU entry @e, whose verdict is @v, in one line. */
static void say_why(char *why, size_t len, const struct trace_calibration *e,
		    unsigned int k, unsigned int v)
{
	const struct trace_cost *f = &e->cost[k];
	double m = (double)f->mean_ps / 1000, ci = (double)f->ci99_ps / 1000;
	const char *cause = "a noisy or virtual machine";
	char words[64];

	if (v & MON_COST_FEW_TRIALS)
		cause = "too few trials";
	else if (f->samples < 10)
		cause = "a noisy or virtual machine, or too few trials";
	snprintf(
		why, len,
		"%s on CPU %u: mean %.1f ns, 99%% interval %.1f .. %.1f ns over %u trials: %s (%s)",
		mon_cost_name(k), e->cpu, m, m - ci, m + ci, f->samples,
		mon_cost_verdict_str(v, words, sizeof(words)), cause);
}

int mon_calibration_judge(const struct mon_calibration *c, char *why,
			  size_t len)
{
	uint32_t i, k, pass;

	if (why && len)
		why[0] = '\0';
	if (!c || !c->hdr.nr_cpus || !c->cpu)
		return -EINVAL;
	/* Measured figures first: an estimated one that fails copies one
	 * that does, which is the one to name. */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < c->hdr.nr_cpus; i++)
			for (k = 0; k < MON_COST_NR; k++) {
				const struct trace_cost *f = &c->cpu[i].cost[k];
				unsigned int v = mon_cost_verdict(f);

				if (!v ||
				    (!pass && !(f->flags & MON_COST_MEASURED)))
					continue;
				if (why && len)
					say_why(why, len, &c->cpu[i], k, v);
				return -EDOM;
			}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of @v[0 .. @n-1], which it sorts. */
static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

size_t mon_trials_undisturbed(const double *x, size_t n, double *kept)
{
	size_t i, far = 0, k = 0;
	double *dev, med, limit;

	if (n)
		memcpy(kept, x, n * sizeof(*x));
	if (n < MON_CALIBRATE_DISTURBED_SHARE)
		return n; /* too few to tell which one is odd */
	dev = malloc(n * sizeof(*dev));
	if (!dev)
		return n; /* nothing set aside: the verdict stays strict */
	memcpy(dev, x, n * sizeof(*x));
	med = median_of(dev, n);
	for (i = 0; i < n; i++)
		dev[i] = fabs(x[i] - med);
	limit = fmax(MON_CALIBRATE_DISTURBED_MADS * 1.4826 * median_of(dev, n),
		     MON_CALIBRATE_NOISY_CV * fabs(med));
	free(dev);
	for (i = 0; i < n; i++)
		far += fabs(x[i] - med) > limit;
	if (!far || far > n / MON_CALIBRATE_DISTURBED_SHARE)
		return n;
	for (i = 0; i < n; i++)
		if (!(fabs(x[i] - med) > limit))
			kept[k++] = x[i];
	return k;
}

int cal_figure(cal_measure_fn measure, void *arg, unsigned long trials,
	       unsigned long max_trials, uint64_t deadline_ns,
	       struct trace_cost *out)
{
	struct mon_sample_stats s = { 0 };
	double *cost = NULL, *kept = NULL;
	unsigned long more = trials;
	unsigned int v = 0;
	size_t n = 0;
	int ret;

	if (max_trials < trials)
		max_trials = trials;
	for (;;) {
		struct mon_trials t;
		double *p;

		ret = measure(arg, more, &t);
		if (ret) {
			if (n) /* a retry failed: the trials so far stand */
				ret = 0;
			break;
		}
		/* The trials, then room for those kept. */
		p = realloc(cost, 2 * (n + t.n) * sizeof(*cost));
		if (!p) {
			mon_trials_free(&t);
			ret = -ENOMEM;
			break;
		}
		cost = p;
		memcpy(cost + n, t.cost_ns, t.n * sizeof(*cost));
		n += t.n;
		mon_trials_free(&t);
		kept = cost + n;
		mon_sample_stats(kept, mon_trials_undisturbed(cost, n, kept),
				 &s);
		v = mon_cost_judge(&s);
		if (s.n < n)
			v |= MON_COST_SET_ASIDE;
		/* Doubling: the interval narrows by sqrt(2) a step, and a
		 * trial disturbed among the first few is found odd. */
		more = n;
		if (!(v & MON_COST_NOT_A_COST) || !more ||
		    n + more > max_trials ||
		    (deadline_ns && now_ns(CLOCK_MONOTONIC) >= deadline_ns))
			break;
	}
	if (!ret)
		*out = (struct trace_cost){
			.mean_ps = llround(s.mean * 1000),
			.stddev_ps = (uint64_t)llround(s.stddev * 1000),
			.ci99_ps = (uint64_t)llround(s.ci99 * 1000),
			.samples = (uint32_t)s.n,
			.flags = MON_COST_MEASURED | MON_COST_JUDGED | v,
		};
	free(cost);
	return ret;
}
