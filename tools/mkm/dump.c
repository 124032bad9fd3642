// SPDX-License-Identifier: GPL-2.0
/*
 * dump.c - mkm dump: every event of a trace, one line each, in time order
 * (like perf script), for reading what the timeline was built from.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const type_names[MKM_EV_TYPE_MAX + 1] = {
	[MKM_EV_SWITCH_OUT] = "switch_out",
	[MKM_EV_SWITCH_IN] = "switch_in",
	[MKM_EV_WAKING] = "waking",
	[MKM_EV_WAKEUP] = "wakeup",
	[MKM_EV_WAKEUP_NEW] = "wakeup_new",
	[MKM_EV_MIGRATE] = "migrate",
	[MKM_EV_FORK] = "fork",
	[MKM_EV_EXEC] = "exec",
	[MKM_EV_EXIT] = "exit",
	[MKM_EV_REAP] = "reap",
	[MKM_EV_IRQ_ENTRY] = "irq_entry",
	[MKM_EV_IRQ_EXIT] = "irq_exit",
	[MKM_EV_SOFTIRQ_ENTRY] = "softirq_entry",
	[MKM_EV_SOFTIRQ_EXIT] = "softirq_exit",
	[MKM_EV_SYSCALL_ENTRY] = "syscall_entry",
	[MKM_EV_SYSCALL_EXIT] = "syscall_exit",
	[MKM_EV_MARK] = "mark",
	[MKM_EV_ATTACH] = "attach",
	[MKM_EV_DETACH] = "detach",
	[MKM_EV_NAME] = "name",
	[MKM_EV_LOST] = "LOST",
};

static const char *const state_names[] = {
	"R", "S", "D", "T", "t", "X", "P", "Z",
};

struct entry {
	struct mkm_event ev;
	size_t order; /* position in the file: ties keep it */
};

static int by_time(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->ev.time_ns != y->ev.time_ns)
		return x->ev.time_ns < y->ev.time_ns ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void print_event(const struct mkm_event *e, uint64_t t0)
{
	const char *name = e->type <= MKM_EV_TYPE_MAX && type_names[e->type] ?
				   type_names[e->type] :
				   "?";

	printf("%14.6f ms cpu%-2u %7u %-13s", (e->time_ns - t0) / 1e6, e->cpu,
	       e->tid, name);
	switch (e->type) {
	case MKM_EV_SWITCH_OUT:
		printf(" %s%s next=%u",
		       e->arg0 < 8 ? state_names[e->arg0] : "?",
		       e->flags & MKM_EVF_PREEMPTED ? " preempted" : "",
		       e->arg1);
		break;
	case MKM_EV_SWITCH_IN:
		printf(" prev=%u waited=%u%s", e->arg1, e->arg0,
		       e->flags & MKM_EVF_WAIT_US ? "us" : "ns");
		break;
	case MKM_EV_WAKING:
	case MKM_EV_WAKEUP:
	case MKM_EV_WAKEUP_NEW:
		printf(" by=%u cpu=%d%s", e->arg1, (int)e->arg0,
		       e->flags & MKM_EVF_IN_IRQ ? " in_irq" : "");
		break;
	case MKM_EV_MIGRATE:
		printf(" cpu%u->cpu%u", e->arg1, e->arg0);
		break;
	case MKM_EV_FORK:
		printf(" child=%u%s%s", e->arg0,
		       e->flags & MKM_EVF_THREAD ? " thread" : "",
		       e->flags & MKM_EVF_INHERITED ? " inherited" : "");
		break;
	case MKM_EV_NAME: {
		char s[9] = { 0 };

		memcpy(s, &e->arg0, 4);
		memcpy(s + 4, &e->arg1, 4);
		printf(" part%u \"%s\"", e->flags, s);
		break;
	}
	case MKM_EV_ATTACH:
		printf(" %s cpu=%d", e->arg0 < 8 ? state_names[e->arg0] : "?",
		       (int)e->arg1);
		break;
	case MKM_EV_LOST:
		printf(" %u events", e->arg0);
		break;
	default:
		printf(" %u %u", e->arg0, e->arg1);
	}
	printf("  seq=%u\n", e->seq);
}

int cmd_dump(int argc, char **argv)
{
	struct trace_reader *r = NULL;
	struct entry *all = NULL;
	size_t n = 0, cap = 0, i;
	struct trace_chunk c;
	int ret;

	if (argc != 2 || argv[1][0] == '-')
		die_usage("usage: mkm dump FILE");
	ret = trace_reader_open(&r, argv[1]);
	if (ret)
		die("%s: %s", argv[1],
		    r ? trace_reader_error(r, NULL) : monitor_strerror(ret));
	while ((ret = trace_reader_next(r, &c)) > 0) {
		if (c.type != TRACE_CHUNK_EVENTS)
			continue;
		if (n + c.nr_events > cap) {
			cap = (n + c.nr_events) * 2;
			all = realloc(all, cap * sizeof(*all));
			if (!all)
				die("out of memory");
		}
		for (i = 0; i < c.nr_events; i++, n++) {
			all[n].ev = c.events[i];
			all[n].order = n;
		}
	}
	if (ret < 0)
		warnx_("%s: %s; showing what precedes it", argv[1],
		       trace_reader_error(r, NULL));
	trace_reader_close(r);
	qsort(all, n, sizeof(*all), by_time);
	for (i = 0; i < n; i++)
		print_event(&all[i].ev, all[0].ev.time_ns);
	free(all);
	return 0;
}
