/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mon_cluster.h - jobs on many nodes (docs/cluster.md): each node records
 * its own trace on its own clock; clock exchanges relate every node's
 * clock to one reference node's (mon_clock_*), and the merge aligns the
 * nodes' records on the reference clock between those exchanges
 * (mon_align_*) and writes one trace with a node dimension (mon_merge()).
 *
 * Nothing here aligns on barriers or any other application event: the
 * skew at a barrier is what users measure, so the alignment comes from
 * the clocks alone, with its error bound.
 */
/* First, outside the guard, so that any of the library's headers may be
 * included first (libmonitor.h includes them all). */
#include "libmonitor.h"

#ifndef MON_CLUSTER_H
#define MON_CLUSTER_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Clock exchanges (mon_clock_)
 * ======================================================================
 *
 * Score-P's method: the node sends a request stamped t1 on its clock, the
 * reference stamps t2 when it receives it and t3 when it replies, the
 * node stamps t4 when the reply arrives. Causality alone bounds the
 * offset theta = reference clock - node clock:
 *
 *	t3 - t4 <= theta <= t2 - t1
 *
 * so the middle of that interval is the estimate and half its width,
 * ((t4 - t1) - (t3 - t2)) / 2, the error bound, whatever the network's
 * asymmetry. Of N round trips the shortest is kept (the tightest bound).
 * The messages are 32 bytes on any stream socket (TCP between nodes, a
 * socketpair in tests); no MPI, no PMI.
 */

/* Round trips per exchange when 0 is given. */
#define MON_CLOCK_ROUNDS 32

/* A clock read by the reference side: returns ns. NULL: CLOCK_MONOTONIC. */
typedef uint64_t (*mon_clock_fn)(void *arg);

/*
 * mon_clock_serve - answer clock requests on @fd, as the reference, until
 * the node closes its end (or sends an end message)
 * @fd: a connected stream socket
 * @clock: the reference's clock (NULL: CLOCK_MONOTONIC); tests give a
 *         clock with a known offset and drift
 * @arg: handed to @clock
 *
 * Return: the number of requests answered (>= 0), or -EPROTO (a message
 * that is not a clock request), or an errno of read(2)/write(2).
 */
MON_API long mon_clock_serve(int fd, mon_clock_fn clock, void *arg);

/*
 * mon_clock_exchange - measure this node's clock against the reference
 * answering on @fd: @rounds round trips, the shortest kept
 * @fd: a connected stream socket, the reference in mon_clock_serve()
 * @rounds: round trips (0: MON_CLOCK_ROUNDS; at most 65536)
 * @kind: TRACE_CLOCK_START, _END or _PERIODIC, stored in @out
 * @clock: this node's clock (NULL: CLOCK_MONOTONIC, the traces' clock)
 * @arg: handed to @clock
 * @out: the sample: local_ns (the middle of the kept round trip),
 *       offset_ns, rtt_ns, error_ns (half the round trip, rounded up, plus
 *       1 ns for the clocks' resolution), taken_real_ns, kind, rounds and
 *       the kernel's NTP state (mon_clock_ntp_state())
 *
 * Return: 0, or -EINVAL, -EPROTO (a reply that does not answer the
 * request: a peer that is not mon_clock_serve(), or one answering out of
 * order), -ECONNRESET (the reference closed), or an errno of
 * read(2)/write(2).
 */
MON_API int mon_clock_exchange(int fd, unsigned int rounds, uint32_t kind,
			       mon_clock_fn clock, void *arg,
			       struct trace_clock_sample *out);

/*
 * mon_clock_end - tell the reference on @fd that no exchange follows
 * (mon_clock_serve() then returns)
 *
 * Return: 0, or an errno of write(2).
 */
MON_API int mon_clock_end(int fd);

/*
 * mon_clock_ntp_state - the kernel's view of its clock discipline, read
 * with adjtimex(2) (no privilege needed to read): fills the ntp_* fields
 * and the TRACE_CLOCK_NTP_* flags of @s
 *
 * Return: 0, or the errno of adjtimex(2) (the fields are then left 0).
 */
MON_API int mon_clock_ntp_state(struct trace_clock_sample *s);

/*
 * mon_clock_listen - a TCP socket listening on @port of every address
 * (0: a port the kernel picks; *@port says which)
 * mon_clock_connect - a TCP connection to @host:@port (retried for
 * @timeout_ms while refused: the reference may start later)
 *
 * Return: a file descriptor, or -errno (-EINVAL, getaddrinfo(3)'s failure
 * as -EHOSTUNREACH, -ETIMEDOUT, socket(2)'s, bind(2)'s...).
 */
MON_API int mon_clock_listen(uint16_t *port);
MON_API int mon_clock_connect(const char *host, uint16_t port,
			      unsigned int timeout_ms);

/*
 * mon_stage_clock_sync - a stage that puts clock exchanges into a
 * recording's stream, as CLOCK_SYNC messages, as they are taken (a node's
 * recorder: its trace sink writes each at once, so a node that dies keeps
 * those taken before)
 * @stp: out
 * @node: this node's name, @reference the reference's (NUL-terminated,
 *        at most 63 bytes each)
 *
 * Samples given with mon_stage_clock_sync_add() (from any thread) leave
 * before the next message that passes the stage, or at the end of the
 * stream.
 *
 * Return: 0, -EINVAL (a name missing or too long), -ENOMEM.
 */
MON_API int mon_stage_clock_sync(struct mon_stage **stp, const char *node,
				 const char *reference);

/*
 * mon_stage_clock_sync_add - hand the stage @st one exchange (copied)
 *
 * Return: 0, -EINVAL (not such a stage), -ENOMEM.
 */
MON_API int mon_stage_clock_sync_add(struct mon_stage *st,
				     const struct trace_clock_sample *s);

/*
 * mon_node_path - a node's trace path from a template, as srun --mkm's
 * --mkm-output takes it: %j the job id, %s the step id, %N the node's
 * name, %n its index in the step, %% a %
 * @buf, @len: out
 *
 * Return: 0, -EINVAL (an unknown %-sequence, a node name with a '/', or
 * NULL), -ENAMETOOLONG (it does not fit in @len).
 */
MON_API int mon_node_path(char *buf, size_t len, const char *tmpl,
			  uint32_t job_id, uint32_t step_id, const char *node,
			  uint32_t node_id);

/* ======================================================================
 * Alignment (mon_align_)
 * ======================================================================
 *
 * A node's clock is mapped onto the reference's piecewise linearly: the
 * offset is interpolated between consecutive exchanges and extrapolated
 * beyond the first and last. The bound at a time between two exchanges
 * is the interpolation of their bounds (exact if the offset changed
 * linearly between them: constant drift); beyond them it grows with the
 * line's own uncertainty.
 *
 * A clock step (an offset that changes faster than any oscillator drifts,
 * MON_ALIGN_MAX_DRIFT_PPB, beyond what the two bounds allow; or a sample
 * flagged TRACE_CLOCK_STEPPED; or a clock that went back) is never
 * interpolated across: the exchanges are split into epochs at it, and
 * each record is mapped with its own epoch's line. Which records come
 * after the step is read from each CPU's records, which are in true
 * order: the step shows as time going back (a backward step) or as a gap
 * of the step's size (a forward one) in every CPU busy at the time
 * (mon_align_observe()). A CPU that shows neither is split at the time
 * the others give; its records in between are counted ambiguous.
 */

/* The fastest two oscillators drift apart: the kernel corrects a clock's
 * frequency by at most 500 ppm (MAXFREQ), and two such clocks can be
 * 1000 ppm apart. A faster change of the offset is a step. */
#define MON_ALIGN_MAX_DRIFT_PPB 1000000

struct mon_align;

/*
 * mon_align_new - an alignment from a node's clock exchanges, in the
 * order they were taken (the file's order: a clock that stepped back has
 * no other)
 * @ap: out
 * @s: @n samples (copied)
 * @n: at least 1
 *
 * Return: 0, -EINVAL (@n 0, a sample with no error bound: error_ns 0
 * while offset_ns or rtt_ns is not, i.e. not a measured sample), -ENOMEM.
 */
MON_API int mon_align_new(struct mon_align **ap,
			  const struct trace_clock_sample *s, size_t n);

/* mon_align_identity - the reference's own alignment: no change, no
 * error. Return: 0 or -ENOMEM. */
MON_API int mon_align_identity(struct mon_align **ap);

/* mon_align_steps - the clock steps found between exchanges. */
MON_API size_t mon_align_steps(const struct mon_align *a);

/*
 * mon_align_observe - show the node's records to the alignment, each
 * CPU's in its order (as a trace holds them), so that it can find where
 * each step falls on each CPU. Needed only when mon_align_steps() > 0,
 * before the first mon_align_event().
 *
 * Return: 0, -EINVAL, -ENOMEM.
 */
MON_API int mon_align_observe(struct mon_align *a, const struct mkm_event *ev,
			      size_t n);

/*
 * mon_align_event - @ev's time on the reference clock. Call it on the
 * node's records in each CPU's order (it follows each CPU across steps,
 * and keeps each CPU's times from going back: a record that would is
 * stamped with its CPU's previous time and counted ambiguous).
 * @err: out (may be NULL): the bound on the result's error
 *
 * Return: the time (0 for a record stamped 0: a LOST record with nothing
 * before it).
 */
MON_API uint64_t mon_align_event(struct mon_align *a,
				 const struct mkm_event *ev, uint64_t *err);

/*
 * mon_align_horizon - a node's HORIZON @h on the reference clock: no
 * record the node gives after it maps below the result.
 */
MON_API uint64_t mon_align_horizon(const struct mon_align *a, uint64_t h);

/*
 * mon_align_time - node time @t of epoch @epoch (0 before the first step)
 * on the reference clock; @err as mon_align_event(). An epoch past the
 * last is the last.
 */
MON_API uint64_t mon_align_time(const struct mon_align *a, uint64_t t,
				size_t epoch, uint64_t *err);

/* What an alignment did over a node's run. */
struct mon_align_summary {
	int64_t offset_ns; /* reference - node clock at the first record */
	int64_t drift_ppb; /* the offset's growth over the run (steps left
			      out), in ppb: ns per s */
	uint64_t max_error_ns; /* the largest bound over the run */
	size_t samples, steps;
	int64_t largest_step_ns; /* the node clock's jump (+: forward) */
	uint64_t ambiguous; /* records placed on a side of a step by their
			       time alone, or held back not to go back */
	bool no_drift; /* one sample: the offset is known, not the drift */
};

/*
 * mon_align_summarize - @a over the node's run, from node time @first to
 * @last (its first and last records)
 *
 * Return: 0 or -EINVAL.
 */
MON_API int mon_align_summarize(const struct mon_align *a, uint64_t first,
				uint64_t last, struct mon_align_summary *out);

/* What mon_align_check() found. */
struct mon_align_check {
	size_t exchanges; /* checked (the reference's own are not) */
	size_t messages; /* two per exchange: the request and the reply */
	size_t violations; /* received before they were sent, merged */
	int64_t min_margin_ns; /* the smallest receive - send, merged (0 if
				  no message) */
	uint64_t min_error_ns, max_error_ns; /* the exchanges' bounds */
};

/*
 * mon_align_check - the causality check of a merge: put each exchange's
 * two messages on the reference clock with @a (the request sent at t1 on
 * the node's clock and received at t2 on the reference's; the reply sent
 * at t3 and received at t4) and count those received before they were
 * sent. A right alignment has none: the true offset lies in
 * [t3 - t4, t2 - t1], so a mapping off by more than the half round trip
 * on either side shows here.
 * @a: the node's alignment
 * @s: @n exchanges of the node, in the order taken; each is checked on
 *     the epoch of @a's sample at the same index when @n is @a's count
 *     (its own exchanges), else on the epoch its local time falls in
 * @out: filled
 *
 * The stored exchange keeps the middle of the round trip kept, its
 * length without the reference's own time, and the offset; t1 and t4 are
 * taken as that middle -+ half the round trip, t2 = t3 as the middle
 * plus the offset: the reference's own time between receiving and
 * replying (microseconds) moves them alike on both sides, by at most the
 * drift times that time on the margins. An exchange whose round trip is
 * longer than its clock's age (a damaged trace) is two violations, by
 * half that round trip.
 *
 * Return: 0 or -EINVAL (@a or @out NULL, or @s NULL with @n).
 */
MON_API int mon_align_check(const struct mon_align *a,
			    const struct trace_clock_sample *s, size_t n,
			    struct mon_align_check *out);

/* mon_align_destroy - free @a; NULL is a no-op. */
MON_API void mon_align_destroy(struct mon_align *a);

/* A merged trace's nodes (its NODES chunk). */
struct mon_nodes {
	struct trace_nodes_hdr hdr;
	struct trace_node *node; /* hdr.nr_nodes of them, by index */
};

/*
 * mon_nodes_load - the nodes of a merged trace (mkm merge's): its last
 * NODES chunk, which supersedes the earlier ones
 * @out: filled; free with mon_nodes_free()
 * @path: the trace
 *
 * Return: 0, -ENOENT (not a merged trace: no NODES chunk), -ENOMEM, or as
 * trace_reader_open() and trace_reader_next() (damage before the end:
 * the NODES read before it are returned if there are any).
 */
MON_API int mon_nodes_load(struct mon_nodes *out, const char *path);

/* mon_nodes_of_cpu, mon_nodes_of_tid - the node of a merged trace's CPU
 * or (non-zero) tid; NULL if none. */
MON_API const struct trace_node *mon_nodes_of_cpu(const struct mon_nodes *n,
						  uint32_t cpu);
MON_API const struct trace_node *mon_nodes_of_tid(const struct mon_nodes *n,
						  uint32_t tid);

/* mon_nodes_free - free what @n holds (not @n); NULL is a no-op. */
MON_API void mon_nodes_free(struct mon_nodes *n);

/* ======================================================================
 * Merging a job's node traces (mon_merge)
 * ======================================================================
 */

/* What mon_merge() found in one input. */
struct mon_merge_input {
	const char *path;
	char node[65]; /* its node's name ("" if it gave none) */
	uint32_t job_id, step_id, node_id, nr_nodes;
	bool merged; /* in the output */
	bool reference; /* the output's clock */
	int err; /* 0, or why it is not merged or merged only in part */
	char msg[512]; /* one line for the user when err != 0 (or a
			  warning when merged in part) */
	uint64_t events; /* records merged */
	uint32_t index; /* its index in the output's NODES (if merged) */
	struct mon_align_summary align;
	struct mon_align_check check; /* its exchanges on the merged clock */
};

struct mon_merge_opts {
	bool job_given; /* merge this job and step only; else the one most
			   inputs give */
	uint32_t job_id, step_id;
};

struct mon_merge_result {
	struct mon_merge_input *inputs; /* one per path, in their order */
	size_t nr_inputs;
	size_t nr_merged;
	uint32_t job_id, step_id; /* merged */
	uint32_t nr_nodes; /* the step's nodes, as the traces say (0: ?) */
	/* Node ids of the step with no trace among the inputs (e.g. a node
	 * whose recorder failed): nr_missing of them, at most 64 listed. */
	uint32_t missing[64];
	size_t nr_missing;
	char reference[65];
	uint64_t events;
	/* The causality check over the merged nodes (mon_align_check()):
	 * exchange messages checked, and those received before they were
	 * sent on the merged clock (0 when the alignment is right). */
	size_t messages, violations;
};

/*
 * mon_merge - merge node traces of one job step into one trace on the
 * reference node's clock, with a node dimension (docs/cluster.md)
 * @paths: @n node traces (1 to TRACE_MAX_NODES)
 * @out: the merged trace (written only if at least one node merges)
 * @opts: NULL for the defaults
 * @res: out: what happened to each input; free with mon_merge_free()
 *
 * An input that cannot be merged (not a trace, not a node's trace, of
 * another job, a node given twice, no clock exchange and not the
 * reference) is left out with its reason in res->inputs[i].msg; a trace
 * cut short or damaged is merged up to where it is readable, the reason
 * given too. Node ids of the step that no input gives are listed in
 * res->missing. Everything else is merged.
 *
 * Each merged node's clock exchanges are then checked on the merged
 * clock (mon_align_check(), res->inputs[i].check, and the totals in
 * res->messages and res->violations).
 *
 * Return: 0 (every input merged, no node missing, no causality
 * violation), 1 (merged, but some inputs left out, cut, nodes missing,
 * or exchange messages received before they were sent: res says which),
 * or -errno:
 * -ENOENT (no input could be merged: nothing written), -EINVAL, -ENOMEM,
 * or an error writing @out.
 */
MON_API int mon_merge(const char *const *paths, size_t n, const char *out,
		      const struct mon_merge_opts *opts,
		      struct mon_merge_result *res);

/* mon_merge_free - free what mon_merge() put in @res. */
MON_API void mon_merge_free(struct mon_merge_result *res);

#ifdef __cplusplus
}
#endif

#endif /* MON_CLUSTER_H */
