// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_trace.c - libFuzzer target: the .mkm reader on arbitrary bytes, and
 * whatever records it yields, through a memory source and a timeline sink
 * (or the raw bytes taken as records, fed directly), into the timeline
 * builder and accounting, checking the timeline invariants.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libmonitor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct tl *tl)
{
	uint64_t timers[TL_NR_STATES];
	struct acct_burst b[TL_NR_STATES];
	struct acct_cpu c;
	size_t th, i;

	for (th = 0; th < tl_nr_threads(tl); th++) {
		struct tl_thread t;
		struct tl_interval iv;
		uint64_t prev_end = 0;

		if (tl_thread(tl, th, &t))
			abort();
		for (i = 0; i < t.nr_intervals; i++) {
			if (tl_interval(tl, th, i, &iv) ||
			    iv.start_ns > iv.end_ns ||
			    iv.state >= TL_NR_STATES ||
			    (i == 0 && iv.start_ns != t.first_ns) ||
			    (i > 0 && iv.start_ns != prev_end))
				abort();
			prev_end = iv.end_ns;
		}
		if (t.nr_intervals && prev_end != t.end_ns)
			abort();
		if (acct_msa(tl, ACCT_CHILDREN, th, TL_NR_STATES, timers) ||
		    acct_bursts(tl, ACCT_THREAD, th, b))
			abort();
	}
	if (acct_msa(tl, ACCT_ALL, 0, TL_NR_STATES, timers))
		abort();
	for (i = 0; i < tl_nr_cpus(tl) && i < 64; i++)
		if (acct_cpu(tl, (unsigned int)i, &c))
			abort();
}

/* A trace through the pipeline (memory source -> timeline sink). */
static void replay(struct mon_source *src, struct tl *tl)
{
	struct mon_pipeline *p;
	struct mon_sink *sink;

	if (mon_pipeline_create(&p, src))
		abort();
	if (mon_sink_timeline(&sink, tl) || mon_pipeline_add_sink(p, sink))
		abort();
	if (mon_pipeline_run(p) && !mon_pipeline_error(p, NULL)[0])
		abort(); /* every error must say why */
	mon_pipeline_destroy(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mon_source *src = NULL;
	struct tl *tl;
	int err;

	if (tl_create(&tl, NULL))
		return 0;
	err = mon_source_mem(&src, data, size);
	if (!err) {
		replay(src, tl);
	} else {
		/* Not a trace: the bytes as a raw record stream. */
		size_t n = size / sizeof(struct mkm_event);
		struct mkm_event *ev = malloc(n * sizeof(*ev) + 1);

		if (src && !mon_source_error(src, NULL)[0])
			abort(); /* every error must say why */
		mon_source_destroy(src);
		if (ev) {
			memcpy(ev, data, n * sizeof(*ev));
			tl_feed(tl, ev, n / 2);
			tl_advance(tl, n ? ev[0].time_ns : 0);
			tl_feed(tl, ev + n / 2, n - n / 2);
			tl_flush(tl);
			free(ev);
		}
	}
	check(tl);
	tl_destroy(tl);
	return 0;
}
