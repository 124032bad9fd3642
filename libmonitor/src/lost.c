// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lost.c - a hole in a CPU's seq numbers as the LOST record it stands for:
 * the one rule the timeline, the pipeline's stages and the exporters find
 * unannounced losses by.
 */
#include <errno.h>

#include "internal.h"

int mon_seq_lost(struct mon_seq_track *t, const struct mkm_event *e,
		 uint64_t time_ns, struct mkm_event *lost)
{
	uint32_t first = t->next, gap = e->seq - t->next;
	bool valid = t->valid;

	/* A LOST record's seq is the first event dropped: the hole it
	 * announces ends after its count. */
	t->next = e->seq + (e->type == MKM_EV_LOST ? e->arg0 : 1);
	t->valid = true;
	if (!valid || !gap)
		return 0;
	if (gap >= 0x80000000u)
		return -ERANGE; /* backwards: a repeat, not a loss */
	*lost = (struct mkm_event){ .time_ns = time_ns,
				    .seq = first,
				    .cpu = e->cpu,
				    .type = MKM_EV_LOST,
				    .arg0 = gap };
	return 1;
}
