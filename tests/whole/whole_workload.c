// SPDX-License-Identifier: GPL-2.0
/*
 * whole_workload.c - a workload with a known intruder, for the system-wide
 * tests: "spinner" computes for SECONDS on CPU 0 while "intruder", on the
 * same CPU, wakes every 10 ms (absolute deadlines, so its period does not
 * drift) and spins 1 ms. What the intruder saw of itself goes to stdout,
 * for the test to hold mkm's figures against: its count of wakeups, the
 * kernel's count of its involuntary switches and of its CPU time, and the
 * median gap between its wakeups and how regular they were, measured the
 * way mkm's noise report measures them (runs of 4 gaps spanning 4 periods
 * within 10%), on its own clock, and the kernel's count of its sleeps:
 * "intruder wakeups N preempted M cpu_ns C median_ns P regular R slept S".
 *
 *   whole_workload SECONDS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#define PERIOD_NS 10000000ll
#define SPIN_NS 1000000ll
#define MAX_WAKEUPS 100000

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
static long long intruder_cpu_ns;
static long intruder_slept;
static long long wake_ns[MAX_WAKEUPS];

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* Median gap between the n wakeups, and the share of regular runs. */
static void wake_figures(long n, long long *median, double *regular)
{
	static long long gaps[MAX_WAKEUPS];
	long i, runs = 0, good = 0;

	*median = 0;
	*regular = 0;
	if (n < 3)
		return;
	for (i = 1; i < n; i++)
		gaps[i - 1] = wake_ns[i] - wake_ns[i - 1];
	qsort(gaps, (size_t)(n - 1), sizeof(gaps[0]), cmp_ll);
	*median = gaps[(n - 1) / 2];
	for (i = 4; i < n; i++, runs++) {
		long long span = wake_ns[i] - wake_ns[i - 4];

		good += span * 10 >= 4 * *median * 9 &&
			span * 10 <= 4 * *median * 11;
	}
	*regular = runs ? (double)good / (double)runs : 0;
}

/*
 * The kernel's count of this thread's switches, "voluntary" (its sleeps)
 * or "nonvoluntary" (its preemptions); -1 if unread.
 */
static long ctxt_switches(const char *which)
{
	size_t len = strlen(which);
	char line[128];
	long n = -1;
	FILE *f = fopen("/proc/thread-self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, which, len) &&
		    sscanf(line + len, "_ctxt_switches: %ld", &n) == 1)
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
		until = now_ns();
		if (wakeups < MAX_WAKEUPS)
			wake_ns[wakeups] = until;
		wakeups++;
		until += SPIN_NS;
		while (now_ns() < until)
			;
	}
	intruder_preempted = ctxt_switches("nonvoluntary");
	/*
	 * Its sleeps: fewer than its wakeups where a stalled host let a
	 * deadline pass before the sleep began (clock_nanosleep returns at
	 * once, two spins run as one burst).
	 */
	intruder_slept = ctxt_switches("voluntary");
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &next);
	intruder_cpu_ns = next.tv_sec * 1000000000ll + next.tv_nsec;
	return (void *)(long)wakeups;
}

int main(int argc, char **argv)
{
	pthread_t s, i;
	void *wakeups;
	long long median;
	double regular;

	seconds = argc > 1 ? atoll(argv[1]) : 1;
	pthread_create(&i, NULL, intruder, NULL);
	pthread_create(&s, NULL, spinner, NULL);
	pthread_join(s, NULL);
	pthread_join(i, &wakeups);
	wake_figures((long)wakeups < MAX_WAKEUPS ? (long)wakeups : MAX_WAKEUPS,
		     &median, &regular);
	printf("intruder wakeups %ld preempted %ld cpu_ns %lld median_ns %lld regular %.3f slept %ld\n",
	       (long)wakeups, intruder_preempted, intruder_cpu_ns, median,
	       regular, intruder_slept);
	return 0;
}
