/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every difference between the kernels mkm builds for, behind a
 * small named helper, so that the rest of the module reads as if there were
 * one kernel (lttng-modules keeps these in wrapper/, the kernel's backports
 * project in backport-include/).
 *
 * Each helper is chosen by a feature test where one exists (__has_include,
 * a macro the change defined), by LINUX_VERSION_CODE where none does, and
 * names the kernel version that changed it. The kernels tested are those of
 * tests/kernel/matrix (6.1 to 7.2, generic and PREEMPT_RT); anything from
 * 6.1 on should build.
 *
 * Also here: the tracepoints' own declarations, so that every probe's
 * prototype is checked against its tracepoint when the module is built
 * (MKM_CHECK_PROBE()): a tracepoint whose arguments change fails the build,
 * where a mismatched probe would otherwise be called with the wrong
 * arguments, or trap under kCFI.
 */
#ifndef MKM_COMPAT_H
#define MKM_COMPAT_H

#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/prio.h>
#include <linux/sched/task.h>
#include <linux/version.h>

/*
 * 7.2: dumpability moved from mm->flags to task->exec_state, under RCU.
 * Debian 12's sparse (make style, on 6.1's headers) has no __has_include:
 * it checks the older branch.
 */
#ifdef __CHECKER__
#define MKM_HAVE_EXEC_STATE 0
#include <linux/sched/coredump.h>
#elif __has_include("linux/sched/exec_state.h")
#define MKM_HAVE_EXEC_STATE 1
#include <linux/sched/exec_state.h>
#else
#define MKM_HAVE_EXEC_STATE 0
#include <linux/sched/coredump.h>
#endif

/*
 * The tracepoints' declarations, for the probes' prototype check, after
 * the types their prototypes name (else each is a new type there).
 */
#include <linux/binfmts.h>
#include <linux/interrupt.h>
#include <trace/events/irq.h>
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>
#include <trace/events/task.h>
#if defined(CONFIG_X86) && defined(CONFIG_X86_LOCAL_APIC)
#include <asm/trace/irq_vectors.h>
#define MKM_HAVE_X86_VECTORS 1
#else
#define MKM_HAVE_X86_VECTORS 0
#endif
/* arm64's IPIs, by reason (arch_irq.h). */
#ifdef CONFIG_ARM64
#include <trace/events/ipi.h>
#endif

/* Fails the build unless probe has tracepoint tp's prototype. */
#define MKM_CHECK_PROBE(tp, probe) check_trace_callback_type_##tp(probe)

/*
 * Whether task may be dumped and ptrace'd by its owner: dumpability as
 * ptrace's read-access rule tests it. Safe in atomic context for current
 * (the exec probe, under preemption disabled, where task_lock() would
 * sleep on PREEMPT_RT) and for any task on 7.2 on; else it takes
 * task_lock(), a sleeping lock on PREEMPT_RT.
 */
#if MKM_HAVE_EXEC_STATE
static inline bool mkm_task_dumpable(struct task_struct *task)
{
	const struct task_exec_state *es;
	bool ok;

	rcu_read_lock();
	es = rcu_dereference(task->exec_state);
	ok = !es || es->dumpable == TASK_DUMPABLE_OWNER;
	rcu_read_unlock();
	return ok;
}
#else
static inline bool mkm_task_dumpable(struct task_struct *task)
{
	bool ok;

	/* current's mm changes only by current, at exec: no lock needed. */
	if (task == current)
		return !task->mm || get_dumpable(task->mm) == SUID_DUMP_USER;
	task_lock(task);
	ok = !task->mm || get_dumpable(task->mm) == SUID_DUMP_USER;
	task_unlock(task);
	return ok;
}
#endif

/*
 * The same for a task in the scheduler's hands, with no lock: the task
 * switching out (current) or in (not running, so not changing its mm).
 * Dumpability is a task's own to change (prctl, exec, a credentials
 * change), or a sibling's that shares its mm: either is seen at the
 * task's next switch.
 */
#if MKM_HAVE_EXEC_STATE
static __always_inline bool mkm_task_dumpable_sched(struct task_struct *task)
{
	return mkm_task_dumpable(task);
}
#else
static __always_inline bool mkm_task_dumpable_sched(struct task_struct *task)
{
	struct mm_struct *mm = READ_ONCE(task->mm);

	return !mm || get_dumpable(mm) == SUID_DUMP_USER;
}
#endif

/*
 * sched_process_exit's prototype: 6.16 added whether the thread group dies
 * with the task (the build-time check above catches a wrong guess).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define MKM_TP_PROTO_SCHED_PROCESS_EXIT struct task_struct *p, bool group_dead
#else
#define MKM_TP_PROTO_SCHED_PROCESS_EXIT struct task_struct *p
#endif

/*
 * The system's per-CPU workqueue, which schedule_work() uses. 6.17 named
 * it system_percpu_wq (in some 6.17 stable releases, in all from 6.18),
 * leaving system_wq a deprecated alias, which 7.2 warns about on first
 * use ("enqueued on deprecated workqueue") and which is to go.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
#define mkm_percpu_wq system_percpu_wq
#else
#define mkm_percpu_wq system_wq
#endif

/*
 * A mapping's flags, changed: from 6.3 vm_flags is read-only but through
 * the mm's wrappers (vm_flags_mod() and its kin, "mm: introduce
 * vma->vm_flags wrapper functions"); before, a plain field.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
static inline void mkm_vm_flags_mod(struct vm_area_struct *vma,
				    unsigned long set, unsigned long clear)
{
	vm_flags_mod(vma, set, clear);
}
#else
static inline void mkm_vm_flags_mod(struct vm_area_struct *vma,
				    unsigned long set, unsigned long clear)
{
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
}
#endif

/*
 * The fair class's state a wakeup's and a tick's preemption read
 * (MKM_CLASS_SCHED_STATE): the sched_entity, public in linux/sched.h.
 * A task is the fair class's by its policy, unless boosted into another
 * (rt_mutex priority inheritance). Two entities compete, and the rule
 * compares them, on one cfs_rq: with group scheduling, the one each
 * entity's pointer names (compared, never read: its type is the
 * scheduler's own); without it, their CPU's. 6.6 made the class EEVDF,
 * whose entities have a virtual deadline.
 */
static inline bool mkm_task_fair(const struct task_struct *p)
{
	unsigned int policy = READ_ONCE(p->policy);

	return (policy == SCHED_NORMAL || policy == SCHED_BATCH ||
		policy == SCHED_IDLE) &&
	       READ_ONCE(p->prio) >= MAX_RT_PRIO;
}

static inline bool mkm_tasks_compete(const struct task_struct *a,
				     const struct task_struct *b)
{
#ifdef CONFIG_FAIR_GROUP_SCHED
	return READ_ONCE(a->se.cfs_rq) == READ_ONCE(b->se.cfs_rq);
#else
	return task_cpu(a) == task_cpu(b);
#endif
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#define MKM_HAVE_EEVDF 1
#define mkm_task_deadline(p) READ_ONCE((p)->se.deadline)
#else
#define MKM_HAVE_EEVDF 0
#define mkm_task_deadline(p) 0ull
#endif

#endif /* MKM_COMPAT_H */
