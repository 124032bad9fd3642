// SPDX-License-Identifier: GPL-2.0
/*
 * report_latency.c - mkm latency: perf sched latency's table from
 * the timeline. A delay is a stretch of run-queue time (woken, created or
 * preempted, until switched in); back-to-back run-queue intervals (a
 * migration while queued) make one delay.
 */
#include <stdio.h>
#include <stdlib.h>

#include "json.h"
#include "messages.h"
#include "report_latency.h"
#include "report_nodes.h"

struct latency {
	size_t th;
	uint64_t run_ns, switches, delays, delay_ns;
	uint64_t max_ns, max_start, max_end; /* the longest delay */
};

static void close_delay(struct latency *l, uint64_t start, uint64_t end)
{
	uint64_t d = end - start;

	l->delays++;
	l->delay_ns += d;
	if (d > l->max_ns) {
		l->max_ns = d;
		l->max_start = start;
		l->max_end = end;
	}
}

static void thread_latency(const struct tl *tl, size_t th, struct latency *l)
{
	struct tl_interval iv[256];
	uint64_t start = 0, end = 0;
	bool queued = false;
	struct tl_thread t;
	size_t first;
	ssize_t n, i;

	tl_thread(tl, th, &t);
	l->th = th;
	l->switches = t.switches;
	for (first = 0; (n = tl_intervals(tl, th, first, 256, iv)) > 0;
	     first += (size_t)n) {
		for (i = 0; i < n; i++) {
			unsigned int g = tl_state_desc(iv[i].state)->group;

			if (g == TL_GROUP_RUN)
				l->run_ns += iv[i].end_ns - iv[i].start_ns;
			if (g == TL_GROUP_RUNQ && queued &&
			    iv[i].start_ns == end) {
				end = iv[i].end_ns;
				queued = !iv[i].open;
				continue;
			}
			if (queued)
				close_delay(l, start, end);
			queued = g == TL_GROUP_RUNQ && !iv[i].open;
			start = iv[i].start_ns;
			end = iv[i].end_ns;
		}
	}
	/* A wait still open at the end of the trace is no delay yet. */
	if (queued)
		close_delay(l, start, end);
}

static int by_max(const void *a, const void *b)
{
	const struct latency *x = a, *y = b;

	if (x->max_ns != y->max_ns)
		return x->max_ns > y->max_ns ? -1 : 1;
	return x->th < y->th ? -1 : x->th > y->th;
}

static void print_json(const struct tl *tl, const struct mon_nodes *nodes,
		       const char *path, const struct latency *l, size_t n,
		       uint64_t origin)
{
	size_t i;

	printf("{\"file\":");
	json_string(path);
	printf(",\"origin_ns\":%llu,\"latency\":[", (unsigned long long)origin);
	for (i = 0; i < n; i++) {
		struct tl_thread t;

		tl_thread(tl, l[i].th, &t);
		printf("%s{\"tid\":%u", i ? "," : "", t.tid);
		json_node_of_tid(nodes, t.tid);
		printf(",\"name\":");
		json_string(t.name);
		printf(",\"run_ns\":%llu,\"switches\":%llu,\"delays\":%llu,\"delay_ns\":%llu,\"avg_delay_ns\":%llu,\"max_delay_ns\":%llu,\"max_delay_start_ns\":%llu,\"max_delay_end_ns\":%llu}",
		       (unsigned long long)l[i].run_ns,
		       (unsigned long long)l[i].switches,
		       (unsigned long long)l[i].delays,
		       (unsigned long long)l[i].delay_ns,
		       (unsigned long long)(l[i].delays ? l[i].delay_ns /
								  l[i].delays :
							  0),
		       (unsigned long long)l[i].max_ns,
		       (unsigned long long)l[i].max_start,
		       (unsigned long long)l[i].max_end);
	}
	printf("]}\n");
}

static void print_table(const struct tl *tl, const struct mon_nodes *nodes,
			const char *path, const struct latency *l, size_t n,
			size_t all, uint64_t origin)
{
	char a[32], b[32], c[32], d[32], e[32];
	size_t i;

	printf("%s: scheduling latency per thread (like perf sched latency), the longest delay first\n",
	       path);
	if (n < all)
		printf("(%zu of %zu threads shown)\n", n, all);
	printf("A delay: runnable (woken, created or preempted) until switched in; times from the recording's start\n\n");
	print_node_head(nodes);
	printf("    TID NAME                RUNTIME SWITCHES   DELAYS  AVG DELAY  MAX DELAY  MAX DELAY FROM .. TO\n");
	for (i = 0; i < n; i++) {
		struct tl_thread t;

		tl_thread(tl, l[i].th, &t);
		printf("%7u %-16.16s %10s %8llu %8llu %10s %10s",
		       print_node_of_tid(nodes, t.tid),
		       t.name[0] ? t.name : "?",
		       mon_fmt_ns(a, sizeof(a), l[i].run_ns),
		       (unsigned long long)l[i].switches,
		       (unsigned long long)l[i].delays,
		       mon_fmt_ns(b, sizeof(b),
				  l[i].delays ? l[i].delay_ns / l[i].delays :
						0),
		       mon_fmt_ns(c, sizeof(c), l[i].max_ns));
		if (l[i].delays)
			printf("  %s .. %s",
			       mon_fmt_time(d, sizeof(d), l[i].max_start,
					    origin),
			       mon_fmt_time(e, sizeof(e), l[i].max_end,
					    origin));
		putchar('\n');
	}
}

int report_latency(struct tl *tl, const struct mon_meta *meta,
		   const struct mon_nodes *nodes, const char *path,
		   const size_t *rows, size_t nr, size_t top, bool json)
{
	struct latency *l = calloc(nr + 1, sizeof(*l));
	uint64_t origin = mon_time_origin(&meta->info);
	size_t i, n;

	if (!l)
		die("out of memory");
	for (i = 0; i < nr; i++)
		thread_latency(tl, rows[i], &l[i]);
	qsort(l, nr, sizeof(*l), by_max);
	n = top && top < nr ? top : nr;
	if (json)
		print_json(tl, nodes, path, l, n, origin);
	else
		print_table(tl, nodes, path, l, n, nr, origin);
	free(l);
	return 0;
}
