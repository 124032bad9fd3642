/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmonitor.h - libmonitor, the user library of the mkm kernel monitor:
 * the MKM calls over /dev/mkm, and the library's conventions. It includes
 * the header of each other module (below); the headers are the library's
 * documentation.
 *
 * Conventions
 * ===========
 * Every function that can fail returns 0 (or a documented non-negative
 * value) on success and a negative errno on failure; errno itself is left
 * alone. monitor_strerror() turns any of them into a sentence. A NULL handle
 * or output pointer gives -EINVAL unless said otherwise. Handles are opaque
 * and not thread-safe: use one from one thread at a time.
 *
 * Modules, prefixes and headers
 * =============================
 *  monitor_*, thread_monitor, thread_unmonitor   the MKM calls (/dev/mkm):
 *            this header
 *  mon_*     records: event and state names, switch records, lost
 *            events, classes, formatting for people: <mon_events.h>
 *  tl_*      the timeline builder: merges per-CPU event streams in time
 *            order and rebuilds each thread's microstate intervals:
 *            <mon_timeline.h>
 *  acct_*    accounting over a timeline: msa() totals, burst statistics,
 *            the CPU x thread matrix, per-CPU summaries: <mon_acct.h>
 *  trace_*   the .mkm trace file, writer and reader (docs/trace-format.md):
 *            <mon_trace.h>
 *  mon_*     the event pipeline: a source (a trace file, a live monitor,
 *            several merged) through stages into sinks (a timeline, a
 *            trace file, one's own): <mon_pipeline.h>
 *  mon_calibrate*, noise_*, idle_*, mon_clock_*   calibration, analyses,
 *            jobs on many nodes: <mon_calibrate.h>, <mon_analysis.h>,
 *            <mon_cluster.h>
 *  mon_session_*   a recording: the monitor, its threads, the calibration,
 *            the trace writer, a node's clock exchanges, as every front
 *            end records: <mon_session.h>
 * All are included here; each may also be included alone.
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
	/*
	 * Triggers (ABI 2.7; 0: none): a MKM_EV_TRIGGER after a tracked
	 * thread's switch-in that waited longer than trigger_runq_ns on a
	 * run queue, or after an interrupt or softirq of one that ran
	 * longer than trigger_irq_ns (which needs MKM_CLASS_IRQ); each wakes
	 * poll(). With MKM_CONFIG_FLIGHT in flags, the rings overwrite their
	 * oldest records and poll() wakes on triggers only (wakeup_bytes 0).
	 */
	uint64_t trigger_runq_ns;
	uint64_t trigger_irq_ns;
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
 * kernel has no tracepoints for), -EACCES (the IRQ or SYSCALL class
 * without CAP_PERFMON, unless the module's paranoid is 0), -ENOMEM (the rings
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
 * @mon: the monitor; or NULL: the monitor that tracks the calling thread,
 *       whoever holds it (how a program run under `mkm record` or `srun
 *       --mkm` marks its own trace: a descriptor of /dev/mkm is opened
 *       for it at the first such call and kept)
 * @value: carried in the event's arg0 (low half) and arg1 (high half)
 *
 * Return: 0, or -EAGAIN (the monitor is suspended); with NULL, -ENOENT
 * (no monitor tracks the thread), -EOPNOTSUPP (a module before ABI
 * 2.8), or open(2)'s error on /dev/mkm. A mark the monitor's access rule
 * withholds (the thread's credentials changed) returns 0 and is counted
 * as lost.
 */
MON_API int monitor_mark(struct monitor *mon, uint64_t value);

/*
 * monitor_trigger - record a marker that is a trigger too: MKM_EV_MARK,
 * then MKM_EV_TRIGGER (MKM_TRIGGER_MARK, the value in arg0 and arg1),
 * which wakes poll() (a flight recorder's reader writes a snapshot)
 * @mon: the monitor, or NULL: the one that tracks the calling thread, as
 *       for monitor_mark() (a program asks `mkm record --flight` for a
 *       snapshot with monitor_trigger(NULL, value))
 * @value: the mark's
 *
 * Return: as monitor_mark(); -EOPNOTSUPP from a module before ABI 2.7.
 */
MON_API int monitor_trigger(struct monitor *mon, uint64_t value);

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

#ifdef __cplusplus
}
#endif

/*
 * The library's other headers, one module each. Each includes this one
 * first, outside its guard, so that any of them may be included alone.
 */
/* Records: names, switch records, lost events, formatting (mon_*). */
#include <mon_events.h>
/* The timeline builder (tl_*). */
#include <mon_timeline.h>
/* Accounting over a timeline (acct_*). */
#include <mon_acct.h>
/* The .mkm trace file (trace_*). */
#include <mon_trace.h>
/* The event pipeline: sources, stages, sinks (mon_*). */
#include <mon_pipeline.h>
/* What the monitor costs here: calibration (mon_calibrate*). */
#include <mon_calibrate.h>
/* What the rest of the machine does to a thread (noise_*, idle_*). */
#include <mon_analysis.h>
/* Jobs on many nodes: clock exchanges, alignment, merge (mon_clock_*...). */
#include <mon_cluster.h>
/* A recording, as every front end makes one (mon_session_*). */
#include <mon_session.h>

#endif /* LIBMONITOR_H */
