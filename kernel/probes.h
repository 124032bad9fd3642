/* SPDX-License-Identifier: GPL-2.0 */
/* probes.h - a probe of the sensor and its tracepoint, for probes.c. */
#ifndef MKM_PROBES_H
#define MKM_PROBES_H

#include <linux/types.h>

struct tracepoint;

struct mkm_probe {
	const char *name; /* the tracepoint's */
	void *func;
	u32 class;
	bool optional; /* the class works without it */
	struct tracepoint *tp; /* found at load; NULL: not in this kernel */
	bool registered;
};

/* sensor.c's table of every probe, *nr of them. */
struct mkm_probe *mkm_sensor_probes(unsigned int *nr);

#endif /* MKM_PROBES_H */
