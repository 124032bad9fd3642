/* SPDX-License-Identifier: GPL-2.0 */
/* access.h - who may monitor whom. */
#ifndef MKM_ACCESS_H
#define MKM_ACCESS_H

struct mkm_monitor;
struct task_struct;

int mkm_access_check(const struct mkm_monitor *mon, struct task_struct *task);

#endif /* MKM_ACCESS_H */
