/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pingpong.h - two threads on one CPU passing a byte over pipes: every round
 * trip is exactly two context switches, the MKM paper's overhead loop.
 */
#ifndef MKM_EXAMPLES_PINGPONG_H
#define MKM_EXAMPLES_PINGPONG_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

struct pingpong {
	int to_peer[2], to_main[2];
	pthread_t peer;
	pid_t peer_tid, main_tid;
	int cpu;
};

/* Starts the peer; both threads are pinned to cpu. Returns 0 or -errno. */
int pingpong_start(struct pingpong *pp, int cpu);
/* Runs rounds round trips; returns the elapsed CLOCK_MONOTONIC ns. */
uint64_t pingpong_run(struct pingpong *pp, unsigned long rounds);
void pingpong_stop(struct pingpong *pp);
/* Context switches of both threads so far, from /proc (the kernel's count). */
uint64_t pingpong_switches(const struct pingpong *pp);

/*
 * Parses the experiments' -r ROUNDS (round trips per trial) and -n TRIALS,
 * keeping the defaults given; prints the usage of prog and exits 2 on error.
 */
void pingpong_options(int argc, char **argv, const char *prog,
		      unsigned long *rounds, unsigned long *trials);

#endif /* MKM_EXAMPLES_PINGPONG_H */
