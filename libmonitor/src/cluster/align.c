// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * align.c - a node's clock on the reference's: piecewise linear between
 * clock exchanges, never across a step (mon_cluster.h, docs/cluster.md).
 *
 * The exchanges are cut into epochs at each step; within an epoch the
 * offset (reference - node) is interpolated between consecutive samples
 * and extrapolated beyond its first and last with the nearest segment's
 * slope. An epoch of one sample borrows its drift from a neighbour: a
 * step moves a clock, not its oscillator's rate.
 *
 * Which side of a step a record is on comes from its CPU's records, which
 * a trace keeps in true order: each step is located per CPU
 * (align_observe) as a seq number, the last one before it; a CPU's
 * records are then mapped in order, each CPU moving from epoch to epoch
 * as it passes its split. Offsets are integers; only the slopes (tiny
 * numbers times short spans) are floating point, so a ns is a ns even on
 * clocks that count days.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_DRIFT (MON_ALIGN_MAX_DRIFT_PPB * 1e-9)

struct epoch {
	size_t first, last; /* samples, inclusive */
	double slope, unc; /* borrowed by a one-sample epoch */
};

/* Where a step falls on one CPU. */
struct split {
	bool located;
	uint32_t seq_old; /* the CPU's last record before the step */
	uint64_t t_old, t_new; /* its time, and the next record's */
	uint64_t score;
};

struct step {
	size_t k; /* the last sample before it */
	int64_t jump; /* the node clock's jump: + forward */
	uint64_t tol; /* the jump's uncertainty */
	int64_t lo, hi; /* the step's instant, on the old epoch's clock */
	struct split *split; /* per CPU */
};

struct cpu_state {
	bool has_prev, has_last;
	uint64_t prev_t, last;
	uint32_t prev_seq;
	size_t epoch;
};

struct mon_align {
	struct trace_clock_sample *s;
	size_t n;
	struct epoch *ep;
	size_t nr_ep;
	struct step *st; /* nr_ep - 1 of them */
	struct cpu_state *cpu;
	size_t cap; /* CPUs in cpu[] and each split[] */
	bool settled, identity;
	uint64_t ambiguous;
};

static double seg_slope(const struct mon_align *a, size_t i)
{
	const struct trace_clock_sample *x = &a->s[i], *y = &a->s[i + 1];

	return (double)(y->offset_ns - x->offset_ns) /
	       (double)(y->local_ns - x->local_ns);
}

/* How wrong segment i's slope may be: both ends' bounds over its span. */
static double seg_unc(const struct mon_align *a, size_t i)
{
	const struct trace_clock_sample *x = &a->s[i], *y = &a->s[i + 1];

	return (double)(x->error_ns + y->error_ns) /
	       (double)(y->local_ns - x->local_ns);
}

static bool is_step(const struct trace_clock_sample *x,
		    const struct trace_clock_sample *y)
{
	double span, moved;

	if (y->flags & TRACE_CLOCK_STEPPED || y->local_ns <= x->local_ns)
		return true;
	span = (double)(y->local_ns - x->local_ns);
	moved = fabs((double)(y->offset_ns - x->offset_ns));
	return moved >
	       MAX_DRIFT * span + (double)x->error_ns + (double)y->error_ns;
}

static int64_t add_slope(int64_t base, double slope, int64_t dt)
{
	return base + (int64_t)llround(slope * (double)dt);
}

/* Epoch e's offset at node time t, and its bound. */
static int64_t epoch_offset(const struct mon_align *a, size_t e, uint64_t t,
			    uint64_t *err)
{
	const struct epoch *ep = &a->ep[e];
	const struct trace_clock_sample *f = &a->s[ep->first],
					*l = &a->s[ep->last];
	size_t lo, hi;
	double frac;

	if (ep->first == ep->last || t <= f->local_ns || t >= l->local_ns) {
		/* Extrapolated from the nearest sample, along the nearest
		 * segment (or the borrowed slope). */
		const struct trace_clock_sample *x = t <= f->local_ns ? f : l;
		size_t seg = t <= f->local_ns ? ep->first : ep->last - 1;
		double slope = ep->slope, unc = ep->unc;
		int64_t dt = (int64_t)(t - x->local_ns);

		if (ep->first != ep->last) {
			slope = seg_slope(a, seg);
			unc = seg_unc(a, seg);
		}
		if (err)
			*err = x->error_ns +
			       (uint64_t)ceil(unc * fabs((double)dt));
		return add_slope(x->offset_ns, slope, dt);
	}
	lo = ep->first;
	hi = ep->last; /* local_ns[lo] < t < local_ns[hi] */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->s[mid].local_ns <= t)
			lo = mid;
		else
			hi = mid;
	}
	frac = (double)(t - a->s[lo].local_ns) /
	       (double)(a->s[hi].local_ns - a->s[lo].local_ns);
	if (err)
		*err = (uint64_t)ceil((1 - frac) * (double)a->s[lo].error_ns +
				      frac * (double)a->s[hi].error_ns);
	return add_slope(a->s[lo].offset_ns, seg_slope(a, lo),
			 (int64_t)(t - a->s[lo].local_ns));
}

static uint64_t to_ref(uint64_t t, int64_t off)
{
	int64_t r = (int64_t)t + off;

	return r < 0 ? 0 : (uint64_t)r;
}

uint64_t mon_align_time(const struct mon_align *a, uint64_t t, size_t epoch,
			uint64_t *err)
{
	if (err)
		*err = 0;
	if (!a || a->identity)
		return t;
	if (epoch >= a->nr_ep)
		epoch = a->nr_ep - 1;
	return to_ref(t, epoch_offset(a, epoch, t, err));
}

/* A one-sample epoch's drift: its neighbours' nearest segment, else none
 * known (and the worst drift as its uncertainty). */
static void borrow_slopes(struct mon_align *a)
{
	size_t e;

	for (e = 0; e < a->nr_ep; e++) {
		struct epoch *ep = &a->ep[e];

		ep->slope = 0;
		ep->unc = MAX_DRIFT;
		if (ep->first != ep->last)
			continue;
		if (e > 0 && a->ep[e - 1].first != a->ep[e - 1].last) {
			ep->slope = seg_slope(a, a->ep[e - 1].last - 1);
			ep->unc = seg_unc(a, a->ep[e - 1].last - 1);
		} else if (e + 1 < a->nr_ep &&
			   a->ep[e + 1].first != a->ep[e + 1].last) {
			ep->slope = seg_slope(a, a->ep[e + 1].first);
			ep->unc = seg_unc(a, a->ep[e + 1].first);
		}
	}
}

static void init_steps(struct mon_align *a)
{
	size_t j;

	for (j = 0; j + 1 < a->nr_ep; j++) {
		struct step *st = &a->st[j];
		const struct trace_clock_sample *x = &a->s[a->ep[j].last],
						*y = &a->s[a->ep[j + 1].first];
		uint64_t e_new;
		int64_t o_new = epoch_offset(a, j + 1, x->local_ns, &e_new);

		st->k = a->ep[j].last;
		st->jump = x->offset_ns - o_new;
		st->tol = x->error_ns + e_new;
		st->lo = (int64_t)x->local_ns;
		st->hi = (int64_t)y->local_ns - st->jump;
		if (st->hi < st->lo)
			st->hi = st->lo;
	}
}

int mon_align_new(struct mon_align **ap, const struct trace_clock_sample *s,
		  size_t n)
{
	struct mon_align *a;
	size_t i, e;

	if (!ap || !s || !n)
		return -EINVAL;
	*ap = NULL;
	for (i = 0; i < n; i++)
		if (!s[i].error_ns && (s[i].offset_ns || s[i].rtt_ns))
			return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->s = malloc(n * sizeof(*s));
	a->ep = calloc(n, sizeof(*a->ep));
	a->st = calloc(n, sizeof(*a->st));
	if (!a->s || !a->ep || !a->st) {
		mon_align_destroy(a);
		return -ENOMEM;
	}
	memcpy(a->s, s, n * sizeof(*s));
	a->n = n;
	e = 0;
	a->ep[0].first = 0;
	for (i = 1; i < n; i++)
		if (is_step(&a->s[i - 1], &a->s[i])) {
			a->ep[e++].last = i - 1;
			a->ep[e].first = i;
		}
	a->ep[e].last = n - 1;
	a->nr_ep = e + 1;
	borrow_slopes(a);
	init_steps(a);
	a->settled = a->nr_ep == 1;
	*ap = a;
	return 0;
}

int mon_align_identity(struct mon_align **ap)
{
	static const struct trace_clock_sample zero = { .error_ns = 0 };
	int ret = mon_align_new(ap, &zero, 1);

	if (!ret)
		(*ap)->identity = true;
	return ret;
}

size_t mon_align_steps(const struct mon_align *a)
{
	return a ? a->nr_ep - 1 : 0;
}

/* Room for CPU @cpu in the per-CPU arrays. */
static int grow(struct mon_align *a, size_t cpu)
{
	size_t cap = a->cap ? a->cap : 8, j;
	struct cpu_state *c;

	if (cpu < a->cap)
		return 0;
	while (cap <= cpu)
		cap *= 2;
	c = realloc(a->cpu, cap * sizeof(*c));
	if (!c)
		return -ENOMEM;
	memset(c + a->cap, 0, (cap - a->cap) * sizeof(*c));
	a->cpu = c;
	for (j = 0; j + 1 < a->nr_ep; j++) {
		struct split *sp = realloc(a->st[j].split, cap * sizeof(*sp));

		if (!sp)
			return -ENOMEM;
		memset(sp + a->cap, 0, (cap - a->cap) * sizeof(*sp));
		a->st[j].split = sp;
	}
	a->cap = cap;
	return 0;
}

/*
 * Could (p, t) on one CPU be the last record before step @st and the
 * first after it? A forward step leaves a gap of at least its size; a
 * backward one makes time go back. Return the pair's score (0: no).
 */
static uint64_t candidate(const struct step *st, uint64_t p, uint64_t t)
{
	int64_t tol = (int64_t)st->tol, ip = (int64_t)p, it = (int64_t)t;

	/* p is before the step's instant T <= hi, t after it on the new
	 * clock, which reads T + jump >= lo + jump there. */
	if (ip > st->hi + tol || it + tol < st->lo + st->jump)
		return 0;
	if (st->jump > 0)
		return it - ip + tol >= st->jump ? (uint64_t)(it - ip) + 1 : 0;
	return it < ip ? (uint64_t)(ip - it) : 0;
}

int mon_align_observe(struct mon_align *a, const struct mkm_event *ev, size_t n)
{
	size_t i, j;

	if (!a || (n && !ev))
		return -EINVAL;
	for (i = 0; i < n && a->nr_ep > 1; i++) {
		struct cpu_state *c;

		if (!ev[i].time_ns)
			continue;
		if (grow(a, ev[i].cpu))
			return -ENOMEM;
		c = &a->cpu[ev[i].cpu];
		for (j = 0; c->has_prev && j + 1 < a->nr_ep; j++) {
			struct split *sp = &a->st[j].split[ev[i].cpu];
			uint64_t score =
				candidate(&a->st[j], c->prev_t, ev[i].time_ns);

			if (score > sp->score) {
				sp->located = true;
				sp->score = score;
				sp->seq_old = c->prev_seq;
				sp->t_old = c->prev_t;
				sp->t_new = ev[i].time_ns;
			}
		}
		c->has_prev = true;
		c->prev_t = ev[i].time_ns;
		c->prev_seq = ev[i].seq;
	}
	return 0;
}

/* Every CPU that located a step narrows its instant for the others. */
static void settle(struct mon_align *a)
{
	size_t j, c;

	for (j = 0; j + 1 < a->nr_ep; j++) {
		struct step *st = &a->st[j];

		for (c = 0; c < a->cap; c++) {
			const struct split *sp = &st->split[c];

			if (!sp->located)
				continue;
			if ((int64_t)sp->t_old > st->lo)
				st->lo = (int64_t)sp->t_old;
			if ((int64_t)sp->t_new - st->jump < st->hi)
				st->hi = (int64_t)sp->t_new - st->jump;
		}
	}
	for (c = 0; c < a->cap; c++)
		a->cpu[c].has_prev = false;
	a->settled = true;
}

/* Is @ev, on a CPU in the epoch before step @st, after the step? */
static bool after_step(struct mon_align *a, const struct step *st,
		       const struct mkm_event *ev)
{
	const struct split *sp =
		ev->cpu < a->cap && st->split ? &st->split[ev->cpu] : NULL;
	int64_t t = (int64_t)ev->time_ns;
	bool can_old, can_new;

	if (sp && sp->located)
		return (int32_t)(ev->seq - sp->seq_old) > 0;
	/* Stamped before the step on the old clock, or after it on the
	 * new one: which it can be, given where the step may be. */
	can_old = t < st->hi;
	can_new = t >= st->lo + st->jump;
	if (can_old != can_new)
		return can_new;
	a->ambiguous++;
	return t >= (st->lo + st->jump + st->hi) / 2;
}

uint64_t mon_align_event(struct mon_align *a, const struct mkm_event *ev,
			 uint64_t *err)
{
	struct cpu_state *c;
	uint64_t r;

	if (err)
		*err = 0;
	if (!a || !ev || !ev->time_ns)
		return ev ? ev->time_ns : 0;
	if (a->identity)
		return ev->time_ns;
	if (a->nr_ep == 1 || grow(a, ev->cpu))
		return mon_align_time(a, ev->time_ns, 0, err);
	if (!a->settled)
		settle(a);
	c = &a->cpu[ev->cpu];
	while (c->epoch + 1 < a->nr_ep && after_step(a, &a->st[c->epoch], ev))
		c->epoch++;
	r = mon_align_time(a, ev->time_ns, c->epoch, err);
	if (c->has_last && r < c->last) {
		r = c->last;
		a->ambiguous++;
	}
	c->has_last = true;
	c->last = r;
	return r;
}

uint64_t mon_align_horizon(const struct mon_align *a, uint64_t h)
{
	uint64_t best = UINT64_MAX;
	size_t e;

	if (!a || a->identity || !h)
		return h;
	for (e = 0; e < a->nr_ep; e++) {
		uint64_t r = mon_align_time(a, h, e, NULL);

		if (r < best)
			best = r;
	}
	return best;
}

int mon_align_summarize(const struct mon_align *a, uint64_t first,
			uint64_t last, struct mon_align_summary *out)
{
	double moved = 0, span = 0;
	uint64_t err;
	size_t e, i;

	if (!a || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (a->identity)
		return 0;
	out->samples = a->n;
	out->steps = a->nr_ep - 1;
	out->ambiguous = a->ambiguous;
	out->offset_ns = epoch_offset(a, 0, first, &err);
	out->max_error_ns = err;
	epoch_offset(a, a->nr_ep - 1, last, &err);
	if (err > out->max_error_ns)
		out->max_error_ns = err;
	for (i = 0; i < a->n; i++)
		if (a->s[i].error_ns > out->max_error_ns)
			out->max_error_ns = a->s[i].error_ns;
	out->no_drift = true;
	for (e = 0; e < a->nr_ep; e++) {
		const struct epoch *ep = &a->ep[e];

		if (ep->first == ep->last)
			continue;
		out->no_drift = false;
		moved += (double)(a->s[ep->last].offset_ns -
				  a->s[ep->first].offset_ns);
		span += (double)(a->s[ep->last].local_ns -
				 a->s[ep->first].local_ns);
	}
	if (span > 0)
		out->drift_ppb = (int64_t)llround(moved / span * 1e9);
	for (e = 0; e + 1 < a->nr_ep; e++)
		if (llabs(a->st[e].jump) > llabs(out->largest_step_ns))
			out->largest_step_ns = a->st[e].jump;
	return 0;
}

/* The epoch sample @k belongs to (@own: @k indexes a->s), else the one
 * whose exchanges time @t follows. */
static size_t check_epoch(const struct mon_align *a, size_t k, bool own,
			  uint64_t t)
{
	size_t e, pick = 0;

	for (e = 0; e < a->nr_ep; e++) {
		if (own && k >= a->ep[e].first && k <= a->ep[e].last)
			return e;
		if (!own && a->s[a->ep[e].first].local_ns <= t)
			pick = e;
	}
	return pick;
}

static void check_message(struct mon_align_check *out, bool *first,
			  int64_t margin)
{
	out->messages++;
	if (margin < 0)
		out->violations++;
	if (*first || margin < out->min_margin_ns)
		out->min_margin_ns = margin;
	*first = false;
}

int mon_align_check(const struct mon_align *a,
		    const struct trace_clock_sample *s, size_t n,
		    struct mon_align_check *out)
{
	bool first = true, own;
	size_t k;

	if (!a || !out || (n && !s))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	own = n == a->n;
	for (k = 0; k < n; k++) {
		const struct trace_clock_sample *x = &s[k];
		uint64_t half = x->rtt_ns / 2, t1, t4, sent, received;
		int64_t t23;
		size_t e;

		if (!x->error_ns)
			continue; /* the reference's own: nothing was sent */
		if (x->local_ns < half) {
			/* A round trip longer than the clock's age (a damaged
			 * trace): neither message can have been sent. */
			check_message(out, &first, -(int64_t)half);
			check_message(out, &first, -(int64_t)half);
			out->exchanges++;
			continue;
		}
		t1 = x->local_ns - half;
		t4 = x->local_ns + (x->rtt_ns - half);
		t23 = (int64_t)x->local_ns + x->offset_ns;
		e = check_epoch(a, k, own, x->local_ns);
		sent = mon_align_time(a, t1, e, NULL);
		received = mon_align_time(a, t4, e, NULL);
		check_message(out, &first, t23 - (int64_t)sent);
		check_message(out, &first, (int64_t)received - t23);
		if (!out->exchanges || x->error_ns < out->min_error_ns)
			out->min_error_ns = x->error_ns;
		if (x->error_ns > out->max_error_ns)
			out->max_error_ns = x->error_ns;
		out->exchanges++;
	}
	return 0;
}

void mon_align_destroy(struct mon_align *a)
{
	size_t j;

	if (!a)
		return;
	for (j = 0; a->st && j < a->n; j++)
		free(a->st[j].split);
	free(a->cpu);
	free(a->st);
	free(a->ep);
	free(a->s);
	free(a);
}
