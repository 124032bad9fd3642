// SPDX-License-Identifier: GPL-2.0
/*
 * wakelat.c - the floor under a flight snapshot's latency: how long a
 * thread woken from another CPU takes to run, with no monitor at all.
 * A waiter blocks in read() on a pipe; every PERIOD ms a waker on the other
 * CPU writes the time into it, and the waiter takes the difference to its
 * own clock when read() returns: the wakeup's latency, as the snapshot's
 * writer lives it after its trigger (bench/flight/snapshot.sh runs it
 * beside the same spinners).
 *
 *   wakelat [-n WAKEUPS] [-p PERIOD_MS] [-r PRIO]
 *
 * The waiter runs at SCHED_FIFO PRIO (0: the caller's policy). Prints
 * "WAKELAT prio n min median max over10" in ms.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static unsigned int wakeups = 100, period_ms = 20;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *waker(void *arg)
{
	struct timespec gap = { .tv_nsec = (long)period_ms * 1000000 };
	unsigned int i;

	(void)arg;
	pin(1);
	for (i = 0; i < wakeups; i++) {
		uint64_t t;

		nanosleep(&gap, NULL);
		t = now_ns();
		if (write(fds[1], &t, sizeof(t)) != sizeof(t))
			break;
	}
	return NULL;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	struct sched_param sp = { 0 };
	unsigned int i, n = 0, over = 0;
	pthread_t w;
	double *lat;
	int opt;

	while ((opt = getopt(argc, argv, "n:p:r:")) != -1) {
		switch (opt) {
		case 'n':
			wakeups = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'p':
			period_ms = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'r':
			sp.sched_priority = atoi(optarg);
			break;
		default:
			fprintf(stderr,
				"usage: wakelat [-n WAKEUPS] [-p PERIOD_MS] [-r PRIO]\n");
			return 2;
		}
	}
	lat = calloc(wakeups ? wakeups : 1, sizeof(*lat));
	if (!lat || pipe(fds)) {
		perror("wakelat");
		return 1;
	}
	/* The waker first, at the caller's policy: only the waiter is FIFO. */
	if (pthread_create(&w, NULL, waker, NULL))
		return 1;
	pin(0);
	if (sp.sched_priority && sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "wakelat: SCHED_FIFO %d: %s\n",
			sp.sched_priority, strerror(errno));
		return 1;
	}
	for (i = 0; i < wakeups; i++) {
		uint64_t t;

		if (read(fds[0], &t, sizeof(t)) != sizeof(t))
			break;
		lat[n] = (double)(now_ns() - t) / 1e6;
		over += lat[n] > 10;
		n++;
	}
	pthread_join(w, NULL);
	if (!n)
		return 1;
	qsort(lat, n, sizeof(*lat), by_value);
	printf("WAKELAT %d %u %.3f %.3f %.3f %u\n", sp.sched_priority, n,
	       lat[0], lat[(n - 1) / 2], lat[n - 1], over);
	return 0;
}
