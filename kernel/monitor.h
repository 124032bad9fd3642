/* SPDX-License-Identifier: GPL-2.0 */
/* monitor.h - the monitor object: its rings, state and rights. */
#ifndef MKM_MONITOR_H
#define MKM_MONITOR_H

#include <linux/atomic.h>
#include <asm/barrier.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "ring.h"

struct pid_namespace;
struct task_struct;

/* One per monitor and possible CPU. */
struct mkm_cpu_buf {
	struct mkm_ring *ring;
	/*
	 * The clock offset at the last read (or the resume): where the next
	 * read's mapping starts (ring_clock). Under the monitor's read_lock.
	 */
	u64 clock_t;
	s64 clock_off;
	struct irq_work wakeup; /* wakes readers from outside the scheduler */
	struct mkm_monitor *mon;
};

/*
 * In mon->recording beside the classes while resumed: the monitor writes a
 * switch between two of its threads as one record (MKM_CONFIG_ONE_SWITCH),
 * so that the switch path tests that and its class with one load. A bit
 * of no class, the internal MKM_CLASS_TRACKING (bit 31) included, so that
 * a test of recording for any class never reads it (monitor.c checks).
 */
#define MKM_RECORDING_ONE_SWITCH (1u << 30)

struct mkm_monitor {
	/*
	 * Read by the sensors: the event classes recorded now (the
	 * configured classes while resumed, with MKM_RECORDING_ONE_SWITCH
	 * if so configured; 0 while suspended) and the rings.
	 * cpu is published before recording turns non-zero and is not changed
	 * while it is non-zero.
	 */
	u32 recording;
	/*
	 * The switch path's one compare of a wait for the triggers: the
	 * lower of trigger_runq_ns and trigger_irq_ns (an interrupt during
	 * the wait), at most U32_MAX, which stands for none.
	 */
	u32 trigger_runq;
	struct mkm_cpu_buf __percpu *cpu;
	/* The triggers (MKM_CONFIG_*'s), in ns, 0 for none; set suspended. */
	u64 trigger_runq_ns;
	u64 trigger_irq_ns;
	bool inherit;
	bool one_switch; /* MKM_CONFIG_ONE_SWITCH */
	bool hide_peers; /* peers it does not track show as tid 0 (paranoid) */
	bool system; /* MKM_CONFIG_SYSTEM: mkm_system_monitor is this one */

	/* Configuration and state, under lock. */
	struct mutex lock; /* serialises the ioctls */
	bool resumed;
	u32 classes;
	u32 capacity; /* records per ring; 0 until the rings exist */
	u32 wakeup_records;
	u32 ring_flags; /* MKM_RING_*: MKM_RING_OVERWRITE for a flight recorder */
	/*
	 * Readers (read, STATS), and the replacing of the rings and clock
	 * points, taken before lock, never under it: held across copies to
	 * user space, so never by what thread_monitor waits for (monitor.c).
	 */
	struct mutex read_lock;
	unsigned int next_read_cpu; /* where the next read starts, for fairness */
	struct mkm_event *bounce; /* one page, for copying out */
	/*
	 * Suspended and past the grace period after it: no sensor writes,
	 * what the rings hold is all there is (read() may end).
	 */
	bool stopped;
	/*
	 * mmap() and the replacing of the rings: mmap runs under the
	 * process's mmap_lock, which read() may take (a fault in
	 * copy_to_user) while it holds read_lock, so mmap must not take it.
	 */
	struct mutex map_lock;
	atomic_t mapped; /* mappings of the rings (mmap.c) */
	wait_queue_head_t readers;

	/* Tracked threads: struct mkm_tracked, under mkm_threads_lock. */
	struct list_head threads;
	unsigned int nr_threads;
	unsigned int busy_threads; /* left to other monitors (system-wide) */
	bool dying; /* being destroyed: add no more threads */

	/*
	 * Rights, fixed at creation: the creator's credentials (a
	 * reference), and what they allowed then.
	 */
	const struct cred *creator;
	bool perfmon; /* creator had CAP_PERFMON or CAP_SYS_ADMIN */
	bool ptrace_cap; /* creator had CAP_SYS_PTRACE (initial user ns) */
	bool unbudgeted; /* creator had CAP_PERFMON or CAP_IPC_LOCK */
	u32 refused; /* classes refused (paranoid) */
	unsigned long charged; /* pages of rings charged to the creator's user */
	/*
	 * The rings last replaced, kept (and charged) for a CONFIGURE back
	 * to their capacity, or NULL (rings.c), and what frees them a while
	 * after. Under lock.
	 */
	struct mkm_cpu_buf __percpu *spare;
	u32 spare_capacity;
	struct delayed_work spare_work;
	struct pid_namespace *pid_ns;
};

struct mkm_monitor *mkm_monitor_create(void);
void mkm_monitor_destroy(struct mkm_monitor *mon);
int mkm_monitor_configure(struct mkm_monitor *mon, struct mkm_config *cfg);
int mkm_monitor_resume(struct mkm_monitor *mon);
int mkm_monitor_suspend(struct mkm_monitor *mon);
int mkm_monitor_thread(struct mkm_monitor *mon, pid_t tid, u32 unique_id);
int mkm_monitor_unthread(struct mkm_monitor *mon, pid_t tid);
int mkm_monitor_mark(struct mkm_monitor *mon, u64 value, u32 flags);
int mkm_monitor_stats(struct mkm_monitor *mon, struct mkm_stats *st);
int mkm_monitor_clock(struct mkm_clock *clk);
ssize_t mkm_monitor_read(struct mkm_monitor *mon, char __user *buf,
			 size_t count, bool nonblock);
bool mkm_monitor_readable(struct mkm_monitor *mon);

/*
 * The system-wide monitor (MKM_CONFIG_SYSTEM), or NULL: the one that new
 * threads join and that records interrupts on idle CPUs. Set and cleared
 * under the monitors' lock, read by the sensors; cleared before the
 * monitor's grace period at destroy.
 */
extern struct mkm_monitor *mkm_system_monitor;

/*
 * While a resumed monitor has the interrupt trigger armed, the lowest
 * such threshold (ns), else 0: the sensors then time every interrupt and
 * softirq, and keep each CPU's last one over it for the threads that
 * waited through it. Written under the monitors' lock.
 */
extern u64 mkm_irq_trigger_floor_ns;

/* Whether the monitor is stopped (mon->stopped). */
static inline bool mkm_monitor_stopped(struct mkm_monitor *mon)
{
	/* Pairs with suspend's release: all its records are seen too. */
	return smp_load_acquire(&mon->stopped);
}

/* rings.c: memory, and its charge to the creator. */
int mkm_charge(struct mkm_monitor *mon, unsigned long pages);
void mkm_uncharge(struct mkm_monitor *mon, unsigned long pages);
int mkm_rings_replace(struct mkm_monitor *mon, u32 capacity, u32 wakeup,
		      u32 flags);
void mkm_rings_init(struct mkm_monitor *mon);
void mkm_rings_free(struct mkm_monitor *mon);

/* reader.c: under read_lock. */
void mkm_reader_clock_points(struct mkm_monitor *mon);
bool mkm_reader_unread(struct mkm_monitor *mon);

/* tracking.c: under lock (release: the monitor is dying). */
void mkm_tracking_release(struct mkm_monitor *mon, struct list_head *gone);
void mkm_tracking_attach_all(struct mkm_monitor *mon);
void mkm_tracking_take_all(struct mkm_monitor *mon);

#endif /* MKM_MONITOR_H */
