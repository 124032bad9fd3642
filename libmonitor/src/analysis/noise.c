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
	/* With nr_th set, threads' entries by thread index (1 + entry, 0:
	 * none), allocated at the first charge: a row of a system-wide
	 * table meets hundreds of intruders. */
	uint32_t *slot;
	size_t nr_th;
};

static int acc_charge(struct acc *a, int64_t owner, uint64_t burst, uint64_t ns)
{
	struct noise_source *s;
	struct acc_entry *e;
	size_t i = (size_t)-1;

	if (a->nr_th && owner >= 0 && (size_t)owner < a->nr_th) {
		if (!a->slot) {
			a->slot = calloc(a->nr_th, sizeof(*a->slot));
			if (!a->slot)
				return -ENOMEM;
		}
		if (a->slot[owner])
			i = a->slot[owner] - 1;
	} else {
		/* Few handlers: a linear search, most recent first. */
		for (i = a->n; i-- > 0;)
			if (a->e[i].owner == owner)
				break;
	}
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
		if (a->slot && owner >= 0 && (size_t)owner < a->nr_th)
			a->slot[owner] = (uint32_t)(i + 1);
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

struct span {
	struct acc *acc;
	size_t self;
	uint64_t *unknown;
};

static int span_piece(void *arg, const struct an_seg *g, uint64_t from,
		      uint64_t to)
{
	struct span *sp = arg;

	if (g->owner == (int64_t)sp->self) {
		*sp->unknown += to - from; /* its own time: a contradiction */
		return 0;
	}
	return acc_charge(sp->acc, g->owner, g->burst, to - from);
}

/*
 * Charges what owned CPU cpu in [a, b) to its owners, but for thread self;
 * time nobody is known to have owned is unknown.
 */
static int charge_span(struct noise *n, struct acc *acc, unsigned int cpu,
		       size_t self, uint64_t a, uint64_t b, uint64_t *unknown)
{
	struct span sp = { acc, self, unknown };

	return an_walk(n, cpu, a, b, AN_SEARCH, span_piece, &sp, unknown, NULL);
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
		if (!k || !an_asleep(tl_iv_at(t, k - 1)->state) ||
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
	acc.nr_th = n->tl->nr_th;
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
	free(acc.slot);
	return 0;
fail:
	free(acc.v);
	free(acc.e);
	free(acc.slot);
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

/*
 * osnoise's columns (mon_analysis.h): each thread's intervals walked once;
 * run time goes to its rows as it comes, and each noise, once it ends,
 * to its rows' samples, periods and histograms. A row keeps its periods'
 * run time and noise as (period, runtime, noise) triples in the order they
 * come; a per-CPU row of several threads gets them out of order, so they
 * are sorted and merged at the end.
 */
struct os_period {
	uint64_t p, runtime, noise;
};

struct os_row {
	struct osnoise_row r;
	struct os_period *per;
	size_t nr_per, cap_per;
	struct acc acc;
};

/* A noise being walked: where it began and what has been seen in it. */
struct os_sample {
	bool open;
	int cpu;
	uint64_t start, end;
	uint64_t last_burst; /* the last thread dispatch counted in it */
	uint64_t threads; /* thread dispatches counted in it */
	uint64_t unknown_runq; /* preempted time with no owner known */
};

struct os_walk {
	struct noise *n;
	const struct osnoise_opts *o;
	struct os_row *rows;
	size_t nr_rows, cap_rows;
	ssize_t *cpu_row; /* per CPU: the current table's row, or -1 */
	size_t *seg_hint; /* per CPU: where the thread's last noise ended */
	ssize_t all_row; /* the thread's all-CPU row, or -1 */
	struct os_sample cs, as; /* the CPU row's noise, the all row's */
};

const char *noise_osnoise_kind_name(unsigned int kind)
{
	static const char *const names[] = {
		[OSNOISE_HW] = "HW",	     [OSNOISE_NMI] = "NMI",
		[OSNOISE_IRQ] = "IRQ",	     [OSNOISE_SOFTIRQ] = "softirq",
		[OSNOISE_THREAD] = "thread",
	};

	return kind < OSNOISE_NR_KINDS ? names[kind] : "?";
}

static ssize_t os_new_row(struct os_walk *w, int64_t thread, int cpu)
{
	struct os_row *r;

	if (w->nr_rows == w->cap_rows) {
		size_t cap = w->cap_rows ? w->cap_rows * 2 : 16;

		r = realloc(w->rows, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		w->rows = r;
		w->cap_rows = cap;
	}
	r = &w->rows[w->nr_rows];
	memset(r, 0, sizeof(*r));
	r->r.thread = thread;
	r->r.cpu = cpu;
	r->acc.nr_th = w->n->tl->nr_th;
	r->r.hist = calloc(w->o->entries + 1, sizeof(*r->r.hist));
	if (!r->r.hist)
		return -ENOMEM;
	return (ssize_t)w->nr_rows++;
}

static int os_period_add(struct os_row *r, uint64_t p, uint64_t runtime,
			 uint64_t noise)
{
	struct os_period *e;

	if (r->nr_per && r->per[r->nr_per - 1].p == p) {
		e = &r->per[r->nr_per - 1];
	} else {
		if (r->nr_per == r->cap_per) {
			size_t cap = r->cap_per ? r->cap_per * 2 : 16;

			e = realloc(r->per, cap * sizeof(*e));
			if (!e)
				return -ENOMEM;
			r->per = e;
			r->cap_per = cap;
		}
		e = &r->per[r->nr_per++];
		*e = (struct os_period){ .p = p };
	}
	e->runtime += runtime;
	e->noise += noise;
	return 0;
}

/* Adds [a, b) to row @r's periods, as run time or as noise. */
static int os_spread(const struct osnoise_opts *o, struct os_row *r, uint64_t a,
		     uint64_t b, bool noise)
{
	while (a < b) {
		uint64_t p = 0, end = b;

		if (o->period_ns) {
			p = a > o->origin_ns ?
				    (a - o->origin_ns) / o->period_ns :
				    0;
			end = o->origin_ns + (p + 1) * o->period_ns;
			if (end > b || end <= a)
				end = b;
		}
		if (os_period_add(r, p, noise ? 0 : end - a,
				  noise ? end - a : 0))
			return -ENOMEM;
		a = end;
	}
	return 0;
}

static int os_runtime(struct os_walk *w, ssize_t row, uint64_t a, uint64_t b)
{
	if (row < 0)
		return 0;
	w->rows[row].r.runtime_ns += b - a;
	return os_spread(w->o, &w->rows[row], a, b, false);
}

/* The noise @s has ended: a sample of row @row if long enough. */
static int os_close(struct os_walk *w, struct os_sample *s, ssize_t row)
{
	struct osnoise_row *r;
	uint64_t len = s->end - s->start, k;

	if (!s->open || row < 0)
		goto out;
	r = &w->rows[row].r;
	if (s->unknown_runq && !s->threads)
		r->count[OSNOISE_THREAD]++; /* someone the trace lacks ran */
	if (len && len >= w->o->threshold_ns) {
		r->samples++;
		r->noise_ns += len;
		if (len > r->max_single_ns)
			r->max_single_ns = len;
		if (!r->min_single_ns || len < r->min_single_ns)
			r->min_single_ns = len;
		k = len / w->o->bucket_ns;
		r->hist[k < w->o->entries ? k : w->o->entries]++;
		if (os_spread(w->o, &w->rows[row], s->start, s->end, true))
			return -ENOMEM;
	}
out:
	memset(s, 0, sizeof(*s));
	return 0;
}

static unsigned int os_kind_of(int64_t owner)
{
	switch (an_owner_kind(owner)) {
	case NOISE_THREAD:
		return OSNOISE_THREAD;
	case NOISE_IRQ_SOFT:
		return OSNOISE_SOFTIRQ;
	default:
		return OSNOISE_IRQ;
	}
}

struct os_piece {
	struct os_walk *w;
	ssize_t row;
	struct os_sample *s;
};

/* One owner's part of a noise, an_walk()'s piece: by net time, and a
 * thread's dispatch counted once. */
static int os_piece(void *arg, const struct an_seg *g, uint64_t x, uint64_t y)
{
	struct os_piece *op = arg;
	struct osnoise_row *r = &op->w->rows[op->row].r;
	unsigned int kind = os_kind_of(g->owner);

	r->net_ns[kind] += y - x;
	if (acc_charge(&op->w->rows[op->row].acc, g->owner, g->burst, y - x))
		return -ENOMEM;
	if (kind == OSNOISE_THREAD && g->burst != op->s->last_burst) {
		op->s->last_burst = g->burst;
		op->s->threads++;
		r->count[OSNOISE_THREAD]++;
	}
	return 0;
}

/*
 * Noise [a, b) on @cpu for row @row (whose noise is @s): the CPU's owners
 * charged by net time, the handlers begun in it and the threads
 * dispatched there counted.
 */
static int os_noise(struct os_walk *w, ssize_t row, struct os_sample *s,
		    unsigned int cpu, uint64_t a, uint64_t b, bool runq)
{
	struct os_piece op = { w, row, s };
	struct osnoise_row *r;
	const struct an_cpu *c;
	uint64_t unknown = 0;
	size_t k, lo;
	int err;

	if (row < 0)
		return 0;
	r = &w->rows[row].r;
	if (!s->open) {
		s->open = true;
		s->cpu = (int)cpu;
		s->start = a;
	}
	s->end = b;
	r->runtime_ns += b - a;
	if (os_spread(w->o, &w->rows[row], a, b, false))
		return -ENOMEM;
	if (cpu >= w->n->nr_cpus) {
		r->unknown_ns += b - a;
		if (runq)
			s->unknown_runq += b - a;
		return 0;
	}
	c = &w->n->cpus[cpu];
	/* A thread's noises on a CPU come in time order: on from the last
	 * one's segment when it is near, else a binary search. */
	k = w->seg_hint[cpu];
	if (k > c->nr_seg || (k && c->seg[k - 1].end > a))
		k = an_seg_after(c, a);
	for (lo = 0; k < c->nr_seg && c->seg[k].end <= a; k++)
		if (++lo == 8) {
			k = an_seg_after(c, a);
			break;
		}
	err = an_walk(w->n, cpu, a, b, k, os_piece, &op, &unknown, &k);
	if (err)
		return err;
	r->unknown_ns += unknown;
	if (runq)
		s->unknown_runq += unknown;
	w->seg_hint[cpu] = k && c->seg[k - 1].end > b ? k - 1 : k;
	/* Handler runs begun in [a, b): the CPU's runs are by start. */
	for (k = an_irq_after(w->n, c, a); k < c->nr_irq; k++) {
		const struct tl_irq *q = &w->n->tl->irqs[c->irq[k]];

		if (q->start_ns >= b)
			break;
		r->count[q->kind == TL_IRQ_SOFT ? OSNOISE_SOFTIRQ :
						  OSNOISE_IRQ]++;
	}
	return 0;
}

static ssize_t os_cpu_row(struct os_walk *w, size_t th, unsigned int cpu)
{
	ssize_t r;

	if (cpu >= w->n->nr_cpus + 1)
		cpu = w->n->nr_cpus; /* out of the index: one row for all */
	if (w->cpu_row[cpu] >= 0)
		return w->cpu_row[cpu];
	r = os_new_row(w, w->o->per_cpu ? -1 : (int64_t)th, (int)cpu);
	if (r >= 0)
		w->cpu_row[cpu] = r;
	return r;
}

/* One thread's intervals, into its rows (or the CPUs' rows). */
static int os_thread(struct os_walk *w, size_t th)
{
	const struct tl *tl = w->n->tl;
	const struct tl_th *t = &tl->th[th];
	bool in_run = false; /* inside run time: had its CPU, wants it */
	unsigned int cpu;
	size_t k;
	int err = 0;

	for (k = 0; k < t->nr_iv && !err; k++) {
		const struct tl_iv *iv = tl_iv_at(t, k);
		uint64_t a = iv->start, b = tl_iv_end(tl, t, k);
		bool on = mon_states[iv->state].on_cpu;
		bool noise = iv->state == TL_INTERRUPTED ||
			     (iv->state == TL_RUNQ && in_run);
		ssize_t cr;

		if (!on && !noise) {
			/* A wakeup's wait, a sleep, UNKNOWN: no run time. */
			in_run = false;
			err = os_close(w, &w->cs,
				       w->cs.open ? w->cpu_row[w->cs.cpu] : -1);
			if (!err)
				err = os_close(w, &w->as, w->all_row);
			continue;
		}
		in_run = true;
		if (b <= a)
			continue;
		/* A CPU past the index's has one row (os_cpu_row()). */
		cpu = iv->cpu < w->n->nr_cpus ? iv->cpu : w->n->nr_cpus;
		cr = os_cpu_row(w, th, cpu);
		if (cr < 0)
			return (int)cr;
		/* A noise on another CPU than the one before is another. */
		if (w->cs.open && (!noise || w->cs.cpu != (int)cpu))
			err = os_close(w, &w->cs, w->cpu_row[w->cs.cpu]);
		if (!err && !noise)
			err = os_close(w, &w->as, w->all_row);
		if (err)
			break;
		if (!noise) {
			err = os_runtime(w, cr, a, b);
			if (!err)
				err = os_runtime(w, w->all_row, a, b);
			continue;
		}
		err = os_noise(w, cr, &w->cs, cpu, a, b, iv->state == TL_RUNQ);
		if (!err)
			err = os_noise(w, w->all_row, &w->as, cpu, a, b,
				       iv->state == TL_RUNQ);
	}
	/* A noise still going at the end of the timeline ends there. */
	if (!err && w->cs.open)
		err = os_close(w, &w->cs, w->cpu_row[w->cs.cpu]);
	if (!err)
		err = os_close(w, &w->as, w->all_row);
	return err;
}

static int period_cmp(const void *a, const void *b)
{
	const struct os_period *x = a, *y = b;

	return x->p < y->p ? -1 : x->p > y->p;
}

/* A row's periods merged, its sources named and sorted. */
static int os_finish(struct noise *n, struct os_row *row)
{
	struct osnoise_row *r = &row->r;
	size_t i, j;

	if (row->nr_per > 1)
		qsort(row->per, row->nr_per, sizeof(*row->per), period_cmp);
	for (i = 0; i < row->nr_per; i = j) {
		uint64_t rt = 0, no = 0;

		for (j = i; j < row->nr_per && row->per[j].p == row->per[i].p;
		     j++) {
			rt += row->per[j].runtime;
			no += row->per[j].noise;
		}
		r->periods += rt > 0;
		if (no > r->max_period_noise_ns)
			r->max_period_noise_ns = no;
	}
	for (i = 0; i < row->acc.n; i++) {
		struct noise_source *s = &row->acc.v[i];
		int64_t owner = row->acc.e[i].owner;

		s->kind = (uint8_t)an_owner_kind(owner);
		s->number = an_owner_number(owner);
		s->thread = owner >= 0 ? owner : -1;
		an_owner_name(n, owner, s->name, sizeof(s->name));
	}
	if (row->acc.n > 1)
		qsort(row->acc.v, row->acc.n, sizeof(*row->acc.v), source_cmp);
	r->sources = row->acc.v;
	r->nr_sources = row->acc.n;
	row->acc.v = NULL;
	free(row->acc.e);
	row->acc.e = NULL;
	free(row->acc.slot);
	row->acc.slot = NULL;
	free(row->per);
	row->per = NULL;
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct os_row *x = a, *y = b;

	/* Within a thread (or the CPU table): by CPU, the all row last. */
	if (x->r.thread != y->r.thread)
		return 0;
	if (x->r.cpu == y->r.cpu)
		return 0;
	if (x->r.cpu < 0 || y->r.cpu < 0)
		return x->r.cpu < 0 ? 1 : -1;
	return x->r.cpu < y->r.cpu ? -1 : 1;
}

int noise_osnoise(struct noise *n, const size_t *th, size_t nr,
		  const struct osnoise_opts *opts, struct osnoise_report *out)
{
	struct osnoise_opts o = { 0 };
	struct os_walk w = { 0 };
	size_t i, first = 0;
	unsigned int c;
	int err = 0;

	if (!n || !out || (nr && !th))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (i = 0; i < nr; i++)
		if (th[i] >= n->tl->nr_th)
			return -ENOENT;
	if (opts)
		o = *opts;
	if (!o.bucket_ns)
		o.bucket_ns = OSNOISE_HIST_BUCKET_NS;
	if (!o.entries)
		o.entries = OSNOISE_HIST_ENTRIES;
	w.n = n;
	w.o = &o;
	w.all_row = -1;
	w.cpu_row = malloc((n->nr_cpus + 1) * sizeof(*w.cpu_row));
	w.seg_hint = malloc((n->nr_cpus + 1) * sizeof(*w.seg_hint));
	if (!w.cpu_row || !w.seg_hint) {
		free(w.cpu_row);
		free(w.seg_hint);
		return -ENOMEM;
	}
	for (c = 0; c <= n->nr_cpus; c++)
		w.cpu_row[c] = -1;
	for (i = 0; i < nr && !err; i++) {
		for (c = 0; c <= n->nr_cpus; c++)
			w.seg_hint[c] = 0;
		if (!o.per_cpu) {
			first = w.nr_rows;
			for (c = 0; c <= n->nr_cpus; c++)
				w.cpu_row[c] = -1;
			w.all_row = os_new_row(&w, (int64_t)th[i], -1);
			if (w.all_row < 0) {
				err = (int)w.all_row;
				break;
			}
		}
		err = os_thread(&w, th[i]);
		/* Its rows by CPU, the all-CPU row last. */
		if (!err && !o.per_cpu && w.nr_rows - first > 1)
			qsort(w.rows + first, w.nr_rows - first,
			      sizeof(*w.rows), row_cmp);
	}
	if (!err && o.per_cpu && w.nr_rows > 1)
		qsort(w.rows, w.nr_rows, sizeof(*w.rows), row_cmp);
	for (i = 0; i < w.nr_rows && !err; i++)
		err = os_finish(n, &w.rows[i]);
	free(w.cpu_row);
	free(w.seg_hint);
	out->bucket_ns = o.bucket_ns;
	out->entries = o.entries;
	out->nr_rows = w.nr_rows;
	out->rows = calloc(w.nr_rows + 1, sizeof(*out->rows));
	if (!out->rows && !err)
		err = -ENOMEM;
	for (i = 0; i < w.nr_rows; i++) {
		if (out->rows)
			out->rows[i] = w.rows[i].r;
		else {
			free(w.rows[i].r.hist);
			free(w.rows[i].r.sources);
		}
		free(w.rows[i].per);
		free(w.rows[i].acc.v);
		free(w.rows[i].acc.e);
		free(w.rows[i].acc.slot);
	}
	free(w.rows);
	if (err) {
		noise_osnoise_free(out);
		return err;
	}
	return 0;
}

void noise_osnoise_free(struct osnoise_report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; r->rows && i < r->nr_rows; i++) {
		free(r->rows[i].hist);
		free(r->rows[i].sources);
	}
	free(r->rows);
	memset(r, 0, sizeof(*r));
}
