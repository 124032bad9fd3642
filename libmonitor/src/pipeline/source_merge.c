// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * source_merge.c - the merge source: several sources as one stream in time
 * order (two monitors' traces of one run, a trace cut in pieces).
 *
 * Every source's records go into one reorder buffer, a group per source,
 * so they leave in time order, renumbered per CPU (see
 * pipeline_internal.h). The source to pull from next is the one holding
 * the watermark back (its horizon or a silent CPU's time is the lowest),
 * so memory stays within what the horizons allow. Metadata messages pass
 * at once, tagged with their source.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline_internal.h"

#define OUT_BATCH 4096
#define MAX_MERGE 64

struct merge {
	struct mon_source **srcs;
	size_t n;
	bool *ended;
	size_t nr_ended;
	struct reorder ro;
	int err;
	size_t failed; /* the source whose error ended the stream */
	struct mkm_event out[OUT_BATCH];
};

/* The source holding the watermark back: the lowest horizon, or one of
 * whose lanes has the lowest last time; the first one not ended. */
static size_t laggard(const struct merge *m)
{
	uint64_t best = UINT64_MAX;
	size_t i, pick = m->n;

	for (i = 0; i < m->ro.nr_lanes; i++) {
		const struct reorder_lane *l = &m->ro.lanes[i];
		uint64_t h = m->ro.horizon[l->group];
		uint64_t w = l->last > h ? l->last : h;

		if (!m->ended[l->group] && (pick == m->n || w < best)) {
			best = w;
			pick = l->group;
		}
	}
	for (i = 0; i < m->n; i++)
		if (!m->ended[i] && (pick == m->n || m->ro.horizon[i] < best)) {
			best = m->ro.horizon[i];
			pick = i;
		}
	return pick;
}

static int merge_next(void *priv, struct mon_msg *msg)
{
	struct merge *m = priv;

	for (;;) {
		size_t n = reorder_pop(&m->ro, reorder_watermark(&m->ro),
				       m->out, OUT_BATCH);
		size_t i;
		int ret;

		if (n) {
			msg->type = MON_MSG_EVENTS;
			msg->events = m->out;
			msg->nr_events = n;
			return 1;
		}
		if (m->nr_ended == m->n)
			return m->err;
		i = laggard(m);
		ret = mon_source_next(m->srcs[i], msg);
		if (ret == -EAGAIN)
			return ret;
		if (ret <= 0) {
			/* Ended (or failed): it holds nothing back now. */
			m->ended[i] = true;
			m->nr_ended++;
			reorder_horizon(&m->ro, i, UINT64_MAX);
			if (ret < 0 && !m->err) {
				m->err = ret;
				m->failed = i;
			}
			continue;
		}
		msg->source = i;
		switch (msg->type) {
		case MON_MSG_INFO:
			ret = reorder_cpus(&m->ro, i, msg->info->nr_cpus);
			if (ret)
				return ret;
			continue; /* the merged INFO went first */
		case MON_MSG_EVENTS:
			ret = reorder_push(&m->ro, i, msg->events,
					   msg->nr_events);
			if (ret)
				return ret;
			continue;
		case MON_MSG_HORIZON:
			reorder_horizon(&m->ro, i, msg->horizon_ns);
			continue; /* the merged stream is in order already */
		}
		return 1;
	}
}

static const char *merge_error(void *priv, uint64_t *offset)
{
	struct merge *m = priv;

	return m->err ? mon_source_error(m->srcs[m->failed], offset) : "";
}

static void merge_destroy(void *priv)
{
	struct merge *m = priv;
	size_t i;

	for (i = 0; i < m->n; i++)
		mon_source_destroy(m->srcs[i]);
	reorder_free(&m->ro);
	free(m->srcs);
	free(m->ended);
	free(m);
}

static const struct mon_source_ops merge_ops = {
	.name = "merge",
	.next = merge_next,
	.error = merge_error,
	.destroy = merge_destroy,
};

int mon_source_merge(struct mon_source **srcp, struct mon_source **srcs,
		     size_t n)
{
	struct trace_info info;
	struct merge *m;
	size_t i;
	int ret = -EINVAL;

	if (!srcp || !srcs || !n || n > MAX_MERGE)
		goto err_free_sources;
	for (i = 0; i < n; i++)
		if (!srcs[i])
			goto err_free_sources;
	ret = -ENOMEM;
	m = calloc(1, sizeof(*m));
	if (!m)
		goto err_free_sources;
	m->srcs = malloc(n * sizeof(*m->srcs));
	m->ended = calloc(n, sizeof(*m->ended));
	if (!m->srcs || !m->ended || reorder_init(&m->ro, n, true)) {
		free(m->srcs);
		free(m->ended);
		free(m);
		goto err_free_sources;
	}
	memcpy(m->srcs, srcs, n * sizeof(*srcs));
	m->n = n;
	info = *mon_source_info(srcs[0]);
	for (i = 1; i < n; i++) {
		const struct trace_info *in = mon_source_info(srcs[i]);

		if (in->nr_cpus > info.nr_cpus)
			info.nr_cpus = in->nr_cpus;
		info.classes |= in->classes;
		info.flags |= in->flags & MKM_CONFIG_ONE_SWITCH;
		/* the coarsest node's: what the merged times are good to */
		if (in->clock_res_ps > info.clock_res_ps)
			info.clock_res_ps = in->clock_res_ps;
	}
	ret = mon_source_new(srcp, &merge_ops, m, &info);
	if (ret)
		merge_destroy(m);
	return ret;

err_free_sources:
	for (i = 0; srcs && i < n; i++)
		mon_source_destroy(srcs[i]);
	return ret;
}
