// SPDX-License-Identifier: GPL-2.0
/*
 * timeit.c - cb_time: run a command and write the CLOCK_MONOTONIC time
 * from its fork to its reaping, the elapsed time of a workload that keeps
 * no clock of its own (matmul, hackbench) and the span mkm's record of the
 * same process covers (its first event, the fork, to its exit).
 *
 *   cb_time -o FILE -- CMD [ARGS...]
 *
 * FILE gets "elapsed NS", "pid PID", "status STATUS" and "run NS", the
 * CPU time of the whole process tree (wait4's rusage: the process and every
 * child it reaped), which the kernel makes sum_exec_runtime exactly, exit
 * paths included; cb_time exits with the command's status.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "truth.h"

int main(int argc, char **argv)
{
	const char *out = NULL;
	struct rusage ru;
	int opt, status;
	uint64_t t0, t1;
	pid_t pid;
	FILE *f;

	while ((opt = getopt(argc, argv, "+o:")) != -1) {
		if (opt != 'o')
			goto usage;
		out = optarg;
	}
	if (!out || optind >= argc)
		goto usage;
	truth_name("cb_time");
	t0 = truth_now();
	pid = fork();
	if (pid < 0) {
		perror("cb_time: fork");
		return 1;
	}
	if (!pid) {
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid) {
		perror("cb_time: wait4");
		return 1;
	}
	t1 = truth_now();
	f = fopen(out, "w");
	if (!f) {
		perror(out);
		return 1;
	}
	fprintf(f, "elapsed %" PRIu64 "\npid %d\nstatus %d\nrun %" PRIu64 "\n",
		t1 - t0, (int)pid, status,
		(uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
				1000000000 +
			(uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) *
				1000);
	if (fclose(f))
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
usage:
	fprintf(stderr, "usage: cb_time -o FILE -- CMD [ARGS...]\n");
	return 2;
}
