// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * format.c - times and records as people read them, and times as they
 * type them: below every consumer (the mkm command, the viewer), so that
 * each says a time or an event the same way.
 */
#define _GNU_SOURCE /* sigabbrev_np() */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int64_t mon_parse_time(const char *s)
{
	/* MON_TIME_UNITS, in mon_events.h, lists them for messages. */
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -1;
	while (*end == ' ')
		end++;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit))
			return (int64_t)(v * units[i].ns + 0.5);
	return -1;
}

int64_t mon_parse_size(const char *s)
{
	char *end;
	long long v;
	int shift = 0;

	if (!s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || v < 0)
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	}
	if (shift)
		end++;
	if (*end || v > INT64_MAX >> shift)
		return -1;
	return (int64_t)v << shift;
}

const char *mon_fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 10000)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 10000000)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 10000000000ull)
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
	return buf;
}

const char *mon_fmt_time(char *buf, size_t len, uint64_t t, uint64_t origin)
{
	if (t >= origin)
		return mon_fmt_ns(buf, len, t - origin);
	buf[0] = '-';
	mon_fmt_ns(buf + 1, len - 1, origin - t);
	return buf;
}

/* A handler's name, as the timeline and mkm report call it. */
static const char *irq_args(char *buf, size_t len, const struct mkm_event *e)
{
	char name[32];

	if (e->type == MKM_EV_SOFTIRQ_ENTRY || e->type == MKM_EV_SOFTIRQ_EXIT)
		/* "softirq TIMER": the type says softirq already */
		snprintf(buf, len, "vec=%u %s", e->arg0,
			 tl_irq_name(TL_IRQ_SOFT, e->arg0, name, sizeof(name)) +
				 strlen("softirq "));
	else if (e->flags & MKM_EVF_VECTOR)
		snprintf(buf, len, "vector=%u %s", e->arg0,
			 tl_irq_name(TL_IRQ_VECTOR, e->arg0, name,
				     sizeof(name)));
	else
		snprintf(buf, len, "irq=%u", e->arg0);
	if (e->type == MKM_EV_IRQ_EXIT) {
		size_t n = strlen(buf);

		snprintf(buf + n, len - n, " handled=%u", e->arg1);
	}
	return buf;
}

/* EXIT's exit_code, a wait(2) status: the code given to exit(), or the
 * signal that ended the task (and whether it dumped core). */
static const char *exit_args(char *buf, size_t len, uint32_t code)
{
	const char *sig = sigabbrev_np((int)(code & 0x7f));

	if (!(code & 0x7f))
		snprintf(buf, len, "status=%u", (code >> 8) & 0xff);
	else
		snprintf(buf, len, "signal=%u%s%s%s", code & 0x7f,
			 sig ? " SIG" : "", sig ? sig : "",
			 code & 0x80 ? " core" : "");
	return buf;
}

/* " (comm)" of @tid when @f knows it, else "". */
static const char *comm_of(const struct mon_event_fmt *f, uint32_t tid,
			   char *buf, size_t len)
{
	const char *c = f && f->comm && tid ? f->comm(f->arg, tid) : NULL;

	if (c && *c)
		snprintf(buf, len, " (%s)", c);
	else
		buf[0] = 0;
	return buf;
}

const char *mon_fmt_event_args(char *buf, size_t len, const struct mkm_event *e,
			       const struct mon_event_fmt *f)
{
	char t[32], who[24];

	switch (e->type) {
	case MKM_EV_SWITCH_OUT:
		snprintf(buf, len, "%s%s next=%u%s",
			 mon_task_state_name(e->arg0),
			 e->flags & MKM_EVF_PREEMPTED ? " preempted" : "",
			 e->arg1, comm_of(f, e->arg1, who, sizeof(who)));
		break;
	case MKM_EV_SWITCH_IN:
		snprintf(buf, len, "prev=%u%s waited=%s", e->arg1,
			 comm_of(f, e->arg1, who, sizeof(who)),
			 mon_fmt_ns(t, sizeof(t),
				    (uint64_t)e->arg0 *
					    (e->flags & MKM_EVF_WAIT_US ? 1000 :
									  1)));
		break;
	case MKM_EV_SWITCH: {
		/* The same fields as its SWITCH_OUT's and SWITCH_IN's. */
		struct mkm_event h[2];
		char prev[24];

		mon_event_split(e, 0, h);
		snprintf(buf, len, "prev=%u%s next=%u%s state=%s%s wait=%s",
			 h[0].tid, comm_of(f, h[0].tid, prev, sizeof(prev)),
			 h[1].tid, comm_of(f, h[1].tid, who, sizeof(who)),
			 mon_task_state_name(h[0].arg0),
			 h[0].flags & MKM_EVF_PREEMPTED ? " preempted" : "",
			 mon_fmt_ns(t, sizeof(t),
				    (uint64_t)h[1].arg0 *
					    (h[1].flags & MKM_EVF_WAIT_US ?
						     1000 :
						     1)));
		break;
	}
	case MKM_EV_IRQ_ENTRY:
	case MKM_EV_IRQ_EXIT:
	case MKM_EV_SOFTIRQ_ENTRY:
	case MKM_EV_SOFTIRQ_EXIT:
		irq_args(buf, len, e);
		break;
	case MKM_EV_SYSCALL_ENTRY:
	case MKM_EV_SYSCALL_EXIT: {
		const char *name =
			mon_syscall_name(f ? f->machine : NULL, e->arg0);

		snprintf(buf, len, "nr=%u %s", e->arg0, name ? name : "?");
		if (e->type == MKM_EV_SYSCALL_EXIT) {
			size_t n = strlen(buf);

			snprintf(buf + n, len - n, " ret=%d", (int32_t)e->arg1);
		}
		break;
	}
	case MKM_EV_WAKING:
	case MKM_EV_WAKEUP:
	case MKM_EV_WAKEUP_NEW:
		snprintf(buf, len, "by=%u%s cpu=%d%s", e->arg1,
			 comm_of(f, e->arg1, who, sizeof(who)), (int)e->arg0,
			 e->flags & MKM_EVF_IN_IRQ ? " in_irq" : "");
		break;
	case MKM_EV_MIGRATE:
		snprintf(buf, len, "cpu%u->cpu%u", e->arg1, e->arg0);
		break;
	case MKM_EV_FORK:
		snprintf(buf, len, "child=%u%s%s%s", e->arg0,
			 comm_of(f, e->arg0, who, sizeof(who)),
			 e->flags & MKM_EVF_THREAD ? " thread" : "",
			 e->flags & MKM_EVF_INHERITED ? " inherited" : "");
		break;
	case MKM_EV_NAME: {
		/* A comm comes in two records of 8 bytes: the second says the
		 * whole name, given the first's (as the exporters join them:
		 * the second half counts when the first fills its 8 bytes). */
		const char *half = e->flags && f ? f->first_half : NULL;
		char raw[9] = { 0 }, s[17];

		memcpy(raw, &e->arg0, 4);
		memcpy(raw + 4, &e->arg1, 4);
		snprintf(s, sizeof(s), "%s%s", half ? half : raw,
			 half && strlen(half) == 8 ? raw : "");
		snprintf(buf, len, "comm \"%.15s\" (%u of 2)", s, e->flags + 1);
		break;
	}
	case MKM_EV_ATTACH:
		snprintf(buf, len, "%s cpu=%d", mon_task_state_name(e->arg0),
			 (int)e->arg1);
		break;
	case MKM_EV_LOST:
		if (e->flags & MKM_EVF_OVERWRITTEN)
			snprintf(buf, len, "%" PRIu64 " events overwritten",
				 (uint64_t)e->arg1 << 32 | e->arg0);
		else
			snprintf(buf, len, "%u events", e->arg0);
		break;
	case MKM_EV_TRIGGER: {
		uint64_t unit = e->flags & MKM_EVF_WAIT_US ? 1000 : 1;
		unsigned int kind = e->flags & MKM_EVF_TRIGGER_MASK;

		if (kind == MKM_TRIGGER_MARK)
			snprintf(buf, len, "mark value=%" PRIu64,
				 (uint64_t)e->arg1 << 32 | e->arg0);
		else
			snprintf(buf, len,
				 "%s %" PRIu64 " ns > %" PRIu64 " ns%s",
				 kind == MKM_TRIGGER_RUNQ ? "runq" :
				 kind == MKM_TRIGGER_IRQ  ? "irq" :
							    "?",
				 e->arg0 * unit, e->arg1 * unit,
				 e->flags & MKM_EVF_WAITING ? " waiting" : "");
		break;
	}
	case MKM_EV_SCHED_STATE: {
		const char *what = e->flags & MKM_EVF_SS_DEADLINE ? "deadline" :
								    "vruntime";

		if (e->flags & MKM_EVF_SS_PEER)
			snprintf(
				buf, len, "%s=%u peer=%u lead=%+d ns%s%s", what,
				e->arg0, e->arg1, (int32_t)(e->arg1 - e->arg0),
				e->flags & MKM_EVF_SS_RESCHED ? " resched" : "",
				e->flags & MKM_EVF_SS_SWITCH ? " at_switch" :
							       "");
		else
			snprintf(buf, len, "%s=%u%s", what, e->arg0,
				 e->flags & MKM_EVF_SS_SWITCH ? " at_switch" :
								"");
		break;
	}
	case MKM_EV_EXIT:
		exit_args(buf, len, e->arg0);
		break;
	case MKM_EV_EXEC:
		snprintf(buf, len, "old_tid=%u", e->arg0);
		break;
	case MKM_EV_REAP:
		buf[0] = 0;
		break;
	case MKM_EV_MARK:
		snprintf(buf, len, "value=%" PRIu64,
			 (uint64_t)e->arg1 << 32 | e->arg0);
		break;
	case MKM_EV_DETACH:
		if (e->arg0 == MKM_DETACH_UNMONITOR)
			snprintf(buf, len, "reason=thread_unmonitor");
		else if (e->arg0 == MKM_DETACH_EXEC)
			snprintf(buf, len,
				 "reason=exec (a binary it may not watch)");
		else
			snprintf(buf, len, "reason=%u", e->arg0);
		break;
	default:
		snprintf(buf, len, "%u %u", e->arg0, e->arg1);
	}
	return buf;
}
