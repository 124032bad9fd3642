/* SPDX-License-Identifier: GPL-2.0 */
/* access.h - who may monitor whom. */
#ifndef MKM_ACCESS_H
#define MKM_ACCESS_H

struct cred;
struct mkm_monitor;
struct task_struct;

int mkm_access_check(const struct mkm_monitor *mon, struct task_struct *task,
		     const struct cred *tc);
/* The credentials part of it alone, for a sensor: no lock taken. */
bool mkm_access_creds(const struct mkm_monitor *mon, const struct cred *tc);

#endif /* MKM_ACCESS_H */
