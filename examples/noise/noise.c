// SPDX-License-Identifier: GPL-2.0
/*
 * noise.c - Tsafrir, Etsion, Feitelson and Kirkpatrick, "System Noise, OS
 * Clock Ticks, and Fine-Grained Parallel Applications" (ICS 2005):
 * the fixed-work-quantum benchmark under a system-wide monitor, each
 * stretched quantum ascribed to what took its time, p measured for several
 * delay thresholds, and the noise law checked.
 *
 * The thread (pinned to CPU 0) times N quanta of the same work. A quantum
 * is delayed by d when it took more than (1 + d) times the fastest one; p(d)
 * is the share of such quanta. A bulk-synchronous job on n nodes waits, at
 * each phase, for the slowest of its n quanta: a phase is delayed with
 * probability dp(n) = 1 - (1 - p)^n. The simulation draws each phase's n
 * quanta from the recorded ones (with replacement) and compares the share
 * of delayed phases, and the job's slowdown, with the law.
 *
 *   noise [-o FILE] [-n QUANTA] [-w ITERATIONS] [-r PHASES]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

struct quantum {
	uint64_t start, end;
};

static int by_length(const void *a, const void *b)
{
	const struct quantum *x = a, *y = b;
	uint64_t dx = x->end - x->start, dy = y->end - y->start;

	return dx < dy ? 1 : dx > dy ? -1 : 0;
}

/* xorshift64*: the simulation's draws, repeatable. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/* The cause of a quantum's delay: whatever took most of it, and how much. */
static void cause(struct noise *n, size_t th, const struct quantum *q,
		  char *buf, size_t len, uint64_t *taken, uint64_t *total)
{
	struct noise_result r;

	snprintf(buf, len, "(nothing recorded: caches, TLB?)");
	*taken = *total = 0;
	if (noise_thread(n, th, q->start, q->end, &r))
		return;
	*total = r.taken_ns;
	if (r.nr_sources) {
		snprintf(buf, len, "%s%s", r.sources[0].name,
			 r.nr_sources > 1 ? " +" : "");
		*taken = r.sources[0].taken_ns;
	}
	noise_result_free(&r);
}

/* What ascribed delays add up to, per cause name. */
struct tally {
	char name[40];
	unsigned long count;
	uint64_t taken;
};

static void tally_add(struct tally *t, size_t *n, size_t max, const char *name,
		      uint64_t taken)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(t[i].name, name))
			break;
	if (i == *n) {
		if (*n == max)
			return;
		memset(&t[i], 0, sizeof(t[i]));
		snprintf(t[i].name, sizeof(t[i].name), "%s", name);
		(*n)++;
	}
	t[i].count++;
	t[i].taken += taken;
}

int main(int argc, char **argv)
{
	static const double thresholds[] = { 0.01, 0.05, 0.10, 0.50, 1.00 };
	static const unsigned long nodes[] = { 1, 10, 100, 1000, 10000 };
	unsigned long quanta = 2000, iterations = 0, phases = 2000, k;
	struct mon_pipeline *p = NULL;
	struct mon_source *src;
	struct monitor *mon;
	struct quantum *q;
	struct noise *nz;
	struct tally tally[32];
	size_t nt = 0, i, j, delayed = 0;
	uint64_t min = UINT64_MAX, seed = 0x9e3779b97f4a7c15ull;
	double p10 = 0;
	cpu_set_t cpu0;
	struct tl *tl;
	int64_t th;
	const char *out = NULL;
	int opt, ret;

	while ((opt = getopt(argc, argv, "o:n:w:r:")) != -1) {
		if (opt == 'o')
			out = optarg;
		else if (opt == 'n' && atol(optarg) > 0)
			quanta = atol(optarg);
		else if (opt == 'w' && atol(optarg) > 0)
			iterations = atol(optarg);
		else if (opt == 'r' && atol(optarg) > 0)
			phases = atol(optarg);
		else {
			fprintf(stderr,
				"usage: noise [-o FILE] [-n QUANTA] [-w ITERATIONS] [-r PHASES]\n");
			return 2;
		}
	}
	q = calloc(quanta, sizeof(*q));
	if (!q)
		return 1;
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	sched_setaffinity(0, sizeof(cpu0), &cpu0);
	if (!iterations)
		iterations = fixed_work_iterations(1000000);

	ret = record_system("noise", &mon, &src, &p, &tl, out);
	if (ret) {
		fprintf(stderr, "noise: %s\n", monitor_strerror(ret));
		return 1;
	}
	for (i = 0; i < quanta; i++) {
		q[i].start = now_ns();
		fixed_work(iterations);
		q[i].end = now_ns();
	}
	ret = record_finish(mon, src, p);
	th = tl_find(tl, gettid());
	if (ret || th < 0 || noise_create(&nz, tl)) {
		fprintf(stderr, "noise: no timeline of this thread\n");
		return 1;
	}

	for (i = 0; i < quanta; i++)
		if (q[i].end - q[i].start < min)
			min = q[i].end - q[i].start;
	printf("FTQ under a system-wide monitor: %lu quanta of %lu iterations on CPU 0, fastest %.1f us\n\n",
	       quanta, iterations, min / 1e3);

	printf("p(d): the share of quanta delayed by more than d\n%10s %10s %10s\n",
	       "d", "quanta", "p");
	for (k = 0; k < sizeof(thresholds) / sizeof(thresholds[0]); k++) {
		size_t c = 0;

		for (i = 0; i < quanta; i++)
			c += q[i].end - q[i].start >
			     (uint64_t)(min * (1 + thresholds[k]));
		printf("%9.0f%% %10zu %10.5f\n", 100 * thresholds[k], c,
		       (double)c / quanta);
		if (thresholds[k] == 0.10)
			p10 = (double)c / quanta;
	}

	/* Every quantum delayed by more than 10%: what took its time. */
	for (i = 0; i < quanta; i++) {
		char name[40];
		uint64_t taken, total;

		if (q[i].end - q[i].start <= min + min / 10)
			continue;
		delayed++;
		cause(nz, (size_t)th, &q[i], name, sizeof(name), &taken,
		      &total);
		tally_add(tally, &nt, 32, name, total);
	}
	printf("\nThe %zu quanta delayed by more than 10%%, by their main cause\n%-34s %8s %14s\n",
	       delayed, "CAUSE (+: others too)", "QUANTA", "TIME TAKEN");
	for (i = 0; i < nt; i++)
		printf("%-34s %8lu %11.1f us\n", tally[i].name, tally[i].count,
		       tally[i].taken / 1e3);

	qsort(q, quanta, sizeof(*q), by_length);
	printf("\nMost stretched quanta\n%12s %10s %10s  %s\n", "took (us)",
	       "delay", "taken (us)", "main cause (its share)");
	for (i = 0; i < quanta && i < 8; i++) {
		char name[40];
		uint64_t taken, total, d = q[i].end - q[i].start;

		cause(nz, (size_t)th, &q[i], name, sizeof(name), &taken,
		      &total);
		printf("%12.1f %9.1f%% %10.1f  %s (%.1f us)\n", d / 1e3,
		       100.0 * (d - min) / min, total / 1e3, name, taken / 1e3);
	}

	/*
	 * The noise law: phases of a job on n nodes, each node's quantum
	 * drawn from the recorded ones; a phase is delayed when its slowest
	 * quantum is (d = 10%).
	 */
	printf("\nThe noise law, d = 10%%, p = %.5f: a bulk-synchronous job on n nodes, %lu phases simulated\n",
	       p10, phases);
	printf("%8s %14s %14s %12s\n", "n", "dp(n) law", "dp(n) sim",
	       "slowdown");
	for (k = 0; k < sizeof(nodes) / sizeof(nodes[0]); k++) {
		unsigned long late = 0, ph;
		double sum = 0;

		for (ph = 0; ph < phases; ph++) {
			uint64_t worst = 0;

			for (j = 0; j < nodes[k]; j++) {
				const struct quantum *x =
					&q[rnd(&seed) % quanta];

				if (x->end - x->start > worst)
					worst = x->end - x->start;
			}
			late += worst > min + min / 10;
			sum += (double)worst;
		}
		printf("%8lu %14.4f %14.4f %11.3fx\n", nodes[k],
		       1 - pow(1 - p10, (double)nodes[k]),
		       (double)late / phases, sum / phases / min);
	}
	print_osnoise(nz, (size_t)th);
	noise_destroy(nz);
	tl_destroy(tl);
	free(q);
	return 0;
}
