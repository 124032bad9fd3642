// SPDX-License-Identifier: LGPL-2.1-or-later
/* calibrate/workload.c - the ping-pong, the interrupts and the keeper
 * (workload.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calibrate/workload.h"
#include "libmonitor.h"

int pin_to(unsigned int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/*
 * SCHED_BATCH for a thread of the ping-pong: a woken batch thread does
 * not preempt its waker, so every switch is a thread going to sleep. As
 * SCHED_OTHER, a thread woken after a pause (each trial starts after
 * one) preempts its waker for some hundreds of round trips, then the
 * two settle into sleeping in turn: the figure then mixed the monitor's
 * cost with where that change fell in the "on" and the "off" trial
 * (docs/compensation.md). Only a SCHED_OTHER thread is moved; any user
 * may. Returns whether it was.
 */
static bool batch_self(void)
{
	struct sched_param prm = { 0 };

	return sched_getscheduler(0) == SCHED_OTHER &&
	       !sched_setscheduler(0, SCHED_BATCH, &prm);
}

/* The caller back to SCHED_OTHER, if batch_self() moved it. */
static void batch_end(struct pingpong *pp)
{
	struct sched_param prm = { 0 };

	if (pp->batched)
		sched_setscheduler(0, SCHED_OTHER, &prm);
	pp->batched = false;
}

static void *peer_main(void *arg)
{
	struct pingpong *pp = arg;
	char c;

	pp->peer_tid = gettid();
	pin_to(pp->cpu);
	while (read(pp->to_peer[0], &c, 1) == 1 && c)
		if (write(pp->to_main[1], &c, 1) != 1)
			break;
	return NULL;
}

static void close_pipes(struct pingpong *pp)
{
	int *fds[] = { pp->to_peer, pp->to_main };
	size_t i;

	for (i = 0; i < 2; i++) {
		if (fds[i][0] >= 0)
			close(fds[i][0]);
		if (fds[i][1] >= 0)
			close(fds[i][1]);
	}
}

int pingpong_start(struct pingpong *pp, unsigned int cpu)
{
	int ret;

	memset(pp, 0, sizeof(*pp));
	pp->to_peer[0] = pp->to_peer[1] = pp->to_main[0] = pp->to_main[1] = -1;
	pp->cpu = cpu;
	pp->main_tid = gettid();
	if (pipe2(pp->to_peer, O_CLOEXEC) || pipe2(pp->to_main, O_CLOEXEC)) {
		ret = -errno;
		goto err;
	}
	ret = pin_to(cpu);
	if (!ret) {
		pp->batched = batch_self(); /* the peer inherits it */
		ret = -pthread_create(&pp->peer, NULL, peer_main, pp);
	}
	if (ret)
		goto err;
	/* One round trip: the peer is up, pinned, and has its tid set. */
	pingpong_run(pp, 1);
	return 0;
err:
	close_pipes(pp);
	batch_end(pp);
	return ret;
}

uint64_t pingpong_run(struct pingpong *pp, unsigned long rounds)
{
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);
	char c = 1;
	unsigned long i;

	for (i = 0; i < rounds; i++)
		if (write(pp->to_peer[1], &c, 1) != 1 ||
		    read(pp->to_main[0], &c, 1) != 1)
			break;
	return now_ns(CLOCK_MONOTONIC) - t0;
}

void pingpong_stop(struct pingpong *pp)
{
	char c = 0;

	if (write(pp->to_peer[1], &c, 1) == 1)
		pthread_join(pp->peer, NULL);
	close_pipes(pp);
	batch_end(pp);
}

static uint64_t switches_of(pid_t tid)
{
	char path[64], line[128];
	uint64_t n = 0, v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %lu", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %lu", &v) == 1)
			n += v;
	fclose(f);
	return n;
}

uint64_t pingpong_switches(const struct pingpong *pp)
{
	return switches_of(pp->main_tid) + switches_of(pp->peer_tid);
}

/* The last real-time signal: glibc keeps the first ones for itself. */
#define IRQ_TIMER_SIGNAL SIGRTMAX

/* glibc names the field from 2.37 on (timer_create(2)). */
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

static volatile sig_atomic_t irq_timer_fired;

static void irq_timer_handler(int sig)
{
	(void)sig;
	irq_timer_fired = 1;
}

int irq_timer_start(struct irq_timer *t)
{
	struct sigevent ev = {
		.sigev_notify = SIGEV_THREAD_ID,
		.sigev_signo = IRQ_TIMER_SIGNAL,
	};
	struct sigaction sa = { .sa_handler = irq_timer_handler };
	sigset_t only;

	ev.sigev_notify_thread_id = gettid();
	if (sigaction(IRQ_TIMER_SIGNAL, NULL, &t->old))
		return -errno;
	/* The program's own use of the signal is left alone. */
	if (t->old.sa_handler != SIG_DFL && t->old.sa_handler != SIG_IGN)
		return -EBUSY;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&only);
	sigaddset(&only, IRQ_TIMER_SIGNAL);
	if (sigaction(IRQ_TIMER_SIGNAL, &sa, NULL))
		return -errno;
	pthread_sigmask(SIG_UNBLOCK, &only, &t->old_mask);
	if (timer_create(CLOCK_MONOTONIC, &ev, &t->id)) {
		int ret = -errno;

		pthread_sigmask(SIG_SETMASK, &t->old_mask, NULL);
		sigaction(IRQ_TIMER_SIGNAL, &t->old, NULL);
		return ret;
	}
	return 0;
}

/*
 * Due 1 ns from now, the timer is past due when it is queued: the kernel
 * programs the CPU's timer for its shortest delay, and its interrupt's
 * handler sends the signal, delivered as it returns to the spinning
 * thread. The spin reads the clock without a break but for that: the
 * round's time is the longest gap between two reads, the interrupt and
 * the signal's delivery, and not the wait for the timer, which under
 * emulation follows the host's timers.
 */
uint64_t irq_timer_run(struct irq_timer *t, unsigned long rounds)
{
	const struct itimerspec due = { .it_value = { .tv_nsec = 1 } };
	uint64_t sum = 0;
	unsigned long i;

	for (i = 0; i < rounds; i++) {
		uint64_t last, now, gap = 0;
		bool seen;

		irq_timer_fired = 0;
		/* A round not armed would leave the trial short: no time,
		 * which the figure's verdict refuses. */
		if (timer_settime(t->id, 0, &due, NULL))
			return 0;
		last = now_ns(CLOCK_MONOTONIC);
		do {
			/* The flag, then the clock: an interrupt between the
			 * two is in this gap, one after them in the next. */
			seen = irq_timer_fired;
			now = now_ns(CLOCK_MONOTONIC);
			if (now - last > gap)
				gap = now - last;
			last = now;
		} while (!seen);
		sum += gap;
	}
	return sum;
}

void irq_timer_stop(struct irq_timer *t)
{
	timer_delete(t->id);
	pthread_sigmask(SIG_SETMASK, &t->old_mask, NULL);
	sigaction(IRQ_TIMER_SIGNAL, &t->old, NULL);
}

struct keeper {
	struct monitor *mon;
	pthread_t sleeper;
	int pipe[2];
	pthread_barrier_t up;
	pid_t tid;
};

static void *sleeper_main(void *arg)
{
	struct keeper *k = arg;
	char c;

	k->tid = gettid();
	pthread_barrier_wait(&k->up);
	/* Blocks until keeper_stop(): one switch out, then silence. */
	if (read(k->pipe[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

int keeper_start(struct keeper **kp)
{
	struct keeper *k = calloc(1, sizeof(*k));
	size_t ring = MKM_RING_MIN_BYTES;
	int ret;

	*kp = NULL;
	if (!k)
		return -ENOMEM;
	if (pipe2(k->pipe, O_CLOEXEC)) {
		free(k);
		return -errno;
	}
	pthread_barrier_init(&k->up, NULL, 2);
	ret = monitor_create(&k->mon, &ring);
	if (!ret)
		ret = -pthread_create(&k->sleeper, NULL, sleeper_main, k);
	if (ret) {
		if (k->mon)
			monitor_terminate(k->mon);
		close(k->pipe[0]);
		close(k->pipe[1]);
		pthread_barrier_destroy(&k->up);
		free(k);
		return ret;
	}
	pthread_barrier_wait(&k->up);
	ret = thread_monitor(k->mon, 1, k->tid);
	if (!ret)
		ret = monitor_resume(k->mon);
	if (ret) {
		keeper_stop(k);
		return ret;
	}
	*kp = k;
	return 0;
}

void keeper_stop(struct keeper *k)
{
	if (!k)
		return;
	if (write(k->pipe[1], "q", 1) == 1)
		pthread_join(k->sleeper, NULL);
	monitor_terminate(k->mon);
	close(k->pipe[0]);
	close(k->pipe[1]);
	pthread_barrier_destroy(&k->up);
	free(k);
}
