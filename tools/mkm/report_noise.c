// SPDX-License-Identifier: GPL-2.0
/*
 * report_noise.c - mkm noise (who took time from a thread, as the
 * Barcelona Supercomputing Center's study of interrupts and daemons and
 * Tsafrir et al., "System Noise, OS Clock Ticks, and Fine-Grained Parallel
 * Applications", attribute it) and mkm idle (each CPU's idle intervals and
 * what ended them, as Vaddagiri's "(How to) Let idle CPUs sleep" tabled
 * them), as tables or JSON. The analysis is libmonitor's
 * (noise_thread(), idle_analyse()); this file chooses and prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "matrix.h"
#include "messages.h"
#include "report_barrier.h"
#include "report_nodes.h"
#include "report_noise.h"

static bool is_own(const struct mon_meta *meta, uint32_t tid)
{
	uint32_t i;

	for (i = 0; i < meta->info.nr_monitor_tids; i++)
		if (meta->info.monitor_tids[i] == tid)
			return true;
	return false;
}

static uint64_t run_ns(const struct tl *tl, size_t th)
{
	uint64_t timers[TL_NR_STATES];

	acct_msa(tl, ACCT_THREAD, th, TL_NR_STATES, timers);
	return timers[TL_RUN] + timers[TL_RUN_USER] + timers[TL_RUN_SYS] +
	       timers[TL_TRAP];
}

/* Whether thread @th may be a target: not an idle thread, not the
 * recording's own, and on @node if one is given. */
static bool candidate(const struct tl *tl, const struct mon_meta *meta,
		      const struct noise_opts *o, const struct trace_node *node,
		      size_t th)
{
	struct tl_thread t;

	tl_thread(tl, th, &t);
	return t.idle_cpu < 0 && !is_own(meta, t.tid) &&
	       (!node || mon_nodes_of_tid(o->nodes, t.tid) == node);
}

/* A --tid: a tid of the trace, or on a merged one NODE:TID, the tid
 * that node gave (as the report prints it). */
static uint32_t tid_arg(const struct mon_nodes *nodes, const char *arg)
{
	const char *colon = strchr(arg, ':');
	uint32_t g;

	if (!colon)
		return (uint32_t)strtoul(arg, NULL, 10);
	for (g = 0; nodes && g < nodes->hdr.nr_nodes; g++) {
		const struct trace_node *n = &nodes->node[g];

		if (strlen(n->name) == (size_t)(colon - arg) &&
		    !strncmp(n->name, arg, (size_t)(colon - arg)))
			return n->index << nodes->hdr.tid_shift |
			       ((uint32_t)strtoul(colon + 1, NULL, 10) &
				TRACE_NODE_TID_MASK);
	}
	die("--tid %s: no node %.*s in the trace", arg, (int)(colon - arg),
	    arg);
}

/*
 * The threads to analyse: those given, else the three that ran most
 * (not idle threads, not the recording's own); with --barriers on a
 * merged trace, the one that ran most on each node (a rank per node).
 * Returns how many.
 */
static size_t pick_targets(const struct tl *tl, const struct mon_meta *meta,
			   const struct noise_opts *o, size_t *out, size_t max)
{
	size_t n = 0, th, nr = tl_nr_threads(tl), g, per_node;

	if (o->tids) {
		char *copy = strdup(o->tids), *save = NULL, *tok;

		for (tok = strtok_r(copy, ",", &save); tok && n < max;
		     tok = strtok_r(NULL, ",", &save)) {
			int64_t i = tl_find(tl, tid_arg(o->nodes, tok));

			if (i < 0)
				die("--tid %s: no such thread in the trace%s",
				    tok,
				    o->nodes && !strchr(tok, ':') ?
					    " (a node's thread: NODE:TID, as the report names it)" :
					    "");
			out[n++] = (size_t)i;
		}
		free(copy);
		return n;
	}
	for (th = 0; th < nr && o->comm; th++) {
		struct tl_thread t;

		tl_thread(tl, th, &t);
		if (!strcmp(t.name, o->comm) && n < max)
			out[n++] = th;
	}
	if (o->comm && !n)
		die("--comm %s: no thread of that name in the trace", o->comm);
	if (o->comm)
		return n;
	per_node = o->barriers && o->nodes ? o->nodes->hdr.nr_nodes : 0;
	/* The three that ran most, or each node's: a selection sort is
	 * enough. */
	for (g = 0; g < (per_node ? per_node : 3) && n < max; g++) {
		const struct trace_node *node = per_node ? &o->nodes->node[g] :
							   NULL;
		uint64_t best_run = 0;
		size_t best = nr;

		for (th = 0; th < nr; th++) {
			uint64_t r;
			size_t k;

			if (!candidate(tl, meta, o, node, th))
				continue;
			for (k = 0; k < n && out[k] != th; k++)
				;
			if (k < n)
				continue;
			r = run_ns(tl, th);
			if (r > best_run) {
				best_run = r;
				best = th;
			}
		}
		if (best < nr)
			out[n++] = best;
	}
	return n;
}

static void thread_label(const struct tl *tl, const struct mon_nodes *nodes,
			 size_t th, char *buf, size_t len)
{
	struct tl_thread t;

	tl_thread(tl, th, &t);
	node_thread_label(nodes, &t, buf, len);
}

static void print_sources(const struct tl *tl, const struct mon_nodes *nodes,
			  const struct noise_result *r, unsigned int top)
{
	size_t i;

	printf("  %-26s %-7s %7s %10s %6s %10s %10s %10s %7s\n", "SOURCE",
	       "KIND", "COUNT", "TAKEN", "%", "PER BURST", "MAX", "PERIOD",
	       "REGULAR");
	for (i = 0; i < r->nr_sources && i < top; i++) {
		const struct noise_source *s = &r->sources[i];
		char name[48], a[32], b[32], c[32], d[32];
		uint64_t span = r->t1 - r->t0;

		if (s->kind == NOISE_THREAD)
			thread_label(tl, nodes, (size_t)s->thread, name,
				     sizeof(name));
		else
			snprintf(name, sizeof(name), "%s", s->name);
		printf("  %-26.26s %-7s %7llu %10s %5.2f%% %10s %10s %10s %6.0f%%%s\n",
		       name, noise_kind_name(s->kind),
		       (unsigned long long)s->count,
		       mon_fmt_ns(a, sizeof(a), s->taken_ns),
		       span ? 100.0 * s->taken_ns / span : 0.0,
		       mon_fmt_ns(b, sizeof(b),
				  s->count ? s->taken_ns / s->count : 0),
		       mon_fmt_ns(c, sizeof(c), s->max_ns),
		       s->period.period_ns ?
			       mon_fmt_ns(d, sizeof(d), s->period.period_ns) :
			       "-",
		       100 * s->period.regular,
		       s->period.period_ns &&
				       s->period.regular >= NOISE_PERIODIC ?
			       "  periodic" :
			       "");
	}
	if (r->nr_sources > top)
		printf("  ... %zu more sources\n", r->nr_sources - top);
}

void print_noise_matrix(const struct tl *tl, const struct mon_nodes *nodes,
			const size_t *cols, size_t ncol)
{
	unsigned int nr_cpus = tl_nr_cpus(tl), cpu;
	size_t nr = tl_nr_threads(tl), k;
	struct acct_cell *cells =
		calloc((size_t)nr_cpus * nr + 1, sizeof(*cells));

	if (!cells || acct_matrix(tl, cells, nr_cpus, nr))
		die("out of memory");
	printf("\nCPU x thread: time run (dispatches), the threads above and their intruders\n");
	print_node_head(nodes);
	printf("%4s", "CPU");
	for (k = 0; k < ncol; k++) {
		char label[48];

		thread_label(tl, nodes, cols[k], label, sizeof(label));
		printf(" %20.20s", label);
	}
	printf("\n");
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		printf("%4u", print_node_of_cpu(nodes, cpu));
		for (k = 0; k < ncol; k++)
			print_acct_cell(&cells[cpu * nr + cols[k]], 20);
		printf("\n");
	}
	free(cells);
}

static void json_result(const struct tl *tl, const struct mon_nodes *nodes,
			const struct noise_result *r)
{
	struct tl_thread t;
	size_t i;

	tl_thread(tl, r->thread, &t);
	printf("{\"tid\":%u", t.tid);
	json_node_of_tid(nodes, t.tid);
	printf(",\"name\":");
	json_string(t.name);
	printf(",\"start_ns\":%llu,\"end_ns\":%llu,\"run_ns\":%llu,\"taken_ns\":%llu,\"unknown_ns\":%llu,\"sources\":[",
	       (unsigned long long)r->t0, (unsigned long long)r->t1,
	       (unsigned long long)r->run_ns, (unsigned long long)r->taken_ns,
	       (unsigned long long)r->unknown_ns);
	for (i = 0; i < r->nr_sources; i++) {
		const struct noise_source *s = &r->sources[i];
		struct tl_thread u;

		printf("%s{\"kind\":\"%s\",\"name\":", i ? "," : "",
		       noise_kind_name(s->kind));
		json_string(s->name);
		if (s->kind == NOISE_THREAD &&
		    !tl_thread(tl, (size_t)s->thread, &u)) {
			printf(",\"tid\":%u", u.tid);
			json_node_of_tid(nodes, u.tid);
			printf(",\"idle_cpu\":%d", u.idle_cpu);
		} else {
			printf(",\"number\":%u", s->number);
		}
		printf(",\"count\":%llu,\"taken_ns\":%llu,\"max_ns\":%llu,\"activations\":%llu,\"busy_ns\":%llu,\"period_ns\":%llu,\"regular\":%.3f,\"periodic\":%s}",
		       (unsigned long long)s->count,
		       (unsigned long long)s->taken_ns,
		       (unsigned long long)s->max_ns,
		       (unsigned long long)s->period.activations,
		       (unsigned long long)s->period.busy_ns,
		       (unsigned long long)s->period.period_ns,
		       s->period.regular,
		       s->period.period_ns &&
				       s->period.regular >= NOISE_PERIODIC ?
			       "true" :
			       "false");
	}
	printf("]}");
}

int report_noise(struct tl *tl, const struct mon_meta *meta,
		 const struct noise_opts *o)
{
	size_t targets[64], cols[16], nt, ncol = 0, i, k;
	struct noise *n;
	int ret;

	nt = pick_targets(tl, meta, o, targets, 64);
	if (o->barriers)
		return report_barriers(tl, meta, o, targets, nt);
	ret = noise_create(&n, tl);
	if (ret)
		die("noise: %s", monitor_strerror(ret));
	if (o->json)
		printf("{\"system_wide\":%s,\"threads\":[",
		       meta->info.flags & MKM_CONFIG_SYSTEM ? "true" : "false");
	else
		printf("Noise: the time other threads and interrupt handlers took from each thread%s\n",
		       meta->info.flags & MKM_CONFIG_SYSTEM ?
			       "" :
			       "\n(not a system-wide trace: only monitored threads show; record with -a)");
	for (i = 0; i < nt; i++) {
		struct noise_result r;
		char label[48], a[32], b[32], c[32], d[32];

		ret = noise_thread(n, targets[i], 0, UINT64_MAX, &r);
		if (ret)
			die("noise: %s", monitor_strerror(ret));
		if (ncol < 16)
			cols[ncol++] = targets[i];
		for (k = 0; k < r.nr_sources && ncol < 8; k++) {
			size_t j;

			if (r.sources[k].kind != NOISE_THREAD)
				continue;
			for (j = 0;
			     j < ncol && cols[j] != (size_t)r.sources[k].thread;
			     j++)
				;
			if (j == ncol)
				cols[ncol++] = (size_t)r.sources[k].thread;
		}
		if (o->json) {
			if (i)
				putchar(',');
			json_result(tl, o->nodes, &r);
		} else {
			thread_label(tl, o->nodes, targets[i], label,
				     sizeof(label));
			printf("\n%s: observed %s, ran %s, taken %s (%.2f%%), cause not recorded %s\n",
			       label, mon_fmt_ns(a, sizeof(a), r.t1 - r.t0),
			       mon_fmt_ns(b, sizeof(b), r.run_ns),
			       mon_fmt_ns(c, sizeof(c), r.taken_ns),
			       r.t1 > r.t0 ?
				       100.0 * r.taken_ns / (r.t1 - r.t0) :
				       0.0,
			       mon_fmt_ns(d, sizeof(d), r.unknown_ns));
			print_sources(tl, o->nodes, &r, o->top);
		}
		noise_result_free(&r);
	}
	if (o->json)
		printf("]}\n");
	else if (ncol)
		print_noise_matrix(tl, o->nodes, cols, ncol);
	noise_destroy(n);
	return 0;
}

static void hist_label(unsigned int k, char *buf, size_t len)
{
	char a[32], b[32];

	if (k == 0)
		snprintf(buf, len, "< %s",
			 mon_fmt_ns(a, sizeof(a), idle_hist_bound_ns(0)));
	else if (k + 1 == IDLE_HIST_BUCKETS)
		snprintf(buf, len, ">= %s",
			 mon_fmt_ns(a, sizeof(a), idle_hist_bound_ns(k - 1)));
	else
		snprintf(buf, len, "%s - %s",
			 mon_fmt_ns(a, sizeof(a), idle_hist_bound_ns(k - 1)),
			 mon_fmt_ns(b, sizeof(b), idle_hist_bound_ns(k)));
}

static void print_idle(const struct tl *tl, const struct idle_report *rep)
{
	uint64_t hist[IDLE_HIST_BUCKETS] = { 0 }, most = 0;
	unsigned int c, k, lo = IDLE_HIST_BUCKETS, hi = 0;
	size_t i;

	printf("Idle intervals per CPU (Vaddagiri's table: how long a CPU slept before something woke it)\n");
	printf("%4s %9s %12s %12s %12s %12s %7s\n", "CPU", "SAMPLES", "MEAN",
	       "STDDEV", "MAX", "MIN", "IDLE");
	for (c = 0; c < rep->nr_cpus; c++) {
		const struct idle_cpu *p = &rep->cpus[c];
		char a[32], b[32], d[32], e[32];

		printf("%4u %9llu %12s %12s %12s %12s %6.1f%%\n", p->cpu,
		       (unsigned long long)p->count,
		       mon_fmt_ns(a, sizeof(a), (uint64_t)p->mean_ns),
		       mon_fmt_ns(b, sizeof(b), (uint64_t)p->stddev_ns),
		       mon_fmt_ns(d, sizeof(d), p->max_ns),
		       mon_fmt_ns(e, sizeof(e), p->min_ns),
		       p->span_ns ? 100.0 * p->idle_ns / p->span_ns : 0.0);
		for (k = 0; k < IDLE_HIST_BUCKETS; k++)
			hist[k] += p->hist[k];
	}
	printf("\nWhat ended them (an interrupt on the idle CPU, or a thread switched in without one)\n");
	printf("%4s %-26s %-7s %7s %6s %12s %12s %8s\n", "CPU", "CAUSE", "KIND",
	       "COUNT", "SHARE", "MEAN IDLE", "PERIOD", "REGULAR");
	for (c = 0; c < rep->nr_cpus; c++) {
		const struct idle_cpu *p = &rep->cpus[c];

		for (i = 0; i < p->nr_causes && i < 8; i++) {
			const struct idle_cause *ic = &p->causes[i];
			char a[32], b[32], name[48];

			if (ic->thread >= 0)
				thread_label(tl, NULL, (size_t)ic->thread, name,
					     sizeof(name));
			else
				snprintf(name, sizeof(name), "%s", ic->name);
			printf("%4u %-26.26s %-7s %7llu %5.1f%% %12s %12s %7.0f%%\n",
			       p->cpu, name, noise_kind_name(ic->kind),
			       (unsigned long long)ic->count,
			       p->count ? 100.0 * ic->count / p->count : 0.0,
			       mon_fmt_ns(a, sizeof(a),
					  ic->count ? ic->idle_ns / ic->count :
						      0),
			       ic->period_ns ?
				       mon_fmt_ns(b, sizeof(b), ic->period_ns) :
				       "-",
			       100 * ic->regular);
		}
		if (p->nr_causes > 8)
			printf("%4u ... %zu more causes\n", p->cpu,
			       p->nr_causes - 8);
	}
	for (k = 0; k < IDLE_HIST_BUCKETS; k++) {
		if (hist[k] && k < lo)
			lo = k;
		if (hist[k])
			hi = k;
		if (hist[k] > most)
			most = hist[k];
	}
	printf("\nIdle interval lengths, all CPUs\n");
	for (k = lo; k <= hi && lo < IDLE_HIST_BUCKETS; k++) {
		char label[64];
		unsigned int bar = most ? (unsigned int)(50 * hist[k] / most) :
					  0;

		hist_label(k, label, sizeof(label));
		printf("%22s %7llu %.*s\n", label, (unsigned long long)hist[k],
		       (int)bar,
		       "##################################################");
	}
}

static void json_idle(const struct idle_report *rep)
{
	unsigned int c, k;
	size_t i;

	printf("{\"cpus\":[");
	for (c = 0; c < rep->nr_cpus; c++) {
		const struct idle_cpu *p = &rep->cpus[c];

		printf("%s{\"cpu\":%u,\"samples\":%llu,\"mean_ns\":%.1f,\"stddev_ns\":%.1f,\"max_ns\":%llu,\"min_ns\":%llu,\"idle_ns\":%llu,\"span_ns\":%llu,\"hist\":[",
		       c ? "," : "", p->cpu, (unsigned long long)p->count,
		       p->mean_ns, p->stddev_ns, (unsigned long long)p->max_ns,
		       (unsigned long long)p->min_ns,
		       (unsigned long long)p->idle_ns,
		       (unsigned long long)p->span_ns);
		for (k = 0; k < IDLE_HIST_BUCKETS; k++)
			printf("%s%llu", k ? "," : "",
			       (unsigned long long)p->hist[k]);
		printf("],\"causes\":[");
		for (i = 0; i < p->nr_causes; i++) {
			const struct idle_cause *ic = &p->causes[i];

			printf("%s{\"kind\":\"%s\",\"name\":", i ? "," : "",
			       noise_kind_name(ic->kind));
			json_string(ic->name);
			printf(",\"number\":%u,\"count\":%llu,\"idle_ns\":%llu,\"period_ns\":%llu,\"regular\":%.3f}",
			       ic->number, (unsigned long long)ic->count,
			       (unsigned long long)ic->idle_ns,
			       (unsigned long long)ic->period_ns, ic->regular);
		}
		printf("]}");
	}
	printf("],\"hist_bounds_ns\":[");
	for (k = 0; k + 1 < IDLE_HIST_BUCKETS; k++)
		printf("%s%llu", k ? "," : "",
		       (unsigned long long)idle_hist_bound_ns(k));
	printf("]}\n");
}

int report_idle(struct tl *tl, const struct mon_meta *meta, bool json)
{
	struct idle_report rep;
	struct noise *n;
	int ret;

	if (!(meta->info.flags & MKM_CONFIG_SYSTEM))
		die("idle: this trace is not system-wide: idle CPUs show only in a recording made with mkm record -a");
	ret = noise_create(&n, tl);
	if (!ret)
		ret = idle_analyse(n, &rep);
	if (ret)
		die("idle: %s", monitor_strerror(ret));
	if (json)
		json_idle(&rep);
	else
		print_idle(tl, &rep);
	idle_report_free(&rep);
	noise_destroy(n);
	return 0;
}
