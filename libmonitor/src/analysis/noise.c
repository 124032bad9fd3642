// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * noise.c - who took time from a thread (as BSC's study of interrupts and
 * daemons and Tsafrir et al.'s of OS noise ask): while it
 * waited on a run queue or was interrupted, the owner of its CPU at each
 * instant (index.c) is charged; each intruder is then described by how
 * regular its activations are over the whole timeline, so periodic
 * daemons and ticks stand out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"

/* A source found so far, the burst it last charged and that burst's sum. */
struct acc_entry {
	int64_t owner;
	uint64_t burst, burst_ns;
};

struct acc {
	struct noise_source *v;
	struct acc_entry *e;
	size_t n, cap;
};

static int acc_charge(struct acc *a, int64_t owner, uint64_t burst, uint64_t ns)
{
	struct noise_source *s;
	struct acc_entry *e;
	size_t i;

	/* Few intruders per thread: a linear search, most recent first. */
	for (i = a->n; i-- > 0;)
		if (a->e[i].owner == owner)
			break;
	if (i == (size_t)-1) {
		if (a->n == a->cap) {
			size_t cap = a->cap ? a->cap * 2 : 16;
			struct noise_source *v =
				realloc(a->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			a->v = v;
			e = realloc(a->e, cap * sizeof(*e));
			if (!e)
				return -ENOMEM;
			a->e = e;
			a->cap = cap;
		}
		i = a->n++;
		memset(&a->v[i], 0, sizeof(a->v[i]));
		a->e[i] = (struct acc_entry){ .owner = owner };
	}
	s = &a->v[i];
	e = &a->e[i];
	if (e->burst != burst) {
		e->burst = burst;
		e->burst_ns = 0;
		s->count++;
	}
	e->burst_ns += ns;
	if (e->burst_ns > s->max_ns)
		s->max_ns = e->burst_ns;
	s->taken_ns += ns;
	return 0;
}

/*
 * Charges what owned CPU cpu in [a, b) to its owners, but for thread self;
 * time nobody is known to have owned is unknown.
 */
static int charge_span(struct noise *n, struct acc *acc, unsigned int cpu,
		       size_t self, uint64_t a, uint64_t b, uint64_t *unknown)
{
	const struct an_cpu *c;
	uint64_t pos = a;
	size_t k;

	if (cpu >= n->nr_cpus) {
		*unknown += b - a;
		return 0;
	}
	c = &n->cpus[cpu];
	for (k = an_seg_after(c, a); k < c->nr_seg && c->seg[k].start < b;
	     k++) {
		const struct an_seg *g = &c->seg[k];
		uint64_t s = g->start > pos ? g->start : pos;
		uint64_t e = g->end < b ? g->end : b;

		if (s > pos)
			*unknown += s - pos;
		if (e <= s)
			continue;
		if (g->owner == (int64_t)self)
			*unknown += e - s; /* its own time: a contradiction */
		else if (acc_charge(acc, g->owner, g->burst, e - s))
			return -ENOMEM;
		pos = e;
	}
	if (b > pos)
		*unknown += b - pos;
	return 0;
}

static bool asleep(unsigned int state)
{
	unsigned int g = mon_states[state].group;

	return g == TL_GROUP_SLEEP || g == TL_GROUP_DISK || g == TL_GROUP_STOP;
}

/* A thread's activations: each time it left a sleep for a CPU or a queue. */
static int thread_period(const struct noise *n, size_t th,
			 struct noise_period *out)
{
	const struct tl *tl = n->tl;
	const struct tl_th *t = &tl->th[th];
	uint64_t *gaps = NULL, last = 0;
	size_t k, ng = 0;

	memset(out, 0, sizeof(*out));
	if (t->nr_iv > 1) {
		gaps = malloc(t->nr_iv * sizeof(*gaps));
		if (!gaps)
			return -ENOMEM;
	}
	for (k = 0; k < t->nr_iv; k++) {
		const struct tl_iv *iv = tl_iv_at(t, k);

		if (mon_states[iv->state].on_cpu)
			out->busy_ns += tl_iv_end(tl, t, k) - iv->start;
		if (!k || !asleep(tl_iv_at(t, k - 1)->state) ||
		    (iv->state != TL_RUNQ && !mon_states[iv->state].on_cpu))
			continue;
		if (out->activations++)
			gaps[ng++] = iv->start - last;
		last = iv->start;
	}
	if (ng >= 2)
		out->period_ns = an_median(gaps, ng, &out->regular);
	free(gaps);
	return 0;
}

/* A handler's activations: its entries, gaps taken per CPU. */
static int irq_period(const struct noise *n, int64_t owner,
		      struct noise_period *out)
{
	uint64_t *gaps = NULL;
	size_t ng = 0, cap = 0;
	unsigned int c;

	memset(out, 0, sizeof(*out));
	for (c = 0; c < n->nr_cpus; c++) {
		const struct an_cpu *ac = &n->cpus[c];
		uint64_t last = 0;
		bool seen = false;
		size_t k;

		for (k = 0; k < ac->nr_irq; k++) {
			const struct tl_irq *r = &n->tl->irqs[ac->irq[k]];

			if (an_irq_owner(r->kind, r->number) != owner)
				continue;
			out->activations++;
			out->busy_ns += r->end_ns - r->start_ns;
			if (seen) {
				if (ng == cap) {
					uint64_t *g;

					cap = cap ? cap * 2 : 256;
					g = realloc(gaps, cap * sizeof(*g));
					if (!g) {
						free(gaps);
						return -ENOMEM;
					}
					gaps = g;
				}
				gaps[ng++] = r->start_ns - last;
			}
			seen = true;
			last = r->start_ns;
		}
	}
	if (ng >= 2)
		out->period_ns = an_median(gaps, ng, &out->regular);
	free(gaps);
	return 0;
}

int noise_source_period(struct noise *n, unsigned int kind, uint32_t number,
			int64_t thread, struct noise_period *out)
{
	if (!n || !out || kind > NOISE_IRQ_VECTOR)
		return -EINVAL;
	if (kind == NOISE_THREAD) {
		if (thread < 0 || (size_t)thread >= n->tl->nr_th)
			return -ENOENT;
		return thread_period(n, (size_t)thread, out);
	}
	return irq_period(n, an_irq_owner(kind - 1, number), out);
}

const char *noise_kind_name(unsigned int kind)
{
	static const char *const names[] = {
		[NOISE_THREAD] = "thread",
		[NOISE_IRQ_HARD] = "irq",
		[NOISE_IRQ_SOFT] = "softirq",
		[NOISE_IRQ_VECTOR] = "vector",
	};

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

static int source_cmp(const void *a, const void *b)
{
	const struct noise_source *x = a, *y = b;

	if (x->taken_ns != y->taken_ns)
		return x->taken_ns > y->taken_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

int noise_thread(struct noise *n, size_t th, uint64_t t0, uint64_t t1,
		 struct noise_result *out)
{
	const struct tl_th *t;
	struct acc acc = { 0 };
	size_t k, i;
	int64_t first;
	int err = 0;

	if (!n || !out || t1 < t0)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (th >= n->tl->nr_th)
		return -ENOENT;
	t = &n->tl->th[th];
	out->thread = th;
	if (!t->nr_iv)
		return 0;
	if (t0 < t->first)
		t0 = t->first;
	if (t1 > tl_iv_end(n->tl, t, t->nr_iv - 1))
		t1 = tl_iv_end(n->tl, t, t->nr_iv - 1);
	out->t0 = t0;
	out->t1 = t1 > t0 ? t1 : t0;
	first = tl_interval_at(n->tl, th, t0);
	for (k = first < 0 ? 0 : (size_t)first; k < t->nr_iv; k++) {
		const struct tl_iv *iv = tl_iv_at(t, k);
		uint64_t a = iv->start > t0 ? iv->start : t0;
		uint64_t b = tl_iv_end(n->tl, t, k);

		if (a >= t1)
			break;
		if (b > t1)
			b = t1;
		if (b <= a)
			continue;
		if (iv->state == TL_RUNQ || iv->state == TL_INTERRUPTED)
			err = charge_span(n, &acc, iv->cpu, th, a, b,
					  &out->unknown_ns);
		else if (mon_states[iv->state].on_cpu)
			out->run_ns += b - a;
		if (err)
			goto fail;
	}
	for (i = 0; i < acc.n; i++) {
		struct noise_source *s = &acc.v[i];
		int64_t owner = acc.e[i].owner;

		s->kind = (uint8_t)an_owner_kind(owner);
		s->number = an_owner_number(owner);
		s->thread = owner >= 0 ? owner : -1;
		an_owner_name(n, owner, s->name, sizeof(s->name));
		out->taken_ns += s->taken_ns;
		err = owner >= 0 ? thread_period(n, (size_t)owner, &s->period) :
				   irq_period(n, owner, &s->period);
		if (err)
			goto fail;
	}
	if (acc.n > 1) /* none: no array, which qsort() wants */
		qsort(acc.v, acc.n, sizeof(*acc.v), source_cmp);
	out->sources = acc.v;
	out->nr_sources = acc.n;
	free(acc.e);
	return 0;
fail:
	free(acc.v);
	free(acc.e);
	memset(out, 0, sizeof(*out));
	return err;
}

void noise_result_free(struct noise_result *r)
{
	if (!r)
		return;
	free(r->sources);
	r->sources = NULL;
	r->nr_sources = 0;
}
