/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pipeline_internal.h - what the pipeline's sources, stages and sinks share
 * inside libmonitor: the reorder buffer that the order stage and the merge
 * source put records in time order with.
 */
#ifndef MON_PIPELINE_INTERNAL_H
#define MON_PIPELINE_INTERNAL_H

#include "internal.h"
#include "mon_pipeline.h"

/* The configuration the kernel last confirmed for @mon (monitor.c). */
MON_HIDDEN void mon_monitor_config(const struct monitor *mon,
				   struct monitor_config *cfg);
/* monitor_read(), saying whether LOST records may be among those read:
 * the live source then needs no scan for them (monitor.c). */
MON_HIDDEN int mon_monitor_read(struct monitor *mon, struct mkm_event *buf,
				size_t max, size_t *n, bool *lost);

/* The private data of @src if it was made with @ops, else NULL. */
MON_HIDDEN void *mon_source_priv(const struct mon_source *src,
				 const struct mon_source_ops *ops);
/* The same for a stage. */
MON_HIDDEN void *mon_stage_priv(const struct mon_stage *st,
				const struct mon_stage_ops *ops);
/* The same for a sink. */
MON_HIDDEN void *mon_sink_priv(const struct mon_sink *sk,
			       const struct mon_sink_ops *ops);

/*
 * Renumbering. A stage that drops or mixes records leaves holes or
 * repeats in each CPU's seq numbers, which a reader would take for losses.
 * So it checks each input stream's seqs (a hole is a real loss: it becomes
 * a LOST record, mon_seq_lost()) and numbers what it passes on anew, per
 * output CPU.
 */
/* Gives @e the next seq of its output stream. */
static inline void seq_assign(uint32_t *out, struct mkm_event *e)
{
	e->seq = *out;
	*out += e->type == MKM_EV_LOST ? e->arg0 : 1;
}

/*
 * Reorder buffer: records arrive in streams ("lanes"), each in time order
 * (one CPU of one source); they leave in time order over all lanes, ties
 * going to the lower (group, cpu), then to the earlier arrival. A lane's
 * records may leave once no lane can still deliver an earlier one: the
 * watermark is the least, over lanes, of the later of the lane's last
 * time and its group's horizon. A group is one source; its CPUs known in
 * advance get their lanes at once, so a silent CPU holds the watermark at
 * the group's horizon.
 */
struct reorder_lane {
	struct mkm_event *q; /* [head, tail) */
	size_t head, tail, cap;
	uint64_t last; /* time of the last record pushed */
	struct mon_seq_track seq; /* when renumbering */
	uint32_t group, cpu;
};

struct reorder {
	struct reorder_lane *lanes; /* sorted by (group, cpu) */
	size_t nr_lanes;
	uint64_t *horizon; /* per group; UINT64_MAX once it ended */
	uint32_t nr_groups;
	bool renumber; /* seq gaps become LOST records, seqs consecutive
			  per CPU on the way out */
	uint32_t *out_seq; /* per output CPU, when renumbering */
	size_t nr_out_seq;
	size_t held;
};

MON_HIDDEN int reorder_init(struct reorder *r, uint32_t nr_groups,
			    bool renumber);
MON_HIDDEN void reorder_free(struct reorder *r);
/* Lanes for CPUs 0 .. nr_cpus-1 of @group, if not there yet. */
MON_HIDDEN int reorder_cpus(struct reorder *r, uint32_t group,
			    uint32_t nr_cpus);
MON_HIDDEN int reorder_push(struct reorder *r, uint32_t group,
			    const struct mkm_event *ev, size_t n);
MON_HIDDEN void reorder_horizon(struct reorder *r, uint32_t group,
				uint64_t horizon);
MON_HIDDEN uint64_t reorder_watermark(const struct reorder *r);
/* Up to @max records stamped before @limit, in order, into @out. */
MON_HIDDEN size_t reorder_pop(struct reorder *r, uint64_t limit,
			      struct mkm_event *out, size_t max);

#endif /* MON_PIPELINE_INTERNAL_H */
