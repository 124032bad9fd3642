// SPDX-License-Identifier: GPL-2.0
/* lod.c - the viewer's level-of-detail index (see lod.h). */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lod.h"

typedef uint64_t lod_totals[TL_NR_STATES];

struct lod_thread {
	lod_totals *cum; /* cum[k]: time per state in intervals [0, (k+1)B) */
	size_t nr_blocks, cap;
};

struct lod {
	const struct tl *tl;
	struct lod_thread *th;
	size_t nr_th;
};

int lod_create(struct lod **lodp, const struct tl *tl)
{
	struct lod *lod = calloc(1, sizeof(*lod));
	int err;

	*lodp = NULL;
	if (!lod)
		return -ENOMEM;
	lod->tl = tl;
	err = lod_update(lod);
	if (err) {
		lod_destroy(lod);
		return err;
	}
	*lodp = lod;
	return 0;
}

void lod_destroy(struct lod *lod)
{
	size_t i;

	if (!lod)
		return;
	for (i = 0; i < lod->nr_th; i++)
		free(lod->th[i].cum);
	free(lod->th);
	free(lod);
}

size_t lod_bytes(const struct lod *lod)
{
	size_t i, bytes = sizeof(*lod) + lod->nr_th * sizeof(*lod->th);

	for (i = 0; i < lod->nr_th; i++)
		bytes += lod->th[i].cap * sizeof(lod_totals);
	return bytes;
}

static void add_interval(lod_totals t, const struct tl_interval *iv,
			 uint64_t until)
{
	uint64_t end = iv->end_ns < until ? iv->end_ns : until;

	if (end > iv->start_ns && iv->state < TL_NR_STATES)
		t[iv->state] += end - iv->start_ns;
}

/* Index the blocks of thread th whose intervals are all closed. */
static int update_thread(struct lod *lod, size_t th)
{
	struct lod_thread *lt = &lod->th[th];
	struct tl_interval iv[LOD_BLOCK];
	struct tl_thread t;
	size_t full, k, j;

	if (tl_thread(lod->tl, th, &t))
		return -ENOENT;
	/* A block is final once an interval follows it, or the thread ended. */
	full = t.end != TL_ALIVE ?
		       t.nr_intervals / LOD_BLOCK :
		       (t.nr_intervals ? t.nr_intervals - 1 : 0) / LOD_BLOCK;
	if (full <= lt->nr_blocks)
		return 0;
	if (full > lt->cap) {
		size_t cap = lt->cap ? lt->cap : 4;
		lod_totals *cum;

		while (cap < full)
			cap *= 2;
		cum = realloc(lt->cum, cap * sizeof(*cum));
		if (!cum)
			return -ENOMEM;
		lt->cum = cum;
		lt->cap = cap;
	}
	for (k = lt->nr_blocks; k < full; k++) {
		ssize_t n =
			tl_intervals(lod->tl, th, k * LOD_BLOCK, LOD_BLOCK, iv);

		if (k)
			memcpy(lt->cum[k], lt->cum[k - 1], sizeof(lod_totals));
		else
			memset(lt->cum[k], 0, sizeof(lod_totals));
		for (j = 0; n > 0 && j < (size_t)n; j++)
			add_interval(lt->cum[k], &iv[j], UINT64_MAX);
	}
	lt->nr_blocks = full;
	return 0;
}

int lod_update(struct lod *lod)
{
	size_t nr = tl_nr_threads(lod->tl), i;
	int err;

	if (nr > lod->nr_th) {
		struct lod_thread *th = realloc(lod->th, nr * sizeof(*th));

		if (!th)
			return -ENOMEM;
		memset(th + lod->nr_th, 0, (nr - lod->nr_th) * sizeof(*th));
		lod->th = th;
		lod->nr_th = nr;
	}
	for (i = 0; i < nr; i++) {
		err = update_thread(lod, i);
		if (err)
			return err;
	}
	return 0;
}

/* Thread th's time per state before instant t. */
static void totals_at(const struct lod *lod, size_t th, uint64_t t,
		      lod_totals out)
{
	/* A thread not indexed yet (live) is read from its first interval. */
	static const struct lod_thread none;
	const struct lod_thread *lt = th < lod->nr_th ? &lod->th[th] : &none;
	struct tl_interval iv[LOD_BLOCK];
	int64_t last = tl_interval_at(lod->tl, th, t);
	size_t k, from;

	memset(out, 0, sizeof(lod_totals));
	if (last < 0)
		return; /* before the thread's first interval, or none */
	k = (size_t)last / LOD_BLOCK;
	if (k > lt->nr_blocks)
		k = lt->nr_blocks; /* not indexed yet (live): read more */
	if (k)
		memcpy(out, lt->cum[k - 1], sizeof(lod_totals));
	for (from = k * LOD_BLOCK; from <= (size_t)last;) {
		ssize_t n = tl_intervals(lod->tl, th, from, LOD_BLOCK, iv);
		size_t j;

		if (n <= 0)
			break;
		for (j = 0; j < (size_t)n && from + j <= (size_t)last; j++)
			add_interval(out, &iv[j], t);
		from += (size_t)n;
	}
}

int lod_time(const struct lod *lod, size_t th, uint64_t a, uint64_t b,
	     uint64_t *time)
{
	lod_totals lo, hi;
	unsigned int s;

	if (th >= tl_nr_threads(lod->tl))
		return -ENOENT;
	totals_at(lod, th, a, lo);
	totals_at(lod, th, b > a ? b : a, hi);
	for (s = 0; s < TL_NR_STATES; s++)
		time[s] = hi[s] - lo[s];
	return 0;
}

int lod_group_time(const struct lod *lod, size_t th, uint64_t a, uint64_t b,
		   uint64_t *time)
{
	uint64_t state[TL_NR_STATES];
	unsigned int s;

	if (lod_time(lod, th, a, b, state))
		return -ENOENT;
	memset(time, 0, TL_NR_GROUPS * sizeof(*time));
	for (s = 0; s < TL_NR_STATES; s++)
		time[tl_state_desc(s)->group] += state[s];
	return 0;
}

/* Flutters are in time order. */
static bool flutter_before(const void *tl, size_t i, uint64_t t)
{
	struct tl_flutter f;

	tl_flutter(tl, i, &f);
	return f.time_ns < t;
}

size_t lod_first_flutter(const struct lod *lod, uint64_t t)
{
	return layout_lower_bound(tl_nr_flutters(lod->tl), flutter_before,
				  lod->tl, t);
}

int lod_row(const struct lod *lod, size_t th, uint64_t t0, uint64_t t1,
	    unsigned int width, struct layout_cell *cells)
{
	lod_totals a, b;
	unsigned int c, s;

	if (th >= tl_nr_threads(lod->tl))
		return -ENOENT;
	totals_at(lod, th, layout_column_start(t0, t1, width, 0), a);
	for (c = 0; c < width; c++) {
		uint64_t time[TL_NR_STATES];

		totals_at(lod, th, layout_column_start(t0, t1, width, c + 1),
			  b);
		for (s = 0; s < TL_NR_STATES; s++)
			time[s] = b[s] - a[s];
		cells[c] = layout_cell_of(time);
		memcpy(a, b, sizeof(a));
	}
	return 0;
}
