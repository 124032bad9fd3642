// SPDX-License-Identifier: GPL-2.0
/*
 * cli_workload.c - a known workload for the CLI tests: threads that compute,
 * sleep, block on a pipe and compete for one CPU. Before it exits, each
 * thread appends the kernel's own accounting of itself, from
 * /proc/self/task/<tid>/schedstat, to the file named by argv[1], with the
 * CLOCK_MONOTONIC time right after the read (mkm's clock) and how long the
 * read took (the uncertainty of that time), then what one context switch
 * costs on this kernel, measured before the threads start:
 *   <tid> <time> <window> <ns on CPU> <ns waiting on a run queue> <times run>
 *   <ns per switch>
 * With -f the two pipe threads run SCHED_FIFO: they starve whatever else
 * shares their CPU, a recorder's drain thread included.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *out_path;
static uint64_t switch_cost;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static int ping[2], pong[2];
static volatile unsigned long sink;

static void spin_ms(unsigned int ms)
{
	struct timespec a, b;
	unsigned long x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 10000; i++)
			x = x * 3 + i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 +
			 (b.tv_nsec - a.tv_nsec) / 1000000 <
		 ms);
	sink = x;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * Reads the thread's schedstat between two clock reads. A preemption in
 * between would make the instant of the read uncertain by a whole slice, so
 * keep the attempt with the narrowest window.
 */
static void report_self(void)
{
	char path[64], line[128], best[128] = "";
	uint64_t window = UINT64_MAX, at = 0;
	FILE *out;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", gettid());
	for (int i = 0; i < 20 && window > 100000; i++) {
		int fd = open(path, O_RDONLY);
		uint64_t t0, t1;
		ssize_t n;

		if (fd < 0)
			exit(1);
		t0 = now_ns();
		n = pread(fd, line, sizeof(line) - 1, 0);
		t1 = now_ns();
		close(fd);
		if (n <= 0)
			exit(1);
		line[n] = 0;
		if (t1 - t0 < window) {
			window = t1 - t0;
			at = t1;
			memcpy(best, line, sizeof(best));
		}
	}
	pthread_mutex_lock(&out_lock);
	out = fopen(out_path, "a");
	if (!out)
		exit(1);
	best[strcspn(best, "\n")] = 0;
	fprintf(out, "%d %llu %llu %s %llu\n", gettid(), (unsigned long long)at,
		(unsigned long long)window, best,
		(unsigned long long)switch_cost);
	fclose(out);
	pthread_mutex_unlock(&out_lock);
}

static void *spinner(void *arg)
{
	(void)arg;
	spin_ms(60);
	report_self();
	return NULL;
}

static void *napper(void *arg)
{
	const struct timespec nap = { 0, 10000000 };

	(void)arg;
	for (int i = 0; i < 5; i++) {
		spin_ms(2);
		nanosleep(&nap, NULL);
	}
	report_self();
	return NULL;
}

static int fifo;

static void *piper(void *arg)
{
	struct sched_param prio = { .sched_priority = 1 };
	char c = 'x';

	if (fifo && pthread_setschedparam(pthread_self(), SCHED_FIFO, &prio))
		exit(1);
	for (int i = 0; i < 300; i++) {
		if (arg) {
			if (write(ping[1], &c, 1) != 1 ||
			    read(pong[0], &c, 1) != 1)
				exit(1);
		} else {
			if (read(ping[0], &c, 1) != 1 ||
			    write(pong[1], &c, 1) != 1)
				exit(1);
		}
	}
	report_self();
	return NULL;
}

static void *echo(void *arg)
{
	char c;

	(void)arg;
	while (read(ping[0], &c, 1) == 1 && write(pong[1], &c, 1) == 1)
		;
	return NULL;
}

/*
 * The time of one switch between two threads of this CPU, syscalls
 * included: an upper bound on the part of a switch between the kernel's
 * run-queue clock read and the tracepoint, which the kernel and mkm
 * account differently (docs/accuracy.md).
 */
static uint64_t measure_switch_cost(void)
{
	const int round_trips = 200;
	uint64_t start, end;
	pthread_t t;
	char c = 'x';

	pthread_create(&t, NULL, echo, NULL);
	start = now_ns();
	for (int i = 0; i < round_trips; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			exit(1);
	end = now_ns();
	/* It waits in read(), a cancellation point. */
	pthread_cancel(t);
	pthread_join(t, NULL);
	return (end - start) / (2 * round_trips);
}

int main(int argc, char **argv)
{
	pthread_t t[4];
	cpu_set_t one;

	fifo = argc == 3 && !strcmp(argv[1], "-f");
	if (argc != 2 + fifo) {
		fprintf(stderr, "usage: cli_workload [-f] SCHEDSTAT-OUT\n");
		return 2;
	}
	out_path = argv[1 + fifo];
	/* One CPU for all: they compete, and wait on the run queue. */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	if (pipe(ping) || pipe(pong))
		return 1;
	switch_cost = measure_switch_cost();
	pthread_create(&t[0], NULL, spinner, NULL);
	pthread_create(&t[1], NULL, napper, NULL);
	pthread_create(&t[2], NULL, piper, (void *)1);
	pthread_create(&t[3], NULL, piper, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	return 0;
}
