// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * comp_bounds.c - how far each compensated figure of a thread may be from
 * the truth, gathered while the compensation stage places the records
 * (mon_pipeline.h and docs/compensation.md, "Bounds", say what each part
 * covers and where it stops):
 *  - the calibration: the stage places every record three times, with the
 *    costs' means and with every cost at the low and at the high end of
 *    its 99% interval; a figure's part is how far it moves between them,
 *    the sum over its intervals of the change of their ends;
 *  - scheduling: each decision whose timing the monitor moved is the
 *    monitor's with a chance p, w ns at stake in it; the part is a 99%
 *    bound on the sum of those stakes, taken as independent: the mean
 *    plus 2.576 standard deviations, never more than all of them;
 *  - the split: the kernel ends a wait, and starts a run, at its run-queue
 *    clock's read on entry to __schedule, mkm at the switch tracepoint
 *    after it; each SWITCH_IN records the kernel's wait, so the difference
 *    is measured, switch by switch, where mkm knows when the wait began.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/comp_bounds.h"

#define Z99 2.576 /* the normal's two-sided 99% point, as the calibration */

enum { B_NONE, B_RUN, B_RUNQ, B_SLEEP }; /* a thread's state, by records */

/* A sum of independent stakes: mean, variance, and all of them. */
struct stake {
	double mu, var, all;
};

struct bthread {
	uint32_t tid; /* 0: free slot */
	uint8_t state; /* B_* */
	bool noted; /* a record of it seen */
	bool ready_known; /* ready: when its wait began (raw) */
	uint64_t ready;
	double open[2]; /* low, high: the change at its state's start */
	double first[2], last[2]; /* ... at its first and last record */
	double sum[3][2]; /* the change of RUN, RUNQ, SLEEP */
	struct stake own[3]; /* at stake in RUN, RUNQ, SLEEP */
	struct stake g_first, g_last; /* everyone's, at its first, last */
	uint64_t lost_first, lost_last; /* LOSTs seen then */
	double split_run, split_runq; /* the kernel's figure less mkm's */
	uint64_t split_ends, split_unknown;
	uint32_t flags;
};

struct bcpu {
	uint32_t out_tid; /* the last SWITCH_OUT's thread, its split ... */
	uint64_t out_t; /* ... open until the SWITCH_IN at its instant */
	bool out_open;
	uint32_t next_seq; /* the sequence number its next record should have */
	bool seq_seen;
};

struct comp_bounds {
	struct bthread *th; /* open addressing on tid */
	size_t cap, used;
	struct bcpu *cpus;
	size_t nr_cpus;
	struct stake global; /* every decision so far */
	uint64_t lost; /* losses so far: LOST records, sequence gaps */
	uint32_t flags_all;
};

struct comp_bounds *comp_bounds_new(void)
{
	return calloc(1, sizeof(struct comp_bounds));
}

void comp_bounds_free(struct comp_bounds *b)
{
	if (!b)
		return;
	free(b->th);
	free(b->cpus);
	free(b);
}

static uint32_t hash_tid(uint32_t tid)
{
	return tid * 0x9e3779b1u;
}

static int grow(struct comp_bounds *b)
{
	size_t cap = b->cap ? b->cap * 2 : 256, i;
	struct bthread *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < b->cap; i++) {
		size_t j = hash_tid(b->th[i].tid) & (cap - 1);

		if (!b->th[i].tid)
			continue;
		while (t[j].tid)
			j = (j + 1) & (cap - 1);
		t[j] = b->th[i];
	}
	free(b->th);
	b->th = t;
	b->cap = cap;
	return 0;
}

/* The thread @tid (non-zero), made on first sight; NULL: no memory. */
static struct bthread *thread(struct comp_bounds *b, uint32_t tid)
{
	size_t j;

	if ((b->used + 1) * 2 > b->cap && grow(b))
		return NULL;
	for (j = hash_tid(tid) & (b->cap - 1); b->th[j].tid;
	     j = (j + 1) & (b->cap - 1))
		if (b->th[j].tid == tid)
			return &b->th[j];
	b->used++;
	b->th[j].tid = tid;
	return &b->th[j];
}

static struct bcpu *cpu(struct comp_bounds *b, uint16_t c)
{
	if (c >= b->nr_cpus) {
		size_t n = (size_t)c + 1;
		struct bcpu *p = realloc(b->cpus, n * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + b->nr_cpus, 0, (n - b->nr_cpus) * sizeof(*p));
		b->cpus = p;
		b->nr_cpus = n;
	}
	return &b->cpus[c];
}

static void add_stake(struct stake *s, double p, double w)
{
	s->mu += p * w;
	s->var += p * (1 - p) * w * w;
	s->all += w;
}

/* A 99% bound on a sum of independent stakes, never above all of them. */
static double stake_bound(const struct stake *s)
{
	return fmax(fmin(s->all, s->mu + Z99 * sqrt(fmax(s->var, 0))), 0);
}

int comp_bounds_stake(struct comp_bounds *b, uint32_t tid, unsigned int figs,
		      double p, double w, bool global)
{
	struct bthread *t;
	int k;

	if (!b || !tid || !(p > 0) || !(w > 0))
		return 0;
	p = fmin(p, 1);
	if (global)
		add_stake(&b->global, p, w);
	t = thread(b, tid);
	if (!t)
		return -ENOMEM;
	for (k = 0; k < 3; k++)
		if (figs & (1u << (TRACE_BOUND_RUN + k)))
			add_stake(&t->own[k], p, w);
	return 0;
}

void comp_bounds_flag_all(struct comp_bounds *b, uint32_t flags)
{
	if (b)
		b->flags_all |= flags;
}

/* The thread's state ends where the changes are @d: its part in @sum. */
static void close_state(struct bthread *t, const double d[2])
{
	int k;

	if (t->state == B_NONE)
		return;
	for (k = 0; k < 2; k++)
		t->sum[t->state - B_RUN][k] += d[k] - t->open[k];
}

static void enter(struct bthread *t, uint8_t state, const double d[2])
{
	close_state(t, d);
	t->state = state;
	t->open[0] = d[0];
	t->open[1] = d[1];
}

static uint64_t wait_of(const struct mkm_event *e)
{
	return e->flags & MKM_EVF_WAIT_US ? (uint64_t)e->arg0 * 1000 : e->arg0;
}

/*
 * The split at switch-in @e of @t on @c: where mkm knows when the wait
 * began, the kernel's wait (the record's) less mkm's is the part of the
 * switch before the tracepoint, less what began the wait; the kernel's run
 * of @t starts that much earlier, and that of the thread switched out at
 * this instant (the same clock read) ends that much earlier.
 */
static int split_in(struct comp_bounds *b, struct bcpu *c, struct bthread *t,
		    const struct mkm_event *e)
{
	uint64_t w = wait_of(e);
	bool known = t->ready_known && w && e->time_ns >= t->ready;
	double delta = known ? (double)(e->time_ns - t->ready) - (double)w : 0;
	struct bthread *p = NULL;

	t->split_ends++;
	if (known) {
		t->split_runq -= delta;
		t->split_run += delta;
	} else {
		t->split_unknown++;
	}
	if (c->out_open && c->out_t == e->time_ns && c->out_tid != t->tid) {
		p = thread(b, c->out_tid);
		if (!p)
			return -ENOMEM;
		if (known)
			p->split_run -= delta;
		else
			p->split_unknown++;
		c->out_open = false;
	}
	return 0;
}

/* A switch-out whose split no switch-in measured: unknown. */
static int split_close(struct comp_bounds *b, struct bcpu *c)
{
	struct bthread *p;

	if (!c->out_open)
		return 0;
	c->out_open = false;
	p = thread(b, c->out_tid);
	if (!p)
		return -ENOMEM;
	p->split_unknown++;
	return 0;
}

int comp_bounds_note(struct comp_bounds *b, const struct mkm_event *e,
		     uint64_t t, uint64_t t_lo, uint64_t t_hi, bool no_interval)
{
	double d[2] = { (double)t_lo - (double)t, (double)t_hi - (double)t };
	struct bthread *th;
	struct bcpu *c;
	int ret;

	if (!b)
		return 0;
	c = cpu(b, e->cpu);
	if (!c)
		return -ENOMEM;
	/* A gap in a CPU's sequence is a loss as a LOST record is (records
	 * of a damaged chunk the reader skipped say nothing else). */
	if (c->seq_seen && e->seq != c->next_seq)
		b->lost++;
	c->seq_seen = true;
	c->next_seq = e->seq + 1;
	if (e->type == MKM_EV_LOST) {
		b->lost++;
		return 0;
	}
	if (!e->tid)
		return 0;
	th = thread(b, e->tid);
	if (!th)
		return -ENOMEM;
	if (!th->noted) { /* its first record (a stake may have come first) */
		th->noted = true;
		th->first[0] = d[0];
		th->first[1] = d[1];
		th->lost_first = b->lost;
		th->g_first = b->global;
	}
	th->last[0] = d[0];
	th->last[1] = d[1];
	th->g_last = b->global;
	th->lost_last = b->lost;
	if (no_interval)
		th->flags |= TRACE_BOUND_NO_INTERVAL;
	switch (e->type) {
	case MKM_EV_SWITCH_IN:
		ret = split_in(b, c, th, e);
		if (ret)
			return ret;
		th = thread(b,
			    e->tid); /* split_in() may have grown the table */
		if (!th)
			return -ENOMEM;
		th->ready_known = false;
		enter(th, B_RUN, d);
		break;
	case MKM_EV_SWITCH_OUT:
		ret = split_close(b, c);
		if (ret)
			return ret;
		th = thread(b, e->tid); /* split_close() may have grown it */
		if (!th)
			return -ENOMEM;
		th->split_ends++;
		c->out_tid = e->tid;
		c->out_t = e->time_ns;
		c->out_open = true;
		if (e->arg0 == MKM_TS_RUNNING) {
			th->ready = e->time_ns;
			th->ready_known = true;
			enter(th, B_RUNQ, d);
		} else if (e->arg0 == MKM_TS_INTERRUPTIBLE ||
			   e->arg0 == MKM_TS_UNINTERRUPTIBLE) {
			th->ready_known = false;
			enter(th, B_SLEEP, d);
		} else { /* dead */
			th->ready_known = false;
			enter(th, B_NONE, d);
		}
		break;
	case MKM_EV_WAKING:
	case MKM_EV_WAKEUP:
	case MKM_EV_WAKEUP_NEW:
		if (th->state == B_SLEEP ||
		    (th->state == B_NONE && e->type == MKM_EV_WAKEUP_NEW)) {
			th->ready = e->time_ns;
			th->ready_known = true;
			enter(th, B_RUNQ, d);
		}
		break;
	}
	return 0;
}

static uint64_t up(double x)
{
	return x > 0 ? (uint64_t)ceil(x) : 0;
}

/* A part from a figure's changes at the two ends of the interval. */
static struct trace_bound from_changes(double lo, double hi)
{
	return (struct trace_bound){
		.below_ns = up(fmax(-lo, -hi)),
		.above_ns = up(fmax(lo, hi)),
	};
}

static struct trace_bound symmetric(double x)
{
	return (struct trace_bound){ up(x), up(x) };
}

/* The kernel's figure less mkm's, @s: the interval reaches it. */
static struct trace_bound toward(double s)
{
	return (struct trace_bound){ up(-s), up(s) };
}

static void fill(const struct comp_bounds *b, const struct bthread *t,
		 struct trace_bounds *o)
{
	struct trace_bound *cal = o->part[TRACE_BOUND_CALIBRATION];
	struct trace_bound *sch = o->part[TRACE_BOUND_SCHEDULING];
	struct trace_bound *spl = o->part[TRACE_BOUND_SPLIT];
	struct stake life = {
		t->g_last.mu - t->g_first.mu,
		t->g_last.var - t->g_first.var,
		t->g_last.all - t->g_first.all,
	};
	double sum[3][2];
	int k;

	memset(o, 0, sizeof(*o));
	o->tid = t->tid;
	o->flags = t->flags | b->flags_all;
	if (t->lost_last > t->lost_first)
		o->flags |= TRACE_BOUND_LOST;
	o->split_ends = t->split_ends;
	o->split_unknown = t->split_unknown;
	if (t->split_unknown)
		o->flags |= TRACE_BOUND_SPLIT_PARTIAL;
	/* The state it was last in lasts to its last record. */
	memcpy(sum, t->sum, sizeof(sum));
	if (t->state != B_NONE)
		for (k = 0; k < 2; k++)
			sum[t->state - B_RUN][k] += t->last[k] - t->open[k];
	for (k = 0; k < 3; k++) {
		cal[TRACE_BOUND_RUN + k] = from_changes(sum[k][0], sum[k][1]);
		sch[TRACE_BOUND_RUN + k] = symmetric(stake_bound(&t->own[k]));
	}
	cal[TRACE_BOUND_START] = from_changes(t->first[0], t->first[1]);
	cal[TRACE_BOUND_END] = from_changes(t->last[0], t->last[1]);
	cal[TRACE_BOUND_LIFE] = from_changes(t->last[0] - t->first[0],
					     t->last[1] - t->first[1]);
	sch[TRACE_BOUND_START] = symmetric(stake_bound(&t->g_first));
	sch[TRACE_BOUND_END] = symmetric(stake_bound(&t->g_last));
	sch[TRACE_BOUND_LIFE] = symmetric(stake_bound(&life));
	spl[TRACE_BOUND_RUN] = toward(t->split_run);
	spl[TRACE_BOUND_RUNQ] = toward(t->split_runq);
}

static int by_tid(const void *a, const void *b)
{
	uint32_t x = ((const struct trace_bounds *)a)->tid;
	uint32_t y = ((const struct trace_bounds *)b)->tid;

	return x < y ? -1 : x > y;
}

int comp_bounds_result(struct comp_bounds *b, struct trace_bounds **out,
		       size_t *n)
{
	struct trace_bounds *o;
	size_t i, k = 0;
	int ret;

	*out = NULL;
	*n = 0;
	if (!b)
		return 0;
	for (i = 0; i < b->nr_cpus; i++) {
		ret = split_close(b, &b->cpus[i]);
		if (ret)
			return ret;
	}
	if (!b->used)
		return 0;
	o = calloc(b->used, sizeof(*o));
	if (!o)
		return -ENOMEM;
	for (i = 0; i < b->cap; i++)
		if (b->th[i].tid)
			fill(b, &b->th[i], &o[k++]);
	qsort(o, k, sizeof(*o), by_tid);
	*out = o;
	*n = k;
	return 0;
}
