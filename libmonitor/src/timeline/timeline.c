// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * timeline.c - the timeline builder: records in (merge.c), per-thread
 * gap-free microstate intervals out (states.c, stored by intervals.c);
 * this file holds the object's life and its queries.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "timeline/timeline.h"

/* ---- creation ---------------------------------------------------------- */

int tl_cpus_grow(struct tl *tl, unsigned int n)
{
	struct tl_cpu *c;
	unsigned int i, cap;

	if (n <= tl->nr_cpus)
		return 0;
	if (n > TL_MAX_CPUS)
		return -EINVAL;
	cap = tl->nr_cpus ? tl->nr_cpus : 4;
	while (cap < n)
		cap *= 2;
	if (cap > TL_MAX_CPUS)
		cap = TL_MAX_CPUS;
	{
		unsigned int *seen = realloc(tl->seen, cap * sizeof(*seen));
		struct tl_src *src;

		if (!seen)
			return -ENOMEM;
		tl->seen = seen;
		src = realloc(tl->src,
			      (cap > TL_MERGE_SMALL ? cap : TL_MERGE_SMALL) *
				      sizeof(*src));
		if (!src)
			return -ENOMEM;
		tl->src = src;
	}
	c = realloc(tl->cpus, (size_t)cap * sizeof(*c));
	if (!c)
		return -ENOMEM;
	memset(c + tl->nr_cpus, 0, (size_t)(cap - tl->nr_cpus) * sizeof(*c));
	for (i = tl->nr_cpus; i < cap; i++) {
		c[i].cur = NO_THREAD;
		c[i].out = NO_THREAD;
		c[i].idle = NO_THREAD;
	}
	tl->cpus = c;
	tl->nr_cpus = cap;
	return 0;
}

int tl_create(struct tl **tlp, const struct tl_config *cfg)
{
	struct tl_config def = { 0 };
	struct tl *tl;
	int err;

	if (!tlp)
		return -EINVAL;
	*tlp = NULL;
	if (!cfg)
		cfg = &def;
	if ((cfg->flags & ~(TL_STREAMING | TL_IDLE | TL_WINDOW)) ||
	    (cfg->classes & ~MKM_CLASS_ALL) || cfg->nr_cpus > TL_MAX_CPUS)
		return -EINVAL;
	tl = calloc(1, sizeof(*tl));
	if (!tl)
		return -ENOMEM;
	tl->cfg = *cfg;
	tl->streaming = cfg->flags & TL_STREAMING;
	tl->idle = cfg->flags & TL_IDLE;
	tl->window = cfg->flags & TL_WINDOW;
	if (!tl->cfg.classes)
		tl->cfg.classes = MKM_CLASS_DEFAULT;
	tl->syscalls = tl->cfg.classes & MKM_CLASS_SYSCALL;
	err = tl_cpus_grow(tl, cfg->nr_cpus ? cfg->nr_cpus : 1);
	if (err) {
		free(tl);
		return err;
	}
	tl->max_cpu = cfg->nr_cpus;
	*tlp = tl;
	return 0;
}

void tl_destroy(struct tl *tl)
{
	size_t i;

	if (!tl)
		return;
	for (i = 0; i < tl->nr_cpus; i++)
		free(tl->cpus[i].q);
	for (i = 0; i < tl->nr_th; i++) {
		/* Block 0 is malloc'd; the others live in chunks. */
		if (tl->th[i].nr_blocks)
			free(tl->th[i].blocks[0]);
		free(tl->th[i].blocks);
	}
	while (tl->chunks) {
		struct tl_chunk *c = tl->chunks;

		tl->chunks = c->next;
		free(c);
	}
	free(tl->cpus);
	free(tl->seen);
	free(tl->src);
	free(tl->th);
	free(tl->map_key);
	free(tl->map_val);
	free(tl->procs);
	mon_u32map_free(&tl->proc_map);
	mon_u32map_free(&tl->hints);
	mon_u32map_free(&tl->name_map);
	free(tl->names);
	tl_array_free(tl->marks, tl->cap_marks, sizeof(*tl->marks));
	tl_array_free(tl->flutters, tl->cap_flutters, sizeof(*tl->flutters));
	tl_array_free(tl->wakes, tl->cap_wakes, sizeof(*tl->wakes));
	tl_array_free(tl->irqs, tl->cap_irqs, sizeof(*tl->irqs));
	free(tl);
}

int tl_set_callback(struct tl *tl, tl_interval_cb cb, void *arg)
{
	if (!tl)
		return -EINVAL;
	tl->cb = cb;
	tl->cb_arg = arg;
	return 0;
}

/* ---- queries ---------------------------------------------------------- */

size_t tl_nr_threads(const struct tl *tl)
{
	return tl ? tl->nr_th : 0;
}

unsigned int tl_nr_cpus(const struct tl *tl)
{
	return tl ? tl->max_cpu : 0;
}

int tl_thread(const struct tl *tl, size_t th, struct tl_thread *out)
{
	const struct tl_th *t;

	if (!tl || !out)
		return -EINVAL;
	if (th >= tl->nr_th)
		return -ENOENT;
	t = &tl->th[th];
	memset(out, 0, sizeof(*out));
	out->tid = t->tid;
	out->unique_id = t->unique_id;
	out->parent = t->parent;
	tl_th_name(tl, t, out->name);
	out->state = t->state;
	out->end = t->ended;
	out->first_ns = t->first;
	out->end_ns = t->nr_iv ? tl_iv_end(tl, t, t->nr_iv - 1) : t->first;
	out->nr_intervals = t->nr_iv;
	out->switches = t->switches;
	out->flutters = t->flutters;
	out->anomalies = t->anomalies;
	out->idle_cpu = t->idle_cpu;
	out->tgid = t->tgid;
	out->process = t->process;
	return 0;
}

int64_t tl_idle_thread(const struct tl *tl, unsigned int cpu)
{
	if (!tl)
		return -EINVAL;
	if (cpu >= tl->nr_cpus || tl->cpus[cpu].idle == NO_THREAD)
		return -ENOENT;
	return tl->cpus[cpu].idle;
}

size_t tl_nr_irqs(const struct tl *tl)
{
	return tl ? tl->nr_irqs : 0;
}

int tl_irq(const struct tl *tl, size_t i, struct tl_irq *out)
{
	if (!tl || !out)
		return -EINVAL;
	if (i >= tl->nr_irqs)
		return -ENOENT;
	*out = tl->irqs[i];
	return 0;
}

/* A flag that changes how records are read: before the first one only. */
static int set_before_feeding(struct tl *tl, bool *flag)
{
	if (tl->nr_th || tl->stats.events || tl->pending)
		return -EBUSY;
	*flag = true;
	return 0;
}

int tl_set_idle(struct tl *tl)
{
	return tl ? set_before_feeding(tl, &tl->idle) : -EINVAL;
}

int tl_set_window(struct tl *tl)
{
	return tl ? set_before_feeding(tl, &tl->window) : -EINVAL;
}

int64_t tl_find(const struct tl *tl, uint32_t tid)
{
	int64_t i;

	if (!tl)
		return -EINVAL;
	i = tl_map_get(tl, tid);
	if (i == NO_THREAD || tl->th[i].tid != tid)
		return -ENOENT;
	return i;
}

int tl_interval(const struct tl *tl, size_t th, size_t i,
		struct tl_interval *out)
{
	const struct tl_th *t;
	const struct tl_iv *iv;

	if (!tl || !out)
		return -EINVAL;
	if (th >= tl->nr_th || i >= tl->th[th].nr_iv)
		return -ENOENT;
	t = &tl->th[th];
	iv = tl_iv_at(t, i);
	memset(out, 0, sizeof(*out));
	out->start_ns = iv->start;
	out->end_ns = tl_iv_end(tl, t, i);
	out->cpu = iv->cpu;
	out->state = iv->state;
	out->open = i + 1 == t->nr_iv && !t->ended;
	return 0;
}

ssize_t tl_intervals(const struct tl *tl, size_t th, size_t first, size_t n,
		     struct tl_interval *out)
{
	const struct tl_th *t;
	size_t i;

	if (!tl || (n && !out))
		return -EINVAL;
	if (th >= tl->nr_th)
		return -ENOENT;
	t = &tl->th[th];
	if (first >= t->nr_iv)
		return 0;
	if (n > t->nr_iv - first)
		n = t->nr_iv - first;
	for (i = 0; i < n; i++) {
		const struct tl_iv *iv = tl_iv_at(t, first + i);

		out[i] = (struct tl_interval){
			.start_ns = iv->start,
			.end_ns = first + i + 1 < t->nr_iv ?
					  tl_iv_at(t, first + i + 1)->start :
					  tl_iv_end(tl, t, first + i),
			.cpu = iv->cpu,
			.state = iv->state,
			.open = first + i + 1 == t->nr_iv && !t->ended,
		};
	}
	return (ssize_t)n;
}

int64_t tl_interval_at(const struct tl *tl, size_t th, uint64_t t_ns)
{
	const struct tl_th *t;
	size_t lo = 0, hi;

	if (!tl)
		return -EINVAL;
	if (th >= tl->nr_th || !tl->th[th].nr_iv)
		return -ENOENT;
	t = &tl->th[th];
	if (t_ns < tl_iv_at(t, 0)->start)
		return -ERANGE;
	/* The last interval starting at or before t_ns: in [lo, hi). */
	hi = t->nr_iv;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (tl_iv_at(t, mid)->start <= t_ns)
			lo = mid;
		else
			hi = mid;
	}
	return (int64_t)lo;
}

int tl_stats(const struct tl *tl, struct tl_stats *out)
{
	size_t i;

	if (!tl || !out)
		return -EINVAL;
	*out = tl->stats;
	/* Counted by each thread: the hot path does not count them again. */
	out->intervals = tl->iv_reused;
	for (i = 0; i < tl->nr_th; i++)
		out->intervals += tl->th[i].nr_iv;
	out->now_ns = tl->now;
	out->threads = tl->nr_th;
	out->pending = tl->pending;
	return 0;
}

int tl_memory(const struct tl *tl, struct tl_memory *out)
{
	size_t i;

	if (!tl || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (i = 0; i < tl->nr_th; i++)
		out->interval_bytes +=
			(tl->th[i].cap_iv < TL_BLOCK_LEN ? tl->th[i].cap_iv :
							   TL_BLOCK_LEN) *
				sizeof(struct tl_iv) +
			tl->th[i].cap_blocks * sizeof(struct tl_iv *);
	/* Chunks whole, their unused tails included. */
	out->interval_bytes += tl->chunk_bytes;
	out->thread_bytes = tl->cap_th * sizeof(struct tl_th) +
			    tl->map_cap * (sizeof(uint32_t) + sizeof(int64_t));
	for (i = 0; i < tl->nr_cpus; i++)
		out->queue_bytes += tl->cpus[i].cap * sizeof(struct mkm_event);
	out->queue_bytes += tl->nr_cpus * sizeof(struct tl_cpu);
	out->total_bytes = out->interval_bytes + out->thread_bytes +
			   out->queue_bytes + sizeof(*tl) +
			   tl->cap_marks * sizeof(struct tl_mark) +
			   tl->cap_flutters * sizeof(struct tl_flutter) +
			   tl->cap_wakes * sizeof(struct tl_wake) +
			   tl->cap_irqs * sizeof(struct tl_irq);
	return 0;
}

size_t tl_nr_marks(const struct tl *tl)
{
	return tl ? tl->nr_marks : 0;
}

int tl_mark(const struct tl *tl, size_t i, struct tl_mark *out)
{
	if (!tl || !out)
		return -EINVAL;
	if (i >= tl->nr_marks)
		return -ENOENT;
	*out = tl->marks[i];
	return 0;
}

size_t tl_nr_flutters(const struct tl *tl)
{
	return tl ? tl->nr_flutters : 0;
}

int tl_flutter(const struct tl *tl, size_t i, struct tl_flutter *out)
{
	if (!tl || !out)
		return -EINVAL;
	if (i >= tl->nr_flutters)
		return -ENOENT;
	*out = tl->flutters[i];
	return 0;
}

size_t tl_nr_wakes(const struct tl *tl)
{
	return tl ? tl->nr_wakes : 0;
}

int tl_wake(const struct tl *tl, size_t i, struct tl_wake *out)
{
	if (!tl || !out)
		return -EINVAL;
	if (i >= tl->nr_wakes)
		return -ENOENT;
	*out = tl->wakes[i];
	return 0;
}

int tl_wake_at(const struct tl *tl, size_t th, uint64_t t_ns,
	       struct tl_wake *out)
{
	size_t lo = 0, hi, i;

	if (!tl || !out)
		return -EINVAL;
	hi = tl->nr_wakes;
	while (lo < hi) { /* the first wake at or after t_ns */
		size_t mid = lo + (hi - lo) / 2;

		if (tl->wakes[mid].time_ns < t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Several threads may be woken at one instant. */
	for (i = lo; i < tl->nr_wakes && tl->wakes[i].time_ns == t_ns; i++) {
		if (tl->wakes[i].thread == th) {
			*out = tl->wakes[i];
			return 0;
		}
	}
	return -ENOENT;
}
