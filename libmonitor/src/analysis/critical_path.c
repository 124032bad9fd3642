// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * critical_path.c - what a thread waited for, walked back through its
 * wakers (mon_analysis.h says what the path is).
 *
 * The walk holds a thread and an instant t. The thread's interval that
 * ends at or holds t decides: time on a CPU or its run queue is a segment
 * and t moves to the interval's start; a sleep that a monitored thread
 * ended at t hands the walk to that thread at t; any other sleep is a
 * segment of its own. t never grows, and a hand-over at an instant is
 * taken once (two threads waking each other at one instant would
 * otherwise loop), so the walk ends.
 */
#include <errno.h>
#include <stdlib.h>

#include "timeline/timeline.h"

static bool asleep(unsigned int state)
{
	unsigned int g = tl_state_desc(state)->group;

	return g == TL_GROUP_SLEEP || g == TL_GROUP_DISK;
}

/* Appends [start, end) of @th, joined to the previous segment when it
 * continues it (segments are found latest first). */
static int path_add(struct mon_path *p, size_t *cap, size_t th,
		    unsigned int state, uint64_t start, uint64_t end)
{
	struct mon_path_seg *last = p->nr ? &p->seg[p->nr - 1] : NULL;

	if (last && last->thread == th && last->state == state &&
	    last->start_ns == end) {
		last->start_ns = start;
		return 0;
	}
	if (p->nr == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		struct mon_path_seg *s = realloc(p->seg, c * sizeof(*s));

		if (!s)
			return -ENOMEM;
		p->seg = s;
		*cap = c;
	}
	p->seg[p->nr++] = (struct mon_path_seg){ .start_ns = start,
						 .end_ns = end,
						 .thread = th,
						 .state = (uint8_t)state };
	return 0;
}

/* The thread that ended @th's sleep at @t, if the path may go there. */
static int64_t waker_at(const struct tl *tl, size_t th, uint64_t t)
{
	struct tl_wake w;

	if (tl_wake_at(tl, th, t, &w) || w.waker < 0 || (size_t)w.waker == th)
		return -1;
	/* Woken from an interrupt: the handler did it, not the thread it
	 * interrupted. */
	if (w.flags & MKM_EVF_IN_IRQ)
		return -1;
	return w.waker;
}

/* The thread that made @th at @t, its first instant: the waker of its
 * WAKEUP_NEW there, else the parent the timeline knows. */
static int64_t creator(const struct tl *tl, size_t th, uint64_t t)
{
	struct tl_thread me;
	int64_t w = waker_at(tl, th, t);

	if (w >= 0)
		return w;
	if (tl_thread(tl, th, &me) || me.first_ns != t ||
	    me.parent == (int64_t)th)
		return -1;
	return me.parent;
}

int mon_critical_path(const struct tl *tl, size_t th, uint64_t from_ns,
		      uint64_t to_ns, struct mon_path *out)
{
	uint64_t t = to_ns, handed_at = UINT64_MAX;
	size_t cap = 0, i;
	int err = 0;

	if (!tl || !out || from_ns > to_ns)
		return -EINVAL;
	*out = (struct mon_path){ 0 };
	if (th >= tl->nr_th)
		return -ENOENT;
	while (t > from_ns) {
		struct tl_interval iv;
		int64_t k = tl_interval_at(tl, th, t - 1), w;
		uint64_t start;

		if (k < 0) {
			/* Before the thread: its creator made it. */
			w = handed_at != t ? creator(tl, th, t) : -1;
			if (w < 0)
				break;
			th = (size_t)w;
			handed_at = t;
			continue;
		}
		if (tl_interval(tl, th, (size_t)k, &iv))
			break;
		if (iv.end_ns < t) { /* after the thread's end */
			t = iv.end_ns > from_ns ? iv.end_ns : from_ns;
			continue;
		}
		start = iv.start_ns > from_ns ? iv.start_ns : from_ns;
		if (asleep(iv.state) && iv.end_ns == t && handed_at != t) {
			w = waker_at(tl, th, t);
			if (w >= 0) {
				th = (size_t)w;
				handed_at = t;
				continue;
			}
		}
		if (out->nr == MON_PATH_MAX) {
			out->cut = true;
			break;
		}
		err = path_add(out, &cap, th, iv.state, start, t);
		if (err)
			break;
		t = start;
	}
	if (err) {
		mon_path_free(out);
		return err;
	}
	for (i = 0; i < out->nr / 2; i++) { /* latest first -> in time order */
		struct mon_path_seg s = out->seg[i];

		out->seg[i] = out->seg[out->nr - 1 - i];
		out->seg[out->nr - 1 - i] = s;
	}
	return 0;
}

void mon_path_free(struct mon_path *p)
{
	if (!p)
		return;
	free(p->seg);
	*p = (struct mon_path){ 0 };
}
