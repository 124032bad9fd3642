// SPDX-License-Identifier: GPL-2.0
/*
 * monitor.c - the monitor object: its lifetime (open to last close), its
 * rights, CONFIGURE, RESUME, SUSPEND and marks. Its memory is rings.c's,
 * its readers are reader.c's, its threads tracking.c's.
 *
 * Lifetimes. A monitor lives from open to last close. The sensors reach it
 * only through tracked-thread entries and only while mon->recording is
 * non-zero; destroy unhashes every entry, then waits for an RCU grace
 * period, after which no sensor can hold a pointer to the monitor or its
 * entries. Suspend waits for a grace period too, so that when it returns no
 * sensor is writing and the reader may report drops at the end of a ring
 * (mon->stopped).
 *
 * Locks, in the order they nest: mon->read_lock (readers, and what
 * replaces the rings or the clock points), mon->lock (the ioctls),
 * monitors_lock (the counts below and the system-wide monitor: held
 * briefly, never across an allocation of rings or a grace period, so that
 * one user's CONFIGURE or close holds up no other's). read_lock comes
 * first because a reader holds it across its copies to user space, for as
 * long as a page fault takes (FUSE, userfaultfd): a CONFIGURE or RESUME
 * that waited for it under mon->lock would hold up THREAD_MONITOR, which
 * waits for mon->lock with its target's exec_update_lock held, and so the
 * target's execve. Every wait for these two is killable.
 */

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>

#include "monitor.h"
#include "sensor.h"
#include "threads.h"

/*
 * What the probes must serve: how many monitors exist (the tracking
 * probes) and how many resumed ones record each class. Counts, not a walk
 * of every monitor at each open, close, resume and suspend.
 */
#define MONITOR_NR_CLASSES 6
static_assert(MKM_CLASS_ALL == (1u << MONITOR_NR_CLASSES) - 1);

static DEFINE_MUTEX(monitors_lock);
static unsigned int monitors_open;
static unsigned int monitors_recording[MONITOR_NR_CLASSES];
struct mkm_monitor *mkm_system_monitor;

static u32 monitors_wanted(void)
{
	u32 wanted = monitors_open ? MKM_CLASS_TRACKING : 0;
	int i;

	lockdep_assert_held(&monitors_lock);
	for (i = 0; i < MONITOR_NR_CLASSES; i++)
		if (monitors_recording[i])
			wanted |= BIT(i);
	return wanted;
}

/*
 * Resumed monitors with the interrupt trigger armed, and the lowest of
 * their thresholds while any is: lowered as monitors resume, raised only
 * when the last suspends (one monitor's threshold is then all it is).
 */
static unsigned int monitors_irq_armed;
u64 mkm_irq_trigger_floor_ns;

static void monitors_count_recording(struct mkm_monitor *mon, int delta)
{
	u64 floor = mkm_irq_trigger_floor_ns;
	int i;

	lockdep_assert_held(&monitors_lock);
	for (i = 0; i < MONITOR_NR_CLASSES; i++)
		if (mon->classes & BIT(i))
			monitors_recording[i] += delta;
	if (!mon->trigger_irq_ns)
		return;
	monitors_irq_armed += delta;
	if (!monitors_irq_armed)
		floor = 0;
	else if (delta > 0 && (!floor || mon->trigger_irq_ns < floor))
		floor = mon->trigger_irq_ns;
	WRITE_ONCE(mkm_irq_trigger_floor_ns, floor);
}

/*
 * What a monitor created without CAP_PERFMON learns about other threads,
 * and what it may make the whole machine pay, as perf_event_paranoid
 * does it: 2 (the default) shows a peer (the next or previous thread of a
 * switch, a waker) only when the monitor tracks it, and refuses the
 * MONITOR_PARANOID_CLASSES; 1 shows peers but refuses those; 0 allows
 * all. Taken when a monitor is created.
 *
 * Those classes: IRQ, for what it tells (the timestamped IRQ numbers of
 * every interrupt that lands on a tracked thread time keystrokes), and
 * SYSCALL, for what it costs everyone else: its probes put every system
 * call of every process of the machine on the tracepoint slow path (in a
 * 6.1 guest under -icount, an unrelated process's getppid() from 677 to
 * 966 guest-ns, +43%). The WAKEUP class is allowed: its two probes cost
 * an unrelated wakeup about what the switch probe, which every monitor
 * brings, costs a switch (the same guest: a pipe round trip of two
 * wakeups +151 guest-ns, +0.6%).
 */
#define MONITOR_PARANOID_CLASSES (MKM_CLASS_IRQ | MKM_CLASS_SYSCALL)

static int paranoid = 2;
module_param(paranoid, int, 0644);
MODULE_PARM_DESC(
	paranoid,
	"without CAP_PERFMON: 2 hide untracked peers and refuse the IRQ and SYSCALL classes, 1 refuse those classes, 0 allow all (default 2)");

/* The classes of "0: the default" for this monitor. */
static u32 monitor_default_classes(const struct mkm_monitor *mon)
{
	return MKM_CLASS_DEFAULT & ~mon->refused;
}

/*
 * Waits until no sensor can still be using what it found before: every
 * probe looks a monitor up and uses it in one RCU read-side section (the
 * scheduler's with interrupts off, the others under rcu_read_lock(), as
 * 7.x may call them preemptible), so a grace period is enough. Not
 * tracepoint_synchronize_unregister(): its tasks-trace grace period sends
 * IPIs to every CPU, and a close or suspend must not (the probes' own
 * code outlives this, registered: only the module's exit waits for that).
 */
static void monitor_sensors_quiet(void)
{
	synchronize_rcu();
}

/*
 * After the grace period that follows mon's suspend: with no interrupt
 * trigger armed any more, no sensor keeps the interrupt clocks, so they
 * are cleared, lest an entry seen then meet an exit seen at the next
 * arming (one interrupt as long as the time between).
 */
static void monitor_irq_clocks_quiet(struct mkm_monitor *mon)
{
	if (!mon->trigger_irq_ns)
		return;
	mutex_lock(&monitors_lock);
	if (!monitors_irq_armed)
		mkm_sensor_irq_clocks_reset();
	mutex_unlock(&monitors_lock);
}

/* A monitor's own memory, charged as its rings are (rings.c). */
#define MONITOR_PAGES (1 + DIV_ROUND_UP(sizeof(struct mkm_monitor), PAGE_SIZE))

/*
 * Charged to the opener's memory cgroup; past its limit the open fails
 * (ENOMEM), as a CONFIGURE does, rather than calling its OOM killer.
 */
#define MONITOR_GFP (GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/* A monitor with its creator's rights, or an ERR_PTR(). */
struct mkm_monitor *mkm_monitor_create(void)
{
	struct mkm_monitor *mon = kzalloc(sizeof(*mon), MONITOR_GFP);
	int ret;

	if (!mon)
		return ERR_PTR(-ENOMEM);
	/*
	 * Every right from the subjective credentials, the ones the open
	 * acts with and the ones kept: they differ from the task's objective
	 * ones under override_creds(), as in an open by io_uring under a
	 * registered personality, which would otherwise give a monitor
	 * kept as one user's the capabilities of another.
	 */
	mon->creator = get_current_cred();
	mon->perfmon = perfmon_capable();
	/*
	 * Asked of every opener, needed or not: no audit record for the many
	 * that lack them.
	 */
	mon->ptrace_cap = ns_capable_noaudit(&init_user_ns, CAP_SYS_PTRACE);
	mon->unbudgeted = mon->perfmon ||
			  ns_capable_noaudit(&init_user_ns, CAP_IPC_LOCK);
	ret = mkm_charge(mon, MONITOR_PAGES);
	if (ret)
		goto err_put_cred;
	ret = -ENOMEM;
	mon->bounce = (struct mkm_event *)__get_free_page(MONITOR_GFP);
	if (!mon->bounce)
		goto err_uncharge;
	mutex_init(&mon->lock);
	mutex_init(&mon->read_lock);
	mutex_init(&mon->map_lock);
	mkm_rings_init(mon);
	init_waitqueue_head(&mon->readers);
	INIT_LIST_HEAD(&mon->threads);
	mon->stopped = true;
	mon->trigger_runq = U32_MAX; /* none */
	mon->hide_peers = !mon->perfmon && READ_ONCE(paranoid) >= 2;
	mon->refused = !mon->perfmon && READ_ONCE(paranoid) >= 1 ?
			       MONITOR_PARANOID_CLASSES :
			       0;
	mon->classes = monitor_default_classes(mon);
	mon->pid_ns = get_pid_ns(task_active_pid_ns(current));

	mutex_lock(&monitors_lock);
	monitors_open++;
	ret = mkm_sensor_update(monitors_wanted(), !mon->perfmon);
	if (ret) {
		monitors_open--;
		mkm_sensor_update(monitors_wanted(), !mon->perfmon);
	}
	mutex_unlock(&monitors_lock);
	if (ret)
		goto err_put_ns;
	return mon;

err_put_ns:
	put_pid_ns(mon->pid_ns);
	free_page((unsigned long)mon->bounce);
err_uncharge:
	mkm_uncharge(mon, MONITOR_PAGES);
err_put_cred:
	put_cred(mon->creator);
	kfree(mon);
	return ERR_PTR(ret);
}

void mkm_monitor_destroy(struct mkm_monitor *mon)
{
	struct mkm_tracked *t, *next;
	LIST_HEAD(gone);

	WRITE_ONCE(mon->recording, 0);
	mkm_tracking_release(mon, &gone);

	mutex_lock(&monitors_lock);
	monitors_open--;
	if (mon->resumed)
		monitors_count_recording(mon, -1);
	if (mkm_system_monitor == mon)
		WRITE_ONCE(mkm_system_monitor, NULL);
	mkm_sensor_update(monitors_wanted(), !mon->perfmon);
	mutex_unlock(&monitors_lock);

	/* After this no sensor can see the monitor or its entries. */
	monitor_sensors_quiet();
	if (mon->resumed)
		monitor_irq_clocks_quiet(mon);
	list_for_each_entry_safe(t, next, &gone, mon_link)
		mkm_threads_free(t);
	mkm_rings_free(mon);
	put_pid_ns(mon->pid_ns);
	free_page((unsigned long)mon->bounce);
	mkm_uncharge(mon, MONITOR_PAGES);
	put_cred(mon->creator);
	kfree(mon);
}

/* Whether mon may be the system-wide monitor: no other one is. */
static bool monitor_may_be_system(struct mkm_monitor *mon)
{
	struct mkm_monitor *system = READ_ONCE(mkm_system_monitor);

	return !system || system == mon;
}

int mkm_monitor_configure(struct mkm_monitor *mon, struct mkm_config *cfg)
{
	u64 capacity, wakeup;
	u32 ring_flags = cfg->flags & MKM_CONFIG_FLIGHT ? MKM_RING_OVERWRITE :
							  0;
	int ret;

	/* total_bytes is output only: a returned config may be passed back. */
	if (cfg->classes & ~MKM_CLASS_ALL || cfg->flags & ~MKM_CONFIG_ALL)
		return -EINVAL;
	/* The fair class's state adds to the switch and wakeup records. */
	if (cfg->classes & MKM_CLASS_SCHED_STATE &&
	    (~cfg->classes & (MKM_CLASS_SCHED | MKM_CLASS_WAKEUP)))
		return -EINVAL;
	/* A flight recorder's rings are always full: no occupancy wakes. */
	if (ring_flags && cfg->wakeup_bytes)
		return -EINVAL;
	/* The interrupt trigger needs the interrupts. */
	if (cfg->trigger_irq_ns && mon->refused & MKM_CLASS_IRQ)
		return -EACCES;
	if (cfg->trigger_irq_ns &&
	    !((cfg->classes ? cfg->classes : monitor_default_classes(mon)) &
	      MKM_CLASS_IRQ))
		return -EINVAL;
	if (!cfg->ring_bytes || cfg->ring_bytes > MKM_RING_MAX_BYTES)
		return -EINVAL;
	if (cfg->classes & mon->refused)
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
		 ring_flags	   ? 0 :
				     capacity / 2;

	/* Killable: a reader stuck in its copy holds read_lock (reader.c). */
	ret = mutex_lock_killable(&mon->read_lock);
	if (ret)
		return ret;
	ret = mutex_lock_killable(&mon->lock);
	if (ret)
		goto out_unlock_read;
	ret = -EBUSY;
	if (mon->resumed || mkm_reader_unread(mon) || atomic_read(&mon->mapped))
		goto out;
	/* One system-wide monitor: asked first, taken once the rings are. */
	if (cfg->flags & MKM_CONFIG_SYSTEM && !monitor_may_be_system(mon))
		goto out;
	ret = 0;
	if (capacity != mon->capacity || wakeup != mon->wakeup_records ||
	    ring_flags != mon->ring_flags)
		ret = mkm_rings_replace(mon, capacity, wakeup, ring_flags);
	if (ret)
		goto out;
	mutex_lock(&monitors_lock);
	if (cfg->flags & MKM_CONFIG_SYSTEM && !monitor_may_be_system(mon)) {
		mutex_unlock(&monitors_lock);
		ret = -EBUSY;
		goto out;
	}
	/* First, so that threads created from now on are tracked too. */
	WRITE_ONCE(mon->system, cfg->flags & MKM_CONFIG_SYSTEM);
	if (mon->system)
		WRITE_ONCE(mkm_system_monitor, mon);
	else if (mkm_system_monitor == mon)
		WRITE_ONCE(mkm_system_monitor, NULL);
	mutex_unlock(&monitors_lock);
	mon->classes = cfg->classes ? cfg->classes :
				      monitor_default_classes(mon);
	WRITE_ONCE(mon->inherit, cfg->flags & MKM_CONFIG_INHERIT);
	WRITE_ONCE(mon->one_switch, cfg->flags & MKM_CONFIG_ONE_SWITCH);
	/* Read by the sensors only while resumed: set suspended. */
	mon->trigger_runq_ns = cfg->trigger_runq_ns;
	mon->trigger_irq_ns = cfg->trigger_irq_ns;
	/* A wait shorter than the interrupt threshold had no such irq in it. */
	mon->trigger_runq = min3(cfg->trigger_runq_ns ?: U64_MAX,
				 cfg->trigger_irq_ns ?: U64_MAX, (u64)U32_MAX);
	cfg->classes = mon->classes;
	cfg->ring_bytes = capacity * sizeof(struct mkm_event);
	cfg->total_bytes = cfg->ring_bytes * num_possible_cpus();
	cfg->wakeup_bytes = wakeup * sizeof(struct mkm_event);
out:
	mutex_unlock(&mon->lock);
out_unlock_read:
	mutex_unlock(&mon->read_lock);
	return ret;
}

int mkm_monitor_resume(struct mkm_monitor *mon)
{
	int ret;

	/*
	 * read_lock first, for the rings and the clock points, as in
	 * CONFIGURE: waiting for a stuck reader, RESUME holds no lock that
	 * THREAD_MONITOR needs.
	 */
	ret = mutex_lock_killable(&mon->read_lock);
	if (ret)
		return ret;
	ret = mutex_lock_killable(&mon->lock);
	if (ret)
		goto out_unlock_read;
	if (mon->resumed)
		goto out;
	if (!mon->cpu) {
		u32 capacity =
			MKM_RING_DEFAULT_BYTES / sizeof(struct mkm_event);

		ret = mkm_rings_replace(mon, capacity, capacity / 2, 0);
		if (ret)
			goto out;
	}
	mutex_lock(&monitors_lock);
	monitors_count_recording(mon, 1);
	ret = mkm_sensor_update(monitors_wanted(), !mon->perfmon);
	if (ret) {
		monitors_count_recording(mon, -1);
		mkm_sensor_update(monitors_wanted(), !mon->perfmon);
	}
	mutex_unlock(&monitors_lock);
	if (ret)
		goto out;
	mon->resumed = true;
	if (mon->system)
		mkm_tracking_take_all(mon);
	/* The first point of the clock mapping, before any record. */
	WRITE_ONCE(mon->stopped, false);
	mkm_reader_clock_points(mon);
	BUILD_BUG_ON((MKM_CLASS_ALL | MKM_CLASS_TRACKING) &
		     MKM_RECORDING_ONE_SWITCH);
	/* Rings before the flag: sensors test the flag, then use the rings. */
	smp_store_release(&mon->recording,
			  mon->classes |
				  (mon->one_switch ? MKM_RECORDING_ONE_SWITCH :
						     0));

	mkm_tracking_attach_all(mon);
out:
	mutex_unlock(&mon->lock);
out_unlock_read:
	mutex_unlock(&mon->read_lock);
	return ret;
}

int mkm_monitor_suspend(struct mkm_monitor *mon)
{
	int ret = mutex_lock_killable(&mon->lock);

	if (ret)
		return ret;
	if (mon->resumed) {
		WRITE_ONCE(mon->recording, 0);
		mon->resumed = false;
		mutex_lock(&monitors_lock);
		monitors_count_recording(mon, -1);
		mkm_sensor_update(monitors_wanted(), !mon->perfmon);
		mutex_unlock(&monitors_lock);
		/* No sensor is still writing when suspend returns. */
		monitor_sensors_quiet();
		monitor_irq_clocks_quiet(mon);
		/* Release: a reader that sees it sees every record. */
		smp_store_release(&mon->stopped, true);
		wake_up_interruptible(&mon->readers);
	}
	mutex_unlock(&mon->lock);
	return 0;
}

int mkm_monitor_mark(struct mkm_monitor *mon, u64 value, u32 flags)
{
	bool trigger = flags & MKM_MARK_TRIGGER;
	int ret;

	/* Into the caller's tracker: mon is only the way in. */
	if (flags & MKM_MARK_OWN)
		return mkm_sensor_mark_own(value, trigger);
	ret = mutex_lock_killable(&mon->lock);
	if (ret)
		return ret;
	ret = -EAGAIN;
	if (mon->resumed) {
		mkm_sensor_mark(mon, value, trigger);
		ret = 0;
	}
	mutex_unlock(&mon->lock);
	return ret;
}
