// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_sched.bpf.c - the eBPF peer of bench-vm, kernel side: sched_switch
 * and sched_wakeup of chosen threads into a BPF ring buffer.
 *
 * What a user writes today instead of loading a module: BTF-typed
 * tracepoint programs (tp_btf: the tracepoint's own arguments, no copy
 * into a perf-style record first), compiled once and relocated by libbpf
 * against the running kernel's BTF (CO-RE). The filter is in the program:
 * the thread ids are read-only data set before the load, so the verifier
 * and JIT see constants, the cheapest filter a BPF tool can have. Records
 * go to a BPF ring buffer (one for all CPUs, reserved and committed in
 * place); a full ring drops the record and counts it in @lost. By
 * default a commit wakes the reader when it finds the ring's reader caught
 * up, which for a reader that keeps up is every record; with @wakeup_bytes
 * set, only a commit that leaves that much waiting wakes it (the reader
 * also polls on a timer).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf_sched.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader before the load; 0 marks an unused slot. */
const volatile pid_t tids[BPF_SCHED_TIDS] = {};

/* Wake the reader at this much waiting; 0: the ring buffer's default. */
const volatile __u64 wakeup_bytes = 0;

/* Records dropped because the ring was full. */
__u64 lost = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22); /* the loader sets the size */
} events SEC(".maps");

static __always_inline bool chosen(pid_t tid)
{
	bool hit = false;

#pragma unroll
	for (int i = 0; i < BPF_SCHED_TIDS; i++)
		hit |= tids[i] && tids[i] == tid;
	return hit;
}

static __always_inline struct bpf_sched_event *reserve(void)
{
	struct bpf_sched_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		__sync_fetch_and_add(&lost, 1);
	return e;
}

static __always_inline void submit(struct bpf_sched_event *e)
{
	__u64 flags = 0, waiting;

	if (wakeup_bytes) {
		waiting = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
		flags = waiting >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP :
						  BPF_RB_NO_WAKEUP;
	}
	bpf_ringbuf_submit(e, flags);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	struct bpf_sched_event *e;

	if (!chosen(prev->pid) && !chosen(next->pid))
		return 0;
	e = reserve();
	if (!e)
		return 0;
	e->time = bpf_ktime_get_ns();
	e->cpu = bpf_get_smp_processor_id();
	e->type = BPF_SCHED_SWITCH;
	e->preempt = preempt;
	e->pid = prev->pid;
	e->other = next->pid;
	e->state = prev_state;
	e->reserved = 0;
	submit(e);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct *p)
{
	struct bpf_sched_event *e;

	if (!chosen(p->pid))
		return 0;
	e = reserve();
	if (!e)
		return 0;
	e->time = bpf_ktime_get_ns();
	e->cpu = bpf_get_smp_processor_id();
	e->type = BPF_SCHED_WAKEUP;
	e->preempt = 0;
	e->pid = p->pid;
	e->other = (__s32)bpf_get_current_pid_tgid();
	e->state = p->thread_info.cpu;
	e->reserved = 0;
	submit(e);
	return 0;
}
