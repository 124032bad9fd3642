// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * acct.c - accounting over a timeline: msa() totals per microstate, burst
 * statistics, the CPU x thread matrix and per-CPU summaries. Everything is
 * computed by walking the stored intervals at call time, so the builder's
 * hot path pays nothing for it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "timeline/timeline.h"

static bool on_cpu_run(unsigned int s)
{
	return tl_state_desc(s)->group == TL_GROUP_RUN;
}

/* Is thread i a descendant of thread anc (by fork)? */
static bool descends(const struct tl *tl, size_t i, size_t anc)
{
	int64_t p = tl->th[i].parent;
	size_t hops = 0;

	/* Bounded walk: a corrupt stream could make a parent cycle. */
	while (p >= 0 && hops++ < tl->nr_th) {
		if ((size_t)p == anc)
			return true;
		p = tl->th[p].parent;
	}
	return false;
}

static int scope_check(const struct tl *tl, enum acct_scope scope, size_t th)
{
	if (!tl)
		return -EINVAL;
	if (scope != ACCT_THREAD && scope != ACCT_ALL && scope != ACCT_CHILDREN)
		return -EINVAL;
	if (scope != ACCT_ALL && th >= tl->nr_th)
		return -ENOENT;
	return 0;
}

static bool in_scope(const struct tl *tl, enum acct_scope scope, size_t th,
		     size_t i)
{
	switch (scope) {
	case ACCT_THREAD:
		return i == th;
	case ACCT_ALL:
		return true;
	case ACCT_CHILDREN:
		return i != th && descends(tl, i, th);
	}
	return false;
}

int acct_msa(const struct tl *tl, enum acct_scope scope, size_t th,
	     unsigned int ntimers, uint64_t *timers)
{
	uint64_t sum[TL_NR_STATES] = { 0 };
	size_t i, k;
	int err = scope_check(tl, scope, th);

	if (err)
		return err;
	if (ntimers && !timers)
		return -EINVAL;
	for (i = 0; i < tl->nr_th; i++) {
		const struct tl_th *t = &tl->th[i];

		if (!in_scope(tl, scope, th, i))
			continue;
		for (k = 0; k < t->nr_iv; k++) {
			const struct tl_iv *iv = tl_iv_at(t, k);

			sum[iv->state] += tl_iv_end(tl, t, k) - iv->start;
		}
	}
	if (ntimers > TL_NR_STATES)
		ntimers = TL_NR_STATES;
	if (ntimers)
		memcpy(timers, sum, ntimers * sizeof(*timers));
	return 0;
}

/* Welford's running mean and variance, exact for any order of sizes. */
struct burst_acc {
	uint64_t count, total, min, max;
	double mean, m2;
};

static void burst_add(struct burst_acc *b, uint64_t d)
{
	double delta;

	if (!b->count || d < b->min)
		b->min = d;
	if (d > b->max)
		b->max = d;
	b->count++;
	b->total += d;
	delta = (double)d - b->mean;
	b->mean += delta / (double)b->count;
	b->m2 += delta * ((double)d - b->mean);
}

int acct_bursts(const struct tl *tl, enum acct_scope scope, size_t th,
		struct acct_burst *out)
{
	struct burst_acc acc[TL_NR_STATES];
	size_t i, k, s;
	int err = scope_check(tl, scope, th);

	if (err)
		return err;
	if (!out)
		return -EINVAL;
	memset(acc, 0, sizeof(acc));
	for (i = 0; i < tl->nr_th; i++) {
		const struct tl_th *t = &tl->th[i];
		size_t closed;

		if (!in_scope(tl, scope, th, i) || !t->nr_iv)
			continue;
		closed = t->ended ? t->nr_iv : t->nr_iv - 1;
		for (k = 0; k < closed; k++) {
			const struct tl_iv *iv = tl_iv_at(t, k);

			burst_add(&acc[iv->state],
				  tl_iv_end(tl, t, k) - iv->start);
		}
	}
	for (s = 0; s < TL_NR_STATES; s++) {
		out[s].count = acc[s].count;
		out[s].total_ns = acc[s].total;
		out[s].min_ns = acc[s].min;
		out[s].max_ns = acc[s].max;
		out[s].mean_ns = acc[s].count ? acc[s].mean : 0.0;
		out[s].stddev_ns =
			acc[s].count ? sqrt(acc[s].m2 / (double)acc[s].count) :
				       0.0;
	}
	return 0;
}

int acct_matrix(const struct tl *tl, struct acct_cell *cells,
		unsigned int nr_cpus, size_t nr_threads)
{
	size_t i, k, n;

	if (!tl)
		return -EINVAL;
	if (nr_threads && nr_cpus > SIZE_MAX / sizeof(*cells) / nr_threads)
		return -EOVERFLOW;
	n = (size_t)nr_cpus * nr_threads;
	if (!n)
		return 0;
	if (!cells)
		return -EINVAL;
	memset(cells, 0, n * sizeof(*cells));
	for (i = 0; i < tl->nr_th && i < nr_threads; i++) {
		const struct tl_th *t = &tl->th[i];
		int prev_cpu = -1; /* cpu of the on-CPU stretch, -1: off */

		for (k = 0; k < t->nr_iv; k++) {
			const struct tl_iv *iv = tl_iv_at(t, k);
			struct acct_cell *cell;

			if (iv->state != TL_INTERRUPTED &&
			    !on_cpu_run(iv->state)) {
				prev_cpu = -1;
				continue;
			}
			if (iv->cpu >= nr_cpus) {
				prev_cpu = iv->cpu;
				continue;
			}
			cell = &cells[(size_t)iv->cpu * nr_threads + i];
			if (prev_cpu != iv->cpu)
				cell->dispatches++;
			prev_cpu = iv->cpu;
			if (on_cpu_run(iv->state))
				cell->run_ns += tl_iv_end(tl, t, k) - iv->start;
		}
	}
	return 0;
}

int acct_cpus(const struct tl *tl, struct acct_cpu *out, unsigned int nr_cpus)
{
	size_t *counted; /* per CPU: 1 + the last thread counted there */
	unsigned int c;
	size_t i, k;

	if (!tl || (nr_cpus && !out))
		return -EINVAL;
	if (nr_cpus > tl->max_cpu)
		nr_cpus = tl->max_cpu;
	counted = calloc(nr_cpus + 1, sizeof(*counted));
	if (!counted)
		return -ENOMEM;
	for (c = 0; c < nr_cpus; c++) {
		const struct tl_cpu *cpu = &tl->cpus[c];

		memset(&out[c], 0, sizeof(out[c]));
		out[c].switches = cpu->switches;
		out[c].flutters = cpu->flutters;
		out[c].events = cpu->events;
		out[c].lost = cpu->lost;
		out[c].first_ns = cpu->first_time;
		out[c].last_ns = cpu->last_done;
	}
	for (i = 0; i < tl->nr_th; i++) {
		const struct tl_th *t = &tl->th[i];

		for (k = 0; k < t->nr_iv; k++) {
			const struct tl_iv *iv = tl_iv_at(t, k);
			uint64_t d;

			if (iv->cpu >= nr_cpus ||
			    (iv->state != TL_INTERRUPTED &&
			     !on_cpu_run(iv->state)))
				continue;
			d = tl_iv_end(tl, t, k) - iv->start;
			out[iv->cpu].run_ns += d;
			if (t->idle_cpu >= 0)
				out[iv->cpu].idle_ns += d;
			if (iv->state == TL_INTERRUPTED)
				out[iv->cpu].interrupted_ns += d;
			if (counted[iv->cpu] != i + 1) {
				counted[iv->cpu] = i + 1;
				out[iv->cpu].threads++;
			}
		}
	}
	free(counted);
	return 0;
}

/* One CPU: the same walk, kept simple; acct_cpus() for all of them. */
int acct_cpu(const struct tl *tl, unsigned int cpu, struct acct_cpu *out)
{
	const struct tl_cpu *c;
	size_t i, k;

	if (!tl || !out)
		return -EINVAL;
	if (cpu >= tl->max_cpu)
		return -ENOENT;
	c = &tl->cpus[cpu];
	memset(out, 0, sizeof(*out));
	out->switches = c->switches;
	out->flutters = c->flutters;
	out->events = c->events;
	out->lost = c->lost;
	out->first_ns = c->first_time;
	out->last_ns = c->last_done;
	for (i = 0; i < tl->nr_th; i++) {
		const struct tl_th *t = &tl->th[i];
		bool ran = false;

		for (k = 0; k < t->nr_iv; k++) {
			const struct tl_iv *iv = tl_iv_at(t, k);
			uint64_t d;

			if (iv->cpu != cpu || (iv->state != TL_INTERRUPTED &&
					       !on_cpu_run(iv->state)))
				continue;
			d = tl_iv_end(tl, t, k) - iv->start;
			out->run_ns += d;
			if (t->idle_cpu >= 0)
				out->idle_ns += d;
			if (iv->state == TL_INTERRUPTED)
				out->interrupted_ns += d;
			ran = true;
		}
		out->threads += ran;
	}
	return 0;
}
