// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * merge.c - feeding the timeline: per-CPU reorder queues merged in time
 * order into the state machine (states.c).
 *
 * Each CPU's records arrive in order, CPUs interleave arbitrarily, so a
 * record may only be processed once no CPU can still deliver an earlier
 * one. The watermark W is the minimum over the counted CPUs (all
 * configured ones, or those seen so far) of max(last time fed on that CPU,
 * the horizon given to tl_advance()); records with time < W are processed,
 * the rest wait in the CPU's queue (copied there in runs: a read returns
 * each CPU's records together). The merge picks the earliest head record by
 * record with conditional moves when few CPUs have records (their records
 * interleave finely, and a branch would mispredict), else it takes runs up
 * to the next CPU's head. Each queue ends in a sentinel record stamped
 * UINT64_MAX, so reading a head needs no bounds check. A jump in a CPU's
 * seq numbers becomes a LOST record here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "timeline/timeline.h"

/* ---- feeding and merging ---------------------------------------------- */

/*
 * Room for k more records at the tail of cpu's queue, and one more for the
 * sentinel: the slot after the last record always holds time_ns ==
 * UINT64_MAX (no record has that time: feed clamps it), so the merge reads
 * a head time without checking for the end.
 */
static int queue_reserve(struct tl_cpu *cpu, size_t k)
{
	size_t live = cpu->tail - cpu->head, cap;
	struct mkm_event *q;

	if (likely(cpu->cap - cpu->tail > k))
		return 0;
	if (cpu->head && cpu->cap - live > k && cpu->head >= live) {
		memcpy(cpu->q, cpu->q + cpu->head, live * sizeof(*q));
	} else {
		cap = cpu->cap ? cpu->cap : 1024;
		while (cap - live <= k)
			cap *= 2;
		q = malloc(cap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		if (live)
			memcpy(q, cpu->q + cpu->head, live * sizeof(*q));
		free(cpu->q);
		cpu->q = q;
		cpu->cap = cap;
	}
	cpu->head = 0;
	cpu->tail = live;
	return 0;
}

static void queue_seal(struct tl_cpu *cpu)
{
	cpu->q[cpu->tail].time_ns = UINT64_MAX;
}

static int queue_push(struct tl_cpu *cpu, const struct mkm_event *ev)
{
	int err = queue_reserve(cpu, 1);

	if (err)
		return err;
	cpu->q[cpu->tail++] = *ev;
	queue_seal(cpu);
	return 0;
}

/* The watermark: records with time < it may be processed. */
static uint64_t watermark(const struct tl *tl)
{
	uint64_t w = UINT64_MAX;
	unsigned int k;

	/* A configured CPU not heard of yet is complete up to the horizon. */
	if (tl->cfg_seen < tl->cfg.nr_cpus)
		return tl->horizon;
	for (k = 0; k < tl->nr_seen; k++) {
		const struct tl_cpu *cpu = &tl->cpus[tl->seen[k]];
		uint64_t l = cpu->last_time > tl->horizon ? cpu->last_time :
							    tl->horizon;

		if (l < w)
			w = l;
	}
	return w == UINT64_MAX ? tl->horizon : w;
}

/*
 * Process the queued records with time < w (all of them if all), in time
 * order. With up to TL_MERGE_SMALL CPUs holding records, each record is the
 * minimum of the heads found with conditional moves: CPUs' records usually
 * interleave finely, and a branch on which CPU is next would mispredict
 * about every other record. With more, take the CPU whose head is earliest
 * and run through its records up to the next CPU's head. Ties go to the
 * lower CPU id (tl->seen is kept sorted), so the result does not depend on
 * how the records were batched.
 */
static void merge(struct tl *tl, uint64_t w, bool all)
{
	uint64_t lim = all ? UINT64_MAX - 1 : w - 1;
	struct tl_src *src = tl->src;
	unsigned int n = 0, k;

	if (!all && !w)
		return;
	for (k = 0; k < tl->nr_seen; k++) {
		struct tl_cpu *cpu = &tl->cpus[tl->seen[k]];

		if (cpu->head == cpu->tail)
			continue;
		src[n].p = cpu->q + cpu->head;
		src[n].t = src[n].p->time_ns;
		src[n].cpu = cpu;
		n++;
	}
	if (n == 1) {
		const struct mkm_event *p = src[0].p;

		while (p->time_ns <= lim)
			tl_apply(tl, p++);
		src[0].p = p;
	} else if (n && n <= TL_MERGE_SMALL) {
		/* Pad to 4 or 8 heads that never win: a fixed, unrolled scan. */
		unsigned int width = n <= 4 ? 4 : TL_MERGE_SMALL;

		for (k = n; k < width; k++)
			src[k].t = UINT64_MAX;
		tl_apply_earliest(tl, src, width, lim);
	} else if (n > TL_MERGE_SMALL) {
		for (;;) {
			uint64_t best = UINT64_MAX, second = UINT64_MAX, limit;
			const struct mkm_event *p;
			unsigned int b = 0;

			for (k = 0; k < n; k++) {
				uint64_t h = src[k].t;

				if (h < best) {
					second = best;
					best = h;
					b = k;
				} else if (h < second) {
					second = h;
				}
			}
			if (best > lim)
				break;
			limit = second < lim ? second : lim;
			p = src[b].p;
			do {
				tl_apply(tl, p++);
			} while (p->time_ns <= limit);
			src[b].p = p;
			src[b].t = p->time_ns;
		}
	}
	for (k = 0; k < n; k++) {
		struct tl_cpu *cpu = src[k].cpu;
		size_t head = (size_t)(src[k].p - cpu->q);
		size_t did = head - cpu->head;

		if (!did)
			continue;
		/* LOST records are counted here and taken off by lost_gap. */
		cpu->events += did;
		cpu->last_done = src[k].p[-1].time_ns;
		tl->pending -= did;
		if (head == cpu->tail) {
			cpu->head = cpu->tail = 0;
			queue_seal(cpu);
		} else {
			cpu->head = head;
		}
	}
	if (!all && w > tl->now)
		tl->now = w;
}

static int feed_one(struct tl *tl, const struct mkm_event *ev)
{
	struct tl_cpu *cpu;
	struct mkm_event e = *ev, lost;
	unsigned int c = ev->cpu;
	int err, missing;

	if (unlikely(c >= tl->max_cpu)) {
		if (c >= TL_MAX_CPUS) {
			tl->stats.anomalies++; /* a corrupt record: skip */
			return 0;
		}
		err = tl_cpus_grow(tl, c + 1);
		if (err)
			return err;
		tl->max_cpu = c + 1;
	}
	if (unlikely(e.time_ns == UINT64_MAX)) {
		tl->stats.anomalies++; /* the queue's sentinel value */
		e.time_ns = UINT64_MAX - 1;
	}
	cpu = &tl->cpus[c];
	if (unlikely(!cpu->seen)) {
		unsigned int k = tl->nr_seen++;

		/* Kept in CPU order: ties in time go to the lower CPU id,
		 * whatever order the CPUs showed up in. */
		while (k && tl->seen[k - 1] > c) {
			tl->seen[k] = tl->seen[k - 1];
			k--;
		}
		tl->seen[k] = c;
		cpu->seen = true;
		cpu->first_time = e.time_ns;
		tl->cfg_seen += c < tl->cfg.nr_cpus;
		cpu->last_time = e.time_ns;
	}
	if (unlikely(e.time_ns < cpu->last_time)) {
		/* A LOST record with no record before it has time 0. */
		if (e.type != MKM_EV_LOST)
			tl->stats.anomalies++;
		e.time_ns = cpu->last_time;
	}
	missing = mon_seq_lost(&cpu->seq, &e, cpu->last_time, &lost);
	if (unlikely(missing > 0)) {
		tl->stats.seq_gaps++;
		tl->stats.gaps++;
		tl->stats.lost += lost.arg0;
		cpu->lost += lost.arg0;
		err = queue_push(cpu, &lost);
		if (err)
			return err;
		tl->pending++;
	} else if (unlikely(missing < 0)) {
		tl->stats.anomalies++; /* seq went backwards */
	}
	if (e.type == MKM_EV_LOST) {
		tl->stats.gaps++;
		tl->stats.lost += e.arg0;
		cpu->lost += e.arg0;
	} else {
		tl->stats.events++;
	}
	cpu->last_time = e.time_ns;
	err = queue_push(cpu, &e);
	if (err)
		return err;
	tl->pending++;
	return 0;
}

#define FEED_RUN_MAX 4096

/*
 * The common case, a run of one CPU's records in sequence with nothing
 * lost: each record checked and copied in one pass over the caller's
 * batch, which is read once. Returns how many records of ev it took.
 */
static size_t feed_run(struct tl *tl, const struct mkm_event *ev, size_t n)
{
	unsigned int c = ev->cpu;
	const struct mkm_event *e;
	struct tl_cpu *cpu;
	struct mkm_event *q;
	uint32_t seq, seq0, end;
	uint64_t last;
	size_t j;

	if (c >= tl->max_cpu)
		return 0;
	cpu = &tl->cpus[c];
	/* Room for a bounded run: a batch of many CPUs' records holds only
	 * part of it for this one. */
	if (n > FEED_RUN_MAX)
		n = FEED_RUN_MAX;
	if (!cpu->seq.valid || queue_reserve(cpu, n))
		return 0;
	last = cpu->last_time;
	seq = seq0 = cpu->seq.next;
	e = ev;
	q = cpu->q + cpu->tail;
	/* The run's expected seq numbers count the records too. */
	for (end = seq0 + (uint32_t)n; seq != end; seq++, e++, q++) {
		uint64_t t = e->time_ns;

		/* One branch; a time of UINT64_MAX is seen after the loop. */
		if ((e->cpu != c) | (e->seq != seq) | (t < last) |
		    (e->type == MKM_EV_LOST))
			break;
		*q = *e;
		last = t;
	}
	j = seq - seq0;
	/*
	 * Records stamped UINT64_MAX, the sentinel's time, can only end a run
	 * in order: they are left to feed_one(), which clamps them.
	 */
	if (unlikely(last == UINT64_MAX)) {
		while (j && ev[j - 1].time_ns == UINT64_MAX) {
			j--;
			seq--;
		}
		last = j ? ev[j - 1].time_ns : cpu->last_time;
	}
	if (!j)
		return 0;
	cpu->tail += j;
	queue_seal(cpu);
	cpu->last_time = last;
	cpu->seq.next = seq;
	tl->stats.events += j;
	tl->pending += j;
	return j;
}

int tl_feed(struct tl *tl, const struct mkm_event *ev, size_t n)
{
	size_t i = 0, k;
	int err = 0;

	if (!tl || (n && !ev))
		return -EINVAL;
	while (i < n) {
		k = feed_run(tl, ev + i, n - i);
		if (k) {
			i += k;
			continue;
		}
		err = feed_one(tl, &ev[i]);
		if (err)
			break;
		i++;
	}
	merge(tl, watermark(tl), false);
	return err;
}

int tl_advance(struct tl *tl, uint64_t horizon_ns)
{
	if (!tl)
		return -EINVAL;
	if (horizon_ns > tl->horizon)
		tl->horizon = horizon_ns;
	merge(tl, watermark(tl), false);
	return 0;
}

int tl_flush(struct tl *tl)
{
	size_t i;

	if (!tl)
		return -EINVAL;
	merge(tl, UINT64_MAX, true);
	/*
	 * A thread preempted after its EXIT whose last run the trace does
	 * not hold (the recording ended first, or its REAP came before its
	 * last switch) did not wait on a run queue to the end of the trace:
	 * it ends where it left its CPU.
	 */
	for (i = 0; i < tl->nr_th; i++) {
		struct tl_th *t = &tl->th[i];

		if (t->exited && !t->ended && t->state == TL_RUNQ)
			tl_thread_end(tl, t, t->since, TL_REAPED);
	}
	return 0;
}
