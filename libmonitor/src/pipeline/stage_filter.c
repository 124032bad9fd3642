// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stage_filter.c - the filter stage: the records of some threads, or of a
 * time window. LOST records always pass: a cut must not hide a loss.
 *
 * Dropping other threads' records leaves holes in each CPU's seq numbers,
 * which a reader takes for lost events; so a thread filter numbers the
 * records it keeps anew, per CPU, and turns a real hole (events lost
 * upstream) into a LOST record first. A time window needs none of that:
 * it only cuts each CPU's stream at its ends. A SWITCH record between a
 * thread kept and one dropped becomes the kept thread's half of it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline_internal.h"

#define OUT_BATCH 4096

struct filter {
	uint32_t *tids; /* sorted */
	size_t nr_tids;
	uint64_t from, to; /* to: UINT64_MAX for no end */
	struct cpu_seq *seq; /* per CPU, with a thread filter */
	struct mon_split *split; /* next's unique_id, for a SWITCH's half */
	size_t nr_seq;
	size_t n; /* records in out */
	struct mkm_event out[OUT_BATCH];
};

struct cpu_seq {
	struct mon_seq_track in; /* from upstream */
	uint32_t out; /* the next seq given */
};

static int by_tid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static bool kept_tid(const struct filter *f, uint32_t tid)
{
	return bsearch(&tid, f->tids, f->nr_tids, sizeof(*f->tids), by_tid);
}

static bool keep(const struct filter *f, const struct mkm_event *e)
{
	if (e->type == MKM_EV_LOST)
		return true;
	if (e->time_ns < f->from || e->time_ns >= f->to)
		return false;
	return !f->nr_tids || kept_tid(f, e->tid) ||
	       (e->type == MKM_EV_SWITCH && kept_tid(f, e->arg1));
}

/*
 * A SWITCH kept for one of its two threads only becomes that thread's
 * half: the SWITCH_OUT of prev, or the SWITCH_IN of next.
 */
static void switch_half(const struct filter *f, struct mkm_event *e)
{
	struct mkm_event half[2];
	bool prev = kept_tid(f, e->tid), next = kept_tid(f, e->arg1);

	if (prev == next)
		return;
	mon_event_split(e, mon_split_unique_id(f->split, e->arg1), half);
	*e = half[next];
}

static int flush(struct filter *f, const struct mon_msg *msg,
		 struct mon_emit *out)
{
	struct mon_msg m = *msg;

	if (!f->n)
		return 0;
	m.events = f->out;
	m.nr_events = f->n;
	f->n = 0;
	return mon_emit(out, &m);
}

static int put(struct filter *f, const struct mkm_event *e,
	       const struct mon_msg *msg, struct mon_emit *out)
{
	f->out[f->n++] = *e;
	return f->n == OUT_BATCH ? flush(f, msg, out) : 0;
}

/* Renumbers a kept record of a thread filter; a hole upstream first
 * becomes a LOST record. */
static int renumber(struct filter *f, struct mkm_event *e,
		    const struct mon_msg *msg, struct mon_emit *out)
{
	struct mkm_event lost;
	struct cpu_seq *s;
	int ret;

	if (e->cpu >= f->nr_seq) {
		size_t n = (size_t)e->cpu + 1;

		s = realloc(f->seq, n * sizeof(*s));
		if (!s)
			return -ENOMEM;
		memset(s + f->nr_seq, 0, (n - f->nr_seq) * sizeof(*s));
		f->seq = s;
		f->nr_seq = n;
	}
	s = &f->seq[e->cpu];
	if (mon_seq_lost(&s->in, e, e->time_ns, &lost) > 0) {
		seq_assign(&s->out, &lost);
		ret = put(f, &lost, msg, out);
		if (ret)
			return ret;
	}
	if (mon_split_note(f->split, e))
		return -ENOMEM;
	if (!keep(f, e))
		return 0;
	if (e->type == MKM_EV_SWITCH)
		switch_half(f, e);
	seq_assign(&s->out, e);
	return put(f, e, msg, out);
}

static int filter_process(void *priv, const struct mon_msg *msg,
			  struct mon_emit *out)
{
	struct filter *f = priv;
	size_t i;
	int ret = 0;

	if (msg->type != MON_MSG_EVENTS)
		return mon_emit(out, msg);
	for (i = 0; i < msg->nr_events && !ret; i++) {
		struct mkm_event e = msg->events[i];

		if (f->nr_tids)
			ret = renumber(f, &e, msg, out);
		else if (keep(f, &e))
			ret = put(f, &e, msg, out);
	}
	return ret ? ret : flush(f, msg, out);
}

static void filter_destroy(void *priv)
{
	struct filter *f = priv;

	free(f->tids);
	free(f->seq);
	mon_split_free(f->split);
	free(f);
}

static const struct mon_stage_ops filter_ops = {
	.name = "filter",
	.process = filter_process,
	.destroy = filter_destroy,
};

int mon_stage_filter(struct mon_stage **stp, const struct mon_filter *filter)
{
	struct filter *f;
	int ret;

	if (!stp || !filter || (filter->nr_tids && !filter->tids) ||
	    (filter->to_ns && filter->from_ns >= filter->to_ns))
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->from = filter->from_ns;
	f->to = filter->to_ns ? filter->to_ns : UINT64_MAX;
	f->nr_tids = filter->nr_tids;
	if (f->nr_tids) {
		f->tids = malloc(f->nr_tids * sizeof(*f->tids));
		if (!f->tids) {
			free(f);
			return -ENOMEM;
		}
		memcpy(f->tids, filter->tids, f->nr_tids * sizeof(*f->tids));
		qsort(f->tids, f->nr_tids, sizeof(*f->tids), by_tid);
		f->split = mon_split_new();
		if (!f->split) {
			filter_destroy(f);
			return -ENOMEM;
		}
	}
	ret = mon_stage_new(stp, &filter_ops, f);
	if (ret)
		filter_destroy(f);
	return ret;
}
