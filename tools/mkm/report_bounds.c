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

static const char *const fig_names[TRACE_BOUND_FIGURES] = {
	[TRACE_BOUND_RUN] = "run",     [TRACE_BOUND_RUNQ] = "runq",
	[TRACE_BOUND_SLEEP] = "sleep", [TRACE_BOUND_LIFE] = "life",
	[TRACE_BOUND_START] = "start", [TRACE_BOUND_END] = "end",
};

static const char *const part_names[TRACE_BOUND_PARTS] = {
	[TRACE_BOUND_CALIBRATION] = "calibration",
	[TRACE_BOUND_SCHEDULING] = "scheduling",
	[TRACE_BOUND_SPLIT] = "split",
};

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

/* Thread @th's compensated figures, by enum trace_bound_figure. */
static void figures(const struct tl *tl, size_t th,
		    uint64_t fig[TRACE_BOUND_FIGURES])
{
	uint64_t timers[TL_NR_STATES];
	struct tl_thread t;
	unsigned int s;

	memset(fig, 0, TRACE_BOUND_FIGURES * sizeof(*fig));
	tl_thread(tl, th, &t);
	acct_msa(tl, ACCT_THREAD, th, TL_NR_STATES, timers);
	for (s = 0; s < TL_NR_STATES; s++) {
		switch (tl_state_desc(s)->group) {
		case TL_GROUP_RUN:
		case TL_GROUP_INTR:
			fig[TRACE_BOUND_RUN] += timers[s];
			break;
		case TL_GROUP_RUNQ:
			fig[TRACE_BOUND_RUNQ] += timers[s];
			break;
		case TL_GROUP_SLEEP:
		case TL_GROUP_DISK:
			fig[TRACE_BOUND_SLEEP] += timers[s];
			break;
		}
		fig[TRACE_BOUND_LIFE] += timers[s];
	}
	fig[TRACE_BOUND_START] = t.first_ns;
	fig[TRACE_BOUND_END] = t.end_ns;
}

static uint64_t low(uint64_t v, uint64_t below)
{
	return v > below ? v - below : 0;
}

/* "-12.3 us +4.0 us" into @buf. */
static const char *part_str(char *buf, size_t len, const struct trace_bound *p)
{
	char a[32], b[32];

	if (!p->below_ns && !p->above_ns)
		snprintf(buf, len, "0");
	else if (p->below_ns == p->above_ns)
		snprintf(buf, len, "+-%s",
			 mon_fmt_ns(a, sizeof(a), p->below_ns));
	else if (!p->below_ns)
		snprintf(buf, len, "+%s",
			 mon_fmt_ns(a, sizeof(a), p->above_ns));
	else if (!p->above_ns)
		snprintf(buf, len, "-%s",
			 mon_fmt_ns(a, sizeof(a), p->below_ns));
	else
		snprintf(buf, len, "-%s +%s",
			 mon_fmt_ns(a, sizeof(a), p->below_ns),
			 mon_fmt_ns(b, sizeof(b), p->above_ns));
	return buf;
}

/* What could not be computed for @b, in words ("" if nothing). */
static const char *unknown_str(char *buf, size_t len,
			       const struct trace_bounds *b)
{
	int n = 0;

	buf[0] = '\0';
	if (b->flags & TRACE_BOUND_LOST)
		n += snprintf(
			buf + n, len - (size_t)n,
			"records lost in its life (their cost is not known, nor bounded); ");
	if (b->flags & TRACE_BOUND_SPLIT_PARTIAL && (size_t)n < len)
		n += snprintf(
			buf + n, len - (size_t)n,
			"the split of %llu of its %llu switch ends not measurable (no wait began in the trace), left out; ",
			(unsigned long long)b->split_unknown,
			(unsigned long long)b->split_ends);
	if (b->flags & TRACE_BOUND_NO_INTERVAL && (size_t)n < len)
		n += snprintf(
			buf + n, len - (size_t)n,
			"a cost charged to it has no interval (fewer than 2 trials); ");
	if (b->flags & TRACE_BOUND_NO_WAKEUPS && (size_t)n < len)
		n += snprintf(
			buf + n, len - (size_t)n,
			"no WAKEUP records: wakeups' decisions not seen; ");
	if (n > 2 && (size_t)n <= len)
		buf[n - 2] = '\0';
	return buf;
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
	static const unsigned int shown[] = { TRACE_BOUND_RUN, TRACE_BOUND_RUNQ,
					      TRACE_BOUND_SLEEP,
					      TRACE_BOUND_LIFE };
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
		figures(tl, rows[k], fig);
		snprintf(tid, sizeof(tid), "%u", t.tid);
		for (f = 0; f < sizeof(shown) / sizeof(shown[0]); f++) {
			unsigned int i = shown[f];
			struct trace_bound tot;

			mon_bound_total(b, i, &tot);
			printf("%7s %-16.16s %-6s %12s %12s %12s  %-18s %-18s %s\n",
			       f ? "" : tid,
			       f ? "" : (t.name[0] ? t.name : "?"),
			       fig_names[i],
			       mon_fmt_ns(c[0], sizeof(c[0]), fig[i]),
			       mon_fmt_ns(c[1], sizeof(c[1]),
					  low(fig[i], tot.below_ns)),
			       mon_fmt_ns(c[2], sizeof(c[2]),
					  fig[i] + tot.above_ns),
			       part_str(c[3], sizeof(c[3]),
					&b->part[TRACE_BOUND_CALIBRATION][i]),
			       part_str(c[4], sizeof(c[4]),
					&b->part[TRACE_BOUND_SCHEDULING][i]),
			       part_str(c[5], sizeof(c[5]),
					&b->part[TRACE_BOUND_SPLIT][i]));
		}
	}
	if (elapsed(bs, tl, &ev, &eb, tids))
		printf("elapsed, thread %u's first record to thread %u's last: %s [%s .. %s]\n",
		       tids[0], tids[1], mon_fmt_ns(c[0], sizeof(c[0]), ev),
		       mon_fmt_ns(c[1], sizeof(c[1]), low(ev, eb.below_ns)),
		       mon_fmt_ns(c[2], sizeof(c[2]), ev + eb.above_ns));
	for (k = 0; k < n; k++) {
		const struct trace_bounds *b;
		struct tl_thread t;

		tl_thread(tl, rows[k], &t);
		b = mon_bounds_find(bs, t.tid);
		if (!b || !unknown_str(why, sizeof(why), b)[0])
			continue;
		if (!said++)
			printf("Not in the bounds (not known, so not bounded):\n");
		printf("%7u %-16.16s %s\n", t.tid, t.name[0] ? t.name : "?",
		       why);
	}
}

static void json_flags(uint32_t flags)
{
	static const char *const names[] = { "lost", "split_partial",
					     "no_interval", "no_wakeups" };
	const char *sep = "";
	unsigned int i;

	printf("[");
	for (i = 0; i < 4; i++)
		if (flags & (1u << i)) {
			printf("%s\"%s\"", sep, names[i]);
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
	figures(tl, th, fig);
	printf(",\"bounds\":{");
	for (i = 0; i < TRACE_BOUND_FIGURES; i++) {
		struct trace_bound tot;

		mon_bound_total(b, i, &tot);
		printf("%s\"%s\":{\"ns\":%llu,\"low_ns\":%llu,\"high_ns\":%llu",
		       i ? "," : "", fig_names[i], (unsigned long long)fig[i],
		       (unsigned long long)low(fig[i], tot.below_ns),
		       (unsigned long long)(fig[i] + tot.above_ns));
		for (k = 0; k < TRACE_BOUND_PARTS; k++)
			printf(",\"%s\":[%llu,%llu]", part_names[k],
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
	       (unsigned long long)low(v, b.below_ns),
	       (unsigned long long)(v + b.above_ns));
}
