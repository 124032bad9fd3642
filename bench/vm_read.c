// SPDX-License-Identifier: GPL-2.0
/*
 * vm_read.c - how fast a reader drains full rings, in the guest: read(2),
 * libmonitor's monitor_read() on the mapped rings, and a bare visit of the
 * mapped records (the least a reader in place can do).
 *
 * Runs in the test VM as root, under QEMU's -icount (guest time = 2 ns per
 * guest instruction with shift=1). The rings of the first 1, 2, ... CPUs
 * (-c) are filled to the last record with user marks (MKM_IOC_MARK, one
 * record each, written on each CPU in turn), the monitor is suspended, and
 * each method drains them, with each buffer size asked for, timed with
 * CLOCK_MONOTONIC:
 *   read   read(2) of the device: the module copies each record twice
 *          (into its bounce page, then to the buffer) and maps its time;
 *   mmap   monitor_read(): the module's ring code reads the mapped ring
 *          and copies each record once, mapping its time (ring_map.c);
 *   visit  each mapped record's arg0 summed where it lies, then the slots
 *          freed: no copy, no time mapping (the buffer size is unused).
 *
 * Each line of the output file is one drain:
 *   run method cpus buffer_bytes records ns calls
 * The host turns it into a table (bench/read.awk).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libmonitor.h"
#include "ring.h"

#define MAX_CPUS 64

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void usage(void)
{
	fprintf(stderr, "usage: vm_read [-b RING_BYTES] [-r RUNS] "
			"[-s BUF_BYTES,...] [-m read,mmap,visit] "
			"[-c CPUS,...] [-o FILE]\n");
	exit(2);
}

static void die(const char *what, int err)
{
	fprintf(stderr, "vm_read: %s: %s\n", what, monitor_strerror(err));
	exit(1);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity", -errno);
}

/* The rings of CPUs 0 .. ncpus - 1, each filled exactly. */
static void fill(struct monitor *mon, unsigned int ncpus, uint64_t cap)
{
	int ret = monitor_resume(mon);

	for (unsigned int c = 0; !ret && c < ncpus; c++) {
		pin((int)c);
		for (uint64_t i = 0; !ret && i < cap; i++)
			ret = monitor_mark(mon, i);
	}
	if (!ret)
		ret = monitor_suspend(mon);
	if (ret)
		die("filling", ret);
	pin(0);
}

/* Our own mapping of each CPU's ring, for the bare visit. */
struct visit_map {
	const struct mkm_ring *ring;
	struct mkm_ring_reader *rd;
};

static void visit_map(int fd, unsigned int ncpus, uint64_t ring_bytes,
		      struct visit_map *v)
{
	for (unsigned int c = 0; c < ncpus; c++) {
		off_t off = (off_t)MKM_MMAP_RING(c);
		void *p = mmap(NULL, MKM_RING_MAP_BYTES(ring_bytes), PROT_READ,
			       MAP_SHARED, fd, off);
		void *rd = mmap(NULL, MKM_RING_PAGE_BYTES,
				PROT_READ | PROT_WRITE, MAP_SHARED, fd,
				off + MKM_RING_READER_OFFSET);

		if (p == MAP_FAILED || rd == MAP_FAILED)
			die("mmap", -errno);
		v[c].ring = p;
		v[c].rd = rd;
	}
}

static uint64_t visit(const struct visit_map *v, unsigned int ncpus,
		      uint64_t *sum)
{
	uint64_t records = 0;

	for (unsigned int c = 0; c < ncpus; c++) {
		const struct mkm_ring *r = v[c].ring;
		struct mkm_ring_reader *rd = v[c].rd;
		uint64_t head = smp_load_acquire(&r->head), tail = rd->tail;

		if (head == tail)
			continue;
		for (uint64_t p = tail; p != head; p++)
			*sum += r->ev[p & r->mask].arg0;
		/* As read() leaves the reader page: the next seq expected. */
		rd->next_seq = r->ev[(head - 1) & r->mask].seq + 1;
		rd->read += head - tail;
		smp_store_release(&rd->tail, head);
		records += head - tail;
	}
	return records;
}

int main(int argc, char **argv)
{
	unsigned long runs = 3, r;
	uint64_t ring_bytes = 8 << 20, sum = 0;
	const char *out = "/out/vm_read.tsv";
	char sizes_arg[256] = "4096,65536,1048576";
	char methods_arg[64] = "read,mmap,visit", cpus_arg[64] = "1";
	struct visit_map vmap[MAX_CPUS];
	unsigned int mapped_cpus = 0;
	struct monitor_config cfg = { 0 };
	struct monitor *mon;
	char *buf;
	FILE *f;
	int opt, ret, fd;

	while ((opt = getopt(argc, argv, "b:r:s:m:c:o:")) != -1) {
		if (opt == 'b' && atol(optarg) > 0)
			ring_bytes = atol(optarg);
		else if (opt == 'r' && atol(optarg) > 0)
			runs = atol(optarg);
		else if (opt == 's')
			snprintf(sizes_arg, sizeof(sizes_arg), "%s", optarg);
		else if (opt == 'm')
			snprintf(methods_arg, sizeof(methods_arg), "%s",
				 optarg);
		else if (opt == 'c')
			snprintf(cpus_arg, sizeof(cpus_arg), "%s", optarg);
		else if (opt == 'o')
			out = optarg;
		else
			usage();
	}
	pin(0);
	f = fopen(out, "w");
	if (!f) {
		fprintf(stderr, "vm_read: %s: %s\n", out, strerror(errno));
		return 1;
	}
	cfg.ring_bytes = ring_bytes;
	ret = monitor_create_at(&mon, NULL, &cfg);
	if (ret)
		die(MKM_DEVICE, ret);
	fd = monitor_fd(mon);
	buf = malloc(64 << 20);
	if (!buf)
		return 1;
	uint64_t cap = cfg.ring_bytes / sizeof(struct mkm_event);
	fprintf(f, "# run method cpus buffer_bytes records ns calls\n");
	for (r = 0; r < runs; r++) {
		char cpus_l[64], *ctok, *csave = NULL;

		snprintf(cpus_l, sizeof(cpus_l), "%s", cpus_arg);
		for (ctok = strtok_r(cpus_l, ",", &csave); ctok;
		     ctok = strtok_r(NULL, ",", &csave)) {
			unsigned int ncpus = (unsigned int)atoi(ctok);
			char meths[64], *mtok, *msave = NULL;

			if (!ncpus || ncpus > MAX_CPUS ||
			    ncpus > (unsigned int)sysconf(_SC_NPROCESSORS_ONLN))
				usage();
			snprintf(meths, sizeof(meths), "%s", methods_arg);
			for (mtok = strtok_r(meths, ",", &msave); mtok;
			     mtok = strtok_r(NULL, ",", &msave)) {
				char sizes[256], *tok, *save = NULL;
				int m = !strcmp(mtok, "read")  ? 0 :
					!strcmp(mtok, "mmap")  ? 1 :
					!strcmp(mtok, "visit") ? 2 :
								 -1;

				if (m < 0)
					usage();
				if (m == 2 && mapped_cpus < ncpus) {
					visit_map(fd, ncpus, cfg.ring_bytes,
						  vmap);
					mapped_cpus = ncpus;
				}
				snprintf(sizes, sizeof(sizes), "%s",
					 m == 2 ? "0" : sizes_arg);
				for (tok = strtok_r(sizes, ",", &save); tok;
				     tok = strtok_r(NULL, ",", &save)) {
					size_t bufsz = strtoul(tok, NULL, 0);
					size_t max = bufsz /
						     sizeof(struct mkm_event);
					uint64_t records = 0, calls = 0, t0, t1;
					ssize_t n = 0;
					size_t got;

					if (m != 2 &&
					    (!max || bufsz > (64 << 20)))
						usage();
					fill(mon, ncpus, cap);
					/* No page faults while timed. */
					memset(buf, 0, bufsz);
					t0 = now_ns();
					if (m == 0) {
						while ((n = read(fd, buf,
								 bufsz)) > 0) {
							records +=
								n /
								sizeof(struct mkm_event);
							calls++;
						}
					} else if (m == 1) {
						while (!(ret = monitor_read(
								 mon,
								 (void *)buf,
								 max, &got)) &&
						       got) {
							records += got;
							calls++;
						}
					} else {
						records = visit(vmap, ncpus,
								&sum);
						calls = 1;
					}
					t1 = now_ns();
					if (n < 0 || (m == 1 && ret))
						die("draining",
						    n < 0 ? -errno : ret);
					fprintf(f,
						"%lu %s %u %zu %llu %llu %llu\n",
						r + 1, mtok, ncpus, bufsz,
						(unsigned long long)records,
						(unsigned long long)(t1 - t0),
						(unsigned long long)calls);
					fflush(f);
				}
			}
		}
		printf("vm_read: run %lu of %lu done\n", r + 1, runs);
		fflush(stdout);
	}
	/* The sum keeps the visit from being optimised away. */
	printf("vm_read: visited sum %llu\n", (unsigned long long)sum);
	monitor_terminate(mon);
	fclose(f);
	return 0;
}
