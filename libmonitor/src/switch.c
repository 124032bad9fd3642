// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * switch.c - the one place that knows MKM_EV_SWITCH, the record that is a
 * SWITCH_OUT and a SWITCH_IN at once (ABI 2.4, MKM_CONFIG_ONE_SWITCH).
 *
 * The record carries prev's tid and unique_id and next's tid, not next's
 * unique_id: that is the one next's own records carry (its ATTACH, or the
 * inheriting FORK that named it, always earlier in time). So a splitter
 * remembers, per tid, the unique_id of the latest record of that thread,
 * and gives it to the SWITCH_IN half; fed in time order (after the order
 * stage) it always knows it, fed a file's chunks as read it may not yet
 * (0 then).
 *
 * Seq numbers. The two halves are two events to a reader of the
 * two-record form, so the splitter shifts each CPU's seq numbers up by the
 * SWITCH records split before on that CPU: the halves get s and s + 1, a
 * hole in the input stays a hole of the same size, and the output reads
 * as a stream the kernel could have written without MKM_CONFIG_ONE_SWITCH.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct mon_split {
	uint32_t *key; /* tid (0: free), open addressing */
	uint32_t *uid;
	size_t cap, used;
	uint32_t *shift; /* per CPU: SWITCH records split there so far */
	size_t nr_cpus;
};

unsigned int mon_event_split(const struct mkm_event *e, uint32_t next_uid,
			     struct mkm_event out[2])
{
	out[0] = *e;
	if (e->type != MKM_EV_SWITCH)
		return 1;
	out[0].type = MKM_EV_SWITCH_OUT;
	out[0].flags = e->flags & (MKM_EVF_PREEMPTED | MKM_EVF_LOCK_WAIT);
	out[0].arg0 = MKM_EVF_STATE(e->flags);
	out[1] = *e;
	out[1].type = MKM_EV_SWITCH_IN;
	out[1].tid = e->arg1;
	out[1].unique_id = next_uid;
	out[1].flags = e->flags & MKM_EVF_WAIT_US;
	out[1].arg0 = e->arg0;
	out[1].arg1 = e->tid;
	return 2;
}

static size_t slot_of(uint32_t tid, size_t cap)
{
	return (size_t)((tid * 0x9E3779B1u) & (cap - 1));
}

static int map_grow(struct mon_split *s)
{
	size_t cap = s->cap ? s->cap * 2 : 64, i;
	uint32_t *key = calloc(cap, sizeof(*key));
	uint32_t *uid = calloc(cap, sizeof(*uid));

	if (!key || !uid) {
		free(key);
		free(uid);
		return -ENOMEM;
	}
	for (i = 0; i < s->cap; i++) {
		size_t j;

		if (!s->key[i])
			continue;
		for (j = slot_of(s->key[i], cap); key[j];
		     j = (j + 1) & (cap - 1))
			;
		key[j] = s->key[i];
		uid[j] = s->uid[i];
	}
	free(s->key);
	free(s->uid);
	s->key = key;
	s->uid = uid;
	s->cap = cap;
	return 0;
}

uint32_t mon_split_unique_id(const struct mon_split *s, uint32_t tid)
{
	size_t j;

	if (!s || !tid || !s->cap)
		return 0;
	for (j = slot_of(tid, s->cap); s->key[j]; j = (j + 1) & (s->cap - 1))
		if (s->key[j] == tid)
			return s->uid[j];
	return 0;
}

static int map_set(struct mon_split *s, uint32_t tid, uint32_t uid)
{
	size_t j;
	int ret;

	if (!tid)
		return 0;
	if ((s->used + 1) * 2 > s->cap) {
		ret = map_grow(s);
		if (ret)
			return ret;
	}
	for (j = slot_of(tid, s->cap); s->key[j]; j = (j + 1) & (s->cap - 1))
		if (s->key[j] == tid) {
			s->uid[j] = uid;
			return 0;
		}
	s->key[j] = tid;
	s->uid[j] = uid;
	s->used++;
	return 0;
}

int mon_split_note(struct mon_split *s, const struct mkm_event *e)
{
	int ret;

	if (!s || !e)
		return -EINVAL;
	if (e->type == MKM_EV_LOST)
		return 0;
	ret = map_set(s, e->tid, e->unique_id);
	if (!ret && e->type == MKM_EV_FORK && e->flags & MKM_EVF_INHERITED)
		ret = map_set(s, e->arg0, e->arg1);
	return ret;
}

struct mon_split *mon_split_new(void)
{
	struct mon_split *s = calloc(1, sizeof(*s));

	if (!s)
		errno = ENOMEM;
	return s;
}

void mon_split_free(struct mon_split *s)
{
	if (!s)
		return;
	free(s->key);
	free(s->uid);
	free(s->shift);
	free(s);
}

int mon_split_event(struct mon_split *s, const struct mkm_event *e,
		    struct mkm_event out[2])
{
	unsigned int n;
	uint32_t shift;
	int ret;

	if (!s || !e || !out)
		return -EINVAL;
	ret = mon_split_note(s, e);
	if (ret)
		return ret;
	if (e->cpu >= s->nr_cpus) {
		size_t nr = (size_t)e->cpu + 1;
		uint32_t *p = realloc(s->shift, nr * sizeof(*p));

		if (!p)
			return -ENOMEM;
		memset(p + s->nr_cpus, 0, (nr - s->nr_cpus) * sizeof(*p));
		s->shift = p;
		s->nr_cpus = nr;
	}
	shift = s->shift[e->cpu];
	n = mon_event_split(
		e,
		e->type == MKM_EV_SWITCH ? mon_split_unique_id(s, e->arg1) : 0,
		out);
	out[0].seq = e->seq + shift;
	if (n == 2) {
		out[1].seq = out[0].seq + 1;
		s->shift[e->cpu]++;
	}
	return (int)n;
}
