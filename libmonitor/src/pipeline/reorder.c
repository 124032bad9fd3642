// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * reorder.c - the reorder buffer of the order stage and the merge source:
 * per-lane queues merged in time order under a watermark (see
 * pipeline_internal.h). The timeline builder has its own, fused with its
 * state machine for speed (merge.c); this one serves the pipeline's
 * consumers that need records themselves in order (dump, merges, exports).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline_internal.h"

int reorder_init(struct reorder *r, uint32_t nr_groups, bool renumber)
{
	memset(r, 0, sizeof(*r));
	r->horizon = calloc(nr_groups ? nr_groups : 1, sizeof(*r->horizon));
	if (!r->horizon)
		return -ENOMEM;
	r->nr_groups = nr_groups;
	r->renumber = renumber;
	return 0;
}

void reorder_free(struct reorder *r)
{
	size_t i;

	for (i = 0; i < r->nr_lanes; i++)
		free(r->lanes[i].q);
	free(r->lanes);
	free(r->horizon);
	free(r->out_seq);
	memset(r, 0, sizeof(*r));
}

/* The lane of (group, cpu), made if new; NULL on -ENOMEM. */
static struct reorder_lane *lane_get(struct reorder *r, uint32_t group,
				     uint32_t cpu)
{
	size_t lo = 0, hi = r->nr_lanes;
	struct reorder_lane *lanes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct reorder_lane *l = &r->lanes[mid];

		if (l->group == group && l->cpu == cpu)
			return &r->lanes[mid];
		if (l->group < group || (l->group == group && l->cpu < cpu))
			lo = mid + 1;
		else
			hi = mid;
	}
	lanes = realloc(r->lanes, (r->nr_lanes + 1) * sizeof(*lanes));
	if (!lanes)
		return NULL;
	r->lanes = lanes;
	memmove(&lanes[lo + 1], &lanes[lo],
		(r->nr_lanes - lo) * sizeof(*lanes));
	memset(&lanes[lo], 0, sizeof(*lanes));
	lanes[lo].group = group;
	lanes[lo].cpu = cpu;
	r->nr_lanes++;
	return &lanes[lo];
}

int reorder_cpus(struct reorder *r, uint32_t group, uint32_t nr_cpus)
{
	uint32_t c;

	for (c = 0; c < nr_cpus; c++)
		if (!lane_get(r, group, c))
			return -ENOMEM;
	return 0;
}

static int lane_append(struct reorder_lane *l, const struct mkm_event *ev)
{
	if (l->tail == l->cap) {
		if (l->head > l->cap / 2) {
			memmove(l->q, l->q + l->head,
				(l->tail - l->head) * sizeof(*l->q));
			l->tail -= l->head;
			l->head = 0;
		} else {
			size_t cap = l->cap ? l->cap * 2 : 256;
			struct mkm_event *q = realloc(l->q, cap * sizeof(*q));

			if (!q)
				return -ENOMEM;
			l->q = q;
			l->cap = cap;
		}
	}
	l->q[l->tail] = *ev;
	if (l->q[l->tail].time_ns < l->last)
		l->q[l->tail].time_ns = l->last; /* keep the lane in order */
	l->last = l->q[l->tail].time_ns;
	l->tail++;
	return 0;
}

/* Room for the merged stream's seq counter of @cpu. */
static int out_seq_reserve(struct reorder *r, uint32_t cpu)
{
	size_t n = (size_t)cpu + 1;
	uint32_t *s;

	if (cpu < r->nr_out_seq)
		return 0;
	s = realloc(r->out_seq, n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memset(s + r->nr_out_seq, 0, (n - r->nr_out_seq) * sizeof(*s));
	r->out_seq = s;
	r->nr_out_seq = n;
	return 0;
}

int reorder_push(struct reorder *r, uint32_t group, const struct mkm_event *ev,
		 size_t n)
{
	struct reorder_lane *l = NULL;
	struct mkm_event lost;
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		const struct mkm_event *e = &ev[i];

		if (!l || l->cpu != e->cpu) {
			l = lane_get(r, group, e->cpu);
			if (!l || (r->renumber && out_seq_reserve(r, e->cpu)))
				return -ENOMEM;
		}
		/* A jump in this lane's seqs: events lost here. Renumbered
		 * seqs would hide it, so it becomes a LOST record. */
		if (r->renumber &&
		    mon_seq_lost(&l->seq, e, l->last, &lost) > 0) {
			err = lane_append(l, &lost);
			if (err)
				return err;
			r->held++;
		}
		err = lane_append(l, e);
		if (err)
			return err;
		r->held++;
	}
	return 0;
}

void reorder_horizon(struct reorder *r, uint32_t group, uint64_t horizon)
{
	if (group < r->nr_groups && horizon > r->horizon[group])
		r->horizon[group] = horizon;
}

uint64_t reorder_watermark(const struct reorder *r)
{
	uint64_t w = UINT64_MAX;
	size_t i;

	for (i = 0; i < r->nr_lanes; i++) {
		const struct reorder_lane *l = &r->lanes[i];
		uint64_t h = l->group < r->nr_groups ? r->horizon[l->group] : 0;
		uint64_t lw = l->last > h ? l->last : h;

		if (lw < w)
			w = lw;
	}
	/* A group with no lane yet may still deliver anything past its
	 * horizon. */
	for (i = 0; i < r->nr_groups; i++) {
		size_t k;

		for (k = 0; k < r->nr_lanes && r->lanes[k].group != i; k++)
			;
		if (k == r->nr_lanes && r->horizon[i] < w)
			w = r->horizon[i];
	}
	return w;
}

size_t reorder_pop(struct reorder *r, uint64_t limit, struct mkm_event *out,
		   size_t max)
{
	size_t n = 0;

	while (n < max) {
		struct reorder_lane *best = NULL;
		uint64_t second = UINT64_MAX;
		size_t i;

		/* The earliest head, and the time the next lane's head
		 * has: runs of one lane are taken up to it. Lanes are in
		 * (group, cpu) order, so the first of equal heads wins. */
		for (i = 0; i < r->nr_lanes; i++) {
			struct reorder_lane *l = &r->lanes[i];
			uint64_t t;

			if (l->head == l->tail)
				continue;
			t = l->q[l->head].time_ns;
			if (!best || t < best->q[best->head].time_ns) {
				if (best)
					second = best->q[best->head].time_ns;
				best = l;
			} else if (t < second) {
				second = t;
			}
		}
		/* UINT64_MAX: everything, the rare record stamped so too. */
		if (!best || (best->q[best->head].time_ns >= limit &&
			      limit != UINT64_MAX))
			break;
		/* The run stops at a time equal to another head: the next
		 * scan decides that tie by (group, cpu) order. */
		do {
			struct mkm_event *e = &out[n++];

			*e = best->q[best->head++];
			if (r->renumber)
				seq_assign(&r->out_seq[e->cpu], e);
			r->held--;
		} while (n < max && best->head < best->tail &&
			 best->q[best->head].time_ns < second &&
			 (best->q[best->head].time_ns < limit ||
			  limit == UINT64_MAX));
		if (best->head == best->tail)
			best->head = best->tail = 0;
	}
	return n;
}
