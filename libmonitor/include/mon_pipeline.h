/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mon_pipeline.h - libmonitor's event pipeline: every consumer of events is
 * a sink fed by one source through zero or more stages.
 *
 *   source ──► stage ──► stage ──► sink
 *   (file,       (order,           ├─► sink   (timeline, trace writer,
 *    live,        filter, ...)     └─► sink    dump, exporters, viewer)
 *    merge)
 *
 * A runner pulls messages from the source and pushes each through the
 * stages, in the order they were added, into every sink. A message is a
 * batch: one EVENTS message carries many records, so no indirect call is
 * made per record. Metadata travels in the same stream, as the trace
 * file's chunks do (docs/trace-format.md): a source's first message is
 * INFO, then EVENTS, HORIZON, THREADS, STATS, CALIBRATION, CLOCK_SYNC and
 * NODES in any order, so a sink never needs to reopen the file. A part
 * passes on the metadata it does not know.
 *
 * Order. Records of one CPU come in time (and seq) order; across CPUs,
 * only HORIZON promises anything: after HORIZON h, no record stamped
 * before h follows. The order stage (and the merge source) turn that into
 * one stream in time order, in bounded memory.
 *
 * End of stream and back-pressure are explicit: a source's next() returns
 * 0 at the end (the runner then calls every stage's and sink's finish()),
 * a sink's consume() returns MON_DONE when it wants no more (the runner
 * stops when every sink is done), and a live source's drain thread waits
 * when its queue holds max_queued_bytes: the kernel's rings then fill and
 * count what they drop, as MKM did.
 *
 * Every function returns 0 or a negative errno, as in libmonitor.h; the
 * runner's error says which part failed and where in the source
 * (mon_pipeline_error()). Messages are lent: valid during the call only.
 */
/* First, outside the guard, so that any of the library's headers may be
 * included first (libmonitor.h includes them all). */
#include "libmonitor.h"

#ifndef MON_PIPELINE_H
#define MON_PIPELINE_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a message carries; the numbers are the trace file's chunk types. */
enum mon_msg_type {
	MON_MSG_INFO = TRACE_CHUNK_INFO, /* info: the recording */
	MON_MSG_EVENTS = TRACE_CHUNK_EVENTS, /* events, nr_events */
	MON_MSG_HORIZON = TRACE_CHUNK_HORIZON, /* horizon_ns */
	MON_MSG_THREADS = TRACE_CHUNK_THREADS, /* threads, nr_threads */
	MON_MSG_STATS = TRACE_CHUNK_STATS, /* stats, nr_stats (by CPU) */
	MON_MSG_CALIBRATION = TRACE_CHUNK_CALIBRATION, /* calibration, nr_... */
	/* A node's clock exchanges: clock_sync_hdr, clock_samples (add up) */
	MON_MSG_CLOCK_SYNC = TRACE_CHUNK_CLOCK_SYNC,
	/* A merged trace's nodes: nodes_hdr, nodes (the last supersedes) */
	MON_MSG_NODES = TRACE_CHUNK_NODES,
	/* Threads' processes known at attach: processes, nr_processes */
	MON_MSG_PROCESSES = TRACE_CHUNK_PROCESSES,
	/* Compensated figures' bounds, by thread: bounds, nr_bounds (the
	 * compensation stage's, at the end of the stream) */
	MON_MSG_BOUNDS = TRACE_CHUNK_BOUNDS,
};

struct mon_msg {
	uint32_t type; /* enum mon_msg_type */
	uint32_t source; /* which source, for a merge (0, 1, ...); else 0 */
	uint64_t offset; /* where it came from: a file's byte offset of the
			    chunk, a live source's count of records before */
	const struct trace_info *info;
	const struct mkm_event *events;
	size_t nr_events;
	uint64_t horizon_ns;
	const struct trace_thread *threads;
	size_t nr_threads;
	const struct trace_process *processes;
	size_t nr_processes;
	const struct mkm_cpu_stats *stats;
	size_t nr_stats;
	const struct trace_calibration_hdr *calibration_hdr;
	const struct trace_calibration *calibration;
	size_t nr_calibration;
	const struct trace_clock_sync_hdr *clock_sync_hdr;
	const struct trace_clock_sample *clock_samples;
	size_t nr_clock_samples;
	const struct trace_nodes_hdr *nodes_hdr;
	const struct trace_node *nodes;
	size_t nr_nodes;
	const struct trace_bounds *bounds;
	size_t nr_bounds;
};

/* consume() and process() return this when they want no more messages. */
#define MON_DONE 1

/* ======================================================================
 * Sources
 * ======================================================================
 */
struct mon_source;

struct mon_source_ops {
	const char *name; /* "file", "live", ...: in error messages */
	/* Return 1 and a message, 0 at the end of the stream, or -errno
	 * (-EAGAIN: nothing yet, from a non-blocking live source). */
	int (*next)(void *priv, struct mon_msg *msg);
	/* One line saying what failed and where; may be NULL. */
	const char *(*error)(void *priv, uint64_t *offset);
	void (*destroy)(void *priv);
};

/*
 * mon_source_new - a source of one's own
 * @srcp: out
 * @ops: its functions (kept: must outlive the source)
 * @priv: handed to them
 * @info: the recording it describes (copied); its first message
 *
 * Return: 0, -EINVAL or -ENOMEM (@priv is not destroyed then).
 */
MON_API int mon_source_new(struct mon_source **srcp,
			   const struct mon_source_ops *ops, void *priv,
			   const struct trace_info *info);

/*
 * mon_source_file - the messages of a .mkm trace file
 * @srcp: out
 * @path: the file
 *
 * A damaged or cut file ends the stream with the reader's error
 * (-EBADMSG, -ENODATA, ...; mon_source_error() names the offset) after
 * everything valid before it. A damaged chunk with a good one after it
 * is skipped instead (trace_reader_next()): the stream goes on to its
 * end, and mon_source_error() says afterwards what was skipped.
 *
 * Return: 0, or as trace_reader_open(); on a header error *@srcp is still
 * set when the file could be opened, so mon_source_error() can say why
 * (destroy it with mon_source_destroy()).
 */
MON_API int mon_source_file(struct mon_source **srcp, const char *path);

/* mon_source_mem - the same on a trace in memory (kept, not copied). */
MON_API int mon_source_mem(struct mon_source **srcp, const void *buf,
			   size_t len);

/* How a live source drains its monitor. Zeroes pick the defaults. */
struct mon_live_config {
	size_t batch_records; /* records per monitor_read() (4096) */
	size_t max_queued_bytes; /* the drain thread waits past this (64 MiB) */
	unsigned int poll_ms; /* drain at least this often (100); a ring
				 passing its watermark wakes it earlier */
	bool nonblock; /* next() returns -EAGAIN instead of waiting */
	bool no_thread; /* no drain thread: drain only in
			   mon_source_live_drain() and _stop() */
};

/*
 * mon_source_live - the records of a monitor as it runs
 * @srcp: out
 * @mon: the monitor (not owned: terminate it after destroying the source)
 * @cfg: how to drain it (NULL: defaults)
 *
 * A drain thread sleeps in poll() on the monitor, drains it into batches
 * and queues them (a liburcu wait-free queue) for next(), which waits for
 * one (wake-ups through an eventfd, mon_source_live_fd()). Each drain ends
 * with a HORIZON 1 ms before it began. The INFO message describes the
 * monitor as configured (classes, ring size, CPUs, host, kernel, start
 * times); the stream ends, after mon_source_live_stop(), with the
 * monitor's STATS.
 *
 * Return: 0, -EINVAL, -ENOMEM, or an errno of monitor_statistics(),
 * eventfd(2) or pthread_create(3).
 */
MON_API int mon_source_live(struct mon_source **srcp, struct monitor *mon,
			    const struct mon_live_config *cfg);

/*
 * mon_source_live_drain - drain the monitor now, in the caller's thread
 *
 * Return: 0, -EINVAL (not a live source, or stopped), or an error of
 * monitor_read().
 */
MON_API int mon_source_live_drain(struct mon_source *src);

/*
 * mon_source_live_stop - end the recording: suspend the monitor, drain it
 * to its end (drops at the rings' ends reported), queue its STATS and the
 * end of the stream. next() returns what was queued, then 0.
 *
 * Return: 0, -EINVAL, or the error that ended the drain (also returned by
 * next() at the end of the stream).
 */
MON_API int mon_source_live_stop(struct mon_source *src);

/*
 * mon_source_live_fd - a file descriptor that polls readable when next()
 * has something (an eventfd; do not read it). -EINVAL if not live.
 */
MON_API int mon_source_live_fd(const struct mon_source *src);

/*
 * mon_source_live_counts - records and lost events drained so far (any
 * thread may call it while the source runs)
 */
MON_API int mon_source_live_counts(const struct mon_source *src,
				   uint64_t *events, uint64_t *lost);

/* What the drain did so far: the recorder's own work per record. */
struct mon_live_stats {
	uint64_t events; /* records drained (LOST ones apart) */
	uint64_t drains; /* drains that found records */
	uint64_t reads; /* monitor_read() calls */
	uint64_t batches; /* EVENTS messages queued */
	uint64_t signals; /* consumer wake-ups written (eventfd) */
};

/*
 * mon_source_live_stats - the drain's work so far (any thread may call it)
 *
 * Return: 0, or -EINVAL (not a live source, @st NULL).
 */
MON_API int mon_source_live_stats(const struct mon_source *src,
				  struct mon_live_stats *st);

/*
 * mon_source_merge - several sources as one stream in time order
 * @srcp: out
 * @srcs: the sources (owned from now on, also on error)
 * @n: 1 to 64 of them
 *
 * Records of every source come out in time order; equal times go in the
 * order of @srcs, then of CPU ids. A metadata message's source field
 * says which source it came from; EVENTS mix them (source 0). Seq numbers are made consecutive per CPU over the
 * merged stream, and each source's own seq gaps become LOST records, so
 * the timeline accounts losses exactly. INFO is the first source's, with
 * nr_cpus the largest and the classes of all. Memory is bounded by the
 * sources' horizons: a source whose records run ahead waits.
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
MON_API int mon_source_merge(struct mon_source **srcp, struct mon_source **srcs,
			     size_t n);

/* mon_source_info - what the source describes (its INFO message). */
MON_API const struct trace_info *mon_source_info(const struct mon_source *src);

/*
 * mon_source_next - the next message, for a caller that runs no pipeline
 *
 * Return: 1, 0 at the end, or -errno (see mon_source_ops.next).
 */
MON_API int mon_source_next(struct mon_source *src, struct mon_msg *msg);

/*
 * mon_source_error - the source's last error as one line ("" if none; for
 * a file whose stream ended normally, the damage it skipped, if any)
 * @offset: out (may be NULL): where in the source
 */
MON_API const char *mon_source_error(const struct mon_source *src,
				     uint64_t *offset);

/* mon_source_destroy - stop and free a source; NULL is a no-op. */
MON_API void mon_source_destroy(struct mon_source *src);

/* ======================================================================
 * Stages and sinks
 * ======================================================================
 */
struct mon_stage;
struct mon_sink;
struct mon_emit; /* where a stage sends its output: the rest of the chain */

/*
 * mon_emit - send a message down the chain from a stage (to the next
 * stages, then every sink)
 *
 * Return: 0, MON_DONE (every sink is done: stop emitting), or the error
 * of a later part (return it from process()/finish()).
 */
MON_API int mon_emit(struct mon_emit *out, const struct mon_msg *msg);

struct mon_stage_ops {
	const char *name;
	/* Handle one message: emit none (drop), it, a changed copy, or
	 * several; records held back are copied. Return 0, MON_DONE or
	 * -errno (or what mon_emit() returned). */
	int (*process)(void *priv, const struct mon_msg *msg,
		       struct mon_emit *out);
	/* End of stream: emit what was held back. May be NULL. */
	int (*finish)(void *priv, struct mon_emit *out);
	void (*destroy)(void *priv);
};

struct mon_sink_ops {
	const char *name;
	/* Return 0, MON_DONE (wants no more) or -errno. */
	int (*consume)(void *priv, const struct mon_msg *msg);
	/* End of stream (also after MON_DONE). Return 0 or -errno. May be
	 * NULL. */
	int (*finish)(void *priv);
	void (*destroy)(void *priv);
};

/*
 * mon_stage_new, mon_sink_new - a stage or sink of one's own
 *
 * Return: 0, -EINVAL or -ENOMEM (@priv is not destroyed then).
 */
MON_API int mon_stage_new(struct mon_stage **stp,
			  const struct mon_stage_ops *ops, void *priv);
MON_API int mon_sink_new(struct mon_sink **skp, const struct mon_sink_ops *ops,
			 void *priv);

/*
 * mon_stage_order - put records in time order across CPUs: each CPU's
 * records wait until every CPU's stream (or a HORIZON) has passed their
 * time; equal times go by CPU id, then arrival. Memory: the records of
 * one horizon period.
 *
 * Return: 0 or -ENOMEM.
 */
MON_API int mon_stage_order(struct mon_stage **stp);

/* What mon_stage_filter() keeps. */
struct mon_filter {
	const uint32_t *tids; /* records whose tid is one of these */
	size_t nr_tids; /* 0: every thread */
	uint64_t from_ns, to_ns; /* records stamped in [from, to); to 0: no
				    end */
};

/*
 * mon_stage_filter - keep the records of some threads or of a time window
 * (LOST records are always kept: a filter must not hide a loss); other
 * messages pass unchanged. The filter is copied. A SWITCH record between a
 * thread kept and one left out becomes the kept one's SWITCH_OUT or
 * SWITCH_IN (mon_event_split()).
 *
 * Return: 0, -EINVAL (from >= to with to set) or -ENOMEM.
 */
MON_API int mon_stage_filter(struct mon_stage **stp,
			     const struct mon_filter *filter);

/*
 * mon_sink_timeline - feed a timeline: EVENTS to tl_feed(), HORIZON to
 * tl_advance(), tl_flush() at the end; the timeline is not owned
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
MON_API int mon_sink_timeline(struct mon_sink **skp, struct tl *tl);

/*
 * mon_sink_trace - write the stream to a trace file, created now with
 * @info (INFO messages are not written again), closed at the end (the END
 * chunk); a failed write fails the run
 *
 * Return: 0, or as trace_writer_open().
 */
MON_API int mon_sink_trace(struct mon_sink **skp, const char *path,
			   const struct trace_info *info);

/*
 * mon_sink_trace_flags - mon_sink_trace() with trace_writer_open_flags()'s
 * @flags (TRACE_WRITE_DIRECT: what a recorder uses)
 */
MON_API int mon_sink_trace_flags(struct mon_sink **skp, const char *path,
				 const struct trace_info *info,
				 unsigned int flags);

/* mon_sink_trace_direct - does @sk's file go (did it go, once finished)
 * out with O_DIRECT? */
MON_API bool mon_sink_trace_direct(const struct mon_sink *sk);

struct mon_calibration;

/*
 * mon_stage_compensate - move each record earlier by the monitor's own
 * cost that delayed it (docs/compensation.md): the sensor cost of every
 * earlier record on its CPU while the CPU stayed busy, carried from
 * thread to thread along the wakeups and CPU handovers that the records
 * prove, and the constant cost of each switch. Never reorders a CPU's or
 * a thread's records, never moves a record before its cause or below a
 * horizon already passed on (HORIZONs move back by the largest delay).
 * Its input must be in time order (after mon_stage_order()). INFO leaves
 * marked TRACE_F_COMPENSATED. A SWITCH record costs one record's cost; it
 * leaves as its SWITCH_OUT and SWITCH_IN (mon_event_split()) when the two
 * move by different amounts, the CPU's later seq numbers one higher.
 * @stp: out
 * @cal: the costs (copied; the output's CALIBRATION is this one), or NULL
 *       for the stream's own CALIBRATION message, which must then come
 *       before the first EVENTS
 *
 * A calibration with a figure that is not a cost (mon_calibration_judge())
 * is refused: compensation computed from noise moves times by noise.
 *
 * Errors of process(): -EALREADY (the stream is compensated already),
 * -ENOENT (EVENTS before any calibration), -EDOM (the stream's calibration
 * is not meaningful), -ENOMEM.
 *
 * Return: 0, -EINVAL (@cal with no CPU), -EDOM (@cal is not meaningful)
 * or -ENOMEM.
 */
MON_API int mon_stage_compensate(struct mon_stage **stp,
				 const struct mon_calibration *cal);

/* mon_compensate_opts.flags: compensate from a calibration that
 * mon_calibration_judge() finds meaningless (the user said so). */
#define MON_COMPENSATE_FORCE (1u << 0)

/*
 * Where compensation is unsure, per thread (docs/compensation.md,
 * "Honesty"). Compensation moves times; it cannot undo a scheduling
 * decision that the monitor's cost changed. Decisions that depend on the
 * time the monitor added:
 *  - a preemption (the thread switched out runnable) after a run in which
 *    the monitor's cost grew the thread's run time by c, or a wakeup by a
 *    thread after the monitor's cost grew the wakee's last run and the
 *    waker's run so far by c: the scheduler compares run times against a
 *    granularity, so the decision (preempt, or let the waker run on) may
 *    flip with probability about c / MON_COMPENSATE_PREEMPT_GRAN_NS; the
 *    run-queue wait that followed, weighted by it, is at stake;
 *  - a wakeup from an interrupt (a timer: a timed wait that expired) while
 *    the CPU carried monitor delay d: unmonitored, the thread that would
 *    have woken it could have come up to d earlier; d is at stake;
 *  - a timed wait taken as the monitor's doing (its timer expired while
 *    the recording's own thread held the CPU from the thread's last waker,
 *    runnable since before it slept; compensation takes the sleep and the
 *    run after it out), where that waker, once it ran, took longer to wake
 *    it than the timer had: the timer would have expired unmonitored too;
 *    what was taken out is at stake;
 *  - a wakeup that did not preempt its waker, which then ran on until the
 *    scheduler's tick ended its run (the wakee switched in from it, the
 *    waker preempted, more than MON_COMPENSATE_PREEMPT_GRAN_NS later):
 *    which tick ends such a run depends on where the wakeup fell between
 *    ticks, and the monitor's delay on the CPU since the last such run
 *    ended on a tick (or since the CPU was idle), c, moved it: the run
 *    may have ended a tick sooner or later with a chance of about c /
 *    MON_COMPENSATE_TICK_NS, and the wakee's wait, weighted by it, is at
 *    stake for the wakee and the waker alike.
 * A thread is unsure when what is at stake is of the order of what
 * compensation moved its records by (at least MON_COMPENSATE_UNSURE_SHIFT
 * of its largest shift), and at least MON_COMPENSATE_UNSURE_LIFE of its
 * observed life (the claim's own resolution).
 */
#define MON_COMPENSATE_PREEMPT_GRAN_NS \
	1000000.0 /* CFS's smallest wakeup
							granularity (1 ms) */
/* The tick of Debian's kernels (HZ=250); a shorter one makes flips likelier. */
#define MON_COMPENSATE_TICK_NS 4000000.0
#define MON_COMPENSATE_UNSURE_SHIFT 0.5
#define MON_COMPENSATE_UNSURE_LIFE 0.005

struct mon_comp_doubt {
	uint32_t tid;
	bool unsure; /* the rule above */
	uint64_t life_ns; /* first to last record, as recorded */
	double shift_ns; /* the most its records moved */
	uint64_t preemptions; /* runs ended by preemption, monitor cost in */
	double preempt_cost_ns; /* the monitor's cost in those runs */
	uint64_t wakeups; /* woken by a thread, monitor cost in the runs */
	double wakeup_cost_ns; /* the monitor's cost in those runs */
	uint64_t timer_wakeups; /* woken by an interrupt, the CPU delayed (a
				   thread a monitored thread woke before) */
	double timer_delay_ns; /* the CPU's delay at those wakeups, summed */
	double at_stake_ns; /* weighted wait after preemptions + that delay */
	uint64_t timeouts; /* timed waits taken as the monitor's doing */
	double timeout_ns; /* their sleeps and the runs after, taken out */
	uint64_t timeouts_unproven; /* of those, the waker slower than the timer */
	uint64_t tick_runs; /* waits behind a waker run on to the tick */
	double tick_delay_ns; /* the monitor's delay that moved them, summed */
};

/*
 * Bounds: how far each compensated figure of a thread may be from what
 * the unmonitored run would have shown (struct trace_bounds, mon_trace.h;
 * docs/compensation.md, "Bounds"). Each figure (its time on a CPU, on a
 * run queue, asleep, its life, its first and last record's times) has one
 * part per source of uncertainty, each a distance below and above it:
 *  - TRACE_BOUND_CALIBRATION: the stage places every record again with
 *    every cost of the calibration at the low end of its 99% interval (not
 *    below 0; Student's t over the cost's trials, not the stored normal
 *    approximation), and again at the high end; the part is how far the
 *    figure moves. Where the costs in a figure add up (a run's records, a
 *    chain of delay), it is each kind's records times its interval's
 *    half-width.
 *  - TRACE_BOUND_SCHEDULING: each scheduling decision above whose timing
 *    the monitor moved is the monitor's with a chance p and puts w ns at
 *    stake (the doubts' rules, a preemption's chance taken against the
 *    run it ended where that is shorter than the granularity, and every
 *    stake whole, not weighted: p w summed is the doubts' at_stake_ns);
 *    the part is min(sum of w, sum of p w + 2.576 sqrt(sum of p (1-p)
 *    w^2)), a 99% bound on the sum of independent stakes: RUNQ for waits
 *    after a decision, RUN for a waker's run to the tick and a timed-out
 *    turn, SLEEP for a timer's wakeup; START, END and LIFE take every
 *    thread's decisions before the record (between them, for LIFE), whole
 *    (a decision of who waits may change how many switches are made),
 *    but a timer's wakeups, whose stake is the CPU's delay at each, the
 *    same delay again and again: they stay the thread's own.
 *  - TRACE_BOUND_SPLIT: where mkm knows when a wait began (its WAKEUP, or
 *    a preemption), the kernel's own wait that the SWITCH_IN records less
 *    mkm's is where the kernel put the switch against the tracepoint
 *    (docs/accuracy.md): summed, it is how far the kernel's RUNQ (and, the
 *    run starting and the one before ending that much earlier, its RUN)
 *    lies from mkm's; the part reaches it, on its side.
 * What is not known is said in the flags (TRACE_BOUND_LOST, _SPLIT_
 * PARTIAL, _NO_INTERVAL, _NO_WAKEUPS), not guessed. The stage passes the
 * bounds on at the end of the stream as a MON_MSG_BOUNDS message (the
 * trace sink writes it: mkm replay's BOUNDS chunk) and to
 * mon_compensate_opts.bounds.
 */
struct mon_compensate_opts {
	unsigned int flags; /* MON_COMPENSATE_* */
	/* Called at the end of the stream for every thread seen (may be
	 * NULL), in no particular order. */
	void (*doubt)(void *arg, const struct mon_comp_doubt *d);
	void *arg;
	/* Called once at the end of the stream (may be NULL) with every
	 * thread's bounds, @n of them by tid (lent: valid during the call). */
	void (*bounds)(void *arg, const struct trace_bounds *b, size_t n);
};

/*
 * mon_stage_compensate_opts - mon_stage_compensate() with options (@opts
 * NULL: none, as mon_stage_compensate())
 *
 * Return: as mon_stage_compensate(); -EDOM only without
 * MON_COMPENSATE_FORCE.
 */
MON_API int mon_stage_compensate_opts(struct mon_stage **stp,
				      const struct mon_calibration *cal,
				      const struct mon_compensate_opts *opts);

/*
 * mon_bound_total - the bound of figure @figure of @b: its parts added
 * @out: below_ns and above_ns, each the sum of the parts'
 *
 * Return: 0, or -EINVAL (@b or @out NULL, @figure not a
 * TRACE_BOUND_* figure).
 */
MON_API int mon_bound_total(const struct trace_bounds *b, unsigned int figure,
			    struct trace_bound *out);

/*
 * mon_bound_elapsed - the bound of the time from thread @first's first
 * record to thread @last's last record (the elapsed time of a command:
 * its first thread's start to its last thread's end; they may be one)
 * @out: below_ns, above_ns: the end's total bound and the start's, the
 *       start's taken the other way (an earlier start is a longer span)
 *
 * Return: 0, or -EINVAL (an argument NULL).
 */
MON_API int mon_bound_elapsed(const struct trace_bounds *first,
			      const struct trace_bounds *last,
			      struct trace_bound *out);

/* A compensated trace's bounds (its BOUNDS chunk, mkm replay's). */
struct mon_bounds {
	struct trace_bounds *b; /* n of them, by tid */
	size_t n;
};

/*
 * mon_bounds_load - the bounds a compensated trace carries: its last
 * BOUNDS chunk (there is one, written at the end)
 * @out: filled; free with mon_bounds_free()
 * @path: the trace
 *
 * Return: 0, -EINVAL (an argument NULL), -ENOENT (no BOUNDS chunk: a
 * trace not compensated, or compensated before format 1.5), -ENOMEM, or
 * as trace_reader_open() and trace_reader_next().
 */
MON_API int mon_bounds_load(struct mon_bounds *out, const char *path);

/* mon_bounds_find - the bounds of thread @tid in @bs, or NULL */
MON_API const struct trace_bounds *mon_bounds_find(const struct mon_bounds *bs,
						   uint32_t tid);

/* mon_bounds_free - free what @bs holds (not @bs); NULL is a no-op */
MON_API void mon_bounds_free(struct mon_bounds *bs);

/* mon_stage_destroy, mon_sink_destroy - free one not added to a pipeline. */
MON_API void mon_stage_destroy(struct mon_stage *st);
MON_API void mon_sink_destroy(struct mon_sink *sk);

/* ======================================================================
 * The runner
 * ======================================================================
 */
struct mon_pipeline;

/* The metadata that reached the sinks (the last of each kind). */
struct mon_meta {
	struct trace_info info;
	uint64_t lost_by_stats; /* sum of the last STATS of every source */
	uint64_t events; /* records that reached the sinks, LOST ones not
			    counted */
	uint64_t lost; /* events the LOST records that reached them say */
	uint64_t horizon_ns; /* the last HORIZON */
	size_t nr_threads; /* names of the last THREADS */
	size_t nr_calibration; /* entries of the last CALIBRATION */
};

/*
 * mon_pipeline_create - a runner for @src (owned from now on, also on
 * error)
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
MON_API int mon_pipeline_create(struct mon_pipeline **pp,
				struct mon_source *src);

/* Add a stage (after those added before) or a sink; both owned from now
 * on, also on error. Return: 0, -EINVAL, -EBUSY (already running) or
 * -ENOMEM. */
MON_API int mon_pipeline_add_stage(struct mon_pipeline *p,
				   struct mon_stage *st);
MON_API int mon_pipeline_add_sink(struct mon_pipeline *p, struct mon_sink *sk);

/*
 * mon_pipeline_step - move one message from the source through the chain
 *
 * Return: 1 (more may come), 0 (the stream ended, or every sink is done:
 * the finish() calls have been made), -EAGAIN (a non-blocking source has
 * nothing yet), or the first error of any part; mon_pipeline_error() says
 * which part and where in the source. After 0 or an error other than
 * -EAGAIN, every later call returns the same.
 */
MON_API int mon_pipeline_step(struct mon_pipeline *p);

/* mon_pipeline_run - step until the end. Return: 0 or as _step(). */
MON_API int mon_pipeline_run(struct mon_pipeline *p);

/*
 * mon_pipeline_error - what failed, as one line naming the part and the
 * source's offset ("sink trace: No space left on device (source offset
 * 123456)"), "" if nothing did
 * @offset: out (may be NULL): the source's offset of the message
 */
MON_API const char *mon_pipeline_error(const struct mon_pipeline *p,
				       uint64_t *offset);

/* mon_pipeline_meta - the metadata that reached the sinks so far. */
MON_API const struct mon_meta *mon_pipeline_meta(const struct mon_pipeline *p);

/* mon_pipeline_source - the pipeline's source (e.g. to stop a live one). */
MON_API struct mon_source *mon_pipeline_source(const struct mon_pipeline *p);

/* mon_pipeline_destroy - free the runner, its source, stages and sinks. */
MON_API void mon_pipeline_destroy(struct mon_pipeline *p);

#ifdef __cplusplus
}
#endif

#endif /* MON_PIPELINE_H */
