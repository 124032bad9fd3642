// SPDX-License-Identifier: GPL-2.0
/*
 * report_noise.c - mkm noise (who took time from a thread, as the
 * Barcelona Supercomputing Center's study of interrupts and daemons and
 * Tsafrir et al., "System Noise, OS Clock Ticks, and Fine-Grained Parallel
 * Applications", attribute it) and mkm idle (each CPU's idle intervals and
 * what ended them, as Vaddagiri's "(How to) Let idle CPUs sleep" tabled
 * them), as tables or JSON; with the first, osnoise's table (the
 * kernel's osnoise tracer, as rtla osnoise top and hist print it) of the
 * same threads. The analysis is libmonitor's (noise_thread(),
 * noise_osnoise(), idle_analyse()); this file chooses and prints.
 */
#include <fnmatch.h>
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
		/* With fnmatch's *, ? or [...] in it, a pattern. */
		if ((strpbrk(o->comm, "*?[") ?
			     !fnmatch(o->comm, t.name, 0) && t.idle_cpu < 0 :
			     !strcmp(t.name, o->comm)) &&
		    n < max)
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

/* rtla osnoise top's % CPU Aval: the run time left to the thread. */
static double cpu_avail(const struct osnoise_row *r)
{
	return r->runtime_ns ? 100.0 * (double)(r->runtime_ns - r->noise_ns) /
				       (double)r->runtime_ns :
			       100.0;
}

static void os_row_label(const struct tl *tl, const struct mon_nodes *nodes,
			 const struct osnoise_row *r, char *buf, size_t len)
{
	if (r->thread >= 0)
		thread_label(tl, nodes, (size_t)r->thread, buf, len);
	else
		snprintf(buf, len, "(the threads above)");
}

static unsigned long long us(uint64_t ns)
{
	return (unsigned long long)(ns / 1000);
}

static void os_print_row(const struct tl *tl, const struct mon_nodes *nodes,
			 const struct osnoise_row *r, bool label)
{
	char name[48], cpu[12], a[32], b[32], c[32], d[32];
	size_t i;

	os_row_label(tl, nodes, r, name, sizeof(name));
	if (r->cpu >= 0)
		snprintf(cpu, sizeof(cpu), "%d", r->cpu);
	else
		snprintf(cpu, sizeof(cpu), "all");
	printf("%-24.24s %4s #%-6llu %12llu %12llu %11.5f %11llu %11llu %6s %6s %8llu %8llu %8llu\n",
	       label ? name : "", cpu, (unsigned long long)r->periods,
	       us(r->runtime_ns), us(r->noise_ns), cpu_avail(r),
	       us(r->max_period_noise_ns), us(r->max_single_ns), "-", "-",
	       (unsigned long long)r->count[OSNOISE_IRQ],
	       (unsigned long long)r->count[OSNOISE_SOFTIRQ],
	       (unsigned long long)r->count[OSNOISE_THREAD]);
	if (!r->noise_ns && !r->net_ns[OSNOISE_IRQ] &&
	    !r->net_ns[OSNOISE_SOFTIRQ] && !r->net_ns[OSNOISE_THREAD] &&
	    !r->unknown_ns)
		return;
	printf("%29s net: IRQ %s, softirq %s, thread %s, not recorded %s; most:",
	       "", mon_fmt_ns(a, sizeof(a), r->net_ns[OSNOISE_IRQ]),
	       mon_fmt_ns(b, sizeof(b), r->net_ns[OSNOISE_SOFTIRQ]),
	       mon_fmt_ns(c, sizeof(c), r->net_ns[OSNOISE_THREAD]),
	       mon_fmt_ns(d, sizeof(d), r->unknown_ns));
	for (i = 0; i < r->nr_sources && i < 3; i++) {
		const struct noise_source *src = &r->sources[i];
		char who[48];

		if (src->kind == NOISE_THREAD)
			thread_label(tl, nodes, (size_t)src->thread, who,
				     sizeof(who));
		else
			snprintf(who, sizeof(who), "%s", src->name);
		printf("%s %s %s (%llu)", i ? "," : "", who,
		       mon_fmt_ns(a, sizeof(a), src->taken_ns),
		       (unsigned long long)src->count);
	}
	printf("%s\n", r->nr_sources ? "" : " -");
}

static void os_print_head(void)
{
	printf("%-24s %4s %-7s %12s %12s %11s %11s %11s %6s %6s %8s %8s %8s\n",
	       "THREAD", "CPU", "Period", "Runtime", "Noise", "% CPU Aval",
	       "Max Noise", "Max Single", "HW", "NMI", "IRQ", "Softirq",
	       "Thread");
}

/* Whether row @k is a thread's all-CPU row after its only CPU's row. */
static bool os_redundant(const struct osnoise_report *rep, size_t k)
{
	const struct osnoise_row *r = rep->rows;

	if (r[k].cpu >= 0 || !k || r[k - 1].thread != r[k].thread)
		return false;
	return k < 2 || r[k - 2].thread != r[k].thread;
}

/* rtla osnoise hist's table: a row per bucket, a column per CPU row. */
static void os_print_hist(const struct tl *tl, const struct osnoise_report *rep,
			  const char *title)
{
	bool in_us = rep->bucket_ns % 1000 == 0;
	unsigned int k;
	size_t i;

	printf("\n%s, %s\n", title, in_us ? "time is in us" : "time is in ns");
	printf("Index ");
	for (i = 0; i < rep->nr_rows; i++) {
		const struct osnoise_row *r = &rep->rows[i];
		char col[32];
		struct tl_thread t;

		if (r->cpu < 0)
			continue;
		if (r->thread >= 0 && !tl_thread(tl, (size_t)r->thread, &t))
			snprintf(col, sizeof(col), "%u/%d", t.tid, r->cpu);
		else
			snprintf(col, sizeof(col), "CPU-%03d", r->cpu);
		printf(" %12s", col);
	}
	printf("\n");
	for (k = 0; k <= rep->entries; k++) {
		bool any = false;

		for (i = 0; i < rep->nr_rows; i++)
			any |= rep->rows[i].cpu >= 0 && rep->rows[i].hist[k];
		if (!any)
			continue;
		if (k == rep->entries)
			printf("over: ");
		else
			printf("%-6llu",
			       (unsigned long long)(k * rep->bucket_ns /
						    (in_us ? 1000 : 1)));
		for (i = 0; i < rep->nr_rows; i++)
			if (rep->rows[i].cpu >= 0)
				printf(" %12llu",
				       (unsigned long long)rep->rows[i].hist[k]);
		printf("\n");
	}
	printf("count:");
	for (i = 0; i < rep->nr_rows; i++)
		if (rep->rows[i].cpu >= 0)
			printf(" %12llu",
			       (unsigned long long)rep->rows[i].samples);
	printf("\nmin:  ");
	for (i = 0; i < rep->nr_rows; i++)
		if (rep->rows[i].cpu >= 0)
			printf(" %12llu",
			       (unsigned long long)(rep->rows[i].min_single_ns /
						    (in_us ? 1000 : 1)));
	printf("\navg:  ");
	for (i = 0; i < rep->nr_rows; i++) {
		const struct osnoise_row *r = &rep->rows[i];

		if (r->cpu >= 0)
			printf(" %12.2f",
			       r->samples ? (double)r->noise_ns / r->samples /
						    (in_us ? 1000.0 : 1.0) :
					    0.0);
	}
	printf("\nmax:  ");
	for (i = 0; i < rep->nr_rows; i++)
		if (rep->rows[i].cpu >= 0)
			printf(" %12llu",
			       (unsigned long long)(rep->rows[i].max_single_ns /
						    (in_us ? 1000 : 1)));
	printf("\n");
}

static void os_options_line(const struct noise_opts *o)
{
	char a[32], b[32];

	printf("(period: %s; threshold: %s; HW and NMI: no tracepoint shows them, docs/accuracy.md)\n",
	       o->period_ns ? mon_fmt_ns(a, sizeof(a), o->period_ns) :
			      "none, the whole recording is one",
	       o->threshold_ns ? mon_fmt_ns(b, sizeof(b), o->threshold_ns) :
				 "none, every noise is a sample");
}

static void print_osnoise(const struct tl *tl, const struct noise_opts *o,
			  const struct osnoise_report *rep,
			  const struct osnoise_report *cpus)
{
	size_t i;

	printf("\nosnoise's table (rtla osnoise top's columns) over each thread's run time; time is in us\n");
	os_options_line(o);
	os_print_head();
	for (i = 0; i < rep->nr_rows; i++) {
		if (os_redundant(rep, i))
			continue;
		os_print_row(tl, o->nodes, &rep->rows[i],
			     !i || rep->rows[i - 1].thread !=
					     rep->rows[i].thread);
	}
	if (cpus) {
		printf("\nPer CPU, the threads above together (as osnoise gives it for its own threads)\n");
		os_print_head();
		for (i = 0; i < cpus->nr_rows; i++)
			os_print_row(tl, o->nodes, &cpus->rows[i], !i);
	}
	if (o->hist)
		os_print_hist(tl, cpus ? cpus : rep,
			      "osnoise hist: single noises per bucket");
}

static void json_os_rows(const struct tl *tl, const struct mon_nodes *nodes,
			 const struct osnoise_report *rep, bool hist)
{
	size_t i, k;

	printf("[");
	for (i = 0; i < rep->nr_rows; i++) {
		const struct osnoise_row *r = &rep->rows[i];
		struct tl_thread t;

		printf("%s{", i ? "," : "");
		if (r->thread >= 0 && !tl_thread(tl, (size_t)r->thread, &t)) {
			printf("\"tid\":%u", t.tid);
			json_node_of_tid(nodes, t.tid);
			printf(",\"name\":");
			json_string(t.name);
			printf(",");
		}
		if (r->cpu >= 0)
			printf("\"cpu\":%d", r->cpu);
		else
			printf("\"cpu\":null");
		printf(",\"periods\":%llu,\"runtime_ns\":%llu,\"noise_ns\":%llu,\"cpu_available\":%.5f,\"max_noise_ns\":%llu,\"max_single_ns\":%llu,\"min_single_ns\":%llu,\"samples\":%llu,\"hw\":null,\"nmi\":null,\"irq\":%llu,\"softirq\":%llu,\"thread\":%llu,\"irq_ns\":%llu,\"softirq_ns\":%llu,\"thread_ns\":%llu,\"unknown_ns\":%llu,\"sources\":[",
		       (unsigned long long)r->periods,
		       (unsigned long long)r->runtime_ns,
		       (unsigned long long)r->noise_ns, cpu_avail(r),
		       (unsigned long long)r->max_period_noise_ns,
		       (unsigned long long)r->max_single_ns,
		       (unsigned long long)r->min_single_ns,
		       (unsigned long long)r->samples,
		       (unsigned long long)r->count[OSNOISE_IRQ],
		       (unsigned long long)r->count[OSNOISE_SOFTIRQ],
		       (unsigned long long)r->count[OSNOISE_THREAD],
		       (unsigned long long)r->net_ns[OSNOISE_IRQ],
		       (unsigned long long)r->net_ns[OSNOISE_SOFTIRQ],
		       (unsigned long long)r->net_ns[OSNOISE_THREAD],
		       (unsigned long long)r->unknown_ns);
		for (k = 0; k < r->nr_sources; k++) {
			const struct noise_source *src = &r->sources[k];
			struct tl_thread u;

			printf("%s{\"kind\":\"%s\",\"name\":", k ? "," : "",
			       noise_kind_name(src->kind));
			json_string(src->name);
			if (src->kind == NOISE_THREAD &&
			    !tl_thread(tl, (size_t)src->thread, &u)) {
				printf(",\"tid\":%u", u.tid);
				json_node_of_tid(nodes, u.tid);
			} else {
				printf(",\"number\":%u", src->number);
			}
			printf(",\"count\":%llu,\"net_ns\":%llu,\"max_ns\":%llu}",
			       (unsigned long long)src->count,
			       (unsigned long long)src->taken_ns,
			       (unsigned long long)src->max_ns);
		}
		printf("]");
		if (hist) {
			printf(",\"hist\":[");
			for (k = 0; k <= rep->entries; k++)
				printf("%s%llu", k ? "," : "",
				       (unsigned long long)r->hist[k]);
			printf("]");
		}
		printf("}");
	}
	printf("]");
}

static void json_osnoise(const struct tl *tl, const struct noise_opts *o,
			 const struct osnoise_report *rep,
			 const struct osnoise_report *cpus)
{
	printf(",\"osnoise\":{\"period_ns\":%llu,\"threshold_ns\":%llu,\"bucket_ns\":%llu,\"entries\":%u,\"rows\":",
	       (unsigned long long)o->period_ns,
	       (unsigned long long)o->threshold_ns,
	       (unsigned long long)rep->bucket_ns, rep->entries);
	json_os_rows(tl, o->nodes, rep, o->hist);
	if (cpus) {
		printf(",\"cpus\":");
		json_os_rows(tl, o->nodes, cpus, o->hist);
	}
	printf("}");
}

/* osnoise's table of threads @th: per thread and CPU, and in a
 * system-wide trace per CPU. */
static void report_osnoise(struct noise *n, const struct tl *tl,
			   const struct mon_meta *meta,
			   const struct noise_opts *o, const size_t *th,
			   size_t nt)
{
	struct osnoise_opts oo = {
		.origin_ns = mon_time_origin(&meta->info),
		.period_ns = o->period_ns,
		.threshold_ns = o->threshold_ns,
		.bucket_ns = o->bucket_ns,
		.entries = o->entries,
	};
	struct osnoise_report rep, cpus;
	bool sys = meta->info.flags & MKM_CONFIG_SYSTEM;
	int ret;

	ret = noise_osnoise(n, th, nt, &oo, &rep);
	if (!ret && sys) {
		oo.per_cpu = true;
		ret = noise_osnoise(n, th, nt, &oo, &cpus);
		if (ret)
			noise_osnoise_free(&rep);
	}
	if (ret)
		die("noise: %s", monitor_strerror(ret));
	if (o->json)
		json_osnoise(tl, o, &rep, sys ? &cpus : NULL);
	else
		print_osnoise(tl, o, &rep, sys ? &cpus : NULL);
	noise_osnoise_free(&rep);
	if (sys)
		noise_osnoise_free(&cpus);
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
		printf("]");
	report_osnoise(n, tl, meta, o, targets, nt);
	if (o->json)
		printf("}\n");
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
