// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * barrier.c - BSC's barrier study (AIX trace and Paraver) from the trace
 * alone: threads that
 * loop on a compute phase and a barrier are cut into rounds by what the
 * scheduler shows (mon_analysis.h says how), and each long round's last
 * arrival is explained by noise_thread() over its compute phase.
 *
 * A stretch is one thread's time busy between two waits. Phases are the
 * long stretches; releases group their starts; a round's phase of a
 * thread is its phases clipped to the round, which cuts a stretch that
 * ran on through a release (the last arrival that never slept) in two.
 * Each round's phase of each thread is kept a while, for the noise law's
 * hits (Tsafrir et al.'s law counts who was delayed, not only who came
 * last).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"

struct stretch {
	uint64_t start, end;
	size_t who; /* index into the threads given */
};

struct stretches {
	struct stretch *v;
	size_t n, cap;
};

static int push(struct stretches *s, uint64_t start, uint64_t end, size_t who)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct stretch *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct stretch){ start, end, who };
	return 0;
}

static bool busy(unsigned int state)
{
	unsigned int g = mon_states[state].group;

	return g == TL_GROUP_RUN || g == TL_GROUP_INTR || g == TL_GROUP_RUNQ;
}

/* Thread th's busy stretches, each from a wait (or its start) to one. */
static int add_stretches(const struct tl *tl, size_t th, size_t who,
			 struct stretches *s)
{
	const struct tl_th *t = &tl->th[th];
	uint64_t start = 0, end = 0;
	bool in = false;
	size_t k;

	for (k = 0; k < t->nr_iv; k++) {
		const struct tl_iv *iv = tl_iv_at(t, k);

		if (busy(iv->state)) {
			if (!in)
				start = iv->start;
			in = true;
			end = tl_iv_end(tl, t, k);
		} else if (in) {
			in = false;
			if (end > start && push(s, start, end, who))
				return -ENOMEM;
		}
	}
	/* A thread's open last interval has no length: no stretch. */
	return in && end > start ? push(s, start, end, who) : 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int by_start(const void *a, const void *b)
{
	const struct stretch *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->who < y->who ? -1 : x->who > y->who;
}

/* The shortest compute phase: above the widest ratio between two
 * consecutive lengths if it is MON_BARRIER_SPLIT or more, else the
 * shortest stretch. @len is sorted, @n > 0. */
static uint64_t split(const uint64_t *len, size_t n)
{
	double best = MON_BARRIER_SPLIT;
	uint64_t at = len[0];
	size_t i;

	for (i = 0; i + 1 < n; i++) {
		double r = (double)len[i + 1] / (double)(len[i] ? len[i] : 1);

		if (r >= best) {
			best = r;
			at = len[i + 1];
		}
	}
	return at;
}

/* The phases: stretches of min_phase_ns or more, by start; their median
 * length in *median. */
static int phases(struct stretches *s, struct mon_barriers *out,
		  uint64_t *median)
{
	uint64_t *len = malloc((s->n + 1) * sizeof(*len));
	size_t i, k = 0;

	if (!len)
		return -ENOMEM;
	for (i = 0; i < s->n; i++)
		len[i] = s->v[i].end - s->v[i].start;
	qsort(len, s->n, sizeof(*len), u64_cmp);
	out->min_phase_ns = split(len, s->n);
	for (i = 0; i < s->n; i++)
		if (s->v[i].end - s->v[i].start >= out->min_phase_ns)
			s->v[k++] = s->v[i];
	s->n = k;
	for (i = 0; i < k; i++)
		len[i] = s->v[i].end - s->v[i].start;
	qsort(len, k, sizeof(*len), u64_cmp);
	*median = k ? len[k / 2] : 0;
	free(len);
	qsort(s->v, s->n, sizeof(*s->v), by_start);
	return 0;
}

/* The releases: the earliest of each group of phase starts, one per
 * thread, within @w of it. Return: how many (in @rel, room for s->n). */
static size_t releases(const struct stretches *s, size_t nr, uint64_t w,
		       uint64_t *rel, bool *seen)
{
	size_t i = 0, j, n = 0;

	while (i < s->n) {
		memset(seen, 0, nr * sizeof(*seen));
		rel[n++] = s->v[i].start;
		seen[s->v[i].who] = true;
		for (j = i + 1; j < s->n && s->v[j].start < s->v[i].start + w &&
				!seen[s->v[j].who];
		     j++)
			seen[s->v[j].who] = true;
		i = j;
	}
	return n;
}

static int by_thread(const void *a, const void *b)
{
	const struct stretch *x = a, *y = b;

	if (x->who != y->who)
		return x->who < y->who ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The phases by thread, each thread's by start, and a cursor in each. */
struct by_who {
	const struct stretch *v;
	size_t *next; /* per thread: its first phase not over yet */
	size_t *end; /* per thread: one past its last phase */
};

/*
 * Thread @who's phases in round [a, b), clipped to it: from the first
 * one's start to the last one's end. Rounds come in time order. Return:
 * whether it has one.
 */
static bool round_of(struct by_who *p, size_t who, uint64_t a, uint64_t b,
		     uint64_t *start, uint64_t *arrive)
{
	size_t i;

	while (p->next[who] < p->end[who] && p->v[p->next[who]].end <= a)
		p->next[who]++;
	i = p->next[who];
	if (i == p->end[who] || p->v[i].start >= b)
		return false;
	*start = p->v[i].start > a ? p->v[i].start : a;
	while (i + 1 < p->end[who] && p->v[i + 1].start < b)
		i++;
	*arrive = p->v[i].end < b ? p->v[i].end : b;
	return true;
}

/* The round from release @a to @b, if every thread has a phase in it;
 * its phases' lengths in @phase (nr of them). */
static bool make_round(struct by_who *p, size_t nr, uint64_t a, uint64_t b,
		       struct mon_barrier_round *r, uint64_t *fastest,
		       uint64_t *phase)
{
	uint64_t shortest = UINT64_MAX;
	size_t who;

	memset(r, 0, sizeof(*r));
	r->release_ns = a;
	r->next_ns = b;
	r->first_ns = UINT64_MAX;
	r->cause.thread = -1;
	for (who = 0; who < nr; who++) {
		uint64_t start, arrive;

		if (!round_of(p, who, a, b, &start, &arrive))
			return false;
		phase[who] = arrive - start;
		if (arrive - start < shortest)
			shortest = arrive - start;
		if (arrive < r->first_ns)
			r->first_ns = arrive;
		if (arrive >= r->last_ns) {
			r->last_ns = arrive;
			r->last = who;
			r->phase_start_ns = start;
		}
	}
	/* Only a round kept says what the shortest phase is. */
	if (shortest < *fastest)
		*fastest = shortest;
	return true;
}

/* Long rounds: their cause, from noise_thread() over the last one's phase. */
static int explain(struct noise *n, const size_t *th, struct mon_barriers *b)
{
	uint64_t *wait = malloc((b->nr_rounds + 1) * sizeof(*wait));
	size_t k;

	if (!wait)
		return -ENOMEM;
	for (k = 0; k < b->nr_rounds; k++)
		wait[k] = b->rounds[k].last_ns - b->rounds[k].first_ns;
	qsort(wait, b->nr_rounds, sizeof(*wait), u64_cmp);
	b->median_ns = wait[b->nr_rounds / 2];
	b->threshold_ns = b->median_ns + b->margin_ns;
	free(wait);
	for (k = 0; k < b->nr_rounds; k++) {
		struct mon_barrier_round *r = &b->rounds[k];
		struct noise_result nr;
		int err;

		if (r->last_ns - r->first_ns <= b->threshold_ns)
			continue;
		r->long_wait = true;
		b->nr_long++;
		err = noise_thread(n, th[r->last], r->phase_start_ns,
				   r->last_ns, &nr);
		if (err)
			return err;
		r->taken_ns = nr.taken_ns;
		r->unknown_ns = nr.unknown_ns;
		if (nr.nr_sources)
			r->cause = nr.sources[0];
		noise_result_free(&nr);
	}
	return 0;
}

/* The margin of a long wait and of a hit: a tenth of the rounds' median
 * phase (one short phase, a round's clipped first or last, would make a
 * tenth of the shortest one nothing). @phase: nr_rounds x nr. */
static int margin(struct mon_barriers *b, const uint64_t *phase)
{
	size_t n = b->nr_rounds * b->nr_threads;
	uint64_t *all = malloc(n * sizeof(*all));

	if (!all)
		return -ENOMEM;
	memcpy(all, phase, n * sizeof(*all));
	qsort(all, n, sizeof(*all), u64_cmp);
	b->margin_ns = all[n / 2] / 10;
	free(all);
	return 0;
}

/* Each thread's median phase and the rounds it was hit in: a phase longer
 * than its median by the long wait's margin. @phase: nr_rounds x nr. */
static int hits(struct mon_barriers *b, const uint64_t *phase)
{
	size_t nr = b->nr_threads, who, k;
	uint64_t *col = malloc((b->nr_rounds + 1) * sizeof(*col));

	b->median_phase_ns = calloc(nr, sizeof(*b->median_phase_ns));
	b->hits = calloc(nr, sizeof(*b->hits));
	b->hit = calloc(b->nr_rounds * nr, sizeof(*b->hit));
	if (!col || !b->median_phase_ns || !b->hits || !b->hit) {
		free(col);
		return -ENOMEM;
	}
	for (who = 0; who < nr; who++) {
		for (k = 0; k < b->nr_rounds; k++)
			col[k] = phase[k * nr + who];
		qsort(col, b->nr_rounds, sizeof(*col), u64_cmp);
		b->median_phase_ns[who] = col[b->nr_rounds / 2];
		for (k = 0; k < b->nr_rounds; k++) {
			b->hit[k * nr + who] =
				phase[k * nr + who] >
				b->median_phase_ns[who] + b->margin_ns;
			b->hits[who] += b->hit[k * nr + who];
		}
	}
	free(col);
	return 0;
}

int mon_barriers(struct noise *n, const size_t *th, size_t nr,
		 struct mon_barriers *out)
{
	struct stretches s = { 0 };
	struct by_who p = { 0 };
	uint64_t median, *rel = NULL, *phase = NULL;
	bool *seen = NULL;
	size_t i, nrel;
	int err = 0;

	if (!n || !th || !out || nr < 2)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->nr_threads = nr;
	for (i = 0; i < nr; i++)
		if (th[i] >= n->tl->nr_th)
			return -ENOENT;
	for (i = 0; i < nr && !err; i++)
		err = add_stretches(n->tl, th[i], i, &s);
	if (err || !s.n)
		goto out;
	err = phases(&s, out, &median);
	rel = malloc((s.n + 1) * sizeof(*rel));
	seen = malloc(nr * sizeof(*seen));
	p.next = calloc(nr, sizeof(*p.next));
	p.end = calloc(nr, sizeof(*p.end));
	out->rounds = malloc((s.n + 1) * sizeof(*out->rounds));
	if (err || !rel || !seen || !p.next || !p.end || !out->rounds) {
		err = -ENOMEM;
		goto out;
	}
	nrel = releases(&s, nr, median / 2 ? median / 2 : 1, rel, seen);
	/* A round's phase of each thread: rounds are fewer than releases. */
	phase = malloc((nrel + 1) * nr * sizeof(*phase));
	if (!phase) {
		err = -ENOMEM;
		goto out;
	}
	qsort(s.v, s.n, sizeof(*s.v), by_thread);
	p.v = s.v;
	for (i = 0; i < s.n; i++)
		p.end[s.v[i].who] = i + 1;
	for (i = s.n; i-- > 0;)
		p.next[s.v[i].who] = i;
	out->fastest_ns = UINT64_MAX;
	for (i = 0; i + 1 < nrel; i++)
		if (make_round(&p, nr, rel[i], rel[i + 1],
			       &out->rounds[out->nr_rounds], &out->fastest_ns,
			       &phase[out->nr_rounds * nr]))
			out->nr_rounds++;
	if (!out->nr_rounds)
		out->fastest_ns = 0;
	else
		err = margin(out, phase);
	if (!err && out->nr_rounds)
		err = explain(n, th, out);
	if (!err && out->nr_rounds)
		err = hits(out, phase);
out:
	free(phase);
	free(s.v);
	free(rel);
	free(seen);
	free(p.next);
	free(p.end);
	if (err)
		mon_barriers_free(out);
	return err;
}

void mon_barriers_free(struct mon_barriers *b)
{
	if (!b)
		return;
	free(b->rounds);
	free(b->median_phase_ns);
	free(b->hits);
	free(b->hit);
	b->rounds = NULL;
	b->median_phase_ns = NULL;
	b->hits = NULL;
	b->hit = NULL;
	b->nr_rounds = 0;
}

/*
 * The law in O(rounds x threads + threads^2), so that a job of thousands
 * of ranks is no wait: in round k, the window of n threads from first is
 * hit when the nearest hit thread from first on (wrapping) is fewer than n
 * away, so a count of those distances over every round and first gives
 * every n at once; the independent figure grows each window one thread at
 * a time.
 */
int mon_barriers_law(const struct mon_barriers *b, struct mon_barrier_law *out)
{
	size_t nr, n, first, i, k, *dist;
	double mean = 0, hit = 0;

	if (!b || !out || !b->nr_rounds || !b->hit)
		return -EINVAL;
	nr = b->nr_threads;
	dist = calloc(nr + 1, sizeof(*dist));
	if (!dist)
		return -ENOMEM;
	for (k = 0; k < b->nr_rounds; k++) {
		const bool *h = &b->hit[k * nr];
		size_t d = nr; /* to the next hit thread; nr: none */

		/* Twice round, backwards: the second pass has every
		 * distance, the wrap included. */
		for (i = 2 * nr; i-- > 0;) {
			d = h[i % nr] ? 0 : d < nr ? d + 1 : nr;
			if (i < nr)
				dist[d]++;
		}
	}
	for (i = 0; i < nr; i++)
		mean += (double)b->hits[i] / (double)b->nr_rounds / (double)nr;
	for (n = 1; n <= nr; n++) {
		hit += (double)dist[n - 1];
		out[n - 1] = (struct mon_barrier_law){
			.observed = hit / (double)b->nr_rounds / (double)nr,
			.uniform = 1 - pow(1 - mean, (double)n),
		};
	}
	for (first = 0; first < nr; first++) {
		double none = 1;

		for (n = 1; n <= nr; n++) {
			none *= 1 - (double)b->hits[(first + n - 1) % nr] /
					    (double)b->nr_rounds;
			out[n - 1].independent += (1 - none) / (double)nr;
		}
	}
	free(dist);
	return 0;
}
