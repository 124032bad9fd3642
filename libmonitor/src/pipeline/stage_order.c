// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stage_order.c - the order stage: one stream in time order out of
 * per-CPU streams that interleave arbitrarily (a monitor_read() returns
 * each CPU's records together). Records wait in the reorder buffer until
 * the watermark passes them; HORIZON messages move it on.
 */
#include <errno.h>
#include <stdlib.h>

#include "pipeline/pipeline_internal.h"

#define OUT_BATCH 4096

struct order {
	struct reorder ro;
	struct mkm_event out[OUT_BATCH];
};

/* Emits every record stamped before @limit, in batches. */
static int release(struct order *o, uint64_t limit, struct mon_emit *out)
{
	for (;;) {
		size_t n = reorder_pop(&o->ro, limit, o->out, OUT_BATCH);
		struct mon_msg msg = {
			.type = MON_MSG_EVENTS,
			.events = o->out,
			.nr_events = n,
		};
		int ret;

		if (!n)
			return 0;
		ret = mon_emit(out, &msg);
		if (ret)
			return ret;
	}
}

static int order_process(void *priv, const struct mon_msg *msg,
			 struct mon_emit *out)
{
	struct order *o = priv;
	int ret;

	switch (msg->type) {
	case MON_MSG_INFO:
		ret = reorder_cpus(&o->ro, 0, msg->info->nr_cpus);
		if (ret)
			return ret;
		break;
	case MON_MSG_EVENTS:
		ret = reorder_push(&o->ro, 0, msg->events, msg->nr_events);
		if (ret)
			return ret;
		return release(o, reorder_watermark(&o->ro), out);
	case MON_MSG_HORIZON:
		reorder_horizon(&o->ro, 0, msg->horizon_ns);
		ret = release(o, reorder_watermark(&o->ro), out);
		if (ret)
			return ret;
		break;
	}
	return mon_emit(out, msg);
}

static int order_finish(void *priv, struct mon_emit *out)
{
	struct order *o = priv;
	int ret = release(o, UINT64_MAX, out);

	return ret == MON_DONE ? 0 : ret;
}

static void order_destroy(void *priv)
{
	struct order *o = priv;

	reorder_free(&o->ro);
	free(o);
}

static const struct mon_stage_ops order_ops = {
	.name = "order",
	.process = order_process,
	.finish = order_finish,
	.destroy = order_destroy,
};

int mon_stage_order(struct mon_stage **stp)
{
	struct order *o = malloc(sizeof(*o));
	int ret;

	if (!o)
		return -ENOMEM;
	ret = reorder_init(&o->ro, 1, false);
	if (!ret)
		ret = mon_stage_new(stp, &order_ops, o);
	if (ret) {
		reorder_free(&o->ro);
		free(o);
	}
	return ret;
}
