/* SPDX-License-Identifier: GPL-2.0 */
/* sensor.h - the tracepoint probes that write events, and their switch. */
#ifndef MKM_SENSOR_H
#define MKM_SENSOR_H

#include <linux/types.h>

struct mkm_monitor;
struct mkm_tracked;
struct task_struct;

/*
 * Probes of this internal class keep the thread table right (inheritance at
 * fork, dropping a thread at a setuid exec, forgetting it when reaped):
 * registered while any monitor exists, recording or not.
 */
#define MKM_CLASS_TRACKING (1u << 31)

int mkm_sensor_init(void);
void mkm_sensor_exit(void);
/*
 * Registers the probes the given classes need, at once; those no longer
 * needed go at once or a while later, rationed when the caller is
 * (sensor.c says why).
 */
int mkm_sensor_update(u32 wanted, bool rationed);
/* Drops deferred since load, and MKM_STATS_DEFERRING while some are. */
u32 mkm_sensor_deferrals(void);
/* The event classes whose tracepoints this kernel has. */
u32 mkm_sensor_supported(void);

/*
 * Records the state of a thread now (ATTACH) and its name, if recording;
 * dumpable: the caller's verdict on it, just taken in process context.
 */
void mkm_sensor_attach(struct mkm_tracked *t, bool dumpable);
void mkm_sensor_detach(struct mkm_tracked *t, u32 reason);
void mkm_sensor_mark(struct mkm_monitor *mon, u64 value, bool trigger);
/* Forgets every CPU's interrupt clock (no sensor may be keeping them). */
void mkm_sensor_irq_clocks_reset(void);
int mkm_sensor_mark_own(u64 value, bool trigger);

#endif /* MKM_SENSOR_H */
