// SPDX-License-Identifier: GPL-2.0
/*
 * report_latency.c - mkm latency: perf sched latency's table from
 * the timeline. A delay is a stretch of run-queue time (woken, created or
 * preempted, until switched in); back-to-back run-queue intervals (a
 * migration while queued) make one delay.
 */
#include <stdbool.h>
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

/* A flight recorder's snapshot: the delays that triggered it, first. */
static void print_triggers(const struct tl *tl, uint64_t origin)
{
	char a[32], b[32];
	bool any = false;

	for (size_t k = 0; k < tl_nr_marks(tl); k++) {
		struct tl_mark m;
		int64_t th;
		struct tl_thread t = { 0 };

		if (tl_mark(tl, k, &m))
			break;
		if (m.trigger != MKM_TRIGGER_RUNQ &&
		    m.trigger != MKM_TRIGGER_MARK)
			continue;
		th = tl_find(tl, m.tid);
		if (th >= 0)
			tl_thread(tl, (size_t)th, &t);
		printf("%s", any ? "          " : "triggered by ");
		/* The program's own: it knows why, the value says. */
		if (m.trigger == MKM_TRIGGER_MARK)
			printf("a mark (value %llu)",
			       (unsigned long long)m.value);
		else
			printf("a run-queue wait of %s",
			       mon_fmt_ns(a, sizeof(a), m.value));
		printf(" of tid %u (%s), %s %s\n", m.tid,
		       t.name[0] ? t.name : "?",
		       m.trigger == MKM_TRIGGER_MARK ? "at" : "to",
		       mon_fmt_time(b, sizeof(b), m.time_ns, origin));
		any = true;
	}
	if (any)
		putchar('\n');
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
	print_triggers(tl, origin);
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

/* "main (1001)", "tid 0" for a waker nobody records, "?" for none. */
static void who(const struct tl *tl, const struct mon_nodes *nodes, int64_t th,
		uint32_t tid, char *buf, size_t len)
{
	struct tl_thread t;

	if (th >= 0 && !tl_thread(tl, (size_t)th, &t)) {
		snprintf(buf, len, "%s (%u)", t.name[0] ? t.name : "?",
			 print_node_of_tid(nodes, t.tid));
		return;
	}
	if (tid)
		snprintf(buf, len, "tid %u (not recorded)", tid);
	else
		snprintf(buf, len, "an interrupt or a task not recorded");
}

static void print_part(const struct tl *tl, const struct mon_nodes *nodes,
		       const struct mon_late_part *p)
{
	char name[48], a[32];

	if (p->kind == NOISE_THREAD && p->thread >= 0)
		who(tl, nodes, p->thread, 0, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "%s", p->name);
	printf("    %-7s %-28.28s %10s  x%llu",
	       p->idle ? "idle" : noise_kind_name(p->kind), name,
	       mon_fmt_ns(a, sizeof(a), p->ns), (unsigned long long)p->count);
	if (p->kind == NOISE_THREAD && p->idle)
		printf("  the CPU was idle: waking it took this");
	else if (p->kind == NOISE_THREAD)
		printf("  %s; %s", mon_late_came_name(p->came),
		       mon_late_left_name(p->left));
	putchar('\n');
}

static void print_late(const struct tl *tl, const struct mon_nodes *nodes,
		       const struct mon_late *l, size_t i, uint64_t origin)
{
	char name[48], waker[48], a[32], b[32], c[32], d[32], e[32], f[32];
	size_t k;

	who(tl, nodes, (int64_t)l->thread, 0, name, sizeof(name));
	/* From an interrupt: the task it interrupted is no waker. */
	if (l->flags & MKM_EVF_IN_IRQ)
		snprintf(waker, sizeof(waker), "an interrupt");
	else
		who(tl, nodes, l->waker, l->waker_tid, waker, sizeof(waker));
	printf("\n#%zu %s: %s, %s at %s by %s", i + 1, name,
	       mon_fmt_ns(a, sizeof(a), l->latency_ns),
	       l->type == MKM_EV_WAKEUP_NEW ? "created" : "woken",
	       mon_fmt_time(b, sizeof(b),
			    l->waking_ns ? l->waking_ns : l->wakeup_ns, origin),
	       waker);
	if (l->waker_cpu >= 0)
		printf(" on CPU %d", l->waker_cpu);
	printf(", switched in at %s on CPU %u\n",
	       mon_fmt_time(c, sizeof(c), l->switch_in_ns, origin), l->run_cpu);
	if (l->waking_ns)
		printf("    %-36s %10s  %s\n", "the wakeup call to the enqueue",
		       mon_fmt_ns(d, sizeof(d), l->wakeup_ns - l->waking_ns),
		       (int)l->cpu != l->waker_cpu ?
			       "a remote wakeup: queued on the target CPU" :
			       "on the waker's CPU");
	else
		printf("    %-36s %10s  %s\n", "the wakeup call to the enqueue",
		       "-", "no WAKING record of it");
	printf("    from the enqueue at %s on CPU %u",
	       mon_fmt_time(e, sizeof(e), l->wakeup_ns, origin), l->cpu);
	if (l->migrations)
		printf(" (moved %u time%s while queued, to CPU %u)",
		       l->migrations, l->migrations > 1 ? "s" : "", l->run_cpu);
	printf(": threads %s, IRQs %s (%llu begun), softirqs %s (%llu), idle %s, not recorded %s\n",
	       mon_fmt_ns(a, sizeof(a), l->thread_ns),
	       mon_fmt_ns(b, sizeof(b), l->irq_ns), (unsigned long long)l->irqs,
	       mon_fmt_ns(c, sizeof(c), l->softirq_ns),
	       (unsigned long long)l->softirqs,
	       mon_fmt_ns(d, sizeof(d), l->idle_ns),
	       mon_fmt_ns(f, sizeof(f), l->unknown_ns));
	for (k = 0; k < l->nr_parts && k < 8; k++)
		print_part(tl, nodes, &l->parts[k]);
	if (l->nr_parts > 8)
		printf("    ... %zu more\n", l->nr_parts - 8);
}

static void json_late(const struct tl *tl, const struct mon_nodes *nodes,
		      const struct mon_late *l)
{
	struct tl_thread t;
	size_t k;

	tl_thread(tl, l->thread, &t);
	printf("{\"tid\":%u", t.tid);
	json_node_of_tid(nodes, t.tid);
	printf(",\"name\":");
	json_string(t.name);
	printf(",\"latency_ns\":%llu,\"type\":%s,\"in_irq\":%s,\"waker_tid\":%u,\"waker_cpu\":",
	       (unsigned long long)l->latency_ns,
	       l->type == MKM_EV_WAKEUP_NEW ? "\"wakeup_new\"" :
	       l->type == MKM_EV_WAKEUP	    ? "\"wakeup\"" :
					      "null",
	       l->flags & MKM_EVF_IN_IRQ ? "true" : "false", l->waker_tid);
	if (l->waker_cpu >= 0)
		printf("%d", l->waker_cpu);
	else
		printf("null");
	printf(",\"waking_ns\":");
	if (l->waking_ns)
		printf("%llu", (unsigned long long)l->waking_ns);
	else
		printf("null");
	printf(",\"wakeup_ns\":%llu,\"switch_in_ns\":%llu,\"cpu\":%u,\"run_cpu\":%u,\"migrations\":%u,\"thread_ns\":%llu,\"irq_ns\":%llu,\"softirq_ns\":%llu,\"idle_ns\":%llu,\"unknown_ns\":%llu,\"irqs\":%llu,\"softirqs\":%llu,\"parts\":[",
	       (unsigned long long)l->wakeup_ns,
	       (unsigned long long)l->switch_in_ns, l->cpu, l->run_cpu,
	       l->migrations, (unsigned long long)l->thread_ns,
	       (unsigned long long)l->irq_ns, (unsigned long long)l->softirq_ns,
	       (unsigned long long)l->idle_ns,
	       (unsigned long long)l->unknown_ns, (unsigned long long)l->irqs,
	       (unsigned long long)l->softirqs);
	for (k = 0; k < l->nr_parts; k++) {
		const struct mon_late_part *p = &l->parts[k];
		struct tl_thread u;

		printf("%s{\"kind\":\"%s\",\"name\":", k ? "," : "",
		       noise_kind_name(p->kind));
		json_string(p->name);
		if (p->kind == NOISE_THREAD &&
		    !tl_thread(tl, (size_t)p->thread, &u)) {
			printf(",\"tid\":%u,\"idle\":%s", u.tid,
			       p->idle ? "true" : "false");
			if (!p->idle) {
				printf(",\"came\":");
				json_string(mon_late_came_name(p->came));
				printf(",\"left\":");
				json_string(mon_late_left_name(p->left));
			}
		} else {
			printf(",\"number\":%u", p->number);
		}
		printf(",\"ns\":%llu,\"count\":%llu}",
		       (unsigned long long)p->ns, (unsigned long long)p->count);
	}
	printf("]}");
}

int report_latency_why(struct tl *tl, const struct mon_meta *meta,
		       const struct mon_nodes *nodes, const char *path,
		       const size_t *rows, size_t nr, struct mon_wakings *w,
		       size_t top, bool json)
{
	uint64_t origin = mon_time_origin(&meta->info);
	struct mon_lates r;
	struct noise *n;
	size_t i;
	int ret;

	ret = noise_create(&n, tl);
	if (!ret)
		ret = mon_late_wakeups(n, rows, nr, w, top, &r);
	if (ret)
		die("latency --why: %s", monitor_strerror(ret));
	if (json) {
		printf("{\"file\":");
		json_string(path);
		printf(",\"origin_ns\":%llu,\"system_wide\":%s,\"wakeups\":%zu,\"late\":[",
		       (unsigned long long)origin,
		       meta->info.flags & MKM_CONFIG_SYSTEM ? "true" : "false",
		       r.nr_wakeups);
		for (i = 0; i < r.nr; i++) {
			if (i)
				putchar(',');
			json_late(tl, nodes, &r.late[i]);
		}
		printf("]}\n");
	} else {
		printf("%s: why the longest wakeups were late: %zu of %zu wakeups of %zu threads, the longest first\n",
		       path, r.nr, r.nr_wakeups, nr);
		printf("A wakeup's latency: from the waker's wakeup call (else the enqueue) to the switch-in; times from the recording's start\n");
		if (!(meta->info.flags & MKM_CONFIG_SYSTEM))
			printf("(not a system-wide trace: threads not recorded show as time not recorded; record with -a)\n");
		if (!(meta->info.classes & MKM_CLASS_WAKEUP))
			printf("(recorded without the wakeup class: no waker, no wakeup call; the default --events records it)\n");
		for (i = 0; i < r.nr; i++)
			print_late(tl, nodes, &r.late[i], i, origin);
	}
	mon_lates_free(&r);
	noise_destroy(n);
	return 0;
}
