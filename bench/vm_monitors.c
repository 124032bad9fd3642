// SPDX-License-Identifier: GPL-2.0
/*
 * vm_monitors.c - in the guest: what many monitors cost everyone else.
 *
 *   vm_monitors [N]    (default 50000)
 *
 * 1. Opens N monitors, printing the mean time of the 100 opens before the
 *    1,000th, 10,000th and N-th (a walk of every monitor per open would
 *    make them grow with the count), and the total.
 * 2. Another thread's open+close latency (median, max of 200) alone, then
 *    while a third loops CONFIGURE, which replaces its rings (allocation
 *    and a grace period) each time: held under a global lock, it would
 *    stall every open and close of the machine.
 * Times are the guest's CLOCK_MONOTONIC: compare within one run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "mkm.h"

#define SAMPLES 200

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int open_monitor(void)
{
	int fd = open(MKM_DEVICE, O_RDWR);

	if (fd < 0) {
		fprintf(stderr, "vm_monitors: open %s: %s\n", MKM_DEVICE,
			strerror(errno));
		exit(1);
	}
	return fd;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median and max of SAMPLES open+close pairs, in us. */
static void open_close_latency(const char *what)
{
	uint64_t t[SAMPLES];
	int i;

	for (i = 0; i < SAMPLES; i++) {
		uint64_t t0 = now_ns();

		close(open_monitor());
		t[i] = now_ns() - t0;
		usleep(1000);
	}
	qsort(t, SAMPLES, sizeof(t[0]), cmp_u64);
	printf("open+close %-28s median %8.1f us  max %9.1f us\n", what,
	       t[SAMPLES / 2] / 1e3, t[SAMPLES - 1] / 1e3);
}

static volatile int configuring;

static void *configure_loop(void *arg)
{
	int fd = open_monitor();
	unsigned long n = 0;
	(void)arg;

	while (configuring) {
		struct mkm_config cfg = { .ring_bytes = (n++ & 1) ? 65536 :
								    131072 };

		if (ioctl(fd, MKM_IOC_CONFIGURE, &cfg)) {
			perror("vm_monitors: CONFIGURE");
			exit(1);
		}
	}
	close(fd);
	printf("(%lu CONFIGUREs meanwhile)\n", n);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 50000;
	struct rlimit rl = { (rlim_t)n + 64, (rlim_t)n + 64 };
	static const long marks[] = { 1000, 10000 };
	uint64_t start, window = 0;
	pthread_t loop;
	int *fds;
	long i;

	if (n < 1000 || setrlimit(RLIMIT_NOFILE, &rl)) {
		fprintf(stderr, "usage: vm_monitors [N >= 1000] (as root)\n");
		return 2;
	}
	fds = calloc((size_t)n, sizeof(*fds));
	if (!fds)
		return 1;
	start = now_ns();
	for (i = 0; i < n; i++) {
		uint64_t t0 = now_ns();

		fds[i] = open_monitor();
		if (i % 1000 >= 900 || i >= n - 100)
			window += now_ns() - t0;
		if (i + 1 == marks[0] || i + 1 == marks[1] || i + 1 == n) {
			printf("open %6ld monitors: %8.1f us per open (the last 100)\n",
			       i + 1, window / 100 / 1e3);
		}
		if (i % 1000 == 999)
			window = 0;
	}
	printf("opened %ld monitors in %.2f s\n", n, (now_ns() - start) / 1e9);
	start = now_ns();
	for (i = 0; i < n; i++)
		close(fds[i]);
	printf("closed them in %.2f s\n", (now_ns() - start) / 1e9);

	open_close_latency("alone");
	configuring = 1;
	if (pthread_create(&loop, NULL, configure_loop, NULL))
		return 1;
	usleep(100000);
	open_close_latency("beside a CONFIGURE loop");
	configuring = 0;
	pthread_join(loop, NULL);
	return 0;
}
