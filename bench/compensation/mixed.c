// SPDX-License-Identifier: GPL-2.0
/*
 * mixed.c - cb_mixed: threads that sleep, block on a pipe and compete for
 * the CPU, all on CPU 0, with a fixed amount of work each.
 *
 *   cb_mixed -n ITERATIONS -o FILE
 *
 *   sleeper-1, -2   ITERATIONS times: compute a little, nanosleep 1 ms
 *   pipe-w          ITERATIONS times: compute, write a byte to pipe-r
 *   pipe-r          read a byte (blocking when the pipe is empty), compute
 *   hog-1, -2       compute only, ITERATIONS chunks: preempted by the tick
 *                   and by every wakeup above, so they wait on the run queue
 *
 * Each thread reads its own schedstat as its last act (truth.h); FILE gets
 * the elapsed CLOCK_MONOTONIC from the first thread's start to the last
 * join, and one line per thread.
 *
 * The ends are taken one at a time: a thread that has done its work waits
 * for its turn, which main gives once every thread is done, and main joins
 * it before giving the next. A thread preempted between its last read and
 * its exit would wait a time slice on the run queue that mkm sees and the
 * read cannot: with one thread runnable, nothing preempts it.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "truth.h"

/* Loop counts: a volatile loop is about 12 guest ns per turn (-icount). */
#define SLEEPER_WORK 20000
#define WRITER_WORK 30000
#define READER_WORK 10000
#define HOG_WORK 50000

enum { SLEEPER_1, SLEEPER_2, PIPE_W, PIPE_R, HOG_1, HOG_2, NR_THREADS };

static const char *const names[NR_THREADS] = {
	"sleeper-1", "sleeper-2", "pipe-w", "pipe-r", "hog-1", "hog-2",
};
static struct truth truths[NR_THREADS];
static unsigned long iterations;
static int pipefd[2];
static int done[2], turn[NR_THREADS][2];

static void spin(unsigned long n)
{
	for (volatile unsigned long i = 0; i < n; i++)
		;
}

static void *thread(void *arg)
{
	const struct timespec ms = { 0, 1000000 };
	long which = (long)arg;
	unsigned long i;
	char c = 1;

	truth_name(names[which]);
	switch (which) {
	case SLEEPER_1:
	case SLEEPER_2:
		for (i = 0; i < iterations; i++) {
			spin(SLEEPER_WORK);
			nanosleep(&ms, NULL);
		}
		break;
	case PIPE_W:
		for (i = 0; i < iterations; i++) {
			spin(WRITER_WORK);
			if (write(pipefd[1], &c, 1) != 1)
				break;
		}
		c = 0;
		if (write(pipefd[1], &c, 1) != 1)
			perror("cb_mixed: write");
		break;
	case PIPE_R:
		while (read(pipefd[0], &c, 1) == 1 && c)
			spin(READER_WORK);
		break;
	default:
		for (i = 0; i < iterations; i++)
			spin(HOG_WORK);
		break;
	}
	if (write(done[1], &c, 1) != 1 || read(turn[which][0], &c, 1) != 1)
		perror("cb_mixed: finish");
	truth_self(&truths[which], names[which]);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[NR_THREADS];
	const char *out = NULL;
	struct truth main_truth;
	uint64_t t0, t1;
	cpu_set_t set;
	char c = 1;
	long i;
	FILE *f;
	int opt;

	while ((opt = getopt(argc, argv, "n:o:")) != -1) {
		if (opt == 'n')
			iterations = strtoul(optarg, NULL, 0);
		else if (opt == 'o')
			out = optarg;
		else
			break;
	}
	if (!iterations || !out || optind < argc) {
		fprintf(stderr, "usage: cb_mixed -n ITERATIONS -o FILE\n");
		return 2;
	}
	truth_name("mx-main");
	/* Inherited by the threads: they compete for one CPU. */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (pipe(pipefd) || pipe(done)) {
		perror("cb_mixed: pipe");
		return 1;
	}
	for (i = 0; i < NR_THREADS; i++)
		if (pipe(turn[i])) {
			perror("cb_mixed: pipe");
			return 1;
		}
	t0 = truth_now();
	for (i = 0; i < NR_THREADS; i++)
		if (pthread_create(&th[i], NULL, thread, (void *)i)) {
			perror("cb_mixed: pthread_create");
			return 1;
		}
	for (i = 0; i < NR_THREADS; i++)
		if (read(done[0], &c, 1) != 1)
			perror("cb_mixed: done");
	for (i = 0; i < NR_THREADS; i++)
		if (write(turn[i][1], &c, 1) != 1 || pthread_join(th[i], NULL))
			perror("cb_mixed: turn");
	t1 = truth_now();
	truth_self(&main_truth, "mx-main");
	f = fopen(out, "w");
	if (!f) {
		perror(out);
		return 1;
	}
	fprintf(f, "workload mixed iterations=%lu\n", iterations);
	fprintf(f, "elapsed %" PRIu64 "\n", t1 - t0);
	truth_print(f, &main_truth);
	for (i = 0; i < NR_THREADS; i++)
		truth_print(f, &truths[i]);
	return fclose(f) ? 1 : 0;
}
