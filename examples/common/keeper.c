// SPDX-License-Identifier: GPL-2.0
/* keeper.c - a resumed monitor that records nothing (see keeper.h). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "keeper.h"

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

struct keeper *keeper_start(void)
{
	struct keeper *k = calloc(1, sizeof(*k));
	int ret;

	if (!k || pipe(k->pipe))
		return NULL;
	pthread_barrier_init(&k->up, NULL, 2);
	ret = monitor_create(&k->mon, NULL);
	if (ret) {
		fprintf(stderr, "keeper: %s: %s\n", MKM_DEVICE,
			monitor_strerror(ret));
		free(k);
		return NULL;
	}
	if (pthread_create(&k->sleeper, NULL, sleeper_main, k)) {
		monitor_terminate(k->mon);
		free(k);
		return NULL;
	}
	pthread_barrier_wait(&k->up);
	ret = thread_monitor(k->mon, 1, k->tid);
	if (!ret)
		ret = monitor_resume(k->mon);
	if (ret) {
		fprintf(stderr, "keeper: %s\n", monitor_strerror(ret));
		keeper_stop(k);
		return NULL;
	}
	return k;
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
	free(k);
}
