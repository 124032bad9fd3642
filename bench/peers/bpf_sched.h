/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_sched.h - the record the eBPF peer's program writes to its BPF ring
 * buffer (bpf_sched.bpf.c) and its drain reads (bpf_sched.c).
 *
 * 32 bytes, as mkm's records: one per sched_switch that has a chosen
 * thread on either side (both named, as ftrace's sched_switch names
 * them), one per sched_wakeup of a chosen thread.
 */
#ifndef BPF_SCHED_H
#define BPF_SCHED_H

/* The threads the program is filtered to, at most. */
#define BPF_SCHED_TIDS 4

enum bpf_sched_type {
	BPF_SCHED_SWITCH = 1,
	BPF_SCHED_WAKEUP = 2,
};

struct bpf_sched_event {
	__u64 time; /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u32 cpu;
	__u16 type; /* enum bpf_sched_type */
	__u16 preempt; /* switch: the thread going out was preempted */
	__s32 pid; /* switch: prev; wakeup: the wakee */
	__s32 other; /* switch: next; wakeup: the waker */
	__u32 state; /* switch: prev's state; wakeup: the wakee's CPU */
	__u32 reserved;
};

#endif
