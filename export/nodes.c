// SPDX-License-Identifier: GPL-2.0
/*
 * nodes.c - a merged trace's nodes (mkm merge) as the stream gives them:
 * mkm merge writes its NODES before the records and again at the end
 * (the last supersedes), so a format knows each CPU's and thread's node
 * from the first record on. A one-machine trace has none: every format
 * then writes what it always did.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int nodes_keep(struct mon_nodes *n, const struct mon_msg *msg)
{
	struct trace_node *copy;

	if (msg->type != MON_MSG_NODES || !msg->nodes_hdr || !msg->nr_nodes)
		return 0;
	copy = malloc(msg->nr_nodes * sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, msg->nodes, msg->nr_nodes * sizeof(*copy));
	free(n->node);
	n->node = copy;
	n->hdr = *msg->nodes_hdr;
	n->hdr.nr_nodes = (uint32_t)msg->nr_nodes;
	return 0;
}

int nodes_pos_of_tid(const struct mon_nodes *n, uint32_t tid)
{
	const struct trace_node *node = mon_nodes_of_tid(n, tid);

	return node ? (int)(node - n->node) : -1;
}

int nodes_pos_of_cpu(const struct mon_nodes *n, uint32_t cpu)
{
	const struct trace_node *node = mon_nodes_of_cpu(n, cpu);

	return node ? (int)(node - n->node) : -1;
}

uint32_t nodes_local_tid(const struct mon_nodes *n, uint32_t tid)
{
	return n->hdr.nr_nodes ? tid & TRACE_NODE_TID_MASK : tid;
}
