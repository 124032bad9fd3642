// SPDX-License-Identifier: GPL-2.0
/*
 * ftq.c - the fixed-work-quantum noise benchmark (Tsafrir et al., "System
 * noise and OS clock ticks"), monitored by mkm.
 *
 * The thread times N samples of the same work (about 1 ms each); a sample
 * longer than the fastest one was stretched by noise. With the thread
 * monitored, the library's timeline says what stretched each sample: time
 * INTERRUPTED (IRQs and softirqs on its CPU), time on the RUN queue
 * (preempted by another thread), and what is left: indirect costs (caches,
 * TLB) that no event shows.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

struct sample {
	uint64_t start, end;
	uint64_t interrupted, runq, off_cpu; /* ns within the sample */
};

/* Adds to each sample the time its thread spent in each state within it. */
static void attribute(const struct tl *tl, size_t th, struct sample *s,
		      size_t n)
{
	struct tl_thread t;
	size_t i = 0, j;

	tl_thread(tl, th, &t);
	for (j = 0; j < t.nr_intervals && i < n; j++) {
		struct tl_interval iv;

		tl_interval(tl, th, j, &iv);
		while (i < n && s[i].end <= iv.start_ns)
			i++;
		for (size_t k = i; k < n && s[k].start < iv.end_ns; k++) {
			uint64_t a = iv.start_ns > s[k].start ? iv.start_ns :
								s[k].start;
			uint64_t b = iv.end_ns < s[k].end ? iv.end_ns :
							    s[k].end;

			if (b <= a)
				continue;
			if (iv.state == TL_INTERRUPTED)
				s[k].interrupted += b - a;
			else if (iv.state == TL_RUNQ)
				s[k].runq += b - a;
			else if (iv.state != TL_RUN &&
				 iv.state != TL_RUN_USER &&
				 iv.state != TL_RUN_SYS)
				s[k].off_cpu += b - a;
		}
	}
}

static int by_stretch(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	uint64_t dx = x->end - x->start, dy = y->end - y->start;

	return dx < dy ? 1 : dx > dy ? -1 : 0;
}

int main(int argc, char **argv)
{
	/* No drain thread: it would be noise in the measurement itself. */
	const struct mon_live_config live = { .no_thread = true };
	unsigned long samples = 2000, iterations = 0;
	uint64_t min = UINT64_MAX, total = 0, excess = 0, intr = 0, runq = 0;
	size_t size = 16 << 20, i, stretched = 0;
	struct mon_pipeline *p = NULL;
	struct mon_source *src;
	struct mon_sink *to_timeline;
	struct monitor *mon;
	struct sample *s;
	struct noise *nz;
	struct tl *tl;
	int64_t th;
	int opt, ret;

	while ((opt = getopt(argc, argv, "n:w:")) != -1) {
		if (opt == 'n' && atol(optarg) > 0)
			samples = atol(optarg);
		else if (opt == 'w' && atol(optarg) > 0)
			iterations = atol(optarg);
		else {
			fprintf(stderr,
				"usage: ftq [-n SAMPLES] [-w ITERATIONS]\n");
			return 2;
		}
	}
	s = calloc(samples, sizeof(*s));
	if (!s)
		return 1;
	if (!iterations)
		iterations = fixed_work_iterations(1000000);

	ret = monitor_create(&mon, &size);
	if (!ret)
		ret = thread_monitor(mon, 1, gettid());
	if (!ret)
		ret = monitor_resume(mon);
	if (!ret)
		ret = tl_create(&tl, NULL);
	if (!ret)
		ret = mon_source_live(&src, mon, &live);
	if (!ret)
		ret = mon_pipeline_create(&p, src);
	if (!ret)
		ret = mon_sink_timeline(&to_timeline, tl);
	if (!ret)
		ret = mon_pipeline_add_sink(p, to_timeline);
	if (ret) {
		fprintf(stderr, "ftq: %s\n", monitor_strerror(ret));
		return 1;
	}
	for (i = 0; i < samples; i++) {
		s[i].start = now_ns();
		fixed_work(iterations);
		s[i].end = now_ns();
	}
	/* Suspend, drain to the end, then rebuild the timeline. */
	ret = record_finish(mon, src, p);
	th = tl_find(tl, gettid());
	if (ret || th < 0) {
		fprintf(stderr, "ftq: no timeline of this thread\n");
		return 1;
	}
	attribute(tl, th, s, samples);

	for (i = 0; i < samples; i++)
		if (s[i].end - s[i].start < min)
			min = s[i].end - s[i].start;
	for (i = 0; i < samples; i++) {
		uint64_t d = s[i].end - s[i].start;

		total += d;
		excess += d - min;
		intr += s[i].interrupted;
		runq += s[i].runq;
		/* Stretched: more than 5% above the fastest sample. */
		stretched += (d - min) * 20 > min;
	}
	printf("FTQ: %lu samples of %lu iterations, fastest %.1f us, mean %.1f us\n",
	       samples, iterations, min / 1e3, (double)total / samples / 1e3);
	printf("noise: %.2f%% of the time (samples above the fastest), %zu samples stretched by more than 5%%\n",
	       100.0 * excess / total, stretched);
	printf("  interrupted (IRQ, softirq on its CPU): %.2f%% of the noise\n",
	       excess ? 100.0 * intr / excess : 0.0);
	printf("  preempted (on the run queue):          %.2f%% of the noise\n",
	       excess ? 100.0 * runq / excess : 0.0);
	printf("  unexplained (caches, TLB, frequency):  %.2f%% of the noise\n",
	       excess ? 100.0 *
				(excess - (intr + runq < excess ? intr + runq :
								  excess)) /
				excess :
			0.0);

	qsort(s, samples, sizeof(*s), by_stretch);
	printf("\nmost stretched samples:\n%14s %10s %12s %10s %10s\n",
	       "start (ns)", "took (us)", "interr. (us)", "runq (us)",
	       "other (us)");
	for (i = 0; i < samples && i < 10; i++)
		printf("%14llu %10.1f %12.1f %10.1f %10.1f\n",
		       (unsigned long long)s[i].start,
		       (s[i].end - s[i].start) / 1e3, s[i].interrupted / 1e3,
		       s[i].runq / 1e3, s[i].off_cpu / 1e3);
	if (!noise_create(&nz, tl)) {
		print_osnoise(nz, (size_t)th);
		noise_destroy(nz);
	}
	tl_destroy(tl);
	free(s);
	return 0;
}
