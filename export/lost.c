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
	struct mkm_event hole;

	*n = 0;
	if (array_grow(&l->cpu, &l->nr_cpus, e->cpu, sizeof(*l->cpu)))
		return -ENOMEM;
	if (mon_seq_lost(&l->cpu[e->cpu], e, e->time_ns, &hole) > 0)
		*n = hole.arg0;
	if (e->type == MKM_EV_LOST)
		*n += e->arg0; /* it announces the hole after its seq */
	l->total += *n;
	return 0;
}

void lost_free(struct lost *l)
{
	free(l->cpu);
	memset(l, 0, sizeof(*l));
}
