// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * nodes.c - a merged trace's nodes (its last NODES chunk), and which node
 * a merged CPU or tid belongs to (docs/trace-format.md, NODES).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A NODES chunk, in place of any before it: the last one holds. */
static int keep(const struct trace_chunk *c, void *arg)
{
	struct mon_nodes *out = arg;
	struct trace_node *n;

	if (!c->nodes_hdr)
		return 0;
	n = malloc((c->nr_nodes + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	memcpy(n, c->nodes, c->nr_nodes * sizeof(*n));
	free(out->node);
	out->node = n;
	out->hdr = *c->nodes_hdr;
	return 0;
}

int mon_nodes_load(struct mon_nodes *out, const char *path)
{
	int ret;

	if (!out || !path)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	ret = mon_trace_each_chunk(path, TRACE_CHUNK_NODES, keep, out);
	/* A trace damaged past its NODES chunk still says its nodes. */
	if (out->node)
		return ret == -ENOMEM ? ret : 0;
	return ret ? ret : -ENOENT;
}

const struct trace_node *mon_nodes_of_cpu(const struct mon_nodes *n,
					  uint32_t cpu)
{
	uint32_t i;

	for (i = 0; n && i < n->hdr.nr_nodes; i++)
		if (cpu >= n->node[i].cpu_base &&
		    cpu - n->node[i].cpu_base < n->node[i].nr_cpus)
			return &n->node[i];
	return NULL;
}

const struct trace_node *mon_nodes_of_tid(const struct mon_nodes *n,
					  uint32_t tid)
{
	uint32_t i;

	for (i = 0; n && tid && i < n->hdr.nr_nodes; i++)
		if (n->node[i].index == tid >> TRACE_NODE_TID_SHIFT)
			return &n->node[i];
	return NULL;
}

void mon_nodes_free(struct mon_nodes *n)
{
	if (!n)
		return;
	free(n->node);
	n->node = NULL;
	n->hdr.nr_nodes = 0;
}
