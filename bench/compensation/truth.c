// SPDX-License-Identifier: GPL-2.0
/* truth.c - a thread's own schedstat and the monotonic clock. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "truth.h"

uint64_t truth_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void truth_name(const char *name)
{
	prctl(PR_SET_NAME, name, 0, 0, 0);
}

int truth_self(struct truth *t, const char *name)
{
	struct timespec ts;
	char buf[128];
	ssize_t n;
	int fd;

	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->tid = gettid();
	/* open, read, close: the fewest steps between the read and the end. */
	fd = open("/proc/thread-self/schedstat", O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = 0;
	if (sscanf(buf, "%" SCNu64 " %" SCNu64 " %" SCNu64, &t->stat_run_ns,
		   &t->wait_ns, &t->slices) != 3)
		return -EINVAL;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	t->run_ns = ts.tv_sec * 1000000000ull + ts.tv_nsec;
	return 0;
}

void truth_print(FILE *f, const struct truth *t)
{
	fprintf(f,
		"thread %s %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		"\n",
		t->name, t->tid, t->run_ns, t->wait_ns, t->slices,
		t->stat_run_ns);
}
