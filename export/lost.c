// SPDX-License-Identifier: GPL-2.0
/*
 * lost.c - events lost per CPU, as the timeline counts them: a LOST
 * record's count, and any hole in a CPU's seq numbers that no LOST record
 * announced (a trace cut by a filter upstream, a merge of sources). Each
 * format reports them its own way; they all count them here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int lost_before(struct lost *l, const struct mkm_event *e, uint64_t *n)
{
	struct lost_cpu *c;
	uint32_t gap;

	*n = 0;
	if (array_grow(&l->cpu, &l->nr_cpus, e->cpu, sizeof(*l->cpu)))
		return -ENOMEM;
	c = &l->cpu[e->cpu];
	gap = c->valid ? e->seq - c->next : 0;
	if (gap >= 0x80000000u) /* seq going backwards: not a loss */
		gap = 0;
	c->valid = true;
	if (e->type == MKM_EV_LOST) {
		/* Its seq is the first event dropped: the count covers the
		 * hole it opens, whatever came before it. */
		c->next = e->seq + e->arg0;
		*n = (uint64_t)gap + e->arg0;
	} else {
		c->next = e->seq + 1;
		*n = gap;
	}
	l->total += *n;
	return 0;
}

void lost_free(struct lost *l)
{
	free(l->cpu);
	memset(l, 0, sizeof(*l));
}
