// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ring_map.c - a monitor's rings read in place: each CPU's ring mapped
 * (uapi: "Reading in place"), drained with the module's own ring code
 * (kernel/ring.h), so the records, the LOST records and the reader's state
 * are what read() would have given, without a system call or a copy in
 * the kernel.
 *
 * Times: records hold the ring clock; MKM_IOC_CLOCK gives its offset to
 * CLOCK_MONOTONIC now. As read() does, each CPU keeps two such points and
 * interpolates between them (ring_clock), but takes a new one only when the
 * ring holds a record stamped more than RING_MAP_CLOCK_NS past its last
 * point: a drain of a few records then costs no system call, and a record
 * mapped past the last point is off by at most the slew over that span
 * (500 ppm of 10 ms: 5 us).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "internal.h"
#include "ring.h"
#include "ring_map.h"

#define RING_MAP_CLOCK_NS 10000000ull

struct mapped_ring {
	const struct mkm_ring *ring; /* read-only: control, reader, records */
	struct mkm_ring_reader *rd; /* the reader page, writable */
	struct ring_clock clk; /* t1/off1: the last point */
};

struct mon_ring_map {
	int fd;
	size_t ring_len;
	unsigned int nr_cpus; /* possible CPU ids */
	unsigned int next; /* where the next drain starts, for fairness */
	struct mapped_ring cpu[];
};

static int ring_map_clock(const struct mon_ring_map *m, unsigned int cpu,
			  struct ring_clock *clk)
{
	struct mkm_clock c = { .cpu = cpu };
	int r;

	do {
		r = ioctl(m->fd, MKM_IOC_CLOCK, &c);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	/* The last point becomes the first of the pair. */
	clk->t0 = clk->t1;
	clk->off0 = clk->off1;
	clk->t1 = c.time_ns;
	clk->off1 = c.offset_ns;
	return 0;
}

void mon_ring_map_close(struct mon_ring_map *m)
{
	if (!m)
		return;
	for (unsigned int i = 0; i < m->nr_cpus; i++) {
		if (m->cpu[i].ring)
			munmap((void *)m->cpu[i].ring, m->ring_len);
		if (m->cpu[i].rd)
			munmap(m->cpu[i].rd, MKM_RING_PAGE_BYTES);
	}
	free(m);
}

/*
 * The length of each CPU's ring mapping, from the kernel's own control
 * page (whatever configured the rings: this library, or a CONFIGURE
 * through monitor_fd()), found on the first CPU that has a ring.
 */
static int ring_map_len(int fd, unsigned int nr_cpus, size_t *len)
{
	for (unsigned int i = 0; i < nr_cpus; i++) {
		const struct mkm_ring_control *ctl;
		uint32_t mask;

		ctl = mmap(NULL, MKM_RING_PAGE_BYTES, PROT_READ, MAP_SHARED, fd,
			   (off_t)MKM_MMAP_RING(i));
		if (ctl == MAP_FAILED) {
			if (errno == EINVAL && i + 1 < nr_cpus)
				continue;
			return -errno;
		}
		mask = __atomic_load_n(&ctl->mask, __ATOMIC_RELAXED);
		munmap((void *)ctl, MKM_RING_PAGE_BYTES);
		*len = MKM_RING_MAP_BYTES(((size_t)mask + 1) *
					  sizeof(struct mkm_event));
		return 0;
	}
	return -EINVAL;
}

int mon_ring_map_open(int fd, unsigned int nr_cpus, struct mon_ring_map **mp)
{
	struct mon_ring_map *m;
	unsigned int mapped = 0;
	int err = 0;

	*mp = NULL;
	m = calloc(1, sizeof(*m) + nr_cpus * sizeof(m->cpu[0]));
	if (!m)
		return -ENOMEM;
	m->fd = fd;
	m->nr_cpus = nr_cpus;
	err = ring_map_len(fd, nr_cpus, &m->ring_len);
	for (unsigned int i = 0; !err && i < nr_cpus; i++) {
		off_t off = (off_t)MKM_MMAP_RING(i);
		void *ring, *rd;

		ring = mmap(NULL, m->ring_len, PROT_READ, MAP_SHARED, fd, off);
		if (ring == MAP_FAILED) {
			/* Not a possible CPU: no ring there. */
			if (errno == EINVAL && mapped)
				continue;
			err = -errno;
			break;
		}
		m->cpu[i].ring = ring;
		rd = mmap(NULL, MKM_RING_PAGE_BYTES, PROT_READ | PROT_WRITE,
			  MAP_SHARED, fd, off + MKM_RING_READER_OFFSET);
		if (rd == MAP_FAILED) {
			err = -errno;
			break;
		}
		m->cpu[i].rd = rd;
		mapped++;
	}
	if (!err)
		err = mon_ring_map_resumed(m);
	if (err) {
		mon_ring_map_close(m);
		return err;
	}
	*mp = m;
	return 0;
}

int mon_ring_map_resumed(struct mon_ring_map *m)
{
	for (unsigned int i = 0; i < m->nr_cpus; i++) {
		struct mapped_ring *c = &m->cpu[i];
		int err;

		if (!c->ring)
			continue;
		/* Both points now: the offset holds until the next one. */
		err = ring_map_clock(m, i, &c->clk);
		if (err)
			return err;
		c->clk.t0 = c->clk.t1;
		c->clk.off0 = c->clk.off1;
	}
	return 0;
}

/* Whether the ring holds anything to deliver: records, or drops to tell. */
static bool ring_map_pending(const struct mapped_ring *c, bool quiescent)
{
	return ring_buffered(c->ring) ||
	       (quiescent && READ_ONCE(c->ring->lost) != c->rd->read_lost);
}

int mon_ring_map_read(struct mon_ring_map *m, struct mkm_event *buf, size_t max,
		      bool quiescent, size_t *n, bool *lost)
{
	size_t done = 0;

	for (unsigned int i = 0; i < m->nr_cpus && done < max; i++) {
		unsigned int cpu = (m->next + i) % m->nr_cpus;
		struct mapped_ring *c = &m->cpu[cpu];
		const struct mkm_ring *r = c->ring;
		struct ring_cursor cur;
		size_t room = max - done;

		if (!r)
			continue;
		ring_see_triggers(r, c->rd);
		if (!ring_map_pending(c, quiescent))
			continue;
		u64 head = smp_load_acquire(&r->head);
		if (head != c->rd->tail &&
		    r->ev[(head - 1) & r->mask].time_ns >
			    c->clk.t1 + RING_MAP_CLOCK_NS) {
			int err = ring_map_clock(m, cpu, &c->clk);

			if (err)
				return err;
		}
		ring_cursor_start(c->rd, &cur);
		done += ring_peek_flight(r, &cur, buf + done,
					 room > UINT32_MAX ? UINT32_MAX :
							     (u32)room,
					 quiescent, (u16)cpu, &c->clk);
		/* Drops are told by LOST records only. */
		*lost |= cur.read_lost != c->rd->read_lost;
		ring_consume(c->rd, &cur);
	}
	m->next = (m->next + 1) % m->nr_cpus;
	*n = done;
	return 0;
}
