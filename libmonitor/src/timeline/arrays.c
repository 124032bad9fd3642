// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * arrays.c - the timeline's lists (interrupt handler runs, wakes, marks,
 * flutters), grown by doubling as states.c appends to them.
 *
 * The interrupt list of a long trace reaches hundreds of MB, written once
 * in order. Past ARRAY_MAP_BYTES a list has a mapping of its own, which
 * mremap() moves to twice the size: the kernel moves the pages, nothing is
 * copied (realloc() copied the list at each doubling the heap could not
 * extend in place, faulting in the new pages as it went). From
 * ARRAY_HUGE_BYTES on, the mapping starts on a 2 MiB boundary and is
 * offered to transparent huge pages: a fault per 4 KiB page of the list
 * cost more than the state machine (half the rebuild's page faults,
 * bench-lib).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "timeline/timeline.h"

#define ARRAY_MAP_BYTES (64u << 10)
#define ARRAY_HUGE_BYTES (2u << 20)

/* A mapped list's length: whole pages. */
static size_t map_bytes(size_t cap, size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (cap * size + page - 1) & ~(page - 1);
}

/* A place for a mapping of bytes, 2 MiB aligned when that large. */
static void *map_reserve(size_t bytes)
{
	size_t extra = bytes >= ARRAY_HUGE_BYTES ? ARRAY_HUGE_BYTES : 0;
	char *p = mmap(NULL, bytes + extra, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		return NULL;
	if (!extra)
		return p;
	a = (char *)(((uintptr_t)p + extra - 1) & ~(uintptr_t)(extra - 1));
	if (a > p)
		munmap(p, (size_t)(a - p));
	munmap(a + bytes, (size_t)(p + extra - a));
	return a;
}

void *tl_array_grow(void **arr, size_t *cap, size_t size)
{
	size_t c = *cap ? *cap * 2 : 16, old = *cap * size;
	void *p;

	if (c * size < ARRAY_MAP_BYTES) {
		p = realloc(*arr, c * size);
	} else {
		size_t bytes = map_bytes(c, size);

		p = map_reserve(bytes);
		if (p && old < ARRAY_MAP_BYTES) {
			/* Out of the heap: its one copy. */
			memcpy(p, *arr, old);
			free(*arr);
		} else if (p && mremap(*arr, map_bytes(*cap, size), bytes,
				       MREMAP_MAYMOVE | MREMAP_FIXED,
				       p) == MAP_FAILED) {
			munmap(p, bytes);
			p = NULL;
		}
		if (p && bytes >= ARRAY_HUGE_BYTES)
			madvise(p, bytes, MADV_HUGEPAGE); /* a hint only */
	}
	if (!p)
		return NULL;
	*arr = p;
	*cap = c;
	return p;
}

void tl_array_free(void *arr, size_t cap, size_t size)
{
	if (cap * size < ARRAY_MAP_BYTES)
		free(arr);
	else
		munmap(arr, map_bytes(cap, size));
}
