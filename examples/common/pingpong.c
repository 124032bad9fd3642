// SPDX-License-Identifier: GPL-2.0
/* pingpong.c - the two-thread pipe ping-pong of the overhead experiments. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pingpong.h"

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

static void *peer_main(void *arg)
{
	struct pingpong *pp = arg;
	char c;

	pp->peer_tid = gettid();
	pin(pp->cpu);
	while (read(pp->to_peer[0], &c, 1) == 1 && c)
		if (write(pp->to_main[1], &c, 1) != 1)
			break;
	return NULL;
}

int pingpong_start(struct pingpong *pp, int cpu)
{
	int ret;

	memset(pp, 0, sizeof(*pp));
	pp->cpu = cpu;
	pp->main_tid = gettid();
	if (pipe(pp->to_peer) || pipe(pp->to_main))
		return -errno;
	ret = pin(cpu);
	if (ret)
		return ret;
	ret = -pthread_create(&pp->peer, NULL, peer_main, pp);
	if (ret)
		return ret;
	/* One round trip: the peer is up and has its tid set. */
	pingpong_run(pp, 1);
	return 0;
}

uint64_t pingpong_run(struct pingpong *pp, unsigned long rounds)
{
	struct timespec a, b;
	char c = 1;
	unsigned long i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < rounds; i++)
		if (write(pp->to_peer[1], &c, 1) != 1 ||
		    read(pp->to_main[0], &c, 1) != 1)
			break;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a.tv_sec) * 1000000000ull + b.tv_nsec - a.tv_nsec;
}

void pingpong_stop(struct pingpong *pp)
{
	char c = 0;

	if (write(pp->to_peer[1], &c, 1) == 1)
		pthread_join(pp->peer, NULL);
	close(pp->to_peer[0]);
	close(pp->to_peer[1]);
	close(pp->to_main[0]);
	close(pp->to_main[1]);
}

static uint64_t switches_of(pid_t tid)
{
	char path[64], line[128];
	uint64_t n = 0, v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "r");
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

void pingpong_options(int argc, char **argv, const char *prog,
		      unsigned long *rounds, unsigned long *trials)
{
	int opt;

	while ((opt = getopt(argc, argv, "r:n:")) != -1) {
		if (opt == 'r' && atol(optarg) > 0) {
			*rounds = atol(optarg);
		} else if (opt == 'n' && atol(optarg) > 1) {
			*trials = atol(optarg);
		} else {
			fprintf(stderr, "usage: %s [-r ROUNDS] [-n TRIALS]\n",
				prog);
			exit(2);
		}
	}
}
