// SPDX-License-Identifier: GPL-2.0
/*
 * report_bounds.c - the bounds of the compensated figures in mkm report:
 * each figure with its low and high, and the parts they come from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "messages.h"
#include "report_bounds.h"

void bounds_collect(void *arg, const struct trace_bounds *b, size_t n)
{
	struct mon_bounds *bs = arg;

	mon_bounds_free(bs);
	bs->b = malloc((n + 1) * sizeof(*b));
	if (!bs->b)
		die("out of memory");
	memcpy(bs->b, b, n * sizeof(*b));
	bs->n = n;
}

/* The threads that start first and end last, or -1, -1. */
static void command_span(const struct mon_bounds *bs, const struct tl *tl,
			 int64_t *first, int64_t *last)
{
	size_t th, n = tl_nr_threads(tl);
	uint64_t t0 = UINT64_MAX, t1 = 0;

	*first = *last = -1;
	for (th = 0; th < n; th++) {
		struct tl_thread t;

		tl_thread(tl, th, &t);
		if (!mon_bounds_find(bs, t.tid))
			continue;
		if (t.first_ns < t0) {
			t0 = t.first_ns;
			*first = (int64_t)th;
		}
		if (t.end_ns >= t1) {
			t1 = t.end_ns;
			*last = (int64_t)th;
		}
	}
}

/* The elapsed time and its bound; false when no thread has bounds. */
static bool elapsed(const struct mon_bounds *bs, const struct tl *tl,
		    uint64_t *v, struct trace_bound *b, uint32_t *tids)
{
	struct tl_thread a, z;
	int64_t first, last;

	command_span(bs, tl, &first, &last);
	if (first < 0 || last < 0)
		return false;
	tl_thread(tl, (size_t)first, &a);
	tl_thread(tl, (size_t)last, &z);
	mon_bound_elapsed(mon_bounds_find(bs, a.tid),
			  mon_bounds_find(bs, z.tid), b);
	*v = z.end_ns > a.first_ns ? z.end_ns - a.first_ns : 0;
	tids[0] = a.tid;
	tids[1] = z.tid;
	return true;
}

void bounds_print(const struct mon_bounds *bs, const struct tl *tl,
		  const size_t *rows, size_t n)
{
	struct trace_bound eb;
	char c[6][40], why[512], tid[12];
	uint32_t tids[2];
	size_t k, f, said = 0;
	uint64_t ev;

	printf("\nBounds of the compensated figures (99%%: the calibration's interval, the scheduling at stake, the kernel's split of the switches)\n");
	printf("%7s %-16s %-6s %12s %12s %12s  %-18s %-18s %s\n", "TID", "NAME",
	       "FIGURE", "comp", "low", "high", "calibration", "scheduling",
	       "split");
	for (k = 0; k < n; k++) {
		const struct trace_bounds *b;
		uint64_t fig[TRACE_BOUND_FIGURES];
		struct tl_thread t;

		tl_thread(tl, rows[k], &t);
		b = mon_bounds_find(bs, t.tid);
		if (!b)
			continue;
		bounds_figures(tl, rows[k], fig);
		snprintf(tid, sizeof(tid), "%u", t.tid);
		for (f = 0; f < sizeof(bounds_shown) / sizeof(bounds_shown[0]);
		     f++) {
			unsigned int i = bounds_shown[f];
			struct trace_bound tot;

			mon_bound_total(b, i, &tot);
			printf("%7s %-16.16s %-6s %12s %12s %12s  %-18s %-18s %s\n",
			       f ? "" : tid,
			       f ? "" : (t.name[0] ? t.name : "?"),
			       bounds_figure_name(i),
			       mon_fmt_ns(c[0], sizeof(c[0]), fig[i]),
			       mon_fmt_ns(c[1], sizeof(c[1]),
					  bounds_low(fig[i], tot.below_ns)),
			       mon_fmt_ns(c[2], sizeof(c[2]),
					  fig[i] + tot.above_ns),
			       bounds_part_str(
				       c[3], sizeof(c[3]),
				       &b->part[TRACE_BOUND_CALIBRATION][i]),
			       bounds_part_str(
				       c[4], sizeof(c[4]),
				       &b->part[TRACE_BOUND_SCHEDULING][i]),
			       bounds_part_str(c[5], sizeof(c[5]),
					       &b->part[TRACE_BOUND_SPLIT][i]));
		}
	}
	if (elapsed(bs, tl, &ev, &eb, tids))
		printf("elapsed, thread %u's first record to thread %u's last: %s [%s .. %s]\n",
		       tids[0], tids[1], mon_fmt_ns(c[0], sizeof(c[0]), ev),
		       mon_fmt_ns(c[1], sizeof(c[1]),
				  bounds_low(ev, eb.below_ns)),
		       mon_fmt_ns(c[2], sizeof(c[2]), ev + eb.above_ns));
	for (k = 0; k < n; k++) {
		const struct trace_bounds *b;
		struct tl_thread t;

		tl_thread(tl, rows[k], &t);
		b = mon_bounds_find(bs, t.tid);
		if (!b || !bounds_unknown_str(why, sizeof(why), b)[0])
			continue;
		if (!said++)
			printf("Not in the bounds (not known, so not bounded):\n");
		printf("%7u %-16.16s %s\n", t.tid, t.name[0] ? t.name : "?",
		       why);
	}
}

static void json_flags(uint32_t flags)
{
	const char *sep = "";
	unsigned int i;

	printf("[");
	for (i = 0; i < BOUNDS_NR_FLAGS; i++)
		if (flags & (1u << i)) {
			printf("%s\"%s\"", sep, bounds_flag_name(i));
			sep = ",";
		}
	printf("]");
}

void bounds_json_thread(const struct mon_bounds *bs, const struct tl *tl,
			size_t th)
{
	const struct trace_bounds *b;
	uint64_t fig[TRACE_BOUND_FIGURES];
	struct tl_thread t;
	unsigned int i, k;

	tl_thread(tl, th, &t);
	b = mon_bounds_find(bs, t.tid);
	if (!b)
		return;
	bounds_figures(tl, th, fig);
	printf(",\"bounds\":{");
	for (i = 0; i < TRACE_BOUND_FIGURES; i++) {
		struct trace_bound tot;

		mon_bound_total(b, i, &tot);
		printf("%s\"%s\":{\"ns\":%llu,\"low_ns\":%llu,\"high_ns\":%llu",
		       i ? "," : "", bounds_figure_name(i),
		       (unsigned long long)fig[i],
		       (unsigned long long)bounds_low(fig[i], tot.below_ns),
		       (unsigned long long)(fig[i] + tot.above_ns));
		for (k = 0; k < TRACE_BOUND_PARTS; k++)
			printf(",\"%s\":[%llu,%llu]", bounds_part_name(k),
			       (unsigned long long)b->part[k][i].below_ns,
			       (unsigned long long)b->part[k][i].above_ns);
		printf("}");
	}
	printf(",\"split_ends\":%llu,\"split_unknown\":%llu,\"unknown\":",
	       (unsigned long long)b->split_ends,
	       (unsigned long long)b->split_unknown);
	json_flags(b->flags);
	printf("}");
}

void bounds_json_elapsed(const struct mon_bounds *bs, const struct tl *tl)
{
	struct trace_bound b;
	uint32_t tids[2];
	uint64_t v;

	if (!elapsed(bs, tl, &v, &b, tids))
		return;
	printf(",\"elapsed\":{\"first_tid\":%u,\"last_tid\":%u,\"ns\":%llu,\"low_ns\":%llu,\"high_ns\":%llu}",
	       tids[0], tids[1], (unsigned long long)v,
	       (unsigned long long)bounds_low(v, b.below_ns),
	       (unsigned long long)(v + b.above_ns));
}
