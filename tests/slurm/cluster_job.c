// SPDX-License-Identifier: GPL-2.0
/*
 * cluster_job: the task check-cluster runs on every node under srun --mkm.
 *
 * It computes, sleeps, forks a child that computes, and waits for it,
 * ROUNDS times, so that a node's trace holds the task (the thread Slurm
 * forked), a thread it started and a child it forked: a trace that misses
 * either did not follow the task's threads or children from its start.
 * Its name ("cluster_job", what the traces show) is what the test looks for;
 * it prints its node, job and step.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spin.h"

#define ROUNDS 5

static void *thread_main(void *arg)
{
	(void)arg;
	spin(20);
	return NULL;
}

int main(void)
{
	const char *job = getenv("SLURM_JOB_ID"),
		   *step = getenv("SLURM_STEP_ID");
	char host[64] = "?";
	pthread_t thread;
	int status;

	gethostname(host, sizeof(host));
	for (int r = 0; r < ROUNDS; r++) {
		pid_t child;

		if (pthread_create(&thread, NULL, thread_main, NULL))
			return 1;
		spin(20);
		pthread_join(thread, NULL);
		usleep(10000);
		child = fork();
		if (child < 0)
			return 1;
		if (!child) {
			spin(10);
			_exit(0);
		}
		if (waitpid(child, &status, 0) != child || status)
			return 1;
	}
	printf("cluster_job on %s: job %s.%s: %d rounds\n", host,
	       job ? job : "?", step ? step : "?", ROUNDS);
	return 0;
}
