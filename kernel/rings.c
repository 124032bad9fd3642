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
 *
 * The rings a CONFIGURE replaces are kept, still charged, as the
 * monitor's spare, and a later CONFIGURE that asks for their capacity
 * takes them back instead of allocating: freeing vmalloc memory makes the
 * kernel's lazy purge of its mappings flush the TLB of every CPU (an IPI
 * to each, isolated ones included) once some tens of MiB were freed, so a
 * loop between two ring sizes would otherwise put that noise on every CPU
 * at a rate of its own choosing. The spare goes a second after the
 * CONFIGURE that made it (RINGS_SPARE_LINGER, so that its charge is not
 * kept from the user's other monitors for long), when a third size is
 * asked for, when its charge would push the user past max_user_kb, and
 * at destroy: a loop frees at most one set of rings a second.
 */

#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "compat.h"
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

#define RINGS_SPARE_LINGER HZ

/* Frees the spare rings, if any, and gives their charge back. */
static void rings_free_spare(struct mkm_monitor *mon)
{
	if (!mon->spare)
		return;
	rings_free_bufs(mon->spare);
	mkm_uncharge(mon, rings_pages(mon->spare_capacity));
	mon->spare = NULL;
	mon->spare_capacity = 0;
}

/*
 * The spare's linger is over. Under mon->lock, which rings_replace()
 * holds, not read_lock: a reader stuck in its copy would hold up a
 * system worker.
 */
static void rings_spare_fn(struct work_struct *work)
{
	struct mkm_monitor *mon = container_of(to_delayed_work(work),
					       struct mkm_monitor, spare_work);

	mutex_lock(&mon->lock);
	rings_free_spare(mon);
	mutex_unlock(&mon->lock);
}

void mkm_rings_init(struct mkm_monitor *mon)
{
	INIT_DELAYED_WORK(&mon->spare_work, rings_spare_fn);
}

/* At destroy, once no sensor can see the monitor. */
void mkm_rings_free(struct mkm_monitor *mon)
{
	cancel_delayed_work_sync(&mon->spare_work);
	rings_free_spare(mon);
	if (!mon->cpu)
		return;
	rings_free_bufs(mon->cpu);
	mkm_uncharge(mon, mon->charged);
}

/* Rings of capacity records, allocated and charged, or NULL (*err). */
static struct mkm_cpu_buf __percpu *rings_alloc(struct mkm_monitor *mon,
						u32 capacity, u32 wakeup,
						u32 flags, int *err)
{
	unsigned long pages = rings_pages(capacity);
	struct mkm_cpu_buf __percpu *bufs;
	int cpu;

	/* Charged before the old rings are given back. */
	*err = mkm_charge(mon, pages);
	if (*err == -EPERM && mon->spare) {
		/* The spare is what stands in the way: it goes first. */
		rings_free_spare(mon);
		*err = mkm_charge(mon, pages);
	}
	if (*err)
		return NULL;
	*err = -ENOMEM;
	bufs = alloc_percpu_gfp(struct mkm_cpu_buf, GFP_KERNEL_ACCOUNT);
	if (!bufs)
		goto err_uncharge;
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
		ring_init(cb->ring, capacity, wakeup, flags);
	}
	return bufs;

err_free:
	rings_free_bufs(bufs);
err_uncharge:
	mkm_uncharge(mon, pages);
	return NULL;
}

/*
 * Empties rings for reuse: their control and reader pages zeroed as at
 * allocation. Their records are this monitor's own, never read again:
 * every reader reads from the new tail, 0, up to the new head.
 */
static void rings_reset(struct mkm_cpu_buf __percpu *bufs, u32 capacity,
			u32 wakeup, u32 flags)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct mkm_ring *r = per_cpu_ptr(bufs, cpu)->ring;

		memset(r, 0, offsetof(struct mkm_ring, ev));
		ring_init(r, capacity, wakeup, flags);
	}
}

/* The spare rings, if of capacity records, emptied for reuse. */
static struct mkm_cpu_buf __percpu *
rings_take_spare(struct mkm_monitor *mon, u32 capacity, u32 wakeup, u32 flags)
{
	struct mkm_cpu_buf __percpu *bufs = mon->spare;

	if (!bufs || mon->spare_capacity != capacity)
		return NULL;
	rings_reset(bufs, capacity, wakeup, flags);
	mon->spare = NULL;
	mon->spare_capacity = 0;
	return bufs;
}

/*
 * Gives mon rings of capacity records, waking readers at wakeup records,
 * with MKM_RING_* flags, in place of any it had (which must be empty and
 * unmapped: -EBUSY if mapped). Under mon->lock and mon->read_lock, with
 * recording off.
 */
int mkm_rings_replace(struct mkm_monitor *mon, u32 capacity, u32 wakeup,
		      u32 flags)
{
	struct mkm_cpu_buf __percpu *bufs, *old;
	unsigned long pages = rings_pages(capacity);
	u32 old_capacity = mon->capacity;
	bool reused = false;
	int cpu, ret = 0;

	lockdep_assert_held(&mon->read_lock);
	/*
	 * The same capacity, another wakeup or flags: the rings stay, emptied, where
	 * no sensor writes (suspended, past its grace period) and, under
	 * map_lock, none is mapped.
	 */
	if (mon->cpu && capacity == mon->capacity) {
		mutex_lock(&mon->map_lock);
		if (!atomic_read(&mon->mapped)) {
			rings_reset(mon->cpu, capacity, wakeup, flags);
			mon->wakeup_records = wakeup;
			WRITE_ONCE(mon->ring_flags, flags);
		} else {
			ret = -EBUSY;
		}
		mutex_unlock(&mon->map_lock);
		return ret;
	}
	bufs = rings_take_spare(mon, capacity, wakeup, flags);
	if (bufs)
		reused = true;
	else
		bufs = rings_alloc(mon, capacity, wakeup, flags, &ret);
	if (!bufs)
		return ret;
	/* mmap() takes the rings under map_lock: none may be mapped now. */
	mutex_lock(&mon->map_lock);
	if (atomic_read(&mon->mapped)) {
		mutex_unlock(&mon->map_lock);
		if (reused) {
			mon->spare = bufs;
			mon->spare_capacity = capacity;
		} else {
			rings_free_bufs(bufs);
			mkm_uncharge(mon, pages);
		}
		return -EBUSY;
	}
	old = mon->cpu;
	WRITE_ONCE(mon->cpu, bufs);
	mon->capacity = capacity;
	mutex_unlock(&mon->map_lock);
	if (old) {
		/* poll() looks at the rings without a lock, under RCU. */
		synchronize_rcu();
		for_each_possible_cpu(cpu)
			irq_work_sync(&per_cpu_ptr(old, cpu)->wakeup);
		/* Kept, charged, for a CONFIGURE back to this size. */
		rings_free_spare(mon);
		mon->spare = old;
		mon->spare_capacity = old_capacity;
		mod_delayed_work(mkm_percpu_wq, &mon->spare_work,
				 RINGS_SPARE_LINGER);
	}
	mon->charged = pages;
	mon->wakeup_records = wakeup;
	WRITE_ONCE(mon->ring_flags, flags);
	return 0;
}
