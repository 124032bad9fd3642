// SPDX-License-Identifier: GPL-2.0
/* common.c - what the examples share (see common.h). */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "common.h"

static volatile unsigned long sink;

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void fixed_work(unsigned long iterations)
{
	unsigned long i, x = 1;

	for (i = 0; i < iterations; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

unsigned long fixed_work_iterations(uint64_t target_ns)
{
	unsigned long it = 1000;
	uint64_t best = UINT64_MAX;
	int i;

	for (;;) {
		uint64_t t = now_ns();

		fixed_work(it);
		if (now_ns() - t > target_ns / 4)
			break;
		it *= 2;
	}
	for (i = 0; i < 5; i++) {
		uint64_t t = now_ns();

		fixed_work(it);
		t = now_ns() - t;
		if (t < best)
			best = t;
	}
	return (unsigned long)((double)it * target_ns / best);
}

int record_system(const char *prog, struct monitor **mon,
		  struct mon_source **src, struct mon_pipeline **p,
		  struct tl **tl, const char *out)
{
	struct monitor_config cfg = { .ring_bytes = 8u << 20,
				      .flags = MKM_CONFIG_SYSTEM |
					       MKM_CONFIG_ONE_SWITCH };
	const struct mon_live_config live = { .no_thread = true };
	struct tl_config tcfg = { 0 };
	struct mon_sink *sink_to;
	int ret = monitor_create_at(mon, NULL, &cfg);

	if (ret == -EPERM)
		fprintf(stderr,
			"%s: a system-wide monitor needs CAP_PERFMON (run as root)\n",
			prog);
	/* Every CPU known from the start: none of their records is late. */
	if (!ret)
		ret = monitor_statistics(*mon, NULL, &tcfg.nr_cpus);
	if (!ret)
		ret = monitor_resume(*mon);
	if (!ret)
		ret = tl_create(tl, &tcfg);
	if (!ret)
		ret = mon_source_live(src, *mon, &live);
	if (!ret)
		ret = mon_pipeline_create(p, *src);
	if (!ret)
		ret = mon_sink_timeline(&sink_to, *tl);
	if (!ret)
		ret = mon_pipeline_add_sink(*p, sink_to);
	/* -o: the recording kept, for mkm report, view, export. */
	if (!ret && out)
		ret = mon_sink_trace(&sink_to, out, mon_source_info(*src));
	if (!ret && out)
		ret = mon_pipeline_add_sink(*p, sink_to);
	return ret;
}

int record_finish(struct monitor *mon, struct mon_source *src,
		  struct mon_pipeline *p)
{
	int ret = mon_source_live_stop(src);

	if (!ret)
		ret = mon_pipeline_run(p);
	mon_pipeline_destroy(p);
	monitor_terminate(mon);
	return ret;
}

void stats_row(const char *name, const double *x, size_t n, double scale,
	       const char *unit)
{
	struct mon_sample_stats s;

	mon_sample_stats(x, n, &s);
	printf("%-22s %12.3f %-4s %12.3f %-4s %12.3f +- %.3f\n", name,
	       s.mean * scale, unit, s.stddev * scale, unit, s.mean * scale,
	       s.ci99 * scale);
}

void print_osnoise(struct noise *nz, size_t th)
{
	struct osnoise_report r;
	size_t i;

	if (noise_osnoise(nz, &th, 1, NULL, &r))
		return;
	printf("\nosnoise's table of this thread (rtla osnoise top's columns), time is in us\n");
	printf("CPU Period       Runtime        Noise  %% CPU Aval   Max Noise   Max Single          IRQ      Softirq       Thread\n");
	for (i = 0; i < r.nr_rows; i++) {
		const struct osnoise_row *o = &r.rows[i];

		if (o->cpu < 0)
			continue;
		printf("%3d #%-6llu %12llu %12llu  %10.5f %11llu %12llu %12llu %12llu %12llu\n",
		       o->cpu, (unsigned long long)o->periods,
		       (unsigned long long)(o->runtime_ns / 1000),
		       (unsigned long long)(o->noise_ns / 1000),
		       o->runtime_ns ?
			       100.0 * (double)(o->runtime_ns - o->noise_ns) /
				       (double)o->runtime_ns :
			       100.0,
		       (unsigned long long)(o->max_period_noise_ns / 1000),
		       (unsigned long long)(o->max_single_ns / 1000),
		       (unsigned long long)o->count[OSNOISE_IRQ],
		       (unsigned long long)o->count[OSNOISE_SOFTIRQ],
		       (unsigned long long)o->count[OSNOISE_THREAD]);
	}
	noise_osnoise_free(&r);
}
