// SPDX-License-Identifier: GPL-2.0
/*
 * report_nodes.c - mkm report's per-node table of a merged trace: the
 * per-CPU summaries added up over each node's CPUs, its threads counted
 * by their tid's node prefix, and its clock's alignment (offset, drift,
 * bound, steps) as mkm merge measured it; and what every table of a
 * merged trace puts in its rows: the node, and its own tid or CPU.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "json.h"
#include "report_nodes.h"

struct node_sum {
	uint64_t run, intr, switches, events, lost, threads;
};

static void sum_node(const struct trace_node *nd, const struct tl *tl,
		     const struct acct_cpu *cpus, unsigned int nr_cpus,
		     struct node_sum *s)
{
	size_t th, nr = tl_nr_threads(tl);
	uint32_t c;

	*s = (struct node_sum){ 0 };
	for (c = nd->cpu_base; c < nd->cpu_base + nd->nr_cpus && c < nr_cpus;
	     c++) {
		s->run += cpus[c].run_ns;
		s->intr += cpus[c].interrupted_ns;
		s->switches += cpus[c].switches;
		s->events += cpus[c].events;
		s->lost += cpus[c].lost;
	}
	for (th = 0; th < nr; th++) {
		struct tl_thread t;

		if (!tl_thread(tl, th, &t) && t.tid &&
		    t.tid >> TRACE_NODE_TID_SHIFT == nd->index)
			s->threads++;
	}
}

static const char *reference_of(const struct mon_nodes *n)
{
	uint32_t i;

	for (i = 0; i < n->hdr.nr_nodes; i++)
		if (n->node[i].flags & TRACE_NODE_REFERENCE)
			return n->node[i].name;
	return "?";
}

void print_nodes(const struct mon_nodes *n, const struct tl *tl,
		 const struct acct_cpu *cpus, unsigned int nr_cpus)
{
	uint32_t i;

	if (!n || !n->hdr.nr_nodes)
		return;
	printf("\nPer node (mkm merge of job %" PRIu32 ".%" PRIu32
	       ": times on %s's clock; tids are node << %u | tid but beside a NODE)\n",
	       n->hdr.job_id, n->hdr.step_id, reference_of(n),
	       TRACE_NODE_TID_SHIFT);
	printf("%-12s %9s %7s %10s %10s %8s %9s %7s  %s\n", "NODE", "CPUS",
	       "THREADS", "RUN", "INTR", "SWITCH", "EVENTS", "LOST",
	       "CLOCK (offset, drift, bound)");
	for (i = 0; i < n->hdr.nr_nodes; i++) {
		const struct trace_node *nd = &n->node[i];
		char cpu[24], a[32], b[32], e[32];
		struct node_sum s;
		int64_t off = nd->offset_ns;
		uint64_t abs_off = off < 0 ? (uint64_t)-off : (uint64_t)off;

		sum_node(nd, tl, cpus, nr_cpus, &s);
		snprintf(cpu, sizeof(cpu), "%" PRIu32 "-%" PRIu32, nd->cpu_base,
			 nd->cpu_base + nd->nr_cpus - 1);
		printf("%-12.12s %9s %7" PRIu64 " %10s %10s %8" PRIu64
		       " %9" PRIu64 " %7" PRIu64 "  ",
		       nd->name, cpu, s.threads,
		       mon_fmt_ns(a, sizeof(a), s.run),
		       mon_fmt_ns(b, sizeof(b), s.intr), s.switches, s.events,
		       s.lost);
		if (nd->flags & TRACE_NODE_REFERENCE)
			printf("the reference");
		else
			printf("%c%" PRIu64 ".%09" PRIu64 " s, %+.3f ppm%s, "
			       "+-%s",
			       off < 0 ? '-' : '+', abs_off / 1000000000u,
			       abs_off % 1000000000u,
			       (double)nd->drift_ppb / 1000.0,
			       nd->flags & TRACE_NODE_NO_DRIFT ? " (unknown)" :
								 "",
			       mon_fmt_ns(e, sizeof(e), nd->error_ns));
		if (nd->flags & TRACE_NODE_STEPPED)
			printf("; clock stepped (%" PRIu64 " ambiguous)",
			       nd->ambiguous);
		if (nd->flags & TRACE_NODE_TRUNCATED)
			printf("; trace cut short");
		putchar('\n');
	}
}

void json_nodes(const struct mon_nodes *n, const struct tl *tl,
		const struct acct_cpu *cpus, unsigned int nr_cpus)
{
	uint32_t i;

	putchar('[');
	for (i = 0; n && i < n->hdr.nr_nodes; i++) {
		const struct trace_node *nd = &n->node[i];
		struct node_sum s;

		sum_node(nd, tl, cpus, nr_cpus, &s);
		printf("%s{\"name\":", i ? "," : "");
		json_string(nd->name);
		printf(",\"index\":%" PRIu32 ",\"node_id\":%" PRIu32
		       ",\"cpu_base\":%" PRIu32 ",\"nr_cpus\":%" PRIu32
		       ",\"threads\":%" PRIu64 ",\"run_ns\":%" PRIu64
		       ",\"interrupted_ns\":%" PRIu64 ",\"switches\":%" PRIu64
		       ",\"events\":%" PRIu64 ",\"lost\":%" PRIu64
		       ",\"reference\":%s"
		       ",\"offset_ns\":%" PRId64 ",\"drift_ppb\":%" PRId64
		       ",\"error_ns\":%" PRIu64 ",\"stepped\":%s"
		       ",\"ambiguous\":%" PRIu64 ",\"truncated\":%s}",
		       nd->index, nd->node_id, nd->cpu_base, nd->nr_cpus,
		       s.threads, s.run, s.intr, s.switches, s.events, s.lost,
		       nd->flags & TRACE_NODE_REFERENCE ? "true" : "false",
		       nd->offset_ns, nd->drift_ppb, nd->error_ns,
		       nd->flags & TRACE_NODE_STEPPED ? "true" : "false",
		       nd->ambiguous,
		       nd->flags & TRACE_NODE_TRUNCATED ? "true" : "false");
	}
	putchar(']');
}

static bool merged(const struct mon_nodes *n)
{
	return n && n->hdr.nr_nodes;
}

void print_node_head(const struct mon_nodes *n)
{
	if (merged(n))
		printf("%-*s ", NODE_W, "NODE");
}

uint32_t print_node_of_tid(const struct mon_nodes *n, uint32_t tid)
{
	const struct trace_node *nd = mon_nodes_of_tid(n, tid);

	if (!merged(n))
		return tid;
	printf("%-*.*s ", NODE_W, NODE_W, nd ? nd->name : "?");
	return nd ? tid & TRACE_NODE_TID_MASK : tid;
}

unsigned int print_node_of_cpu(const struct mon_nodes *n, unsigned int cpu)
{
	const struct trace_node *nd = mon_nodes_of_cpu(n, cpu);

	if (!merged(n))
		return cpu;
	printf("%-*.*s ", NODE_W, NODE_W, nd ? nd->name : "?");
	return nd ? cpu - nd->cpu_base : cpu;
}

uint32_t node_tid(const struct mon_nodes *n, uint32_t tid)
{
	return mon_nodes_of_tid(n, tid) ? tid & TRACE_NODE_TID_MASK : tid;
}

void node_thread_label(const struct mon_nodes *n, const struct tl_thread *t,
		       char *buf, size_t len)
{
	const struct trace_node *nd = mon_nodes_of_tid(n, t->tid);
	const char *name = t->name[0] ? t->name : "?";

	if (nd)
		snprintf(buf, len, "%s %s (%u)", nd->name, name,
			 node_tid(n, t->tid));
	else
		snprintf(buf, len, "%s (%u)", name, t->tid);
}

void json_node_of_tid(const struct mon_nodes *n, uint32_t tid)
{
	const struct trace_node *nd = mon_nodes_of_tid(n, tid);

	if (!nd)
		return;
	printf(",\"node\":");
	json_string(nd->name);
	printf(",\"node_tid\":%u", node_tid(n, tid));
}
