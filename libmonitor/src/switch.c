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
	struct mon_u32map uids; /* tid -> its latest unique_id */
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

uint32_t mon_split_unique_id(const struct mon_split *s, uint32_t tid)
{
	uint32_t uid = 0;

	if (s && tid)
		mon_u32map_get(&s->uids, tid, &uid);
	return uid;
}

/* tid 0 is no thread: nothing to remember. */
static int map_set(struct mon_split *s, uint32_t tid, uint32_t uid)
{
	return tid ? mon_u32map_set(&s->uids, tid, uid) : 0;
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
	mon_u32map_free(&s->uids);
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
