// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong.c - cb_pingpong: two threads on one CPU passing a byte over
 * pipes, the overhead loop where mkm's cost shows most (about 78,000
 * switches per guest second under -icount, each one monitored).
 *
 *   cb_pingpong -r ROUNDS -o FILE
 *
 * Each thread reads its own schedstat as its last act (truth.h); FILE gets
 * the elapsed CLOCK_MONOTONIC of the round trips and one line per thread.
 * Not examples/common/pingpong.c: there the peer cannot record itself.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "truth.h"

static int to_peer[2], to_main[2];
static struct truth peer_truth;

static void pin0(void)
{
	cpu_set_t set;

	/* One CPU, so that every round trip is two context switches. */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *peer(void *arg)
{
	char c;

	(void)arg;
	truth_name("pp-peer");
	pin0();
	while (read(to_peer[0], &c, 1) == 1 && c)
		if (write(to_main[1], &c, 1) != 1)
			break;
	truth_self(&peer_truth, "pp-peer");
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long rounds = 0, i;
	const char *out = NULL;
	struct truth main_truth;
	uint64_t t0, t1;
	pthread_t th;
	char c = 1;
	FILE *f;
	int opt;

	while ((opt = getopt(argc, argv, "r:o:")) != -1) {
		if (opt == 'r')
			rounds = strtoul(optarg, NULL, 0);
		else if (opt == 'o')
			out = optarg;
		else
			break;
	}
	if (!rounds || !out || optind < argc) {
		fprintf(stderr, "usage: cb_pingpong -r ROUNDS -o FILE\n");
		return 2;
	}
	truth_name("pp-main");
	pin0();
	if (pipe(to_peer) || pipe(to_main) ||
	    pthread_create(&th, NULL, peer, NULL)) {
		perror("cb_pingpong");
		return 1;
	}
	t0 = truth_now();
	for (i = 0; i < rounds; i++)
		if (write(to_peer[1], &c, 1) != 1 ||
		    read(to_main[0], &c, 1) != 1)
			break;
	c = 0;
	if (write(to_peer[1], &c, 1) != 1 || pthread_join(th, NULL)) {
		perror("cb_pingpong: stop");
		return 1;
	}
	t1 = truth_now();
	truth_self(&main_truth, "pp-main");
	f = fopen(out, "w");
	if (!f) {
		perror(out);
		return 1;
	}
	fprintf(f, "workload pingpong rounds=%lu\n", i);
	fprintf(f, "elapsed %" PRIu64 "\n", t1 - t0);
	truth_print(f, &main_truth);
	truth_print(f, &peer_truth);
	return fclose(f) ? 1 : i == rounds ? 0 : 1;
}
