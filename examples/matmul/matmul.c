// SPDX-License-Identifier: GPL-2.0
/*
 * matmul.c - the MKM paper's matrix multiplication (Lehr et al. 1989, sec. 3).
 *
 * main starts a collector and the first multiply thread. Each multiply
 * thread starts the next while work remains, multiplies its band of rows,
 * then joins the thread it started. The collector, PIE's observer, wakes
 * every millisecond to gather the progress the multipliers publish, until
 * all rows are done. Watching it under mkm shows how the scheduler spawns,
 * time-shares and finishes the threads, and any "flutter".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned int n = 200, nr_threads = 4;
static double *a, *b, *c;
static atomic_uint rows_done;
static atomic_bool all_done;

struct band {
	unsigned int index; /* 1, 2, ... */
	unsigned int first, last; /* rows [first, last) */
};

static void *multiply(void *arg);

/* Starts multiply thread index for the next band, if work remains. */
static int start_band(unsigned int index, pthread_t *tid)
{
	struct band *band;
	unsigned int per = (n + nr_threads - 1) / nr_threads;

	if (index > nr_threads || (index - 1) * per >= n)
		return 0;
	band = malloc(sizeof(*band));
	if (!band)
		return 0;
	band->index = index;
	band->first = (index - 1) * per;
	band->last = band->first + per < n ? band->first + per : n;
	if (pthread_create(tid, NULL, multiply, band)) {
		free(band);
		return 0;
	}
	return 1;
}

static void *multiply(void *arg)
{
	struct band *band = arg;
	unsigned int i, j, k;
	char name[16];
	pthread_t next;
	int started;

	snprintf(name, sizeof(name), "multiply-%u", band->index);
	pthread_setname_np(pthread_self(), name);
	started = start_band(band->index + 1, &next);
	for (i = band->first; i < band->last; i++) {
		for (j = 0; j < n; j++) {
			double sum = 0;

			for (k = 0; k < n; k++)
				sum += a[i * n + k] * b[k * n + j];
			c[i * n + j] = sum;
		}
		atomic_fetch_add(&rows_done, 1);
	}
	if (started)
		pthread_join(next, NULL);
	free(band);
	return NULL;
}

static void *collector(void *arg)
{
	const struct timespec tick = { 0, 1000000 };
	unsigned int seen = 0, samples = 0;

	pthread_setname_np(pthread_self(), "collector");
	while (!atomic_load(&all_done)) {
		unsigned int now = atomic_load(&rows_done);

		samples += now != seen;
		seen = now;
		nanosleep(&tick, NULL);
	}
	*(unsigned int *)arg = samples;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t coll, first;
	unsigned int i, samples = 0;
	double trace = 0;
	int opt;

	while ((opt = getopt(argc, argv, "n:t:")) != -1) {
		if (opt == 'n' && atoi(optarg) > 0)
			n = atoi(optarg);
		else if (opt == 't' && atoi(optarg) > 0)
			nr_threads = atoi(optarg);
		else {
			fprintf(stderr,
				"usage: matmul [-n SIZE] [-t THREADS]\n");
			return 2;
		}
	}
	pthread_setname_np(pthread_self(), "main");
	a = malloc(sizeof(double) * n * n);
	b = malloc(sizeof(double) * n * n);
	c = calloc((size_t)n * n, sizeof(double));
	if (!a || !b || !c) {
		fprintf(stderr, "matmul: out of memory\n");
		return 1;
	}
	for (i = 0; i < n * n; i++) {
		a[i] = (double)(i % 7) - 3;
		b[i] = (double)(i % 5) - 2;
	}
	if (pthread_create(&coll, NULL, collector, &samples)) {
		fprintf(stderr, "matmul: cannot start the collector\n");
		return 1;
	}
	if (start_band(1, &first))
		pthread_join(first, NULL);
	atomic_store(&all_done, true);
	pthread_join(coll, NULL);
	for (i = 0; i < n; i++)
		trace += c[i * n + i];
	printf("matmul: %ux%u with %u multiply threads, trace %.0f, collector saw progress %u times\n",
	       n, n, nr_threads, trace, samples);
	free(a);
	free(b);
	free(c);
	return 0;
}
