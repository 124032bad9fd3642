/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mon_timeline.h - the timeline builder (tl_): each thread's microstate
 * intervals rebuilt from event records (included by libmonitor.h).
 */
/* First, outside the guard, so that any of the library's headers may be
 * included first (libmonitor.h includes them all). */
#include "libmonitor.h"

#ifndef MON_TIMELINE_H
#define MON_TIMELINE_H

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Timeline builder (tl_)
 * ======================================================================
 *
 * A struct tl takes the event records of a monitor, as they come from
 * monitor_read() or a trace file, in batches of any size. Records of one
 * CPU must arrive in that CPU's order; CPUs may interleave arbitrarily. The
 * builder buffers each CPU's records and processes them in time order up
 * to a watermark, the earliest time up to which every CPU is known to be
 * complete: the minimum over CPUs of the last time seen on each, raised by
 * tl_advance(). tl_flush() processes everything at the end of a stream.
 *
 * Every thread seen gets a sequence of intervals, gap-free and
 * non-overlapping, each in one microstate (enum tl_state), from its first
 * event to its end (reap, detach) or to the time processed so far. The
 * rules:
 *  - SWITCH_IN: RUN (RUN_USER / RUN_SYS when the stream has syscall events
 *    and the thread's side is known, else RUN); before that, RUNQ for the
 *    run-queue wait it carries, unless a WAKEUP already began one (and no
 *    earlier than the thread's previous state began);
 *  - SWITCH_OUT: RUNQ when runnable (preempted or yielded), SLEEP for an
 *    interruptible sleep (FUTEX_SLEEP / POLL_SLEEP inside futex / poll,
 *    select, epoll when syscall events say so), DISK for an
 *    uninterruptible one, STOPPED when stopped or traced, ZOMBIE when dead;
 *  - WAKEUP, WAKEUP_NEW, FORK (the child): RUNQ; a wakeup of a thread that
 *    is still on its CPU changes nothing;
 *  - IRQ/SOFTIRQ entry: INTERRUPTED while the nesting depth is above 0;
 *  - ATTACH: the state the kernel reported; REAP and DETACH end the thread;
 *  - UNKNOWN: from a thread's first event until an event fixes its state,
 *    and from a lost-event gap (an MKM_EV_LOST record or a jump in a CPU's
 *    seq numbers) until the thread's next state-fixing event. A gap on one
 *    CPU makes every thread UNKNOWN except those running on other CPUs,
 *    and zombies, since the lost events may have concerned any of them.
 *  - An event that proves a thread runs (an IRQ, syscall, fork, exec or
 *    exit of it) puts it in a running state whatever was believed before;
 *    such a correction is counted in the thread's anomalies. So is a
 *    SWITCH_IN on a CPU whose previous monitored thread was never seen
 *    leaving it (that thread becomes UNKNOWN).
 *  - EXIT leaves the thread running (it still runs its exit path); the
 *    final SWITCH_OUT in the dead state makes it ZOMBIE, REAP ends it (a
 *    REAP without that switch-out closes with a 0-length ZOMBIE). After
 *    REAP a new event with the same tid starts a new timeline.
 *  - MIGRATE of a queued thread starts a new RUNQ interval on the new CPU;
 *    of a sleeping one it only moves the thread.
 *  - A transition at the very instant the current interval began rewrites
 *    that interval: no interval has length 0 except a thread's open last
 *    one and a ZOMBIE reaped at once.
 *
 * Flutter (MKM): a thread switched out to the idle task and switched back
 * in from it on the same CPU, with no monitored thread in between. Linux
 * does not report a switch when the scheduler picks the same task again,
 * so idle is the only "nothing" that can run between. The module reports
 * tid 0 for idle and for a task outside the monitor's PID namespace too,
 * so inside a container flutter may be over-counted.
 *
 * Threads are numbered 0, 1, ... in the order they first appear; the
 * numbers are stable while the timeline grows.
 */

enum tl_state {
	TL_UNKNOWN = 0,
	TL_RUN, /* on CPU, user/system not known */
	TL_RUN_USER, /* on CPU, in user mode */
	TL_RUN_SYS, /* on CPU, inside a system call */
	TL_TRAP, /* on CPU in a fault (reserved: no fault events yet) */
	TL_INTERRUPTED, /* its CPU runs an IRQ or softirq handler */
	TL_RUNQ, /* runnable, waiting for a CPU */
	TL_SLEEP, /* interruptible sleep */
	TL_FUTEX_SLEEP, /* interruptible sleep inside futex() */
	TL_POLL_SLEEP, /* interruptible sleep inside poll/select/epoll */
	TL_DISK, /* uninterruptible sleep */
	TL_PAGING_SLEEP, /* uninterruptible sleep in a fault (reserved) */
	TL_STOPPED, /* stopped by a signal or a tracer */
	TL_ZOMBIE, /* dead, not yet reaped */
	TL_NR_STATES
};

/* How a thread's timeline ended. */
enum tl_end {
	TL_ALIVE = 0, /* still observed */
	TL_REAPED, /* MKM_EV_REAP */
	TL_DETACHED, /* MKM_EV_DETACH (thread_unmonitor, setuid exec) */
	TL_REPLACED, /* an exec by another thread of its group took its tid */
};

struct tl;

struct tl_config {
	/*
	 * Number of CPU ids of the stream (monitor_statistics(), or the trace
	 * header). 0: learn CPUs from the stream; a CPU that first shows up
	 * after later events were processed is then late (tl_stats.late).
	 */
	unsigned int nr_cpus;
	/* MKM_CLASS_* the stream was recorded with (0: MKM_CLASS_DEFAULT). */
	uint32_t classes;
	uint32_t flags; /* TL_STREAMING, or 0 */
};

/*
 * tl_config.flags: keep only each thread's current interval. Closed
 * intervals reach the callback (tl_set_callback) and are not stored, so
 * memory grows with the threads, not with the trace: for sinks that
 * write intervals as they close (exporters). Queries then see one
 * interval a thread, the current one, and the accounting covers it only.
 */
#define TL_STREAMING (1u << 0)

/*
 * tl_config.flags: the stream is system-wide (MKM_CONFIG_SYSTEM, as the
 * trace's INFO says; the timeline sink sets it from there): every thread
 * is monitored, so a switch's peer tid 0 and the tid 0 of an IRQ record
 * are a CPU's idle task. Each CPU's idle task is rebuilt as a thread of
 * its own, tid 0, named "swapper/N" (tl_idle_thread()): RUN while its CPU
 * has nothing else to run, INTERRUPTED while an interrupt lands on the
 * idle CPU, SLEEP while its CPU runs another thread. Its RUN intervals
 * are the CPU's idle intervals (idle_analyse()).
 */
#define TL_IDLE (1u << 1)

/*
 * tl_config.flags: the stream is a window cut from a longer recording (a
 * flight recorder's snapshot: MKM_CONFIG_FLIGHT in the trace's INFO; the
 * timeline sink sets it from there), so its threads lived before it. A
 * thread first seen on CPU c, other than by its ATTACH, begins at c's
 * first record, not at its own: each CPU's window is contiguous, so a
 * thread whose first record shows it on c (a switch-out, an interrupt,
 * a syscall) was on c since then, RUN; one that switches in was on a run
 * queue for the wait its SWITCH_IN gives, UNKNOWN before; one woken
 * first is UNKNOWN until its wakeup (no record says which sleep it was
 * in).
 */
#define TL_WINDOW (1u << 2)

struct tl_interval {
	uint64_t start_ns;
	uint64_t end_ns; /* == next interval's start_ns */
	uint16_t cpu; /* CPU run on / queued on / last run on */
	uint8_t state; /* enum tl_state */
	uint8_t open; /* 1: the thread's current interval, end_ns = now */
	uint32_t reserved; /* 0 */
};

struct tl_thread {
	uint32_t tid; /* at the end of the timeline (exec may change it) */
	uint32_t unique_id;
	int64_t parent; /* index of the thread that forked it, or -1 */
	char name[17]; /* comm, NUL-terminated ("" if never seen) */
	uint8_t state; /* current enum tl_state */
	uint8_t end; /* enum tl_end */
	uint64_t first_ns; /* start of the first interval */
	uint64_t end_ns; /* end of the last interval */
	size_t nr_intervals;
	uint64_t switches; /* times switched in */
	uint64_t flutters; /* switched out and back in, only idle between */
	uint64_t anomalies; /* events contradicting the rebuilt state */
	int32_t idle_cpu; /* TL_IDLE: the CPU whose idle task it is; else -1 */
	uint32_t tgid; /* its process's id (thread group): tl_process() */
	size_t process; /* index of its process, for tl_process() */
};

/*
 * A process (thread group) of the timeline. Where a thread's process
 * comes from: the FORK that made it, else the PROCESSES chunk (what the
 * recorder found attaching it), else its own (tgid = tid); the CPUs' idle
 * tasks are process 0, "swapper". A pid seen again after all its threads
 * ended is a new process.
 */
struct tl_process {
	uint32_t pid; /* the thread group id: its leader's tid */
	char name[17]; /* the leader's comm, else its first thread's */
	size_t nr_threads; /* timelines in it (0: rare, a thread seen before
			      the FORK that made it left it) */
	size_t nr_live; /* of which not ended */
	int64_t leader; /* the leader's thread index, or -1 (not seen) */
	int64_t first; /* its first thread's index, or -1 */
};

struct tl_stats {
	uint64_t events; /* records fed, LOST records not counted */
	uint64_t lost; /* events lost: LOST counts plus seq gaps (as fed) */
	uint64_t gaps; /* lost-event gaps (as fed) */
	uint64_t seq_gaps; /* of which found by seq numbers alone */
	uint64_t late; /* records older than what was processed */
	uint64_t anomalies; /* contradictions: the threads' anomalies, time
			       or seq going backwards on a CPU, bad CPU ids */
	uint64_t intervals; /* intervals of all threads */
	uint64_t now_ns; /* time processed up to */
	size_t threads; /* thread timelines */
	size_t pending; /* records buffered, waiting for the watermark */
};

struct tl_memory {
	size_t interval_bytes; /* storage of intervals */
	size_t thread_bytes; /* thread table and lookup */
	size_t queue_bytes; /* per-CPU reorder queues */
	size_t total_bytes;
};

struct tl_mark {
	uint64_t time_ns;
	/* The mark's value; a trigger's: what fired it (a wait or an
	 * interrupt's time, ns), or its mark's value */
	uint64_t value;
	uint32_t tid;
	uint16_t cpu;
	uint8_t trigger; /* a MKM_EV_TRIGGER's MKM_TRIGGER_*, 0: a mark */
};

/* Called once per interval when it closes (it can no longer change). */
typedef void (*tl_interval_cb)(void *arg, size_t thread,
			       const struct tl_interval *iv);

/*
 * tl_create - make an empty timeline
 * @tlp: out: the timeline
 * @cfg: configuration (NULL: all defaults)
 *
 * Return: 0, or -EINVAL (non-zero flags, unknown class bits, nr_cpus above
 * 8192, the most Linux supports), -ENOMEM.
 */
MON_API int tl_create(struct tl **tlp, const struct tl_config *cfg);

/* tl_destroy - free a timeline and everything it holds; NULL is a no-op. */
MON_API void tl_destroy(struct tl *tl);

/*
 * tl_feed - add a batch of event records and process what is safe
 * @tl: the timeline
 * @ev: @n records (unknown types, tid 0 where a thread is due, and CPU
 *      ids of 8192 or more are skipped; the last count as anomalies)
 * @n: may be 0
 *
 * Return: 0, or -EINVAL (@ev NULL with @n > 0), -ENOMEM (nothing of the
 * batch was kept after the failing record; what came before was).
 */
MON_API int tl_feed(struct tl *tl, const struct mkm_event *ev, size_t n);

/*
 * tl_advance - declare every record with time_ns < @horizon_ns delivered
 * @tl: the timeline
 * @horizon_ns: e.g. the clock read before the monitor_read() that drained
 *              the rings, minus a margin for records being written
 *
 * Lets the watermark pass CPUs that have been idle; processes what became
 * safe and extends open intervals to the new watermark.
 *
 * Return: 0, or -EINVAL.
 */
MON_API int tl_advance(struct tl *tl, uint64_t horizon_ns);

/*
 * tl_flush - end of stream: process every buffered record
 * @tl: the timeline
 *
 * Feeding more afterwards is allowed; earlier-stamped records are then
 * late.
 *
 * Return: 0, or -EINVAL.
 */
MON_API int tl_flush(struct tl *tl);

/*
 * tl_set_callback - call @cb for each interval as it closes
 * @tl: the timeline
 * @cb: the callback, NULL to stop; it must not call tl_feed/advance/flush
 * @arg: passed to @cb
 *
 * Return: 0, or -EINVAL.
 */
MON_API int tl_set_callback(struct tl *tl, tl_interval_cb cb, void *arg);

/* tl_nr_threads - number of thread timelines (indexes 0 .. n-1). */
MON_API size_t tl_nr_threads(const struct tl *tl);

/*
 * tl_thread - describe thread @th
 *
 * Return: 0, or -EINVAL (NULL), -ENOENT (@th out of range).
 */
MON_API int tl_thread(const struct tl *tl, size_t th, struct tl_thread *out);

/* tl_nr_processes - how many processes (0 for NULL) */
MON_API size_t tl_nr_processes(const struct tl *tl);

/*
 * tl_process - describe process @p (tl_thread()'s process)
 *
 * Return: 0, or -EINVAL (NULL), -ENOENT (@p out of range).
 */
MON_API int tl_process(const struct tl *tl, size_t p, struct tl_process *out);

/*
 * tl_fork_tgid - the process of the child of FORK record @fork, whose
 * parent is in process @parent_tgid: the parent's for a thread
 * (MKM_EVF_THREAD), else the child's own (its tid). The timeline's rule,
 * for consumers that follow the records one by one (the exporters).
 */
MON_API uint32_t tl_fork_tgid(const struct mkm_event *fork,
			      uint32_t parent_tgid);

/*
 * tl_processes_known - the processes of threads the recorder attached
 * (a PROCESSES chunk): a thread of such a tid takes that process unless a
 * FORK said otherwise; the timeline sink calls it
 *
 * Return: 0, or -EINVAL (NULL), -ENOMEM.
 */
struct trace_process;
MON_API int tl_processes_known(struct tl *tl, const struct trace_process *p,
			       size_t n);

/*
 * tl_threads_known - the names the recorder looked up after the last record
 * (a THREADS chunk, as a flight recorder's snapshot has): the latest
 * timeline of such a tid takes that name if it has not ended, else only if
 * its NAME records left it unnamed (a flight window may have overwritten
 * them); the timeline sink calls it
 *
 * Return: 0, or -EINVAL (NULL), -ENOMEM.
 */
struct trace_thread;
MON_API int tl_threads_known(struct tl *tl, const struct trace_thread *t,
			     size_t n);

/*
 * tl_find - the most recent timeline of tid @tid
 *
 * Return: its index (>= 0), or -ENOENT, -EINVAL.
 */
MON_API int64_t tl_find(const struct tl *tl, uint32_t tid);

/*
 * tl_interval - interval @i (0: the first) of thread @th
 *
 * Return: 0, or -EINVAL (NULL), -ENOENT (@th or @i out of range).
 */
MON_API int tl_interval(const struct tl *tl, size_t th, size_t i,
			struct tl_interval *out);

/*
 * tl_intervals - copy intervals [@first, @first + @n) of thread @th, or as
 * many of them as exist, into @out: one call for a run of them (a viewer
 * reads thousands per frame)
 *
 * Return: how many were copied (0 when @first is past the last), or
 * -EINVAL (NULL), -ENOENT (@th out of range).
 */
MON_API ssize_t tl_intervals(const struct tl *tl, size_t th, size_t first,
			     size_t n, struct tl_interval *out);

/*
 * tl_interval_at - the interval of thread @th that holds time @t_ns: the
 * last one starting at or before it (binary search, O(log n))
 *
 * Return: its index (>= 0); -ERANGE when @t_ns is before the thread's
 * first interval (the caller may take 0); -EINVAL, -ENOENT (@th out of
 * range, or the thread has no interval).
 */
MON_API int64_t tl_interval_at(const struct tl *tl, size_t th, uint64_t t_ns);

/* tl_stats - counters of the whole timeline. Return: 0 or -EINVAL. */
MON_API int tl_stats(const struct tl *tl, struct tl_stats *out);

/* tl_memory - bytes held, for the bench. Return: 0 or -EINVAL. */
MON_API int tl_memory(const struct tl *tl, struct tl_memory *out);

/* tl_nr_cpus - 1 + the highest CPU id seen or configured. */
MON_API unsigned int tl_nr_cpus(const struct tl *tl);

/*
 * A flutter (MKM 3.2): @thread was switched back in on @cpu at @time_ns
 * from the idle task it had been switched out to, nothing monitored run
 * between. In time order.
 */
struct tl_flutter {
	uint64_t time_ns;
	size_t thread;
	uint16_t cpu;
};

/* tl_nr_flutters - flutters seen; tl_flutter - flutter @i. Return: 0,
 * -EINVAL or -ENOENT. */
MON_API size_t tl_nr_flutters(const struct tl *tl);
MON_API int tl_flutter(const struct tl *tl, size_t i, struct tl_flutter *out);

/*
 * A wake: a WAKEUP or WAKEUP_NEW record that made a thread runnable (one
 * of a thread already runnable or on its CPU is not kept), who woke whom:
 * the edges of a wait chain (mon_critical_path()). Kept in time order
 * unless the timeline is TL_STREAMING; needs MKM_CLASS_WAKEUP.
 */
struct tl_wake {
	uint64_t time_ns; /* the start of the thread's RUNQ interval */
	size_t thread; /* the thread woken */
	int64_t waker; /* the thread that woke it (a WAKEUP_NEW: its parent),
			  or -1: tid 0 (an idle CPU's interrupt) or a task
			  not monitored */
	uint32_t waker_tid; /* as the record says */
	uint16_t cpu; /* the CPU the thread was woken onto */
	uint8_t type; /* MKM_EV_WAKEUP or MKM_EV_WAKEUP_NEW */
	uint8_t flags; /* the record's MKM_EVF_* (IN_IRQ: from an interrupt
			  on the waker's CPU, not by the waker itself) */
};

/* tl_nr_wakes - wakes kept; tl_wake - wake @i. Return: 0, -EINVAL or
 * -ENOENT. */
MON_API size_t tl_nr_wakes(const struct tl *tl);
MON_API int tl_wake(const struct tl *tl, size_t i, struct tl_wake *out);

/*
 * tl_wake_at - the wake that made thread @th runnable at @t_ns (binary
 * search, O(log n))
 *
 * Return: 0, or -EINVAL (NULL), -ENOENT (none: not woken then, or the
 * record was lost or not recorded).
 */
MON_API int tl_wake_at(const struct tl *tl, size_t th, uint64_t t_ns,
		       struct tl_wake *out);

/*
 * tl_set_idle - turn TL_IDLE on before anything is fed (the timeline sink
 * does so when the stream's INFO says MKM_CONFIG_SYSTEM)
 *
 * Return: 0, or -EINVAL, -EBUSY (records were fed already).
 */
MON_API int tl_set_idle(struct tl *tl);

/*
 * tl_set_window - turn TL_WINDOW on before anything is fed (the timeline
 * sink does so when the stream's INFO says MKM_CONFIG_FLIGHT)
 *
 * Return: 0, or -EINVAL, -EBUSY (records were fed already).
 */
MON_API int tl_set_window(struct tl *tl);

/*
 * tl_idle_thread - the thread that stands for @cpu's idle task (TL_IDLE)
 *
 * Return: its index (>= 0), or -ENOENT (no such CPU, not TL_IDLE, or the
 * CPU never went idle in the stream), -EINVAL.
 */
MON_API int64_t tl_idle_thread(const struct tl *tl, unsigned int cpu);

/* What ran an interrupt handler (enum for struct tl_irq.kind). */
enum tl_irq_kind {
	TL_IRQ_HARD = 0, /* a device interrupt: number is its irq */
	TL_IRQ_SOFT, /* a softirq: number is its vector (TIMER, RCU, ...) */
	TL_IRQ_VECTOR, /* an x86 system vector (MKM_EVF_VECTOR): the local
			  timer, an IPI; number is the vector */
};

/*
 * One interrupt handler's run, from its entry to its exit on one CPU (the
 * IRQ class; not kept with TL_STREAMING). Nested handlers are each one
 * entry, the outer one's time including the inner's.
 */
struct tl_irq {
	uint64_t start_ns;
	uint64_t end_ns;
	int64_t thread; /* the thread interrupted (an idle thread too), -1 */
	uint32_t number; /* irq, softirq vector or system vector */
	uint16_t cpu;
	uint8_t kind; /* enum tl_irq_kind */
	uint8_t depth; /* 0: it interrupted a thread; 1: inside another... */
};

/* tl_nr_irqs - handler runs recorded; tl_irq - run @i, in the order they
 * ended. Return: 0, -EINVAL or -ENOENT. */
MON_API size_t tl_nr_irqs(const struct tl *tl);
MON_API int tl_irq(const struct tl *tl, size_t i, struct tl_irq *out);

/*
 * tl_irq_name - a handler's name: "irq 11", "softirq TIMER", "local_timer"
 * @kind, @number: as in struct tl_irq
 * @buf, @len: where to write it (at most 32 bytes are needed)
 *
 * Return: @buf.
 */
MON_API const char *tl_irq_name(unsigned int kind, uint32_t number, char *buf,
				size_t len);

/* tl_nr_marks - number of MKM_EV_MARK and MKM_EV_TRIGGER records
 * processed (a flight recorder's triggers are marks with their kind). */
MON_API size_t tl_nr_marks(const struct tl *tl);

/* tl_mark - mark @i, in time order. Return: 0, -EINVAL or -ENOENT. */
MON_API int tl_mark(const struct tl *tl, size_t i, struct tl_mark *out);

/* tl_state_name - "RUN_USER", ...; "?" for a value out of range. */
MON_API const char *tl_state_name(unsigned int state);

/* The groups of microstates a user thinks in: the report's columns. */
enum tl_group {
	TL_GROUP_RUN, /* RUN, RUN_USER, RUN_SYS, TRAP */
	TL_GROUP_INTR, /* INTERRUPTED */
	TL_GROUP_RUNQ, /* RUNQ */
	TL_GROUP_SLEEP, /* SLEEP, FUTEX_SLEEP, POLL_SLEEP */
	TL_GROUP_DISK, /* DISK, PAGING_SLEEP */
	TL_GROUP_STOP, /* STOPPED */
	TL_GROUP_ZOMB, /* ZOMBIE */
	TL_GROUP_UNKN, /* UNKNOWN */
	TL_NR_GROUPS
};

/*
 * How a microstate is named and drawn: one table for the report, the text
 * timeline, the viewer, the pictures and the exporters.
 */
struct tl_state_desc {
	const char *name; /* "RUN_USER", as tl_state_name() */
	const char *legend; /* a word or two for legends: "in user mode" */
	const char *glyph_utf8; /* one cell where the terminal has UTF-8 */
	uint32_t rgb; /* its colour, 0xRRGGBB */
	char glyph; /* one ASCII cell: '#' */
	uint8_t group; /* enum tl_group */
	uint8_t on_cpu; /* the thread holds a CPU in this state */
};

/*
 * tl_state_desc - the description of @state; out of range, an entry named
 * "?" in group TL_GROUP_UNKN. Never NULL.
 */
MON_API const struct tl_state_desc *tl_state_desc(unsigned int state);

/* tl_group_name - "RUN", "INTR", ...; "?" for a value out of range. */
MON_API const char *tl_group_name(unsigned int group);

#ifdef __cplusplus
}
#endif

#endif /* MON_TIMELINE_H */
