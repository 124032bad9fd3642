/* SPDX-License-Identifier: GPL-2.0 */
/*
 * internal.h - what the exporters share: output written under a temporary
 * name (outfile.c), the threads' names and processes as the stream reveals
 * them (threads.c), and lost events found per CPU (lost.c).
 */
#ifndef MKM_EXPORT_INTERNAL_H
#define MKM_EXPORT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "export.h"
#include "mon_cluster.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct threads;

/*
 * export_sink_new - mon_sink_new() for an exporter (sink.c): @result, if
 * not NULL, is kept as struct export_result says (export.h); @threads,
 * the format's table of threads, learns the PROCESSES messages here, for
 * every format alike.
 */
int export_sink_new(struct mon_sink **skp, const struct mon_sink_ops *ops,
		    void *priv, struct threads *threads,
		    struct export_result *result);

/*
 * array_grow - make room in the array *@arrp (a pointer to the array's
 * pointer) of *@nr entries of @size bytes for entry @index; new entries
 * are zeroed and *@nr says how many there are now.
 *
 * Return: 0 or -ENOMEM (the array is left as it was).
 */
int array_grow(void *arrp, size_t *nr, size_t index, size_t size);

/*
 * An output file written as PATH.tmp and renamed to PATH by outfile_commit();
 * outfile_abort() (or a failed commit) unlinks the temporary.
 */
struct outfile {
	FILE *f;
	char *path;
	char *tmp;
};

/* Return: 0, -ENOMEM or the errno of fopen(3). */
int outfile_open(struct outfile *o, const char *path);
/* Return: 0 or -EIO (the stream's error; errno's when it has one). */
int outfile_write(struct outfile *o, const void *buf, size_t len);
/* Flush, close, rename. Return: 0 or -errno (the temporary is gone). */
int outfile_commit(struct outfile *o);
/* Close and unlink the temporary; a no-op after commit or on a zeroed one. */
void outfile_abort(struct outfile *o);

/*
 * An output folder, built as PATH.tmp/ and renamed to PATH; a previous
 * export at PATH (a folder of files only) is replaced.
 */
struct outdir {
	char *path;
	char *tmp;
};

int outdir_open(struct outdir *d, const char *path);
/* FILE of a new file @name in the folder (fopen(3)'s errno on NULL). */
FILE *outdir_create(struct outdir *d, const char *name);
/* A folder @name in the folder. Return: 0 or -errno (mkdir(2)'s). */
int outdir_mkdir(struct outdir *d, const char *name);
int outdir_commit(struct outdir *d);
void outdir_abort(struct outdir *d);

/*
 * The threads seen so far: names (from the THREADS message and the NAME
 * records) and thread groups, by the timeline's rule (libmonitor's
 * process.c): the FORK that made a thread (MKM_EVF_THREAD: its parent's
 * group, else one of its own), else the PROCESSES message (what the
 * recorder found at attach), else a group of its own. The table grows
 * with the threads, never with the events.
 */
struct thread_info {
	uint32_t tid;
	uint32_t tgid;
	bool tgid_known; /* said by a FORK or PROCESSES, not guessed */
	char comm[16]; /* NUL-terminated; "" until known */
	char half[8]; /* the first NAME record's bytes, until the second */
	bool named; /* set when comm changed: cleared by the caller */
	bool used; /* the exporter's own flag (e.g. a track emitted) */
	uint32_t index; /* the exporter's own number for it (0: none) */
};

struct threads {
	struct thread_info *slot;
	size_t nr, cap; /* open addressing, cap a power of two */
	uint32_t numbered; /* threads_number()'s last number */
};

/* The thread @tid, added (named "", its own group) if new; NULL: ENOMEM.
 * Pointers stay valid until the next threads_get() of a new tid. */
struct thread_info *threads_get(struct threads *t, uint32_t tid);
/* The exporter's number for @tid: 1, 2, ... in the order of the first
 * calls (Paraver's threads, OTF2's locations); 0 for tid 0 or ENOMEM. */
uint32_t threads_number(struct threads *t, uint32_t tid);
/* The numbered threads by number: a new array of t->numbered pointers,
 * [k - 1] for number k (free() it); NULL: ENOMEM (or none numbered). */
const struct thread_info **threads_by_number(const struct threads *t);
/* The thread @tid if seen, else NULL (nothing added). */
struct thread_info *threads_find(struct threads *t, uint32_t tid);
/* Learns from @e (NAME, FORK, EXEC); returns the thread whose name it
 * completed or changed, else NULL. -ENOMEM through @err. */
struct thread_info *threads_learn(struct threads *t, const struct mkm_event *e,
				  int *err);
/* Names from a THREADS message. Return: 0 or -ENOMEM. */
int threads_names(struct threads *t, const struct trace_thread *th, size_t n);
/* Thread groups from a PROCESSES message: each thread listed takes its
 * tgid unless a FORK said otherwise. Return: 0 or -ENOMEM. */
int threads_processes(struct threads *t, const struct trace_process *p,
		      size_t n);
/* The name of @tid: "swapper" for 0, "" if unknown. */
const char *threads_comm(struct threads *t, uint32_t tid);
void threads_free(struct threads *t);

/*
 * Events lost per CPU: the counts of LOST records and the holes in each
 * CPU's seq numbers (a LOST record announces the hole it precedes, so it
 * is not counted twice).
 */
struct lost {
	struct mon_seq_track *cpu;
	size_t nr_cpus;
	uint64_t total;
};

/* *@n: events lost on @e's CPU just before @e (a LOST record's own count
 * for it). Return: 0 or -ENOMEM. */
int lost_before(struct lost *l, const struct mkm_event *e, uint64_t *n);
void lost_free(struct lost *l);

/*
 * A merged trace's nodes (nodes.c), from its NODES messages; none
 * (hdr.nr_nodes 0) for a one-machine trace. Free with mon_nodes_free().
 */
/* Keeps @msg's nodes if it is a NODES message. Return: 0 or -ENOMEM. */
int nodes_keep(struct mon_nodes *n, const struct mon_msg *msg);
/* The position in n->node of @tid's or @cpu's node; -1: none (tid 0, a
 * one-machine trace). */
int nodes_pos_of_tid(const struct mon_nodes *n, uint32_t tid);
int nodes_pos_of_cpu(const struct mon_nodes *n, uint32_t cpu);
/* @tid as its own node numbers it (the merged tid without its prefix). */
uint32_t nodes_local_tid(const struct mon_nodes *n, uint32_t tid);

/*
 * The stream's microstates (states.c): the timeline builder, calling @cb
 * with each interval as it closes; states_finish() calls it with those
 * still open. Set cb and arg, the rest zeroed.
 */
struct states {
	struct tl *tl; /* created at the INFO message */
	tl_interval_cb cb;
	void *arg;
	uint32_t *number; /* timeline thread -> threads_number() */
	size_t nr_number;
};

/* INFO, EVENTS and HORIZON into the builder. Return: 0 or -errno. */
int states_consume(struct states *s, const struct mon_msg *msg);
/* threads_number() of the timeline's thread @th (0: -ENOMEM). */
uint32_t states_number(struct states *s, struct threads *t, size_t th);
/* The end: the builder flushed, the open intervals handed over. */
int states_finish(struct states *s);
void states_free(struct states *s);

/*
 * An EXEC record comes just before the NAME records that carry the new
 * comm: an exporter holds it back (one per CPU) until they have come, so
 * that its exec event names what was executed, and releases it before
 * anything else of that CPU (or a loss).
 */
struct held_exec {
	struct mkm_event e;
	bool held;
};

/* Whether @h must go out before @e (lost events before it: @lost). */
static inline bool exec_release_before(const struct held_exec *h,
				       const struct mkm_event *e, uint64_t lost)
{
	return h->held &&
	       (lost || e->type != MKM_EV_NAME || e->tid != h->e.tid);
}

/* Whether @e, just handled, completed the new name @h waited for. */
static inline bool exec_release_after(const struct held_exec *h,
				      const struct mkm_event *e)
{
	return h->held && e->type == MKM_EV_NAME && e->flags == 1 &&
	       e->tid == h->e.tid;
}

/*
 * A MKM_TS_* as Linux's sched_switch prints prev_state: the TASK_* bits
 * (0 running, 1 S, 2 D, 4 T, 8 t, 16 X, 32 Z, 64 P), as LTTng and
 * Perfetto read it.
 */
int64_t export_task_state(uint32_t mkm_ts);

/* The priority written where mkm records none: a nice-0 normal task's. */
#define EXPORT_PRIO 120

#endif /* MKM_EXPORT_INTERNAL_H */
