/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * calibrate/workload.h - the work the calibration times: two threads on
 * one CPU passing a byte over pipes (every round trip is exactly two
 * context switches, MKM's overhead loop); interrupts of the calling
 * thread, one a round; and a keeper, a monitor resumed on a sleeping
 * thread that keeps mkm's probes registered without recording anything.
 */
#ifndef MON_CALIBRATE_WORKLOAD_H
#define MON_CALIBRATE_WORKLOAD_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "internal.h"

struct pingpong {
	int to_peer[2], to_main[2];
	pthread_t peer;
	pid_t peer_tid, main_tid;
	unsigned int cpu;
	bool batched; /* the caller was made SCHED_BATCH: put back at stop */
};

/* Starts the peer; both it and the caller are pinned to @cpu, and
 * SCHED_BATCH where they were SCHED_OTHER (no wakeup preempts). */
MON_HIDDEN int pingpong_start(struct pingpong *pp, unsigned int cpu);
/* Runs @rounds round trips; returns the elapsed CLOCK_MONOTONIC ns. */
MON_HIDDEN uint64_t pingpong_run(struct pingpong *pp, unsigned long rounds);
MON_HIDDEN void pingpong_stop(struct pingpong *pp);
/* Context switches of both threads so far: the kernel's count (/proc). */
MON_HIDDEN uint64_t pingpong_switches(const struct pingpong *pp);

/*
 * A one-shot timer of the calling thread's, due at once: each round, its
 * interrupt arrives while the thread spins, and the thread's own signal
 * (SIGRTMAX, its handler installed for the while) ends the round.
 */
struct irq_timer {
	timer_t id;
	struct sigaction old;
	sigset_t old_mask;
};

/* -EBUSY when the program has a handler of its own for the signal. */
MON_HIDDEN int irq_timer_start(struct irq_timer *t);
/* Runs @rounds rounds; returns the ns their interrupts took the thread
 * (each round's longest gap between two reads of CLOCK_MONOTONIC). */
MON_HIDDEN uint64_t irq_timer_run(struct irq_timer *t, unsigned long rounds);
MON_HIDDEN void irq_timer_stop(struct irq_timer *t);

struct keeper;

MON_HIDDEN int keeper_start(struct keeper **kp);
MON_HIDDEN void keeper_stop(struct keeper *k);

/* Pins the calling thread to @cpu. */
MON_HIDDEN int pin_to(unsigned int cpu);

#endif /* MON_CALIBRATE_WORKLOAD_H */
