// SPDX-License-Identifier: GPL-2.0
/*
 * mktrace.c - writes the traces the viewer's tests and benchmark open:
 *
 *   mktrace small FILE              three threads on two CPUs over 10 ms,
 *                                   every state, a mark, a LOST gap, an exit,
 *                                   and a calibration (the K key)
 *   mktrace late FILE               the same, its first record 50 ms after
 *                                   the recording's start, as in a real
 *                                   recording (times count from the start)
 *   mktrace arm64 FILE              the same, as recorded on QEMU's arm64
 *                                   virt machine: a clock of 16 ns steps,
 *                                   a switch costing 10 ns, below one
 *   mktrace why FILE                a system-wide trace of a remote wakeup
 *                                   that waited for an IPI, a thread that
 *                                   ran to the tick and one that overtook
 *                                   (mkm view's wakeup pane)
 *   mktrace why-lost FILE           the same, with records of CPU 0 lost
 *                                   in waker's run (bounds not known)
 *   mktrace big FILE EVENTS THREADS a scheduler's worth of random switches
 *                                   on 8 CPUs (bench-view)
 *   mktrace events FILE             every event type and both kinds of
 *                                   loss on two CPUs (the exporters' tests)
 *   mktrace events-one FILE         the same as the kernel records it with
 *                                   MKM_CONFIG_ONE_SWITCH: a SWITCH_OUT and
 *                                   the SWITCH_IN of the other thread at
 *                                   its instant are one SWITCH record
 *   mktrace procs FILE              two processes attached as -p does
 *                                   (their threads' processes in a
 *                                   PROCESSES chunk), one forking a thread
 *                                   and a process (report --by-process)
 *   mktrace job DIR [bad|busy|barrier]
 *                                   the node traces of job 77 on 3 nodes
 *                                   with known clocks (../unit/synjob.h:
 *                                   offsets, drifts, a step), mkm merge's
 *                                   tests; bad: of 4 nodes, node 1's trace
 *                                   is x9's of job 78, n2's is cut, node
 *                                   3's was never written; busy: each
 *                                   CPU's two threads take turns (mkm
 *                                   view's nodes); barrier: one CPU and
 *                                   one rank a node, meeting at barriers,
 *                                   a daemon on n1 (../unit/synbarrier.h:
 *                                   mkm report --noise --barriers)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libmonitor.h"
#include "../unit/synbarrier.h"
#include "../unit/synjob.h"

#define NR_CPUS_SMALL 2
#define NR_CPUS_BIG 8
#define T0 1000000000ull /* the traces' first records are at 1 s */
#define LATE 50000000ull /* mktrace late: the start, 50 ms before T0 */

static struct trace_writer *w;
static uint32_t seq[NR_CPUS_BIG];
static bool one_switch; /* events-one */
static struct mkm_event held[NR_CPUS_BIG]; /* a SWITCH_OUT, until the next */
static bool holding[NR_CPUS_BIG];

static void die(const char *what, int err)
{
	fprintf(stderr, "mktrace: %s: %s\n", what, monitor_strerror(err));
	exit(1);
}

static bool system_wide; /* why: mkm record -a's, with the wakeup class */
static bool arm64; /* arm64: a 62.5 MHz clock, a switch finer than it */

static void open_trace(const char *path, unsigned int nr_cpus, uint64_t start)
{
	struct trace_info info = {
		.clock = 1,
		.abi_major = MKM_ABI_MAJOR,
		.abi_minor = MKM_ABI_MINOR,
		.event_size = sizeof(struct mkm_event),
		.nr_cpus = nr_cpus,
		.classes = MKM_CLASS_DEFAULT |
			   (system_wide ? MKM_CLASS_WAKEUP : 0),
		.flags = (one_switch ? MKM_CONFIG_ONE_SWITCH : 0) |
			 (system_wide ? MKM_CONFIG_SYSTEM : 0),
		.start_mono_ns = start,
	};
	int err;

	if (arm64) {
		strcpy(info.machine, "aarch64");
		info.clock_res_ps = 16000;
	}
	err = trace_writer_open(&w, path, &info);

	if (err)
		die(path, err);
}

/* Costs large enough to move the compensated view by whole columns. */
static void calibration(void)
{
	struct trace_calibration_hdr hdr = { .rounds = 300,
					     .trials = 4,
					     .kernel = "mktrace" };
	struct trace_calibration cpu[NR_CPUS_SMALL] = { { .cpu = 0 },
							{ .cpu = 1 } };
	unsigned int c, k;
	int err;

	for (c = 0; c < NR_CPUS_SMALL; c++)
		for (k = 0; k < MON_COST_NR; k++)
			cpu[c].cost[k] = (struct trace_cost){
				.mean_ps = 100000000, /* 100 us */
				.samples = 4,
				.flags = MON_COST_MEASURED,
			};
	if (arm64)
		for (c = 0; c < NR_CPUS_SMALL; c++)
			cpu[c].cost[MON_COST_SWITCH].mean_ps = 10000;
	err = trace_writer_calibration(w, &hdr, cpu, NR_CPUS_SMALL);
	if (err)
		die("calibration", err);
}

static void put(const struct mkm_event *ev)
{
	int err = trace_writer_events(w, ev, 1);

	if (err)
		die("write", err);
}

/* The SWITCH_OUT held on @cpu, if any, goes out as it is. */
static void release(unsigned int cpu)
{
	if (!holding[cpu])
		return;
	holding[cpu] = false;
	held[cpu].seq = seq[cpu]++;
	put(&held[cpu]);
}

static void emit(unsigned int cpu, uint64_t t, uint32_t tid, unsigned int type,
		 uint32_t arg0, uint32_t arg1, unsigned int flags)
{
	struct mkm_event ev = {
		.time_ns = t,
		.tid = tid,
		.cpu = (uint16_t)cpu,
		.type = (uint8_t)type,
		.flags = (uint8_t)flags,
		.arg0 = arg0,
		.arg1 = arg1,
	};
	const struct mkm_event *out = &held[cpu];

	/* events-one: the SWITCH_IN of the thread the held SWITCH_OUT
	 * named, at its instant, makes one SWITCH record with it. */
	if (holding[cpu] && type == MKM_EV_SWITCH_IN && t == out->time_ns &&
	    tid == out->arg1 && arg1 == out->tid) {
		holding[cpu] = false;
		ev.type = MKM_EV_SWITCH;
		ev.tid = out->tid;
		ev.flags = (uint8_t)(out->flags | (flags & MKM_EVF_WAIT_US) |
				     out->arg0 << MKM_EVF_STATE_SHIFT);
		ev.arg1 = tid;
		ev.seq = seq[cpu]++;
		put(&ev);
		return;
	}
	release(cpu);
	if (one_switch && type == MKM_EV_SWITCH_OUT && arg1) {
		held[cpu] = ev;
		holding[cpu] = true;
		return;
	}
	ev.seq = seq[cpu]++;
	put(&ev);
}

static void release_all(void)
{
	unsigned int c;

	for (c = 0; c < NR_CPUS_BIG; c++)
		release(c);
}

/* A thread's name, in the two NAME records the kernel would send. */
static void name(unsigned int cpu, uint64_t t, uint32_t tid, const char *s)
{
	char n[16] = { 0 };
	uint32_t part[4];

	strncpy(n, s, sizeof(n) - 1);
	memcpy(part, n, sizeof(part));
	emit(cpu, t, tid, MKM_EV_NAME, part[0], part[1], 0);
	emit(cpu, t, tid, MKM_EV_NAME, part[2], part[3], 1);
}

#define US(x) (T0 + (uint64_t)((x)*1000))

/* A thread attached (its state, the CPU it runs on or -1), then named. */
static void attach(unsigned int cpu, uint64_t t, uint32_t tid, uint32_t ts,
		   uint32_t on, const char *s)
{
	emit(cpu, t, tid, MKM_EV_ATTACH, ts, on, 0);
	name(cpu, t, tid, s);
}

/*
 * main (1001) on CPU 0: runs, sleeps 2-5 ms, woken by worker-a, waits on
 * the run queue, runs to the end, marks at 7 ms. worker-a (1002) on CPU 1:
 * runs with an IRQ, is preempted, waits on disk 6-8 ms; the records of
 * 8.5-9 ms are lost. worker-b (1003) runs on CPU 0 while main sleeps,
 * exits and is reaped.
 */
static void small(void)
{
	attach(0, US(0), 1001, MKM_TS_RUNNING, 0, "main");
	attach(1, US(0), 1002, MKM_TS_RUNNING, 1, "worker-a");
	attach(0, US(0), 1003, MKM_TS_INTERRUPTIBLE, -1, "worker-b");
	emit(1, US(1000), 1002, MKM_EV_IRQ_ENTRY, 19, 0, 0);
	emit(1, US(1100), 1002, MKM_EV_IRQ_EXIT, 19, 1, 0);
	emit(0, US(2000), 1001, MKM_EV_SWITCH_OUT, MKM_TS_INTERRUPTIBLE, 1003,
	     0);
	emit(0, US(2000), 1003, MKM_EV_WAKEUP, 0, 1001, 0);
	emit(0, US(2200), 1003, MKM_EV_SWITCH_IN, 200, 1001, 0);
	emit(1, US(3000), 1002, MKM_EV_SWITCH_OUT, MKM_TS_RUNNING, 0,
	     MKM_EVF_PREEMPTED);
	emit(1, US(3500), 1002, MKM_EV_SWITCH_IN, 500, 0, 0);
	emit(0, US(4800), 1003, MKM_EV_EXIT, 0, 0, 0);
	emit(0, US(4800), 1003, MKM_EV_SWITCH_OUT, MKM_TS_ZOMBIE, 0, 0);
	emit(1, US(5000), 1001, MKM_EV_WAKEUP, 0, 1002, 0);
	emit(0, US(5500), 1001, MKM_EV_SWITCH_IN, 500, 0, 0);
	/* To a task nobody monitors: the CPUs view names it in the gap. */
	emit(1, US(6000), 1002, MKM_EV_SWITCH_OUT, MKM_TS_UNINTERRUPTIBLE, 4242,
	     0);
	emit(0, US(6000), 1003, MKM_EV_REAP, 0, 0, 0);
	/* A chunk ends here: a trace cut after it keeps the first 6 ms. */
	release_all();
	trace_writer_horizon(w, US(6000));
	trace_writer_flush(w, 0);
	emit(0, US(7000), 1001, MKM_EV_MARK, 42, 0, 0);
	emit(1, US(8000), 1002, MKM_EV_WAKEUP, 1, 0, 0);
	emit(1, US(8000), 1002, MKM_EV_SWITCH_IN, 0, 0, 0);
	seq[1] += 3; /* three records of CPU 1 lost after 8 ms */
	emit(1, US(9000), 1002, MKM_EV_SWITCH_OUT, MKM_TS_RUNNING, 0,
	     MKM_EVF_PREEMPTED);
	emit(1, US(9200), 1002, MKM_EV_SWITCH_IN, 200, 0, 0);
	emit(0, US(10000), 1001, MKM_EV_SWITCH_OUT, MKM_TS_INTERRUPTIBLE, 0, 0);
	emit(1, US(10000), 1002, MKM_EV_SWITCH_OUT, MKM_TS_INTERRUPTIBLE, 0, 0);
}

/*
 * Why a wakeup waited (mkm view's wakeup pane), as tests/unit/test_late.c
 * has it, in milliseconds: waker (2001) runs on CPU 0 and at 1 ms wakes
 * wakee (2002), asleep on CPU 1, where holder (2003) runs; the wakeup
 * goes through CPU 1's wake list: an IPI interrupts holder at 1.2 ms and
 * wakee is queued at 1.3 ms. waker wakes overtaker (2004) there at 1.5
 * ms; the tick preempts holder at 1.95 ms, overtaker runs first and sleeps
 * at 2.5 ms, then wakee runs. At 3 ms wakee sleeps, holder runs, wakes it
 * at 3.1 ms and sleeps at 3.2 ms: wakee runs to the end.
 */
static void why(bool lose)
{
	const unsigned int vec = MKM_EVF_VECTOR;

	attach(0, US(0), 2001, MKM_TS_RUNNING, 0, "waker");
	attach(1, US(0), 2002, MKM_TS_INTERRUPTIBLE, -1, "wakee");
	attach(1, US(0), 2003, MKM_TS_RUNNING, 1, "holder");
	attach(1, US(0), 2004, MKM_TS_INTERRUPTIBLE, -1, "overtaker");
	emit(0, US(1000), 2002, MKM_EV_WAKING, 0, 2001, 0);
	emit(1, US(1200), 2003, MKM_EV_IRQ_ENTRY,
	     MKM_X86_CALL_FUNCTION_SINGLE_VECTOR, 0, vec);
	emit(1, US(1300), 2002, MKM_EV_WAKEUP, 1, 2001, 0);
	emit(1, US(1350), 2003, MKM_EV_IRQ_EXIT,
	     MKM_X86_CALL_FUNCTION_SINGLE_VECTOR, 0, vec);
	emit(0, US(1500), 2004, MKM_EV_WAKING, 0, 2001, 0);
	emit(1, US(1500), 2004, MKM_EV_WAKEUP, 1, 2001, 0);
	emit(1, US(1900), 2003, MKM_EV_IRQ_ENTRY, MKM_X86_LOCAL_TIMER_VECTOR, 0,
	     vec);
	emit(1, US(1950), 2003, MKM_EV_IRQ_EXIT, MKM_X86_LOCAL_TIMER_VECTOR, 0,
	     vec);
	emit(1, US(1950), 2003, MKM_EV_SWITCH_OUT, MKM_TS_RUNNING, 2004,
	     MKM_EVF_PREEMPTED);
	emit(1, US(1950), 2004, MKM_EV_SWITCH_IN, 450000, 2003, 0);
	emit(1, US(2500), 2004, MKM_EV_SWITCH_OUT, MKM_TS_INTERRUPTIBLE, 2002,
	     0);
	emit(1, US(2500), 2002, MKM_EV_SWITCH_IN, 1200000, 2004, 0);
	emit(1, US(3000), 2002, MKM_EV_SWITCH_OUT, MKM_TS_INTERRUPTIBLE, 2003,
	     0);
	emit(1, US(3000), 2003, MKM_EV_SWITCH_IN, 1050000, 2002, 0);
	emit(1, US(3100), 2002, MKM_EV_WAKING, 0, 2003, 0);
	emit(1, US(3100), 2002, MKM_EV_WAKEUP, 1, 2003, 0);
	emit(1, US(3200), 2003, MKM_EV_SWITCH_OUT, MKM_TS_INTERRUPTIBLE, 2002,
	     0);
	emit(1, US(3200), 2002, MKM_EV_SWITCH_IN, 100000, 2003, 0);
	if (lose)
		seq[0] += 2; /* two records of CPU 0 lost after 1.5 ms */
	emit(1, US(10000), 2002, MKM_EV_SWITCH_OUT, MKM_TS_INTERRUPTIBLE, 0, 0);
	emit(0, US(10000), 2001, MKM_EV_SWITCH_OUT, MKM_TS_INTERRUPTIBLE, 0, 0);
}

/*
 * Every event type mkm records, for the exporters' tests (tests/export).
 * parent (501) forks a thread (502) and a process (503, which execs
 * "child-exec"); wakings, wakeups, a wakeup_new, a migration, IRQs,
 * softirqs, syscalls, marks; CPU 1 loses 5 events in a LOST record, CPU 0
 * loses 2 in a hole of its seq numbers; 503 exits and is reaped, 502 is
 * detached.
 */
static void events(void)
{
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
	/* the local APIC timer: an x86 system vector, not an irq number */
	emit(1, US(43), 502, MKM_EV_IRQ_ENTRY, MKM_X86_LOCAL_TIMER_VECTOR, 0,
	     MKM_EVF_VECTOR);
	emit(1, US(44), 502, MKM_EV_IRQ_EXIT, MKM_X86_LOCAL_TIMER_VECTOR, 0,
	     MKM_EVF_VECTOR);
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
	release(1);
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
		put(&lost);
	}
	emit(1, US(95), 501, MKM_EV_SWITCH_IN, 0, 0, 0);
	emit(0, US(100), 503, MKM_EV_EXIT, 0, 0, 0);
	emit(0, US(101), 503, MKM_EV_SWITCH_OUT, MKM_TS_ZOMBIE, 502, 0);
	emit(0, US(101), 502, MKM_EV_SWITCH_IN, 10000, 503, 0);
	release(0);
	seq[0] += 2; /* CPU 0 loses two events: a hole in its seq numbers */
	emit(0, US(110), 503, MKM_EV_REAP, 0, 0, 0);
	emit(1, US(120), 501, MKM_EV_MARK, 0xffffffffu, 0xffffffffu, 0);
	emit(0, US(130), 502, MKM_EV_DETACH, MKM_DETACH_UNMONITOR, 0, 0);
	emit(1, US(140), 501, MKM_EV_SWITCH_OUT, MKM_TS_UNINTERRUPTIBLE, 0, 0);
}

/*
 * `mkm record -p 700 -p 800` as the recorder writes it: server (700, with
 * threads 701 and 702) and client (800), attached, their processes in a
 * PROCESSES chunk; client forks a thread (801) at 1 ms and a process
 * (802) at 2 ms. server's 700 runs 0-6 ms on CPU 0 and sleeps, 701 runs
 * 6-10 ms; 702 sleeps throughout. client runs on CPU 1 until 4 ms and
 * sleeps; 801 runs 4-10 ms; 802 waits on the run queue throughout.
 */
static void procs(void)
{
	const struct trace_process known[] = {
		{ 700, 700 }, { 701, 700 }, { 702, 700 }, { 800, 800 }
	};
	int err = trace_writer_processes(w, known, 4);

	if (err)
		die("processes", err);
	/* Attached from CPU 0 in the order -p met them: the viewer's first
	 * seen order is not the processes'. */
	attach(0, US(0), 700, MKM_TS_RUNNING, 0, "server");
	attach(0, US(0), 800, MKM_TS_RUNNING, 1, "client");
	attach(0, US(0), 701, MKM_TS_RUNNING, -1, "server");
	attach(0, US(0), 702, MKM_TS_INTERRUPTIBLE, -1, "server-io");
	emit(1, US(1000), 800, MKM_EV_FORK, 801, 801,
	     MKM_EVF_THREAD | MKM_EVF_INHERITED);
	name(1, US(1000), 801, "client");
	emit(1, US(2000), 800, MKM_EV_FORK, 802, 802, MKM_EVF_INHERITED);
	name(1, US(2000), 802, "client-child");
	emit(1, US(4000), 800, MKM_EV_SWITCH_OUT, MKM_TS_INTERRUPTIBLE, 801, 0);
	emit(1, US(4000), 801, MKM_EV_SWITCH_IN, 3000, 800, 0);
	emit(0, US(6000), 700, MKM_EV_SWITCH_OUT, MKM_TS_INTERRUPTIBLE, 701, 0);
	emit(0, US(6000), 701, MKM_EV_SWITCH_IN, 6000, 700, 0);
	emit(0, US(10000), 701, MKM_EV_SWITCH_OUT, MKM_TS_INTERRUPTIBLE, 0, 0);
	emit(1, US(10000), 801, MKM_EV_SWITCH_OUT, MKM_TS_INTERRUPTIBLE, 0, 0);
}

/*
 * Random switches: each CPU runs a random thread for 0.2-20 us, which
 * leaves runnable, sleeping or waiting on disk.
 */
static void big(unsigned long long events, unsigned int threads)
{
	static const uint32_t leave[] = { MKM_TS_RUNNING, MKM_TS_INTERRUPTIBLE,
					  MKM_TS_INTERRUPTIBLE,
					  MKM_TS_UNINTERRUPTIBLE };
	uint64_t now[NR_CPUS_BIG];
	unsigned int seed = 1, c, k;
	unsigned long long n = 0;

	for (c = 0; c < NR_CPUS_BIG; c++)
		now[c] = US(0);
	for (k = 0; k < threads; k++) {
		char s[24];

		snprintf(s, sizeof(s), "thread-%u", k);
		name(k % NR_CPUS_BIG, US(0), 2000 + k, s);
		n += 2;
	}
	while (n < events) {
		c = (unsigned int)rand_r(&seed) % NR_CPUS_BIG;
		k = (unsigned int)rand_r(&seed) % threads;
		now[c] += 200 + (uint64_t)rand_r(&seed) % 20000;
		emit(c, now[c], 2000 + k, MKM_EV_SWITCH_IN, 1000, 0, 0);
		now[c] += 200 + (uint64_t)rand_r(&seed) % 20000;
		emit(c, now[c], 2000 + k, MKM_EV_SWITCH_OUT,
		     leave[rand_r(&seed) % 4], 0, 0);
		n += 2;
	}
}

/* Job 77: n0 the reference, n1 5.3 s ahead and 40 ppm fast, n2 2.1 s
 * behind, 25 ppm slow, its clock stepping 3 ms forward mid-run. */
static int job(const char *dir, bool bad, bool busy)
{
	struct syn_node n[4];
	char path[512];
	size_t i;

	for (i = 0; i < 4; i++)
		n[i] = (struct syn_node){
			.name = i == 3 ? "x9" :
				i == 2 ? "n2" :
				i == 1 ? "n1" :
					 "n0",
			.node_id = i == 3 ? 3 : (uint32_t)i,
			.nr_nodes = bad ? 4 : 3,
			.job_id = i == 3 ? 78 : 77,
			.reference = i == 0,
			.reference_name = "n0",
			.nr_cpus = 2,
			.rtt_ns = 20000,
			.asym_ns = 1200,
			.periodic = 4,
			.t0_ns = 10000000000ull,
			.t1_ns = 10200000000ull,
			.period_ns = 50000,
			.busy = busy ? 100 : 0,
		};
	n[1].offset_ns = 5300000000LL;
	n[1].drift = 40e-6;
	n[2].offset_ns = -2100000000LL;
	n[2].drift = -25e-6;
	n[2].step_at_ns = 10100000000ull + 12345;
	n[2].step_ns = 3000000;
	if (bad) {
		n[1] = n[3]; /* node 1's trace: another job's */
		n[1].node_id = 1;
		n[2].cut = true;
	}
	for (i = 0; i < 3; i++) {
		long ret;

		snprintf(path, sizeof(path), "%s/%s.mkm", dir, n[i].name);
		ret = syn_write(&n[i], path);
		if (ret < 0)
			die(path, (int)ret);
	}
	return 0;
}

/* synbarrier.h's job as its nodes record it: each on its own clock. */
struct barrier_nodes {
	struct synb_out o;
	struct syn_node node[SYNB_NODES];
	struct mkm_event ev[SYNB_NODES][1024];
	size_t n[SYNB_NODES];
	uint32_t seq[SYNB_NODES];
};

static void to_node(struct synb_out *o, unsigned int node, uint64_t t,
		    unsigned int type, uint32_t tid, uint32_t a0, uint32_t a1,
		    unsigned int flags)
{
	struct barrier_nodes *b = (struct barrier_nodes *)o;
	struct mkm_event *e = &b->ev[node][b->n[node]];

	if (b->n[node] == 1024)
		die("barrier job", -ENOSPC);
	b->n[node]++;
	memset(e, 0, sizeof(*e));
	e->time_ns = syn_clock(&b->node[node], t);
	e->tid = e->unique_id = tid;
	e->seq = b->seq[node]++;
	e->type = (uint8_t)type;
	e->arg0 = a0;
	e->arg1 = a1;
	e->flags = (uint16_t)flags;
}

/* Job 77's barrier run: n1 5.3 s ahead and 40 ppm fast, n2 2.1 s behind
 * and 25 ppm slow, start and end exchanges. */
static int barrier_job(const char *dir)
{
	static struct barrier_nodes b;
	static const char *const names[] = { "n0", "n1", "n2" };
	struct trace_writer *tw;
	char path[512];
	unsigned int i;
	int ret = 0;

	for (i = 0; i < SYNB_NODES; i++)
		b.node[i] = (struct syn_node){
			.name = names[i],
			.node_id = i,
			.nr_nodes = SYNB_NODES,
			.job_id = 77,
			.reference = i == 0,
			.reference_name = "n0",
			.nr_cpus = 1,
			.rtt_ns = 20000,
			.asym_ns = 1200,
			.t0_ns = SYNB_T0,
			.t1_ns = SYNB_T0 + 20 * SYNB_PHASE,
		};
	b.node[1].offset_ns = 5300000000LL;
	b.node[1].drift = 40e-6;
	b.node[2].offset_ns = -2100000000LL;
	b.node[2].drift = -25e-6;
	b.o.emit = to_node;
	synb_job(&b.o);
	for (i = 0; i < SYNB_NODES && !ret; i++) {
		snprintf(path, sizeof(path), "%s/%s.mkm", dir, names[i]);
		ret = syn_open(&b.node[i], path, &tw);
		if (ret)
			die(path, ret);
		ret = trace_writer_events(tw, b.ev[i], b.n[i]);
		ret = syn_close(tw, &b.node[i], &b.seq[i], ret);
		if (ret)
			die(path, ret);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int err;

	if (argc == 4 && !strcmp(argv[1], "job") && !strcmp(argv[3], "barrier"))
		return barrier_job(argv[2]);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "job"))
		return job(argv[2], argc == 4 && !strcmp(argv[3], "bad"),
			   argc == 4 && !strcmp(argv[3], "busy"));

	if (argc == 3 &&
	    (!strcmp(argv[1], "small") || !strcmp(argv[1], "late") ||
	     !strcmp(argv[1], "arm64"))) {
		arm64 = !strcmp(argv[1], "arm64");
		open_trace(argv[2], NR_CPUS_SMALL,
			   !strcmp(argv[1], "late") ? T0 - LATE : T0);
		calibration();
		small();
	} else if (argc == 3 &&
		   (!strcmp(argv[1], "why") || !strcmp(argv[1], "why-lost"))) {
		system_wide = true;
		open_trace(argv[2], NR_CPUS_SMALL, T0);
		why(!strcmp(argv[1], "why-lost"));
	} else if (argc == 3 && !strcmp(argv[1], "procs")) {
		open_trace(argv[2], NR_CPUS_SMALL, T0);
		procs();
	} else if (argc == 3 && (!strcmp(argv[1], "events") ||
				 !strcmp(argv[1], "events-one"))) {
		one_switch = !strcmp(argv[1], "events-one");
		open_trace(argv[2], NR_CPUS_SMALL, T0);
		events();
		release_all();
	} else if (argc == 5 && !strcmp(argv[1], "big")) {
		open_trace(argv[2], NR_CPUS_BIG, T0);
		big(strtoull(argv[3], NULL, 0), (unsigned int)atoi(argv[4]));
	} else {
		fprintf(stderr,
			"usage: mktrace small FILE | mktrace late FILE | "
			"mktrace arm64 FILE | "
			"mktrace events FILE | mktrace events-one FILE | "
			"mktrace procs FILE | mktrace why FILE | "
			"mktrace why-lost FILE | "
			"mktrace big FILE EVENTS THREADS | "
			"mktrace job DIR [bad|busy|barrier]\n");
		return 2;
	}
	err = trace_writer_close(w);
	if (err)
		die("close", err);
	return 0;
}
