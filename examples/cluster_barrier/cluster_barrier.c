// SPDX-License-Identifier: GPL-2.0
/*
 * cluster_barrier: the barrier program of BSC's study of interrupts and
 * daemons (examples/barrier) across nodes, one task per node under srun
 * --mkm (README.md; check-cluster runs it): ROUNDS rounds of a COMPUTE_MS
 * compute phase and a barrier over TCP, which rank 0 gathers (a byte from
 * each other rank) and releases (a byte to each). On the node whose id is
 * NOISE_NODE the task forks "noised", a daemon that wakes every 70 ms and
 * spins 12 ms, so that it preempts that node's rank now and then: the
 * barrier analysis (mkm noise --barriers) must name that node.
 * The daemon is the task's child so that mkm.so, which records the step's
 * tasks only, sees it.
 *
 *   cluster_barrier ROUNDS COMPUTE_MS NOISE_NODE
 *
 * The ranks find rank 0 by the step's first node name (SLURM_STEP_NODELIST)
 * on port 39000 + job % 1000 (mkm.so's exchanges use 40000 to 59999). It
 * prints its node, job, step and the rounds done.
 */
#define _GNU_SOURCE
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spin.h"

static int env_int(const char *name)
{
	const char *v = getenv(name);

	if (!v) {
		fprintf(stderr,
			"cluster_barrier: %s not set: run it under srun\n",
			name);
		exit(1);
	}
	return atoi(v);
}

/* The step's first node: "n0" of "n0,n1", "n[0-2]" or "n[0,2]". */
static void first_node(char *buf, size_t len)
{
	const char *list = getenv("SLURM_STEP_NODELIST");
	size_t k;

	snprintf(buf, len, "%s", list ? list : "n0");
	k = strcspn(buf, "[,");
	if (buf[k] == '[')
		memmove(buf + k, buf + k + 1, strlen(buf + k + 1) + 1);
	k += strspn(buf + k, "0123456789");
	buf[k] = 0;
}

static int connect_to(const char *host, int port)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM },
			*ai;
	char service[16];
	int fd, one = 1, tries;

	snprintf(service, sizeof(service), "%d", port);
	if (getaddrinfo(host, service, &hints, &ai)) {
		fprintf(stderr, "cluster_barrier: %s: unknown host\n", host);
		exit(1);
	}
	/* Rank 0 may not listen yet: try for 60 s. */
	for (tries = 0; tries < 600; tries++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd >= 0 && !connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
		usleep(100000);
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		fprintf(stderr, "cluster_barrier: cannot reach %s:%d\n", host,
			port);
		exit(1);
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* Rank 0: every other rank's connection, by rank. */
static void accept_all(int port, int *fd, int nranks)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port) };
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1, i;

	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(l, nranks)) {
		perror("cluster_barrier: listen");
		exit(1);
	}
	for (i = 1; i < nranks; i++) {
		int c = accept(l, NULL, NULL), r = 0;

		if (c < 0 || read(c, &r, sizeof(r)) != sizeof(r) || r < 1 ||
		    r >= nranks) {
			fprintf(stderr,
				"cluster_barrier: a bad rank connected\n");
			exit(1);
		}
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		fd[r] = c;
	}
	close(l);
}

static void xfer(int fd, bool out)
{
	char b = 1;

	if ((out ? write(fd, &b, 1) : read(fd, &b, 1)) != 1) {
		fprintf(stderr, "cluster_barrier: a rank went away\n");
		exit(1);
	}
}

static void barrier(int rank, int nranks, int *fd)
{
	int i;

	if (rank) {
		xfer(fd[0], true);
		xfer(fd[0], false);
		return;
	}
	for (i = 1; i < nranks; i++)
		xfer(fd[i], false);
	for (i = 1; i < nranks; i++)
		xfer(fd[i], true);
}

static pid_t start_daemon(void)
{
	pid_t pid = fork();

	if (pid < 0) { /* never kill(-1) at the end */
		perror("cluster_barrier: fork");
		exit(1);
	}
	if (pid)
		return pid;
	prctl(PR_SET_NAME, "noised");
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		usleep(70000);
		spin(12);
	}
}

int main(int argc, char **argv)
{
	int rank = env_int("SLURM_PROCID"), nranks = env_int("SLURM_NPROCS"),
	    node = env_int("SLURM_NODEID"), job = env_int("SLURM_JOB_ID");
	const char *step = getenv("SLURM_STEP_ID");
	int rounds, ms, noise_node, k, fd[64];
	pid_t daemon = 0;
	char host[64] = "?", root[64];

	if (argc != 4 || (rounds = atoi(argv[1])) <= 0 ||
	    (ms = atoi(argv[2])) <= 0) {
		fprintf(stderr,
			"usage: cluster_barrier ROUNDS COMPUTE_MS NOISE_NODE\n");
		return 2;
	}
	noise_node = atoi(argv[3]);
	if (nranks < 2 || nranks > 64) {
		fprintf(stderr, "cluster_barrier: %d ranks: 2 to 64\n", nranks);
		return 1;
	}
	gethostname(host, sizeof(host));
	prctl(PR_SET_NAME, "rank");
	first_node(root, sizeof(root));
	if (rank) {
		fd[0] = connect_to(root, 39000 + job % 1000);
		if (write(fd[0], &rank, sizeof(rank)) != sizeof(rank))
			return 1;
	} else {
		accept_all(39000 + job % 1000, fd, nranks);
	}
	if (node == noise_node)
		daemon = start_daemon();
	barrier(rank, nranks, fd);
	for (k = 0; k < rounds; k++) {
		spin(ms);
		barrier(rank, nranks, fd);
	}
	if (daemon) {
		kill(daemon, SIGKILL);
		waitpid(daemon, NULL, 0);
	}
	printf("cluster_barrier on %s: job %d.%s: rank %d of %d: %d rounds%s\n",
	       host, job, step ? step : "?", rank, nranks, rounds,
	       daemon ? ", noised beside it" : "");
	return 0;
}
