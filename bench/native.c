// SPDX-License-Identifier: GPL-2.0
/*
 * native.c - the sensor's hot path in userspace: ns per event.
 *
 * The ring is kernel/ring.h itself, built through kernel/ring_user.h. The
 * rest of the path is re-made here in the kernel's shape, since it needs
 * kernel headers: the thread lookup of kernel/threads.h (a 32-bit
 * multiplicative hash of the task pointer's low half, a bit per bucket
 * saying whether any thread hashes there, then the bucket's list), and the
 * clock as local_clock() reads it on x86 (two calls deep, the TSC scaled by
 * the CPU's cyc2ns under a latch sequence). What the kernel adds and this
 * cannot show: the tracepoint call itself, interrupts disabled around the
 * write, preemption disabled around the cyc2ns read.
 *
 * Cases, each a loop of n events in its own function (named bench_<case>,
 * so that callgrind can count it alone):
 *
 *   rdtsc       a bare rdtsc: the floor
 *   clock       the clock read, as local_clock()
 *   miss        the lookup of an untracked task (what every switch pays)
 *   hit         the lookup of a tracked task
 *   ring        ring_write(), one record, a timestamp given
 *   event       one whole event: lookup, clock, ring write
 *   switch      a monitored context switch: two lookups, one clock read,
 *               the SWITCH_OUT and SWITCH_IN records
 *
 *   native [-c CASE] [-n EVENTS] [-r RUNS]
 *
 * prints, per case, the median, min and max ns per event over the runs.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "ring.h"

/* ---- the lookup, in kernel/threads.h's shape ---- */

#define HASH_BITS 10
#define GOLDEN_RATIO_32 0x61C88647u

struct task {
	char body[9216]; /* about a task_struct: pointers spread like theirs */
};

struct tracked {
	struct tracked *next;
	const struct task *task;
	u32 tid;
	u32 unique_id;
};

static struct tracked *buckets[1 << HASH_BITS];
static unsigned long filter[(1 << HASH_BITS) / 64];

static inline u32 hash_task(const struct task *t)
{
	return ((u32)(uintptr_t)t * GOLDEN_RATIO_32) >> (32 - HASH_BITS);
}

static inline struct tracked *lookup(const struct task *task)
{
	u32 h = hash_task(task);
	struct tracked *t;

	if (!(READ_ONCE(filter[h / 64]) & (1ul << (h % 64))))
		return NULL;
	for (t = READ_ONCE(buckets[h]); t; t = READ_ONCE(t->next))
		if (t->task == task)
			return t;
	return NULL;
}

static void track(struct tracked *t, const struct task *task, u32 tid)
{
	u32 h = hash_task(task);

	t->task = task;
	t->tid = tid;
	t->unique_id = tid;
	t->next = buckets[h];
	buckets[h] = t;
	filter[h / 64] |= 1ul << (h % 64);
}

/*
 * ---- the clock, in local_clock()'s shape on x86 ----
 * sched_clock_cpu() with a stable clock: sched_clock() plus an offset;
 * native_sched_clock(): rdtsc, then the CPU's cyc2ns (mul, shift, offset),
 * read under a latch sequence, as cycles_2_ns() does.
 */

struct cyc2ns_data {
	u32 mul, shift;
	u64 offset;
};

struct cyc2ns {
	struct cyc2ns_data data[2];
	unsigned int seq;
};

static struct cyc2ns cyc2ns;
static u64 sched_clock_offset;

static __attribute__((noinline)) u64 sched_clock(void)
{
	struct cyc2ns_data d;
	unsigned int seq;
	u64 tsc = __rdtsc();

	do {
		seq = smp_load_acquire(&cyc2ns.seq);
		d = cyc2ns.data[seq & 1];
	} while (READ_ONCE(cyc2ns.seq) != seq);
	return (u64)(((unsigned __int128)tsc * d.mul) >> d.shift) + d.offset;
}

/* Not inlined either, as the kernel's exported function is not. */
static __attribute__((noinline)) u64 local_clock(void)
{
	return sched_clock() + sched_clock_offset;
}

static void clock_init(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		/* About 2.6 GHz, as the kernel would scale it. */
		cyc2ns.data[i].shift = 24;
		cyc2ns.data[i].mul = (u32)((1000ull << 24) / 2600);
	}
	sched_clock_offset = 12345;
}

/* ---- the cases ---- */

static struct mkm_ring *ring;
static struct task *tasks;
static volatile u64 sink;

/* The reader: frees the ring often enough that it never fills. */
static inline void drain_sometimes(u64 i)
{
	if (!(i & 1023))
		smp_store_release(&ring->rd.tail, ring->head);
}

/* As the sensor writes a record (sensor_write()). */
static inline void write_event(struct mkm_ring *r, u32 tid, u32 unique_id,
			       u8 type, u32 arg0, u32 arg1, u64 now)
{
	ring_write(r, tid, unique_id, type, 0, arg0, arg1, now);
}

__attribute__((noinline)) static void bench_rdtsc(u64 n)
{
	u64 i, s = 0;

	for (i = 0; i < n; i++)
		s += __rdtsc();
	sink = s;
}

__attribute__((noinline)) static void bench_clock(u64 n)
{
	u64 i, s = 0;

	for (i = 0; i < n; i++)
		s += local_clock();
	sink = s;
}

/* Untracked tasks, as most of a machine's switches are. */
__attribute__((noinline)) static void bench_miss(u64 n)
{
	u64 i, s = 0;

	for (i = 0; i < n; i++)
		s += (uintptr_t)lookup(&tasks[2 + (i & 31)]);
	sink = s;
}

__attribute__((noinline)) static void bench_hit(u64 n)
{
	u64 i, s = 0;

	for (i = 0; i < n; i++)
		s += (uintptr_t)lookup(&tasks[i & 1]);
	sink = s;
}

__attribute__((noinline)) static void bench_ring(u64 n)
{
	u64 i;

	for (i = 0; i < n; i++) {
		write_event(ring, 100, 1, MKM_EV_WAKEUP, 0, 101, i);
		drain_sometimes(i);
	}
}

__attribute__((noinline)) static void bench_event(u64 n)
{
	u64 i;

	for (i = 0; i < n; i++) {
		struct tracked *t = lookup(&tasks[i & 1]);

		if (t)
			write_event(ring, t->tid, t->unique_id, MKM_EV_WAKEUP,
				    0, 101, local_clock());
		drain_sometimes(i);
	}
}

/* n events: n / 2 switches between the two tracked tasks. */
__attribute__((noinline)) static void bench_switch(u64 n)
{
	u64 i;

	for (i = 0; i < n; i += 2) {
		const struct task *prev = &tasks[i / 2 & 1];
		const struct task *next = &tasks[(i / 2 + 1) & 1];
		struct tracked *pt = lookup(prev), *nt = lookup(next);

		if (pt || nt) {
			u64 now = local_clock();

			if (pt)
				write_event(ring, pt->tid, pt->unique_id,
					    MKM_EV_SWITCH_OUT,
					    MKM_TS_INTERRUPTIBLE,
					    nt ? nt->tid : 0, now);
			if (nt)
				write_event(ring, nt->tid, nt->unique_id,
					    MKM_EV_SWITCH_IN, 0,
					    pt ? pt->tid : 0, now);
		}
		drain_sometimes(i);
		drain_sometimes(i + 1);
	}
}

static const struct {
	const char *name;
	void (*run)(u64 n);
	const char *what;
} cases[] = {
	{ "rdtsc", bench_rdtsc, "bare rdtsc (the floor)" },
	{ "clock", bench_clock, "clock read, local_clock shape" },
	{ "miss", bench_miss, "lookup, untracked task" },
	{ "hit", bench_hit, "lookup, tracked task" },
	{ "ring", bench_ring, "ring_write(): one record" },
	{ "event", bench_event, "one event: lookup + clock + ring" },
	{ "switch", bench_switch,
	  "switch out+in: 2 lookups, 1 clock, 2 records" },
};
#define NR_CASES (sizeof(cases) / sizeof(cases[0]))

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static struct tracked tracked[2];
	const char *only = NULL;
	u64 n = 20000000,
	    cap = MKM_RING_DEFAULT_BYTES / sizeof(struct mkm_event);
	int runs = 7, opt, i, r;
	double *ns;

	while ((opt = getopt(argc, argv, "c:n:r:")) != -1) {
		if (opt == 'c')
			only = optarg;
		else if (opt == 'n' && atoll(optarg) > 0)
			n = atoll(optarg);
		else if (opt == 'r' && atoi(optarg) > 0)
			runs = atoi(optarg);
		else {
			fprintf(stderr, "usage: native [-c CASE] [-n EVENTS] "
					"[-r RUNS]\n");
			return 2;
		}
	}
	ring = aligned_alloc(4096, ring_alloc_size(cap));
	tasks = aligned_alloc(64, 64 * sizeof(*tasks));
	ns = calloc(runs, sizeof(*ns));
	if (!ring || !tasks || !ns)
		return 1;
	memset(ring, 0, ring_alloc_size(cap));
	ring_init(ring, cap, cap / 2, 0);
	clock_init();
	/* Two tracked tasks among 64, as a monitored ping-pong. */
	track(&tracked[0], &tasks[0], 100);
	track(&tracked[1], &tasks[1], 101);

	printf("%-8s %-46s %9s %9s %9s\n", "case", "what", "ns/event", "min",
	       "max");
	for (i = 0; i < (int)NR_CASES; i++) {
		if (only && strcmp(only, cases[i].name))
			continue;
		cases[i].run(n / 10); /* warm the caches and the ring */
		for (r = 0; r < runs; r++) {
			u64 t0 = now_ns();

			cases[i].run(n);
			ns[r] = (double)(now_ns() - t0) / n;
		}
		qsort(ns, runs, sizeof(*ns), cmp_double);
		printf("%-8s %-46s %9.2f %9.2f %9.2f\n", cases[i].name,
		       cases[i].what, ns[runs / 2], ns[0], ns[runs - 1]);
	}
	return 0;
}
