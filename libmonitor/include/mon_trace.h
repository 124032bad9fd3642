/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mon_trace.h - the .mkm trace file (trace_), writer and reader
 * (docs/trace-format.md; included by libmonitor.h).
 */
/* First, outside the guard, so that any of the library's headers may be
 * included first (libmonitor.h includes them all). */
#include "libmonitor.h"

#ifndef MON_TRACE_H
#define MON_TRACE_H

#ifdef __cplusplus
extern "C" {
#endif

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
#define TRACE_MINOR 6

/* trace_info.trace_flags */
#define TRACE_F_COMPENSATED \
	(1u << 0) /* times compensated for the monitor's
					 own cost (mon_stage_compensate()) */
/* mkm merge: several nodes' traces on the reference node's clock, CPUs
 * and tids made unique per node (the NODES chunk, docs/cluster.md) */
#define TRACE_F_MERGED (1u << 1)

/* A recording's own threads (INFO's MONITOR_TIDS: at most 8), or a
 * merged trace's, every node's (MONITOR_TIDS_ALL, since 1.6) */
#define TRACE_MAX_MONITOR_TIDS 64

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
	/* The smallest step of the clock that stamped the records, in
	 * picoseconds (mon_clock_resolution_ps()); 0: not known (a trace
	 * before format 1.6), read as 1 ns. */
	uint32_t clock_res_ps;
	/* The recording's own threads (the drain, the writer...): the time
	 * they take a CPU from monitored threads is the monitor's cost too
	 * (mon_stage_compensate()). A merged trace's are every node's,
	 * mapped as its other tids. */
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

/*
 * mon_clock_resolution_ps - the smallest step of the monitor's clock on
 * this machine: the kernel's local_clock(), which stamps every record.
 * On arm64 it counts the architected timer (CNTVCT_EL0), whose rate
 * CNTFRQ_EL0 gives: 1 GHz from Armv8.6 on, 19.2 to 62.5 MHz before
 * (QEMU's virt machine: 62.5 MHz, 16 ns). On x86-64 it scales the TSC,
 * which ticks faster than the records' nanoseconds: 1 ns.
 *
 * Return: picoseconds, or 0 where this library does not know the clock.
 */
MON_API uint32_t mon_clock_resolution_ps(void);

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
/*
 * Trials the others showed disturbed (mon_calibrate.h) were set aside:
 * the statistics and `samples` are those of the trials kept.
 */
#define MON_COST_SET_ASIDE (1u << 7)
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
	TRACE_CHUNK_PAD = 11, /* since 1.4: zeros (direct I/O's alignment) */
	TRACE_CHUNK_BOUNDS = 12, /* since 1.5: compensated figures' bounds */
};

/*
 * How far each compensated figure of a thread may be from the truth
 * (mon_stage_compensate()'s bounds, the BOUNDS chunk that mkm replay
 * writes: docs/compensation.md, "Bounds"). Each figure has a bound per
 * part of what is uncertain; the truth lies within [figure - sum of the
 * parts' below_ns, figure + sum of their above_ns] (mon_bound_total()).
 */
enum trace_bound_figure {
	TRACE_BOUND_RUN, /* time on a CPU: RUN, RUN_USER, RUN_SYS, INTERRUPTED */
	TRACE_BOUND_RUNQ, /* runnable, waiting for a CPU */
	TRACE_BOUND_SLEEP, /* blocked */
	TRACE_BOUND_LIFE, /* from its first record to its last */
	TRACE_BOUND_START, /* the time of its first record */
	TRACE_BOUND_END, /* the time of its last record */
	TRACE_BOUND_FIGURES,
};

enum trace_bound_part {
	/* Every cost of the calibration at either end of its 99% interval
	 * (Student's t over its trials). */
	TRACE_BOUND_CALIBRATION,
	/* Scheduling decisions whose timing the monitor moved: the time at
	 * stake in them, a 99% bound. */
	TRACE_BOUND_SCHEDULING,
	/* Where the kernel ends a run and a wait against the switch
	 * tracepoint (docs/accuracy.md), as the SWITCH_INs' waits show it. */
	TRACE_BOUND_SPLIT,
	TRACE_BOUND_PARTS,
};

/* trace_bounds.flags: a part that could not be computed, said. */
/* Records were lost in the thread's life (a LOST record, or a gap in a
 * CPU's sequence numbers): their cost is not known. */
#define TRACE_BOUND_LOST (1u << 0)
/* Some ends of its runs had no measurable split (split_unknown): the
 * split part covers the others only. */
#define TRACE_BOUND_SPLIT_PARTIAL (1u << 1)
/* A figure charged to it has no interval of its own: a calibration
 * figure of fewer than 2 trials, or one estimated from another (the
 * interval is the other's). */
#define TRACE_BOUND_NO_INTERVAL (1u << 2)
/* No WAKEUP records: wakeups' scheduling decisions are not seen, and a
 * sleep's end is taken from the wait its SWITCH_IN records. */
#define TRACE_BOUND_NO_WAKEUPS (1u << 3)

struct trace_bound {
	uint64_t below_ns; /* the truth may be this much below the figure */
	uint64_t above_ns; /* ... or this much above it */
};

/* One thread's bounds (312 bytes on disk). */
struct trace_bounds {
	uint32_t tid;
	uint32_t flags; /* TRACE_BOUND_* */
	uint64_t split_ends; /* ends of its runs (switches in and out) */
	uint64_t split_unknown; /* of those, without a measurable split */
	struct trace_bound part[TRACE_BOUND_PARTS][TRACE_BOUND_FIGURES];
};

/* A BOUNDS chunk's header (16 bytes); nr_threads entries follow, at most: */
#define TRACE_MAX_BOUNDS (1u << 17)
struct trace_bounds_hdr {
	uint32_t version; /* 1 */
	uint32_t nr_threads;
	uint32_t nr_figures, nr_parts; /* TRACE_BOUND_FIGURES, _PARTS */
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
	const struct trace_bounds *bounds; /* BOUNDS (NULL: a newer layout) */
	size_t nr_bounds;
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
 * Write the file with O_DIRECT where its file system gives the alignment
 * (STATX_DIOALIGN: ext4, xfs, ... since Linux 6.1), else as usual: the
 * records are neither copied into the page cache nor cleared pages for,
 * which is most of a recorder's CPU. Each write is padded to the
 * alignment with a PAD chunk (at most a block a write); a batch of
 * records in memory aligned as statx says goes out from there.
 */
#define TRACE_WRITE_DIRECT (1u << 0)

/*
 * trace_writer_open_flags - trace_writer_open() with TRACE_WRITE_* @flags
 *
 * Return: as trace_writer_open(); -EINVAL for an unknown flag.
 */
MON_API int trace_writer_open_flags(struct trace_writer **wp, const char *path,
				    const struct trace_info *info,
				    unsigned int flags);

/* trace_writer_direct - is @w writing with O_DIRECT (still)? */
MON_API bool trace_writer_direct(const struct trace_writer *w);

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
 * trace_writer_bounds - write a BOUNDS chunk (mon_stage_compensate()'s
 * bounds, by thread)
 * @w: the writer
 * @b: @n entries (1 to TRACE_MAX_BOUNDS)
 *
 * Return: 0, or -EINVAL (@b NULL, @n out of range), as
 * trace_writer_events().
 */
MON_API int trace_writer_bounds(struct trace_writer *w,
				const struct trace_bounds *b, size_t n);

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

#endif /* MON_TRACE_H */
