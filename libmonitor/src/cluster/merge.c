// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * merge.c - a job step's node traces as one trace on the reference node's
 * clock, with a node dimension (mon_merge(), docs/cluster.md).
 *
 * Three reads of each node's file:
 *  1. scan: its INFO (node, job), its clock exchanges (CLOCK_SYNC, which
 *     end a trace: the last exchange is taken when the step ends), its
 *     CPUs, first and last times, STATS, and whether it is whole;
 *  2. only for a node whose clock stepped: its records shown to the
 *     alignment, which finds the step on each CPU (align.c);
 *  3. its records, mapped (times onto the reference clock, CPUs and tids
 *     made unique per node) by a node source around its file source, all
 *     nodes merged in time order by the merge source, written.
 * An input that cannot be merged is left out with its reason; a cut one is
 * merged as far as it reads. Nothing is aligned on application events.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MERGE_FANIN 64 /* mon_source_merge()'s limit */

struct node {
	struct mon_merge_input *in;
	struct trace_info info;
	struct trace_clock_sample *samples;
	size_t nr_samples, cap_samples;
	char reference[64];
	bool has_sync;
	uint64_t first_t, last_t; /* of its records, on its clock */
	uint32_t nr_cpus; /* INFO's, or more if records say so */
	struct mkm_cpu_stats *stats; /* its last STATS */
	size_t nr_stats;
	struct mon_align *align;
	uint32_t cpu_base;
	bool truncated; /* cut short: merged as far as it reads */
	bool partial; /* cut or damaged, merged in part */
};

static void say(struct mon_merge_input *in, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(struct mon_merge_input *in, int err, const char *fmt, ...)
{
	va_list ap;

	if (in->err && in->msg[0])
		return; /* the first reason stands */
	va_start(ap, fmt);
	vsnprintf(in->msg, sizeof(in->msg), fmt, ap);
	va_end(ap);
	in->err = err;
}

static int add_samples(struct node *nd, const struct trace_chunk *c)
{
	if (nd->nr_samples + c->nr_clock_samples > nd->cap_samples) {
		size_t cap = (nd->nr_samples + c->nr_clock_samples) * 2;
		struct trace_clock_sample *s =
			realloc(nd->samples, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		nd->samples = s;
		nd->cap_samples = cap;
	}
	memcpy(nd->samples + nd->nr_samples, c->clock_samples,
	       c->nr_clock_samples * sizeof(*c->clock_samples));
	nd->nr_samples += c->nr_clock_samples;
	return 0;
}

static int keep_stats(struct node *nd, const struct trace_chunk *c)
{
	struct mkm_cpu_stats *s =
		realloc(nd->stats, (c->nr_stats + 1) * sizeof(*s));

	if (!s)
		return -ENOMEM;
	memcpy(s, c->stats, c->nr_stats * sizeof(*s));
	nd->stats = s;
	nd->nr_stats = c->nr_stats;
	return 0;
}

/* Pass 1. Return: 0 (nd->in says if it is unusable), or -ENOMEM. */
static int scan(struct node *nd)
{
	struct mon_merge_input *in = nd->in;
	struct trace_reader *r = NULL;
	struct trace_chunk c;
	int ret;
	size_t i;

	ret = trace_reader_open(&r, in->path);
	if (ret) {
		const char *why = r ? trace_reader_error(r, NULL) : "";

		say(in, ret, "%s: %s; not merged", in->path,
		    *why ? why : strerror(-ret));
		trace_reader_close(r);
		return ret == -ENOMEM ? ret : 0;
	}
	nd->info = *trace_reader_info(r);
	snprintf(in->node, sizeof(in->node), "%s", nd->info.node);
	in->job_id = nd->info.job_id;
	in->step_id = nd->info.step_id;
	in->node_id = nd->info.node_id;
	in->nr_nodes = nd->info.nr_nodes;
	nd->nr_cpus = nd->info.nr_cpus;
	if (!nd->info.node[0]) {
		say(in, -EINVAL,
		    "%s: not a node's trace (it names no node: record it "
		    "under Slurm with srun --mkm); not merged",
		    in->path);
		trace_reader_close(r);
		return 0;
	}
	while ((ret = trace_reader_next(r, &c)) == 1) {
		switch (c.type) {
		case TRACE_CHUNK_EVENTS:
			for (i = 0; i < c.nr_events; i++) {
				const struct mkm_event *e = &c.events[i];

				if (e->cpu >= nd->nr_cpus)
					nd->nr_cpus = e->cpu + 1u;
				if (!e->time_ns)
					continue;
				if (!nd->first_t || e->time_ns < nd->first_t)
					nd->first_t = e->time_ns;
				if (e->time_ns > nd->last_t)
					nd->last_t = e->time_ns;
			}
			in->events += c.nr_events;
			break;
		case TRACE_CHUNK_CLOCK_SYNC:
			if (!c.clock_sync_hdr ||
			    strcmp(c.clock_sync_hdr->node, nd->info.node))
				break; /* another node's: not ours to use */
			if (nd->has_sync && strcmp(c.clock_sync_hdr->reference,
						   nd->reference)) {
				say(in, -EINVAL,
				    "%s: its clock was compared with %s, then "
				    "with %s; not merged",
				    in->path, nd->reference,
				    c.clock_sync_hdr->reference);
				break;
			}
			nd->has_sync = true;
			snprintf(nd->reference, sizeof(nd->reference), "%s",
				 c.clock_sync_hdr->reference);
			if (add_samples(nd, &c))
				goto err_nomem;
			break;
		case TRACE_CHUNK_STATS:
			if (keep_stats(nd, &c))
				goto err_nomem;
			break;
		}
	}
	if (ret < 0) {
		nd->truncated = nd->partial = true;
		say(in, ret, "%s: %s; merged what is before it", in->path,
		    trace_reader_error(r, NULL));
	} else if (*trace_reader_error(r, NULL)) {
		nd->partial = true;
		say(in, -EBADMSG, "%s: %s; merged the rest", in->path,
		    trace_reader_error(r, NULL));
	}
	trace_reader_close(r);
	return 0;

err_nomem:
	trace_reader_close(r);
	return -ENOMEM;
}

/* Usable after the scan (a cut trace is). */
static bool usable(const struct node *nd)
{
	return !nd->in->err || nd->partial;
}

static void leave_out(struct node *nd, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void leave_out(struct node *nd, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(nd->in->msg, sizeof(nd->in->msg), fmt, ap);
	va_end(ap);
	nd->in->err = err;
	nd->partial = false;
}

/* The job step most usable inputs give (or the one asked for). */
static void pick_job(struct node *nodes, size_t n,
		     const struct mon_merge_opts *opts,
		     struct mon_merge_result *res)
{
	size_t i, j, best = 0, pick = n;

	if (opts && opts->job_given) {
		res->job_id = opts->job_id;
		res->step_id = opts->step_id;
	} else {
		for (i = 0; i < n; i++) {
			size_t same = 0;

			if (!usable(&nodes[i]))
				continue;
			for (j = 0; j < n; j++)
				same += usable(&nodes[j]) &&
					nodes[j].info.job_id ==
						nodes[i].info.job_id &&
					nodes[j].info.step_id ==
						nodes[i].info.step_id;
			if (same > best) {
				best = same;
				pick = i;
			}
		}
		if (pick == n)
			return;
		res->job_id = nodes[pick].info.job_id;
		res->step_id = nodes[pick].info.step_id;
	}
	for (i = 0; i < n; i++)
		if (usable(&nodes[i]) &&
		    (nodes[i].info.job_id != res->job_id ||
		     nodes[i].info.step_id != res->step_id))
			leave_out(&nodes[i], -EXDEV,
				  "%s: node %s recorded job %" PRIu32
				  ".%" PRIu32 ", not %" PRIu32 ".%" PRIu32
				  "%s; not merged",
				  nodes[i].in->path, nodes[i].info.node,
				  nodes[i].info.job_id, nodes[i].info.step_id,
				  res->job_id, res->step_id,
				  opts && opts->job_given ? " (asked for)" :
							    " (the others')");
}

/* The reference most usable inputs name. */
static void pick_reference(struct node *nodes, size_t n,
			   struct mon_merge_result *res)
{
	size_t i, j, best = 0;

	for (i = 0; i < n; i++) {
		size_t same = 0;

		if (!usable(&nodes[i]) || !nodes[i].has_sync)
			continue;
		for (j = 0; j < n; j++)
			same += usable(&nodes[j]) && nodes[j].has_sync &&
				!strcmp(nodes[j].reference, nodes[i].reference);
		if (same > best) {
			best = same;
			snprintf(res->reference, sizeof(res->reference), "%s",
				 nodes[i].reference);
		}
	}
	for (i = 0; i < n; i++) {
		struct node *nd = &nodes[i];

		if (!usable(nd))
			continue;
		if (!strcmp(nd->info.node, res->reference)) {
			nd->in->reference = true;
			continue;
		}
		if (!nd->has_sync || !nd->nr_samples)
			leave_out(nd, -ENOENT,
				  "%s: node %s has no clock exchange with %s "
				  "(its recorder did not reach the "
				  "reference?): its clock cannot be aligned; "
				  "not merged",
				  nd->in->path, nd->info.node,
				  *res->reference ? res->reference :
						    "a reference");
		else if (strcmp(nd->reference, res->reference))
			leave_out(nd, -EXDEV,
				  "%s: node %s's clock was compared with %s, "
				  "the others' with %s; not merged",
				  nd->in->path, nd->info.node, nd->reference,
				  res->reference);
	}
}

static void drop_duplicates(struct node *nodes, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < i && usable(&nodes[i]); j++)
			if (usable(&nodes[j]) &&
			    !strcmp(nodes[i].info.node, nodes[j].info.node))
				leave_out(&nodes[i], -EEXIST,
					  "%s: node %s is also %s; not merged "
					  "twice",
					  nodes[i].in->path, nodes[i].info.node,
					  nodes[j].in->path);
}

/* Step node ids no input of the job gives. */
static void find_missing(const struct node *nodes, size_t n,
			 struct mon_merge_result *res)
{
	uint32_t id;
	size_t i;

	for (i = 0; i < n; i++)
		if (nodes[i].info.node[0] &&
		    nodes[i].info.job_id == res->job_id &&
		    nodes[i].info.step_id == res->step_id &&
		    nodes[i].info.nr_nodes > res->nr_nodes)
			res->nr_nodes = nodes[i].info.nr_nodes;
	for (id = 0; id < res->nr_nodes && id < TRACE_MAX_NODES; id++) {
		bool seen = false;

		for (i = 0; i < n && !seen; i++)
			seen = nodes[i].info.node[0] &&
			       nodes[i].info.job_id == res->job_id &&
			       nodes[i].info.step_id == res->step_id &&
			       nodes[i].info.node_id == id;
		if (!seen && res->nr_missing++ < ARRAY_SIZE(res->missing))
			res->missing[res->nr_missing - 1] = id;
	}
}

/* Pass 2, for a node whose clock stepped. */
static int observe(struct node *nd)
{
	struct trace_reader *r = NULL;
	struct trace_chunk c;
	int ret;

	ret = trace_reader_open(&r, nd->in->path);
	if (!ret)
		while ((ret = trace_reader_next(r, &c)) == 1)
			if (c.type == TRACE_CHUNK_EVENTS &&
			    mon_align_observe(nd->align, c.events,
					      c.nr_events)) {
				ret = -ENOMEM;
				break;
			}
	trace_reader_close(r);
	return ret == -ENOMEM ? ret : 0; /* a cut file: as far as it reads */
}

static int make_align(struct node *nd)
{
	int ret;

	if (nd->in->reference)
		return mon_align_identity(&nd->align);
	ret = mon_align_new(&nd->align, nd->samples, nd->nr_samples);
	if (ret == -EINVAL) {
		leave_out(nd, ret,
			  "%s: node %s: a clock exchange without an error "
			  "bound; not merged",
			  nd->in->path, nd->info.node);
		return 0;
	}
	if (!ret && mon_align_steps(nd->align))
		ret = observe(nd);
	return ret;
}

/* Every merged node's exchanges on the merged clock. */
static void check_causality(struct node **m, size_t n,
			    struct mon_merge_result *res)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct mon_align_check *c = &m[i]->in->check;

		if (m[i]->in->reference ||
		    mon_align_check(m[i]->align, m[i]->samples,
				    m[i]->nr_samples, c))
			continue;
		res->messages += c->messages;
		res->violations += c->violations;
	}
}

/* ---- pass 3: the node source ------------------------------------------ */

struct node_src {
	struct node *nd;
	struct mon_source *inner;
	struct mkm_event *buf;
	size_t cap;
	struct trace_thread *th;
	size_t cap_th;
	struct trace_process *pr;
	size_t cap_pr;
	struct trace_calibration *cal;
	size_t cap_cal;
};

static uint32_t map_tid(const struct node *nd, uint32_t tid)
{
	return tid ? (nd->in->index << TRACE_NODE_TID_SHIFT) |
			       (tid & TRACE_NODE_TID_MASK) :
		     0;
}

static uint32_t map_cpu(const struct node *nd, uint32_t cpu)
{
	return cpu == UINT32_MAX ? cpu : cpu + nd->cpu_base;
}

static void map_event(struct node *nd, struct mkm_event *e)
{
	e->time_ns = mon_align_event(nd->align, e, NULL);
	e->cpu = (uint16_t)(e->cpu + nd->cpu_base);
	e->tid = map_tid(nd, e->tid);
	switch (e->type) {
	case MKM_EV_SWITCH_OUT:
	case MKM_EV_SWITCH_IN:
	case MKM_EV_SWITCH: /* arg1: next's tid */
	case MKM_EV_WAKING:
		e->arg1 = map_tid(nd, e->arg1);
		break;
	case MKM_EV_WAKEUP:
	case MKM_EV_WAKEUP_NEW:
		e->arg0 = map_cpu(nd, e->arg0);
		e->arg1 = map_tid(nd, e->arg1);
		break;
	case MKM_EV_MIGRATE:
		e->arg0 = map_cpu(nd, e->arg0);
		e->arg1 = map_cpu(nd, e->arg1);
		break;
	case MKM_EV_FORK:
	case MKM_EV_EXEC:
		e->arg0 = map_tid(nd, e->arg0);
		break;
	case MKM_EV_ATTACH:
		e->arg1 = map_cpu(nd, e->arg1);
		break;
	}
}

static int grow_buf(void **p, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (n <= *cap)
		return 0;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

static int node_next(void *priv, struct mon_msg *msg)
{
	struct node_src *ns = priv;
	struct node *nd = ns->nd;
	size_t i;
	int ret;

	for (;;) {
		ret = mon_source_next(ns->inner, msg);
		if (ret < 0 && !nd->in->err)
			say(nd->in, ret, "%s: %s; merged what is before it",
			    nd->in->path, mon_source_error(ns->inner, NULL));
		if (ret < 0 && ret != -ENOMEM)
			return 0; /* said; the other nodes go on */
		if (ret <= 0)
			return ret;
		switch (msg->type) {
		case MON_MSG_EVENTS:
			if (grow_buf((void **)&ns->buf, &ns->cap,
				     msg->nr_events, sizeof(*ns->buf)))
				return -ENOMEM;
			memcpy(ns->buf, msg->events,
			       msg->nr_events * sizeof(*ns->buf));
			for (i = 0; i < msg->nr_events; i++)
				map_event(nd, &ns->buf[i]);
			msg->events = ns->buf;
			return 1;
		case MON_MSG_HORIZON:
			msg->horizon_ns =
				mon_align_horizon(nd->align, msg->horizon_ns);
			return 1;
		case MON_MSG_THREADS:
			if (grow_buf((void **)&ns->th, &ns->cap_th,
				     msg->nr_threads, sizeof(*ns->th)))
				return -ENOMEM;
			for (i = 0; i < msg->nr_threads; i++) {
				ns->th[i] = msg->threads[i];
				ns->th[i].tid = map_tid(nd, ns->th[i].tid);
			}
			msg->threads = ns->th;
			return 1;
		case MON_MSG_PROCESSES:
			if (grow_buf((void **)&ns->pr, &ns->cap_pr,
				     msg->nr_processes, sizeof(*ns->pr)))
				return -ENOMEM;
			for (i = 0; i < msg->nr_processes; i++) {
				ns->pr[i].tid =
					map_tid(nd, msg->processes[i].tid);
				ns->pr[i].tgid =
					map_tid(nd, msg->processes[i].tgid);
			}
			msg->processes = ns->pr;
			return 1;
		case MON_MSG_CALIBRATION:
			if (grow_buf((void **)&ns->cal, &ns->cap_cal,
				     msg->nr_calibration, sizeof(*ns->cal)))
				return -ENOMEM;
			for (i = 0; i < msg->nr_calibration; i++) {
				ns->cal[i] = msg->calibration[i];
				ns->cal[i].cpu += nd->cpu_base;
			}
			msg->calibration = ns->cal;
			return 1;
		default:
			continue; /* INFO went first; STATS are written once,
				     by CPU over all nodes, and the exchanges
				     with the NODES; a merged trace is no
				     node's */
		}
	}
}

static const char *node_error(void *priv, uint64_t *offset)
{
	struct node_src *ns = priv;

	return mon_source_error(ns->inner, offset);
}

static void node_destroy(void *priv)
{
	struct node_src *ns = priv;

	mon_source_destroy(ns->inner);
	free(ns->buf);
	free(ns->th);
	free(ns->pr);
	free(ns->cal);
	free(ns);
}

static const struct mon_source_ops node_ops = {
	.name = "node",
	.next = node_next,
	.error = node_error,
	.destroy = node_destroy,
};

static int node_source(struct mon_source **srcp, struct node *nd)
{
	struct trace_info info = nd->info;
	struct node_src *ns = calloc(1, sizeof(*ns));
	int ret;

	if (!ns)
		return -ENOMEM;
	ns->nd = nd;
	ret = mon_source_file(&ns->inner, nd->in->path);
	if (ret && ns->inner) {
		/* The header read in pass 1 no longer does. */
		mon_source_destroy(ns->inner);
		ns->inner = NULL;
	}
	if (ret) {
		free(ns);
		return ret;
	}
	/* Lanes for its CPUs (the merge makes one per CPU below nr_cpus). */
	info.nr_cpus = nd->cpu_base + nd->nr_cpus;
	ret = mon_source_new(srcp, &node_ops, ns, &info);
	if (ret)
		node_destroy(ns);
	return ret;
}

/* All sources as one, in merges of at most MERGE_FANIN. */
static int merge_all(struct mon_source **srcs, size_t n,
		     struct mon_source **out)
{
	size_t groups, g, i;
	int ret;

	while (n > MERGE_FANIN) {
		groups = (n + MERGE_FANIN - 1) / MERGE_FANIN;
		for (g = 0, i = 0; g < groups; g++, i += MERGE_FANIN) {
			size_t k = n - i < MERGE_FANIN ? n - i : MERGE_FANIN;

			ret = mon_source_merge(&srcs[g], srcs + i, k);
			if (ret) {
				for (i += k; i < n; i++)
					mon_source_destroy(srcs[i]);
				for (i = 0; i < g; i++)
					mon_source_destroy(srcs[i]);
				return ret;
			}
		}
		n = groups;
	}
	return mon_source_merge(out, srcs, n);
}

/* ---- writing ----------------------------------------------------------- */

static void fill_node(const struct node *nd, struct trace_node *tn)
{
	const struct mon_align_summary *s = &nd->in->align;

	memset(tn, 0, sizeof(*tn));
	snprintf(tn->name, sizeof(tn->name), "%.63s", nd->info.node);
	snprintf(tn->kernel, sizeof(tn->kernel), "%.63s", nd->info.kernel);
	tn->index = nd->in->index;
	tn->node_id = nd->info.node_id;
	tn->cpu_base = nd->cpu_base;
	tn->nr_cpus = nd->nr_cpus;
	tn->flags =
		(nd->in->reference ? TRACE_NODE_REFERENCE : 0) |
		(s->steps ? TRACE_NODE_STEPPED : 0) |
		(s->no_drift && !nd->in->reference ? TRACE_NODE_NO_DRIFT : 0) |
		(nd->truncated ? TRACE_NODE_TRUNCATED : 0);
	tn->nr_samples = (uint32_t)s->samples;
	tn->offset_ns = s->offset_ns;
	tn->drift_ppb = s->drift_ppb;
	tn->error_ns = s->max_error_ns;
	tn->start_mono_ns = nd->info.start_mono_ns;
	tn->events = nd->in->events;
	tn->ambiguous = s->ambiguous;
}

/* The merged trace's INFO: the reference node's recording (or the first
 * node's), with every node's CPUs and classes, its start on the
 * reference clock. */
static void merged_info(struct node **m, size_t n, struct trace_info *info)
{
	uint64_t start = UINT64_MAX, pick_start;
	size_t i, pick = 0;

	for (i = 0; i < n; i++)
		if (m[i]->in->reference)
			pick = i;
	*info = m[pick]->info;
	memset(info->node, 0, sizeof(info->node));
	info->job_id = info->step_id = info->node_id = info->nr_nodes = 0;
	info->trace_flags |= TRACE_F_MERGED;
	/* Every node's recorder, mapped: each node compensated for its own
	 * (as many as INFO holds; each node's trace keeps its own). */
	info->nr_monitor_tids = 0;
	for (i = 0; i < n; i++) {
		const struct trace_info *in = &m[i]->info;
		uint32_t k;

		for (k = 0; k < in->nr_monitor_tids &&
			    info->nr_monitor_tids < TRACE_MAX_MONITOR_TIDS;
		     k++)
			info->monitor_tids[info->nr_monitor_tids++] =
				map_tid(m[i], in->monitor_tids[k]);
	}
	for (i = 0; i < n; i++) {
		uint64_t s = mon_align_time(m[i]->align,
					    m[i]->info.start_mono_ns, 0, NULL);

		info->classes |= m[i]->info.classes;
		/* One node's SWITCH records make the merge hold some. */
		info->flags |= m[i]->info.flags & MKM_CONFIG_ONE_SWITCH;
		info->nr_cpus = m[i]->cpu_base + m[i]->nr_cpus;
		/* The coarsest node's step: what merged times are good to. */
		if (m[i]->info.clock_res_ps > info->clock_res_ps)
			info->clock_res_ps = m[i]->info.clock_res_ps;
		if (m[i]->info.start_mono_ns && s < start)
			start = s;
	}
	/* The origin is the first node's start, on the reference clock. */
	pick_start = mon_align_time(m[pick]->align, m[pick]->info.start_mono_ns,
				    0, NULL);
	if (start != UINT64_MAX && start <= pick_start) {
		info->start_mono_ns = start;
		info->start_real_ns -= pick_start - start;
	}
}

/* Each node's alignment summary; true if a count changed. */
static bool summarize(struct node **m, size_t n)
{
	bool changed = false;
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t before = m[i]->in->align.ambiguous;

		mon_align_summarize(m[i]->align, m[i]->first_t, m[i]->last_t,
				    &m[i]->in->align);
		changed |= m[i]->in->align.ambiguous != before;
	}
	return changed;
}

static int write_meta(struct trace_writer *w, struct node **m, size_t n,
		      const struct mon_merge_result *res, bool samples)
{
	struct trace_nodes_hdr nh = { .job_id = res->job_id,
				      .step_id = res->step_id };
	struct trace_node *tn = calloc(n, sizeof(*tn));
	size_t i;
	int ret;

	if (!tn)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		fill_node(m[i], &tn[i]);
	ret = trace_writer_nodes(w, &nh, tn, n);
	free(tn);
	for (i = 0; !ret && samples && i < n; i++) {
		struct trace_clock_sync_hdr h = { .clock = m[i]->info.clock };

		if (!m[i]->nr_samples)
			continue;
		snprintf(h.node, sizeof(h.node), "%.63s", m[i]->info.node);
		snprintf(h.reference, sizeof(h.reference), "%s",
			 m[i]->reference);
		ret = trace_writer_clock_sync(w, &h, m[i]->samples,
					      m[i]->nr_samples);
	}
	return ret;
}

static int write_stats(struct trace_writer *w, struct node **m, size_t n,
		       uint32_t nr_cpus)
{
	struct mkm_cpu_stats *st = calloc(nr_cpus ? nr_cpus : 1, sizeof(*st));
	bool any = false;
	size_t i;
	int ret;

	if (!st)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		size_t k = m[i]->nr_stats < m[i]->nr_cpus ? m[i]->nr_stats :
							    m[i]->nr_cpus;

		if (!k)
			continue;
		memcpy(st + m[i]->cpu_base, m[i]->stats, k * sizeof(*st));
		any = true;
	}
	ret = any ? trace_writer_stats(w, st, nr_cpus) : 0;
	free(st);
	return ret;
}

static int run(struct node **m, size_t n, const char *out,
	       struct mon_merge_result *res)
{
	struct mon_source **srcs = calloc(n, sizeof(*srcs)), *src = NULL;
	struct trace_writer *w = NULL;
	struct trace_info info;
	struct mon_msg msg;
	size_t i;
	int ret;

	if (!srcs)
		return -ENOMEM;
	merged_info(m, n, &info);
	for (i = 0; i < n; i++) {
		ret = node_source(&srcs[i], m[i]);
		if (ret) {
			while (i--)
				mon_source_destroy(srcs[i]);
			free(srcs);
			return ret;
		}
	}
	ret = merge_all(srcs, n, &src);
	free(srcs);
	if (ret)
		return ret;
	summarize(m, n);
	ret = trace_writer_open(&w, out, &info);
	if (!ret)
		ret = write_meta(w, m, n, res, true);
	while (!ret && (ret = mon_source_next(src, &msg)) == 1) {
		switch (msg.type) {
		case MON_MSG_EVENTS:
			ret = trace_writer_events(w, msg.events, msg.nr_events);
			res->events += msg.nr_events;
			break;
		case MON_MSG_HORIZON:
			ret = trace_writer_horizon(w, msg.horizon_ns);
			break;
		case MON_MSG_THREADS:
			ret = trace_writer_threads(w, msg.threads,
						   msg.nr_threads);
			break;
		case MON_MSG_PROCESSES:
			ret = trace_writer_processes(w, msg.processes,
						     msg.nr_processes);
			break;
		case MON_MSG_CALIBRATION:
			ret = trace_writer_calibration(w, msg.calibration_hdr,
						       msg.calibration,
						       msg.nr_calibration);
			break;
		default:
			ret = 0;
		}
	}
	if (!ret)
		ret = write_stats(w, m, n, info.nr_cpus);
	/* A step's ambiguous records are counted as they are mapped: the
	 * NODES written last supersede the first. */
	if (!ret && summarize(m, n))
		ret = write_meta(w, m, n, res, false);
	if (w) {
		int err = trace_writer_close(w);

		if (!ret)
			ret = err;
	}
	mon_source_destroy(src);
	return ret;
}

/* Output order: by node id, then name. */
static int by_node(const void *x, const void *y)
{
	const struct node *a = *(struct node *const *)x,
			  *b = *(struct node *const *)y;

	if (a->info.node_id != b->info.node_id)
		return a->info.node_id < b->info.node_id ? -1 : 1;
	return strcmp(a->info.node, b->info.node);
}

static int place(struct node **m, size_t k)
{
	uint32_t base = 0;
	size_t i;

	qsort(m, k, sizeof(*m), by_node);
	for (i = 0; i < k; i++) {
		if ((uint64_t)base + m[i]->nr_cpus > 65536)
			return -E2BIG;
		m[i]->cpu_base = base;
		m[i]->in->index = (uint32_t)i;
		base += m[i]->nr_cpus;
	}
	return 0;
}

int mon_merge(const char *const *paths, size_t n, const char *out,
	      const struct mon_merge_opts *opts, struct mon_merge_result *res)
{
	struct node *nodes = NULL, **m = NULL;
	size_t i, k = 0;
	int ret = 0;

	if (!res)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	if (!paths || !out || !n || n > TRACE_MAX_NODES)
		return -EINVAL;
	res->inputs = calloc(n, sizeof(*res->inputs));
	nodes = calloc(n, sizeof(*nodes));
	m = calloc(n, sizeof(*m));
	if (!res->inputs || !nodes || !m) {
		ret = -ENOMEM;
		goto out;
	}
	res->nr_inputs = n;
	for (i = 0; i < n && !ret; i++) {
		res->inputs[i].path = paths[i];
		nodes[i].in = &res->inputs[i];
		ret = scan(&nodes[i]);
	}
	if (ret)
		goto out;
	pick_job(nodes, n, opts, res);
	drop_duplicates(nodes, n);
	pick_reference(nodes, n, res);
	find_missing(nodes, n, res);
	for (i = 0; i < n && !ret; i++)
		if (usable(&nodes[i]))
			ret = make_align(&nodes[i]);
	if (ret)
		goto out;
	for (i = 0; i < n; i++)
		if (usable(&nodes[i]))
			m[k++] = &nodes[i];
	if (!k) {
		ret = -ENOENT;
		goto out;
	}
	ret = place(m, k);
	if (!ret)
		ret = run(m, k, out, res);
	if (!ret)
		check_causality(m, k, res);
	for (i = 0; !ret && i < k; i++)
		m[i]->in->merged = true;
	res->nr_merged = ret ? 0 : k;
	if (!ret)
		for (i = 0; i < n; i++)
			if (res->inputs[i].err || res->nr_missing ||
			    res->violations)
				ret = 1;
out:
	for (i = 0; nodes && i < n; i++) {
		free(nodes[i].samples);
		free(nodes[i].stats);
		mon_align_destroy(nodes[i].align);
	}
	free(nodes);
	free(m);
	return ret;
}

void mon_merge_free(struct mon_merge_result *res)
{
	if (!res)
		return;
	free(res->inputs);
	res->inputs = NULL;
	res->nr_inputs = 0;
}
