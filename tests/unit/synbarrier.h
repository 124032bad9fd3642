/* SPDX-License-Identifier: GPL-2.0 */
/*
 * synbarrier.h - a synthetic job whose ranks meet at barriers: three
 * nodes, one CPU and one rank (tid 100, "rank") each, looping on a 1 ms
 * compute phase and a barrier that rank 0 gathers and releases, as a TCP
 * barrier does: rank 0 is woken by each arrival (5 us), and the last
 * one's wakes it to send the release and compute on; ranks 1 and 2 are
 * released 20 and 40 us after. Injected (synb_injected): a daemon on n1
 * ("noised", tid 300) preempting its rank in rounds 3 and 7, a kernel
 * thread on n2 ("kworker/0:1", 40) in round 9, the tick interrupting
 * rank 0 in round 5 (which, last, then never sleeps through its barrier).
 * Times are on the reference clock. Used by test_barrier.c (merged
 * directly) and by mktrace's "job DIR barrier" (a trace per node, for
 * mkm merge).
 */
#ifndef SYNBARRIER_H
#define SYNBARRIER_H

#include <stdint.h>
#include <string.h>

#include "libmonitor.h"

#define SYNB_US 1000ull
#define SYNB_PHASE (1000 * SYNB_US)
#define SYNB_ROUNDS 12
#define SYNB_NODES 3
#define SYNB_RANK 100u
#define SYNB_DAEMON 300u
#define SYNB_KWORKER 40u
#define SYNB_T0 (10000 * SYNB_US) /* the first record */

/* Rank @node loses @ns to @who (a thread of its node, or 0: the tick)
 * 200 us into round @round's phase. */
struct synb_inj {
	unsigned int round, node;
	uint32_t who;
	uint64_t ns;
};

static const struct synb_inj synb_injected[] = {
	{ 3, 1, SYNB_DAEMON, 400 * SYNB_US },
	{ 5, 0, 0, 300 * SYNB_US },
	{ 7, 1, SYNB_DAEMON, 400 * SYNB_US },
	{ 9, 2, SYNB_KWORKER, 300 * SYNB_US },
};

static inline const struct synb_inj *synb_at(unsigned int round,
					     unsigned int node)
{
	size_t i;

	for (i = 0; i < sizeof(synb_injected) / sizeof(synb_injected[0]); i++)
		if (synb_injected[i].round == round &&
		    synb_injected[i].node == node)
			return &synb_injected[i];
	return NULL;
}

/* Where the records go: node @node's next one, its tid the node's own;
 * each node's come in time order. */
struct synb_out {
	void (*emit)(struct synb_out *o, unsigned int node, uint64_t t,
		     unsigned int type, uint32_t tid, uint32_t a0, uint32_t a1,
		     unsigned int flags);
};

static inline void synb_in(struct synb_out *o, unsigned int node, uint64_t t,
			   uint32_t tid, uint32_t prev)
{
	o->emit(o, node, t, MKM_EV_SWITCH_IN, tid, 0, prev, 0);
}

static inline void synb_out(struct synb_out *o, unsigned int node, uint64_t t,
			    uint32_t tid, uint32_t next)
{
	o->emit(o, node, t, MKM_EV_SWITCH_OUT, tid, MKM_TS_INTERRUPTIBLE, next,
		0);
}

/* Rank @node computes from @t; returns its arrival (it keeps running). */
static inline uint64_t synb_compute(struct synb_out *o, unsigned int node,
				    unsigned int round, uint64_t t)
{
	const struct synb_inj *j = synb_at(round, node);
	uint64_t at = t + 200 * SYNB_US;

	if (!j)
		return t + SYNB_PHASE;
	if (j->who) {
		o->emit(o, node, at, MKM_EV_SWITCH_OUT, SYNB_RANK,
			MKM_TS_RUNNING, j->who, MKM_EVF_PREEMPTED);
		synb_in(o, node, at, j->who, SYNB_RANK);
		synb_out(o, node, at + j->ns, j->who, SYNB_RANK);
		synb_in(o, node, at + j->ns, SYNB_RANK, j->who);
	} else {
		o->emit(o, node, at, MKM_EV_IRQ_ENTRY, SYNB_RANK,
			MKM_X86_LOCAL_TIMER_VECTOR, 0, MKM_EVF_VECTOR);
		o->emit(o, node, at + j->ns, MKM_EV_IRQ_EXIT, SYNB_RANK,
			MKM_X86_LOCAL_TIMER_VECTOR, 0, MKM_EVF_VECTOR);
	}
	return t + SYNB_PHASE + j->ns;
}

/* A thread attached asleep, and its name (two NAME records). */
static inline void synb_attach(struct synb_out *o, unsigned int node,
			       uint32_t tid, const char *name)
{
	char n[16] = { 0 };
	uint32_t part[4];
	unsigned int i;

	o->emit(o, node, SYNB_T0, MKM_EV_ATTACH, tid, MKM_TS_INTERRUPTIBLE,
		0xffffffffu, 0);
	strncpy(n, name, sizeof(n) - 1);
	memcpy(part, n, sizeof(part));
	for (i = 0; i < 2; i++)
		o->emit(o, node, SYNB_T0, MKM_EV_NAME, tid, part[2 * i],
			part[2 * i + 1], i);
}

/* The job: SYNB_ROUNDS rounds and a last phase. */
static inline void synb_job(struct synb_out *o)
{
	uint64_t start0 = SYNB_T0 + 100 * SYNB_US, rel = start0 + 20 * SYNB_US;
	uint64_t arrive[SYNB_NODES];
	unsigned int k, i;

	for (i = 0; i < SYNB_NODES; i++)
		synb_attach(o, i, SYNB_RANK, "rank");
	synb_attach(o, 1, SYNB_DAEMON, "noised");
	synb_attach(o, 2, SYNB_KWORKER, "kworker/0:1");
	synb_in(o, 0, start0, SYNB_RANK, 0);
	for (k = 0; k <= SYNB_ROUNDS; k++) {
		uint64_t first, last;

		for (i = 1; i < SYNB_NODES; i++) {
			synb_in(o, i, rel + 20 * SYNB_US * i, SYNB_RANK, 0);
			arrive[i] =
				synb_compute(o, i, k, rel + 20 * SYNB_US * i);
			synb_out(o, i, arrive[i], SYNB_RANK, 0);
		}
		arrive[0] = synb_compute(o, 0, k, start0);
		if (k == SYNB_ROUNDS) {
			synb_out(o, 0, arrive[0], SYNB_RANK, 0);
			break;
		}
		first = arrive[1] < arrive[2] ? arrive[1] : arrive[2];
		last = arrive[1] > arrive[2] ? arrive[1] : arrive[2];
		if (arrive[0] > last) {
			/* Last: the others' messages are there; no sleep. */
			start0 = arrive[0];
		} else {
			synb_out(o, 0, arrive[0], SYNB_RANK, 0);
			if (first > arrive[0]) {
				/* Woken by the first message: 5 us. */
				synb_in(o, 0, first + 10 * SYNB_US, SYNB_RANK,
					0);
				synb_out(o, 0, first + 15 * SYNB_US, SYNB_RANK,
					 0);
			}
			start0 = last + 10 * SYNB_US;
			synb_in(o, 0, start0, SYNB_RANK, 0);
		}
		rel = start0 + 20 * SYNB_US;
	}
}

#endif /* SYNBARRIER_H */
