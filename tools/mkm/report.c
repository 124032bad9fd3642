// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - mkm report: where each thread's time went, as tables (like
 * prstat -m and MSA's msa()) or as JSON for scripts. Its reports of
 * another kind are commands of their own (latency.c, noise.c, idle.c),
 * which report --latency, --noise and --idle still reach.
 */
#define _GNU_SOURCE /* qsort_r */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "builtin.h"
#include "calibration.h"
#include "json.h"
#include "libmonitor.h"
#include "matrix.h"
#include "messages.h"
#include "report_bounds.h"
#include "report_doubt.h"
#include "report_nodes.h"
#include "threads.h"
#include "trace.h"

static const char *end_name(unsigned int end)
{
	static const char *const names[] = { "alive", "reaped", "detached",
					     "replaced" };

	return end < 4 ? names[end] : "?";
}

struct report {
	struct tl *tl;
	struct mon_meta meta;
	struct tl_stats st;
	size_t nr_threads;
	unsigned int nr_cpus;
	struct acct_cpu *cpus; /* per-CPU summaries, nr_cpus of them */
	uint64_t t0, t1;
	struct mon_calibration cal; /* the trace's, or the one applied */
	struct doubts doubts; /* with --compensated: where it is unsure */
	/* The compensated figures' bounds: the stage's (--compensated) or
	 * the trace's (mkm replay's); bounds_absent: a compensated trace
	 * without them (replayed before trace format 1.5). */
	struct mon_bounds bounds;
	bool bounds_absent;
	size_t *rows; /* the threads shown, in order (--tid, --sort, --top) */
	size_t nr_rows;
	struct mon_nodes nodes; /* a merged trace's (mkm merge) */
};

/* What --sort orders threads by: a state group's time (most first), or
 * one of these. */
enum sort_by { SORT_TID = TL_NR_GROUPS, SORT_NAME, SORT_LIFE, SORT_SWITCHES };

static const char *const sort_words[] = { [SORT_TID - TL_NR_GROUPS] = "tid",
					  [SORT_NAME - TL_NR_GROUPS] = "name",
					  [SORT_LIFE - TL_NR_GROUPS] = "life",
					  [SORT_SWITCHES - TL_NR_GROUPS] =
						  "switches" };

/* --sort's word: a group's name as the tables head it (run, runq, ...)
 * or tid, name, life, switches; dies (usage) naming them if unknown. */
static int parse_sort(const char *s)
{
	char keys[160] = "";
	size_t k;
	int g;

	for (g = 0; g < TL_NR_GROUPS; g++)
		if (!strcasecmp(s, tl_group_name(g)))
			return g;
	for (k = 0; k < sizeof(sort_words) / sizeof(sort_words[0]); k++)
		if (!strcmp(s, sort_words[k]))
			return TL_NR_GROUPS + (int)k;
	for (k = 0; k < sizeof(sort_words) / sizeof(sort_words[0]); k++)
		snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys),
			 "%s, ", sort_words[k]);
	for (g = 0; g < TL_NR_GROUPS; g++)
		snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys),
			 "%s%s", tl_group_name(g),
			 g + 1 < TL_NR_GROUPS ? ", " : "");
	die_usage("report --sort: unknown key '%s' (%s)", s, keys);
}

/* A thread's figures that --sort compares. */
struct row_key {
	struct tl_thread t;
	uint64_t life, groups[TL_NR_GROUPS];
};

struct sort_ctx {
	const struct row_key *keys;
	int by;
};

static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	const struct row_key *x = &c->keys[*(const size_t *)a],
			     *y = &c->keys[*(const size_t *)b];
	uint64_t u, v;
	int ret;

	switch (c->by) {
	case SORT_TID:
		return x->t.tid < y->t.tid ? -1 : x->t.tid > y->t.tid;
	case SORT_NAME:
		ret = strcmp(x->t.name, y->t.name);
		return ret		   ? ret :
		       x->t.tid < y->t.tid ? -1 :
					     x->t.tid > y->t.tid;
	case SORT_LIFE:
		u = x->life, v = y->life;
		break;
	case SORT_SWITCHES:
		u = x->t.switches, v = y->t.switches;
		break;
	default:
		u = x->groups[c->by], v = y->groups[c->by];
	}
	/* Most first; ties by tid. */
	if (u != v)
		return u > v ? -1 : 1;
	return x->t.tid < y->t.tid ? -1 : x->t.tid > y->t.tid;
}

/* The first and last times of @tl's threads (0, 0: none). */
static void span(const struct tl *tl, uint64_t *t0, uint64_t *t1)
{
	size_t th, n = tl_nr_threads(tl);

	*t0 = n ? UINT64_MAX : 0;
	*t1 = 0;
	for (th = 0; th < n; th++) {
		struct tl_thread t;

		tl_thread(tl, th, &t);
		if (t.first_ns < *t0)
			*t0 = t.first_ns;
		if (t.end_ns > *t1)
			*t1 = t.end_ns;
	}
}

/* Events lost: what the kernel counted, or what the stream shows if the
 * trace has no final counts (a recording cut short). */
static uint64_t report_lost(const struct report *r)
{
	return r->meta.lost_by_stats > r->st.lost ? r->meta.lost_by_stats :
						    r->st.lost;
}

static void thread_totals(const struct report *r, size_t th,
			  uint64_t timers[TL_NR_STATES], uint64_t *life)
{
	unsigned int s;

	acct_msa(r->tl, ACCT_THREAD, th, TL_NR_STATES, timers);
	*life = 0;
	for (s = 0; s < TL_NR_STATES; s++)
		*life += timers[s];
}

/* The figures of thread th that --sort compares. */
static void row_key_of(const struct report *r, size_t th, struct row_key *k)
{
	uint64_t timers[TL_NR_STATES];
	unsigned int s;

	memset(k, 0, sizeof(*k));
	tl_thread(r->tl, th, &k->t);
	thread_totals(r, th, timers, &k->life);
	for (s = 0; s < TL_NR_STATES; s++)
		k->groups[tl_state_desc(s)->group] += timers[s];
}

/*
 * The threads shown: those of --tid, --comm or --pid (all without),
 * ordered by @by (-1: as the timeline has them), the first @top (0: all).
 */
static void select_rows(struct report *r, const char *tids, const char *comm,
			const char *pids, int by, size_t top)
{
	struct row_key *keys;
	size_t th, n;

	r->rows = calloc(r->nr_threads + 1, sizeof(*r->rows));
	keys = calloc(r->nr_threads + 1, sizeof(*keys));
	if (!r->rows || !keys)
		die("out of memory");
	n = select_threads(r->tl, "report", tids, comm, pids, r->rows);
	for (th = 0; th < r->nr_threads && by >= 0; th++)
		row_key_of(r, th, &keys[th]);
	if (by >= 0) {
		struct sort_ctx ctx = { keys, by };

		qsort_r(r->rows, n, sizeof(*r->rows), row_cmp, &ctx);
	}
	r->nr_rows = top && top < n ? top : n;
	free(keys);
}

/*
 * --by-process: the threads shown, summed by process, ordered by @by
 * (-1: as the timeline has them; tid's key orders by pid), the first @top
 * (0: all). Return: the rows, *n of them; each row's t holds the process:
 * pid in tid, its name, its switches and flutters summed, and in
 * unique_id how many of its threads are shown.
 */
static struct row_key *process_rows(const struct report *r, int by, size_t top,
				    size_t *n)
{
	size_t nr = tl_nr_processes(r->tl), i, k = 0;
	struct row_key *rows = calloc(nr + 1, sizeof(*rows)), th_key;
	size_t *order = calloc(nr + 1, sizeof(*order));
	struct row_key *sorted;
	unsigned int g;

	if (!rows || !order)
		die("out of memory");
	for (i = 0; i < r->nr_rows; i++) {
		struct row_key *p;
		struct tl_process pr;

		row_key_of(r, r->rows[i], &th_key);
		p = &rows[th_key.t.process];
		if (!p->t.unique_id++) {
			tl_process(r->tl, th_key.t.process, &pr);
			p->t.tid = pr.pid;
			memcpy(p->t.name, pr.name, sizeof(pr.name));
		}
		p->life += th_key.life;
		for (g = 0; g < TL_NR_GROUPS; g++)
			p->groups[g] += th_key.groups[g];
		p->t.switches += th_key.t.switches;
		p->t.flutters += th_key.t.flutters;
	}
	for (i = 0; i < nr; i++)
		if (rows[i].t.unique_id)
			order[k++] = i;
	if (by >= 0) {
		struct sort_ctx ctx = { rows, by };

		qsort_r(order, k, sizeof(*order), row_cmp, &ctx);
	}
	*n = top && top < k ? top : k;
	sorted = calloc(*n + 1, sizeof(*sorted));
	if (!sorted)
		die("out of memory");
	for (i = 0; i < *n; i++)
		sorted[i] = rows[order[i]];
	free(rows);
	free(order);
	return sorted;
}

static void print_processes(const struct row_key *rows, size_t n)
{
	size_t i;
	int g;

	printf("Microstates per process, %% of its threads' observed lives (like prstat -m)\n");
	printf("%7s %-16s %7s %10s", "PID", "NAME", "THREADS", "LIFE");
	for (g = 0; g < TL_NR_GROUPS; g++)
		printf(" %5s", tl_group_name(g));
	printf(" %7s %5s\n", "SWITCH", "FLUT");
	for (i = 0; i < n; i++) {
		const struct row_key *p = &rows[i];
		char buf[32];

		printf("%7u %-16.16s %7u %10s", p->t.tid,
		       p->t.name[0] ? p->t.name : "?", p->t.unique_id,
		       mon_fmt_ns(buf, sizeof(buf), p->life));
		for (g = 0; g < TL_NR_GROUPS; g++)
			printf(" %5.1f",
			       p->life ? 100.0 * p->groups[g] / p->life : 0.0);
		printf(" %7llu %5llu\n", (unsigned long long)p->t.switches,
		       (unsigned long long)p->t.flutters);
	}
}

static void json_processes(const struct row_key *rows, size_t n)
{
	size_t i;
	int g;

	printf("[");
	for (i = 0; i < n; i++) {
		const struct row_key *p = &rows[i];
		const char *sep = "";

		printf("%s{\"pid\":%u,\"name\":", i ? "," : "", p->t.tid);
		json_string(p->t.name);
		printf(",\"threads\":%u,\"life_ns\":%llu,\"switches\":%llu,\"flutters\":%llu,\"groups\":{",
		       p->t.unique_id, (unsigned long long)p->life,
		       (unsigned long long)p->t.switches,
		       (unsigned long long)p->t.flutters);
		for (g = 0; g < TL_NR_GROUPS; g++) {
			if (!p->groups[g])
				continue;
			printf("%s\"%s\":%llu", sep, tl_group_name(g),
			       (unsigned long long)p->groups[g]);
			sep = ",";
		}
		printf("}}");
	}
	printf("]");
}

static void print_threads(const struct report *r)
{
	size_t i;
	int g;

	printf("Microstates per thread, %% of its observed life (like prstat -m)\n");
	print_node_head(&r->nodes);
	printf("%7s %-16s %10s", "TID", "NAME", "LIFE");
	for (g = 0; g < TL_NR_GROUPS; g++)
		printf(" %5s", tl_group_name(g));
	printf(" %7s %5s\n", "SWITCH", "FLUT");
	for (i = 0; i < r->nr_rows; i++) {
		uint64_t timers[TL_NR_STATES], groups[TL_NR_GROUPS] = { 0 },
					       life;
		size_t th = r->rows[i];
		struct tl_thread t;
		char buf[32];
		unsigned int s;

		tl_thread(r->tl, th, &t);
		thread_totals(r, th, timers, &life);
		for (s = 0; s < TL_NR_STATES; s++)
			groups[tl_state_desc(s)->group] += timers[s];
		printf("%7u %-16.16s %10s", print_node_of_tid(&r->nodes, t.tid),
		       t.name[0] ? t.name : "?",
		       mon_fmt_ns(buf, sizeof(buf), life));
		for (g = 0; g < TL_NR_GROUPS; g++)
			printf(" %5.1f", life ? 100.0 * groups[g] / life : 0.0);
		printf(" %7llu %5llu\n", (unsigned long long)t.switches,
		       (unsigned long long)t.flutters);
	}
}

static void print_cpus(const struct report *r)
{
	unsigned int cpu;

	bool all = r->meta.info.flags & MKM_CONFIG_SYSTEM;

	printf("\nPer CPU (%s)\n",
	       all ? "every thread; IDLE: its idle task, of RUN" :
		     "monitored threads only");
	print_node_head(&r->nodes);
	printf("%4s %10s %10s %8s %6s %9s %7s %7s%s\n", "CPU", "RUN", "INTR",
	       "SWITCH", "FLUT", "EVENTS", "LOST", "THREADS",
	       all ? "       IDLE" : "");
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		const struct acct_cpu c = r->cpus[cpu];
		char a[32], b[32];

		if (!c.events)
			continue;
		printf("%4u %10s %10s %8llu %6llu %9llu %7llu %7llu",
		       print_node_of_cpu(&r->nodes, cpu),
		       mon_fmt_ns(a, sizeof(a), c.run_ns),
		       mon_fmt_ns(b, sizeof(b), c.interrupted_ns),
		       (unsigned long long)c.switches,
		       (unsigned long long)c.flutters,
		       (unsigned long long)c.events, (unsigned long long)c.lost,
		       (unsigned long long)c.threads);
		if (all)
			printf(" %10s", mon_fmt_ns(a, sizeof(a), c.idle_ns));
		putchar('\n');
	}
}

static void print_bursts(const struct report *r)
{
	struct acct_burst b[TL_NR_STATES];
	unsigned int s;

	acct_bursts(r->tl, ACCT_ALL, 0, b);
	printf("\nBursts, all threads (one burst: one interval in the state)\n");
	printf("%-14s %9s %10s %10s %10s %10s\n", "STATE", "COUNT", "MEAN",
	       "STDDEV", "MIN", "MAX");
	for (s = 0; s < TL_NR_STATES; s++) {
		char m[32], d[32], lo[32], hi[32];

		if (!b[s].count)
			continue;
		printf("%-14s %9llu %10s %10s %10s %10s\n", tl_state_name(s),
		       (unsigned long long)b[s].count,
		       mon_fmt_ns(m, sizeof(m), (uint64_t)b[s].mean_ns),
		       mon_fmt_ns(d, sizeof(d), (uint64_t)b[s].stddev_ns),
		       mon_fmt_ns(lo, sizeof(lo), b[s].min_ns),
		       mon_fmt_ns(hi, sizeof(hi), b[s].max_ns));
	}
}

/* The matrix of CPUs first to first + n - 1 and the threads shown that
 * @node holds, with the tids and CPUs its own; @node NULL: the threads of
 * no node, which on a one-machine trace is every thread. */
static void print_matrix_of(const struct report *r,
			    const struct acct_cell *cells,
			    const struct trace_node *node, unsigned int first,
			    unsigned int n)
{
	unsigned int cpu;
	size_t i;

	if (first >= r->nr_cpus)
		n = 0;
	else if (n > r->nr_cpus - first)
		n = r->nr_cpus - first;
	printf("%7s %-16s", "TID", "NAME");
	for (cpu = 0; cpu < n; cpu++)
		printf(" %17s%u", "CPU", cpu);
	printf("\n");
	for (i = 0; i < r->nr_rows; i++) {
		size_t th = r->rows[i];
		struct tl_thread t;

		tl_thread(r->tl, th, &t);
		if (mon_nodes_of_tid(&r->nodes, t.tid) != node)
			continue;
		printf("%7u %-16.16s",
		       node ? t.tid & TRACE_NODE_TID_MASK : t.tid,
		       t.name[0] ? t.name : "?");
		for (cpu = first; cpu < first + n; cpu++)
			print_acct_cell(&cells[cpu * r->nr_threads + th], 18);
		printf("\n");
	}
}

/* A merged trace's matrix is one per node: its threads ran on its CPUs
 * only, and the others' columns would be zeros. Threads that no node
 * holds, if any, get one of their own over every CPU. */
static void print_matrix(const struct report *r, struct acct_cell *cells)
{
	uint32_t g;
	size_t i;

	if (!r->nodes.hdr.nr_nodes) {
		printf("\nCPU x thread: time run (dispatches)\n");
		print_matrix_of(r, cells, NULL, 0, r->nr_cpus);
		return;
	}
	for (g = 0; g < r->nodes.hdr.nr_nodes; g++) {
		const struct trace_node *n = &r->nodes.node[g];

		printf("\nCPU x thread on %s (its CPUs and tids): time run (dispatches)\n",
		       n->name);
		print_matrix_of(r, cells, n, n->cpu_base, n->nr_cpus);
	}
	for (i = 0; i < r->nr_rows; i++) {
		struct tl_thread t;

		tl_thread(r->tl, r->rows[i], &t);
		if (!mon_nodes_of_tid(&r->nodes, t.tid)) {
			printf("\nCPU x thread of no node: time run (dispatches)\n");
			print_matrix_of(r, cells, NULL, 0, r->nr_cpus);
			return;
		}
	}
}

static void json_bursts(const struct acct_burst *b)
{
	unsigned int s;
	const char *sep = "";

	printf("{");
	for (s = 0; s < TL_NR_STATES; s++) {
		if (!b[s].count)
			continue;
		printf("%s\"%s\":{\"count\":%llu,\"total_ns\":%llu,\"mean_ns\":%.1f,\"stddev_ns\":%.1f,\"min_ns\":%llu,\"max_ns\":%llu}",
		       sep, tl_state_name(s), (unsigned long long)b[s].count,
		       (unsigned long long)b[s].total_ns, b[s].mean_ns,
		       b[s].stddev_ns, (unsigned long long)b[s].min_ns,
		       (unsigned long long)b[s].max_ns);
		sep = ",";
	}
	printf("}");
}

/* Raw against compensated, per thread: when it finished, how long it
 * ran and waited on a run queue (the MKM paper, Figs. 10 and 11). Where
 * compensation is unsure (report_doubt.h), its figures are left raw,
 * marked '?', and the reason follows the table: a compensation that the
 * run's scheduling may contradict must not read better than raw. */
static void print_compensation(const struct report *r, const struct tl *raw)
{
	uint64_t origin = mon_time_origin(&r->meta.info);
	size_t k, th, unsure = 0;

	printf("\nRaw and compensated, per thread (times from the recording's start; ?: unsure, left raw)\n");
	printf("%7s %-16s %12s %12s %12s %12s %12s %12s\n", "TID", "NAME",
	       "END raw", "END comp", "RUN raw", "RUN comp", "RUNQ raw",
	       "RUNQ comp");
	for (k = 0; k < r->nr_rows; k++) {
		uint64_t comp[TL_NR_STATES], was[TL_NR_STATES], life, end;
		const struct mon_comp_doubt *d;
		struct tl_thread t, u;
		const char *q = "";
		int64_t i;
		char b[6][32];

		th = r->rows[k];

		tl_thread(r->tl, th, &t);
		i = tl_find(raw, t.tid);
		if (i < 0 || tl_thread(raw, (size_t)i, &u))
			continue;
		thread_totals(r, th, comp, &life);
		acct_msa(raw, ACCT_THREAD, (size_t)i, TL_NR_STATES, was);
		end = t.end_ns;
		d = doubt_of(&r->doubts, t.tid);
		if (d && d->unsure) {
			memcpy(comp, was, sizeof(comp));
			end = u.end_ns;
			q = "?";
			unsure++;
		}
		printf("%7u %-16.16s %12s %11s%1s %12s %11s%1s %12s %11s%1s\n",
		       t.tid, t.name[0] ? t.name : "?",
		       mon_fmt_time(b[0], sizeof(b[0]), u.end_ns, origin),
		       mon_fmt_time(b[1], sizeof(b[1]), end, origin), q,
		       mon_fmt_ns(b[2], sizeof(b[2]), was[TL_RUN]),
		       mon_fmt_ns(b[3], sizeof(b[3]), comp[TL_RUN]), q,
		       mon_fmt_ns(b[4], sizeof(b[4]), was[TL_RUNQ]),
		       mon_fmt_ns(b[5], sizeof(b[5]), comp[TL_RUNQ]), q);
	}
	if (!unsure)
		return;
	printf("\nUnsure (the monitored run's scheduling may differ from what compensation can explain):\n");
	for (th = 0; th < r->nr_threads; th++) {
		const struct mon_comp_doubt *d;
		struct tl_thread t;
		char why[1024]; /* every reason (doubt_reason()) */

		tl_thread(r->tl, th, &t);
		d = doubt_of(&r->doubts, t.tid);
		if (d && d->unsure)
			printf("%7u %-16.16s %s\n", t.tid,
			       t.name[0] ? t.name : "?",
			       doubt_reason(d, why, sizeof(why)));
	}
}

static void json_calibration(const struct mon_calibration *cal)
{
	uint32_t i, k;

	printf(",\"calibration\":{\"kernel\":");
	json_string(cal->hdr.kernel);
	printf(",\"cpu_model\":");
	json_string(cal->hdr.cpu_model);
	printf(",\"cpus\":[");
	for (i = 0; i < cal->hdr.nr_cpus; i++) {
		printf("%s{\"cpu\":%u", i ? "," : "", cal->cpu[i].cpu);
		for (k = 0; k < MON_COST_NR; k++) {
			const struct trace_cost *c = &cal->cpu[i].cost[k];
			unsigned int v = mon_cost_verdict(c);
			char words[64];

			printf(",\"%s\":{\"mean_ns\":%.3f,\"stddev_ns\":%.3f,\"ci99_ns\":%.3f,\"trials\":%u,\"measured\":%s,\"set_aside\":%s,\"verdict\":\"%s\"}",
			       mon_cost_name(k), (double)c->mean_ps / 1000,
			       (double)c->stddev_ps / 1000,
			       (double)c->ci99_ps / 1000, c->samples,
			       c->flags & MON_COST_MEASURED ? "true" : "false",
			       c->flags & MON_COST_SET_ASIDE ? "true" : "false",
			       mon_cost_verdict_str(v, words, sizeof(words)));
		}
		printf("}");
	}
	printf("],\"meaningful\":%s",
	       mon_calibration_judge(cal, NULL, 0) ? "false" : "true");
	if (cal->clock_res_ps) {
		unsigned int below = mon_calibration_below_resolution(cal);
		const char *sep = "";

		printf(",\"clock_resolution_ns\":%.3f,\"below_resolution\":[",
		       (double)cal->clock_res_ps / 1000);
		for (k = 0; k < MON_COST_NR; k++)
			if (below & 1u << k) {
				printf("%s\"%s\"", sep, mon_cost_name(k));
				sep = ",";
			}
		printf("]");
	}
	printf("}");
}

static void print_json(const struct report *r, const char *path,
		       struct acct_cell *cells, const struct row_key *procs,
		       size_t nr_procs)
{
	struct acct_burst b[TL_NR_STATES];
	unsigned int cpu, s;
	char classes[64];
	size_t i;

	printf("{\"file\":");
	json_string(path);
	printf(",\"kernel\":");
	json_string(r->meta.info.kernel);
	printf(",\"start_ns\":%llu,\"end_ns\":%llu,\"events\":%llu,\"lost\":%llu,\"gaps\":%llu,\"anomalies\":%llu,\"nr_cpus\":%u,",
	       (unsigned long long)r->t0, (unsigned long long)r->t1,
	       (unsigned long long)r->st.events,
	       (unsigned long long)report_lost(r),
	       (unsigned long long)r->st.gaps,
	       (unsigned long long)r->st.anomalies, r->nr_cpus);
	if (r->meta.info.clock_res_ps)
		printf("\"clock_resolution_ns\":%.3f,",
		       (double)r->meta.info.clock_res_ps / 1000);
	printf("\"ring_bytes\":%llu,\"classes\":",
	       (unsigned long long)r->meta.info.ring_bytes);
	json_string(mon_classes_format(classes, sizeof(classes),
				       r->meta.info.classes));
	printf(",\"nr_threads\":%zu,\"threads\":[", r->nr_threads);
	for (i = 0; i < r->nr_rows; i++) {
		uint64_t timers[TL_NR_STATES], life;
		size_t th = r->rows[i];
		struct tl_thread t;
		struct tl_thread p;
		const char *sep = "";

		tl_thread(r->tl, th, &t);
		thread_totals(r, th, timers, &life);
		printf("%s{\"tid\":%u", i ? "," : "", t.tid);
		json_node_of_tid(&r->nodes, t.tid);
		printf(",\"pid\":%u,\"unique_id\":%u,\"name\":", t.tgid,
		       t.unique_id);
		json_string(t.name);
		printf(",\"parent_tid\":%d,\"end\":\"%s\",\"first_ns\":%llu,\"end_ns\":%llu,\"life_ns\":%llu,\"switches\":%llu,\"flutters\":%llu,\"anomalies\":%llu,\"states\":{",
		       t.parent >= 0 && !tl_thread(r->tl, t.parent, &p) ?
			       (int)p.tid :
			       -1,
		       end_name(t.end), (unsigned long long)t.first_ns,
		       (unsigned long long)t.end_ns, (unsigned long long)life,
		       (unsigned long long)t.switches,
		       (unsigned long long)t.flutters,
		       (unsigned long long)t.anomalies);
		for (s = 0; s < TL_NR_STATES; s++) {
			if (!timers[s])
				continue;
			printf("%s\"%s\":%llu", sep, tl_state_name(s),
			       (unsigned long long)timers[s]);
			sep = ",";
		}
		printf("},\"bursts\":");
		acct_bursts(r->tl, ACCT_THREAD, th, b);
		json_bursts(b);
		printf(",\"cpus\":[");
		for (cpu = 0; cpu < r->nr_cpus; cpu++) {
			const struct acct_cell *c =
				&cells[cpu * r->nr_threads + th];

			printf("%s{\"run_ns\":%llu,\"dispatches\":%llu}",
			       cpu ? "," : "", (unsigned long long)c->run_ns,
			       (unsigned long long)c->dispatches);
		}
		printf("]");
		bounds_json_thread(&r->bounds, r->tl, th);
		printf("}");
	}
	printf("]");
	if (procs) {
		printf(",\"nr_processes\":%zu,\"processes\":",
		       tl_nr_processes(r->tl));
		json_processes(procs, nr_procs);
	}
	printf(",\"cpus\":[");
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		const struct acct_cpu c = r->cpus[cpu];

		printf("%s{\"cpu\":%u,\"run_ns\":%llu,\"idle_ns\":%llu,\"interrupted_ns\":%llu,\"switches\":%llu,\"flutters\":%llu,\"events\":%llu,\"lost\":%llu,\"threads\":%llu}",
		       cpu ? "," : "", cpu, (unsigned long long)c.run_ns,
		       (unsigned long long)c.idle_ns,
		       (unsigned long long)c.interrupted_ns,
		       (unsigned long long)c.switches,
		       (unsigned long long)c.flutters,
		       (unsigned long long)c.events, (unsigned long long)c.lost,
		       (unsigned long long)c.threads);
	}
	printf("],\"bursts\":");
	acct_bursts(r->tl, ACCT_ALL, 0, b);
	json_bursts(b);
	printf(",\"compensated\":%s",
	       r->meta.info.trace_flags & TRACE_F_COMPENSATED ? "true" :
								"false");
	if (r->cal.hdr.nr_cpus)
		json_calibration(&r->cal);
	if (r->doubts.n)
		doubts_json(&r->doubts);
	if (r->bounds.n || r->bounds_absent) {
		printf(",\"bounded\":%s", r->bounds.n ? "true" : "false");
		bounds_json_elapsed(&r->bounds, r->tl);
	}
	if (r->nodes.hdr.nr_nodes) {
		printf(",\"nodes\":");
		json_nodes(&r->nodes, r->tl, r->cpus, r->nr_cpus);
	}
	printf("}\n");
}

/* The compensation stage's callbacks share one argument: what
 * --compensated collects. */
struct comp_out {
	struct doubts *doubts;
	struct mon_bounds *bounds;
};

static void comp_doubt(void *arg, const struct mon_comp_doubt *d)
{
	doubts_collect(((struct comp_out *)arg)->doubts, d);
}

static void comp_bounds(void *arg, const struct trace_bounds *b, size_t n)
{
	bounds_collect(((struct comp_out *)arg)->bounds, b, n);
}

/* The text report's first line: the trace, its span, what it holds and
 * how much of it is shown (@nr_procs: the processes shown, with
 * --by-process). */
static void print_head(const struct report *r, const char *path,
		       size_t nr_procs)
{
	uint64_t lost = report_lost(r);
	char d[32], shown[48] = "", step[32] = "";

	if (nr_procs && nr_procs < tl_nr_processes(r->tl))
		snprintf(shown, sizeof(shown), " in %zu processes (%zu shown)",
			 tl_nr_processes(r->tl), nr_procs);
	else if (nr_procs)
		snprintf(shown, sizeof(shown), " in %zu processes",
			 tl_nr_processes(r->tl));
	else if (r->nr_rows < r->nr_threads)
		snprintf(shown, sizeof(shown), " (%zu shown)", r->nr_rows);
	/* A clock coarser than the records' nanoseconds (arm64's timer) */
	if (r->meta.info.clock_res_ps > 1000)
		snprintf(step, sizeof(step), ", clock step %.1f ns",
			 (double)r->meta.info.clock_res_ps / 1000);
	printf("%s%s: %s, %zu threads%s, %u CPUs, %llu events, %llu lost%s%s\n\n",
	       path,
	       r->meta.info.trace_flags & TRACE_F_COMPENSATED ?
		       " (compensated)" :
		       "",
	       mon_fmt_ns(d, sizeof(d), r->t1 - r->t0), r->nr_threads, shown,
	       r->nr_cpus, (unsigned long long)r->st.events,
	       (unsigned long long)lost,
	       lost ? " (their time shows as UNKN)" : "", step);
}

static void report_free(struct report *r, struct tl *raw)
{
	free(r->rows);
	free(r->cpus);
	tl_destroy(r->tl);
	tl_destroy(raw);
	mon_calibration_free(&r->cal);
	mon_nodes_free(&r->nodes);
	doubts_free(&r->doubts);
	mon_bounds_free(&r->bounds);
}

const char report_usage[] =
	"usage: mkm report [--json] [--compensated [--calibration FILE] [--force-calibration]]\n"
	"                  [--tid TID[,TID...] | --comm NAME] [--pid PID[,PID...]]\n"
	"                  [--by-process] [--sort KEY] [--top N] FILE\n"
	"  report --latency, --noise [--barriers] and --idle are mkm latency,\n"
	"  mkm noise and mkm idle";

/*
 * mkm report --latency, --noise and --idle, as they were before they
 * became commands: that command, given the other arguments. Return: -1
 * when none of the three is asked for.
 */
static int report_alias(int argc, char **argv)
{
	static const struct {
		const char *flag;
		int (*fn)(int argc, char **argv);
	} aliases[] = {
		{ "--latency", cmd_latency },
		{ "--noise", cmd_noise },
		{ "--idle", cmd_idle },
	};
	int i, k, found = -1, at = 0, barriers = 0, n = 0;
	char **args;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		barriers |= !strcmp(argv[i], "--barriers");
		for (k = 0; k < 3; k++)
			if (!strcmp(argv[i], aliases[k].flag)) {
				n++;
				found = k;
				at = i;
			}
	}
	if (n > 1)
		die_usage(
			"report: --noise, --idle or --latency, one at a time");
	if (barriers && found != 1)
		die_usage(
			"report: --barriers goes with --noise (mkm noise --barriers)");
	if (found < 0)
		return -1;
	args = calloc((size_t)argc, sizeof(*args));
	if (!args)
		die("out of memory");
	for (i = 0, k = 0; i < argc; i++)
		if (i != at)
			args[k++] = argv[i];
	args[0] = (char *)aliases[found].flag + 2;
	i = aliases[found].fn(argc - 1, args);
	free(args);
	return i;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "compensated", no_argument, NULL, 'c' },
		{ "calibration", required_argument, NULL, 'C' },
		{ "force-calibration", no_argument, NULL, 'F' },
		{ "tid", required_argument, NULL, 't' },
		{ "comm", required_argument, NULL, 'm' },
		{ "pid", required_argument, NULL, 'p' },
		{ "by-process", no_argument, NULL, 'P' },
		{ "top", required_argument, NULL, 'T' },
		{ "sort", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *pids = NULL, *tids = NULL, *comm = NULL;
	struct report r = { 0 };
	struct acct_cell *cells;
	const char *cal_file = NULL, *path;
	struct tl *raw = NULL;
	bool json = false, compensated = false, force = false,
	     by_process = false;
	struct row_key *procs = NULL;
	size_t nr_procs = 0, top = 0;
	int opt, sort_by = -1;

	opt = report_alias(argc, argv);
	if (opt >= 0)
		return opt;

	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (opt == 'j') {
			json = true;
		} else if (opt == 'c') {
			compensated = true;
		} else if (opt == 'C') {
			cal_file = optarg;
		} else if (opt == 'F') {
			force = true;
		} else if (opt == 't') {
			tids = optarg;
		} else if (opt == 'm') {
			comm = optarg;
		} else if (opt == 'p') {
			pids = optarg;
		} else if (opt == 'P') {
			by_process = true;
		} else if (opt == 'T') {
			char *end;

			top = strtoul(optarg, &end, 10);
			if (*end || !top)
				die_usage(
					"report --top: '%s' is not a count above 0",
					optarg);
		} else if (opt == 's') {
			sort_by = parse_sort(optarg);
		} else if (opt == 'h') {
			puts(report_usage);
			return 0;
		} else {
			die_usage("%s", report_usage);
		}
	}
	if (optind != argc - 1)
		die_usage("report: give one trace file");
	if ((cal_file || force) && !compensated)
		die_usage(
			"report: --calibration and --force-calibration go with --compensated");
	path = argv[optind];
	if (tids && comm)
		die_usage("report: --tid or --comm, not both");
	if (tids && pids)
		die_usage("report: --tid or --pid, not both");
	if (compensated) {
		struct mon_compensate_opts copts =
			doubts_opts(&r.doubts, force);
		struct comp_out co = { &r.doubts, &r.bounds };
		struct mon_meta raw_meta;

		/* Both callbacks take one argument: both collections. */
		copts.doubt = comp_doubt;
		copts.bounds = comp_bounds;
		copts.arg = &co;
		calibration_for(path, cal_file, force, &r.cal);
		raw = load_trace(path, &raw_meta, NULL, 0);
		r.tl = load_trace_compensated(path, &r.cal, &copts, &r.meta,
					      NULL, 0);
	} else {
		r.tl = load_trace(path, &r.meta, NULL, 0);
		if (mon_calibration_load(&r.cal, path))
			memset(&r.cal, 0, sizeof(r.cal));
		if (r.meta.info.trace_flags & TRACE_F_COMPENSATED &&
		    mon_bounds_load(&r.bounds, path))
			r.bounds_absent = true;
	}
	if (mon_nodes_load(&r.nodes, path))
		mon_nodes_free(&r.nodes); /* not a merged trace */
	tl_stats(r.tl, &r.st);
	r.nr_threads = tl_nr_threads(r.tl);
	r.nr_cpus = tl_nr_cpus(r.tl);
	r.cpus = calloc(r.nr_cpus + 1, sizeof(*r.cpus));
	if (!r.cpus || acct_cpus(r.tl, r.cpus, r.nr_cpus))
		die("out of memory");
	span(r.tl, &r.t0, &r.t1);
	select_rows(&r, tids, comm, pids, by_process ? -1 : sort_by,
		    by_process ? 0 : top);
	if (by_process)
		procs = process_rows(&r, sort_by, top, &nr_procs);
	cells = calloc((size_t)r.nr_cpus * r.nr_threads + 1, sizeof(*cells));
	if (!cells)
		die("out of memory");
	acct_matrix(r.tl, cells, r.nr_cpus, r.nr_threads);

	if (json) {
		print_json(&r, path, cells, procs, nr_procs);
	} else {
		print_head(&r, path, procs ? nr_procs : 0);
		if (procs)
			print_processes(procs, nr_procs);
		else
			print_threads(&r);
		print_cpus(&r);
		print_nodes(&r.nodes, r.tl, r.cpus, r.nr_cpus);
		print_bursts(&r);
		print_matrix(&r, cells);
		if (raw)
			print_compensation(&r, raw);
		if (r.bounds.n)
			bounds_print(&r.bounds, r.tl, r.rows, r.nr_rows);
		else if (r.bounds_absent)
			printf("\nBounds of the compensated figures: not in this trace (compensated before trace format 1.5, or cut short): mkm replay the recording again\n");
		if (r.cal.hdr.nr_cpus) {
			putchar('\n');
			print_calibration(&r.cal);
		}
	}
	free(cells);
	free(procs);
	report_free(&r, raw);
	return 0;
}
