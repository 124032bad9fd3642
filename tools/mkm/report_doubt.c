// SPDX-License-Identifier: GPL-2.0
/*
 * report_doubt.c - where compensation is unsure, per thread, as the
 * compensation stage reports it (mon_compensate_opts.doubt).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "messages.h"
#include "report_doubt.h"

void doubts_collect(void *arg, const struct mon_comp_doubt *d)
{
	struct doubts *ds = arg;

	if (ds->n == ds->cap) {
		size_t cap = ds->cap ? 2 * ds->cap : 64;
		struct mon_comp_doubt *p = realloc(ds->d, cap * sizeof(*p));

		if (!p)
			die("out of memory");
		ds->d = p;
		ds->cap = cap;
	}
	ds->d[ds->n++] = *d;
}

struct mon_compensate_opts doubts_opts(struct doubts *ds, bool force)
{
	return (struct mon_compensate_opts){
		.flags = force ? MON_COMPENSATE_FORCE : 0,
		.doubt = doubts_collect,
		.arg = ds,
	};
}

const struct mon_comp_doubt *doubt_of(const struct doubts *ds, uint32_t tid)
{
	size_t i;

	for (i = 0; i < ds->n; i++)
		if (ds->d[i].tid == tid)
			return &ds->d[i];
	return NULL;
}

/* Appends to buf (len bytes, *n used so far) what fits of the format. */
__attribute__((format(printf, 4, 5))) static void
append(char *buf, size_t len, int *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*n < 0 || (size_t)*n >= len)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *n, len - (size_t)*n, fmt, ap);
	va_end(ap);
	*n = k < 0 ? k : *n + k;
}

const char *doubt_reason(const struct mon_comp_doubt *d, char *buf, size_t len)
{
	char a[32], b[32], c[32];
	int n = 0;

	buf[0] = '\0';
	if (d->preemptions)
		append(buf, len, &n,
		       "preempted %llu times after %s of the monitor's cost in its runs (the scheduler's choice may be the monitor's); ",
		       (unsigned long long)d->preemptions,
		       mon_fmt_ns(a, sizeof(a), (uint64_t)d->preempt_cost_ns));
	if (d->wakeups)
		append(buf, len, &n,
		       "woken %llu times after %s of the monitor's cost in its and its wakers' runs (whether it preempted its waker may be the monitor's); ",
		       (unsigned long long)d->wakeups,
		       mon_fmt_ns(a, sizeof(a), (uint64_t)d->wakeup_cost_ns));
	if (d->timer_wakeups)
		append(buf, len, &n,
		       "woken %llu times by an interrupt while its CPU ran %s late (a timed wait may have expired because the monitor held up its waker); ",
		       (unsigned long long)d->timer_wakeups,
		       mon_fmt_ns(a, sizeof(a), (uint64_t)d->timer_delay_ns));
	if (d->timeouts_unproven)
		append(buf, len, &n,
		       "%llu of %llu timed waits taken as the monitor's had a waker slower than their timer (the timer may have expired unmonitored too); ",
		       (unsigned long long)d->timeouts_unproven,
		       (unsigned long long)d->timeouts);
	if (d->tick_runs)
		append(buf, len, &n,
		       "%llu times a waker ran on to the tick while the thread it woke waited, their wakeups moved %s in all against the ticks by the monitor (which tick ended a run may be the monitor's); ",
		       (unsigned long long)d->tick_runs,
		       mon_fmt_ns(a, sizeof(a), (uint64_t)d->tick_delay_ns));
	append(buf, len, &n,
	       "%s at stake against %s compensated, in a life of %s",
	       mon_fmt_ns(a, sizeof(a), (uint64_t)d->at_stake_ns),
	       mon_fmt_ns(b, sizeof(b), (uint64_t)d->shift_ns),
	       mon_fmt_ns(c, sizeof(c), d->life_ns));
	return buf;
}

void doubts_json(const struct doubts *ds)
{
	const char *sep = "";
	size_t i;

	printf(",\"doubts\":[");
	for (i = 0; i < ds->n; i++) {
		const struct mon_comp_doubt *d = &ds->d[i];

		if (!(d->at_stake_ns > 0) && !d->timeouts)
			continue;
		printf("%s{\"tid\":%u,\"unsure\":%s,\"preemptions\":%llu,\"preempt_cost_ns\":%.0f,\"wakeups\":%llu,\"wakeup_cost_ns\":%.0f,\"timer_wakeups\":%llu,\"timer_delay_ns\":%.0f,\"at_stake_ns\":%.0f,\"shift_ns\":%.0f,\"life_ns\":%llu,\"timeouts\":%llu,\"timeout_ns\":%.0f,\"timeouts_unproven\":%llu,\"tick_runs\":%llu,\"tick_delay_ns\":%.0f}",
		       sep, d->tid, d->unsure ? "true" : "false",
		       (unsigned long long)d->preemptions, d->preempt_cost_ns,
		       (unsigned long long)d->wakeups, d->wakeup_cost_ns,
		       (unsigned long long)d->timer_wakeups, d->timer_delay_ns,
		       d->at_stake_ns, d->shift_ns,
		       (unsigned long long)d->life_ns,
		       (unsigned long long)d->timeouts, d->timeout_ns,
		       (unsigned long long)d->timeouts_unproven,
		       (unsigned long long)d->tick_runs, d->tick_delay_ns);
		sep = ",";
	}
	printf("]");
}

void doubts_free(struct doubts *ds)
{
	free(ds->d);
	*ds = (struct doubts){ 0 };
}
