// SPDX-License-Identifier: GPL-2.0
/*
 * runs.c - a trace's threads run by run, as perf sched timehist lists
 * them, from libmonitor's timeline and wakeup breakdown, for
 * compare.py timehist (tests/osnoise/check.sh):
 *
 *   runs FILE COMM
 *
 * One line for each dispatch of a thread named COMM (a stretch on a CPU,
 * interrupts in it, from its switch-in to its switch-out), in time order:
 *
 *   tid in_ns out_ns wait_ns after latency_ns enqueued_ns left
 *
 * wait_ns: its wait on a run queue just before (0: none); after: what the
 * wait followed: S a sleep or its creation (a wakeup), P a preemption, -
 * nothing (it began running, or UNKNOWN); latency_ns and enqueued_ns, for
 * a wakeup, mon_late_wakeup_at()'s latency (from the waker's call, else
 * the enqueue) and its wait from the enqueue; left: the state it left in
 * (the next interval's state name, or "end").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libmonitor.h"

static void die(const char *what, int err)
{
	fprintf(stderr, "runs: %s: %s\n", what, monitor_strerror(err));
	exit(1);
}

/* file source -> timeline and WAKING records, in one pass */
static struct tl *load(const char *path, struct mon_wakings *w)
{
	struct mon_source *src;
	struct mon_pipeline *p;
	struct mon_sink *tls, *ws;
	struct tl_config cfg;
	struct tl *tl;
	int err = mon_source_file(&src, path);

	if (err)
		die(path, err);
	cfg = (struct tl_config){ .nr_cpus = mon_source_info(src)->nr_cpus,
				  .classes = mon_source_info(src)->classes };
	err = mon_pipeline_create(&p, src);
	if (!err)
		err = tl_create(&tl, &cfg);
	if (!err)
		err = mon_sink_timeline(&tls, tl);
	if (!err)
		err = mon_pipeline_add_sink(p, tls);
	if (!err)
		err = mon_sink_wakings(&ws, w);
	if (!err)
		err = mon_pipeline_add_sink(p, ws);
	if (!err)
		err = mon_pipeline_run(p);
	if (err)
		die(path, err);
	mon_pipeline_destroy(p);
	return tl;
}

static int get(const struct tl *tl, size_t th, size_t i, struct tl_interval *iv)
{
	return tl_interval(tl, th, i, iv);
}

static void thread_runs(struct tl *tl, struct noise *n, struct mon_wakings *w,
			size_t th, uint32_t tid)
{
	struct tl_thread t;
	struct tl_interval iv, q;
	size_t i = 0;

	tl_thread(tl, th, &t);
	while (i < t.nr_intervals) {
		size_t first_q, in, out;
		uint64_t wait = 0, lat = 0, enq = 0, end;
		const char *left;
		char after = '-';

		get(tl, th, i, &iv);
		if (!tl_state_desc(iv.state)->on_cpu) {
			i++;
			continue;
		}
		in = i;
		/* The wait just before, and what it followed. */
		first_q = in;
		while (first_q && !get(tl, th, first_q - 1, &q) &&
		       q.state == TL_RUNQ)
			first_q--;
		if (first_q < in) {
			get(tl, th, first_q, &q);
			wait = iv.start_ns - q.start_ns;
			if (first_q && !get(tl, th, first_q - 1, &q))
				after = tl_state_desc(q.state)->on_cpu ? 'P' :
					q.state == TL_UNKNOWN	       ? '-' :
									 'S';
			else
				after = 'S'; /* its first state: a creation */
		}
		if (after == 'S') {
			struct mon_late l;

			if (!mon_late_wakeup_at(n, th, iv.start_ns, w, &l)) {
				lat = l.latency_ns;
				enq = l.switch_in_ns - l.wakeup_ns;
				mon_late_free(&l);
			} else {
				after = '-'; /* cut by a gap: no wakeup */
			}
		}
		for (out = in; out + 1 < t.nr_intervals; out++) {
			get(tl, th, out + 1, &q);
			if (!tl_state_desc(q.state)->on_cpu)
				break;
		}
		get(tl, th, out, &q);
		end = q.end_ns;
		left = out + 1 < t.nr_intervals && !get(tl, th, out + 1, &q) ?
			       tl_state_name(q.state) :
			       "end";
		printf("%u %llu %llu %llu %c %llu %llu %s\n", tid,
		       (unsigned long long)iv.start_ns, (unsigned long long)end,
		       (unsigned long long)wait, after, (unsigned long long)lat,
		       (unsigned long long)enq, left);
		i = out + 1;
	}
}

int main(int argc, char **argv)
{
	struct mon_wakings *w;
	struct noise *n;
	struct tl *tl;
	size_t th;
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: runs FILE COMM\n");
		return 2;
	}
	err = mon_wakings_create(&w);
	if (err)
		die("wakings", err);
	tl = load(argv[1], w);
	err = noise_create(&n, tl);
	if (err)
		die("noise index", err);
	for (th = 0; th < tl_nr_threads(tl); th++) {
		struct tl_thread t;

		tl_thread(tl, th, &t);
		if (!strcmp(t.name, argv[2]))
			thread_runs(tl, n, w, th, t.tid);
	}
	noise_destroy(n);
	mon_wakings_destroy(w);
	tl_destroy(tl);
	return 0;
}
