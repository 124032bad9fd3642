/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_doubt.h - mkm report --compensated: where compensation is unsure,
 * per thread (struct mon_comp_doubt, docs/compensation.md "Honesty"), kept
 * as the compensation stage reports it and printed with the raw and
 * compensated figures.
 */
#ifndef MKM_REPORT_DOUBT_H
#define MKM_REPORT_DOUBT_H

#include <stddef.h>

#include "libmonitor.h"

struct doubts {
	struct mon_comp_doubt *d;
	size_t n, cap;
};

/* Options for load_trace_compensated() that collect into @ds (@force:
 * MON_COMPENSATE_FORCE). */
struct mon_compensate_opts doubts_opts(struct doubts *ds, bool force);

/* mon_compensate_opts.doubt: keeps @d in @arg, a struct doubts. */
void doubts_collect(void *arg, const struct mon_comp_doubt *d);

/* The doubt of thread @tid, or NULL when the stage saw none of it. */
const struct mon_comp_doubt *doubt_of(const struct doubts *ds, uint32_t tid);

/* Why thread @d is unsure, in words, into @buf of @len bytes. */
const char *doubt_reason(const struct mon_comp_doubt *d, char *buf, size_t len);

/* The threads with anything at stake as a JSON member:
 * ,"doubts":[{"tid":..,"unsure":..,...},...] */
void doubts_json(const struct doubts *ds);

void doubts_free(struct doubts *ds);

#endif /* MKM_REPORT_DOUBT_H */
