// SPDX-License-Identifier: GPL-2.0
/*
 * monitor.c - the monitor object: configure, resume, suspend, track threads,
 * drain the rings, terminate.
 *
 * Lifetimes. A monitor lives from open to last close. The sensors reach it
 * only through tracked-thread entries and only while mon->recording is
 * non-zero; destroy unhashes every entry, then waits for a tracepoint grace
 * period, after which no sensor can hold a pointer to the monitor or its
 * entries. Suspend waits for a grace period too, so that when it returns no
 * sensor is writing and the reader may report drops at the end of a ring.
 */

#include <linux/cred.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "access.h"
#include "monitor.h"
#include "sensor.h"
#include "threads.h"

/* All monitors, and the probe registration they imply. */
static LIST_HEAD(monitors);
static DEFINE_MUTEX(monitors_lock);
struct mkm_monitor *mkm_system_monitor;

u32 mkm_monitors_wanted(void)
{
	struct mkm_monitor *mon;
	u32 wanted = 0;

	lockdep_assert_held(&monitors_lock);
	list_for_each_entry(mon, &monitors, link) {
		wanted |= MKM_CLASS_TRACKING;
		if (mon->resumed)
			wanted |= mon->classes;
	}
	return wanted;
}

static int monitors_update_sensors(void)
{
	lockdep_assert_held(&monitors_lock);
	return mkm_sensor_update(mkm_monitors_wanted());
}

static void monitor_wakeup(struct irq_work *work)
{
	struct mkm_cpu_buf *cb = container_of(work, struct mkm_cpu_buf, wakeup);

	wake_up_interruptible(&cb->mon->readers);
}

/*
 * Rings are unswappable kernel memory on a device any user may open. They
 * are charged to the creator's memory cgroup (GFP_KERNEL_ACCOUNT) and, for
 * a creator without CAP_PERFMON or CAP_IPC_LOCK, to its user's locked_vm
 * against max_user_kb, as perf charges its buffers against
 * perf_event_mlock_kb: N open fds cannot take what the budget does not
 * allow, whatever the memcg setup.
 */
static unsigned int max_user_kb = 65536;
module_param(max_user_kb, uint, 0644);
MODULE_PARM_DESC(
	max_user_kb,
	"KiB of rings (all CPUs counted) that one user's monitors may hold without CAP_PERFMON or CAP_IPC_LOCK (default 65536)");

/*
 * What a monitor created without CAP_PERFMON learns about other threads,
 * as perf_event_paranoid does it: 2 (the default) shows a peer (the next
 * or previous thread of a switch, a waker) only when the monitor tracks
 * it, and refuses the IRQ class (the timestamped IRQ numbers of every
 * interrupt that lands on a tracked thread time keystrokes); 1 shows peers
 * but refuses IRQs; 0 allows both. Taken when a monitor is created.
 */
static int paranoid = 2;
module_param(paranoid, int, 0644);
MODULE_PARM_DESC(
	paranoid,
	"without CAP_PERFMON: 2 hide untracked peers and refuse the IRQ class, 1 refuse the IRQ class, 0 allow both (default 2)");

/* The classes of "0: the default" for this monitor. */
static u32 monitor_default_classes(const struct mkm_monitor *mon)
{
	return mon->no_irq ? MKM_CLASS_DEFAULT & ~MKM_CLASS_IRQ :
			     MKM_CLASS_DEFAULT;
}

/* Pages that rings of capacity records take on every possible CPU. */
static unsigned long rings_pages(u32 capacity)
{
	return num_possible_cpus() *
	       (PAGE_ALIGN(ring_alloc_size(capacity)) >> PAGE_SHIFT);
}

static int monitor_charge(struct mkm_monitor *mon, unsigned long pages)
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

static void monitor_uncharge(struct mkm_monitor *mon, unsigned long pages)
{
	if (!mon->unbudgeted)
		atomic_long_sub(pages, &mon->creator->user->locked_vm);
}

static void rings_free(struct mkm_cpu_buf __percpu *bufs)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct mkm_cpu_buf *cb = per_cpu_ptr(bufs, cpu);

		irq_work_sync(&cb->wakeup);
		vfree(cb->ring);
	}
	free_percpu(bufs);
}

static int monitor_alloc_rings(struct mkm_monitor *mon, u32 capacity,
			       u32 wakeup)
{
	struct mkm_cpu_buf __percpu *bufs, *old;
	unsigned long pages = rings_pages(capacity);
	int cpu, ret;

	/* The new rings are charged before the old ones are given back. */
	ret = monitor_charge(mon, pages);
	if (ret)
		return ret;
	bufs = alloc_percpu_gfp(struct mkm_cpu_buf, GFP_KERNEL_ACCOUNT);
	if (!bufs) {
		monitor_uncharge(mon, pages);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		struct mkm_cpu_buf *cb = per_cpu_ptr(bufs, cpu);

		cb->mon = mon;
		init_irq_work(&cb->wakeup, monitor_wakeup);
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
		/* poll() looks at the rings without the mutex, under RCU. */
		synchronize_rcu();
		rings_free(old);
		monitor_uncharge(mon, mon->charged);
	}
	mon->charged = pages;
	mon->wakeup_records = wakeup;
	return 0;

err_free:
	ret = -ENOMEM;
err_free_rings:
	rings_free(bufs);
	monitor_uncharge(mon, pages);
	return ret;
}

/* Whether a reader has anything left: records, or drops not yet reported. */
static bool monitor_unread(struct mkm_monitor *mon)
{
	int cpu;

	if (!mon->cpu)
		return false;
	for_each_possible_cpu(cpu) {
		struct mkm_ring *r = per_cpu_ptr(mon->cpu, cpu)->ring;

		if (ring_buffered(r) ||
		    READ_ONCE(r->lost) != READ_ONCE(r->rd.read_lost))
			return true;
	}
	return false;
}

struct mkm_monitor *mkm_monitor_create(void)
{
	struct mkm_monitor *mon = kzalloc(sizeof(*mon), GFP_KERNEL);
	int ret;

	if (!mon)
		return NULL;
	mon->bounce = (struct mkm_event *)__get_free_page(GFP_KERNEL);
	if (!mon->bounce)
		goto err_free_mon;
	mutex_init(&mon->lock);
	mutex_init(&mon->map_lock);
	init_waitqueue_head(&mon->readers);
	INIT_LIST_HEAD(&mon->threads);
	mon->creator = get_current_cred();
	mon->perfmon = perfmon_capable();
	mon->hide_peers = !mon->perfmon && READ_ONCE(paranoid) >= 2;
	mon->no_irq = !mon->perfmon && READ_ONCE(paranoid) >= 1;
	mon->classes = monitor_default_classes(mon);
	/*
	 * Asked of every opener, needed or not: no audit record for the many
	 * that lack them, no PF_SUPERPRIV for those that have them.
	 */
	mon->ptrace_cap = has_capability_noaudit(current, CAP_SYS_PTRACE);
	mon->unbudgeted = mon->perfmon ||
			  has_capability_noaudit(current, CAP_IPC_LOCK);
	mon->pid_ns = get_pid_ns(task_active_pid_ns(current));

	mutex_lock(&monitors_lock);
	list_add(&mon->link, &monitors);
	ret = monitors_update_sensors();
	if (ret) {
		list_del(&mon->link);
		monitors_update_sensors();
	}
	mutex_unlock(&monitors_lock);
	if (ret)
		goto err_put_ns;
	return mon;

err_put_ns:
	put_pid_ns(mon->pid_ns);
	put_cred(mon->creator);
	free_page((unsigned long)mon->bounce);
err_free_mon:
	kfree(mon);
	return NULL;
}

/*
 * Threads attached or let go per hold of mkm_threads_lock: up to
 * MKM_THREADS_PER_MONITOR_MAX of them at once would keep interrupts off
 * for milliseconds.
 */
#define ATTACH_BATCH 256

void mkm_monitor_destroy(struct mkm_monitor *mon)
{
	struct mkm_tracked *t, *next;
	LIST_HEAD(gone);

	WRITE_ONCE(mon->recording, 0);
	/* In batches, as the resume attaches them: interrupts are off. */
	raw_spin_lock_irq(&mkm_threads_lock);
	mon->dying = true;
	while (!list_empty(&mon->threads)) {
		unsigned int n = 0;

		list_for_each_entry_safe(t, next, &mon->threads, mon_link) {
			mkm_threads_del_locked(t);
			list_add(&t->mon_link, &gone);
			if (++n == ATTACH_BATCH)
				break;
		}
		raw_spin_unlock_irq(&mkm_threads_lock);
		cond_resched();
		raw_spin_lock_irq(&mkm_threads_lock);
	}
	raw_spin_unlock_irq(&mkm_threads_lock);

	mutex_lock(&monitors_lock);
	list_del(&mon->link);
	if (mkm_system_monitor == mon)
		WRITE_ONCE(mkm_system_monitor, NULL);
	monitors_update_sensors();
	mutex_unlock(&monitors_lock);

	/* After this no sensor can see the monitor or its entries. */
	tracepoint_synchronize_unregister();
	list_for_each_entry_safe(t, next, &gone, mon_link)
		mkm_threads_free(t);
	if (mon->cpu) {
		rings_free(mon->cpu);
		monitor_uncharge(mon, mon->charged);
	}
	put_pid_ns(mon->pid_ns);
	put_cred(mon->creator);
	free_page((unsigned long)mon->bounce);
	kfree(mon);
}

int mkm_monitor_configure(struct mkm_monitor *mon, struct mkm_config *cfg)
{
	u64 capacity, wakeup;
	int ret;

	/* total_bytes is output only: a returned config may be passed back. */
	if (cfg->reserved[0] || cfg->reserved[1])
		return -EINVAL;
	if (cfg->classes & ~MKM_CLASS_ALL || cfg->flags & ~MKM_CONFIG_ALL)
		return -EINVAL;
	if (!cfg->ring_bytes || cfg->ring_bytes > MKM_RING_MAX_BYTES)
		return -EINVAL;
	if (cfg->classes & MKM_CLASS_IRQ && mon->no_irq)
		return -EACCES;
	/* Every thread of the machine, kernel threads too: CAP_PERFMON. */
	if (cfg->flags & MKM_CONFIG_SYSTEM && !mon->perfmon)
		return -EPERM;
	if (cfg->classes & ~mkm_sensor_supported())
		return -EOPNOTSUPP;
	capacity = roundup_pow_of_two(
			   max_t(u64, cfg->ring_bytes, MKM_RING_MIN_BYTES)) /
		   sizeof(struct mkm_event);
	if (cfg->wakeup_bytes > capacity * sizeof(struct mkm_event))
		return -EINVAL;
	/* Rings are unswappable: never let one monitor take half the RAM. */
	if (capacity * sizeof(struct mkm_event) * num_possible_cpus() >
	    (totalram_pages() << PAGE_SHIFT) / 2)
		return -ENOMEM;
	wakeup = cfg->wakeup_bytes ? DIV_ROUND_UP(cfg->wakeup_bytes,
						  sizeof(struct mkm_event)) :
				     capacity / 2;

	mutex_lock(&mon->lock);
	/* Held across: one system-wide monitor, decided with the rest. */
	mutex_lock(&monitors_lock);
	ret = -EBUSY;
	if (mon->resumed || monitor_unread(mon) || atomic_read(&mon->mapped))
		goto out;
	if (cfg->flags & MKM_CONFIG_SYSTEM && mkm_system_monitor &&
	    mkm_system_monitor != mon)
		goto out;
	ret = 0;
	if (capacity != mon->capacity || wakeup != mon->wakeup_records)
		ret = monitor_alloc_rings(mon, capacity, wakeup);
	if (ret)
		goto out;
	/* First, so that threads created from now on are tracked too. */
	WRITE_ONCE(mon->system, cfg->flags & MKM_CONFIG_SYSTEM);
	if (mon->system)
		WRITE_ONCE(mkm_system_monitor, mon);
	else if (mkm_system_monitor == mon)
		WRITE_ONCE(mkm_system_monitor, NULL);
	mon->classes = cfg->classes ? cfg->classes :
				      monitor_default_classes(mon);
	WRITE_ONCE(mon->inherit, cfg->flags & MKM_CONFIG_INHERIT);
	cfg->classes = mon->classes;
	cfg->ring_bytes = capacity * sizeof(struct mkm_event);
	cfg->total_bytes = cfg->ring_bytes * num_possible_cpus();
	cfg->wakeup_bytes = wakeup * sizeof(struct mkm_event);
out:
	mutex_unlock(&monitors_lock);
	mutex_unlock(&mon->lock);
	return ret;
}

/*
 * The rings hold the scheduler clock (see sensor.c); user space gets
 * CLOCK_MONOTONIC. This is the offset between the two for cpu's clock at
 * *t, taken between two reads of it so that it is centred. Both clocks
 * count the same cycles, so it moves only as NTP slews CLOCK_MONOTONIC (at
 * most 500 ppm): each read maps its records with the offsets taken at the
 * previous read (or the resume) and now, interpolated (ring_clock), so a
 * record that waited long in the ring is not moved by the slew since.
 */
static void monitor_clock_point(int cpu, u64 *t, s64 *off)
{
	unsigned long irqflags;
	u64 before, mono, after;

	local_irq_save(irqflags);
	before = sched_clock_cpu(cpu);
	mono = ktime_get_mono_fast_ns();
	after = sched_clock_cpu(cpu);
	local_irq_restore(irqflags);
	*t = before + (after - before) / 2;
	*off = mono - *t;
}

int mkm_monitor_clock(struct mkm_clock *clk)
{
	if (clk->reserved)
		return -EINVAL;
	if (clk->cpu >= nr_cpu_ids || !cpu_possible(clk->cpu))
		return -EINVAL;
	monitor_clock_point(clk->cpu, &clk->time_ns, &clk->offset_ns);
	return 0;
}

static void monitor_clock_points(struct mkm_monitor *mon)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct mkm_cpu_buf *b = per_cpu_ptr(mon->cpu, cpu);

		monitor_clock_point(cpu, &b->clock_t, &b->clock_off);
	}
}

/*
 * Each thread starts in a known state, whatever happened while off: an
 * ATTACH for every tracked thread, ATTACH_BATCH at a time with interrupts
 * off, then the lock is dropped so the CPU can take interrupts and
 * reschedule. A bookmark in the list keeps the place: threads may be reaped
 * (unlinked) or inherited (added at the tail, attached too) meanwhile;
 * thread_monitor() waits for mon->lock, held.
 */
static void monitor_attach_all(struct mkm_monitor *mon)
{
	struct list_head bookmark;

	lockdep_assert_held(&mon->lock);
	raw_spin_lock_irq(&mkm_threads_lock);
	list_add(&bookmark, &mon->threads);
	while (bookmark.next != &mon->threads) {
		struct list_head *pos = bookmark.next;
		unsigned int n;

		for (n = 0; n < ATTACH_BATCH && pos != &mon->threads; n++) {
			mkm_sensor_attach(
				list_entry(pos, struct mkm_tracked, mon_link));
			pos = pos->next;
		}
		list_move_tail(&bookmark, pos);
		if (pos == &mon->threads)
			break;
		raw_spin_unlock_irq(&mkm_threads_lock);
		cond_resched();
		raw_spin_lock_irq(&mkm_threads_lock);
	}
	list_del(&bookmark);
	raw_spin_unlock_irq(&mkm_threads_lock);
}

/*
 * A system-wide monitor takes every thread of the machine, TRACK_BATCH at a
 * time: a walk of the task list under RCU (no allocation there) picks
 * threads that no monitor tracks yet and takes a reference on each; then
 * each gets its entry (GFP_KERNEL) and is added as thread_monitor() adds,
 * the lock taken per thread so interrupts are off only briefly. Threads
 * created meanwhile are taken by the fork probe (mon->system is set since
 * CONFIGURE). The walk ends when a pass adds nothing. A last pass counts
 * the threads other monitors keep (busy_threads).
 */
#define TRACK_BATCH 64

static unsigned int monitor_pick_untracked(struct mkm_monitor *mon,
					   struct task_struct **batch,
					   unsigned int *busy)
{
	struct task_struct *g, *p;
	unsigned int n = 0;

	*busy = 0;
	rcu_read_lock();
	/* The table is read as the sensors read it: preemption off. */
	preempt_disable();
	for_each_process_thread(g, p) {
		struct mkm_tracked *t = mkm_threads_lookup(p);

		if (t) {
			*busy += t->mon != mon;
			continue;
		}
		if (n == TRACK_BATCH || p->flags & PF_EXITING || !pid_alive(p))
			continue;
		get_task_struct(p);
		batch[n++] = p;
	}
	preempt_enable();
	rcu_read_unlock();
	return n;
}

static void monitor_track_all(struct mkm_monitor *mon)
{
	struct task_struct *batch[TRACK_BATCH];
	unsigned int n, i, added, busy;

	lockdep_assert_held(&mon->lock);
	do {
		n = monitor_pick_untracked(mon, batch, &busy);
		added = 0;
		for (i = 0; i < n; i++) {
			struct task_struct *p = batch[i];
			pid_t tid = task_pid_nr_ns(p, mon->pid_ns);
			struct mkm_tracked *t =
				tid ? mkm_threads_new(p, mon, tid, tid) : NULL;
			int ret = -ESRCH;

			if (t) {
				raw_spin_lock_irq(&mkm_threads_lock);
				if (pid_alive(p))
					ret = mkm_threads_add(t);
				raw_spin_unlock_irq(&mkm_threads_lock);
				if (ret)
					mkm_threads_free(t);
				else
					added++;
			}
			put_task_struct(p);
		}
		cond_resched();
	} while (added);
	mon->busy_threads = busy;
}

int mkm_monitor_resume(struct mkm_monitor *mon)
{
	int ret = 0;

	mutex_lock(&mon->lock);
	if (mon->resumed)
		goto out;
	if (!mon->cpu) {
		u32 capacity =
			MKM_RING_DEFAULT_BYTES / sizeof(struct mkm_event);

		ret = monitor_alloc_rings(mon, capacity, capacity / 2);
		if (ret)
			goto out;
	}
	mutex_lock(&monitors_lock);
	mon->resumed = true;
	ret = monitors_update_sensors();
	if (ret) {
		mon->resumed = false;
		monitors_update_sensors();
	}
	mutex_unlock(&monitors_lock);
	if (ret)
		goto out;
	if (mon->system)
		monitor_track_all(mon);
	/* The first point of the clock mapping, before any record. */
	monitor_clock_points(mon);
	/* Rings before the flag: sensors test the flag, then use the rings. */
	smp_store_release(&mon->recording, mon->classes);

	monitor_attach_all(mon);
out:
	mutex_unlock(&mon->lock);
	return ret;
}

int mkm_monitor_suspend(struct mkm_monitor *mon)
{
	mutex_lock(&mon->lock);
	if (mon->resumed) {
		WRITE_ONCE(mon->recording, 0);
		mutex_lock(&monitors_lock);
		mon->resumed = false;
		monitors_update_sensors();
		mutex_unlock(&monitors_lock);
		/* No sensor is still writing when suspend returns. */
		tracepoint_synchronize_unregister();
		wake_up_interruptible(&mon->readers);
	}
	mutex_unlock(&mon->lock);
	return 0;
}

/* The task with this tid in the monitor's PID namespace, with a reference. */
static struct task_struct *monitor_find_task(struct mkm_monitor *mon, pid_t tid)
{
	struct task_struct *task;

	rcu_read_lock();
	task = pid_task(find_pid_ns(tid, mon->pid_ns), PIDTYPE_PID);
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	return task;
}

int mkm_monitor_thread(struct mkm_monitor *mon, pid_t tid, u32 unique_id)
{
	struct task_struct *task;
	struct mkm_tracked *t;
	int ret;

	task = monitor_find_task(mon, tid);
	if (!task)
		return -ESRCH;
	/*
	 * As perf_event_open(): an exec cannot commit new credentials
	 * between the check and the add (it holds this lock for writing
	 * across commit_creds()), so a setuid exec either comes before the
	 * check, which then sees its credentials, or after the add, and its
	 * exec probe detaches the thread.
	 */
	ret = down_read_killable(&task->signal->exec_update_lock);
	if (ret)
		goto out_put;
	ret = mkm_access_check(mon, task);
	if (ret)
		goto out_unlock;
	ret = -EINVAL;
	if (task->flags & PF_EXITING)
		goto out_unlock;
	ret = -ENOMEM;
	t = mkm_threads_new(task, mon, tid, unique_id);
	if (!t)
		goto out_unlock;

	mutex_lock(&mon->lock);
	raw_spin_lock_irq(&mkm_threads_lock);
	/*
	 * A task reaped since the lookup would never see its free probe
	 * untrack it: refuse it here. One still alive under this lock is
	 * freed after an RCU grace period that this section holds off, so
	 * the free probe finds the entry.
	 */
	ret = pid_alive(task) ? mkm_threads_add(t) : -ESRCH;
	if (!ret)
		mkm_sensor_attach(t);
	raw_spin_unlock_irq(&mkm_threads_lock);
	mutex_unlock(&mon->lock);
	if (ret)
		mkm_threads_free(t);
out_unlock:
	up_read(&task->signal->exec_update_lock);
out_put:
	put_task_struct(task);
	return ret;
}

int mkm_monitor_unthread(struct mkm_monitor *mon, pid_t tid)
{
	struct task_struct *task;
	struct mkm_tracked *t;
	int ret = -ENOENT;

	task = monitor_find_task(mon, tid);
	if (!task)
		return -ESRCH;
	mutex_lock(&mon->lock);
	raw_spin_lock_irq(&mkm_threads_lock);
	t = mkm_threads_lookup(task);
	if (t && t->mon == mon) {
		mkm_sensor_detach(t, MKM_DETACH_UNMONITOR);
		mkm_threads_del_locked(t);
		mkm_threads_free_rcu(t);
		ret = 0;
	}
	raw_spin_unlock_irq(&mkm_threads_lock);
	mutex_unlock(&mon->lock);
	put_task_struct(task);
	return ret;
}

int mkm_monitor_mark(struct mkm_monitor *mon, u64 value)
{
	int ret = -EAGAIN;

	mutex_lock(&mon->lock);
	if (mon->resumed) {
		mkm_sensor_mark(mon, value);
		ret = 0;
	}
	mutex_unlock(&mon->lock);
	return ret;
}

int mkm_monitor_stats(struct mkm_monitor *mon, struct mkm_stats *st)
{
	struct mkm_cpu_stats __user *out = u64_to_user_ptr(st->cpus);
	u32 given = st->nr_cpus;
	int cpu, ret = 0;

	mutex_lock(&mon->lock);
	for_each_possible_cpu(cpu) {
		struct mkm_cpu_stats s = {};

		if (cpu >= given)
			break;
		if (mon->cpu) {
			struct mkm_ring *r = per_cpu_ptr(mon->cpu, cpu)->ring;

			s.produced = ring_produced(r);
			s.lost = READ_ONCE(r->lost);
			s.read = READ_ONCE(r->rd.read);
			s.buffered = ring_buffered(r);
		}
		if (copy_to_user(&out[cpu], &s, sizeof(s))) {
			ret = -EFAULT;
			break;
		}
	}
	st->busy_threads = mon->busy_threads;
	mutex_unlock(&mon->lock);
	st->nr_cpus = nr_cpu_ids;
	return ret;
}

/*
 * Copies what one ring holds, as far as count allows, through the bounce
 * page. Records are freed only once they reached user space. Returns bytes
 * copied or -EFAULT.
 */
static ssize_t monitor_drain_cpu(struct mkm_monitor *mon, int cpu,
				 char __user *buf, size_t count)
{
	struct mkm_cpu_buf *b = per_cpu_ptr(mon->cpu, cpu);
	struct mkm_ring *r = b->ring;
	const u32 page_records = PAGE_SIZE / sizeof(struct mkm_event);
	struct ring_clock clk = { .t0 = b->clock_t, .off0 = b->clock_off };
	size_t done = 0;

	monitor_clock_point(cpu, &clk.t1, &clk.off1);
	b->clock_t = clk.t1;
	b->clock_off = clk.off1;

	for (;;) {
		size_t room = (count - done) / sizeof(struct mkm_event);
		struct ring_cursor c;
		u32 n, bytes;

		ring_cursor_start(&r->rd, &c);
		n = ring_peek(r, &c, mon->bounce,
			      min_t(size_t, room, page_records), !mon->resumed,
			      cpu, &clk);
		if (!n)
			return done;
		bytes = n * sizeof(struct mkm_event);
		if (copy_to_user(buf + done, mon->bounce, bytes))
			return done ? done : -EFAULT;
		ring_consume(&r->rd, &c);
		done += bytes;
	}
}

static ssize_t monitor_drain(struct mkm_monitor *mon, char __user *buf,
			     size_t count)
{
	unsigned int i, ncpu = nr_cpu_ids;
	size_t done = 0;

	if (!mon->cpu)
		return 0;
	for (i = 0; i < ncpu && count - done >= sizeof(struct mkm_event); i++) {
		int cpu = (mon->next_read_cpu + i) % ncpu;
		ssize_t n;

		if (!cpu_possible(cpu))
			continue;
		n = monitor_drain_cpu(mon, cpu, buf + done, count - done);
		if (n < 0)
			return done ? done : n;
		done += n;
	}
	mon->next_read_cpu = (mon->next_read_cpu + 1) % ncpu;
	return done;
}

bool mkm_monitor_readable(struct mkm_monitor *mon)
{
	bool resumed = READ_ONCE(mon->resumed), ready = false;
	struct mkm_cpu_buf __percpu *bufs;
	int cpu;

	rcu_read_lock();
	bufs = READ_ONCE(mon->cpu);
	for_each_possible_cpu(cpu) {
		struct mkm_ring *r;
		u64 n;

		if (!bufs || ready)
			break;
		r = per_cpu_ptr(bufs, cpu)->ring;
		n = ring_buffered(r);
		ready = resumed ? n >= r->wakeup :
				  n || READ_ONCE(r->lost) !=
						  READ_ONCE(r->rd.read_lost);
	}
	rcu_read_unlock();
	return ready;
}

ssize_t mkm_monitor_read(struct mkm_monitor *mon, char __user *buf,
			 size_t count, bool nonblock)
{
	ssize_t ret;

	if (count < sizeof(struct mkm_event))
		return -EINVAL;
	for (;;) {
		bool suspended;

		mutex_lock(&mon->lock);
		ret = monitor_drain(mon, buf, count);
		suspended = !mon->resumed;
		mutex_unlock(&mon->lock);
		if (ret || suspended)
			return ret;
		if (nonblock)
			return -EAGAIN;
		ret = wait_event_interruptible(
			mon->readers,
			mkm_monitor_readable(mon) || !READ_ONCE(mon->resumed));
		if (ret)
			return ret;
	}
}
