/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmonitor.h - libmonitor, the user library of the mkm kernel monitor: the
 * MKM calls over /dev/mkm, the microstate timeline builder, accounting and
 * the .mkm trace file. This header is the library's documentation.
 *
 * Conventions
 * ===========
 * Every function that can fail returns 0 (or a documented non-negative
 * value) on success and a negative errno on failure; errno itself is left
 * alone. monitor_strerror() turns any of them into a sentence. A NULL handle
 * or output pointer gives -EINVAL unless said otherwise. Handles are opaque
 * and not thread-safe: use one from one thread at a time.
 *
 * Modules and prefixes
 * ====================
 *  monitor_*, thread_monitor, thread_unmonitor   the MKM calls (/dev/mkm)
 *  tl_*      the timeline builder: merges per-CPU event streams in time
 *            order and rebuilds each thread's microstate intervals
 *  acct_*    accounting over a timeline: msa() totals, burst statistics,
 *            the CPU x thread matrix, per-CPU summaries
 *  trace_*   the .mkm trace file, writer and reader (docs/trace-format.md)
 *  mon_*     the event pipeline: a source (a trace file, a live monitor,
 *            several merged) through stages into sinks (a timeline, a
 *            trace file, one's own); <mon_pipeline.h>, included here
 *
 * Events are the kernel's records, struct mkm_event of <mkm.h> (the UAPI
 * header, installed next to this one).
 *
 * Typical use (errors unchecked for brevity)
 * ==========================================
 *	struct monitor *mon;
 *	struct monitor_config cfg = { .classes = MKM_CLASS_ALL };
 *	struct tl_config tcfg = { .classes = MKM_CLASS_ALL };
 *	unsigned int ncpu = 0;
 *	struct tl *tl;
 *
 *	monitor_create(&mon, NULL);
 *	monitor_configure(mon, &cfg);
 *	monitor_statistics(mon, NULL, &ncpu);
 *	tcfg.nr_cpus = ncpu;
 *	tl_create(&tl, &tcfg);
 *	thread_monitor(mon, 1, tid);
 *	monitor_resume(mon);
 *	while (running) {
 *		struct pollfd p = { .fd = monitor_fd(mon), .events = POLLIN };
 *		uint64_t t0;
 *		size_t n;
 *
 *		poll(&p, 1, 100);
 *		t0 = now_monotonic_ns();  (just before draining)
 *		do {
 *			monitor_read(mon, buf, BUF_RECORDS, &n);
 *			tl_feed(tl, buf, n);
 *		} while (n);
 *		tl_advance(tl, t0 - margin);  (CPUs without records are idle)
 *	}
 *	monitor_suspend(mon);
 *	... drain as above ..., then tl_flush(tl);
 *	acct_msa(tl, ACCT_ALL, 0, TL_NR_STATES, timers);
 *	monitor_terminate(mon);
 *
 * t0 must be read before the drain: a record stamped before t0 but still
 * being written when read() ran would otherwise be declared delivered.
 * The margin covers a sensor that took its timestamp and was interrupted
 * before committing the record (microseconds).
 */
#ifndef LIBMONITOR_H
#define LIBMONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <mkm.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MON_API __attribute__((visibility("default")))

/* ======================================================================
 * The MKM calls
 * ====================================================================== */

/* An open monitor: the /dev/mkm file descriptor and what it was told. */
struct monitor;

/* What MKM_IOC_CONFIGURE takes and returns (see <mkm.h>). */
struct monitor_config {
	uint64_t ring_bytes; /* in: requested per CPU (0: default); out: got */
	uint64_t total_bytes; /* out: allocated over all possible CPUs */
	uint32_t classes; /* MKM_CLASS_* (0: MKM_CLASS_DEFAULT) */
	uint32_t flags; /* MKM_CONFIG_* */
	uint64_t wakeup_bytes; /* poll() watermark per ring (0: half) */
};

/*
 * monitor_create - create a monitor (MKM's monitor_create)
 * @monp: on success, the new monitor, suspended
 * @size: in: bytes requested per CPU ring (0: MKM_RING_DEFAULT_BYTES);
 *        out: bytes allocated per CPU ring. May be NULL for the default.
 *
 * Opens MKM_DEVICE, checks the ABI version and configures the rings with
 * the default event classes. Nothing is recorded before monitor_resume().
 *
 * Return: 0, or -ENOENT (no /dev/mkm: the module is not loaded), -EACCES
 * (no permission on the device), -EPROTO (the module speaks an ABI major
 * or event size this library does not know), -EINVAL (size larger than
 * MKM_RING_MAX_BYTES), -ENOMEM, or another errno of open(2)/ioctl(2).
 */
MON_API int monitor_create(struct monitor **monp, size_t *size);

/*
 * monitor_create_at - monitor_create on another device node
 * @monp: on success, the new monitor
 * @path: the device (NULL: MKM_DEVICE)
 * @cfg: configuration to apply, updated with what was allocated; NULL
 *       leaves the module's defaults (nothing is configured)
 *
 * Return: as monitor_create().
 */
MON_API int monitor_create_at(struct monitor **monp, const char *path,
			      struct monitor_config *cfg);

/*
 * monitor_terminate - destroy a monitor (MKM's monitor_terminate)
 * @mon: the monitor; freed even on error, NULL is a no-op returning 0
 *
 * Closes the descriptor: if it was the last reference, every tracked thread
 * goes back to unmonitored and the rings are freed (unread events too).
 *
 * Return: 0, or the negative errno of close(2) (-EIO, -EINTR); the handle
 * is gone either way.
 */
MON_API int monitor_terminate(struct monitor *mon);

/*
 * monitor_configure - set ring size, event classes and flags
 * @mon: the monitor, suspended and drained
 * @cfg: in/out, as struct monitor_config says
 *
 * ring_bytes 0 asks for MKM_RING_DEFAULT_BYTES. On success @cfg holds
 * what the kernel applied: ring_bytes and total_bytes allocated, classes
 * (0 resolved to MKM_CLASS_DEFAULT) and wakeup_bytes (0 resolved to half a
 * ring, rounded to whole records).
 *
 * MKM_CONFIG_SYSTEM in flags makes the monitor system-wide: every thread
 * of the machine, present and future, kernel threads included, and the
 * interrupts of idle CPUs (<mkm.h>); the timeline rebuilds each CPU's idle
 * task as a thread "swapper/N" (TL_IDLE).
 *
 * MKM_CONFIG_ONE_SWITCH in flags asks for a switch between two threads of
 * this monitor as one MKM_EV_SWITCH record, not a SWITCH_OUT and a
 * SWITCH_IN ("Switch records" below): half the records, for a caller that
 * reads the type (every reader of this library does; mkm's tools ask for
 * it). A module before ABI 2.4 records the two: the flag is dropped, and
 * @cfg's flags say so on return. Without it, the records are the two, as
 * a caller written before ABI 2.4 expects.
 *
 * Return: 0, or -EBUSY (resumed, or unread events buffered: read them
 * first; or MKM_CONFIG_SYSTEM while another monitor is system-wide),
 * -EPERM (MKM_CONFIG_SYSTEM without CAP_PERFMON or CAP_SYS_ADMIN), -EINVAL (ring_bytes above MKM_RING_MAX_BYTES, unknown class or
 * flag bits, wakeup_bytes larger than the ring), -EOPNOTSUPP (a class this
 * kernel has no tracepoints for), -EACCES (the IRQ class without
 * CAP_PERFMON, unless the module's paranoid is 0), -ENOMEM (the rings
 * cannot be allocated,
 * or would take more than half the machine's RAM), -EPERM (without
 * CAP_PERFMON or CAP_IPC_LOCK, the user's monitors would hold more ring
 * memory than the module's max_user_kb), -EFAULT (the kernel could not
 * write the result back; nothing changed).
 */
MON_API int monitor_configure(struct monitor *mon, struct monitor_config *cfg);

/*
 * mon_ring_bytes_for - a ring size per CPU for recording @classes
 * @classes: MKM_CLASS_* to be recorded (0: MKM_CLASS_DEFAULT)
 * @nr_cpus: the CPUs that get a ring (possible CPUs)
 * @ram_bytes: the machine's RAM (0: no limit from it)
 *
 * Grows with the records the classes add per context switch and with the
 * number of rings the one reader has to visit; a power of two between
 * MKM_RING_MIN_BYTES and MKM_RING_MAX_BYTES, all rings together within
 * 1/32 of @ram_bytes. What mkm record asks for without --buffer-size.
 *
 * Return: bytes per CPU.
 */
MON_API uint64_t mon_ring_bytes_for(uint32_t classes, unsigned int nr_cpus,
				    uint64_t ram_bytes);

/*
 * mon_ring_bytes_after_loss - the ring size that would have kept a
 * recording's events
 * @ring_bytes: the size per CPU it had
 * @events: records it read
 * @lost: records it lost
 *
 * Return: @ring_bytes when nothing was lost; else a power of two at least
 * twice @ring_bytes times (events + lost) / events, at most
 * MKM_RING_MAX_BYTES; 0 when @ring_bytes was already the largest (fewer
 * classes or fewer threads are the way then).
 */
MON_API uint64_t mon_ring_bytes_after_loss(uint64_t ring_bytes, uint64_t events,
					   uint64_t lost);

/*
 * monitor_resume - start recording (MKM's monitor_resume); idempotent
 * @mon: the monitor
 *
 * Return: 0, or -ENOMEM (rings could not be allocated at the first resume),
 * -EPERM (the default rings would exceed the user's max_user_kb).
 */
MON_API int monitor_resume(struct monitor *mon);

/*
 * monitor_suspend - stop recording (MKM's monitor_suspend); idempotent.
 * When it returns, no sensor is still writing. Buffered events stay
 * readable.
 * @mon: the monitor
 *
 * Return: 0, or -EINVAL.
 */
MON_API int monitor_suspend(struct monitor *mon);

/*
 * monitor_read - drain recorded events without blocking (MKM's monitor_read)
 * @mon: the monitor
 * @buf: room for @max records
 * @max: capacity of @buf in records, at least 1
 * @n: out: records copied; 0 when nothing is buffered
 *
 * Each CPU's records come in order; different CPUs are not merged (give
 * them to tl_feed(), which does). Use monitor_fd() with poll(2) to wait.
 * Where the module can map its rings (ABI 2.2), monitor_resume() maps them
 * and monitor_read() reads them in place, with no system call but an
 * occasional MKM_IOC_CLOCK; elsewhere, or when the environment variable
 * MKM_NO_MMAP was set at monitor_create(), it uses read(2). The records are
 * the same either way. A monitor configured with MKM_CONFIG_ONE_SWITCH on a
 * module of ABI 2.4 or later records a switch between two of its threads
 * as one MKM_EV_SWITCH record (monitor_configure()); mon_event_split()
 * gives the SWITCH_OUT and SWITCH_IN it stands for.
 *
 * Return: 0, or -EINVAL (@max 0), -EIO (the device returned a partial
 * record), -EFAULT, or another errno of read(2) or of MKM_IOC_CLOCK.
 */
MON_API int monitor_read(struct monitor *mon, struct mkm_event *buf, size_t max,
			 size_t *n);

/*
 * thread_monitor - start tracking a thread (MKM's thread_monitor)
 * @mon: the monitor
 * @unique_id: tag carried by every event of the thread
 * @tid: thread id in the caller's PID namespace
 *
 * An MKM_EV_ATTACH event records the thread's state at once.
 *
 * Return: 0, or -ESRCH (no such thread), -EPERM (the caller may not trace
 * it), -EBUSY (another monitor tracks it), -EEXIST (this monitor already
 * does), -EINVAL (the thread is exiting, or tid <= 0), -ENOSPC (the
 * monitor tracks its maximum of threads), -ENOMEM.
 */
MON_API int thread_monitor(struct monitor *mon, uint32_t unique_id, pid_t tid);

/*
 * thread_unmonitor - stop tracking a thread (MKM's thread_unmonitor)
 * @mon: the monitor
 * @tid: the thread; an MKM_EV_DETACH event ends its stream
 *
 * Return: 0, or -ESRCH (no such thread), -ENOENT (not tracked by this
 * monitor), -EINVAL (tid <= 0).
 */
MON_API int thread_unmonitor(struct monitor *mon, pid_t tid);

/*
 * monitor_mark - record a user marker (MKM_EV_MARK) for the calling thread,
 * on the monitor's clock, on the CPU it runs on
 * @mon: the monitor
 * @value: carried in the event's arg0 (low half) and arg1 (high half)
 *
 * Return: 0, or -EAGAIN (the monitor is suspended).
 */
MON_API int monitor_mark(struct monitor *mon, uint64_t value);

/*
 * monitor_statistics - per-CPU counters of the monitor
 * @mon: the monitor
 * @cpus: room for *@nr_cpus entries (may be NULL when *@nr_cpus is 0)
 * @nr_cpus: in: entries at @cpus; out: number of possible CPU ids (the
 *           first min(in, out) entries are filled)
 *
 * Once the rings are drained, produced == read + lost on every CPU.
 *
 * Return: 0, or -EINVAL, -EFAULT.
 */
MON_API int monitor_statistics(struct monitor *mon, struct mkm_cpu_stats *cpus,
			       unsigned int *nr_cpus);

/*
 * monitor_busy_threads - threads a system-wide monitor (MKM_CONFIG_SYSTEM)
 * left out at its last resume because another monitor tracked them
 * @mon: the monitor
 * @n: out
 *
 * Return: 0, or -EINVAL, or another errno of ioctl(2).
 */
MON_API int monitor_busy_threads(struct monitor *mon, unsigned int *n);

/*
 * monitor_deferrals - the module's deferred probe drops (ABI 2.5)
 * @mon: any monitor
 * @deferrals: out: drops deferred since the module loaded (low 31 bits),
 *             | MKM_STATS_DEFERRING while unwanted probes are registered
 *
 * A resume/suspend loop of monitors without CAP_PERFMON gets its probe
 * drops rationed: past the ration, unwanted probes stay registered a
 * while, costing tracked threads time that no record accounts for. A
 * measurement whose span saw this value change, or saw the flag, is
 * not exact (calibration refuses it). 0 from a module before ABI 2.5.
 *
 * Return: 0, or -EINVAL, or another errno of ioctl(2).
 */
MON_API int monitor_deferrals(struct monitor *mon, uint32_t *deferrals);

/*
 * monitor_version - the ABI version the module speaks (checked at create)
 * @mon: the monitor
 * @version: out
 *
 * Return: 0, or -EINVAL.
 */
MON_API int monitor_version(const struct monitor *mon,
			    struct mkm_version *version);

/*
 * monitor_fd - the monitor's descriptor, for poll(2)/epoll(7) (POLLIN when
 * a ring passes its watermark) and for passing with SCM_RIGHTS. It stays
 * owned by the monitor: do not close it.
 * @mon: the monitor
 *
 * Return: the descriptor (>= 0), or -EINVAL.
 */
MON_API int monitor_fd(const struct monitor *mon);

/*
 * monitor_strerror - describe a value returned by any libmonitor function
 * @err: a negative errno (a positive one is accepted too); 0 gives
 *       "success"
 *
 * Return: a static, constant string, never NULL.
 */
MON_API const char *monitor_strerror(int err);

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
	uint64_t value;
	uint32_t tid;
	uint16_t cpu;
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

/* tl_nr_marks - number of MKM_EV_MARK records processed. */
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

/* mon_event_name - "switch_out", ... (MKM_EV_*); "?" if unknown. */
MON_API const char *mon_event_name(unsigned int type);

/*
 * Switch records
 * ==============
 * A switch is a SWITCH_OUT of the thread leaving and a SWITCH_IN of the
 * thread coming in, or, between two threads of one monitor configured with
 * MKM_CONFIG_ONE_SWITCH (ABI 2.4; asked for at monitor_configure()),
 * one MKM_EV_SWITCH record that is both (<mkm.h> draws it). Every reader
 * of this library takes both forms, and so do trace files, which keep the
 * records as the kernel gave them. A consumer of one's own that knows only
 * the two-record form splits each record first: mon_event_split(), or a
 * struct mon_split, which also finds next's unique_id (the record does not
 * carry it) and keeps seq numbers consecutive.
 */

/*
 * mon_event_split - a record in the two-record form
 * @e: the record
 * @next_uid: for a SWITCH, next's unique_id (0 if not known)
 * @out: out: for a SWITCH, [0] the SWITCH_OUT of prev (its tid, unique_id,
 *       MKM_EVF_PREEMPTED and MKM_EVF_LOCK_WAIT; arg0 its MKM_TS_* state,
 *       arg1 next's tid) and [1] the SWITCH_IN of next (tid @e's arg1,
 *       unique_id @next_uid, MKM_EVF_WAIT_US; arg0 its wait, arg1 prev's
 *       tid), both with @e's time, cpu and seq; any other record, [0] = *@e
 *
 * Return: the records @e stands for: 2 for a SWITCH, else 1.
 */
MON_API unsigned int mon_event_split(const struct mkm_event *e,
				     uint32_t next_uid,
				     struct mkm_event out[2]);

/*
 * A splitter: mon_event_split() over a stream, with what it needs to know.
 * It remembers each thread's unique_id from the thread's own records (the
 * latest record with its tid; an inheriting FORK's child), so a stream in
 * time order (after mon_stage_order()) gives every SWITCH_IN its thread's
 * unique_id; and it shifts each CPU's seq numbers up by the SWITCH records
 * split there before, so the halves are two consecutive events and a hole
 * (events lost) stays a hole of the same size.
 */
struct mon_split;

/* mon_split_new - an empty splitter; NULL with errno ENOMEM. */
MON_API struct mon_split *mon_split_new(void);

/*
 * mon_split_event - the records @e stands for, in the two-record form
 * @s: the splitter, fed the stream's records in order (LOST ones too)
 * @e: the record
 * @out: out: as mon_event_split(), seq numbers shifted as said above
 *
 * Return: 2 (a SWITCH) or 1, or -EINVAL (NULL argument), -ENOMEM.
 */
MON_API int mon_split_event(struct mon_split *s, const struct mkm_event *e,
			    struct mkm_event out[2]);

/*
 * mon_split_note - learn from @e without splitting it (tid -> unique_id)
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
MON_API int mon_split_note(struct mon_split *s, const struct mkm_event *e);

/* mon_split_unique_id - the unique_id @s last saw with @tid; 0 if none. */
MON_API uint32_t mon_split_unique_id(const struct mon_split *s, uint32_t tid);

/* mon_split_free - free a splitter; NULL is a no-op. */
MON_API void mon_split_free(struct mon_split *s);

/*
 * Lost events
 * ===========
 * Each CPU numbers its records (seq). A LOST record says how many events
 * the CPU dropped, and its seq is the first one dropped. A hole in a CPU's
 * seq numbers that no LOST record announced (a trace cut upstream, a stage
 * that dropped records, a merge of sources) is a loss too: every reader
 * of this library turns it into a LOST record by mon_seq_lost().
 */
struct mon_seq_track {
	uint32_t next; /* the seq expected next */
	bool valid; /* a record was seen */
};

/*
 * mon_seq_lost - the LOST record for the events missing just before @e in
 * its stream, and the stream's track moved past @e
 * @t: the track of @e's stream (one CPU of one source), zeroed at first
 * @e: the stream's next record (a LOST one moves @t past the events it
 *     announces)
 * @time_ns: the time to give the LOST record
 * @lost: out, when 1 is returned: a LOST record stamped @time_ns on @e's
 *        CPU, its seq the first missing, arg0 how many are missing
 *
 * Return: 1 when events are missing before @e, 0 when none are (or @e is
 * the stream's first record), -ERANGE when @e's seq is behind the one
 * expected (a repeat, not a loss: an anomaly to count). @t moves past @e
 * in every case.
 */
MON_API int mon_seq_lost(struct mon_seq_track *t, const struct mkm_event *e,
			 uint64_t time_ns, struct mkm_event *lost);

/*
 * What a recording takes by default ("default" below): the module's
 * default classes and who woke whom, as perf sched record takes
 * sched_wakeup (the critical path, "woken by" and wakeup latency need it).
 */
#define MON_CLASS_RECORD_DEFAULT (MKM_CLASS_DEFAULT | MKM_CLASS_WAKEUP)

/* The event class names mon_classes_parse() takes, for messages. */
#define MON_CLASS_NAMES "sched, lifecycle, irq, syscall, wakeup, default, all"

/*
 * mon_classes_parse - a comma-separated list of event class names
 * (MON_CLASS_NAMES), as mkm record --events and srun --mkm=LIST take it
 * @list: the list
 * @classes: out: the MKM_CLASS_* mask
 * @bad: out (may be NULL): on -EINVAL, the first name not known (up to
 *       @bad_len bytes, NUL-terminated)
 *
 * Return: 0, -EINVAL (an unknown name, an empty list or item), -ENOMEM.
 */
MON_API int mon_classes_parse(const char *list, uint32_t *classes, char *bad,
			      size_t bad_len);

/*
 * mon_syscall_name - system call @nr's name ("write") on @machine (a
 * trace_info's, uname -m; NULL or "": x86_64, the machine the module
 * builds for), from the kernel's own table.
 *
 * Return: the name, or NULL if @nr or @machine is not known.
 */
MON_API const char *mon_syscall_name(const char *machine, uint32_t nr);

/*
 * mon_task_state_name - a MKM_TS_* value as ps(1) prints it ("R", "S",
 * "D", ...); "?" if unknown.
 */
MON_API const char *mon_task_state_name(unsigned int task_state);

/* ---- Times and records as people read them (format.c) ---------------- */

/* The units mon_parse_time() takes, for messages. */
#define MON_TIME_UNITS "ns, us, ms, s"

/*
 * mon_parse_time - a time with its unit ("1.5ms", "200 us", "2s",
 * "1500ns")
 *
 * Return: nanoseconds, or -1 if malformed or without a unit (a bare "5"
 * is refused, not 5 ns).
 */
MON_API int64_t mon_parse_time(const char *s);

/* mon_fmt_ns - nanoseconds as a short human string ("12.3 ms") in @buf
 * of @len bytes. Return: @buf. */
MON_API const char *mon_fmt_ns(char *buf, size_t len, uint64_t ns);

/* mon_fmt_time - time @t since @origin (mon_time_origin()) as
 * mon_fmt_ns() writes it, with a minus sign before the origin.
 * Return: @buf. */
MON_API const char *mon_fmt_time(char *buf, size_t len, uint64_t t,
				 uint64_t origin);

/* What mon_fmt_event_args() may know beside the record (all may be NULL). */
struct mon_event_fmt {
	const char *machine; /* the trace's (uname -m), for syscall names */
	/* For the second NAME record of a comm, the first's 8 bytes, so
	 * that it shows the whole comm. */
	const char *first_half;
	/* The comm of thread @tid, or NULL: names the tids a record gives
	 * (next=, prev=, by=, child=). */
	const char *(*comm)(void *arg, uint32_t tid);
	void *arg;
};

/*
 * mon_fmt_event_args - an event's arguments as mkm dump prints them ("S
 * preempted next=12 (worker)", "vector=236 local_timer", "nr=1 write
 * ret=12", "prev=0 waited=1.3 ms"): names where the record has numbers,
 * times with units; @f may be NULL. Return: @buf.
 */
MON_API const char *mon_fmt_event_args(char *buf, size_t len,
				       const struct mkm_event *e,
				       const struct mon_event_fmt *f);

/* ======================================================================
 * Accounting (acct_)
 * ======================================================================
 *
 * Computed from a timeline's intervals at the time of the call. Totals
 * count every interval, the open ones up to the time processed so far;
 * burst statistics count closed intervals only (an open one is not a whole
 * burst).
 */

/* Whose time: as the which argument of msa() in Linux MSA. */
enum acct_scope {
	ACCT_THREAD = 0, /* thread th alone */
	ACCT_ALL, /* every thread of the timeline (th ignored) */
	ACCT_CHILDREN, /* th's descendants by FORK events, not th itself */
};

/*
 * acct_msa - nanoseconds per microstate (msa() of Linux MSA)
 * @tl: the timeline
 * @scope: enum acct_scope
 * @th: the thread (ignored for ACCT_ALL)
 * @ntimers: entries at @timers; the first min(@ntimers, TL_NR_STATES)
 *           are filled, indexed by enum tl_state
 * @timers: out
 *
 * Return: 0, or -EINVAL (bad scope, NULL), -ENOENT (@th out of range).
 */
MON_API int acct_msa(const struct tl *tl, enum acct_scope scope, size_t th,
		     unsigned int ntimers, uint64_t *timers);

struct acct_burst {
	uint64_t count; /* closed intervals in the state */
	uint64_t total_ns;
	uint64_t min_ns; /* 0 when count is 0 */
	uint64_t max_ns;
	double mean_ns;
	double stddev_ns; /* population standard deviation */
};

/*
 * acct_bursts - burst statistics per microstate
 * @tl, @scope, @th: as acct_msa()
 * @out: TL_NR_STATES entries, indexed by enum tl_state
 *
 * Return: 0, or -EINVAL, -ENOENT.
 */
MON_API int acct_bursts(const struct tl *tl, enum acct_scope scope, size_t th,
			struct acct_burst *out);

struct acct_cell {
	uint64_t run_ns; /* RUN, RUN_USER, RUN_SYS and TRAP time on the CPU */
	uint64_t dispatches; /* times put on the CPU (a stretch on the CPU
				interrupted by IRQs counts once) */
};

/*
 * acct_matrix - the CPU x thread matrix
 * @tl: the timeline
 * @cells: out: @nr_cpus * @nr_threads cells, cell (cpu, th) at
 *         cells[cpu * nr_threads + th]; zeroed first
 * @nr_cpus: rows (tl_nr_cpus() covers all); higher CPUs are left out
 * @nr_threads: columns (tl_nr_threads() covers all)
 *
 * Return: 0, or -EINVAL (NULL @cells with a non-empty matrix), -EOVERFLOW
 * (the product overflows).
 */
MON_API int acct_matrix(const struct tl *tl, struct acct_cell *cells,
			unsigned int nr_cpus, size_t nr_threads);

struct acct_cpu {
	uint64_t run_ns; /* monitored threads running on it */
	uint64_t interrupted_ns; /* ... of which stolen by handlers */
	uint64_t switches; /* monitored threads switched in */
	uint64_t flutters; /* switched out and back in, only idle between */
	uint64_t events; /* records of this CPU */
	uint64_t lost; /* events lost on this CPU */
	uint64_t threads; /* distinct monitored threads run on it */
	uint64_t first_ns,
		last_ns; /* first and last record time (0, 0: none) */
	uint64_t idle_ns; /* TL_IDLE: of run_ns, its idle thread's */
};

/*
 * acct_cpu - summary of CPU @cpu
 *
 * Return: 0, or -EINVAL, -ENOENT (@cpu >= tl_nr_cpus()).
 */
MON_API int acct_cpu(const struct tl *tl, unsigned int cpu,
		     struct acct_cpu *out);

/*
 * acct_cpus - summaries of CPUs 0 .. @nr_cpus - 1 in one walk of the
 * timeline (acct_cpu() walks it once per call)
 * @tl: the timeline
 * @out: @nr_cpus entries; CPUs from tl_nr_cpus() on are left untouched
 * @nr_cpus: entries at @out
 *
 * Return: 0, or -EINVAL, -ENOMEM.
 */
MON_API int acct_cpus(const struct tl *tl, struct acct_cpu *out,
		      unsigned int nr_cpus);

/* ======================================================================
 * Trace files (trace_): see docs/trace-format.md
 * ====================================================================== */

#define TRACE_MAJOR 1
/*
 * The major of a trace whose records may hold MKM_EV_SWITCH (INFO's FLAGS
 * has MKM_CONFIG_ONE_SWITCH): a reader of format 1.2 or older would skip
 * them as unknown records and lose every such switch, so it must refuse
 * the file; this library reads both majors.
 */
#define TRACE_MAJOR_SWITCH 2
#define TRACE_MINOR 3

/* trace_info.trace_flags */
#define TRACE_F_COMPENSATED \
	(1u << 0) /* times compensated for the monitor's
					 own cost (mon_stage_compensate()) */
/* mkm merge: several nodes' traces on the reference node's clock, CPUs
 * and tids made unique per node (the NODES chunk, docs/cluster.md) */
#define TRACE_F_MERGED (1u << 1)

#define TRACE_MAX_MONITOR_TIDS 8

/* What a trace says about its recording (the INFO chunk). */
struct trace_info {
	uint32_t clock; /* clockid_t of time_ns (CLOCK_MONOTONIC) */
	uint32_t abi_major, abi_minor; /* MKM ABI of the records */
	uint32_t event_size; /* sizeof(struct mkm_event) */
	uint32_t nr_cpus; /* possible CPU ids */
	uint32_t classes; /* MKM_CLASS_* recorded */
	uint32_t flags; /* MKM_CONFIG_* */
	uint32_t trace_flags; /* TRACE_F_*: what was done to the records */
	uint64_t ring_bytes; /* per CPU */
	uint64_t start_mono_ns; /* CLOCK_MONOTONIC at start */
	uint64_t start_real_ns; /* CLOCK_REALTIME at the same instant */
	char hostname[65];
	char kernel[65]; /* uname -r */
	char machine[65]; /* uname -m */
	/* The recording's own threads (the drain, the writer...): the time
	 * they take a CPU from monitored threads is the monitor's cost too
	 * (mon_stage_compensate()). */
	uint32_t nr_monitor_tids;
	uint32_t monitor_tids[TRACE_MAX_MONITOR_TIDS];
	/* One node of a job on many nodes (docs/cluster.md); written only
	 * when node[0] is set. */
	char node[65]; /* its name in the cluster (Slurm's SLURMD_NODENAME) */
	uint32_t job_id, step_id; /* the job and step recorded */
	uint32_t node_id; /* this node's index in the step (SLURM_NODEID) */
	uint32_t nr_nodes; /* the step's nodes (0: unknown) */
};

/*
 * mon_time_origin - the instant a trace's times are counted from, by every
 * mkm command: the recording's start (@info->start_mono_ns, taken before
 * the first record). Times printed by mkm view, dump, timeline and report,
 * and the --from/--to of mkm export and timeline, are nanoseconds since
 * this instant, so a time read in one selects the same instant in another.
 *
 * Return: the origin on the trace's clock (0 if @info is NULL or gives no
 * start).
 */
MON_API uint64_t mon_time_origin(const struct trace_info *info);

/* A thread name known to the writer (THREADS chunk). */
struct trace_thread {
	uint32_t tid;
	uint32_t unique_id;
	char name[16]; /* not necessarily NUL-terminated */
};

/*
 * A thread's process (thread group) as the recorder found it when it
 * attached the thread (PROCESSES chunk, since 1.3): the records say
 * nothing of it until a FORK (MKM_EVF_THREAD) or an exec.
 */
struct trace_process {
	uint32_t tid;
	uint32_t tgid; /* the process id: its leader's tid */
};

/*
 * What the monitor costs, measured on the machine in use (mon_calibrate(),
 * the CALIBRATION chunk, docs/compensation.md). Each figure is MKM's
 * (Tables 2 and 3): alternating trials with the sensors on and off, the
 * difference divided by the events counted, as mean, standard deviation
 * and 99% confidence interval over the trials.
 */
enum mon_cost_kind {
	MON_COST_SWITCH, /* one switch (MON_COST_PER_SWITCH), else record */
	MON_COST_WAKEUP, /* one WAKING, WAKEUP or WAKEUP_NEW record */
	MON_COST_MIGRATE, /* one MIGRATE record */
	MON_COST_IRQ, /* one irq or softirq entry or exit record */
	MON_COST_SYSCALL, /* one syscall entry or exit record */
	MON_COST_MARK, /* one MARK record */
	MON_COST_OTHER, /* lifecycle, attach, detach and name records */
	MON_COST_CONSTANT, /* a context switch of unmonitored threads while a
			      monitor is active: the probe's check alone */
	MON_COST_NR,
};

/* trace_cost.flags: measured, else estimated from another kind's figure
 * (no workload makes that kind alone: mon_calibrate.h) */
#define MON_COST_MEASURED (1u << 0)
/*
 * The figure's verdict (mon_cost_judge()): JUDGED says the bits below were
 * set by the calibration that measured it (traces written before the
 * verdict existed have none; readers judge those from mean, stddev, ci99
 * and samples). Any of the other four: the figure is not a cost, and no
 * compensation is computed from it unless forced. An estimated figure
 * carries the verdict of the one it was taken from.
 */
#define MON_COST_JUDGED (1u << 1)
#define MON_COST_NEGATIVE (1u << 2) /* mean <= 0 */
#define MON_COST_SPANS_ZERO (1u << 3) /* its 99% interval reaches 0 */
#define MON_COST_NOISY (1u << 4) /* std dev >= half its mean */
#define MON_COST_FEW_TRIALS (1u << 5) /* under MON_CALIBRATE_MIN_TRIALS */
/*
 * The switch figure only: the cost of one switch, its records written at
 * one instant counted once (a SWITCH record, or a SWITCH_OUT and the
 * SWITCH_IN with it), as calibrations measure it since trace format 1.3;
 * without it (older traces), the cost of one record, a SWITCH counting as
 * the two it stands for. Compensation charges it accordingly.
 */
#define MON_COST_PER_SWITCH (1u << 6)
#define MON_COST_NOT_A_COST                                         \
	(MON_COST_NEGATIVE | MON_COST_SPANS_ZERO | MON_COST_NOISY | \
	 MON_COST_FEW_TRIALS)

struct trace_cost {
	int64_t mean_ps; /* per event (noise can make it negative) */
	uint64_t stddev_ps;
	uint64_t ci99_ps; /* half-width of the mean's 99% interval */
	uint32_t samples; /* trials */
	uint32_t flags; /* MON_COST_MEASURED, verdict bits */
};

/* The figures of one CPU. */
struct trace_calibration {
	uint32_t cpu;
	uint32_t reserved;
	struct trace_cost cost[MON_COST_NR]; /* by enum mon_cost_kind */
};

/* Where and how a calibration was taken; nr_cpus entries follow it. */
struct trace_calibration_hdr {
	uint32_t version; /* 1 */
	uint32_t nr_cpus; /* struct trace_calibration entries */
	uint64_t taken_real_ns; /* CLOCK_REALTIME when taken */
	uint32_t rounds, trials; /* per trial, and trials per figure */
	char kernel[72]; /* uname -r, NUL-terminated */
	char cpu_model[128]; /* /proc/cpuinfo's model name, NUL-terminated */
};

enum trace_chunk_type {
	TRACE_CHUNK_INFO = 1,
	TRACE_CHUNK_EVENTS = 2,
	TRACE_CHUNK_HORIZON = 3,
	TRACE_CHUNK_THREADS = 4,
	TRACE_CHUNK_STATS = 5,
	TRACE_CHUNK_CALIBRATION = 6,
	TRACE_CHUNK_END = 7,
	TRACE_CHUNK_CLOCK_SYNC = 8, /* since 1.2 */
	TRACE_CHUNK_NODES = 9, /* since 1.2 */
	TRACE_CHUNK_PROCESSES = 10, /* since 1.3 */
};

/*
 * Many nodes (docs/cluster.md). A node's clock (the trace's clock) is
 * related to a reference node's by clock exchanges: each, the shortest of
 * N round trips, gives the offset between the two clocks at one instant
 * with a bound on its error (half the round trip: the reply cannot have
 * been stamped before the request left or after the answer came back).
 * CLOCK_SYNC chunks carry them, in the node's trace as they are taken and
 * in a merged trace per node; chunks add up (a later one adds samples).
 */
#define TRACE_CLOCK_START 1 /* trace_clock_sample.kind: at the step's start */
#define TRACE_CLOCK_END 2 /* ... at its end */
#define TRACE_CLOCK_PERIODIC 3 /* ... in between */

/* trace_clock_sample.flags */
/* The node's clock stepped since the previous sample: not interpolated
 * across (whoever knows it sets it; mkm merge also finds steps itself). */
#define TRACE_CLOCK_STEPPED (1u << 0)
#define TRACE_CLOCK_NTP_KNOWN (1u << 1) /* the ntp_* fields were read */
/* adjtimex(2) said the kernel's clock is synchronised (STA_UNSYNC clear,
 * no TIME_ERROR): NTP or PTP (phc2sys) disciplines it */
#define TRACE_CLOCK_NTP_SYNCED (1u << 2)

/* One clock exchange (72 bytes on disk). */
struct trace_clock_sample {
	uint64_t local_ns; /* this node's clock at the exchange: the middle of
			      the round trip kept */
	int64_t offset_ns; /* the reference's clock minus this node's, at
			      local_ns */
	uint64_t rtt_ns; /* the round trip kept, without the reference's own
			    time between receiving and replying */
	uint64_t error_ns; /* |offset_ns - the true offset| <= this: half of
			      rtt_ns, plus the clocks' reading resolution */
	uint64_t taken_real_ns; /* CLOCK_REALTIME of this node when taken */
	uint32_t kind; /* TRACE_CLOCK_START, _END, _PERIODIC */
	uint32_t rounds; /* round trips made; the shortest was kept */
	uint32_t flags; /* TRACE_CLOCK_* */
	uint32_t ntp_status; /* adjtimex(2) status (STA_* bits) */
	int64_t ntp_freq; /* adjtimex(2) freq: ppm, 16-bit fraction */
	uint32_t ntp_maxerror_us; /* adjtimex(2) maxerror */
	uint32_t ntp_esterror_us; /* adjtimex(2) esterror */
};

/* A CLOCK_SYNC chunk's header (144 bytes); nr_samples samples follow. */
struct trace_clock_sync_hdr {
	uint32_t version; /* 1 */
	uint32_t nr_samples;
	char node[64]; /* whose clock, NUL-terminated */
	char reference[64]; /* the node whose clock it is compared with; the
			       same name: this node is the reference */
	uint32_t clock; /* clockid_t of both clocks (CLOCK_MONOTONIC) */
	uint32_t reserved;
};

/* trace_node.flags */
#define TRACE_NODE_REFERENCE (1u << 0) /* the merged trace's clock */
#define TRACE_NODE_STEPPED (1u << 1) /* its clock stepped during the run */
#define TRACE_NODE_NO_DRIFT (1u << 2) /* one exchange only: offset, no drift */
#define TRACE_NODE_TRUNCATED (1u << 3) /* its trace was cut short */

/* One node of a merged trace (208 bytes on disk). */
struct trace_node {
	char name[64]; /* NUL-terminated */
	char kernel[64]; /* uname -r, NUL-terminated */
	uint32_t index; /* its threads' tids are index << tid_shift | tid */
	uint32_t node_id; /* its index in the job step (SLURM_NODEID) */
	uint32_t cpu_base; /* its CPU c is CPU cpu_base + c of the merged
			      trace */
	uint32_t nr_cpus;
	uint32_t flags; /* TRACE_NODE_* */
	uint32_t nr_samples; /* clock exchanges the alignment used */
	int64_t offset_ns; /* reference clock minus its clock, at its start */
	int64_t drift_ppb; /* how fast that offset grew over the run: ppb,
			      i.e. ns per s */
	uint64_t error_ns; /* the alignment's largest error bound */
	uint64_t start_mono_ns; /* its own clock at its start */
	uint64_t events; /* its records in the merged trace */
	uint64_t ambiguous; /* records a clock step left on either side:
			       each may be off by up to the step */
	uint64_t reserved;
};

/* A NODES chunk's header (24 bytes); nr_nodes entries follow. */
struct trace_nodes_hdr {
	uint32_t version; /* 1 */
	uint32_t nr_nodes;
	uint32_t tid_shift; /* TRACE_NODE_TID_SHIFT */
	uint32_t job_id, step_id;
	uint32_t reserved;
};

/*
 * A merged trace's tid of thread @tid of node @index: tids stay below
 * 2^22 (the kernel's PID_MAX_LIMIT), so the node goes above. Tid 0 (a
 * CPU's idle task) stays 0: the CPU says whose.
 */
#define TRACE_NODE_TID_SHIFT 22u
#define TRACE_NODE_TID_MASK ((1u << TRACE_NODE_TID_SHIFT) - 1)
#define TRACE_MAX_NODES (1u << (32 - TRACE_NODE_TID_SHIFT))

/* One chunk as the reader returns it; valid until the next call. */
struct trace_chunk {
	uint32_t type; /* enum trace_chunk_type (unknown ones are skipped) */
	uint32_t index; /* 0, 1, 2, ... */
	uint64_t offset; /* of its header in the file */
	/* Decoded according to type; pointers into the reader's buffer. */
	const struct mkm_event *events; /* EVENTS */
	size_t nr_events;
	uint64_t horizon_ns; /* HORIZON */
	const struct trace_thread *threads; /* THREADS */
	size_t nr_threads;
	const struct trace_process *processes; /* PROCESSES */
	size_t nr_processes;
	const struct mkm_cpu_stats *stats; /* STATS, indexed by CPU */
	size_t nr_stats;
	const struct trace_calibration_hdr *calibration_hdr; /* CALIBRATION */
	const struct trace_calibration *calibration; /* its entries */
	size_t nr_calibration;
	const struct trace_clock_sync_hdr *clock_sync_hdr; /* CLOCK_SYNC */
	const struct trace_clock_sample *clock_samples; /* its samples */
	size_t nr_clock_samples;
	const struct trace_nodes_hdr *nodes_hdr; /* NODES */
	const struct trace_node *nodes; /* its entries */
	size_t nr_nodes;
};

struct trace_writer;
struct trace_reader;

/*
 * trace_writer_open - create (truncate) a trace file and write its header
 * @wp: out: the writer
 * @path: the file
 * @info: the recording's description (abi/event_size/clock 0: filled in)
 *
 * The file is format TRACE_MAJOR_SWITCH.TRACE_MINOR when @info's flags
 * have MKM_CONFIG_ONE_SWITCH (its records may hold MKM_EV_SWITCH), else
 * TRACE_MAJOR.TRACE_MINOR, which readers of older minors still read.
 *
 * Return: 0, or -EINVAL, -ENOMEM, or an errno of open(2)/write(2).
 */
MON_API int trace_writer_open(struct trace_writer **wp, const char *path,
			      const struct trace_info *info);

/*
 * trace_writer_events - append records as monitor_read() returned them
 * @w: the writer
 * @ev: @n records
 * @n: may be 0
 *
 * Records are buffered and written as one checksummed EVENTS chunk per
 * 64 KiB: a crash loses at most the records not yet written.
 *
 * Return: 0, or -EINVAL, or an errno of write(2) (the writer is then
 * failed: every later call returns the same error).
 */
MON_API int trace_writer_events(struct trace_writer *w,
				const struct mkm_event *ev, size_t n);

/*
 * trace_writer_horizon - record that every event with time_ns < @t has
 * been written (see tl_advance()); stored after the buffered records.
 *
 * Return: 0, or as trace_writer_events().
 */
MON_API int trace_writer_horizon(struct trace_writer *w, uint64_t t);

/*
 * trace_writer_threads - write a THREADS chunk (names by tid)
 *
 * Return: 0, or -EINVAL (more than 1 << 20 entries), as
 * trace_writer_events().
 */
MON_API int trace_writer_threads(struct trace_writer *w,
				 const struct trace_thread *t, size_t n);

/*
 * trace_writer_processes - write a PROCESSES chunk (the process of each
 * thread attached, by tid; a later entry for a tid supersedes)
 *
 * Return: 0, or -EINVAL (more than 1 << 22 entries), as
 * trace_writer_events().
 */
MON_API int trace_writer_processes(struct trace_writer *w,
				   const struct trace_process *p, size_t n);

/*
 * trace_writer_stats - write a STATS chunk (monitor_statistics(): lost
 * counts per CPU)
 *
 * Return: 0, or -EINVAL (more than 65536 CPUs), as trace_writer_events().
 */
MON_API int trace_writer_stats(struct trace_writer *w,
			       const struct mkm_cpu_stats *s, size_t nr_cpus);

/*
 * trace_writer_calibration - write a CALIBRATION chunk
 * @w: the writer
 * @hdr: where it was taken; its nr_cpus is set from @n
 * @c: @n entries, one per CPU
 *
 * Return: 0, or -EINVAL (more than 65536 entries), as
 * trace_writer_events().
 */
MON_API int trace_writer_calibration(struct trace_writer *w,
				     const struct trace_calibration_hdr *hdr,
				     const struct trace_calibration *c,
				     size_t n);

/*
 * trace_writer_clock_sync - write a CLOCK_SYNC chunk: clock exchanges of
 * node @hdr->node with @hdr->reference (docs/cluster.md)
 * @w: the writer
 * @hdr: whose; its version and nr_samples are set here
 * @s: @n samples (1 to 65536)
 *
 * Return: 0, or -EINVAL (no node name, @n out of range), as
 * trace_writer_events().
 */
MON_API int trace_writer_clock_sync(struct trace_writer *w,
				    const struct trace_clock_sync_hdr *hdr,
				    const struct trace_clock_sample *s,
				    size_t n);

/*
 * trace_writer_nodes - write a merged trace's NODES chunk
 * @w: the writer
 * @hdr: the job; its version, nr_nodes and tid_shift are set here
 * @nodes: @n entries (1 to TRACE_MAX_NODES)
 *
 * Return: 0, or -EINVAL, as trace_writer_events().
 */
MON_API int trace_writer_nodes(struct trace_writer *w,
			       const struct trace_nodes_hdr *hdr,
			       const struct trace_node *nodes, size_t n);

/*
 * trace_writer_flush - write buffered records now, and fdatasync(2) when
 * @sync is non-zero
 *
 * Return: 0, or as trace_writer_events().
 */
MON_API int trace_writer_flush(struct trace_writer *w, int sync);

/*
 * trace_writer_close - flush, write the END chunk, close and free
 * @w: the writer (freed even on error); NULL returns 0
 *
 * Return: 0, or the first error the writer met.
 */
MON_API int trace_writer_close(struct trace_writer *w);

/*
 * trace_reader_open - open a trace file and read its header and INFO chunk
 * @rp: out: the reader
 * @path: the file
 *
 * Return: 0, or -ENOMEM, an errno of open(2), -EISDIR (@path is a
 * directory), or as trace_reader_next()
 * for the header (-EINVAL not a trace file, -EPROTO unsupported major,
 * -EBADMSG corrupt, -ENODATA truncated). On a header error *@rp is still
 * set when the file could be opened, so trace_reader_error() can say why;
 * close it with trace_reader_close().
 */
MON_API int trace_reader_open(struct trace_reader **rp, const char *path);

/*
 * trace_reader_open_mem - the same on a trace in memory (not copied: keep
 * @buf alive until trace_reader_close())
 */
MON_API int trace_reader_open_mem(struct trace_reader **rp, const void *buf,
				  size_t len);

/* trace_reader_info - the recording's description. NULL if @r is NULL. */
MON_API const struct trace_info *
trace_reader_info(const struct trace_reader *r);

/*
 * trace_reader_next - read the next chunk
 * @r: the reader
 * @chunk: out
 *
 * Return: 1 and a chunk; 0 after the END chunk; or -EBADMSG (checksum
 * mismatch, impossible length, chunk out of sequence, malformed payload),
 * -ENODATA (the file ends inside a chunk or before the END chunk: a
 * recording that was cut short), -EIO, -ENOMEM. After an error every
 * later call returns it again; trace_reader_error() names the offset.
 *
 * A chunk after INFO whose bytes are damaged (checksum mismatch, an
 * impossible length, or one past the end of the file) is skipped when a
 * good chunk follows it: the next whole chunk whose checksum matches and
 * whose index can follow, first where the damaged one's length points,
 * then at each byte after it. Reading goes on from there (END's record
 * count is not checked then: the skipped chunks' records are unknown),
 * and trace_reader_error() says what was skipped. Without a good chunk
 * after it, the damage stops reading as above.
 */
MON_API int trace_reader_next(struct trace_reader *r,
			      struct trace_chunk *chunk);

/*
 * trace_reader_error - one line saying what went wrong and where
 * @r: the reader
 * @offset: out (may be NULL): byte offset of the bad chunk or header
 *
 * Without an error, what damage was skipped: "offset 65712: chunk 2:
 * checksum mismatch (...): corrupt data; skipped 65568 bytes (1 chunk) to
 * the next good chunk, at offset 131280" (and, if there were several,
 * how many places and bytes in all); @offset is the first's.
 *
 * Return: the message ("" when there was no error and nothing was
 * skipped); valid until trace_reader_close() or the next call.
 */
MON_API const char *trace_reader_error(const struct trace_reader *r,
				       uint64_t *offset);

/* trace_reader_close - free the reader; NULL is a no-op. */
MON_API void trace_reader_close(struct trace_reader *r);

#ifdef __cplusplus
}
#endif

/* The event pipeline: sources, stages, sinks (mon_*). */
#include <mon_pipeline.h>
/* What the monitor costs here: calibration (mon_calibrate*). */
#include <mon_calibrate.h>
/* What the rest of the machine does to a thread (noise_*, idle_*). */
#include <mon_analysis.h>
/* Jobs on many nodes: clock exchanges, alignment, merge (mon_clock_*...). */
#include <mon_cluster.h>

#endif /* LIBMONITOR_H */
