// SPDX-License-Identifier: GPL-2.0
/*
 * barrier.c - the Barcelona Supercomputing Center's study "Analyzing the
 * influence of interrupts and system daemons on fine grain applications"
 * (AIX trace + Paraver): N threads, one per CPU, loop on a short
 * computation and a busy-waiting barrier, as that study's MPI tasks did,
 * while a daemon wakes now and then; a system-wide monitor records the
 * machine. Each barrier waits for its last thread; when that wait is long,
 * the last thread's compute phase was stretched, and libmonitor's
 * noise_thread() over that phase says by whom:
 * a thread that preempted it (the daemon, a kernel thread) or an interrupt
 * handler. Then the CPU x thread matrix of the workers and their intruders
 * (the study's 2D analysis).
 *
 * The barrier blocks (pthread_barrier_wait) unless -s makes it spin as
 * MPI's do: under an emulator that runs one virtual CPU at a time (QEMU's
 * TCG), spinning CPUs wait for each other's turn on the host, which no
 * event in the guest shows, and that drowns everything else.
 *
 *   barrier [-o FILE] [-s] [-t THREADS] [-i ITERATIONS] [-w WORK_ITERATIONS]
 *           [-D DAEMON_MS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

/* A sense-reversing barrier that spins, as MPI's busy-waiting ones do. */
static atomic_uint arrived;
static atomic_uint sense;

static bool spin;
static pthread_barrier_t blocking;

static void barrier_wait(unsigned int nthreads, unsigned int *my_sense)
{
	if (!spin) {
		pthread_barrier_wait(&blocking);
		return;
	}
	*my_sense ^= 1;
	if (atomic_fetch_add(&arrived, 1) + 1 == nthreads) {
		atomic_store(&arrived, 0);
		atomic_store(&sense, *my_sense);
	} else {
		while (atomic_load(&sense) != *my_sense)
			;
	}
}

struct worker {
	pthread_t thread;
	unsigned int index;
	pid_t tid;
	uint64_t *start, *arrive; /* per iteration: compute start, arrival */
};

static unsigned int nthreads, ncpus;
static unsigned long iterations, work_iterations;
static atomic_int stop_daemon;
static unsigned int daemon_ms = 20;

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned int my_sense = 0;
	cpu_set_t set;
	char name[16];
	unsigned long k;

	CPU_ZERO(&set);
	CPU_SET(w->index % ncpus, &set);
	sched_setaffinity(0, sizeof(set), &set);
	snprintf(name, sizeof(name), "task%u", w->index);
	prctl(PR_SET_NAME, name);
	w->tid = gettid();
	barrier_wait(nthreads, &my_sense);
	for (k = 0; k < iterations; k++) {
		w->start[k] = now_ns();
		fixed_work(work_iterations);
		w->arrive[k] = now_ns();
		barrier_wait(nthreads, &my_sense);
	}
	return NULL;
}

/* A daemon: wakes every daemon_ms and runs about 100 us (the BSC study's
 * daemons slept 46 ms and ran about 21 us). */
static void *daemon_main(void *arg)
{
	unsigned long it = *(unsigned long *)arg;
	struct timespec d = { 0, (long)daemon_ms * 1000000 };

	prctl(PR_SET_NAME, "daemon");
	while (!atomic_load(&stop_daemon)) {
		nanosleep(&d, NULL);
		fixed_work(it);
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct late {
	unsigned long k; /* the barrier */
	uint64_t delay; /* last arrival minus first */
	unsigned int who; /* the last worker */
};

static int by_delay(const void *a, const void *b)
{
	const struct late *x = a, *y = b;

	return x->delay < y->delay ? 1 : x->delay > y->delay ? -1 : 0;
}

struct tally {
	char name[40];
	unsigned int kind;
	unsigned long count;
	uint64_t taken;
	int64_t thread;
};

int main(int argc, char **argv)
{
	struct mon_pipeline *p = NULL;
	struct mon_source *src;
	struct monitor *mon;
	struct worker *w;
	struct tl *tl;
	struct noise *nz;
	struct late *late;
	struct tally tally[32];
	uint64_t *delays, median, fastest = UINT64_MAX, threshold;
	unsigned long k, nlate = 0, unexplained = 0, daemon_work;
	size_t nt = 0, i, ncol = 0;
	int64_t cols[16];
	pthread_t daemon;
	const char *out = NULL;
	int opt, ret;

	ncpus = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	nthreads = ncpus;
	iterations = 2000;
	while ((opt = getopt(argc, argv, "o:st:i:w:D:")) != -1) {
		if (opt == 'o')
			out = optarg;
		else if (opt == 's')
			spin = true;
		else if (opt == 't' && atoi(optarg) > 0)
			nthreads = (unsigned int)atoi(optarg);
		else if (opt == 'i' && atol(optarg) > 0)
			iterations = atol(optarg);
		else if (opt == 'w' && atol(optarg) > 0)
			work_iterations = atol(optarg);
		else if (opt == 'D' && atoi(optarg) >= 0)
			daemon_ms = (unsigned int)atoi(optarg);
		else {
			fprintf(stderr,
				"usage: barrier [-o FILE] [-s] [-t THREADS] [-i ITERATIONS] [-w WORK_ITERATIONS] [-D DAEMON_MS]\n");
			return 2;
		}
	}
	if (!work_iterations)
		work_iterations = fixed_work_iterations(300000);
	pthread_barrier_init(&blocking, NULL, nthreads);
	daemon_work = work_iterations / 3;
	w = calloc(nthreads, sizeof(*w));
	delays = calloc(iterations, sizeof(*delays));
	late = calloc(iterations, sizeof(*late));
	if (!w || !delays || !late)
		return 1;
	for (i = 0; i < nthreads; i++) {
		w[i].index = (unsigned int)i;
		w[i].start = calloc(iterations, sizeof(uint64_t));
		w[i].arrive = calloc(iterations, sizeof(uint64_t));
		if (!w[i].start || !w[i].arrive)
			return 1;
	}

	ret = record_system("barrier", &mon, &src, &p, &tl, out);
	if (ret) {
		fprintf(stderr, "barrier: %s\n", monitor_strerror(ret));
		return 1;
	}
	if (daemon_ms)
		pthread_create(&daemon, NULL, daemon_main, &daemon_work);
	for (i = 0; i < nthreads; i++)
		pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
	for (i = 0; i < nthreads; i++)
		pthread_join(w[i].thread, NULL);
	atomic_store(&stop_daemon, 1);
	if (daemon_ms)
		pthread_join(daemon, NULL);
	ret = record_finish(mon, src, p);
	if (!ret)
		ret = noise_create(&nz, tl);
	if (ret) {
		fprintf(stderr, "barrier: %s\n", monitor_strerror(ret));
		return 1;
	}

	/* Each barrier's wait: from its first thread's arrival to its last. */
	for (k = 0; k < iterations; k++) {
		uint64_t first = UINT64_MAX, last = 0;
		unsigned int who = 0;

		for (i = 0; i < nthreads; i++) {
			uint64_t c = w[i].arrive[k] - w[i].start[k];

			if (c < fastest)
				fastest = c;
			if (w[i].arrive[k] < first)
				first = w[i].arrive[k];
			if (w[i].arrive[k] > last) {
				last = w[i].arrive[k];
				who = (unsigned int)i;
			}
		}
		late[k] = (struct late){ k, last - first, who };
		delays[k] = last - first;
	}
	qsort(delays, iterations, sizeof(*delays), cmp_u64);
	median = delays[iterations / 2];
	/* Long: the last thread lost over a tenth of a compute phase. */
	threshold = median + fastest / 10;
	qsort(late, iterations, sizeof(*late), by_delay);
	while (nlate < iterations && late[nlate].delay > threshold)
		nlate++;

	printf("%u threads x %lu iterations of %.1f us of work and a %s barrier; daemon every %u ms\n",
	       nthreads, iterations, fastest / 1e3,
	       spin ? "spinning" : "blocking", daemon_ms);
	printf("barrier wait (first arrival to last): median %.1f us, 90th %.1f us, max %.1f us; %lu barriers waited more than %.1f us\n\n",
	       median / 1e3, delays[iterations * 9 / 10] / 1e3,
	       delays[iterations - 1] / 1e3, nlate, threshold / 1e3);

	printf("The longest barriers, and what delayed their last thread\n");
	printf("%6s %10s %-7s %11s %11s  %s\n", "iter", "wait (us)", "last",
	       "phase (us)", "taken (us)", "main cause (kind: its time)");
	for (i = 0; i < nlate; i++) {
		const struct worker *x = &w[late[i].who];
		unsigned long it = late[i].k;
		int64_t th = tl_find(tl, (uint32_t)x->tid);
		struct noise_result r = { 0 };
		char cause[64] = "(nothing recorded)";
		size_t j;

		if (th < 0 || noise_thread(nz, (size_t)th, x->start[it],
					   x->arrive[it], &r))
			continue;
		if (r.nr_sources) {
			const struct noise_source *s = &r.sources[0];

			snprintf(cause, sizeof(cause), "%s (%s: %.1f us)%s",
				 s->name, noise_kind_name(s->kind),
				 s->taken_ns / 1e3,
				 r.nr_sources > 1 ? " +" : "");
			for (j = 0; j < nt; j++)
				if (!strcmp(tally[j].name, s->name))
					break;
			if (j == nt && nt < 32) {
				memset(&tally[nt], 0, sizeof(tally[nt]));
				snprintf(tally[nt].name, sizeof(tally[nt].name),
					 "%s", s->name);
				tally[nt].kind = s->kind;
				tally[nt].thread = s->thread;
				nt++;
			}
			if (j < nt) {
				tally[j].count++;
				tally[j].taken += s->taken_ns;
			}
		} else {
			unexplained++;
		}
		if (i < 12)
			printf("%6lu %10.1f task%-3u %11.1f %11.1f  %s\n", it,
			       late[i].delay / 1e3, late[i].who,
			       (x->arrive[it] - x->start[it]) / 1e3,
			       r.taken_ns / 1e3, cause);
		noise_result_free(&r);
	}

	printf("\nThe %lu long barriers by the main cause of their last thread's delay\n",
	       nlate);
	printf("%-24s %-7s %9s %14s\n", "cause", "kind", "barriers",
	       "its time (us)");
	for (i = 0; i < nt; i++)
		printf("%-24s %-7s %9lu %14.1f\n", tally[i].name,
		       noise_kind_name(tally[i].kind), tally[i].count,
		       tally[i].taken / 1e3);
	printf("%-24s %-7s %9lu\n", "(nothing recorded)", "-", unexplained);

	/* The BSC study's 2D analysis: workers and intruding threads. */
	for (i = 0; i < nthreads && ncol < 16; i++)
		cols[ncol++] = tl_find(tl, (uint32_t)w[i].tid);
	for (i = 0; i < nt && ncol < 10; i++)
		if (tally[i].kind == NOISE_THREAD)
			cols[ncol++] = tally[i].thread;
	{
		unsigned int ncpu = tl_nr_cpus(tl), c;
		size_t nth = tl_nr_threads(tl);
		struct acct_cell *cells =
			calloc((size_t)ncpu * nth + 1, sizeof(*cells));

		if (!cells || acct_matrix(tl, cells, ncpu, nth))
			return 1;
		printf("\nCPU x thread: time run (dispatches)\n%4s", "CPU");
		for (i = 0; i < ncol; i++) {
			struct tl_thread t;

			tl_thread(tl, (size_t)cols[i], &t);
			printf(" %18.16s", t.name);
		}
		printf("\n");
		for (c = 0; c < ncpu; c++) {
			printf("%4u", c);
			for (i = 0; i < ncol; i++) {
				const struct acct_cell *x =
					&cells[c * nth + (size_t)cols[i]];
				char cell[40];

				snprintf(cell, sizeof(cell), "%.1f ms (%llu)",
					 x->run_ns / 1e6,
					 (unsigned long long)x->dispatches);
				printf(" %18s", cell);
			}
			printf("\n");
		}
		free(cells);
	}
	noise_destroy(nz);
	tl_destroy(tl);
	return 0;
}
