// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * index.c - who held each CPU when: every thread's stretches on the CPU
 * (its on-CPU intervals, IRQs inside included, one segment per dispatch),
 * with the time of interrupt handlers cut out of them and given to the
 * innermost handler. Built once per timeline; noise.c and idle.c query it
 * by binary search.
 */
#define _GNU_SOURCE /* qsort_r */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"

static bool on_cpu(unsigned int state)
{
	return mon_states[state].on_cpu;
}

/* Room for one more element in *v (n used, *cap allocated). */
static void *grow(void **v, size_t n, size_t *cap, size_t size)
{
	if (n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		void *p = realloc(*v, c * size);

		if (!p)
			return NULL;
		*v = p;
		*cap = c;
	}
	return (char *)*v + n * size;
}

struct segv {
	struct an_seg *v;
	size_t n, cap;
};

static int seg_push(struct segv *s, uint64_t a, uint64_t b, int64_t owner,
		    uint64_t burst)
{
	struct an_seg *g;

	if (b <= a)
		return 0;
	g = grow((void **)&s->v, s->n, &s->cap, sizeof(*g));
	if (!g)
		return -ENOMEM;
	*g = (struct an_seg){ a, b, owner, burst };
	s->n++;
	return 0;
}

static int seg_cmp(const void *a, const void *b)
{
	const struct an_seg *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Handler runs (indexes into @tl's) by start, outer ones first: qsort_r,
 * so that two indexes can be built at once. */
static int irq_cmp(const void *a, const void *b, void *tl)
{
	const struct tl_irq *irqs = ((const struct tl *)tl)->irqs;
	const struct tl_irq *x = &irqs[*(const size_t *)a];
	const struct tl_irq *y = &irqs[*(const size_t *)b];

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* Each thread's on-CPU stretches, per CPU, in time order. */
static int index_threads(const struct tl *tl, struct segv *cpu,
			 unsigned int nr_cpus, uint64_t *serial)
{
	size_t i, k;

	for (i = 0; i < tl->nr_th; i++) {
		const struct tl_th *t = &tl->th[i];
		struct segv *last = NULL; /* where its open stretch is, last */

		for (k = 0; k < t->nr_iv; k++) {
			const struct tl_iv *iv = tl_iv_at(t, k);
			uint64_t end = tl_iv_end(tl, t, k);

			if (!on_cpu(iv->state) || iv->cpu >= nr_cpus) {
				last = NULL;
				continue;
			}
			/* RUN, INTERRUPTED, RUN on one CPU: one dispatch. */
			if (last == &cpu[iv->cpu] && last->n &&
			    last->v[last->n - 1].owner == (int64_t)i &&
			    last->v[last->n - 1].end == iv->start) {
				last->v[last->n - 1].end = end;
				continue;
			}
			if (seg_push(&cpu[iv->cpu], iv->start, end, (int64_t)i,
				     (*serial)++))
				return -ENOMEM;
			last = &cpu[iv->cpu];
		}
	}
	for (i = 0; i < nr_cpus; i++) {
		struct segv *s = &cpu[i];
		size_t w = 0;

		/* A CPU with no segment has no array: qsort() wants one. */
		if (s->n > 1)
			qsort(s->v, s->n, sizeof(*s->v), seg_cmp);
		/* Overlaps only follow anomalies: the earlier one wins. */
		for (k = 0; k < s->n; k++) {
			if (w && s->v[k].start < s->v[w - 1].end)
				s->v[k].start = s->v[w - 1].end;
			if (s->v[k].start < s->v[k].end)
				s->v[w++] = s->v[k];
		}
		s->n = w;
	}
	return 0;
}

/* The handlers' own time on one CPU: each run minus the runs nested in it. */
static int flatten_irqs(const struct tl *tl, const size_t *idx, size_t n,
			struct segv *out, uint64_t *serial)
{
	struct open {
		int64_t owner;
		uint64_t end, resume, burst;
	} stack[TL_IRQ_DEPTH + 1];
	unsigned int depth = 0;
	size_t k;

	for (k = 0; k <= n; k++) {
		const struct tl_irq *r = k < n ? &tl->irqs[idx[k]] : NULL;
		uint64_t start = r ? r->start_ns : UINT64_MAX;
		const struct open *outer;

		while (depth && stack[depth - 1].end <= start) {
			struct open *o = &stack[--depth];

			if (seg_push(out, o->resume, o->end, o->owner,
				     o->burst))
				return -ENOMEM;
			if (depth)
				stack[depth - 1].resume = o->end;
		}
		if (!r)
			break;
		if (depth) {
			struct open *o = &stack[depth - 1];

			if (seg_push(out, o->resume, start, o->owner, o->burst))
				return -ENOMEM;
			o->resume = start;
		}
		if (depth == TL_IRQ_DEPTH + 1)
			continue;
		/* A run that outlasts its outer one is cut there. */
		outer = depth ? &stack[depth - 1] : NULL;
		stack[depth] = (struct open){
			.owner = an_irq_owner(r->kind, r->number),
			.end = outer && r->end_ns > outer->end ? outer->end :
								 r->end_ns,
			.resume = start,
			.burst = (*serial)++,
		};
		depth++;
	}
	return 0;
}

/* Threads' segments with the handlers' pieces cut out of them. */
static int overlay(struct segv *th, const struct segv *irq, struct segv *out)
{
	size_t i, j = 0;

	for (i = 0; i < th->n; i++) {
		struct an_seg s = th->v[i];
		uint64_t pos = s.start;

		while (j < irq->n && irq->v[j].end <= pos)
			j++;
		for (size_t q = j; q < irq->n && irq->v[q].start < s.end; q++) {
			if (seg_push(out, pos, irq->v[q].start, s.owner,
				     s.burst))
				return -ENOMEM;
			if (irq->v[q].end > pos)
				pos = irq->v[q].end;
		}
		if (seg_push(out, pos, s.end, s.owner, s.burst))
			return -ENOMEM;
	}
	for (i = 0; i < irq->n; i++)
		if (seg_push(out, irq->v[i].start, irq->v[i].end,
			     irq->v[i].owner, irq->v[i].burst))
			return -ENOMEM;
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), seg_cmp);
	return 0;
}

int noise_create(struct noise **np, const struct tl *tl)
{
	struct segv *th = NULL, irq = { 0 };
	uint64_t serial = 1;
	struct noise *n;
	unsigned int c;
	size_t i;
	int err = -ENOMEM;

	if (!np || !tl)
		return -EINVAL;
	*np = NULL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->tl = tl;
	n->nr_cpus = tl->max_cpu;
	n->cpus = calloc(n->nr_cpus + 1, sizeof(*n->cpus));
	th = calloc(n->nr_cpus + 1, sizeof(*th));
	if (!n->cpus || !th)
		goto out;
	if (index_threads(tl, th, n->nr_cpus, &serial))
		goto out;
	/* Each CPU's handler runs: counted, then placed. */
	for (i = 0; i < tl->nr_irqs; i++)
		if (tl->irqs[i].cpu < n->nr_cpus)
			n->cpus[tl->irqs[i].cpu].nr_irq++;
	for (c = 0; c < n->nr_cpus; c++) {
		n->cpus[c].irq =
			malloc((n->cpus[c].nr_irq + 1) * sizeof(size_t));
		if (!n->cpus[c].irq)
			goto out;
		n->cpus[c].nr_irq = 0;
	}
	for (i = 0; i < tl->nr_irqs; i++) {
		struct an_cpu *ac;

		if (tl->irqs[i].cpu >= n->nr_cpus)
			continue;
		ac = &n->cpus[tl->irqs[i].cpu];
		ac->irq[ac->nr_irq++] = i;
	}
	for (c = 0; c < n->nr_cpus; c++) {
		struct an_cpu *ac = &n->cpus[c];
		struct segv all = { 0 };

		qsort_r(ac->irq, ac->nr_irq, sizeof(*ac->irq), irq_cmp,
			(void *)tl);
		irq.n = 0;
		if (flatten_irqs(tl, ac->irq, ac->nr_irq, &irq, &serial) ||
		    overlay(&th[c], &irq, &all)) {
			free(all.v);
			goto out;
		}
		ac->seg = all.v;
		ac->nr_seg = all.n;
	}
	*np = n;
	n = NULL;
	err = 0;
out:
	if (th)
		for (c = 0; c < tl->max_cpu; c++)
			free(th[c].v);
	free(th);
	free(irq.v);
	noise_destroy(n);
	return err;
}

void noise_destroy(struct noise *n)
{
	unsigned int c;

	if (!n)
		return;
	for (c = 0; n->cpus && c < n->nr_cpus; c++) {
		free(n->cpus[c].seg);
		free(n->cpus[c].irq);
	}
	free(n->cpus);
	free(n);
}

size_t an_seg_after(const struct an_cpu *c, uint64_t t)
{
	size_t lo = 0, hi = c->nr_seg;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->seg[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void an_owner_name(const struct noise *n, int64_t owner, char *buf, size_t len)
{
	if (owner >= 0) {
		const struct tl_th *t = &n->tl->th[owner];

		if (t->name[0])
			snprintf(buf, len, "%.16s", t->name);
		else
			snprintf(buf, len, "tid %u", t->tid);
		return;
	}
	tl_irq_name(an_owner_kind(owner) - 1, an_owner_number(owner), buf, len);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * A period that jitters (a timer late by 2 ms, then on time) still keeps
 * its beat: regularity is judged on the span of REGULAR_SPAN gaps, whose
 * error a late activation does not add to, not on single gaps.
 */
#define REGULAR_SPAN 4

uint64_t an_median(uint64_t *v, size_t n, double *regular)
{
	uint64_t med, *sorted, span;
	size_t i, k, w, near = 0, windows = 0;

	*regular = 0;
	if (!n)
		return 0;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return 0;
	memcpy(sorted, v, n * sizeof(*v));
	qsort(sorted, n, sizeof(*sorted), u64_cmp);
	med = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	free(sorted);
	/* Too few gaps to call anything regular. */
	w = n < 2 * REGULAR_SPAN ? n + 1 : REGULAR_SPAN;
	for (i = 0; i + w <= n; i++) {
		for (span = 0, k = 0; k < w; k++)
			span += v[i + k];
		if ((span > w * med ? span - w * med : w * med - span) <=
		    w * med / 10)
			near++;
		windows++;
	}
	*regular = windows ? (double)near / (double)windows : 0;
	return med;
}
