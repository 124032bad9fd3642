// SPDX-License-Identifier: GPL-2.0
/*
 * flight.c - a program that runs smoothly, but for a stall planted at a
 * random time: what a flight recorder is for (mkm record --flight, see
 * README.md).
 *
 * A real-time worker thread (SCHED_FIFO 10) wakes every period (1 ms, -p),
 * computes for a tenth of it, and sleeps again, pinned to one CPU; a hog
 * thread on the same CPU sleeps until a random instant, takes SCHED_FIFO
 * at a higher priority (50) and spins for the stall's length (5 ms), so
 * that the worker, woken meanwhile, waits on the run queue the whole time.
 * The worker is real-time for PREEMPT_RT's sake too: there an ordinary
 * thread's timer expires in the ktimers thread, which the hog would starve
 * as well, so its wakeup, not its run-queue wait, would take the stall.
 * The program says at the end when the hog struck and the worker's
 * longest delay: the snapshot should show both.
 *
 * With -d, the worker asks for the snapshot itself when it wakes later
 * than LATE_MS: monitor_trigger(NULL, ...) marks into whichever monitor
 * tracks it, the recorder's under mkm record --flight. The trigger the
 * application knows best: its own deadline, missed.
 *
 *	flight [-t SECONDS] [-s STALL_MS] [-n STALLS] [-c CPU] [-S SEED]
 *	       [-p PERIOD_US] [-d LATE_MS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <libmonitor.h>

static struct {
	double seconds, stall_ms;
	int stalls, cpu;
	unsigned int seed;
	uint64_t period_ns; /* the worker's */
	uint64_t late_ns; /* -d: a wake this late asks for a snapshot */
} opt = { 60, 5, 1, 0, 0, 1000000, 0 };

static uint64_t start_ns, stall_at_ns[16];
static uint64_t worst_delay_ns, worst_at_ns, periods, asked;
static volatile int done;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void spin_until(uint64_t end)
{
	while (now_ns() < end)
		;
}

/* At SCHED_FIFO @prio (0: SCHED_OTHER again). */
static void set_fifo(int prio)
{
	struct sched_param p = { .sched_priority = prio };

	if (pthread_setschedparam(pthread_self(),
				  prio ? SCHED_FIFO : SCHED_OTHER, &p)) {
		fprintf(stderr,
			"flight: SCHED_FIFO: %s (run it as root, or with CAP_SYS_NICE)\n",
			strerror(errno));
		exit(1);
	}
}

static void pin(const char *name)
{
	cpu_set_t set;

	prctl(PR_SET_NAME, name);
	CPU_ZERO(&set);
	CPU_SET(opt.cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "flight: CPU %d: %s\n", opt.cpu,
			strerror(errno));
		exit(1);
	}
}

/* Wakes every period, a tenth of it computing: how late was each wake? */
static void *worker(void *arg)
{
	uint64_t next;

	(void)arg;
	pin("worker");
	set_fifo(10);
	/* From here: its own start-up is no delay of a period. */
	next = now_ns();
	while (!done) {
		struct timespec t;
		uint64_t late;

		next += opt.period_ns;
		t.tv_sec = (time_t)(next / 1000000000ull);
		t.tv_nsec = (long)(next % 1000000000ull);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
		late = now_ns() - next;
		if (late > worst_delay_ns) {
			worst_delay_ns = late;
			worst_at_ns = next - start_ns;
		}
		if (opt.late_ns && late > opt.late_ns) {
			/* The mark's value: how late, in us. */
			int err = monitor_trigger(NULL, late / 1000);

			if (err)
				fprintf(stderr,
					"flight: no snapshot asked: %s\n",
					monitor_strerror(err));
			else
				asked++;
		}
		/*
		 * Periods missed are skipped, not caught up on: back to back
		 * at SCHED_FIFO, a worker running late would starve the
		 * ordinary threads of its CPU, stalls no one planted.
		 */
		next += late / opt.period_ns * opt.period_ns;
		spin_until(now_ns() + opt.period_ns / 10);
		periods++;
	}
	return NULL;
}

/* Sleeps to a random instant, then takes the CPU at SCHED_FIFO. */
static void *hog(void *arg)
{
	uint64_t span = (uint64_t)(opt.seconds * 1e9);

	(void)arg;
	pin("hog");
	for (int i = 0; i < opt.stalls; i++) {
		/* In the middle half of its share of the run. */
		uint64_t share = span / (uint64_t)opt.stalls;
		uint64_t at = share * (uint64_t)i + share / 4 +
			      (uint64_t)rand_r(&opt.seed) % (share / 2 + 1);
		struct timespec t = {
			(time_t)((start_ns + at) / 1000000000ull),
			(long)((start_ns + at) % 1000000000ull),
		};

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
		set_fifo(50);
		stall_at_ns[i] = now_ns() - start_ns;
		spin_until(now_ns() + (uint64_t)(opt.stall_ms * 1e6));
		set_fifo(0);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w, h;
	int c;

	opt.seed = (unsigned int)time(NULL);
	while ((c = getopt(argc, argv, "t:s:n:c:S:p:d:")) != -1) {
		switch (c) {
		case 't':
			opt.seconds = atof(optarg);
			break;
		case 's':
			opt.stall_ms = atof(optarg);
			break;
		case 'n':
			opt.stalls = atoi(optarg);
			break;
		case 'c':
			opt.cpu = atoi(optarg);
			break;
		case 'S':
			opt.seed = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'p':
			opt.period_ns = (uint64_t)(atof(optarg) * 1e3);
			break;
		case 'd':
			opt.late_ns = (uint64_t)(atof(optarg) * 1e6);
			break;
		default:
			fprintf(stderr,
				"usage: flight [-t SECONDS] [-s STALL_MS] [-n STALLS] [-c CPU] [-S SEED] [-p PERIOD_US] [-d LATE_MS]\n");
			return 2;
		}
	}
	if (opt.seconds <= 0 || opt.stall_ms <= 0 || opt.stalls < 1 ||
	    opt.stalls > 16 || opt.period_ns < 1000) {
		fprintf(stderr,
			"flight: -t and -s above 0, -n from 1 to 16, -p at least 1\n");
		return 2;
	}
	start_ns = now_ns();
	pthread_create(&w, NULL, worker, NULL);
	pthread_create(&h, NULL, hog, NULL);
	pthread_join(h, NULL);
	{
		uint64_t end = start_ns + (uint64_t)(opt.seconds * 1e9);
		struct timespec t = { (time_t)(end / 1000000000ull),
				      (long)(end % 1000000000ull) };

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
	}
	done = 1;
	pthread_join(w, NULL);
	printf("flight: %llu periods of %.0f us on CPU %d in %.1f s\n",
	       (unsigned long long)periods, opt.period_ns / 1e3, opt.cpu,
	       opt.seconds);
	for (int i = 0; i < opt.stalls; i++)
		printf("flight: the hog took CPU %d for %.1f ms at %.3f s\n",
		       opt.cpu, opt.stall_ms, stall_at_ns[i] / 1e9);
	printf("flight: the worker's longest delay: %.3f ms, at %.3f s\n",
	       worst_delay_ns / 1e6, worst_at_ns / 1e9);
	if (opt.late_ns)
		printf("flight: snapshots asked by the worker: %llu (-d %.1f ms)\n",
		       (unsigned long long)asked, opt.late_ns / 1e6);
	return 0;
}
