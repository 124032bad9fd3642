/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_nodes.h - mkm report's per-node table of a merged trace (mkm
 * merge's, docs/cluster.md): each node's CPUs and threads, what the
 * per-CPU summaries add up to on it, and how its clock was aligned.
 */
#ifndef MKM_REPORT_NODES_H
#define MKM_REPORT_NODES_H

#include "util.h"

/* The "Per node" table; nothing when @n has no node. */
void print_nodes(const struct mon_nodes *n, const struct tl *tl,
		 const struct acct_cpu *cpus, unsigned int nr_cpus);
/* The same as a JSON array value, "[]" when there is no node. */
void json_nodes(const struct mon_nodes *n, const struct tl *tl,
		const struct acct_cpu *cpus, unsigned int nr_cpus);

#endif /* MKM_REPORT_NODES_H */
