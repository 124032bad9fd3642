// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pipeline.c - the runner: pulls messages from a source, pushes each
 * through the stages into every sink (see mon_pipeline.h).
 *
 * Pushing is a plain call chain: stage i hands what it emits to stage i+1
 * through its own struct mon_emit, the last one to the sinks. A message
 * therefore reaches every sink before the source is asked for the next,
 * which is the back-pressure of the whole chain. The first error is kept
 * with the name of the part that returned it and the source's offset of
 * the message being pushed; after it, every part is still finished (so a
 * timeline keeps what came before a damaged chunk) and the run stops.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline_internal.h"

#define MAX_SOURCES 64

struct mon_source {
	const struct mon_source_ops *ops;
	void *priv;
	struct trace_info info;
	bool info_sent;
};

struct mon_stage {
	const struct mon_stage_ops *ops;
	void *priv;
};

struct mon_sink {
	const struct mon_sink_ops *ops;
	void *priv;
	bool done;
};

struct mon_emit {
	struct mon_pipeline *p;
	size_t next; /* the stage that receives what this one emits */
};

enum run_state { RUNNING, ENDED, FAILED };

struct mon_pipeline {
	struct mon_source *src;
	struct mon_stage **stages;
	struct mon_emit *emits; /* one per stage */
	size_t nr_stages;
	struct mon_sink **sinks;
	size_t nr_sinks, nr_done;
	enum run_state state;
	int err;
	bool started;
	uint64_t offset; /* of the message being pushed */
	uint64_t stats_lost[MAX_SOURCES];
	struct mon_meta meta;
	char msg[320];
};

/* ---- sources ----------------------------------------------------------- */

int mon_source_new(struct mon_source **srcp, const struct mon_source_ops *ops,
		   void *priv, const struct trace_info *info)
{
	struct mon_source *src;

	if (!srcp || !ops || !ops->next || !info)
		return -EINVAL;
	src = calloc(1, sizeof(*src));
	if (!src)
		return -ENOMEM;
	src->ops = ops;
	src->priv = priv;
	src->info = *info;
	*srcp = src;
	return 0;
}

int mon_source_next(struct mon_source *src, struct mon_msg *msg)
{
	if (!src || !msg)
		return -EINVAL;
	if (!src->info_sent) {
		memset(msg, 0, sizeof(*msg));
		msg->type = MON_MSG_INFO;
		msg->info = &src->info;
		src->info_sent = true;
		return 1;
	}
	memset(msg, 0, sizeof(*msg));
	return src->ops->next(src->priv, msg);
}

const struct trace_info *mon_source_info(const struct mon_source *src)
{
	return src ? &src->info : NULL;
}

const char *mon_source_error(const struct mon_source *src, uint64_t *offset)
{
	if (offset)
		*offset = 0;
	if (!src || !src->ops->error)
		return "";
	return src->ops->error(src->priv, offset);
}

void mon_source_destroy(struct mon_source *src)
{
	if (!src)
		return;
	if (src->ops->destroy)
		src->ops->destroy(src->priv);
	free(src);
}

void *mon_stage_priv(const struct mon_stage *st,
		     const struct mon_stage_ops *ops)
{
	return st && st->ops == ops ? st->priv : NULL;
}

void *mon_sink_priv(const struct mon_sink *sk, const struct mon_sink_ops *ops)
{
	return sk && sk->ops == ops ? sk->priv : NULL;
}

void *mon_source_priv(const struct mon_source *src,
		      const struct mon_source_ops *ops)
{
	return src && src->ops == ops ? src->priv : NULL;
}

/* ---- stages and sinks --------------------------------------------------- */

int mon_stage_new(struct mon_stage **stp, const struct mon_stage_ops *ops,
		  void *priv)
{
	struct mon_stage *st;

	if (!stp || !ops || !ops->process)
		return -EINVAL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->ops = ops;
	st->priv = priv;
	*stp = st;
	return 0;
}

void mon_stage_destroy(struct mon_stage *st)
{
	if (!st)
		return;
	if (st->ops->destroy)
		st->ops->destroy(st->priv);
	free(st);
}

int mon_sink_new(struct mon_sink **skp, const struct mon_sink_ops *ops,
		 void *priv)
{
	struct mon_sink *sk;

	if (!skp || !ops || !ops->consume)
		return -EINVAL;
	sk = calloc(1, sizeof(*sk));
	if (!sk)
		return -ENOMEM;
	sk->ops = ops;
	sk->priv = priv;
	*skp = sk;
	return 0;
}

void mon_sink_destroy(struct mon_sink *sk)
{
	if (!sk)
		return;
	if (sk->ops->destroy)
		sk->ops->destroy(sk->priv);
	free(sk);
}

/* ---- the runner ----------------------------------------------------------- */

int mon_pipeline_create(struct mon_pipeline **pp, struct mon_source *src)
{
	struct mon_pipeline *p;

	if (!pp || !src) {
		mon_source_destroy(src);
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		mon_source_destroy(src);
		return -ENOMEM;
	}
	p->src = src;
	*pp = p;
	return 0;
}

int mon_pipeline_add_stage(struct mon_pipeline *p, struct mon_stage *st)
{
	struct mon_stage **stages;
	struct mon_emit *emits;
	size_t i;

	if (!p || !st || p->started) {
		mon_stage_destroy(st);
		return !p || !st ? -EINVAL : -EBUSY;
	}
	stages = realloc(p->stages, (p->nr_stages + 1) * sizeof(*stages));
	if (stages)
		p->stages = stages;
	emits = realloc(p->emits, (p->nr_stages + 1) * sizeof(*emits));
	if (emits)
		p->emits = emits;
	if (!stages || !emits) {
		mon_stage_destroy(st);
		return -ENOMEM;
	}
	p->stages[p->nr_stages++] = st;
	for (i = 0; i < p->nr_stages; i++)
		p->emits[i] = (struct mon_emit){ .p = p, .next = i + 1 };
	return 0;
}

int mon_pipeline_add_sink(struct mon_pipeline *p, struct mon_sink *sk)
{
	struct mon_sink **sinks;

	if (!p || !sk || p->started) {
		mon_sink_destroy(sk);
		return !p || !sk ? -EINVAL : -EBUSY;
	}
	sinks = realloc(p->sinks, (p->nr_sinks + 1) * sizeof(*sinks));
	if (!sinks) {
		mon_sink_destroy(sk);
		return -ENOMEM;
	}
	p->sinks = sinks;
	p->sinks[p->nr_sinks++] = sk;
	return 0;
}

/* Keeps the first error, naming the part that returned it. */
static int fail(struct mon_pipeline *p, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct mon_pipeline *p, int err, const char *fmt, ...)
{
	va_list ap;
	int len;

	if (p->err)
		return p->err;
	p->err = err;
	va_start(ap, fmt);
	len = vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
	if (len >= 0 && (size_t)len < sizeof(p->msg))
		snprintf(p->msg + len, sizeof(p->msg) - len,
			 " (source offset %llu)",
			 (unsigned long long)p->offset);
	return err;
}

static void meta_update(struct mon_pipeline *p, const struct mon_msg *msg)
{
	struct mon_meta *m = &p->meta;
	uint64_t sum = 0;
	size_t i;

	switch (msg->type) {
	case MON_MSG_INFO:
		m->info = *msg->info;
		break;
	case MON_MSG_EVENTS:
		for (i = 0; i < msg->nr_events; i++) {
			const struct mkm_event *e = &msg->events[i];

			if (unlikely(e->type == MKM_EV_LOST))
				m->lost += e->arg0;
			else
				m->events++;
		}
		break;
	case MON_MSG_HORIZON:
		m->horizon_ns = msg->horizon_ns;
		break;
	case MON_MSG_THREADS:
		m->nr_threads = msg->nr_threads;
		break;
	case MON_MSG_STATS:
		for (i = 0; i < msg->nr_stats; i++)
			sum += msg->stats[i].lost;
		p->stats_lost[msg->source % MAX_SOURCES] = sum;
		m->lost_by_stats = 0;
		for (i = 0; i < MAX_SOURCES; i++)
			m->lost_by_stats += p->stats_lost[i];
		break;
	case MON_MSG_CALIBRATION:
		m->nr_calibration = msg->nr_calibration;
		break;
	}
}

/* Hands @msg to stage @i, or past the last stage to every sink. */
static int push(struct mon_pipeline *p, size_t i, const struct mon_msg *msg)
{
	size_t k;
	int ret;

	if (i < p->nr_stages) {
		struct mon_stage *st = p->stages[i];

		ret = st->ops->process(st->priv, msg, &p->emits[i]);
		if (ret < 0)
			return fail(p, ret, "stage %s: %s", st->ops->name,
				    monitor_strerror(ret));
		return ret;
	}
	meta_update(p, msg);
	for (k = 0; k < p->nr_sinks; k++) {
		struct mon_sink *sk = p->sinks[k];

		if (sk->done)
			continue;
		ret = sk->ops->consume(sk->priv, msg);
		if (ret < 0)
			return fail(p, ret, "sink %s: %s", sk->ops->name,
				    monitor_strerror(ret));
		if (ret == MON_DONE) {
			sk->done = true;
			p->nr_done++;
		}
	}
	return p->nr_done == p->nr_sinks ? MON_DONE : 0;
}

int mon_emit(struct mon_emit *out, const struct mon_msg *msg)
{
	if (!out || !msg)
		return -EINVAL;
	return push(out->p, out->next, msg);
}

/* End of stream: each stage emits what it held, in order, then the sinks
 * close. Every part is finished even after an error. */
static void finish(struct mon_pipeline *p)
{
	size_t i;
	int ret;

	for (i = 0; i < p->nr_stages; i++) {
		struct mon_stage *st = p->stages[i];

		if (!st->ops->finish)
			continue;
		ret = st->ops->finish(st->priv, &p->emits[i]);
		if (ret < 0)
			fail(p, ret, "stage %s: %s", st->ops->name,
			     monitor_strerror(ret));
	}
	for (i = 0; i < p->nr_sinks; i++) {
		struct mon_sink *sk = p->sinks[i];

		if (!sk->ops->finish)
			continue;
		ret = sk->ops->finish(sk->priv);
		if (ret < 0)
			fail(p, ret, "sink %s: %s", sk->ops->name,
			     monitor_strerror(ret));
	}
}

static int stop(struct mon_pipeline *p)
{
	finish(p);
	p->state = p->err ? FAILED : ENDED;
	return p->err;
}

int mon_pipeline_step(struct mon_pipeline *p)
{
	struct mon_msg msg;
	int ret;

	if (!p)
		return -EINVAL;
	if (p->state != RUNNING)
		return p->err;
	if (!p->nr_sinks) {
		p->state = FAILED;
		return fail(p, -EINVAL, "pipeline: no sink");
	}
	p->started = true;
	ret = mon_source_next(p->src, &msg);
	if (ret == -EAGAIN)
		return ret;
	if (ret < 0) {
		uint64_t off;
		const char *why = mon_source_error(p->src, &off);

		p->offset = off;
		fail(p, ret, "source %s: %s", p->src->ops->name,
		     *why ? why : monitor_strerror(ret));
		return stop(p);
	}
	if (ret == 0)
		return stop(p);
	p->offset = msg.offset;
	ret = push(p, 0, &msg);
	if (ret < 0 || ret == MON_DONE)
		return stop(p);
	return 1;
}

int mon_pipeline_run(struct mon_pipeline *p)
{
	int ret;

	while ((ret = mon_pipeline_step(p)) > 0)
		;
	return ret;
}

const char *mon_pipeline_error(const struct mon_pipeline *p, uint64_t *offset)
{
	if (offset)
		*offset = p && p->err ? p->offset : 0;
	return p && p->err ? p->msg : "";
}

const struct mon_meta *mon_pipeline_meta(const struct mon_pipeline *p)
{
	return p ? &p->meta : NULL;
}

struct mon_source *mon_pipeline_source(const struct mon_pipeline *p)
{
	return p ? p->src : NULL;
}

void mon_pipeline_destroy(struct mon_pipeline *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nr_stages; i++)
		mon_stage_destroy(p->stages[i]);
	for (i = 0; i < p->nr_sinks; i++)
		mon_sink_destroy(p->sinks[i]);
	mon_source_destroy(p->src);
	free(p->stages);
	free(p->emits);
	free(p->sinks);
	free(p);
}
