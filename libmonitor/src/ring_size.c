// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ring_size.c - how large a recorder's per-CPU rings should be: from the
 * event classes it records and the CPUs it records on, and, after a
 * recording that lost events, how large they would have had to be.
 *
 * A ring has to hold what its CPU writes while the one reader is away:
 * the records per context switch (two for sched, two more with wakeups,
 * a syscall's two per call, an interrupt's two per tick), and the time the
 * reader spends on the other rings, which grows with their number. The
 * default classes recorded hackbench (161 threads, 2 CPUs) without loss
 * in 1 MiB rings, where --events all lost 69% of its events: the default
 * classes get twice that on up to four CPUs, and the rest scales from
 * there.
 */
#include "internal.h"

/* Records a class adds per context switch, roughly (lifecycle: a few
 * per thread, not per switch). System calls: hackbench recorded with every
 * class (docs/performance.md, "Ring sizes and loss on hackbench") wrote
 * five times the other classes' records, and lost 12-28% of them at 8M
 * rings, none at 16M: their weight puts that recording at 16M. */
static unsigned int class_weight(uint32_t classes)
{
	unsigned int w = 0;

	if (classes & MKM_CLASS_SCHED)
		w += 2;
	if (classes & MKM_CLASS_WAKEUP)
		w += 2;
	if (classes & MKM_CLASS_IRQ)
		w += 1;
	if (classes & MKM_CLASS_SYSCALL)
		w += 12;
	/* A record per switch and per wakeup, two from 6.6 (EEVDF). */
	if (classes & MKM_CLASS_SCHED_STATE)
		w += 4;
	return w ? w : 1;
}

static uint64_t pow2_at_least(uint64_t v)
{
	uint64_t p = 1;

	while (p < v && p < (1ull << 62))
		p <<= 1;
	return p;
}

/* The default classes' weight (sched, lifecycle, irq) gets BASE_BYTES. */
#define BASE_WEIGHT 3
#define BASE_BYTES (2ull << 20)

uint64_t mon_ring_bytes_for(uint32_t classes, unsigned int nr_cpus,
			    uint64_t ram_bytes)
{
	uint64_t bytes, cpus = nr_cpus ? nr_cpus : 1;

	if (!classes)
		classes = MKM_CLASS_DEFAULT;
	bytes = BASE_BYTES * class_weight(classes) / BASE_WEIGHT;
	/* One reader visits every ring in turn: more rings, longer away. */
	if (cpus > 4)
		bytes *= (cpus + 3) / 4;
	bytes = pow2_at_least(bytes);
	if (bytes > MKM_RING_MAX_BYTES)
		bytes = MKM_RING_MAX_BYTES;
	/* Rings are unswappable: all of them within 1/32 of the RAM (the
	 * module refuses half). */
	while (ram_bytes && bytes > MKM_RING_MIN_BYTES &&
	       bytes * cpus > ram_bytes / 32)
		bytes >>= 1;
	return bytes;
}

uint64_t mon_ring_bytes_after_loss(uint64_t ring_bytes, uint64_t events,
				   uint64_t lost)
{
	uint64_t need;

	if (!lost)
		return ring_bytes;
	if (ring_bytes >= MKM_RING_MAX_BYTES)
		return 0;
	/* What was read and lost had to fit, with room to spare: twice
	 * the ring times the share that was kept's inverse. */
	if (!events)
		need = ring_bytes * 16;
	else
		need = ring_bytes * 2 * ((events + lost + events - 1) / events);
	need = pow2_at_least(need);
	return need > MKM_RING_MAX_BYTES ? MKM_RING_MAX_BYTES : need;
}
