// SPDX-License-Identifier: GPL-2.0
/*
 * report_barrier.c - mkm noise --barriers: the rounds of threads
 * that meet at barriers (libmonitor's mon_barriers()), the longest with
 * the node and thread that arrived last and what took time from its
 * compute phase, then the long ones by node and cause: the Barcelona
 * Supercomputing Center's table,
 * across the nodes of a merged trace (examples/barrier is the one-machine
 * study, its barriers timed by the program itself); and Tsafrir et al.'s
 * noise law, how often a barrier of n ranks is delayed against each one's own
 * rate of being hit (mon_barriers_law()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "messages.h"
#include "report_barrier.h"
#include "report_nodes.h"

/* The long rounds tallied by node and main cause. */
struct tally {
	uint32_t tid; /* a last rank's: its node */
	const struct trace_node *node;
	char cause[48];
	unsigned int kind; /* enum noise_kind; NOISE_NONE: nothing recorded */
	size_t count;
	uint64_t taken_ns;
};

#define NOISE_NONE 255u
#define MAX_TALLY 64

static uint32_t th_tid(const struct tl *tl, size_t th)
{
	struct tl_thread t;

	tl_thread(tl, th, &t);
	return t.tid;
}

static void cause_label(const struct tl *tl, const struct mon_nodes *nodes,
			const struct mon_barrier_round *r, char *buf,
			size_t len)
{
	struct tl_thread t;

	if (!r->cause.count)
		snprintf(buf, len, "(nothing recorded)");
	else if (r->cause.kind == NOISE_THREAD &&
		 !tl_thread(tl, (size_t)r->cause.thread, &t))
		snprintf(buf, len, "%s (%u)", t.name[0] ? t.name : "?",
			 node_tid(nodes, t.tid));
	else
		snprintf(buf, len, "%s", r->cause.name);
}

/* Adds long round @r to the @n rows of @tally; past MAX_TALLY rows, it
 * counts in @others. Return: the rows now. */
static size_t tally_add(struct tally *tally, size_t n, const struct tl *tl,
			const struct mon_nodes *nodes, uint32_t tid,
			const struct mon_barrier_round *r, size_t *others)
{
	const struct trace_node *node = mon_nodes_of_tid(nodes, tid);
	char cause[48];
	size_t i;

	cause_label(tl, nodes, r, cause, sizeof(cause));
	for (i = 0; i < n; i++)
		if (tally[i].node == node && !strcmp(tally[i].cause, cause))
			break;
	if (i == n && n == MAX_TALLY) {
		(*others)++;
		return n;
	}
	if (i == n) {
		memset(&tally[n], 0, sizeof(tally[n]));
		tally[n].tid = tid;
		tally[n].node = node;
		snprintf(tally[n].cause, sizeof(tally[n].cause), "%s", cause);
		tally[n].kind = r->cause.count ? r->cause.kind : NOISE_NONE;
		n++;
	}
	tally[i].count++;
	tally[i].taken_ns += r->cause.taken_ns;
	return n;
}

/* Most barriers first, then most time; then by node and cause, so that
 * ties come out the same way every time. */
static int by_count(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->taken_ns != y->taken_ns)
		return x->taken_ns > y->taken_ns ? -1 : 1;
	c = strcmp(x->node ? x->node->name : "", y->node ? y->node->name : "");
	return c ? c : strcmp(x->cause, y->cause);
}

static uint64_t wait_of(const struct mon_barrier_round *r)
{
	return r->last_ns - r->first_ns;
}

static int by_wait(const void *a, const void *b)
{
	uint64_t x = wait_of(*(struct mon_barrier_round *const *)a),
		 y = wait_of(*(struct mon_barrier_round *const *)b);

	return x > y ? -1 : x < y;
}

/* The largest bound of a merged trace's nodes (0: one machine). */
static uint64_t largest_bound(const struct mon_nodes *nodes)
{
	uint64_t e = 0;
	uint32_t i;

	for (i = 0; nodes && i < nodes->hdr.nr_nodes; i++)
		if (nodes->node[i].error_ns > e)
			e = nodes->node[i].error_ns;
	return e;
}

static void print_head(const struct tl *tl, const struct noise_opts *o,
		       const size_t *th, size_t nr,
		       const struct mon_barriers *b,
		       struct mon_barrier_round **order)
{
	char a[32], c[32], d[32], e[32];
	size_t i;

	printf("Barriers of %zu threads:", nr);
	for (i = 0; i < nr; i++) {
		struct tl_thread t;
		char label[64];

		tl_thread(tl, th[i], &t);
		node_thread_label(o->nodes, &t, label, sizeof(label));
		printf("%s %s", i ? "," : "", label);
	}
	printf("\nA round: from the release that starts their compute phases (busy stretches of %s or more) to the last one's arrival\n",
	       mon_fmt_ns(a, sizeof(a), b->min_phase_ns));
	if (largest_bound(o->nodes))
		printf("(a merged trace: arrivals on two nodes are ordered within their clocks' bounds, the largest +-%s)\n",
		       mon_fmt_ns(a, sizeof(a), largest_bound(o->nodes)));
	printf("%zu rounds; wait (first arrival to last): median %s, 90th %s, max %s; %zu waited more than %s\n",
	       b->nr_rounds, mon_fmt_ns(a, sizeof(a), b->median_ns),
	       mon_fmt_ns(
		       c, sizeof(c),
		       wait_of(order[b->nr_rounds - 1 - b->nr_rounds * 9 / 10])),
	       mon_fmt_ns(d, sizeof(d), wait_of(order[0])), b->nr_long,
	       mon_fmt_ns(e, sizeof(e), b->threshold_ns));
}

static void print_text(const struct tl *tl, const struct mon_meta *meta,
		       const struct noise_opts *o, const size_t *th, size_t nr,
		       const struct mon_barriers *b,
		       struct mon_barrier_round **order)
{
	uint64_t origin = mon_time_origin(&meta->info);
	struct tally tally[MAX_TALLY];
	size_t i, nt = 0, others = 0;

	print_head(tl, o, th, nr, b, order);
	if (!b->nr_long)
		return;
	printf("\nThe longest barriers, and what delayed the last to arrive\n");
	printf("%6s %12s %10s ", "ROUND", "AT", "WAIT");
	print_node_head(o->nodes);
	printf("%7s %-16s %10s %10s  %s\n", "TID", "LAST TO ARRIVE", "PHASE",
	       "TAKEN", "MAIN CAUSE (kind: its time)");
	for (i = 0; i < b->nr_rounds && i < o->top && order[i]->long_wait;
	     i++) {
		const struct mon_barrier_round *r = order[i];
		char a[32], c[32], d[32], e[32], f[32], cause[48];
		struct tl_thread t;

		tl_thread(tl, th[r->last], &t);
		cause_label(tl, o->nodes, r, cause, sizeof(cause));
		printf("%6zu %12s %10s ", (size_t)(r - b->rounds),
		       mon_fmt_time(a, sizeof(a), r->release_ns, origin),
		       mon_fmt_ns(c, sizeof(c), wait_of(r)));
		printf("%7u %-16.16s %10s %10s  %s",
		       print_node_of_tid(o->nodes, t.tid),
		       t.name[0] ? t.name : "?",
		       mon_fmt_ns(d, sizeof(d), r->last_ns - r->phase_start_ns),
		       mon_fmt_ns(e, sizeof(e), r->taken_ns), cause);
		if (r->cause.count)
			printf(" (%s: %s)", noise_kind_name(r->cause.kind),
			       mon_fmt_ns(f, sizeof(f), r->cause.taken_ns));
		putchar('\n');
	}
	for (i = 0; i < b->nr_rounds; i++)
		if (b->rounds[i].long_wait)
			nt = tally_add(tally, nt, tl, o->nodes,
				       th_tid(tl, th[b->rounds[i].last]),
				       &b->rounds[i], &others);
	qsort(tally, nt, sizeof(*tally), by_count);
	printf("\nThe %zu long barriers by node and main cause of the last one's delay\n",
	       b->nr_long);
	print_node_head(o->nodes);
	printf("%-28s %-7s %8s %10s\n", "CAUSE", "KIND", "BARRIERS",
	       "ITS TIME");
	for (i = 0; i < nt; i++) {
		char a[32];

		print_node_of_tid(o->nodes, tally[i].tid);
		printf("%-28.28s %-7s %8zu %10s\n", tally[i].cause,
		       tally[i].kind == NOISE_NONE ?
			       "-" :
			       noise_kind_name(tally[i].kind),
		       tally[i].count,
		       mon_fmt_ns(a, sizeof(a), tally[i].taken_ns));
	}
	if (others)
		printf("(and %zu more long barriers, of node and cause pairs past the first %d)\n",
		       others, MAX_TALLY);
}

/* Tsafrir et al.'s noise law: each rank's hit rate, then barriers of 1 to nr ranks. */
static void print_law(const struct tl *tl, const struct noise_opts *o,
		      const size_t *th, size_t nr, const struct mon_barriers *b,
		      const struct mon_barrier_law *law)
{
	char a[32];
	size_t i;

	printf("\nThe noise law (Tsafrir et al.): a rank is hit in a round when its phase ran over its own median by more than %s\n",
	       mon_fmt_ns(a, sizeof(a), b->margin_ns));
	print_node_head(o->nodes);
	printf("%7s %-16s %10s %6s %8s\n", "TID", "RANK", "MEDIAN", "HIT",
	       "RATE");
	for (i = 0; i < nr; i++) {
		struct tl_thread t;

		tl_thread(tl, th[i], &t);
		printf("%7u %-16.16s %10s %6zu %7.2f%%\n",
		       print_node_of_tid(o->nodes, t.tid),
		       t.name[0] ? t.name : "?",
		       mon_fmt_ns(a, sizeof(a), b->median_phase_ns[i]),
		       b->hits[i],
		       100.0 * (double)b->hits[i] / (double)b->nr_rounds);
	}
	printf("Rounds in which one of n ranks was hit (every n in a row, wrapping), against independent hits\n");
	printf("%5s %10s %12s %12s\n", "N", "OBSERVED", "INDEPENDENT",
	       "1-(1-p)^N");
	for (i = 0; i < nr; i++)
		printf("%5zu %9.2f%% %11.2f%% %11.2f%%\n", i + 1,
		       100 * law[i].observed, 100 * law[i].independent,
		       100 * law[i].uniform);
}

static void json_round(const struct tl *tl, const struct noise_opts *o,
		       const size_t *th, const struct mon_barriers *b,
		       const struct mon_barrier_round *r)
{
	uint32_t tid = th_tid(tl, th[r->last]);

	printf("{\"round\":%zu,\"release_ns\":%llu,\"next_ns\":%llu,\"first_ns\":%llu,\"last_ns\":%llu,\"wait_ns\":%llu,\"tid\":%u",
	       (size_t)(r - b->rounds), (unsigned long long)r->release_ns,
	       (unsigned long long)r->next_ns, (unsigned long long)r->first_ns,
	       (unsigned long long)r->last_ns, (unsigned long long)wait_of(r),
	       tid);
	json_node_of_tid(o->nodes, tid);
	printf(",\"phase_start_ns\":%llu,\"taken_ns\":%llu,\"unknown_ns\":%llu,\"cause\":",
	       (unsigned long long)r->phase_start_ns,
	       (unsigned long long)r->taken_ns,
	       (unsigned long long)r->unknown_ns);
	if (!r->cause.count) {
		printf("null}");
		return;
	}
	printf("{\"kind\":\"%s\",\"name\":", noise_kind_name(r->cause.kind));
	json_string(r->cause.name);
	if (r->cause.kind == NOISE_THREAD) {
		tid = th_tid(tl, (size_t)r->cause.thread);
		printf(",\"tid\":%u", tid);
		json_node_of_tid(o->nodes, tid);
	} else {
		printf(",\"number\":%u", r->cause.number);
	}
	printf(",\"taken_ns\":%llu}}", (unsigned long long)r->cause.taken_ns);
}

static void print_json(const struct tl *tl, const struct noise_opts *o,
		       const size_t *th, size_t nr,
		       const struct mon_barriers *b,
		       const struct mon_barrier_law *law)
{
	const char *sep = "";
	size_t i;

	printf("{\"barriers\":{\"threads\":[");
	for (i = 0; i < nr; i++) {
		struct tl_thread t;

		tl_thread(tl, th[i], &t);
		printf("%s{\"tid\":%u", i ? "," : "", t.tid);
		json_node_of_tid(o->nodes, t.tid);
		printf(",\"name\":");
		json_string(t.name);
		printf(",\"median_phase_ns\":%llu,\"hits\":%zu}",
		       (unsigned long long)b->median_phase_ns[i], b->hits[i]);
	}
	printf("],\"law\":[");
	for (i = 0; i < nr; i++)
		printf("%s{\"n\":%zu,\"observed\":%.6f,\"independent\":%.6f,\"uniform\":%.6f}",
		       i ? "," : "", i + 1, law[i].observed, law[i].independent,
		       law[i].uniform);
	printf("],\"min_phase_ns\":%llu,\"fastest_ns\":%llu,\"margin_ns\":%llu,\"rounds\":%zu,\"median_ns\":%llu,\"threshold_ns\":%llu,\"nr_long\":%zu,\"long\":[",
	       (unsigned long long)b->min_phase_ns,
	       (unsigned long long)b->fastest_ns,
	       (unsigned long long)b->margin_ns, b->nr_rounds,
	       (unsigned long long)b->median_ns,
	       (unsigned long long)b->threshold_ns, b->nr_long);
	for (i = 0; i < b->nr_rounds; i++) {
		if (!b->rounds[i].long_wait)
			continue;
		printf("%s", sep);
		json_round(tl, o, th, b, &b->rounds[i]);
		sep = ",";
	}
	printf("]}}\n");
}

/* The matrix's columns: the ranks, then the threads among the causes. */
static size_t matrix_columns(const size_t *th, size_t nr,
			     const struct mon_barriers *b, size_t *cols,
			     size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < nr && n < max; i++)
		cols[n++] = th[i];
	for (i = 0; i < b->nr_rounds && n < max; i++) {
		const struct mon_barrier_round *r = &b->rounds[i];

		if (!r->long_wait || !r->cause.count ||
		    r->cause.kind != NOISE_THREAD)
			continue;
		for (j = 0; j < n && cols[j] != (size_t)r->cause.thread; j++)
			;
		if (j == n)
			cols[n++] = (size_t)r->cause.thread;
	}
	return n;
}

int report_barriers(struct tl *tl, const struct mon_meta *meta,
		    const struct noise_opts *o, const size_t *th, size_t nr)
{
	struct mon_barrier_round **order;
	struct mon_barrier_law *law;
	struct mon_barriers b;
	struct noise *n;
	size_t cols[12], i;
	int ret;

	if (nr < 2)
		die("--barriers: %zu thread%s chosen; it takes one per rank, at least 2 (--comm NAME or --tid TID,TID...)",
		    nr, nr == 1 ? "" : "s");
	ret = noise_create(&n, tl);
	if (!ret)
		ret = mon_barriers(n, th, nr, &b);
	if (ret)
		die("barriers: %s", monitor_strerror(ret));
	if (!b.nr_rounds)
		die("--barriers: no round where all %zu threads computed between two releases (are they the ranks? --comm NAME or --tid TID,TID...)",
		    nr);
	order = calloc(b.nr_rounds, sizeof(*order));
	law = calloc(nr, sizeof(*law));
	if (!order || !law || mon_barriers_law(&b, law))
		die("out of memory");
	for (i = 0; i < b.nr_rounds; i++)
		order[i] = &b.rounds[i];
	qsort(order, b.nr_rounds, sizeof(*order), by_wait);
	if (o->json) {
		print_json(tl, o, th, nr, &b, law);
	} else {
		print_text(tl, meta, o, th, nr, &b, order);
		print_law(tl, o, th, nr, &b, law);
		print_noise_matrix(tl, o->nodes, cols,
				   matrix_columns(th, nr, &b, cols, 8));
	}
	free(law);
	free(order);
	mon_barriers_free(&b);
	noise_destroy(n);
	return 0;
}
