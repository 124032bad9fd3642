/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * analysis/analysis.h - the insides of noise and idle analysis: the index
 * of who occupied each CPU when (index.c) and its walks (walk.c), shared
 * by noise.c, idle.c and late.c.
 */
#ifndef MON_ANALYSIS_INTERNAL_H
#define MON_ANALYSIS_INTERNAL_H

#include "timeline/timeline.h"

/*
 * One stretch of a CPU held by one owner: a thread (owner >= 0, its index)
 * or an interrupt handler (owner < 0: an_irq_owner()). A CPU's segments
 * are in time order and never overlap; where handlers nest, the innermost
 * owns the time. burst numbers the owner's stretch it belongs to: a
 * thread's dispatch (IRQs inside it do not split it), a handler's run.
 */
struct an_seg {
	uint64_t start, end;
	int64_t owner;
	uint64_t burst;
};

struct an_cpu {
	struct an_seg *seg;
	size_t nr_seg;
	size_t *irq; /* indexes into tl's handler runs, by start, outer first */
	size_t nr_irq;
};

struct noise {
	const struct tl *tl;
	unsigned int nr_cpus;
	struct an_cpu *cpus;
};

static inline int64_t an_irq_owner(unsigned int kind, uint32_t number)
{
	return -1 - (int64_t)(((uint64_t)kind << 32) | number);
}

static inline unsigned int an_owner_kind(int64_t owner)
{
	return owner >= 0 ? NOISE_THREAD :
			    (unsigned int)((uint64_t)(-1 - owner) >> 32) + 1;
}

static inline uint32_t an_owner_number(int64_t owner)
{
	return owner >= 0 ? 0 : (uint32_t)(uint64_t)(-1 - owner);
}

/* Asleep, blocked or stopped: a state a wakeup ends. */
static inline bool an_asleep(unsigned int state)
{
	unsigned int g = mon_states[state].group;

	return g == TL_GROUP_SLEEP || g == TL_GROUP_DISK || g == TL_GROUP_STOP;
}

/* The first segment of cpu that ends after t (nr_seg if none). */
MON_HIDDEN size_t an_seg_after(const struct an_cpu *c, uint64_t t);
/*
 * an_walk - each owner's part of [a, b) on cpu, in time order: fn(arg, g,
 * from, to) for each segment g's overlap [from, to); the time no segment
 * holds (gaps, a CPU the index lacks) added to *unknown. k: the segment
 * to start from (at or before the first that ends after a; AN_SEARCH:
 * found by binary search). *end (if end): where the walk stopped, the
 * first segment that starts at or after b. Return: 0, or fn's first
 * error (the walk stops there).
 */
#define AN_SEARCH ((size_t)-1)
typedef int (*an_piece_fn)(void *arg, const struct an_seg *g, uint64_t from,
			   uint64_t to);
MON_HIDDEN int an_walk(const struct noise *n, unsigned int cpu, uint64_t a,
		       uint64_t b, size_t k, an_piece_fn fn, void *arg,
		       uint64_t *unknown, size_t *end);
/* The first of c's handler runs (by start) that starts at or after t
 * (nr_irq if none). */
MON_HIDDEN size_t an_irq_after(const struct noise *n, const struct an_cpu *c,
			       uint64_t t);
/* The name of an owner: a thread's comm, or a handler's name. */
MON_HIDDEN void an_owner_name(const struct noise *n, int64_t owner, char *buf,
			      size_t len);
/*
 * The median of gaps v[0..n) (in time order, left so), and how regular they
 * are: the share of runs of 4 consecutive gaps whose sum is within 10% of
 * 4 medians (0 with fewer than 8 gaps: too few to tell).
 */
MON_HIDDEN uint64_t an_median(uint64_t *v, size_t n, double *regular);

#endif /* MON_ANALYSIS_INTERNAL_H */
