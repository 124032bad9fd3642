// SPDX-License-Identifier: GPL-2.0
/*
 * access.c - who may monitor whom.
 *
 * ptrace_may_access() is not exported to modules, so its read-access rule is
 * re-implemented here for the monitor's creator (whose rights the fd
 * carries): a monitor created with CAP_PERFMON or CAP_SYS_ADMIN may track
 * any thread; otherwise the creator's real uid and gid must equal the
 * thread's real, effective and saved ones, the thread must be dumpable, and
 * it must not be a kernel thread. The same rule is applied again when a
 * tracked thread execs, so that a setuid binary drops out of the monitor.
 * LSM hooks (Yama's ptrace_scope) are not consulted.
 */

#include <linux/cred.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>

#include "access.h"
#include "monitor.h"

static bool access_same_owner(const struct mkm_monitor *mon,
			      const struct cred *tc)
{
	return uid_eq(mon->uid, tc->uid) && uid_eq(mon->uid, tc->euid) &&
	       uid_eq(mon->uid, tc->suid) && gid_eq(mon->gid, tc->gid) &&
	       gid_eq(mon->gid, tc->egid) && gid_eq(mon->gid, tc->sgid);
}

/* Returns 0 when mon may track task, -EPERM otherwise. Does not sleep. */
int mkm_access_check(const struct mkm_monitor *mon, struct task_struct *task)
{
	bool ok;

	if (mon->perfmon)
		return 0;
	if (task->flags & PF_KTHREAD)
		return -EPERM;

	rcu_read_lock();
	ok = access_same_owner(mon, __task_cred(task));
	rcu_read_unlock();
	if (!ok)
		return -EPERM;

	task_lock(task);
	ok = !task->mm || get_dumpable(task->mm) == SUID_DUMP_USER;
	task_unlock(task);
	return ok ? 0 : -EPERM;
}
