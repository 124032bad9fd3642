// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_seed.c - writes a small valid .mkm trace (two CPUs, three threads,
 * every chunk type, a node's name and job) as the fuzzer's seed:
 * fuzz_seed FILE.
 */
#include <stdio.h>
#include <string.h>

#include "libmonitor.h"

static struct mkm_event ev[64];
static unsigned int n;
static unsigned int seq[2];

static void add(uint64_t t, unsigned int cpu, unsigned int type, uint32_t tid,
		uint32_t a0, uint32_t a1, unsigned int flags)
{
	struct mkm_event *e = &ev[n++];

	memset(e, 0, sizeof(*e));
	e->time_ns = t;
	e->cpu = (uint16_t)cpu;
	e->type = (uint8_t)type;
	e->tid = tid;
	e->unique_id = tid;
	e->seq = seq[cpu]++;
	e->arg0 = a0;
	e->arg1 = a1;
	e->flags = (uint8_t)flags;
}

int main(int argc, char **argv)
{
	struct trace_info info = { .nr_cpus = 2,
				   .classes = MKM_CLASS_ALL,
				   .node = "n1",
				   .job_id = 7,
				   .node_id = 1,
				   .nr_nodes = 2 };
	struct trace_clock_sync_hdr synh = { .node = "n1", .reference = "n0" };
	struct trace_clock_sample sync = {
		.local_ns = 90, .offset_ns = -40, .rtt_ns = 10, .error_ns = 6
	};
	struct trace_nodes_hdr nh = { .job_id = 7 };
	struct trace_node nd = { .name = "n1", .nr_cpus = 2 };
	struct trace_thread th = { 100, 100, "seed" };
	const struct trace_process proc[2] = { { 100, 100 }, { 101, 100 } };
	struct mkm_cpu_stats st[2] = { { 0 } };
	struct trace_calibration cal = { 0 };
	struct trace_calibration_hdr calh = { .kernel = "seed" };
	struct trace_writer *w;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: fuzz_seed FILE\n");
		return 2;
	}
	add(100, 0, MKM_EV_ATTACH, 100, MKM_TS_RUNNING, 0, 0);
	add(110, 0, MKM_EV_NAME, 100, 0x64656573, 0, 0);
	add(120, 0, MKM_EV_SYSCALL_ENTRY, 100, 202, 0, 0);
	add(150, 0, MKM_EV_FORK, 100, 101, 101, MKM_EVF_INHERITED);
	add(160, 0, MKM_EV_IRQ_ENTRY, 100, 5, 0, 0);
	add(170, 0, MKM_EV_IRQ_EXIT, 100, 5, 1, 0);
	add(200, 0, MKM_EV_SWITCH_OUT, 100, MKM_TS_INTERRUPTIBLE, 0, 0);
	add(100, 1, MKM_EV_ATTACH, 102, MKM_TS_INTERRUPTIBLE, ~0u, 0);
	add(155, 1, MKM_EV_WAKEUP_NEW, 101, 1, 100, 0);
	add(160, 1, MKM_EV_SWITCH_IN, 101, 0, 0, 0);
	add(250, 1, MKM_EV_WAKEUP, 100, 0, 101, 0);
	add(260, 1, MKM_EV_LOST, 0, 3, 0, 0);
	seq[1] += 2;
	add(300, 1, MKM_EV_EXIT, 101, 0, 0, 0);
	add(310, 1, MKM_EV_SWITCH_OUT, 101, MKM_TS_DEAD, 0, 0);
	add(320, 0, MKM_EV_SWITCH_IN, 100, 0, 0, 0);
	add(330, 0, MKM_EV_REAP, 101, 0, 0, 0);
	add(340, 0, MKM_EV_MARK, 100, 7, 0, 0);
	err = trace_writer_open(&w, argv[1], &info);
	if (!err)
		err = trace_writer_clock_sync(w, &synh, &sync, 1);
	if (!err)
		err = trace_writer_nodes(w, &nh, &nd, 1);
	if (!err)
		err = trace_writer_events(w, ev, 7);
	if (!err)
		err = trace_writer_horizon(w, 150);
	if (!err)
		err = trace_writer_threads(w, &th, 1);
	if (!err)
		err = trace_writer_processes(w, proc, 2);
	if (!err)
		err = trace_writer_events(w, ev + 7, n - 7);
	if (!err)
		err = trace_writer_stats(w, st, 2);
	if (!err)
		err = trace_writer_calibration(w, &calh, &cal, 1);
	if (!err)
		err = trace_writer_close(w);
	if (err) {
		fprintf(stderr, "fuzz_seed: %s: %s\n", argv[1],
			monitor_strerror(err));
		return 1;
	}
	return 0;
}
