// SPDX-License-Identifier: GPL-2.0
/* live.c - the live viewer's feed (see live.h). */

#define _LGPL_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <urcu/compiler.h>
#include <urcu/wfcqueue.h>

#include "live.h"

enum { BATCH_EVENTS, BATCH_HORIZON, BATCH_END };

struct batch {
	struct cds_wfcq_node node;
	int kind;
	uint64_t horizon_ns;
	size_t n;
	struct mkm_event ev[];
};

struct live_feed {
	struct __cds_wfcq_head head;
	struct cds_wfcq_tail tail;
	atomic_bool ended; /* the viewer saw the end */
};

static int push(struct live_feed *f, int kind, const struct mkm_event *ev,
		size_t n, uint64_t horizon)
{
	struct batch *b = malloc(sizeof(*b) + n * sizeof(*ev));

	if (!b)
		return -ENOMEM;
	cds_wfcq_node_init(&b->node);
	b->kind = kind;
	b->horizon_ns = horizon;
	b->n = n;
	if (n)
		memcpy(b->ev, ev, n * sizeof(*ev));
	cds_wfcq_enqueue(&f->head, &f->tail, &b->node);
	return 0;
}

static int feed_consume(void *priv, const struct mon_msg *msg)
{
	if (msg->type == MON_MSG_EVENTS && msg->nr_events)
		return push(priv, BATCH_EVENTS, msg->events, msg->nr_events, 0);
	if (msg->type == MON_MSG_HORIZON)
		return push(priv, BATCH_HORIZON, NULL, 0, msg->horizon_ns);
	return 0;
}

static int feed_finish(void *priv)
{
	return push(priv, BATCH_END, NULL, 0, 0);
}

/* The feed outlives the pipeline: the viewer frees it. */
static void feed_keep(void *priv)
{
	(void)priv;
}

static const struct mon_sink_ops feed_ops = {
	.name = "viewer",
	.consume = feed_consume,
	.finish = feed_finish,
	.destroy = feed_keep,
};

int live_feed_create(struct live_feed **feedp, struct mon_sink **sinkp)
{
	struct live_feed *f = calloc(1, sizeof(*f));
	int err;

	*feedp = NULL;
	if (!f)
		return -ENOMEM;
	__cds_wfcq_init(&f->head, &f->tail);
	err = mon_sink_new(sinkp, &feed_ops, f);
	if (err) {
		free(f);
		return err;
	}
	*feedp = f;
	return 0;
}

bool live_feed_apply(struct live_feed *f, struct tl *tl, size_t *records)
{
	struct cds_wfcq_node *node;

	*records = 0;
	/* One consumer, the viewer's thread: the dequeue needs no lock. */
	while ((node = __cds_wfcq_dequeue_blocking(&f->head, &f->tail))) {
		struct batch *b = caa_container_of(node, struct batch, node);

		if (b->kind == BATCH_EVENTS) {
			tl_feed(tl, b->ev, b->n);
			*records += b->n;
		} else if (b->kind == BATCH_HORIZON) {
			tl_advance(tl, b->horizon_ns);
		} else {
			tl_flush(tl);
			f->ended = true;
		}
		free(b);
	}
	return f->ended;
}

void live_feed_destroy(struct live_feed *f)
{
	struct cds_wfcq_node *node;

	if (!f)
		return;
	while ((node = __cds_wfcq_dequeue_blocking(&f->head, &f->tail)))
		free(caa_container_of(node, struct batch, node));
	free(f);
}
