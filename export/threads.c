// SPDX-License-Identifier: GPL-2.0
/*
 * threads.c - the exporters' table of threads: names and thread groups as
 * the stream reveals them. Other formats want a comm in every scheduling
 * event and a process for every thread; mkm records a name once (NAME at
 * attach, exec, fork, rename) and a process only in a FORK or in the
 * PROCESSES chunk (the threads attached), so the exporters carry them
 * forward here, by the timeline's rule: a fork's child's process as
 * tl_fork_tgid() says, else PROCESSES's, else one of its own. An
 * open-addressing hash by tid: one probe per record.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static size_t slot_of(uint32_t tid, size_t cap)
{
	return (tid * 2654435761u) & (cap - 1);
}

static int grow(struct threads *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256, i;
	struct thread_info *s = calloc(cap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++) {
		size_t j;

		if (!t->slot[i].tid)
			continue;
		for (j = slot_of(t->slot[i].tid, cap); s[j].tid;
		     j = (j + 1) & (cap - 1))
			;
		s[j] = t->slot[i];
	}
	free(t->slot);
	t->slot = s;
	t->cap = cap;
	return 0;
}

struct thread_info *threads_get(struct threads *t, uint32_t tid)
{
	size_t i;

	struct thread_info *ti = threads_find(t, tid);

	/* tid 0 (idle, or a task outside the namespace) is never stored. */
	if (ti || !tid)
		return ti;
	if ((t->nr + 1) * 2 > t->cap && grow(t))
		return NULL;
	for (i = slot_of(tid, t->cap); t->slot[i].tid;
	     i = (i + 1) & (t->cap - 1))
		;
	t->slot[i].tid = tid;
	t->slot[i].tgid = tid;
	t->nr++;
	return &t->slot[i];
}

static void set_comm(struct thread_info *ti, const char *s, size_t n)
{
	char c[16] = { 0 };

	memcpy(c, s, n < 15 ? n : 15);
	if (strcmp(c, ti->comm)) {
		memcpy(ti->comm, c, sizeof(c));
		ti->named = true;
	}
}

struct thread_info *threads_learn(struct threads *t, const struct mkm_event *e,
				  int *err)
{
	struct thread_info *ti, *child;
	char s[16];

	switch (e->type) {
	case MKM_EV_NAME:
		ti = threads_get(t, e->tid);
		if (!ti)
			break;
		/* Two records: bytes 0-7 (flags 0), then 8-15 (flags 1). */
		if (!e->flags) {
			memcpy(ti->half, &e->arg0, 4);
			memcpy(ti->half + 4, &e->arg1, 4);
			return NULL;
		}
		memcpy(s, ti->half, 8);
		memcpy(s + 8, &e->arg0, 4);
		memcpy(s + 12, &e->arg1, 4);
		set_comm(ti, s, strnlen(s, sizeof(s)));
		return ti->named ? ti : NULL;
	case MKM_EV_FORK:
		ti = threads_get(t, e->tid);
		if (!ti)
			break;
		{
			uint32_t tgid = ti->tgid;
			char comm[16];

			memcpy(comm, ti->comm, sizeof(comm));
			child = threads_get(t, e->arg0);
			if (!child)
				break;
			child->tgid = tl_fork_tgid(e, tgid);
			child->tgid_known = true;
			/* A child runs under its parent's name until exec. */
			if (!child->comm[0] && comm[0])
				set_comm(child, comm, strlen(comm));
			return child->named ? child : NULL;
		}
	default:
		return NULL;
	}
	if (err)
		*err = -ENOMEM;
	return NULL;
}

int threads_names(struct threads *t, const struct trace_thread *th, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct thread_info *ti = threads_get(t, th[i].tid);

		if (th[i].tid && !ti)
			return -ENOMEM;
		if (ti && !ti->comm[0])
			set_comm(ti, th[i].name,
				 strnlen(th[i].name, sizeof(th[i].name)));
	}
	return 0;
}

int threads_processes(struct threads *t, const struct trace_process *p,
		      size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct thread_info *ti = threads_get(t, p[i].tid);

		if (p[i].tid && !ti)
			return -ENOMEM;
		/* A FORK seen before the entry knows better. */
		if (ti && !ti->tgid_known) {
			ti->tgid = p[i].tgid;
			ti->tgid_known = true;
		}
	}
	return 0;
}

uint32_t threads_number(struct threads *t, uint32_t tid)
{
	struct thread_info *ti = threads_get(t, tid);

	if (!ti)
		return 0;
	if (!ti->index)
		ti->index = ++t->numbered;
	return ti->index;
}

const struct thread_info **threads_by_number(const struct threads *t)
{
	const struct thread_info **by = calloc(t->numbered + 1, sizeof(*by));
	size_t i;

	for (i = 0; by && i < t->cap; i++)
		if (t->slot[i].tid && t->slot[i].index)
			by[t->slot[i].index - 1] = &t->slot[i];
	return by;
}

struct thread_info *threads_find(struct threads *t, uint32_t tid)
{
	size_t i;

	if (!tid || !t->cap)
		return NULL;
	for (i = slot_of(tid, t->cap); t->slot[i].tid;
	     i = (i + 1) & (t->cap - 1))
		if (t->slot[i].tid == tid)
			return &t->slot[i];
	return NULL;
}

const char *threads_comm(struct threads *t, uint32_t tid)
{
	struct thread_info *ti = threads_find(t, tid);

	if (!tid)
		return "swapper";
	return ti ? ti->comm : "";
}

void threads_free(struct threads *t)
{
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

int64_t export_task_state(uint32_t mkm_ts)
{
	static const int64_t bits[] = {
		[MKM_TS_RUNNING] = 0,	      [MKM_TS_INTERRUPTIBLE] = 1,
		[MKM_TS_UNINTERRUPTIBLE] = 2, [MKM_TS_STOPPED] = 4,
		[MKM_TS_TRACED] = 8,	      [MKM_TS_DEAD] = 16,
		[MKM_TS_ZOMBIE] = 32,	      [MKM_TS_PARKED] = 64,
	};

	return mkm_ts < ARRAY_SIZE(bits) ? bits[mkm_ts] : 0;
}
