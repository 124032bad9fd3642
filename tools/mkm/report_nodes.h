/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_nodes.h - mkm report's per-node table of a merged trace (mkm
 * merge's, docs/cluster.md): each node's CPUs and threads, what the
 * per-CPU summaries add up to on it, and how its clock was aligned.
 */
#ifndef MKM_REPORT_NODES_H
#define MKM_REPORT_NODES_H

#include "libmonitor.h"
#include "mon_pipeline.h"

/* The "Per node" table; nothing when @n has no node. */
void print_nodes(const struct mon_nodes *n, const struct tl *tl,
		 const struct acct_cpu *cpus, unsigned int nr_cpus);
/* The same as a JSON array value, "[]" when there is no node. */
void json_nodes(const struct mon_nodes *n, const struct tl *tl,
		const struct acct_cpu *cpus, unsigned int nr_cpus);

/*
 * A merged trace's rows say their node: a NODE column, then the tid or
 * CPU as the node knows it (the merge's are node << 22 | tid and
 * cpu_base + cpu). On a one-machine trace (@n NULL or without nodes)
 * these print nothing and give the tid or CPU as it is.
 */
#define NODE_W 12

/* The NODE column's head. */
void print_node_head(const struct mon_nodes *n);
/* The node of merged tid @tid in the NODE column. Return: its node's tid. */
uint32_t print_node_of_tid(const struct mon_nodes *n, uint32_t tid);
/* The node of merged CPU @cpu in the NODE column. Return: its node's CPU. */
unsigned int print_node_of_cpu(const struct mon_nodes *n, unsigned int cpu);
/* Merged tid @tid as its node knows it (@tid on a one-machine trace). */
uint32_t node_tid(const struct mon_nodes *n, uint32_t tid);
/* A thread's name and tid, "rank (1000)", its node's name first on a
 * merged trace: "n1 rank (1000)". */
void node_thread_label(const struct mon_nodes *n, const struct tl_thread *t,
		       char *buf, size_t len);
/* ,"node":NAME,"node_tid":TID for merged tid @tid, to follow a JSON
 * object's "tid". */
void json_node_of_tid(const struct mon_nodes *n, uint32_t tid);

#endif /* MKM_REPORT_NODES_H */
