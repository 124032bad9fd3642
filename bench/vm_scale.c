// SPDX-License-Identifier: GPL-2.0
/*
 * vm_scale.c - the cost of a context switch as the number of tracked
 * threads and of monitors grows, in the guest (make bench-scale).
 *
 * Runs in the test VM as root under QEMU's -icount with one virtual CPU,
 * like vm_switch: guest CLOCK_MONOTONIC ns / 2 are instructions. mkm.ko is
 * loaded by the guest script. The work is the same ping-pong over pipes
 * (every round trip two switches), measured while a monitor tracks N
 * sleeping threads (the "threads" series), or while M monitors each track
 * one sleeping thread (the "monitors" series), each run on a fresh pair of
 * threads:
 *
 *   unmon   the ping-pong's threads are not tracked: every switch pays the
 *           filter test against a table of N (or M) entries
 *   mon     the ping-pong's threads are tracked too (by the first
 *           monitor): the lookup and the records
 *
 * and, first, "none": mkm.ko loaded, no monitor, the baseline the other
 * figures are given over. Each line of the output is one measurement:
 *   run series count config rounds switches ns
 * The host makes the table (bench/scale.awk).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "calibrate/workload.h"
#include "libmonitor.h"

/* A sleeper's stack: it only blocks, so a page or two is touched. */
#define SLEEPER_STACK (16 * 1024)

struct sleepers {
	pthread_t *threads;
	pid_t *tids;
	unsigned int n, max;
	char *stacks;
	size_t stacks_len;
};

static int wake_fd[2]; /* nobody ever writes: the sleepers block on it */
static pthread_mutex_t tid_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tid_cond = PTHREAD_COND_INITIALIZER;
static unsigned int tids_known;

static void *sleeper(void *arg)
{
	pid_t *tid = arg;
	char c;

	pthread_mutex_lock(&tid_lock);
	*tid = gettid();
	tids_known++;
	pthread_cond_signal(&tid_cond);
	pthread_mutex_unlock(&tid_lock);
	while (read(wake_fd[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/*
 * Room for max sleepers. Their stacks come from one mapping: a guard page
 * each would be a mapping each, past the guest's vm.max_map_count at
 * 60,000 threads.
 */
static int sleepers_init(struct sleepers *s, unsigned int max)
{
	s->max = max;
	s->stacks_len = (size_t)max * SLEEPER_STACK;
	s->stacks = mmap(NULL, s->stacks_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	s->threads = calloc(max, sizeof(*s->threads));
	s->tids = calloc(max, sizeof(*s->tids));
	return s->stacks == MAP_FAILED || !s->threads || !s->tids ? -ENOMEM : 0;
}

/* Starts sleepers until there are want (at most max). */
static int sleepers_grow(struct sleepers *s, unsigned int want)
{
	pthread_attr_t attr;

	if (want > s->max)
		return -EINVAL;
	pthread_attr_init(&attr);
	for (; s->n < want; s->n++) {
		int ret;

		pthread_attr_setstack(&attr, s->stacks + s->n * SLEEPER_STACK,
				      SLEEPER_STACK);
		ret = pthread_create(&s->threads[s->n], &attr, sleeper,
				     &s->tids[s->n]);
		if (ret) {
			fprintf(stderr, "vm_scale: thread %u: %s\n", s->n,
				strerror(ret));
			return -ret;
		}
	}
	pthread_attr_destroy(&attr);
	pthread_mutex_lock(&tid_lock);
	while (tids_known < s->n)
		pthread_cond_wait(&tid_cond, &tid_lock);
	pthread_mutex_unlock(&tid_lock);
	return 0;
}

/* Reads until nothing is buffered, so the rings never drop in a run. */
static void drain(struct monitor *mon)
{
	static struct mkm_event buf[4096];
	size_t n;

	do {
		if (monitor_read(mon, buf, 4096, &n))
			break;
	} while (n);
}

static struct monitor *monitor_start(size_t ring_bytes)
{
	struct monitor_config cfg = { .ring_bytes = ring_bytes,
				      .flags = MKM_CONFIG_ONE_SWITCH };
	struct monitor *mon;
	int ret = monitor_create_at(&mon, NULL, &cfg);

	if (!ret)
		ret = monitor_resume(mon);
	if (ret) {
		fprintf(stderr, "vm_scale: monitor: %s\n",
			monitor_strerror(ret));
		exit(1);
	}
	return mon;
}

static void track(struct monitor *mon, pid_t tid)
{
	int ret = thread_monitor(mon, (uint32_t)tid, tid);

	if (ret && ret != -EEXIST) {
		fprintf(stderr, "vm_scale: tracking %d: %s\n", (int)tid,
			monitor_strerror(ret));
		exit(1);
	}
}

static FILE *out;
static unsigned long rounds = 20000, runs = 5;

/* One timed ping-pong, after 200 untimed round trips. */
static void measure(struct pingpong *pp, unsigned int run, const char *series,
		    unsigned int count, const char *config, struct monitor *mon)
{
	uint64_t before, ns;

	if (mon)
		drain(mon);
	pingpong_run(pp, 200);
	usleep(20000); /* the setup's deferred work, away from the timing */
	before = pingpong_switches(pp);
	ns = pingpong_run(pp, rounds);
	fprintf(out, "%u\t%s\t%u\t%s\t%lu\t%llu\t%llu\n", run, series, count,
		config, rounds,
		(unsigned long long)(pingpong_switches(pp) - before),
		(unsigned long long)ns);
	fflush(out);
	if (mon)
		drain(mon);
}

static void parse_counts(const char *list, unsigned int *v, unsigned int *n)
{
	char *end;

	for (*n = 0; *list && *n < 16; (*n)++) {
		v[*n] = (unsigned int)strtoul(list, &end, 10);
		list = *end == ',' ? end + 1 : end;
		if (end == list && *end)
			break;
	}
}

struct job {
	unsigned int run, count;
	const char *series;
	struct monitor *mon; /* NULL: the "none" baseline */
};

/*
 * One run, on a fresh pair of threads: untracked, then tracked by mon.
 * Fresh, because whether an untracked task's filter bit is shared with a
 * tracked one's depends on where its task_struct lies (one in 64 at worst,
 * threads.h): the same pair in every run would measure one draw.
 */
static void *run_job(void *arg)
{
	struct job *j = arg;
	struct pingpong pp;

	if (pingpong_start(&pp, 0)) {
		perror("vm_scale: ping-pong");
		exit(1);
	}
	if (!j->mon) {
		measure(&pp, j->run, j->series, j->count, "none", NULL);
	} else {
		measure(&pp, j->run, j->series, j->count, "unmon", j->mon);
		track(j->mon, pp.main_tid);
		track(j->mon, pp.peer_tid);
		measure(&pp, j->run, j->series, j->count, "mon", j->mon);
		thread_unmonitor(j->mon, pp.main_tid);
		thread_unmonitor(j->mon, pp.peer_tid);
	}
	pingpong_stop(&pp);
	return NULL;
}

static void measure_job(unsigned int run, const char *series,
			unsigned int count, struct monitor *mon)
{
	struct job j = { run, count, series, mon };
	pthread_t t;

	if (pthread_create(&t, NULL, run_job, &j) || pthread_join(t, NULL)) {
		fprintf(stderr, "vm_scale: cannot start a run\n");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	unsigned int threads[16] = { 1, 100, 10000, 60000 }, nthreads = 4;
	unsigned int monitors[16] = { 1, 8, 64 }, nmonitors = 3;
	const char *path = "/out/vm_scale.tsv";
	struct sleepers sl = { 0 };
	unsigned int run, i, j, most = 256;
	int opt;

	while ((opt = getopt(argc, argv, "n:r:t:m:o:")) != -1) {
		switch (opt) {
		case 'n':
			rounds = strtoul(optarg, NULL, 10);
			break;
		case 'r':
			runs = strtoul(optarg, NULL, 10);
			break;
		case 't':
			parse_counts(optarg, threads, &nthreads);
			break;
		case 'm':
			parse_counts(optarg, monitors, &nmonitors);
			break;
		case 'o':
			path = optarg;
			break;
		default:
			fprintf(stderr, "usage: vm_scale [-n ROUNDS] [-r RUNS] "
					"[-t N,...] [-m M,...] [-o FILE]\n");
			return 2;
		}
	}
	for (i = 0; i < nthreads; i++)
		most = threads[i] > most ? threads[i] : most;
	out = fopen(path, "w");
	if (!out || pipe(wake_fd) || sleepers_init(&sl, most)) {
		perror("vm_scale");
		return 1;
	}
	fprintf(out, "# run series count config rounds switches ns\n");
	for (run = 1; run <= runs; run++)
		measure_job(run, "none", 0, NULL);

	/* The threads series: one monitor, N sleepers tracked. */
	for (i = 0; i < nthreads; i++) {
		struct monitor *mon = monitor_start(1 << 22);
		unsigned int t;

		if (sleepers_grow(&sl, threads[i]))
			return 1;
		for (t = 0; t < threads[i]; t++) {
			track(mon, sl.tids[t]);
			if (t % 1024 == 0)
				drain(mon); /* the ATTACH and NAME records */
		}
		for (run = 1; run <= runs; run++)
			measure_job(run, "threads", threads[i], mon);
		monitor_terminate(mon);
	}

	/* The monitors series: M monitors, one sleeper each. */
	for (i = 0; i < nmonitors; i++) {
		struct monitor *mons[256];
		unsigned int m = monitors[i] < 256 ? monitors[i] : 256;

		if (sleepers_grow(&sl, m))
			return 1;
		for (j = 0; j < m; j++) {
			/* The first takes the ping-pong's records too. */
			mons[j] = monitor_start(j ? 4096 : 1 << 22);
			track(mons[j], sl.tids[j]);
		}
		for (run = 1; run <= runs; run++)
			measure_job(run, "monitors", m, mons[0]);
		for (j = 0; j < m; j++)
			monitor_terminate(mons[j]);
	}
	fclose(out);
	/* The sleepers go with the process. */
	return 0;
}
