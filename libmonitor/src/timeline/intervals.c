// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * intervals.c - where a thread's intervals live. Blocks of TL_BLOCK_LEN
 * 12-byte entries hold only the start, the state and the CPU: the end is
 * the next start (or the thread's end, or the time processed so far for
 * the open one). Block 0 grows by doubling (most threads have few
 * intervals); later blocks are carved from large chunks and never move.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "timeline/timeline.h"

/*
 * A full-size block (TL_BLOCK_LEN intervals), carved from chunks that grow
 * from TL_CHUNK_MIN to TL_CHUNK_MAX; those are aligned and offered to
 * transparent huge pages: a long trace stores hundreds of MB of intervals,
 * and a page fault per 4 KiB of them cost more than a tenth of the rebuild.
 */
static struct tl_iv *block_alloc(struct tl *tl)
{
	const size_t bytes = TL_BLOCK_LEN * sizeof(struct tl_iv);
	struct tl_chunk *c = tl->chunks;
	void *p;

	if (!c || c->used + bytes > c->size) {
		size_t size = TL_CHUNK_MIN;

		if (c)
			size = c->size < TL_CHUNK_MAX ? c->size * 2 :
							TL_CHUNK_MAX;
		c = aligned_alloc(size == TL_CHUNK_MAX ? TL_CHUNK_MAX : 64,
				  size);
		if (!c)
			return NULL;
		if (size == TL_CHUNK_MAX)
			madvise(c, size, MADV_HUGEPAGE); /* a hint only */
		c->size = size;
		c->used = 64; /* blocks start on a cache line */
		c->next = tl->chunks;
		tl->chunks = c;
		tl->chunk_bytes += size;
	}
	p = (char *)c + c->used;
	c->used += bytes;
	return p;
}

/*
 * Room for one more interval. Block 0 grows by doubling from 8 entries up
 * to TL_BLOCK_LEN (most threads of a trace have few intervals); later
 * blocks are allocated full size and never move.
 */
static int iv_grow(struct tl *tl, struct tl_th *t)
{
	if (t->cap_iv < TL_BLOCK_LEN) {
		/* Streaming keeps one slot: a full one sends iv_append here. */
		size_t cap = t->cap_iv ? t->cap_iv * 2 : tl->streaming ? 1 : 8;
		struct tl_iv *b;

		if (!t->blocks) {
			t->blocks = malloc(4 * sizeof(*t->blocks));
			if (!t->blocks)
				return -ENOMEM;
			t->cap_blocks = 4;
		}
		b = realloc(t->nr_blocks ? t->blocks[0] : NULL,
			    cap * sizeof(*b));
		if (!b)
			return -ENOMEM;
		t->blocks[0] = b;
		t->nr_blocks = 1;
		t->cap_iv = cap;
		return 0;
	}
	if (t->nr_blocks == t->cap_blocks) {
		size_t cap = t->cap_blocks * 2;
		struct tl_iv **nb = realloc(t->blocks, cap * sizeof(*nb));

		if (!nb)
			return -ENOMEM;
		t->blocks = nb;
		t->cap_blocks = cap;
	}
	t->blocks[t->nr_blocks] = block_alloc(tl);
	if (!t->blocks[t->nr_blocks])
		return -ENOMEM;
	t->nr_blocks++;
	t->cap_iv += TL_BLOCK_LEN;
	return 0;
}

struct tl_iv *tl_iv_slot_slow(struct tl *tl, struct tl_th *t)
{
	struct tl_iv *iv;

	if (tl->streaming && t->nr_iv) {
		/* The closed interval went to the callback: reuse its slot. */
		t->nr_iv--;
		tl->iv_reused++;
		return t->last;
	}
	if (t->nr_iv == t->cap_iv && iv_grow(tl, t))
		return NULL;
	iv = tl_iv_at(t, t->nr_iv);
	/* Block 0 holds cap_iv until it is full size. */
	t->slot_end = t->blocks[t->nr_iv >> TL_BLOCK_SHIFT] +
		      (t->cap_iv < TL_BLOCK_LEN ? t->cap_iv : TL_BLOCK_LEN);
	return iv;
}

uint64_t tl_iv_end(const struct tl *tl, const struct tl_th *t, size_t i)
{
	if (i + 1 < t->nr_iv)
		return tl_iv_at(t, i + 1)->start;
	if (t->ended)
		return t->end;
	return tl->now > tl_iv_at(t, i)->start ? tl->now :
						 tl_iv_at(t, i)->start;
}

void tl_iv_report(struct tl *tl, size_t th, const struct tl_iv *iv,
		  uint64_t end)
{
	struct tl_interval out = {
		.start_ns = iv->start,
		.end_ns = end,
		.cpu = iv->cpu,
		.state = iv->state,
	};

	tl->cb(tl->cb_arg, th, &out);
}
