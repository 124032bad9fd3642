/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mon_session.h - a recording: one object that owns everything a trace
 * of a live monitor needs, for every front end alike (mkm record, mkm
 * view --live, the Slurm plugin), as libbpf's bpf_object is opened,
 * loaded and attached by every tool alike.
 *
 * A session owns
 *  - the monitor, created and configured by mon_session_create() (its
 *    rings sized for the classes and CPUs unless told, halved while the
 *    user's ring budget or the RAM refuses them), and the threads it is
 *    told to track (mon_session_track());
 *  - the calibration stored in the trace: a short one measured here, one
 *    loaded from a file, or none (mon_session_calibrate());
 *  - the pipeline "live source -> calibration and processes -> clock
 *    exchanges (a cluster node) -> trace sink (+ the caller's sink)", its
 *    trace written with O_DIRECT where the file system allows, and the
 *    runner thread that moves records through it as they come, so the
 *    file keeps up whatever the caller does (mon_session_prepare());
 *  - the ids of the recorder's own threads (the runner's and, unless the
 *    caller is a thread of another program, the caller's), stored in the
 *    trace's INFO (monitor_tids) so that compensation can tell the
 *    recorder's work from the workload's (docs/compensation.md);
 *  - on a node of a job on many nodes, the clock exchanges with the
 *    reference node (docs/cluster.md): the connection, the start and end
 *    exchanges, the periodic ones, and on the reference node the answers
 *    to every other node;
 *  - the start and the end (mon_session_start(), mon_session_stop()) and
 *    what the recording counted (mon_session_counts(), _stats()).
 * What a front end keeps: its options, a command it runs (forking it,
 * its signals), its screen, its own way of reporting errors.
 *
 * The life of a session:
 *
 *	mon_session_create()     the monitor, suspended (as the user who
 *	                         may open it: slurmstepd does it as root)
 *	mon_session_track()      threads to record, any time from here on
 *	mon_session_calibrate()  optional: mon_session_prepare() does it
 *	                         when the caller did not
 *	mon_session_prepare()    the trace file made, the pipeline and its
 *	                         runner ready, a node's start exchange
 *	mon_session_start()      the monitor resumed, the runner running
 *	mon_session_stop()       the end exchange, the monitor drained to its
 *	                         end, the file closed
 *	mon_session_destroy()    stops if need be, frees everything
 *
 * Every function returns 0 or a negative errno (libmonitor.h); the
 * constructor sets *@sp only on success. A session is used from one
 * thread at a time, except mon_session_counts() and mon_session_stats(),
 * which any thread may call while it records. Nothing here prints: what
 * the session's own threads have to say (a periodic clock exchange that
 * failed, ...) goes to the config's @warn.
 */
/* First, outside the guard, so that any of the library's headers may be
 * included first (libmonitor.h includes them all). */
#include "libmonitor.h"

#ifndef MON_SESSION_H
#define MON_SESSION_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mon_session;
struct mon_sink;
struct mon_calibration;

/* mon_session_config.flags */
/* Write the trace through the page cache, not with O_DIRECT. */
#define MON_SESSION_BUFFERED_IO (1u << 0)
/* The thread that calls mon_session_prepare() belongs to another program
 * (a plugin's host, as slurmstepd is): it is not listed among the
 * recorder's own threads. */
#define MON_SESSION_FOREIGN_CALLER (1u << 1)
/* MON_SESSION_CAL_QUICK measured at the end, in mon_session_stop() (the
 * monitor suspended, before the rest is drained), not before the start:
 * the recorded threads do not wait for it (the tasks of a job step on many
 * nodes start together, whatever each node's calibration takes), and the
 * trace carries it after its records, where mon_calibration_load() and
 * every command find it. */
#define MON_SESSION_CALIBRATE_AT_END (1u << 2)
#define MON_SESSION_FLAGS                                       \
	(MON_SESSION_BUFFERED_IO | MON_SESSION_FOREIGN_CALLER | \
	 MON_SESSION_CALIBRATE_AT_END)

/* mon_session_config.mode: what the session writes. */
enum mon_session_mode {
	/* Every record, from the start to the end, into one trace; the
	 * rings drop new records when full, and count them. */
	MON_SESSION_MODE_ALL = 0,
	/* A flight recorder: the rings keep the last records and overwrite
	 * the oldest (MKM_CONFIG_FLIGHT), nothing is read or written while
	 * armed, and each trigger (the monitor's: @monitor.trigger_runq_ns,
	 * _irq_ns; a mark that is one, monitor_trigger(); and
	 * mon_session_snapshot()) writes one complete trace, the output's
	 * path with .1, .2, ... appended (a file there is replaced): the
	 * pre-roll the rings kept, the post-roll recorded after the trigger
	 * (@flight.post_ns), the threads' names, the calibration, the
	 * trigger's record. See struct mon_session_flight. */
	MON_SESSION_MODE_FLIGHT = 1,
};

/* A flight recorder's snapshots (MON_SESSION_MODE_FLIGHT). */
struct mon_session_flight {
	uint64_t pre_ns; /* the pre-roll wanted: a snapshot whose rings kept
			    less before its trigger says so through @note */
	uint64_t post_ns; /* recorded after the trigger, before the file is
			     closed */
	uint64_t hold_off_ns; /* a trigger sooner than this after the last
				 snapshot's is counted, not written */
	uint32_t max_snapshots; /* then triggers are counted only (0: no
				   limit) */
	uint32_t flags; /* MON_FLIGHT_* */
};

/* mon_session_flight.flags: a snapshot at mon_session_stop() too, of what
 * the rings kept (as perf record --overwrite writes at its end). */
#define MON_FLIGHT_AT_END (1u << 0)

/* mon_session_config.calibration: the costs stored with the trace. */
enum mon_session_calibration {
	/* A short calibration, measured by mon_session_calibrate() as mkm
	 * record does by default: MON_SESSION_QUICK_TRIALS trials per
	 * figure on one CPU (the first the caller may run on; compensation
	 * gives the others its figures), a figure that is not a cost
	 * measured again while the calibration has taken less than
	 * MON_SESSION_QUICK_BUDGET_NS (mon_calibrate()), stored with its
	 * verdict. */
	MON_SESSION_CAL_QUICK = 0,
	/* None: compensating the trace will need a calibration file. */
	MON_SESSION_CAL_NONE = 1,
	/* The one @calibration_file carries (mkm calibrate -o FILE, or a
	 * trace recorded with one), not measured. */
	MON_SESSION_CAL_FILE = 2,
};

#define MON_SESSION_QUICK_TRIALS 3
#define MON_SESSION_QUICK_BUDGET_NS 10000000000ull

/* A node of a job step on many nodes (docs/cluster.md). */
struct mon_session_node {
	const char *name; /* this node's name, stored in the trace (at most
			     63 bytes) */
	const char *reference; /* the reference node's (node 0's) host name,
				  to connect to (at most 63 bytes) */
	uint32_t job_id, step_id; /* the job step, stored in the trace */
	uint32_t node_id; /* this node's index in the step: 0 is the
			     reference */
	uint32_t nr_nodes; /* nodes in the step */
	uint16_t port; /* the reference's TCP port (0: 40000 + (job_id * 31
			  + step_id) % 20000) */
	uint16_t reserved16;
	uint32_t timeout_ms; /* the longest wait for the reference (to
				connect) or for the other nodes (at the end);
				0: 30000 */
	uint64_t sync_ns; /* every other node exchanges again this long
			     after its last exchange, until the end (0: at
			     the start and the end only) */
	uint64_t reserved[4]; /* zero */
};

struct mon_session_config {
	const char *device; /* the monitor's device (NULL: MKM_DEVICE) */
	/* The monitor's configuration (monitor_configure()): classes 0 is
	 * MON_CLASS_RECORD_DEFAULT, less MKM_CLASS_IRQ where the module
	 * refuses it to this user (as its own default does); ring_bytes 0
	 * is mon_ring_bytes_for() these classes and this machine's CPUs and
	 * RAM, halved while the module refuses it (-EPERM: the user's ring
	 * budget; -ENOMEM) down to MKM_RING_DEFAULT_BYTES. flags are the
	 * monitor's (MKM_CONFIG_INHERIT, _ONE_SWITCH, _SYSTEM: every thread
	 * of the machine, tracked at the resume). */
	struct monitor_config monitor;
	uint32_t flags; /* MON_SESSION_* */
	uint32_t mode; /* enum mon_session_mode */
	uint32_t calibration; /* enum mon_session_calibration */
	/* The SCHED_FIFO priority of the session's thread that reads the
	 * rings and writes the trace (a flight recorder's snapshots), as
	 * perf record -r: a snapshot is then not queued behind the load it
	 * records. 0: the caller's policy. mon_session_prepare() fails with
	 * -EPERM where the caller may not (CAP_SYS_NICE, RLIMIT_RTPRIO). */
	uint32_t realtime;
	const char *calibration_file; /* with MON_SESSION_CAL_FILE */
	/* What the session's own threads have to say, one line each,
	 * without a trailing newline ("a periodic clock exchange with node
	 * 0 failed: ..."); called from those threads. NULL: nothing. */
	void (*warn)(void *arg, const char *line);
	void *warn_arg;
	struct mon_session_flight flight; /* MON_SESSION_MODE_FLIGHT's */
	/* What a flight recorder wrote, one line a snapshot ("wrote
	 * x.mkm.1: ..."), from its thread; NULL: @warn. */
	void (*note)(void *arg, const char *line);
	uint64_t reserved[3]; /* zero */
};

/* Where mon_session_prepare() writes. */
struct mon_session_output {
	const char *path; /* the trace file (created; one there is replaced) */
	/* A second sink fed the same stream (a live viewer's), owned by the
	 * session from mon_session_prepare() on, also on error; NULL: none */
	struct mon_sink *extra;
	/* A node of a job step: its clock exchanges go into the trace, and
	 * its name, job and step into INFO. NULL: one machine. A flight
	 * recorder's node takes one more exchange at each snapshot, and
	 * each snapshot carries the exchanges that span its window (from
	 * the last one before its start), so it aligns by itself. */
	const struct mon_session_node *node;
	uint64_t reserved[4]; /* zero */
};

/*
 * mon_session_create - a session and its monitor, suspended
 * @sp: out
 * @cfg: the configuration (copied; its strings too)
 *
 * Opens the device and configures the monitor as @cfg->monitor says
 * (the classes and ring size resolved, as above). Nothing is recorded,
 * and nothing is written, before mon_session_start(); a suspended
 * monitor costs the threads nothing (the calibration measures with it
 * suspended).
 *
 * Return: 0, or -EINVAL (@sp or @cfg NULL, unknown flags, a reserved
 * field not zero, an unknown calibration, MON_SESSION_CAL_FILE without a
 * file), -EOPNOTSUPP (a mode this library does not know), -ENOMEM, or an
 * error of monitor_create_at() and monitor_configure(), after the
 * fallbacks above: -ENOENT (no device: the module is not loaded),
 * -EACCES (no permission on the device; or the IRQ or SYSCALL class
 * asked for without CAP_PERFMON), -EPROTO (the module speaks another ABI), -EPERM
 * (MKM_CONFIG_SYSTEM without CAP_PERFMON; or the smallest rings still
 * past the user's budget), -EBUSY (MKM_CONFIG_SYSTEM while another
 * monitor is system-wide), -EOPNOTSUPP (a class this kernel cannot
 * record).
 */
MON_API int mon_session_create(struct mon_session **sp,
			       const struct mon_session_config *cfg);

/*
 * mon_session_track - record a thread (thread_monitor(), its tid as its
 * unique id); with MKM_CONFIG_INHERIT its future threads and children
 * too. Before mon_session_prepare(), the thread's process goes into the
 * trace (a PROCESSES chunk: the records say it only for threads forked
 * while recorded); a thread tracked later (a command started stopped
 * before its exec) is its own process. A system-wide session
 * (MKM_CONFIG_SYSTEM) takes every thread at its start, and every
 * thread's process then; a thread it is told to track is passed to the
 * module all the same, as for any monitor.
 * @s: the session
 * @tid: the thread, in the caller's PID namespace
 *
 * Return: 0, or -EINVAL (@s NULL, @tid <= 0), -ENOMEM, or as
 * thread_monitor():
 * -ESRCH (no such thread), -EPERM (the caller may not record it: another
 * user's, or not dumpable), -EBUSY (another monitor tracks it), -EEXIST
 * (this session already does), -ENOSPC.
 */
MON_API int mon_session_track(struct mon_session *s, pid_t tid);

/*
 * mon_session_calibrate - take the calibration the config asks for
 * (once: a second call returns the first one's result)
 * @s: the session
 *
 * MON_SESSION_CAL_QUICK measures (seconds: the caller waits; its CPU
 * affinity and policy are put back; with MON_SESSION_CALIBRATE_AT_END,
 * not here: mon_session_stop() measures it), MON_SESSION_CAL_FILE loads,
 * and MON_SESSION_CAL_NONE does nothing. A calibration whose figures are not
 * all costs is kept, with its verdicts: ask mon_calibration_judge() on
 * mon_session_calibration(). mon_session_prepare() calls it when the
 * caller did not; after a failure the session records without one.
 *
 * Return: 0, or -EINVAL (@s NULL), -EALREADY (the trace is prepared: too
 * late), or for MON_SESSION_CAL_QUICK an error of mon_calibrate()
 * (-EOVERFLOW: the monitor lost records while measuring, -EACCES, ...),
 * for MON_SESSION_CAL_FILE one of mon_calibration_load() (-ENOENT: the
 * file carries no calibration; an errno of opening or reading it).
 */
MON_API int mon_session_calibrate(struct mon_session *s);

/*
 * mon_session_calibration - the calibration the trace gets (after
 * mon_session_calibrate()), or NULL: none (not asked for, failed, or not
 * taken yet); owned by the session
 */
MON_API const struct mon_calibration *
mon_session_calibration(const struct mon_session *s);

/*
 * mon_session_prepare - make the trace and the pipeline ready to record
 * @s: the session, calibrated or not (it is calibrated now if not)
 * @out: where (its strings and node are copied; @out->extra is taken)
 *
 * In order: a node that is not the reference connects to it (retried
 * while refused, up to the node's timeout), the reference listens for the
 * others and answers each from a thread of its own; the calibration is
 * taken; the processes of the threads tracked so far (with
 * MKM_CONFIG_SYSTEM, of every thread of the machine) are read from
 * /proc; the runner thread starts and waits; the trace is created, its
 * INFO naming the recorder's own threads (and the node, job and step);
 * the start exchange is taken. The monitor stays suspended. A flight
 * recorder creates no file here (each snapshot is one) and takes no
 * @extra (-EOPNOTSUPP).
 *
 * Return: 0, or -EINVAL (@s or @out or its path NULL, a reserved field
 * not zero, a node without its names, names too long), -EALREADY
 * (prepared already), -EAGAIN (a thread could not be started), -ENOMEM,
 * an error of mon_source_live(), of mon_sink_trace_flags() (the file
 * cannot be created: -EACCES, -ENOENT, -EISDIR, ...), or of the clock
 * exchange (mon_clock_listen(), mon_clock_connect(): -ETIMEDOUT,
 * -ECONNREFUSED, -EHOSTUNREACH; mon_clock_exchange()). After an error
 * the session can only be destroyed; a file already created is left as
 * it is.
 */
MON_API int mon_session_prepare(struct mon_session *s,
				const struct mon_session_output *out);

/*
 * mon_session_start - resume the monitor and let the runner write; a
 * node that is not the reference starts its periodic exchanges
 * @s: the session (prepared here first, with @out, if it was not: @out
 *     NULL then is -EINVAL)
 * @out: as mon_session_prepare(), or NULL once prepared
 *
 * Return: 0, or -EINVAL (@s NULL, not prepared and no @out), -EALREADY
 * (started already), an error of mon_session_prepare(), or of
 * monitor_resume() (-ENOMEM, -EPERM: the rings could not be allocated).
 * A periodic thread that cannot be started is said through @warn; the
 * start and end exchanges align the node then.
 */
MON_API int mon_session_start(struct mon_session *s,
			      const struct mon_session_output *out);

/*
 * mon_session_stop - end the recording; idempotent
 * @s: the session
 *
 * A node that is not the reference stops its periodic exchanges, takes
 * the end exchange and closes its connection; the reference waits (up to
 * the node's timeout) for the other nodes to have connected, then for
 * their end exchanges. With MON_SESSION_CALIBRATE_AT_END the monitor is
 * suspended and the quick calibration measured (its failure leaves the
 * trace without one: mon_session_calibration() NULL). Then the monitor is
 * suspended and drained to its
 * end (LOST records and the kernel's counts included), the runner writes
 * the rest and the file is closed. A session that was never started is
 * not touched.
 *
 * Return: 0, or the error that ended the recording before its end (a
 * failed write: -ENOSPC, -EIO, ...; mon_session_error() says where), or
 * -EINVAL (@s NULL).
 */
MON_API int mon_session_stop(struct mon_session *s);

/*
 * mon_session_snapshot - a flight recorder's snapshot, now: a trigger
 * from outside (a signal to the recorder, mkm trigger), recorded as a
 * mark that is one (monitor_trigger(), @value its value), written by the
 * session's thread as the others are; the rate limits apply
 * @s: the session, started, MON_SESSION_MODE_FLIGHT
 * @value: the mark's
 *
 * Return: 0, or -EINVAL (@s NULL, not a flight recorder, not started), or
 * as monitor_trigger().
 */
MON_API int mon_session_snapshot(struct mon_session *s, uint64_t value);

/* What a flight recorder did so far. */
struct mon_session_flight_counts {
	uint32_t written; /* snapshots written */
	uint32_t held_off; /* triggers within hold_off_ns of a snapshot */
	uint32_t over_max; /* triggers past max_snapshots */
	uint32_t failed; /* snapshots that could not be written */
	uint64_t triggers; /* TRIGGER records seen */
	uint32_t last; /* N of the last snapshot written, the output's path
			  with .N appended (0: none yet) */
};

/*
 * mon_session_flight_size - make @cfg a flight recorder
 * (MON_SESSION_MODE_FLIGHT) whose rings keep @bytes of records over all
 * the machine's CPUs, as mkm record --flight and srun --mkm-flight take it
 * @cfg: the config to be given to mon_session_create(); its
 *       @monitor.ring_bytes becomes @bytes over the CPUs (at least
 *       MKM_RING_MIN_BYTES; the module rounds it to a power of two)
 * @bytes: at least MKM_RING_MIN_BYTES
 *
 * Return: 0, or -EINVAL (@cfg NULL, @bytes too small, @cfg's ring_bytes
 * already set: one size, not two).
 */
MON_API int mon_session_flight_size(struct mon_session_config *cfg,
				    uint64_t bytes);

/* What mon_session_trigger_parse() takes, for messages. */
#define MON_TRIGGER_SPECS \
	"'runq>T' (a thread's run-queue wait), 'irq>T' (an interrupt's or softirq's time on a thread's CPU) or exit, with T a time (e.g. 'runq>1ms')"

/*
 * mon_session_trigger_parse - a flight recorder's triggers, as mkm record
 * --trigger and srun --mkm-trigger take them, into @cfg
 * @cfg: the config to be given to mon_session_create()
 * @specs: one or more of MON_TRIGGER_SPECS, comma-separated: "runq>T"
 *         sets @monitor.trigger_runq_ns, "irq>T" @monitor.trigger_irq_ns
 *         ('=' for '>' too, for shells where > is awkward; T as
 *         mon_parse_time() takes it, above 0), "exit" MON_FLIGHT_AT_END
 *
 * Return: 0, or -EINVAL (NULL, an empty item, one that is no trigger, a
 * threshold that is no time above 0); @cfg is then unchanged.
 */
MON_API int mon_session_trigger_parse(struct mon_session_config *cfg,
				      const char *specs);

/*
 * mon_session_flight_counts - a flight recorder's snapshots so far
 *
 * Return: 0, or -EINVAL (@s or @c NULL, not a flight recorder).
 */
MON_API int mon_session_flight_counts(const struct mon_session *s,
				      struct mon_session_flight_counts *c);

/*
 * mon_session_destroy - stop if need be, terminate the monitor, free the
 * session; NULL is a no-op
 */
MON_API void mon_session_destroy(struct mon_session *s);

/*
 * mon_session_counts - records read and records lost so far
 * @s: the session, started (before: 0 and 0)
 * @events, @lost: out, each may be NULL
 *
 * Return: 0, or -EINVAL (@s NULL).
 */
MON_API int mon_session_counts(const struct mon_session *s, uint64_t *events,
			       uint64_t *lost);

/* What a recording cost and how it went. */
struct mon_session_stats {
	struct mon_live_stats live; /* the drain's work */
	double user_ns, sys_ns; /* this process's CPU time while recording
				   (its children's apart: the recorder's own
				   cost, for a process that records; a
				   plugin's host counts its own work too),
				   from the start to the stop (so far, before
				   the stop) */
	uint32_t deferrals_start; /* the module's deferred probe drops at the
				     start and before the end's suspend */
	uint32_t deferrals_end; /* (monitor_deferrals()) */
	bool direct; /* the trace was (is being) written with O_DIRECT */
	uint64_t reserved[4];
};

/*
 * mon_session_stats - the recording's cost and counts so far
 * @s: the session, prepared
 * @st: out
 *
 * Return: 0, or -EINVAL (@s or @st NULL, not prepared).
 */
MON_API int mon_session_stats(const struct mon_session *s,
			      struct mon_session_stats *st);

/*
 * mon_session_error - what ended the recording, as one line naming the
 * part and the place ("sink trace: No space left on device (source
 * offset 123456)"), "" if nothing did
 */
MON_API const char *mon_session_error(const struct mon_session *s);

/*
 * mon_session_meta - the metadata that reached the sinks (the last STATS'
 * lost count, ...), as mon_pipeline_meta(); NULL before
 * mon_session_prepare()
 */
MON_API const struct mon_meta *mon_session_meta(const struct mon_session *s);

/*
 * mon_session_info - the recording's INFO, as the trace has it (its
 * classes, CPUs, the recorder's threads); NULL before
 * mon_session_prepare()
 */
MON_API const struct trace_info *mon_session_info(const struct mon_session *s);

/*
 * mon_session_monitor - the session's monitor, for what the session does
 * not wrap (monitor_busy_threads(), monitor_mark()); owned by the
 * session. Not to be configured, resumed or suspended behind its back.
 */
MON_API struct monitor *mon_session_monitor(const struct mon_session *s);

/*
 * mon_session_monitor_config - the monitor's configuration as the module
 * applied it (the classes and ring size resolved)
 */
MON_API const struct monitor_config *
mon_session_monitor_config(const struct mon_session *s);

#ifdef __cplusplus
}
#endif

#endif /* MON_SESSION_H */
