/* SPDX-License-Identifier: GPL-2.0 */
/*
 * synjob.h - synthetic node traces of one job, with known clocks: each
 * node's clock runs at (1 + drift) the reference's rate from a known
 * offset, may change its rate once (NTP retuning it), and may step once.
 * Every record is a MARK whose value is its true time on the reference
 * clock, so a merge can be checked record by record. The clock exchanges
 * are computed from the same truth, with a chosen round trip and asymmetry
 * (the bound's and the error's sources).
 * Used by test_cluster.c and by tests/cli's mkjob.
 */
#ifndef SYNJOB_H
#define SYNJOB_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libmonitor.h"

struct syn_node {
	const char *name;
	uint32_t node_id, nr_nodes, job_id, step_id;
	bool reference; /* its clock is the reference's */
	const char *reference_name;
	int64_t offset_ns; /* node clock at reference time 0 */
	double drift; /* node rate - 1 */
	uint64_t drift_at_ns; /* reference time its rate changes (0: never) */
	double drift2; /* its rate - 1 from then on */
	uint64_t step_at_ns; /* reference time of a clock step (0: none) */
	int64_t step_ns; /* the node clock's jump */
	unsigned int nr_cpus;
	unsigned int sparse_cpu; /* 1 + a CPU with no records in the middle
				    40% of the run (0: none) */
	uint64_t rtt_ns; /* of the exchanges */
	int64_t asym_ns; /* request's one-way time minus the reply's */
	unsigned int periodic; /* exchanges between start and end */
	uint64_t t0_ns, t1_ns; /* the run, on the reference clock */
	uint64_t period_ns; /* between one CPU's records */
	bool cut; /* the file is cut at 60% (no END, no last exchange) */
	/* Threads switching: each CPU c also has thread 1100 + c, asleep at
	 * first; every @busy records the CPU's thread goes to sleep and the
	 * other runs (0: one thread a CPU, running throughout). */
	unsigned int busy;
	uint32_t own_tid; /* its recorder's thread, named in INFO (0: none) */
};

/* A thread's name in the two NAME records a kernel writes. */
static inline void syn_name(struct mkm_event *e, uint32_t tid, unsigned int c,
			    uint64_t t, uint32_t *seq, const char *s)
{
	char n[16] = { 0 };
	uint32_t part[4];
	unsigned int i;

	strncpy(n, s, sizeof(n) - 1);
	memcpy(part, n, sizeof(part));
	for (i = 0; i < 2; i++) {
		memset(&e[i], 0, sizeof(e[i]));
		e[i].time_ns = t;
		e[i].tid = e[i].unique_id = tid;
		e[i].seq = (*seq)++;
		e[i].cpu = (uint16_t)c;
		e[i].type = MKM_EV_NAME;
		e[i].arg0 = part[2 * i];
		e[i].arg1 = part[2 * i + 1];
		e[i].flags = (uint16_t)i;
	}
}

static inline uint64_t syn_clock(const struct syn_node *n, uint64_t ref)
{
	int64_t t =
		(int64_t)ref + n->offset_ns + (int64_t)((double)ref * n->drift);

	if (n->drift_at_ns && ref > n->drift_at_ns)
		t += (int64_t)((double)(ref - n->drift_at_ns) *
			       (n->drift2 - n->drift));

	if (n->step_at_ns && ref >= n->step_at_ns)
		t += n->step_ns;
	return (uint64_t)t;
}

/* The exchange a node makes when its request leaves at reference time
 * @r: as mon_clock_exchange() computes it from t1..t4. */
static inline struct trace_clock_sample syn_exchange(const struct syn_node *n,
						     uint64_t r, uint32_t kind)
{
	struct trace_clock_sample s = { .kind = kind, .rounds = 1 };
	uint64_t d1 = (uint64_t)(((int64_t)n->rtt_ns + n->asym_ns) / 2);
	uint64_t t1 = syn_clock(n, r), t2 = r + d1, t3 = t2,
		 t4 = syn_clock(n, r + n->rtt_ns);
	uint64_t rtt = (t4 - t1) - (t3 - t2);

	if (n->reference) {
		s.local_ns = syn_clock(n, r);
		return s;
	}
	s.local_ns = t1 + (t4 - t1) / 2;
	s.offset_ns = ((int64_t)(t2 - t1) + (int64_t)(t3 - t4)) / 2;
	s.rtt_ns = rtt;
	s.error_ns = (rtt + 1) / 2 + 1;
	return s;
}

static inline int syn_sync(struct trace_writer *w, const struct syn_node *n,
			   uint64_t r, uint32_t kind)
{
	struct trace_clock_sync_hdr h = { .clock = 1 };
	struct trace_clock_sample s = syn_exchange(n, r, kind);

	snprintf(h.node, sizeof(h.node), "%s", n->name);
	snprintf(h.reference, sizeof(h.reference), "%s",
		 n->reference ? n->name : n->reference_name);
	return trace_writer_clock_sync(w, &h, &s, 1);
}

/* Opens node @n's trace at @path (its INFO naming the node, job and
 * step) and writes the start exchange. Return: 0 or -errno. */
static inline int syn_open(const struct syn_node *n, const char *path,
			   struct trace_writer **w)
{
	struct trace_info info = { .nr_cpus = n->nr_cpus,
				   .classes = MKM_CLASS_ALL,
				   .ring_bytes = 1 << 20,
				   .kernel = "6.1.0-synthetic",
				   .machine = "x86_64" };
	int ret;

	snprintf(info.hostname, sizeof(info.hostname), "%s", n->name);
	snprintf(info.node, sizeof(info.node), "%s", n->name);
	info.job_id = n->job_id;
	info.step_id = n->step_id;
	info.node_id = n->node_id;
	info.nr_nodes = n->nr_nodes;
	info.start_mono_ns = syn_clock(n, n->t0_ns - 1000);
	info.start_real_ns = 1700000000000000000ull;
	if (n->own_tid) {
		info.monitor_tids[0] = n->own_tid;
		info.nr_monitor_tids = 1;
	}
	ret = trace_writer_open(w, path, &info);
	if (ret)
		return ret;
	ret = syn_sync(*w, n, n->t0_ns - 200000, TRACE_CLOCK_START);
	if (ret)
		trace_writer_close(*w);
	return ret;
}

/* Unless @ret (an error so far), writes the end exchange and each CPU's
 * counts (@seq: its records); closes @w. Return: 0 or -errno. */
static inline int syn_close(struct trace_writer *w, const struct syn_node *n,
			    const uint32_t *seq, int ret)
{
	struct mkm_cpu_stats st[64] = { { 0 } };
	unsigned int c;

	if (!ret)
		ret = syn_sync(w, n, n->t1_ns + 100000, TRACE_CLOCK_END);
	for (c = 0; c < n->nr_cpus && c < 64; c++)
		st[c].produced = st[c].read = seq[c];
	if (!ret)
		ret = trace_writer_stats(w, st, n->nr_cpus);
	if (!ret)
		return trace_writer_close(w);
	trace_writer_close(w);
	return ret;
}

/* Writes node @n's trace at @path. Return: records written, or -errno. */
static inline long syn_write(const struct syn_node *n, const char *path)
{
	const uint64_t window = 10000000; /* 10 ms of records per chunk */
	uint32_t seq[64] = { 0 }, on[64], since[64] = { 0 };
	unsigned int next_sync = 1, c;
	struct mkm_event *ev;
	struct trace_writer *w;
	size_t cap = 1 << 16, k;
	long total = 0;
	uint64_t t;
	int ret;

	ev = calloc(cap, sizeof(*ev));
	if (!ev || n->nr_cpus > 64) {
		free(ev);
		return -EINVAL;
	}
	ret = syn_open(n, path, &w);
	if (ret) {
		free(ev);
		return ret;
	}
	for (c = 0, k = 0; c < n->nr_cpus; c++, k++) {
		memset(&ev[k], 0, sizeof(ev[k]));
		ev[k].time_ns = syn_clock(n, n->t0_ns - 100000);
		ev[k].tid = ev[k].unique_id = 1000 + c;
		ev[k].seq = seq[c]++;
		ev[k].cpu = (uint16_t)c;
		ev[k].type = MKM_EV_ATTACH;
		ev[k].arg0 = MKM_TS_RUNNING;
		ev[k].arg1 = c;
		on[c] = 1000 + c;
		if (!n->busy)
			continue;
		/* Named, and the other thread attached asleep. */
		syn_name(&ev[k + 1], 1000 + c, c, ev[k].time_ns, &seq[c],
			 "rank");
		ev[k + 3] = ev[k];
		ev[k + 3].tid = ev[k + 3].unique_id = 1100 + c;
		ev[k + 3].seq = seq[c]++;
		ev[k + 3].arg0 = MKM_TS_INTERRUPTIBLE;
		ev[k + 3].arg1 = (uint32_t)-1;
		syn_name(&ev[k + 4], 1100 + c, c, ev[k].time_ns, &seq[c],
			 "progress");
		k += 5; /* six records: the loop adds the last */
	}
	if (!ret)
		ret = trace_writer_events(w, ev, k);
	total += (long)k;
	for (t = n->t0_ns; !ret && t < n->t1_ns; t += window) {
		uint64_t end = t + window < n->t1_ns ? t + window : n->t1_ns;
		uint64_t span = n->t1_ns - n->t0_ns;

		k = 0;
		for (c = 0; c < n->nr_cpus; c++) {
			/* Each CPU's phase differs, so CPUs interleave. */
			uint64_t r = t + (c * 7919 + 13) % n->period_ns;

			for (; r < end && k < cap; r += n->period_ns) {
				struct mkm_event *e = &ev[k];

				if (n->sparse_cpu == c + 1 &&
				    r > n->t0_ns + span * 3 / 10 &&
				    r < n->t0_ns + span * 7 / 10)
					continue;
				if (n->busy && ++since[c] == n->busy &&
				    k + 3 < cap) {
					uint32_t next = on[c] == 1000 + c ?
								1100 + c :
								1000 + c;

					since[c] = 0;
					memset(e, 0, 2 * sizeof(*e));
					e[0].time_ns = e[1].time_ns =
						syn_clock(n, r);
					e[0].tid = e[0].unique_id = on[c];
					e[0].seq = seq[c]++;
					e[0].cpu = e[1].cpu = (uint16_t)c;
					e[0].type = MKM_EV_SWITCH_OUT;
					e[0].arg0 = MKM_TS_INTERRUPTIBLE;
					e[0].arg1 = next;
					e[1].tid = e[1].unique_id = next;
					e[1].seq = seq[c]++;
					e[1].type = MKM_EV_SWITCH_IN;
					e[1].arg1 = on[c];
					on[c] = next;
					k += 2;
					e = &ev[k];
				}
				memset(e, 0, sizeof(*e));
				e->time_ns = syn_clock(n, r);
				e->tid = on[c];
				e->unique_id = on[c];
				e->seq = seq[c]++;
				e->cpu = (uint16_t)c;
				e->type = MKM_EV_MARK;
				e->arg0 = (uint32_t)r;
				e->arg1 = (uint32_t)(r >> 32);
				k++;
			}
		}
		ret = trace_writer_events(w, ev, k);
		total += (long)k;
		if (!ret)
			ret = trace_writer_horizon(w, syn_clock(n, end));
		if (!ret && next_sync <= n->periodic &&
		    end >= n->t0_ns + span * next_sync / (n->periodic + 1)) {
			ret = syn_sync(w, n, end, TRACE_CLOCK_PERIODIC);
			next_sync++;
		}
		if (!ret)
			ret = trace_writer_flush(w, 0);
	}
	ret = syn_close(w, n, seq, ret);
	free(ev);
	if (!ret && n->cut) {
		struct stat st;

		if (stat(path, &st) || truncate(path, st.st_size * 6 / 10))
			ret = -errno;
	}
	return ret ? ret : total;
}

/* The true reference time a merged MARK record stands for. */
static inline uint64_t syn_truth(const struct mkm_event *e)
{
	return (uint64_t)e->arg0 | (uint64_t)e->arg1 << 32;
}

#endif /* SYNJOB_H */
