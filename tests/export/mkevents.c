// SPDX-License-Identifier: GPL-2.0
/*
 * mkevents.c - writes a small trace with every event type mkm records, so
 * that the exporters' tests meet each one:
 *
 *   mkevents FILE
 *
 * Two CPUs. parent (501) forks a thread (502) and a process (503, which
 * execs "child-exec"); wakings, wakeups, a wakeup_new, a migration, IRQs,
 * softirqs, syscalls, marks; CPU 1 loses 5 events in a LOST record, CPU 0
 * loses 2 in a hole of its seq numbers; 503 exits and is reaped, 502 is
 * detached.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libmonitor.h"

#define T0 5000000000ull
#define US(x) (T0 + (uint64_t)((x)*1000))

static struct trace_writer *w;
static uint32_t seq[2];

static void emit(unsigned int cpu, uint64_t t, uint32_t tid, unsigned int type,
		 uint32_t arg0, uint32_t arg1, unsigned int flags)
{
	struct mkm_event ev = {
		.time_ns = t,
		.tid = tid,
		.unique_id = tid,
		.seq = seq[cpu]++,
		.cpu = (uint16_t)cpu,
		.type = (uint8_t)type,
		.flags = (uint8_t)flags,
		.arg0 = arg0,
		.arg1 = arg1,
	};
	int err = trace_writer_events(w, &ev, 1);

	if (err) {
		fprintf(stderr, "mkevents: %s\n", monitor_strerror(err));
		exit(1);
	}
}

static void name(unsigned int cpu, uint64_t t, uint32_t tid, const char *s)
{
	char n[16] = { 0 };
	uint32_t part[4];

	strncpy(n, s, sizeof(n) - 1);
	memcpy(part, n, sizeof(part));
	emit(cpu, t, tid, MKM_EV_NAME, part[0], part[1], 0);
	emit(cpu, t, tid, MKM_EV_NAME, part[2], part[3], 1);
}

int main(int argc, char **argv)
{
	struct trace_info info = {
		.clock = 1,
		.abi_major = MKM_ABI_MAJOR,
		.abi_minor = MKM_ABI_MINOR,
		.event_size = sizeof(struct mkm_event),
		.nr_cpus = 2,
		.classes = MKM_CLASS_ALL,
		.flags = MKM_CONFIG_INHERIT,
		.start_mono_ns = T0,
		.start_real_ns = 1700000000000000000ull,
		.hostname = "mkevents",
		.kernel = "6.1.0-test",
		.machine = "x86_64",
	};
	int err;

	if (argc != 2) {
		fputs("usage: mkevents FILE\n", stderr);
		return 2;
	}
	err = trace_writer_open(&w, argv[1], &info);
	if (err) {
		fprintf(stderr, "mkevents: %s: %s\n", argv[1],
			monitor_strerror(err));
		return 1;
	}
	emit(0, US(0), 501, MKM_EV_ATTACH, MKM_TS_RUNNING, 0, 0);
	name(0, US(0), 501, "parent-process");
	emit(0, US(10), 501, MKM_EV_SYSCALL_ENTRY, 56, 0, 0);
	emit(0, US(20), 501, MKM_EV_FORK, 502, 502,
	     MKM_EVF_THREAD | MKM_EVF_INHERITED);
	name(0, US(20), 502, "parent-process");
	emit(0, US(21), 502, MKM_EV_WAKEUP_NEW, 1, 501, 0);
	emit(0, US(30), 501, MKM_EV_SYSCALL_EXIT, 56, 502, 0);
	emit(1, US(35), 502, MKM_EV_SWITCH_IN, 14000, 0, 0);
	emit(1, US(40), 502, MKM_EV_SYSCALL_ENTRY, 157, 0, 0);
	name(1, US(41), 502, "worker-thread");
	emit(1, US(42), 502, MKM_EV_SYSCALL_EXIT, 157, (uint32_t)-22, 0);
	emit(0, US(50), 501, MKM_EV_FORK, 503, 503, MKM_EVF_INHERITED);
	name(0, US(50), 503, "parent-process");
	emit(0, US(51), 503, MKM_EV_WAKEUP_NEW, 0, 501, 0);
	emit(0, US(60), 501, MKM_EV_IRQ_ENTRY, 24, 0, 0);
	emit(0, US(62), 503, MKM_EV_WAKING, 0, 0, MKM_EVF_IN_IRQ);
	emit(0, US(63), 501, MKM_EV_IRQ_EXIT, 24, 1, 0);
	emit(0, US(64), 501, MKM_EV_SOFTIRQ_ENTRY, 3, 0, 0);
	emit(0, US(66), 501, MKM_EV_SOFTIRQ_EXIT, 3, 0, 0);
	/* parent sleeps, the child process runs where it was */
	emit(0, US(70), 501, MKM_EV_SWITCH_OUT, MKM_TS_INTERRUPTIBLE, 503, 0);
	emit(0, US(70), 503, MKM_EV_SWITCH_IN, 19000, 501, 0);
	emit(0, US(75), 503, MKM_EV_EXEC, 503, 0, 0);
	name(0, US(75), 503, "child-exec");
	emit(1, US(80), 502, MKM_EV_MARK, 7, 1, 0);
	emit(1, US(85), 502, MKM_EV_WAKEUP, 0, 502, 0);
	emit(1, US(90), 502, MKM_EV_SWITCH_OUT, MKM_TS_RUNNING, 0,
	     MKM_EVF_PREEMPTED);
	emit(1, US(91), 502, MKM_EV_MIGRATE, 0, 1, 0);
	/* CPU 1 loses five events, reported in-band */
	{
		struct mkm_event lost = {
			.time_ns = US(91),
			.seq = seq[1],
			.cpu = 1,
			.type = MKM_EV_LOST,
			.arg0 = 5,
		};

		seq[1] += 5;
		trace_writer_events(w, &lost, 1);
	}
	emit(1, US(95), 501, MKM_EV_SWITCH_IN, 0, 0, 0);
	emit(0, US(100), 503, MKM_EV_EXIT, 0, 0, 0);
	emit(0, US(101), 503, MKM_EV_SWITCH_OUT, MKM_TS_ZOMBIE, 502, 0);
	emit(0, US(101), 502, MKM_EV_SWITCH_IN, 10000, 503, 0);
	seq[0] += 2; /* CPU 0 loses two events: a hole in its seq numbers */
	emit(0, US(110), 503, MKM_EV_REAP, 0, 0, 0);
	emit(1, US(120), 501, MKM_EV_MARK, 0xffffffffu, 0xffffffffu, 0);
	emit(0, US(130), 502, MKM_EV_DETACH, MKM_DETACH_UNMONITOR, 0, 0);
	emit(1, US(140), 501, MKM_EV_SWITCH_OUT, MKM_TS_UNINTERRUPTIBLE, 0, 0);
	err = trace_writer_close(w);
	if (err) {
		fprintf(stderr, "mkevents: %s\n", monitor_strerror(err));
		return 1;
	}
	return 0;
}
