// SPDX-License-Identifier: GPL-2.0
/*
 * bounds.c - a thread's compensated figures and their bounds, as mkm
 * report and mkm view say them (see bounds.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"

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

const unsigned int bounds_shown[4] = { TRACE_BOUND_RUN, TRACE_BOUND_RUNQ,
				       TRACE_BOUND_SLEEP, TRACE_BOUND_LIFE };

const char *bounds_figure_name(unsigned int figure)
{
	return figure < TRACE_BOUND_FIGURES ? fig_names[figure] : "?";
}

const char *bounds_part_name(unsigned int part)
{
	return part < TRACE_BOUND_PARTS ? part_names[part] : "?";
}

void bounds_figures(const struct tl *tl, size_t th,
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

uint64_t bounds_low(uint64_t v, uint64_t below)
{
	return v > below ? v - below : 0;
}

const char *bounds_part_str(char *buf, size_t len, const struct trace_bound *p)
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

bool bounds_width(uint64_t fig, const struct trace_bound *tot, double *pct)
{
	uint64_t lo = bounds_low(fig, tot->below_ns), hi = fig + tot->above_ns;

	*pct = fig ? (double)(hi - lo) * 100.0 / (double)fig : 0;
	return fig != 0;
}

int bounds_widest(const struct trace_bounds *b,
		  const uint64_t fig[TRACE_BOUND_FIGURES])
{
	double widest = BOUNDS_WIDE_PERCENT, pct;
	int which = -1;
	unsigned int k;

	for (k = 0; k < sizeof(bounds_shown) / sizeof(bounds_shown[0]); k++) {
		unsigned int f = bounds_shown[k];
		struct trace_bound tot;

		mon_bound_total(b, f, &tot);
		if (!bounds_width(fig[f], &tot, &pct)) {
			if (!tot.above_ns)
				continue;
			/* Around nothing, any width is wider than any share. */
			pct = INFINITY;
		}
		if (pct > widest) {
			widest = pct;
			which = (int)f;
		}
	}
	return which;
}

const char *bounds_flag_name(unsigned int k)
{
	static const char *const names[BOUNDS_NR_FLAGS] = {
		"lost", "split_partial", "no_interval", "no_wakeups"
	};

	return k < BOUNDS_NR_FLAGS ? names[k] : "?";
}

const char *bounds_unknown(char *buf, size_t len, const struct trace_bounds *b,
			   unsigned int k)
{
	buf[0] = '\0';
	if (!(b->flags & (1u << k)))
		return buf;
	switch (1u << k) {
	case TRACE_BOUND_LOST:
		snprintf(
			buf, len,
			"records lost in its life (their cost is not known, nor bounded)");
		break;
	case TRACE_BOUND_SPLIT_PARTIAL:
		snprintf(
			buf, len,
			"the split of %llu of its %llu switch ends not measurable (no wait began in the trace), left out",
			(unsigned long long)b->split_unknown,
			(unsigned long long)b->split_ends);
		break;
	case TRACE_BOUND_NO_INTERVAL:
		snprintf(
			buf, len,
			"a cost charged to it has no interval (fewer than 2 trials)");
		break;
	case TRACE_BOUND_NO_WAKEUPS:
		snprintf(buf, len,
			 "no WAKEUP records: wakeups' decisions not seen");
		break;
	}
	return buf;
}

const char *bounds_unknown_str(char *buf, size_t len,
			       const struct trace_bounds *b)
{
	char one[160];
	size_t n = 0;
	unsigned int k;

	buf[0] = '\0';
	for (k = 0; k < BOUNDS_NR_FLAGS && n < len; k++) {
		if (!bounds_unknown(one, sizeof(one), b, k)[0])
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "; " : "",
				      one);
	}
	return buf;
}
