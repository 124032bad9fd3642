// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_sched.c - the eBPF peer of bench-vm, user side: loads
 * bpf_sched.bpf.c filtered to the given threads and drains its ring
 * buffer into a file until SIGINT.
 *
 *   bpf_sched [-b RING-BYTES] [-w WAKEUP-BYTES] [-o FILE] [-r FD]
 *             TID[,TID...]
 *
 * The drain is libbpf's ring_buffer__poll(): epoll on the ring, woken by
 * the kernel when a record is committed into a ring the reader had
 * emptied (libbpf-tools' way, the default submit flags), each record
 * handed to a callback that writes it out through stdio's buffer, as a
 * tool that records would. With -w, the program wakes it only once that
 * many bytes are waiting, and it polls every 100 ms besides. Once the programs are attached it writes
 * "ready" to FD (-r), so that the caller's timed run starts with the
 * programs in place. On SIGINT it drains what is left and prints, on
 * stderr, "bpf_sched: N records, M lost" (M: records the program could
 * not reserve, the ring being full).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpf_sched.h"
#include "bpf_sched.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static unsigned long long records;

static int on_record(void *ctx, void *data, size_t size)
{
	FILE *out = ctx;

	records++;
	return fwrite(data, size, 1, out) == 1 ? 0 : -EIO;
}

static void usage(void)
{
	fprintf(stderr, "usage: bpf_sched [-b RING-BYTES] [-w WAKEUP-BYTES] "
			"[-o FILE] [-r FD] TID[,TID...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long ring_bytes = 1UL << 22, wakeup_bytes = 0;
	const char *path = "/dev/null";
	struct bpf_sched_bpf *skel;
	struct ring_buffer *rb = NULL;
	int opt, ready = -1, n = 0, err;
	struct sigaction sa;
	char *tid, *end;
	FILE *out;

	while ((opt = getopt(argc, argv, "b:w:o:r:")) != -1) {
		if (opt == 'b')
			ring_bytes = strtoul(optarg, NULL, 0);
		else if (opt == 'w')
			wakeup_bytes = strtoul(optarg, NULL, 0);
		else if (opt == 'o')
			path = optarg;
		else if (opt == 'r')
			ready = atoi(optarg);
		else
			usage();
	}
	if (optind != argc - 1)
		usage();
	out = fopen(path, "we");
	if (!out) {
		fprintf(stderr, "bpf_sched: %s: %s\n", path, strerror(errno));
		return 1;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 16);
	skel = bpf_sched_bpf__open();
	if (!skel) {
		fprintf(stderr, "bpf_sched: opening the BPF object: %s\n",
			strerror(errno));
		return 1;
	}
	for (tid = strtok(argv[optind], ","); tid; tid = strtok(NULL, ",")) {
		long v = strtol(tid, &end, 10);

		if (*end || v <= 0 || n == BPF_SCHED_TIDS) {
			fprintf(stderr,
				"bpf_sched: %s: not a thread id, or "
				"more than %d\n",
				tid, BPF_SCHED_TIDS);
			return 2;
		}
		skel->rodata->tids[n++] = (pid_t)v;
	}
	skel->rodata->wakeup_bytes = wakeup_bytes;
	/* A power of two, at least a page: what the ring buffer takes. */
	err = bpf_map__set_max_entries(skel->maps.events, ring_bytes);
	if (!err)
		err = bpf_sched_bpf__load(skel);
	if (!err)
		err = bpf_sched_bpf__attach(skel);
	if (!err) {
		rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_record,
				      out, NULL);
		err = rb ? 0 : -errno;
	}
	if (err) {
		fprintf(stderr, "bpf_sched: loading the programs: %s\n",
			strerror(-err));
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (ready >= 0 && (write(ready, "ready\n", 6) != 6 || close(ready))) {
		fprintf(stderr, "bpf_sched: fd %d: %s\n", ready,
			strerror(errno));
		return 1;
	}
	while (!stop) {
		err = ring_buffer__poll(rb, wakeup_bytes ? 100 : 1000);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "bpf_sched: reading the ring: %s\n",
				strerror(-err));
			return 1;
		}
	}
	bpf_sched_bpf__detach(skel);
	ring_buffer__consume(rb);
	fclose(out);
	fprintf(stderr, "bpf_sched: %llu records, %llu lost\n", records,
		(unsigned long long)skel->bss->lost);
	ring_buffer__free(rb);
	bpf_sched_bpf__destroy(skel);
	return 0;
}
