// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bounds.c - a compensated figure's bounds as a consumer takes them: the
 * parts added, the elapsed time of a command, and the bounds a compensated
 * trace carries (its BOUNDS chunk; mon_pipeline.h says what they cover).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mon_pipeline.h"

int mon_bound_total(const struct trace_bounds *b, unsigned int figure,
		    struct trace_bound *out)
{
	unsigned int k;

	if (!b || !out || figure >= TRACE_BOUND_FIGURES)
		return -EINVAL;
	*out = (struct trace_bound){ 0 };
	for (k = 0; k < TRACE_BOUND_PARTS; k++) {
		out->below_ns += b->part[k][figure].below_ns;
		out->above_ns += b->part[k][figure].above_ns;
	}
	return 0;
}

int mon_bound_elapsed(const struct trace_bounds *first,
		      const struct trace_bounds *last, struct trace_bound *out)
{
	struct trace_bound s, e;

	if (!first || !last || !out)
		return -EINVAL;
	mon_bound_total(first, TRACE_BOUND_START, &s);
	mon_bound_total(last, TRACE_BOUND_END, &e);
	/* end - start: lower when the end is lower or the start higher. */
	out->below_ns = e.below_ns + s.above_ns;
	out->above_ns = e.above_ns + s.below_ns;
	return 0;
}

/* A BOUNDS chunk, in place of any before it: the last one holds. */
static int keep(const struct trace_chunk *c, void *arg)
{
	struct mon_bounds *out = arg;
	struct trace_bounds *b;

	if (!c->bounds)
		return 0; /* another layout */
	b = malloc((c->nr_bounds + 1) * sizeof(*b));
	if (!b)
		return -ENOMEM;
	memcpy(b, c->bounds, c->nr_bounds * sizeof(*b));
	free(out->b);
	out->b = b;
	out->n = c->nr_bounds;
	return 0;
}

int mon_bounds_load(struct mon_bounds *out, const char *path)
{
	int ret;

	if (!out || !path)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	ret = mon_trace_each_chunk(path, TRACE_CHUNK_BOUNDS, keep, out);
	if (ret == -ENOMEM) {
		mon_bounds_free(out);
		return ret;
	}
	if (out->b)
		return 0;
	return ret ? ret : -ENOENT;
}

static int cmp_tid(const void *key, const void *elem)
{
	uint32_t k = *(const uint32_t *)key;
	uint32_t t = ((const struct trace_bounds *)elem)->tid;

	return k < t ? -1 : k > t;
}

const struct trace_bounds *mon_bounds_find(const struct mon_bounds *bs,
					   uint32_t tid)
{
	if (!bs || !bs->b)
		return NULL;
	return bsearch(&tid, bs->b, bs->n, sizeof(*bs->b), cmp_tid);
}

void mon_bounds_free(struct mon_bounds *bs)
{
	if (!bs)
		return;
	free(bs->b);
	bs->b = NULL;
	bs->n = 0;
}
