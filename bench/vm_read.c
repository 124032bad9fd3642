// SPDX-License-Identifier: GPL-2.0
/*
 * vm_read.c - how fast read() drains a full ring, in the guest.
 *
 * Runs in the test VM as root, under QEMU's -icount with one virtual CPU
 * (guest time = 2 ns per guest instruction with shift=1). A monitor's ring
 * is filled to the last record with user marks (MKM_IOC_MARK, one record
 * each, so nothing but the marks is in it), the monitor is suspended, and
 * read() drains it with a buffer of each size asked for, timed with
 * CLOCK_MONOTONIC.
 *
 * Each line of the output file is one drain:
 *   run buffer_bytes records ns reads
 * The host turns it into a table (bench/read.awk).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libmonitor.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void usage(void)
{
	fprintf(stderr, "usage: vm_read [-b RING_BYTES] [-r RUNS] "
			"[-s BUF_BYTES,...] [-o FILE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long runs = 3, r;
	uint64_t ring_bytes = 8 << 20;
	const char *out = "/out/vm_read.tsv";
	char sizes_arg[256] = "4096,65536,1048576";
	struct monitor_config cfg = { 0 };
	struct monitor *mon;
	char *buf;
	FILE *f;
	int opt, ret, fd;

	while ((opt = getopt(argc, argv, "b:r:s:o:")) != -1) {
		if (opt == 'b' && atol(optarg) > 0)
			ring_bytes = atol(optarg);
		else if (opt == 'r' && atol(optarg) > 0)
			runs = atol(optarg);
		else if (opt == 's')
			snprintf(sizes_arg, sizeof(sizes_arg), "%s", optarg);
		else if (opt == 'o')
			out = optarg;
		else
			usage();
	}
	/* All marks into one ring: CPU 0's. */
	{
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	f = fopen(out, "w");
	if (!f) {
		fprintf(stderr, "vm_read: %s: %s\n", out, strerror(errno));
		return 1;
	}
	cfg.ring_bytes = ring_bytes;
	ret = monitor_create_at(&mon, NULL, &cfg);
	if (ret) {
		fprintf(stderr, "vm_read: %s: %s\n", MKM_DEVICE,
			monitor_strerror(ret));
		return 1;
	}
	fd = monitor_fd(mon);
	buf = malloc(64 << 20);
	if (!buf)
		return 1;
	fprintf(f, "# run buffer_bytes records ns reads\n");
	for (r = 0; r < runs; r++) {
		char sizes[256], *tok, *save = NULL;

		snprintf(sizes, sizeof(sizes), "%s", sizes_arg);
		for (tok = strtok_r(sizes, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			size_t bufsz = strtoul(tok, NULL, 0);
			uint64_t cap =
				cfg.ring_bytes / sizeof(struct mkm_event);
			uint64_t i, records = 0, reads = 0, t0, t1;
			ssize_t n;

			if (bufsz < sizeof(struct mkm_event) ||
			    bufsz > (64 << 20))
				usage();
			/* Fill the ring exactly: one record per mark. */
			ret = monitor_resume(mon);
			for (i = 0; !ret && i < cap; i++)
				ret = monitor_mark(mon, i);
			if (!ret)
				ret = monitor_suspend(mon);
			if (ret) {
				fprintf(stderr, "vm_read: filling: %s\n",
					monitor_strerror(ret));
				return 1;
			}
			/* Touch the buffer: no page faults while timed. */
			memset(buf, 0, bufsz);
			t0 = now_ns();
			while ((n = read(fd, buf, bufsz)) > 0) {
				records += n / sizeof(struct mkm_event);
				reads++;
			}
			t1 = now_ns();
			if (n < 0) {
				fprintf(stderr, "vm_read: read: %s\n",
					strerror(errno));
				return 1;
			}
			fprintf(f, "%lu %zu %llu %llu %llu\n", r + 1, bufsz,
				(unsigned long long)records,
				(unsigned long long)(t1 - t0),
				(unsigned long long)reads);
			fflush(f);
		}
		printf("vm_read: run %lu of %lu done\n", r + 1, runs);
		fflush(stdout);
	}
	monitor_terminate(mon);
	fclose(f);
	return 0;
}
