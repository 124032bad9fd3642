// SPDX-License-Identifier: GPL-2.0
/*
 * rings.c - a monitor's memory: its per-CPU rings, and what it is charged.
 *
 * Rings are unswappable kernel memory on a device any user may open, and so
 * is each open monitor (its object and bounce page). Both are charged to
 * the creator's memory cgroup (GFP_KERNEL_ACCOUNT) and, for a creator
 * without CAP_PERFMON or CAP_IPC_LOCK, to its user's locked_vm against
 * max_user_kb, as perf charges its buffers against perf_event_mlock_kb: N
 * open fds cannot take what the budget does not allow, whatever the memcg
 * setup.
 *
 * Rings are replaced (CONFIGURE, the first RESUME) under the monitor's
 * lock and read_lock, with no global lock: the allocation and the grace
 * period before the old rings are freed hold up no other monitor.
 */

#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "monitor.h"

static unsigned int max_user_kb = 65536;
module_param(max_user_kb, uint, 0644);
MODULE_PARM_DESC(
	max_user_kb,
	"KiB of monitors and rings (all CPUs counted) that one user may hold without CAP_PERFMON or CAP_IPC_LOCK (default 65536)");

/* Pages that rings of capacity records take on every possible CPU. */
static unsigned long rings_pages(u32 capacity)
{
	return num_possible_cpus() *
	       (PAGE_ALIGN(ring_alloc_size(capacity)) >> PAGE_SHIFT);
}

int mkm_charge(struct mkm_monitor *mon, unsigned long pages)
{
	struct user_struct *user = mon->creator->user;
	unsigned long limit = READ_ONCE(max_user_kb) >> (PAGE_SHIFT - 10);

	if (mon->unbudgeted)
		return 0;
	if (atomic_long_add_return(pages, &user->locked_vm) > limit) {
		atomic_long_sub(pages, &user->locked_vm);
		return -EPERM;
	}
	return 0;
}

void mkm_uncharge(struct mkm_monitor *mon, unsigned long pages)
{
	if (!mon->unbudgeted)
		atomic_long_sub(pages, &mon->creator->user->locked_vm);
}

static void rings_wakeup(struct irq_work *work)
{
	struct mkm_cpu_buf *cb = container_of(work, struct mkm_cpu_buf, wakeup);

	wake_up_interruptible(&cb->mon->readers);
}

static void rings_free_bufs(struct mkm_cpu_buf __percpu *bufs)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct mkm_cpu_buf *cb = per_cpu_ptr(bufs, cpu);

		irq_work_sync(&cb->wakeup);
		vfree(cb->ring);
	}
	free_percpu(bufs);
}

/* At destroy, once no sensor can see the monitor. */
void mkm_rings_free(struct mkm_monitor *mon)
{
	if (!mon->cpu)
		return;
	rings_free_bufs(mon->cpu);
	mkm_uncharge(mon, mon->charged);
}

/*
 * Gives mon rings of capacity records, waking readers at wakeup records,
 * in place of any it had (which must be empty and unmapped: -EBUSY if
 * mapped). Under mon->lock and mon->read_lock, with recording off.
 */
int mkm_rings_replace(struct mkm_monitor *mon, u32 capacity, u32 wakeup)
{
	struct mkm_cpu_buf __percpu *bufs, *old;
	unsigned long pages = rings_pages(capacity);
	int cpu, ret;

	lockdep_assert_held(&mon->read_lock);
	/* The new rings are charged before the old ones are given back. */
	ret = mkm_charge(mon, pages);
	if (ret)
		return ret;
	bufs = alloc_percpu_gfp(struct mkm_cpu_buf, GFP_KERNEL_ACCOUNT);
	if (!bufs) {
		mkm_uncharge(mon, pages);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		struct mkm_cpu_buf *cb = per_cpu_ptr(bufs, cpu);

		cb->mon = mon;
		init_irq_work(&cb->wakeup, rings_wakeup);
		/* vmalloc, not kvmalloc: its pages can be mapped (mmap). */
		cb->ring =
			__vmalloc(ring_alloc_size(capacity),
				  GFP_KERNEL_ACCOUNT | __GFP_ZERO |
					  __GFP_NOWARN | __GFP_RETRY_MAYFAIL);
		if (!cb->ring)
			goto err_free;
		ring_init(cb->ring, capacity, wakeup);
	}
	/* mmap() takes the rings under map_lock: none may be mapped now. */
	mutex_lock(&mon->map_lock);
	if (atomic_read(&mon->mapped)) {
		mutex_unlock(&mon->map_lock);
		ret = -EBUSY;
		goto err_free_rings;
	}
	old = mon->cpu;
	WRITE_ONCE(mon->cpu, bufs);
	mon->capacity = capacity;
	mutex_unlock(&mon->map_lock);
	if (old) {
		/* poll() looks at the rings without a lock, under RCU. */
		synchronize_rcu();
		rings_free_bufs(old);
		mkm_uncharge(mon, mon->charged);
	}
	mon->charged = pages;
	mon->wakeup_records = wakeup;
	return 0;

err_free:
	ret = -ENOMEM;
err_free_rings:
	rings_free_bufs(bufs);
	mkm_uncharge(mon, pages);
	return ret;
}
