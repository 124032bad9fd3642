// SPDX-License-Identifier: GPL-2.0
/*
 * idle.c - Vaddagiri's measurement in "(How to) Let idle CPUs sleep" (LKML,
 * 2005): how long each CPU of an
 * idle machine sleeps before something wakes it, and what does. A
 * system-wide monitor records the machine for SECONDS while this program
 * sleeps; libmonitor rebuilds each CPU's idle task as a thread (swapper/N)
 * whose RUN intervals are the CPU's sleeps, and idle_analyse() tabulates
 * them as that post did (samples, mean, std dev, max, min per CPU), with
 * what ended them: the local timer (the tick, and every hrtimer), an IPI,
 * a device interrupt, or a thread switched in without an interrupt here.
 *
 *   idle [-o FILE] [-s SECONDS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common.h"

int main(int argc, char **argv)
{
	struct mon_pipeline *p = NULL;
	struct mon_source *src;
	struct idle_report rep;
	struct monitor *mon;
	struct noise *nz;
	struct tl *tl;
	unsigned int seconds = 10, c, k;
	uint64_t hist[IDLE_HIST_BUCKETS] = { 0 };
	size_t i;
	const char *out = NULL;
	int opt, ret;

	while ((opt = getopt(argc, argv, "o:s:")) != -1) {
		if (opt == 'o') {
			out = optarg;
		} else if (opt == 's' && atoi(optarg) > 0) {
			seconds = (unsigned int)atoi(optarg);
		} else {
			fprintf(stderr, "usage: idle [-o FILE] [-s SECONDS]\n");
			return 2;
		}
	}
	ret = record_system("idle", &mon, &src, &p, &tl, out);
	if (ret) {
		fprintf(stderr, "idle: %s\n", monitor_strerror(ret));
		return 1;
	}
	sleep(seconds);
	ret = record_finish(mon, src, p);
	if (!ret)
		ret = noise_create(&nz, tl);
	if (!ret)
		ret = idle_analyse(nz, &rep);
	if (ret) {
		fprintf(stderr, "idle: %s\n", monitor_strerror(ret));
		return 1;
	}

	printf("Idle intervals over %u s of an idle machine (ms)\n\n", seconds);
	printf("%4s %9s %10s %10s %10s %10s %7s\n", "CPU#", "# of", "Mean",
	       "Std Dev", "Max", "Min", "idle");
	printf("%4s %9s\n", "", "samples");
	for (c = 0; c < rep.nr_cpus; c++) {
		const struct idle_cpu *x = &rep.cpus[c];

		printf("%3u: %9llu %10.3f %10.3f %10.3f %10.3f %6.1f%%\n",
		       x->cpu, (unsigned long long)x->count, x->mean_ns / 1e6,
		       x->stddev_ns / 1e6, x->max_ns / 1e6, x->min_ns / 1e6,
		       x->span_ns ? 100.0 * x->idle_ns / x->span_ns : 0.0);
		for (k = 0; k < IDLE_HIST_BUCKETS; k++)
			hist[k] += x->hist[k];
	}

	printf("\nWhat woke each CPU (period: the median gap between two of its wakeups)\n");
	printf("%4s %-24s %-7s %8s %7s %12s %10s %8s\n", "CPU#", "cause",
	       "kind", "wakeups", "share", "mean sleep", "period", "regular");
	for (c = 0; c < rep.nr_cpus; c++) {
		const struct idle_cpu *x = &rep.cpus[c];

		for (i = 0; i < x->nr_causes && i < 6; i++) {
			const struct idle_cause *y = &x->causes[i];
			char period[32] = "-";

			if (y->period_ns)
				snprintf(period, sizeof(period), "%.3f ms",
					 y->period_ns / 1e6);
			printf("%3u: %-24.24s %-7s %8llu %6.1f%% %9.3f ms %10s %7.0f%%\n",
			       x->cpu, y->name, noise_kind_name(y->kind),
			       (unsigned long long)y->count,
			       x->count ? 100.0 * y->count / x->count : 0.0,
			       y->count ? y->idle_ns / 1e6 / y->count : 0.0,
			       period, 100 * y->regular);
		}
	}

	printf("\nSleep lengths, all CPUs\n");
	for (k = 0; k < IDLE_HIST_BUCKETS; k++) {
		if (!hist[k])
			continue;
		if (k + 1 < IDLE_HIST_BUCKETS)
			printf("%10.3f ms - %10.3f ms %7llu\n",
			       k ? idle_hist_bound_ns(k - 1) / 1e6 : 0.0,
			       idle_hist_bound_ns(k) / 1e6,
			       (unsigned long long)hist[k]);
		else
			printf("%10.3f ms and longer   %7llu\n",
			       idle_hist_bound_ns(k - 1) / 1e6,
			       (unsigned long long)hist[k]);
	}
	idle_report_free(&rep);
	noise_destroy(nz);
	tl_destroy(tl);
	return 0;
}
