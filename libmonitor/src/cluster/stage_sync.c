// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stage_sync.c - the clock-sync stage: clock exchanges, taken by another
 * thread while a node records, put into the recording's stream as
 * CLOCK_SYNC messages before the next message that passes (or at the
 * end), so the trace sink writes each soon after it was taken.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline_internal.h"

struct sync {
	pthread_mutex_t lock;
	struct trace_clock_sync_hdr hdr;
	struct trace_clock_sample *pending, *out;
	size_t n, cap, cap_out;
};

/* Emit what is pending: the buffers are swapped under the lock (the
 * adder fills one while the other is emitted, outside it). */
static int flush(struct sync *s, struct mon_emit *out)
{
	struct mon_msg m = { .type = MON_MSG_CLOCK_SYNC };
	struct trace_clock_sample *t;
	size_t n, cap;

	pthread_mutex_lock(&s->lock);
	n = s->n;
	s->n = 0;
	t = s->pending;
	s->pending = s->out;
	s->out = t;
	cap = s->cap;
	s->cap = s->cap_out;
	s->cap_out = cap;
	pthread_mutex_unlock(&s->lock);
	if (!n)
		return 0;
	s->hdr.nr_samples = (uint32_t)n;
	m.clock_sync_hdr = &s->hdr;
	m.clock_samples = s->out;
	m.nr_clock_samples = n;
	return mon_emit(out, &m);
}

static int sync_process(void *priv, const struct mon_msg *msg,
			struct mon_emit *out)
{
	int ret = 0;

	/* After INFO: a trace's first chunk is INFO. */
	if (msg->type != MON_MSG_INFO)
		ret = flush(priv, out);
	return ret ? ret : mon_emit(out, msg);
}

static int sync_finish(void *priv, struct mon_emit *out)
{
	return flush(priv, out);
}

static void sync_destroy(void *priv)
{
	struct sync *s = priv;

	pthread_mutex_destroy(&s->lock);
	free(s->pending);
	free(s->out);
	free(s);
}

static const struct mon_stage_ops sync_ops = {
	.name = "clock sync",
	.process = sync_process,
	.finish = sync_finish,
	.destroy = sync_destroy,
};

int mon_stage_clock_sync(struct mon_stage **stp, const char *node,
			 const char *reference)
{
	struct sync *s;
	int ret;

	if (!stp || !node || !reference || !*node || !*reference ||
	    strlen(node) > 63 || strlen(reference) > 63)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	s->hdr.version = 1;
	s->hdr.clock = CLOCK_MONOTONIC;
	strcpy(s->hdr.node, node);
	strcpy(s->hdr.reference, reference);
	ret = mon_stage_new(stp, &sync_ops, s);
	if (ret)
		sync_destroy(s);
	return ret;
}

int mon_stage_clock_sync_add(struct mon_stage *st,
			     const struct trace_clock_sample *sample)
{
	struct sync *s = mon_stage_priv(st, &sync_ops);
	int ret = 0;

	if (!s || !sample)
		return -EINVAL;
	pthread_mutex_lock(&s->lock);
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 8;
		struct trace_clock_sample *p =
			realloc(s->pending, cap * sizeof(*p));

		if (p) {
			s->pending = p;
			s->cap = cap;
		} else {
			ret = -ENOMEM;
		}
	}
	if (!ret)
		s->pending[s->n++] = *sample;
	pthread_mutex_unlock(&s->lock);
	return ret;
}
