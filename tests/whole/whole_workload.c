// SPDX-License-Identifier: GPL-2.0
/*
 * whole_workload.c - a workload with a known intruder, for the system-wide
 * tests: "spinner" computes for SECONDS on CPU 0 while "intruder", on the
 * same CPU, wakes every 10 ms (absolute deadlines, so its period does not
 * drift) and spins 1 ms. The intruder's own count of wakeups, and the
 * kernel's count of its involuntary switches, go to stdout:
 * "intruder wakeups N preempted M".
 *
 *   whole_workload SECONDS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

#define PERIOD_NS 10000000ll
#define SPIN_NS 1000000ll

static long long seconds;
static volatile int done;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void pin_cpu0(const char *name)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	prctl(PR_SET_NAME, name);
}

static void *spinner(void *arg)
{
	long long end;

	(void)arg;
	pin_cpu0("spinner");
	end = now_ns() + seconds * 1000000000ll;
	while (now_ns() < end)
		;
	done = 1;
	return NULL;
}

static long intruder_preempted;

/* The kernel's count of this thread's involuntary switches. */
static long nonvoluntary_switches(void)
{
	char line[128];
	long n = -1;
	FILE *f = fopen("/proc/thread-self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "nonvoluntary_ctxt_switches: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

static void *intruder(void *arg)
{
	struct timespec next;
	long long wakeups = 0;

	(void)arg;
	pin_cpu0("intruder");
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!done) {
		long long until;

		next.tv_nsec += PERIOD_NS;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		wakeups++;
		until = now_ns() + SPIN_NS;
		while (now_ns() < until)
			;
	}
	intruder_preempted = nonvoluntary_switches();
	return (void *)(long)wakeups;
}

int main(int argc, char **argv)
{
	pthread_t s, i;
	void *wakeups;

	seconds = argc > 1 ? atoll(argv[1]) : 1;
	pthread_create(&i, NULL, intruder, NULL);
	pthread_create(&s, NULL, spinner, NULL);
	pthread_join(s, NULL);
	pthread_join(i, &wakeups);
	printf("intruder wakeups %ld preempted %ld\n", (long)wakeups,
	       intruder_preempted);
	return 0;
}
