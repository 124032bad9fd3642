// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * late.c - why a wakeup was late (mon_analysis.h): each wakeup of the
 * threads asked for is a RUNQ stretch after a sleep or a creation; the
 * longest are taken apart on the CPUs they waited on, through the noise
 * index (index.c): handlers by net time, other threads with how they came
 * to hold the CPU and how they let it go, read from their own intervals
 * and the CPU's handler runs. The waker's call to the enqueue comes from
 * WAKING records, which the timeline does not keep: a sink collects them
 * beside it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"

struct waking {
	uint64_t time;
	uint32_t tid, waker;
	uint16_t cpu;
};

struct mon_wakings {
	struct waking *v;
	size_t n, cap;
	bool sorted;
};

int mon_wakings_create(struct mon_wakings **wp)
{
	if (!wp)
		return -EINVAL;
	*wp = calloc(1, sizeof(**wp));
	return *wp ? 0 : -ENOMEM;
}

int mon_wakings_add(struct mon_wakings *w, const struct mkm_event *ev, size_t n)
{
	size_t i;

	if (!w || (n && !ev))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (ev[i].type != MKM_EV_WAKING)
			continue;
		if (w->n == w->cap) {
			size_t cap = w->cap ? w->cap * 2 : 256;
			struct waking *v = realloc(w->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			w->v = v;
			w->cap = cap;
		}
		w->v[w->n++] = (struct waking){ .time = ev[i].time_ns,
						.tid = ev[i].tid,
						.waker = ev[i].arg1,
						.cpu = ev[i].cpu };
		w->sorted = false;
	}
	return 0;
}

void mon_wakings_destroy(struct mon_wakings *w)
{
	if (!w)
		return;
	free(w->v);
	free(w);
}

static int wakings_consume(void *priv, const struct mon_msg *msg)
{
	if (msg->type != MON_MSG_EVENTS)
		return 0;
	return mon_wakings_add(priv, msg->events, msg->nr_events);
}

int mon_sink_wakings(struct mon_sink **skp, struct mon_wakings *w)
{
	static const struct mon_sink_ops ops = {
		.name = "wakings",
		.consume = wakings_consume,
	};

	if (!skp || !w)
		return -EINVAL;
	return mon_sink_new(skp, &ops, w);
}

static int waking_cmp(const void *a, const void *b)
{
	const struct waking *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* The last WAKING of @tid in [from, to], or NULL. */
static const struct waking *waking_find(struct mon_wakings *w, uint32_t tid,
					uint64_t from, uint64_t to)
{
	size_t lo = 0, hi;

	if (!w || !w->n)
		return NULL;
	if (!w->sorted) {
		qsort(w->v, w->n, sizeof(*w->v), waking_cmp);
		w->sorted = true;
	}
	hi = w->n;
	while (lo < hi) { /* the first after (tid, to) */
		size_t mid = lo + (hi - lo) / 2;
		const struct waking *m = &w->v[mid];

		if (m->tid < tid || (m->tid == tid && m->time <= to))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || w->v[lo - 1].tid != tid || w->v[lo - 1].time < from)
		return NULL;
	return &w->v[lo - 1];
}

const char *mon_late_came_name(unsigned int came)
{
	static const char *const names[] = {
		[MON_LATE_HELD] = "held the CPU at the wakeup",
		[MON_LATE_QUEUED] = "queued before, ran first",
		[MON_LATE_OVERTOOK] = "queued after, ran first",
	};

	return came <= MON_LATE_OVERTOOK ? names[came] : "?";
}

const char *mon_late_left_name(unsigned int left)
{
	static const char *const names[] = {
		[MON_LATE_LEFT_UNKNOWN] = "left the CPU unrecorded",
		[MON_LATE_TICK] = "ran to the tick",
		[MON_LATE_RESCHED] = "preempted at a reschedule IPI",
		[MON_LATE_PREEMPTED] = "preempted or yielded",
		[MON_LATE_SLEPT] = "ran until it slept",
		[MON_LATE_EXITED] = "ran until it exited",
	};

	return left <= MON_LATE_EXITED ? names[left] : "?";
}

/* A wakeup found: the thread's intervals [first, last] are its RUNQ. */
struct cand {
	size_t thread, first, last;
	uint64_t latency;
};

struct cands {
	struct cand *v;
	size_t n, cap;
};

static int cand_push(struct cands *c, const struct cand *x)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct cand *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = *x;
	return 0;
}

static uint64_t waking_start(const struct noise *n, struct mon_wakings *w,
			     const struct tl_th *t, size_t first)
{
	const struct waking *wk;
	uint64_t from = first ? tl_iv_at(t, first - 1)->start : 0;

	wk = waking_find(w, t->tid, from, tl_iv_at(t, first)->start);
	(void)n;
	return wk ? wk->time : 0;
}

/*
 * The wakeup whose RUNQ stretch begins at interval @k of thread @th: true,
 * and @c filled, if the stretch follows a sleep (or is the thread's first
 * state and it was made here) and ends in a switch-in. *@next is the
 * interval after the stretch.
 */
static bool wakeup_from(const struct noise *n, size_t th, size_t k,
			struct mon_wakings *w, struct cand *c, size_t *next)
{
	const struct tl *tl = n->tl;
	const struct tl_th *t = &tl->th[th];
	const struct tl_iv *iv = tl_iv_at(t, k);
	struct tl_wake wake;
	uint64_t start;
	bool woken;

	*c = (struct cand){ .thread = th, .first = k };
	woken = k ? an_asleep(tl_iv_at(t, k - 1)->state) :
		    t->parent != NO_THREAD ||
				!tl_wake_at(tl, th, iv->start, &wake);
	while (k + 1 < t->nr_iv && tl_iv_at(t, k + 1)->state == TL_RUNQ)
		k++;
	c->last = k++;
	*next = k;
	if (!woken || k >= t->nr_iv ||
	    !mon_states[tl_iv_at(t, k)->state].on_cpu)
		return false;
	start = waking_start(n, w, t, c->first);
	if (!start)
		start = tl_iv_at(t, c->first)->start;
	c->latency = tl_iv_at(t, k)->start - start;
	return true;
}

/* A thread's wakeups: RUNQ after a sleep (or first), up to a switch-in. */
static int find_wakeups(const struct noise *n, size_t th, struct mon_wakings *w,
			struct cands *out)
{
	const struct tl_th *t = &n->tl->th[th];
	size_t k = 0;

	while (k < t->nr_iv) {
		struct cand c;

		if (tl_iv_at(t, k)->state != TL_RUNQ) {
			k++;
			continue;
		}
		if (wakeup_from(n, th, k, w, &c, &k) && cand_push(out, &c))
			return -ENOMEM;
	}
	return 0;
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->latency != y->latency)
		return x->latency > y->latency ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* The start of the dispatch of thread @th that holds time @t on @cpu. */
static size_t dispatch_first(const struct tl *tl, const struct tl_th *t,
			     size_t k, unsigned int cpu)
{
	while (k && mon_states[tl_iv_at(t, k - 1)->state].on_cpu &&
	       tl_iv_at(t, k - 1)->cpu == cpu)
		k--;
	(void)tl;
	return k;
}

/* The latest outermost handler run on @cpu that ended in [a, b]. */
static const struct tl_irq *last_irq(const struct noise *n, unsigned int cpu,
				     uint64_t a, uint64_t b)
{
	const struct an_cpu *c = &n->cpus[cpu];
	const struct tl_irq *best = NULL;
	size_t k;

	/* Runs are by start: those that began at or before b, the last
	 * first. */
	for (k = an_irq_after(n, c, b + 1); k-- > 0;) {
		const struct tl_irq *r = &n->tl->irqs[c->irq[k]];

		/* Outermost runs do not overlap: one that ended before a
		 * comes after every earlier one. */
		if (!r->depth && r->end_ns < a)
			break;
		if (r->depth || r->end_ns > b)
			continue;
		if (!best || r->end_ns > best->end_ns)
			best = r;
	}
	return best;
}

/* How thread @owner came to hold @cpu at @t and how it let it go. */
static void thread_why(const struct noise *n, size_t owner, unsigned int cpu,
		       uint64_t t, uint64_t wait_start, uint8_t *came,
		       uint8_t *left)
{
	const struct tl *tl = n->tl;
	const struct tl_th *o = &tl->th[owner];
	int64_t at = tl_interval_at(tl, owner, t);
	size_t k, first, end;

	*came = MON_LATE_QUEUED;
	*left = MON_LATE_LEFT_UNKNOWN;
	if (at < 0)
		return;
	first = dispatch_first(tl, o, (size_t)at, cpu);
	if (tl_iv_at(o, first)->start < wait_start) {
		*came = MON_LATE_HELD;
	} else if (first && tl_iv_at(o, first - 1)->state == TL_RUNQ) {
		k = first - 1;
		while (k && tl_iv_at(o, k - 1)->state == TL_RUNQ)
			k--;
		if (tl_iv_at(o, k)->start >= wait_start)
			*came = MON_LATE_OVERTOOK;
	}
	for (end = (size_t)at;
	     end < o->nr_iv && mon_states[tl_iv_at(o, end)->state].on_cpu &&
	     tl_iv_at(o, end)->cpu == cpu;
	     end++)
		;
	if (end >= o->nr_iv)
		return;
	switch (mon_states[tl_iv_at(o, end)->state].group) {
	case TL_GROUP_RUNQ: {
		const struct tl_irq *r = last_irq(n, cpu,
						  tl_iv_at(o, first)->start,
						  tl_iv_at(o, end)->start);

		*left = MON_LATE_PREEMPTED;
		if (r && r->kind == TL_IRQ_VECTOR &&
		    r->number == MKM_X86_LOCAL_TIMER_VECTOR)
			*left = MON_LATE_TICK;
		else if (r && r->kind == TL_IRQ_VECTOR &&
			 r->number == MKM_X86_RESCHEDULE_VECTOR)
			*left = MON_LATE_RESCHED;
		return;
	}
	case TL_GROUP_SLEEP:
	case TL_GROUP_DISK:
	case TL_GROUP_STOP:
		*left = MON_LATE_SLEPT;
		return;
	case TL_GROUP_ZOMB:
		*left = MON_LATE_EXITED;
		return;
	default:
		return;
	}
}

struct parts {
	struct mon_late_part *v;
	int64_t *owner;
	uint64_t *burst;
	size_t n, cap;
};

static struct mon_late_part *part_of(struct parts *p, int64_t owner,
				     bool *fresh)
{
	size_t i;

	*fresh = false;
	for (i = 0; i < p->n; i++)
		if (p->owner[i] == owner)
			return &p->v[i];
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;
		struct mon_late_part *v = realloc(p->v, cap * sizeof(*v));
		int64_t *o;
		uint64_t *b;

		if (!v)
			return NULL;
		p->v = v;
		o = realloc(p->owner, cap * sizeof(*o));
		if (!o)
			return NULL;
		p->owner = o;
		b = realloc(p->burst, cap * sizeof(*b));
		if (!b)
			return NULL;
		p->burst = b;
		p->cap = cap;
	}
	memset(&p->v[p->n], 0, sizeof(p->v[p->n]));
	p->owner[p->n] = owner;
	p->burst[p->n] = 0;
	*fresh = true;
	return &p->v[p->n++];
}

static int part_cmp(const void *a, const void *b)
{
	const struct mon_late_part *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

struct charge {
	const struct noise *n;
	struct mon_late *l;
	struct parts *p;
	unsigned int cpu;
	uint64_t wait_start;
};

/* One owner's part [x, y) of the wait, an_walk()'s piece. */
static int charge_piece(void *arg, const struct an_seg *g, uint64_t x,
			uint64_t y)
{
	struct charge *ch = arg;
	const struct noise *n = ch->n;
	struct mon_late *l = ch->l;
	struct mon_late_part *part;
	unsigned int kind = an_owner_kind(g->owner);
	bool fresh;
	size_t i;

	part = part_of(ch->p, g->owner, &fresh);
	if (!part)
		return -ENOMEM;
	i = (size_t)(part - ch->p->v);
	if (fresh) {
		part->kind = (uint8_t)kind;
		part->number = an_owner_number(g->owner);
		part->thread = g->owner >= 0 ? g->owner : -1;
		an_owner_name(n, g->owner, part->name, sizeof(part->name));
		part->idle = g->owner >= 0 && n->tl->th[g->owner].idle_cpu >= 0;
		if (kind == NOISE_THREAD && !part->idle)
			thread_why(n, (size_t)g->owner, ch->cpu, x,
				   ch->wait_start, &part->came, &part->left);
	}
	part->ns += y - x;
	if (kind == NOISE_THREAD && g->burst != ch->p->burst[i]) {
		ch->p->burst[i] = g->burst;
		part->count++;
	}
	if (kind == NOISE_IRQ_SOFT)
		l->softirq_ns += y - x;
	else if (kind != NOISE_THREAD)
		l->irq_ns += y - x;
	else if (part->idle)
		l->idle_ns += y - x;
	else
		l->thread_ns += y - x;
	return 0;
}

/* What took [a, b) on @cpu from a wakee queued since @wait_start. */
static int charge(const struct noise *n, struct mon_late *l, struct parts *p,
		  unsigned int cpu, uint64_t a, uint64_t b, uint64_t wait_start)
{
	struct charge ch = { n, l, p, cpu, wait_start };
	const struct an_cpu *c;
	size_t k;
	int err;

	err = an_walk(n, cpu, a, b, AN_SEARCH, charge_piece, &ch,
		      &l->unknown_ns, NULL);
	if (err || cpu >= n->nr_cpus)
		return err;
	/* Handler runs begun in [a, b), counted per handler too. */
	c = &n->cpus[cpu];
	for (k = an_irq_after(n, c, a); k < c->nr_irq; k++) {
		const struct tl_irq *r = &n->tl->irqs[c->irq[k]];
		struct mon_late_part *part;
		bool fresh;

		if (r->start_ns >= b)
			break;
		if (r->kind == TL_IRQ_SOFT)
			l->softirqs++;
		else
			l->irqs++;
		part = part_of(p, an_irq_owner(r->kind, r->number), &fresh);
		if (!part)
			return -ENOMEM;
		if (fresh) {
			part->kind = (uint8_t)(r->kind + 1);
			part->number = r->number;
			part->thread = -1;
			tl_irq_name(r->kind, r->number, part->name,
				    sizeof(part->name));
		}
		part->count++;
	}
	return 0;
}

static int explain(struct noise *n, struct mon_wakings *w, const struct cand *c,
		   struct mon_late *l)
{
	const struct tl *tl = n->tl;
	const struct tl_th *t = &tl->th[c->thread];
	const struct tl_iv *q = tl_iv_at(t, c->first);
	struct parts p = { 0 };
	struct tl_wake wake;
	const struct waking *wk;
	size_t k;
	int err = 0;

	memset(l, 0, sizeof(*l));
	l->thread = c->thread;
	l->waker = -1;
	l->waker_cpu = -1;
	l->cpu = q->cpu;
	l->wakeup_ns = q->start;
	l->switch_in_ns = tl_iv_end(tl, t, c->last);
	l->run_cpu = tl_iv_at(t, c->last + 1)->cpu;
	l->latency_ns = c->latency;
	/* A creation's RUNQ begins at the FORK, its wake a little later. */
	for (k = c->first; k <= c->last; k++) {
		if (tl_wake_at(tl, c->thread, tl_iv_at(t, k)->start, &wake))
			continue;
		l->type = wake.type;
		l->flags = wake.flags;
		l->waker = wake.waker;
		l->waker_tid = wake.waker_tid;
		break;
	}
	/* Made by a FORK whose WAKEUP_NEW came after it began to wait. */
	if (!l->type && !c->first && t->parent != NO_THREAD) {
		l->type = MKM_EV_WAKEUP_NEW;
		l->waker = t->parent;
		l->waker_tid = tl->th[t->parent].tid;
	}
	wk = waking_find(w, t->tid,
			 c->first ? tl_iv_at(t, c->first - 1)->start : 0,
			 q->start);
	if (wk) {
		l->waking_ns = wk->time;
		l->waker_cpu = wk->cpu;
		if (!l->waker_tid)
			l->waker_tid = wk->waker;
	}
	for (k = c->first; k <= c->last && !err; k++) {
		const struct tl_iv *iv = tl_iv_at(t, k);

		if (k > c->first && iv->cpu != tl_iv_at(t, k - 1)->cpu)
			l->migrations++;
		err = charge(n, l, &p, iv->cpu, iv->start, tl_iv_end(tl, t, k),
			     q->start);
	}
	free(p.owner);
	free(p.burst);
	if (err) {
		free(p.v);
		return err;
	}
	if (p.n > 1)
		qsort(p.v, p.n, sizeof(*p.v), part_cmp);
	l->parts = p.v;
	l->nr_parts = p.n;
	return 0;
}

int mon_late_wakeups(struct noise *n, const size_t *th, size_t nr,
		     struct mon_wakings *w, size_t top, struct mon_lates *out)
{
	struct cands c = { 0 };
	size_t i;
	int err = 0;

	if (!n || !out || (nr && !th))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (i = 0; i < nr; i++)
		if (th[i] >= n->tl->nr_th)
			return -ENOENT;
	for (i = 0; i < nr && !err; i++)
		err = find_wakeups(n, th[i], w, &c);
	if (err)
		goto out;
	if (c.n > 1)
		qsort(c.v, c.n, sizeof(*c.v), cand_cmp);
	out->nr_wakeups = c.n;
	out->nr = top && top < c.n ? top : c.n;
	out->late = calloc(out->nr + 1, sizeof(*out->late));
	if (!out->late) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < out->nr && !err; i++)
		err = explain(n, w, &c.v[i], &out->late[i]);
out:
	free(c.v);
	if (err)
		mon_lates_free(out);
	return err;
}

int mon_late_wakeup_at(struct noise *n, size_t th, uint64_t t,
		       struct mon_wakings *w, struct mon_late *out)
{
	const struct tl_th *tt;
	struct cand c;
	size_t k, next;
	int64_t at;

	if (!n || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (th >= n->tl->nr_th)
		return -ENOENT;
	at = tl_interval_at(n->tl, th, t);
	if (at < 0)
		return -ESRCH;
	tt = &n->tl->th[th];
	k = (size_t)at;
	/* At the switch-in itself: the wait it ended. */
	if (k && tl_iv_at(tt, k)->state != TL_RUNQ &&
	    tl_iv_at(tt, k)->start == t &&
	    tl_iv_at(tt, k - 1)->state == TL_RUNQ)
		k--;
	if (tl_iv_at(tt, k)->state != TL_RUNQ)
		return -ESRCH;
	while (k && tl_iv_at(tt, k - 1)->state == TL_RUNQ)
		k--;
	if (!wakeup_from(n, th, k, w, &c, &next))
		return -ESRCH;
	return explain(n, w, &c, out);
}

void mon_late_free(struct mon_late *l)
{
	if (!l)
		return;
	free(l->parts);
	memset(l, 0, sizeof(*l));
}

void mon_lates_free(struct mon_lates *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; l->late && i < l->nr; i++)
		free(l->late[i].parts);
	free(l->late);
	memset(l, 0, sizeof(*l));
}
