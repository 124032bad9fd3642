// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * idle.c - idle CPUs, as "(How to) Let idle CPUs sleep" (Vaddagiri, LKML
 * 2005) tabled them: each CPU's idle intervals are the RUN intervals of
 * its idle thread (TL_IDLE); one ends when an interrupt lands
 * on the idle CPU (the idle thread becomes INTERRUPTED: the handler that
 * entered at that instant woke it) or when the CPU switches to a thread
 * with no interrupt here (the idle thread sleeps: a wakeup from another
 * CPU that needed no IPI).
 *
 * What follows a handler on an idle CPU is not a new sleep when it ends in
 * a softirq (irq_exit() runs them as the handler's tail) or in a switch to
 * a thread (the one the handler woke): such a stretch is the same wakeup's
 * work, idle time but no idle interval of its own. After a handler that
 * woke nothing, the CPU sleeps again, and the next handler ends a new
 * interval.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"

uint64_t idle_hist_bound_ns(unsigned int k)
{
	if (k + 1 >= IDLE_HIST_BUCKETS)
		return UINT64_MAX;
	return 1000ull << k;
}

static unsigned int hist_bucket(uint64_t ns)
{
	unsigned int k = 0;

	while (k + 1 < IDLE_HIST_BUCKETS && ns >= idle_hist_bound_ns(k))
		k++;
	return k;
}

/* The outermost handler that entered on CPU c at time t, or NULL. */
static const struct tl_irq *irq_at(const struct noise *n, unsigned int c,
				   uint64_t t)
{
	const struct an_cpu *ac = &n->cpus[c];
	size_t lo = an_irq_after(n, ac, t);

	if (lo < ac->nr_irq && n->tl->irqs[ac->irq[lo]].start_ns == t)
		return &n->tl->irqs[ac->irq[lo]];
	return NULL;
}

/* The thread whose stretch on CPU c begins at time t, or -1. */
static int64_t thread_at(const struct noise *n, unsigned int c, uint64_t t)
{
	const struct an_cpu *ac = &n->cpus[c];
	size_t k;

	for (k = an_seg_after(ac, t); k < ac->nr_seg; k++) {
		if (ac->seg[k].start > t)
			break;
		if (ac->seg[k].start == t && ac->seg[k].owner >= 0)
			return ac->seg[k].owner;
	}
	return -1;
}

/* A cause, with the times it ended an idle interval (for its period). */
struct cause {
	struct idle_cause c;
	int64_t owner; /* an_irq_owner(), a thread, or INT64_MIN: unknown */
	uint64_t *ends;
	size_t nr_ends, cap_ends;
};

static struct cause *cause_get(struct cause **v, size_t *n, size_t *cap,
			       int64_t owner)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i].owner == owner)
			return &(*v)[i];
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 8;
		struct cause *p = realloc(*v, c * sizeof(*p));

		if (!p)
			return NULL;
		*v = p;
		*cap = c;
	}
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].owner = owner;
	return &(*v)[(*n)++];
}

static int cause_cmp(const void *a, const void *b)
{
	const struct idle_cause *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int analyse_cpu(struct noise *n, unsigned int c, size_t th,
		       struct idle_cpu *out)
{
	const struct tl *tl = n->tl;
	const struct tl_th *t = &tl->th[th];
	struct cause *causes = NULL;
	size_t nc = 0, cap = 0, k;
	double sum = 0, sumsq = 0;
	int err = -ENOMEM;

	memset(out, 0, sizeof(*out));
	out->cpu = c;
	/* The idle thread's observed life: from the CPU's first idle. */
	out->span_ns = t->nr_iv ? tl_iv_end(tl, t, t->nr_iv - 1) - t->first : 0;
	for (k = 0; k < t->nr_iv; k++) {
		const struct tl_iv *iv = tl_iv_at(t, k);
		uint64_t end = tl_iv_end(tl, t, k), d = end - iv->start;
		const struct tl_irq *r = NULL;
		unsigned int next;
		struct cause *cs;
		bool after_irq;
		int64_t owner;

		if (iv->state != TL_RUN)
			continue;
		out->idle_ns += d;
		if (k + 1 == t->nr_iv)
			continue; /* still idle at the end: not whole */
		next = tl_iv_at(t, k + 1)->state;
		after_irq = k && tl_iv_at(t, k - 1)->state == TL_INTERRUPTED;
		if (next == TL_INTERRUPTED) {
			r = irq_at(n, c, end);
			owner = r ? an_irq_owner(r->kind, r->number) :
				    INT64_MIN;
			if (after_irq && r && r->kind == TL_IRQ_SOFT)
				continue; /* a handler's tail */
		} else if (next == TL_SLEEP) {
			if (after_irq)
				continue; /* serving the handler's wakeup */
			owner = thread_at(n, c, end);
			if (owner < 0)
				owner = INT64_MIN;
		} else {
			continue; /* cut by lost events */
		}
		out->count++;
		sum += (double)d;
		sumsq += (double)d * (double)d;
		if (!out->min_ns || d < out->min_ns)
			out->min_ns = d;
		if (d > out->max_ns)
			out->max_ns = d;
		out->hist[hist_bucket(d)]++;
		cs = cause_get(&causes, &nc, &cap, owner);
		if (!cs)
			goto out;
		cs->c.count++;
		cs->c.idle_ns += d;
		if (cs->nr_ends == cs->cap_ends) {
			size_t cc = cs->cap_ends ? cs->cap_ends * 2 : 16;
			uint64_t *p = realloc(cs->ends, cc * sizeof(*p));

			if (!p)
				goto out;
			cs->ends = p;
			cs->cap_ends = cc;
		}
		cs->ends[cs->nr_ends++] = end;
	}
	if (out->count) {
		double mean = sum / (double)out->count;
		double var = sumsq / (double)out->count - mean * mean;

		out->mean_ns = mean;
		out->stddev_ns = var > 0 ? sqrt(var) : 0;
	}
	out->causes = calloc(nc + 1, sizeof(*out->causes));
	if (!out->causes)
		goto out;
	for (k = 0; k < nc; k++) {
		struct cause *cs = &causes[k];
		struct idle_cause *ic = &out->causes[k];
		size_t g;

		*ic = cs->c;
		if (cs->owner == INT64_MIN) {
			ic->kind = NOISE_THREAD;
			ic->thread = -1;
			snprintf(ic->name, sizeof(ic->name), "(not recorded)");
		} else {
			ic->kind = (uint8_t)an_owner_kind(cs->owner);
			ic->number = an_owner_number(cs->owner);
			ic->thread = cs->owner >= 0 ? cs->owner : -1;
			an_owner_name(n, cs->owner, ic->name, sizeof(ic->name));
		}
		/* Gaps between its ends of idle: in place, ends are sorted. */
		for (g = 1; g < cs->nr_ends; g++)
			cs->ends[g - 1] = cs->ends[g] - cs->ends[g - 1];
		if (cs->nr_ends >= 3)
			ic->period_ns = an_median(cs->ends, cs->nr_ends - 1,
						  &ic->regular);
	}
	out->nr_causes = nc;
	if (nc > 1)
		qsort(out->causes, nc, sizeof(*out->causes), cause_cmp);
	err = 0;
out:
	for (k = 0; k < nc; k++)
		free(causes[k].ends);
	free(causes);
	return err;
}

int idle_analyse(struct noise *n, struct idle_report *out)
{
	unsigned int c;
	int err;

	if (!n || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->cpus = calloc(n->nr_cpus + 1, sizeof(*out->cpus));
	if (!out->cpus)
		return -ENOMEM;
	for (c = 0; c < n->nr_cpus; c++) {
		int64_t th = tl_idle_thread(n->tl, c);

		if (th < 0)
			continue;
		err = analyse_cpu(n, c, (size_t)th, &out->cpus[out->nr_cpus]);
		if (err) {
			idle_report_free(out);
			return err;
		}
		out->nr_cpus++;
	}
	return 0;
}

void idle_report_free(struct idle_report *r)
{
	unsigned int c;

	if (!r)
		return;
	for (c = 0; r->cpus && c < r->nr_cpus; c++)
		free(r->cpus[c].causes);
	free(r->cpus);
	r->cpus = NULL;
	r->nr_cpus = 0;
}
