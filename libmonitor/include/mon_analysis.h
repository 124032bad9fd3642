/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mon_analysis.h - what the rest of the machine does to a thread, computed
 * from a rebuilt timeline (included by libmonitor.h):
 *
 *  noise_*   noise attribution, as the Barcelona Supercomputing
 *            Center's study of interrupts and daemons (AIX trace and
 *            Paraver) and Tsafrir et al.'s "System Noise, OS Clock Ticks,
 *            and Fine-Grained Parallel Applications" (ICS 2005) do it: for
 *            a thread and a time window, the time taken from it by each
 *            other thread and by each interrupt handler, with counts and
 *            the period of periodic intruders
 *  idle_*    idle CPUs, as Vaddagiri's "(How to) Let idle CPUs sleep"
 *            (LKML, 2005) tabled them: per CPU, the idle intervals' count,
 *            mean, standard deviation, minimum and maximum, a histogram of
 *            their lengths, and what ended them
 *  mon_critical_path  what a thread waited for (Trace Compass's critical
 *            path): back from an instant, its own running and queueing,
 *            and through each sleep the waker's, recursively
 *  mon_barriers  BSC's barrier study from the trace alone: threads
 *            that loop on a compute phase and a barrier (a job's ranks on
 *            the nodes of a merged trace) cut into rounds; for each
 *            round, the last to arrive and what took time from its phase
 *
 * All need a system-wide recording (MKM_CONFIG_SYSTEM, TL_IDLE) to see
 * every intruder and idle time; on a selective one they see the monitored
 * threads only. The IRQ class gives the interrupts.
 *
 * Time taken from a thread. While the thread waits on a run queue (RUNQ)
 * on CPU c, whatever runs on c took that time from it: another thread, or
 * the interrupt handler running there (the innermost, when they nest);
 * while it is INTERRUPTED, the handler. Time on c that no record explains
 * (a thread not monitored, a gap of lost events) is counted as unknown.
 * The idle thread of c shows up as an intruder when the thread waited for
 * an idle CPU to wake: its wakeup latency.
 */
/* First, outside the guard, so that any of the library's headers may be
 * included first (libmonitor.h includes them all). */
#include "libmonitor.h"

#ifndef MON_ANALYSIS_H
#define MON_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What an intruder or a cause is: a thread, or an interrupt handler. */
enum noise_kind {
	NOISE_THREAD = 0,
	NOISE_IRQ_HARD, /* = TL_IRQ_HARD + 1, and so on */
	NOISE_IRQ_SOFT,
	NOISE_IRQ_VECTOR,
};

/* noise_kind_name - "thread", "irq", "softirq", "vector"; "?" if unknown. */
MON_API const char *noise_kind_name(unsigned int kind);

/* How regular a source's activations are, over the whole timeline. */
struct noise_period {
	uint64_t activations; /* a thread's wakeups, a handler's entries */
	uint64_t busy_ns; /* its time on CPUs (a handler's, nested ones in) */
	uint64_t period_ns; /* median gap between activations (per CPU for a
			       handler); 0 with fewer than 3 activations */
	double regular; /* share of runs of 4 consecutive gaps that span 4
			   periods within 10%: a late wakeup does not count
			   against a beat that holds */
};

/* A source's activation is periodic when this share of gaps is regular. */
#define NOISE_PERIODIC 0.5

struct noise_source {
	uint8_t kind; /* enum noise_kind */
	uint32_t number; /* irq, softirq or system vector; 0 for a thread */
	int64_t thread; /* NOISE_THREAD: the intruder's index; else -1 */
	char name[32]; /* "kworker/0:1", "local_timer", "softirq TIMER" */
	uint64_t taken_ns; /* time taken from the thread in the window */
	uint64_t count; /* its bursts that took some of it */
	uint64_t max_ns; /* the most one of those bursts took */
	struct noise_period period;
};

struct noise_result {
	size_t thread; /* the thread analysed */
	uint64_t t0, t1; /* the window, clipped to the thread's life */
	uint64_t run_ns; /* the thread on a CPU, running */
	uint64_t taken_ns; /* the sources' taken_ns added up */
	uint64_t unknown_ns; /* waiting or interrupted, cause not recorded */
	size_t nr_sources;
	struct noise_source *sources; /* by taken_ns, largest first */
};

/* An index of who occupied each CPU when, built once per timeline. */
struct noise;

/*
 * noise_create - index @tl's CPUs for noise_thread() and idle_analyse()
 * @np: out: the index; it refers to @tl, which must outlive it and not
 *      grow meanwhile
 * @tl: the timeline (flushed)
 *
 * Return: 0, or -EINVAL, -ENOMEM.
 */
MON_API int noise_create(struct noise **np, const struct tl *tl);

/* noise_destroy - free the index; NULL is a no-op. */
MON_API void noise_destroy(struct noise *n);

/*
 * noise_thread - who took time from thread @th within [@t0, @t1)
 * @n: the index
 * @th: the thread
 * @t0, @t1: the window (0, UINT64_MAX: the whole timeline)
 * @out: filled; free its sources with noise_result_free()
 *
 * Return: 0, or -EINVAL (NULL, @t1 < @t0), -ENOENT (@th out of range),
 * -ENOMEM.
 */
MON_API int noise_thread(struct noise *n, size_t th, uint64_t t0, uint64_t t1,
			 struct noise_result *out);

/* noise_result_free - free what noise_thread() allocated in @r. */
MON_API void noise_result_free(struct noise_result *r);

/*
 * noise_source_period - how regular source (@kind, @number, @thread) is
 * over the whole timeline (a noise_source's period, for any source)
 *
 * Return: 0, or -EINVAL, -ENOENT (no such thread).
 */
MON_API int noise_source_period(struct noise *n, unsigned int kind,
				uint32_t number, int64_t thread,
				struct noise_period *out);

/*
 * osnoise's table for real threads. The kernel's osnoise tracer (Daniel
 * Bristot de Oliveira; Documentation/trace/osnoise-tracer.rst, read by
 * rtla osnoise top and hist) runs a spinner on each CPU that reads the
 * time in a loop: a gap between two reads at or above a threshold is a
 * noise (a sample); per period it reports the run time, the noise summed,
 * the CPU left to the spinner, the largest sample, and how many
 * interferences of each kind (HW: a sample with none, NMI, IRQ, softirq,
 * thread) began while it sampled, each with its net duration (the time
 * of what nested in it taken out).
 *
 * The same for a recorded thread. Its *run time* is the time it wanted
 * its CPU after having had it: RUN, INTERRUPTED, and the RUNQ that
 * follows a switch-out while runnable (a preemption or a yield). The
 * RUNQ after a wakeup or a creation is wakeup latency (mkm latency), not
 * noise; a sleep, an exit, UNKNOWN (lost events) end a stretch of run
 * time. A *noise* is a maximal stretch of run time in which the thread
 * did not run: INTERRUPTED and preempted RUNQ intervals back to back, on
 * one CPU (a per-CPU row cuts one that migrated; the thread's all-CPU row
 * keeps it whole). An interference is a handler run (a device IRQ or an
 * x86 vector: IRQ; a softirq) that began in a noise on its CPU, or a
 * dispatch of another thread there; a preemption by a thread the trace
 * does not follow counts as one thread. Net durations come from the index
 * (the innermost handler owns the time); time no record explains is
 * unknown. HW and NMI stay 0: no tracepoint mkm uses sees an SMI, an NMI
 * or the host of a VM stealing time, which lands inside RUN.
 *
 * Periods, where asked for, are [origin + k * period, origin + (k + 1) *
 * period): a period's runtime and noise are the parts that fall in it (a
 * noise across a boundary counts in each for its part); without a period
 * the whole timeline is one.
 */
enum osnoise_kind {
	OSNOISE_HW = 0, /* never seen: see above */
	OSNOISE_NMI, /* never seen */
	OSNOISE_IRQ, /* device IRQs and x86 system vectors */
	OSNOISE_SOFTIRQ,
	OSNOISE_THREAD,
	OSNOISE_NR_KINDS,
};

/* noise_osnoise_kind_name - "HW", "NMI", "IRQ", "softirq", "thread"; "?". */
MON_API const char *noise_osnoise_kind_name(unsigned int kind);

/* rtla osnoise hist's defaults: 256 buckets of 1 us. */
#define OSNOISE_HIST_ENTRIES 256
#define OSNOISE_HIST_BUCKET_NS 1000

struct osnoise_opts {
	uint64_t origin_ns; /* periods count from here (the recording's
			       start: mon_time_origin()) */
	uint64_t period_ns; /* 0: one period, the whole timeline */
	uint64_t threshold_ns; /* a noise shorter than this is no sample
				  (osnoise's tracing_thresh); 0: all are */
	uint64_t bucket_ns; /* histogram bucket width; 0: 1 us */
	unsigned int entries; /* histogram buckets; 0: 256 */
	bool per_cpu; /* one row per CPU for all the threads together (a
			 system-wide table, as osnoise gives it), not per
			 thread */
};

struct osnoise_row {
	int64_t thread; /* the thread's index; -1 in a per_cpu row */
	int32_t cpu; /* -1: the thread's row of all its CPUs */
	uint64_t periods; /* periods with run time in them (rtla's Period) */
	uint64_t runtime_ns;
	uint64_t noise_ns; /* the samples added up */
	uint64_t max_period_noise_ns; /* the most noise in one period */
	uint64_t max_single_ns; /* the longest sample */
	uint64_t min_single_ns; /* the shortest sample (0: none) */
	uint64_t samples; /* noises at or above the threshold */
	uint64_t count[OSNOISE_NR_KINDS]; /* interferences begun, below the
					     threshold too */
	uint64_t net_ns[OSNOISE_NR_KINDS]; /* their net time, likewise */
	uint64_t unknown_ns; /* noise time no record explains */
	uint64_t *hist; /* entries + 1 sample counts: bucket k holds
			   [k, k + 1) bucket widths, the last the rest */
	size_t nr_sources;
	struct noise_source *sources; /* by name: net time (taken_ns),
					 interferences (count) and the
					 longest (max_ns) of each, the
					 largest first; no period */
};

struct osnoise_report {
	uint64_t bucket_ns;
	unsigned int entries;
	size_t nr_rows;
	/* per thread (in the order given): its CPUs' rows by CPU, then its
	 * all-CPU row; per_cpu: the CPUs' rows by CPU */
	struct osnoise_row *rows;
};

/*
 * noise_osnoise - osnoise's columns for threads @th over their run time
 * @n: an index of the timeline (noise_create())
 * @th: the threads (timeline indexes)
 * @nr: how many (0: no row)
 * @o: options (NULL: the defaults, no period, every noise a sample)
 * @out: filled; free with noise_osnoise_free()
 *
 * Return: 0, or -EINVAL (NULL), -ENOENT (a thread out of range), -ENOMEM.
 */
MON_API int noise_osnoise(struct noise *n, const size_t *th, size_t nr,
			  const struct osnoise_opts *o,
			  struct osnoise_report *out);

/* noise_osnoise_free - free what noise_osnoise() allocated; NULL is a
 * no-op. */
MON_API void noise_osnoise_free(struct osnoise_report *r);

/*
 * Why a wakeup was late. A thread woken (WAKEUP) or created (WAKEUP_NEW)
 * waits on a run queue until it is switched in; timerlat's auto-analysis
 * splits a timer wakeup's latency into what delayed it, and so does this,
 * for every wakeup of a recorded thread. The parts:
 *  - the waker's wakeup call to the enqueue: a WAKING record (the call,
 *    on the waker's CPU) to the WAKEUP (the wakee queued, on its CPU,
 *    later when the wakeup went through the target CPU's wake list and an
 *    IPI); needs the WAKING records (mon_wakings);
 *  - from the enqueue to the switch-in, on each CPU it was queued on
 *    (a migration moves it): the time of each interrupt handler there
 *    (net, as the noise index has it), of each other thread (named, with
 *    how it came to hold the CPU and how it let it go), of the CPU's idle
 *    task (a system-wide trace: the CPU waking from idle), and time no
 *    record explains (the switch itself, threads not recorded).
 * How a thread came to hold the CPU: it held it at the enqueue, it was
 * queued before and switched in first, or it was queued later and still
 * went first (it overtook: a higher priority, an earlier deadline; the
 * trace has no priorities, so it cannot say which). How it let it go, as
 * the trace says: preempted right after the local timer's handler (ran
 * to the tick), after a reschedule IPI, preempted otherwise (or yielded:
 * the timeline does not tell them apart), went to sleep or blocked, or
 * exited. Needs MKM_CLASS_WAKEUP for the waker and the IRQ class for
 * handlers; a system-wide recording to see every thread.
 */
struct mon_wakings;

/* mon_wakings_create - an empty collection of WAKING records. Return: 0,
 * -EINVAL, -ENOMEM. */
MON_API int mon_wakings_create(struct mon_wakings **wp);

/* mon_wakings_add - keep the WAKING records among @ev (@n of them, any
 * order). Return: 0, -EINVAL (@ev NULL with @n > 0), -ENOMEM. */
MON_API int mon_wakings_add(struct mon_wakings *w, const struct mkm_event *ev,
			    size_t n);

/*
 * mon_sink_wakings - a sink that hands each EVENTS message to
 * mon_wakings_add(), beside the timeline's in one pass over a trace;
 * @w is not owned
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
struct mon_sink;
MON_API int mon_sink_wakings(struct mon_sink **skp, struct mon_wakings *w);

/* mon_wakings_destroy - free; NULL is a no-op. */
MON_API void mon_wakings_destroy(struct mon_wakings *w);

enum mon_late_came {
	MON_LATE_HELD = 0, /* on the CPU when the wakee was queued */
	MON_LATE_QUEUED, /* runnable before, switched in during the wait */
	MON_LATE_OVERTOOK, /* runnable after the wakee, switched in first */
};

enum mon_late_left {
	MON_LATE_LEFT_UNKNOWN = 0, /* not recorded (the trace's end, a gap) */
	MON_LATE_TICK, /* preempted after the local timer's handler */
	MON_LATE_RESCHED, /* preempted after a reschedule IPI */
	MON_LATE_PREEMPTED, /* switched out runnable, otherwise */
	MON_LATE_SLEPT, /* slept or blocked */
	MON_LATE_EXITED,
};

/* mon_late_came_name, mon_late_left_name - a few words ("held the CPU",
 * "ran to the tick"); "?" out of range. */
MON_API const char *mon_late_came_name(unsigned int came);
MON_API const char *mon_late_left_name(unsigned int left);

/* What took a late wakeup's time on its CPU. */
struct mon_late_part {
	uint8_t kind; /* enum noise_kind */
	uint8_t came, left; /* a thread's: of its first dispatch there */
	uint8_t idle; /* the CPU's idle task (TL_IDLE) */
	uint32_t number; /* a handler's irq, softirq or vector */
	int64_t thread; /* a thread's index, else -1 */
	char name[32];
	uint64_t ns; /* its net time on the CPU during the wait */
	uint64_t count; /* a handler's runs, a thread's dispatches */
};

struct mon_late {
	size_t thread; /* the thread woken */
	uint8_t type; /* MKM_EV_WAKEUP, MKM_EV_WAKEUP_NEW; 0: no record */
	uint8_t flags; /* the WAKEUP's MKM_EVF_IN_IRQ, MKM_EVF_LOCK_WAIT */
	int64_t waker; /* its index, or -1 (tid 0: an interrupt on an idle
			  CPU; a thread not recorded) */
	uint32_t waker_tid; /* as the records say, 0: none */
	int32_t waker_cpu; /* the WAKING's CPU, -1: no WAKING */
	uint16_t cpu; /* queued on at the wakeup */
	uint16_t run_cpu; /* switched in on */
	uint64_t waking_ns; /* the WAKING; 0: not recorded */
	uint64_t wakeup_ns; /* queued: its RUNQ began */
	uint64_t switch_in_ns;
	uint64_t latency_ns; /* switch_in_ns less waking_ns, else wakeup_ns */
	uint32_t migrations; /* moved to another CPU while queued */
	uint64_t irq_ns, softirq_ns, thread_ns, idle_ns, unknown_ns;
	uint64_t irqs, softirqs; /* handler runs begun during the wait */
	size_t nr_parts;
	struct mon_late_part *parts; /* the largest first */
};

struct mon_lates {
	size_t nr_wakeups; /* wakeups of the threads, all of them */
	size_t nr; /* the longest ones kept */
	struct mon_late *late; /* the longest first */
};

/*
 * mon_late_wakeups - the @top longest wakeups of threads @th, each
 * broken down as above
 * @n: an index of the timeline (noise_create())
 * @th: the threads (timeline indexes); @nr: how many
 * @w: WAKING records of the same stream, or NULL (no waking part)
 * @top: how many to keep (0: all)
 * @out: filled; free with mon_lates_free()
 *
 * A wakeup is a RUNQ stretch that follows a sleep, or a thread's
 * creation, and ends in a switch-in; one cut by the trace's end or a gap
 * of lost events is left out.
 *
 * Return: 0, or -EINVAL (NULL), -ENOENT (a thread out of range), -ENOMEM.
 */
MON_API int mon_late_wakeups(struct noise *n, const size_t *th, size_t nr,
			     struct mon_wakings *w, size_t top,
			     struct mon_lates *out);

/* mon_lates_free - free what mon_late_wakeups() allocated; NULL is a
 * no-op. */
MON_API void mon_lates_free(struct mon_lates *l);

/*
 * mon_late_wakeup_at - the wakeup of thread @th at time @t, broken down as
 * mon_late_wakeups() breaks down each (what a viewer shows for the wait
 * or the switch-in under its cursor)
 * @n: an index of the timeline (noise_create())
 * @th: the thread (a timeline index)
 * @t: an instant of the wakeup's wait on a run queue, or its switch-in
 * @w: WAKING records of the same stream, or NULL (no waking part)
 * @out: filled; free with mon_late_free()
 *
 * Return: 0, or -EINVAL (NULL), -ENOENT (@th out of range), -ESRCH (no
 * wakeup there: @t is not in such a wait, or the wait followed a
 * preemption, or the trace's end or a gap of lost events cut it),
 * -ENOMEM.
 */
MON_API int mon_late_wakeup_at(struct noise *n, size_t th, uint64_t t,
			       struct mon_wakings *w, struct mon_late *out);

/* mon_late_free - free what mon_late_wakeup_at() allocated; NULL is a
 * no-op. */
MON_API void mon_late_free(struct mon_late *l);

/* Idle interval lengths: bucket 0 below 1 us, bucket k in [2^(k-1),
 * 2^k) us, the last one everything longer. */
#define IDLE_HIST_BUCKETS 24

/* What ended a CPU's idle intervals. */
struct idle_cause {
	uint8_t kind; /* enum noise_kind: a handler, or the thread switched
			 in (woken by a CPU that needed no interrupt here) */
	uint32_t number;
	int64_t thread; /* NOISE_THREAD: its index; else -1 */
	char name[32];
	uint64_t count; /* idle intervals it ended */
	uint64_t idle_ns; /* their total length */
	uint64_t period_ns; /* median gap between its ends of idle (0: < 3) */
	double regular; /* as noise_period.regular, for those gaps */
};

struct idle_cpu {
	unsigned int cpu;
	uint64_t count; /* idle intervals, whole ones only */
	double mean_ns, stddev_ns; /* population standard deviation */
	uint64_t min_ns, max_ns;
	uint64_t idle_ns; /* all its idle time, partial intervals too */
	uint64_t span_ns; /* its idle thread's observed life */
	uint64_t hist[IDLE_HIST_BUCKETS];
	size_t nr_causes;
	struct idle_cause *causes; /* by count, largest first */
};

struct idle_report {
	unsigned int nr_cpus; /* entries at cpus: CPUs that went idle */
	struct idle_cpu *cpus;
};

/*
 * idle_analyse - the table of "Let idle CPUs sleep" (Vaddagiri, LKML 2005):
 * each CPU's idle intervals (the RUN intervals of its idle thread,
 * TL_IDLE) and what ended them: the interrupt that landed on the idle
 * CPU, or the thread switched in without one. An interval is whole when
 * its start and its end were both seen (not cut by the stream's edges or
 * a gap of lost events).
 * The stretch between a handler's exit and the softirq it raised, or the
 * switch to the thread it woke, belongs to that wakeup: idle time, not an
 * interval.
 * @n: an index of the timeline (noise_create())
 * @out: filled; free with idle_report_free()
 *
 * Return: 0, or -EINVAL, -ENOMEM.
 */
MON_API int idle_analyse(struct noise *n, struct idle_report *out);

/* idle_report_free - free what idle_analyse() allocated in @r. */
MON_API void idle_report_free(struct idle_report *r);

/* idle_hist_bound_ns - the upper bound of histogram bucket @k (ns);
 * UINT64_MAX for the last. */
MON_API uint64_t idle_hist_bound_ns(unsigned int k);

/*
 * Critical path. Walking back from thread @th at an instant: while the
 * thread ran, was interrupted or waited for a CPU, that time is on the
 * path, on its own row; where it slept, the path goes to the thread that
 * woke it (tl_wake_at()) at the instant of the wake, and on back through
 * the waker the same way. A sleep that no monitored thread ended (a
 * timer, a device, an interrupt: MKM_EVF_IN_IRQ, tid 0, a task not
 * monitored, a wake not recorded) stays on the path as the sleep itself:
 * nothing the trace names was worked on meanwhile. A thread's creation
 * leads to its parent (WAKEUP_NEW). Needs MKM_CLASS_WAKEUP.
 */
struct mon_path_seg {
	uint64_t start_ns, end_ns;
	size_t thread;
	uint8_t state; /* enum tl_state of @thread over the segment */
};

struct mon_path {
	struct mon_path_seg *seg; /* in time order, the earliest first */
	size_t nr;
	bool cut; /* MON_PATH_MAX segments reached: @seg is the latest part */
};

/* The longest path kept: a wait chain walked back over a long trace. */
#define MON_PATH_MAX 100000

/*
 * mon_critical_path - the critical path of thread @th in [@from_ns, @to_ns]
 * @tl: the timeline (not TL_STREAMING: its wakes are needed)
 * @th: the thread
 * @from_ns: the walk stops there (segments start no earlier)
 * @to_ns: the instant walked back from
 * @out: out: the path, in time order; free with mon_path_free()
 *
 * Return: 0, or -EINVAL (NULL, @from_ns > @to_ns), -ENOENT (@th out of
 * range), -ENOMEM.
 */
MON_API int mon_critical_path(const struct tl *tl, size_t th, uint64_t from_ns,
			      uint64_t to_ns, struct mon_path *out);

/* mon_path_free - free a path's segments; a zeroed or NULL one is a no-op. */
MON_API void mon_path_free(struct mon_path *p);

/*
 * Barriers. Nothing in a trace says where a program's barriers are; the
 * scheduler shows them. A thread that loops on a compute phase and a
 * barrier is busy (running, interrupted or queued) for each phase and
 * then waits, asleep or with short busy bits where its barrier's
 * messages come and go. Its busy stretches' lengths fall in two groups:
 * where two consecutive lengths (sorted) differ by the largest ratio, if
 * that is at least MON_BARRIER_SPLIT, the longer ones are compute phases
 * (all of them are otherwise). The phases of a round begin together,
 * when the barrier before lets the threads go: a *release* is the
 * earliest of a group of phase starts, one per thread, within half the
 * median phase of it. A round runs from one release to the next; in it a
 * thread computes from its first phase's start (or the release) and
 * arrives at its last one's end, or at the next release if it was still
 * busy then: the last to arrive may find its barrier complete and never
 * sleep. A round's wait is its last arrival less its first; it is long
 * when above the median wait by a tenth of the rounds' median phase (as
 * the one-node example, examples/barrier). For each long round,
 * noise_thread() over the last one's phase gives its cause.
 *
 * On a merged trace (mkm merge) the threads are on different nodes and
 * the times on the reference's clock: an arrival is good to the sum of
 * the two nodes' bounds.
 *
 * The noise law of Tsafrir et al. (ICS 2005): a thread is *hit* in a round
 * when its phase ran longer than its own median phase by the same margin;
 * if each is hit with probability p, independently, a barrier of n
 * is delayed with probability 1 - (1 - p)^n. mon_barriers_law() puts that
 * against the rounds.
 */
#define MON_BARRIER_SPLIT 8

struct mon_barrier_round {
	uint64_t release_ns; /* its phases began */
	uint64_t next_ns; /* the next release: the barrier let them go */
	uint64_t first_ns, last_ns; /* the first and last arrivals */
	size_t last; /* the last to arrive: an index into the threads */
	uint64_t phase_start_ns; /* its phase: [phase_start_ns, last_ns) */
	bool long_wait; /* last_ns - first_ns above the threshold */
	/* A long round's: noise_thread() over the last one's phase. */
	uint64_t taken_ns, unknown_ns;
	struct noise_source cause; /* the largest source; count 0: none */
};

struct mon_barriers {
	size_t nr_threads; /* as given */
	/* Per thread: its median phase, and the rounds it was hit in. */
	uint64_t *median_phase_ns;
	size_t *hits;
	bool *hit; /* nr_rounds x nr_threads: round k's thread i at k * n + i */
	uint64_t min_phase_ns; /* busy stretches this long are phases */
	uint64_t fastest_ns; /* the shortest phase of a round */
	uint64_t margin_ns; /* a tenth of the rounds' median phase */
	uint64_t median_ns; /* the rounds' median wait */
	uint64_t threshold_ns; /* a wait above it is long */
	size_t nr_long;
	size_t nr_rounds; /* rounds with a phase of every thread */
	struct mon_barrier_round *rounds; /* in time order */
};

/*
 * mon_barriers - the rounds of threads @th that meet at barriers
 * @n: an index of the timeline (noise_create())
 * @th: the threads (timeline indexes), one per rank
 * @nr: how many (at least 2)
 * @out: filled (no round: nr_rounds 0); free with mon_barriers_free()
 *
 * Return: 0, or -EINVAL (NULL, @nr < 2), -ENOENT (a thread out of
 * range), -ENOMEM.
 */
MON_API int mon_barriers(struct noise *n, const size_t *th, size_t nr,
			 struct mon_barriers *out);

/* mon_barriers_free - free what mon_barriers() allocated; NULL is a no-op. */
MON_API void mon_barriers_free(struct mon_barriers *b);

/* The noise law for barriers of n threads (mon_barriers_law()). */
struct mon_barrier_law {
	/* Rounds in which one of n consecutive threads (each window of n,
	 * in the order given, wrapping) was hit, averaged over the windows. */
	double observed;
	/* The same from the windows' own hit rates, were they independent:
	 * 1 - (1 - p_1) ... (1 - p_n), averaged over the windows. */
	double independent;
	/* Tsafrir et al.'s 1 - (1 - p)^n, p the threads' mean hit rate. */
	double uniform;
};

/*
 * mon_barriers_law - Tsafrir et al.'s noise law over @b's rounds
 * @b: from mon_barriers(), with rounds
 * @out: b->nr_threads entries: out[n - 1] for barriers of n threads
 *
 * Return: 0, or -EINVAL (NULL, no round), -ENOMEM.
 */
MON_API int mon_barriers_law(const struct mon_barriers *b,
			     struct mon_barrier_law *out);

#ifdef __cplusplus
}
#endif

#endif /* MON_ANALYSIS_H */
