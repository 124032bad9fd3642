// SPDX-License-Identifier: GPL-2.0
/*
 * access.c - who may monitor whom.
 *
 * ptrace_may_access() is not exported to modules, so its read-access rule is
 * re-implemented here for the monitor's creator (whose rights the fd
 * carries): a monitor created with CAP_PERFMON or CAP_SYS_ADMIN may track
 * any thread; otherwise
 *  - the creator's real uid and gid must equal the thread's real,
 *    effective and saved ones (__ptrace_may_access),
 *  - the thread must be in the creator's user namespace and its permitted
 *    capabilities a subset of the creator's, unless the creator had
 *    CAP_SYS_PTRACE (cap_ptrace_access_check): a file-capability binary
 *    run by the same user, or a thread outside a user namespace the
 *    creator made, is out of reach,
 *  - the thread must be dumpable and not a kernel thread.
 * The same rule is applied again when a tracked thread execs, so that a
 * setuid or file-capability binary drops out of the monitor; and its
 * credentials part (mkm_access_creds()) by the sensors whenever a tracked
 * thread's credentials change, before the exec probe too: its records are
 * withheld while they are refused (sensor.c). Dumpability is checked here
 * at thread_monitor and exec, and by the sensors only where the task's
 * mm cannot change under them (sensor_check_dumpable()). LSM hooks
 * (Yama's ptrace_scope) are not consulted.
 */

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/sched.h>

#include "access.h"
#include "compat.h"
#include "monitor.h"

static bool access_same_owner(const struct cred *c, const struct cred *tc)
{
	return uid_eq(c->uid, tc->uid) && uid_eq(c->uid, tc->euid) &&
	       uid_eq(c->uid, tc->suid) && gid_eq(c->gid, tc->gid) &&
	       gid_eq(c->gid, tc->egid) && gid_eq(c->gid, tc->sgid);
}

/* No more rights than the creator's, seen from the same user namespace. */
static bool access_no_more_caps(const struct mkm_monitor *mon,
				const struct cred *tc)
{
	const struct cred *c = mon->creator;

	return mon->ptrace_cap ||
	       (c->user_ns == tc->user_ns &&
		cap_issubset(tc->cap_permitted, c->cap_permitted));
}

bool mkm_access_creds(const struct mkm_monitor *mon, const struct cred *tc)
{
	return mon->perfmon || (access_same_owner(mon->creator, tc) &&
				access_no_more_caps(mon, tc));
}

/*
 * Returns 0 when mon may track task under tc, the task's objective
 * credentials that the caller holds (a reference, or an RCU read-side
 * section), -EPERM otherwise. The caller keeps tc as the credentials
 * found allowed, not a second read of the task's, which the task may
 * have replaced in between (an unshare(CLONE_NEWUSER) needs no privilege
 * and no lock the caller holds). Takes task_lock() (a sleeping lock on
 * PREEMPT_RT) unless task is current: callers in atomic context pass
 * current only (mkm_task_dumpable()).
 */
int mkm_access_check(const struct mkm_monitor *mon, struct task_struct *task,
		     const struct cred *tc)
{
	if (mon->perfmon)
		return 0;
	if (task->flags & PF_KTHREAD)
		return -EPERM;
	if (!mkm_access_creds(mon, tc))
		return -EPERM;
	return mkm_task_dumpable(task) ? 0 : -EPERM;
}
