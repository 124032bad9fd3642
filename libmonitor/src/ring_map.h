/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ring_map.h - a monitor's rings mapped and read in place (ring_map.c). */
#ifndef MON_RING_MAP_H
#define MON_RING_MAP_H

#include <stdbool.h>
#include <stddef.h>

#include <mkm.h>

#include "internal.h"

struct mon_ring_map;

/*
 * Maps the rings of CPU ids 0 .. nr_cpus - 1 of the monitor open at fd,
 * as large as the kernel made them (those of CPUs that cannot exist are
 * skipped), and takes each one's first clock point. Returns 0 or a
 * negative errno of mmap(2) or MKM_IOC_CLOCK (ENODEV, EINVAL: the module
 * cannot map them, or has no rings yet).
 */
MON_HIDDEN int mon_ring_map_open(int fd, unsigned int nr_cpus,
				 struct mon_ring_map **mp);
MON_HIDDEN void mon_ring_map_close(struct mon_ring_map *m);

/* After a resume: the clock's offset taken anew, as read() does. */
MON_HIDDEN int mon_ring_map_resumed(struct mon_ring_map *m);

/*
 * Drains up to max records into buf, as read() would: each CPU's in order,
 * LOST records in-band, cpu filled in, times on CLOCK_MONOTONIC. quiescent:
 * the monitor is suspended, so drops after the last record are told too.
 * *lost: whether a LOST record is among them (the caller's scan for them
 * is then needed; never cleared).
 */
MON_HIDDEN int mon_ring_map_read(struct mon_ring_map *m, struct mkm_event *buf,
				 size_t max, bool quiescent, size_t *n,
				 bool *lost);

#endif /* MON_RING_MAP_H */
