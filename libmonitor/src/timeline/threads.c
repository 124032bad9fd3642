// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * threads.c - the thread table: one entry per timeline (a tid reused after
 * a reap starts a new one), found by tid through an open hash.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "timeline/timeline.h"

/* ---- tid -> thread map (open addressing, linear probing) ---------------- */

static int map_grow(struct tl *tl)
{
	size_t cap = tl->map_cap ? tl->map_cap * 2 : 64, i, s;
	uint32_t *key = calloc(cap, sizeof(*key));
	int64_t *val = malloc(cap * sizeof(*val));

	if (!key || !val) {
		free(key);
		free(val);
		return -ENOMEM;
	}
	for (i = 0; i < tl->map_cap; i++) {
		if (!tl->map_key[i])
			continue;
		s = tl_map_slot(tl->map_key[i], cap);
		while (key[s])
			s = (s + 1) & (cap - 1);
		key[s] = tl->map_key[i];
		val[s] = tl->map_val[i];
	}
	free(tl->map_key);
	free(tl->map_val);
	tl->map_key = key;
	tl->map_val = val;
	tl->map_cap = cap;
	return 0;
}

/* tid 0 is never a key (no thread). */
int tl_map_set(struct tl *tl, uint32_t tid, int64_t th)
{
	size_t s;
	int err;

	if ((tl->map_used + 1) * 4 > tl->map_cap * 3) {
		err = map_grow(tl);
		if (err)
			return err;
	}
	s = tl_map_slot(tid, tl->map_cap);
	while (tl->map_key[s] && tl->map_key[s] != tid)
		s = (s + 1) & (tl->map_cap - 1);
	if (!tl->map_key[s])
		tl->map_used++;
	tl->map_key[s] = tid;
	tl->map_val[s] = th;
	return 0;
}

/* ---- timelines ------------------------------------------------------- */

void tl_thread_end(struct tl *tl, struct tl_th *t, uint64_t now,
		   enum tl_end how)
{
	size_t th = (size_t)t->index;
	unsigned int k;

	if (t->ended)
		return;
	t->ended = (uint8_t)how;
	t->end = now;
	tl_process_thread_ended(tl, th);
	tl_forget_cached(tl);
	if (tl->cb && t->last && t->last->start < now)
		tl_iv_report(tl, th, t->last, now);
	for (k = 0; k < tl->nr_seen; k++) {
		struct tl_cpu *c = &tl->cpus[tl->seen[k]];

		if (c->cur == (int64_t)th)
			c->cur = NO_THREAD;
		if (c->out == (int64_t)th)
			c->out = NO_THREAD;
	}
	/* ATTACH may name a CPU not seen yet. */
	if (t->cpu < tl->nr_cpus && tl->cpus[t->cpu].cur == (int64_t)th)
		tl->cpus[t->cpu].cur = NO_THREAD;
}

/* A new timeline for tid, starting UNKNOWN at now. */
int64_t tl_thread_new(struct tl *tl, uint32_t tid, uint32_t unique_id,
		      uint64_t now, unsigned int cpu)
{
	struct tl_th *t;
	int64_t i;

	if (tl->nr_th == tl->cap_th) {
		size_t cap = tl->cap_th ? tl->cap_th * 2 : 16;
		struct tl_th *n = realloc(tl->th, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		tl->th = n;
		tl->cap_th = cap;
		tl_forget_cached(tl); /* the CPUs' cached entries moved */
	}
	i = (int64_t)tl->nr_th;
	/* tid 0 (an idle thread) is no key: tl_idle_get() finds those. */
	if (tid && tl_map_set(tl, tid, i))
		return -ENOMEM;
	t = &tl->th[i];
	memset(t, 0, sizeof(*t));
	t->index = i;
	t->tid = tid;
	t->unique_id = unique_id;
	t->parent = NO_THREAD;
	t->first = now;
	t->cpu = (uint16_t)cpu;
	t->ivcpu = (uint16_t)cpu;
	t->state = TL_UNKNOWN;
	t->run = TL_RUN;
	t->idle_cpu = -1;
	tl->nr_th++;
	tl->stats.threads = tl->nr_th;
	if (tl_process_new_thread(tl, (size_t)i)) {
		tl->nr_th--;
		return -ENOMEM;
	}
	if (tl_iv_append(tl, t, now, TL_UNKNOWN, cpu)) {
		/* Keep the thread: an empty timeline is still consistent. */
		return i;
	}
	return i;
}

int64_t tl_idle_get(struct tl *tl, unsigned int cpu, uint64_t now)
{
	int64_t i = tl->cpus[cpu].idle;
	struct tl_th *t;

	if (i != NO_THREAD)
		return i;
	i = tl_thread_new(tl, 0, cpu, now, cpu);
	if (i < 0)
		return i;
	t = &tl->th[i];
	t->idle_cpu = (int32_t)cpu;
	/* As the kernel names them (ps shows swapper/N for pid 0). */
	snprintf(t->name, sizeof(t->name), "swapper/%u", cpu);
	tl->cpus[cpu].idle = i;
	return i;
}

/*
 * The names a recorder looked up at the end (a THREADS chunk), after every
 * record: a flight recorder's window may have kept a thread's first NAME on
 * one CPU and overwritten its rename on another. So a tid's latest timeline
 * takes its name while it lives; one that ended keeps the name its records
 * gave it (its tid may name another thread since), else takes this one.
 */
int tl_threads_known(struct tl *tl, const struct trace_thread *t, size_t n)
{
	if (!tl || (n && !t))
		return -EINVAL;
	for (size_t k = 0; k < n; k++) {
		uint32_t at;

		if (!mon_u32map_get(&tl->name_map, t[k].tid, &at)) {
			if (tl->nr_names == tl->cap_names) {
				size_t cap = tl->cap_names ? 2 * tl->cap_names :
							     64;
				struct trace_thread *names =
					cap > UINT32_MAX ?
						NULL :
						realloc(tl->names,
							cap * sizeof(*names));

				if (!names)
					return -ENOMEM;
				tl->names = names;
				tl->cap_names = cap;
			}
			at = (uint32_t)tl->nr_names;
			if (mon_u32map_set(&tl->name_map, t[k].tid, at))
				return -ENOMEM;
			tl->nr_names++;
		}
		tl->names[at] = t[k];
	}
	return 0;
}

void tl_th_name(const struct tl *tl, const struct tl_th *t, char out[16])
{
	uint32_t at;

	memcpy(out, t->name, sizeof(t->name));
	if ((!out[0] || !t->ended) && t->tid &&
	    tl_map_get(tl, t->tid) == t->index &&
	    mon_u32map_get(&tl->name_map, t->tid, &at))
		memcpy(out, tl->names[at].name, sizeof(tl->names[at].name));
}
