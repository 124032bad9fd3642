// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * walk.c - what held a CPU over a span, from the noise index (index.c):
 * the one walk of a CPU's owner segments that noise attribution, the
 * osnoise table and the wakeup breakdown each charge their own way, and
 * the one search of its handler runs by start.
 */
#include "analysis/analysis.h"

int an_walk(const struct noise *n, unsigned int cpu, uint64_t a, uint64_t b,
	    size_t k, an_piece_fn fn, void *arg, uint64_t *unknown, size_t *end)
{
	const struct an_cpu *c;
	uint64_t pos = a;
	int err;

	if (end)
		*end = 0;
	if (cpu >= n->nr_cpus) {
		*unknown += b - a;
		return 0;
	}
	c = &n->cpus[cpu];
	if (k == AN_SEARCH)
		k = an_seg_after(c, a);
	for (; k < c->nr_seg && c->seg[k].start < b; k++) {
		const struct an_seg *g = &c->seg[k];
		uint64_t x = g->start > pos ? g->start : pos;
		uint64_t y = g->end < b ? g->end : b;

		if (x > pos)
			*unknown += x - pos;
		if (y <= x)
			continue;
		pos = y;
		err = fn(arg, g, x, y);
		if (err)
			return err;
	}
	if (b > pos)
		*unknown += b - pos;
	if (end)
		*end = k;
	return 0;
}

size_t an_irq_after(const struct noise *n, const struct an_cpu *c, uint64_t t)
{
	size_t lo = 0, hi = c->nr_irq;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (n->tl->irqs[c->irq[mid]].start_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
