/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * timeline/timeline.h - the timeline builder's insides, shared by its parts
 * and by acct.c; nothing here is exported:
 *
 *   timeline.c   the object: create, destroy, queries
 *   threads.c    the thread table and its tid map
 *   intervals.c  where each thread's intervals are stored
 *   states.c     the state machine: one record in, state transitions out
 *   merge.c      per-CPU reorder queues merged in time order
 *   arrays.c     the lists of handler runs, wakes, marks and flutters
 *   process.c    the threads' processes (thread groups)
 */
#ifndef MON_TIMELINE_INTERNAL_H
#define MON_TIMELINE_INTERNAL_H

#include <errno.h>
#include <string.h>

#include "internal.h"

#define TL_MAX_CPUS 8192u /* Linux x86 NR_CPUS at most (MAXSMP) */
#define NO_THREAD ((int64_t)-1)
/* Up to this many CPUs with records: the merge's branch-free path. */
#define TL_MERGE_SMALL 8

/* A thread's intervals are kept in blocks of this many, never moved. */
#define TL_BLOCK_SHIFT 9
#define TL_BLOCK_LEN (1u << TL_BLOCK_SHIFT)

/*
 * One stored interval: its end is the next one's start. Packed to 12 bytes
 * (4-byte aligned): the store is most of a timeline's memory, and x86-64
 * and arm64 load a misaligned start at full speed.
 */
struct __attribute__((packed, aligned(4))) tl_iv {
	uint64_t start;
	uint16_t cpu;
	uint8_t state;
	uint8_t reserved;
};

_Static_assert(sizeof(struct tl_iv) == 12, "tl_iv is 12 bytes");

struct tl_th {
	uint32_t tid;
	uint32_t unique_id;
	int64_t index; /* its place in tl->th: t - tl->th costs a division */
	int64_t parent;
	uint64_t first; /* start of the first interval */
	uint64_t end; /* when ended */
	uint8_t state; /* of the open interval */
	uint8_t ended; /* enum tl_end */
	uint8_t irq_depth;
	/*
	 * Its state on a CPU out of interrupts: TL_RUN_SYS or TL_RUN_USER as
	 * the last syscall record said (when the stream has them), TL_RUN
	 * before one or after a gap. Kept, not worked out, at each record.
	 */
	uint8_t run;
	uint8_t anonymous; /* made by a SWITCH: unique_id not known yet */
	uint8_t window_born; /* TL_WINDOW: begun at its CPU's window start */
	uint16_t ivcpu; /* cpu of the open interval */
	uint16_t cpu; /* last known cpu */
	uint32_t sysnr;
	uint32_t exited;
	size_t nr_iv;
	size_t cap_iv; /* entries allocated over all blocks */
	struct tl_iv *last; /* the open (last) interval, NULL if none */
	struct tl_iv *slot_end; /* the end of last's block, NULL if none */
	uint64_t since; /* last->start, kept here: no load from the blocks */
	struct tl_iv **blocks;
	size_t nr_blocks;
	size_t cap_blocks;
	uint64_t switches;
	uint64_t flutters;
	uint64_t anomalies;
	int32_t idle_cpu; /* the CPU whose idle task this is, or -1 */
	uint32_t tgid; /* its process's id */
	uint32_t process; /* index in tl->procs */
	uint8_t tgid_known; /* said by a FORK or PROCESSES, not guessed */
	char name[16];
};

/* A process (thread group): see process.c. */
struct tl_proc {
	uint32_t tgid;
	uint32_t prev; /* the process this tgid named before, or UINT32_MAX */
	uint32_t nr_threads, nr_live;
	int64_t first; /* its first thread, or NO_THREAD */
};

/* An interrupt handler running on a CPU, until its exit is seen. */
struct tl_irq_open {
	uint64_t start;
	int64_t thread; /* the thread it interrupted, or NO_THREAD */
	uint32_t number;
	uint8_t kind; /* enum tl_irq_kind */
};

/* Nesting deeper than this (hard IRQ in softirq in ...) is not kept. */
#define TL_IRQ_DEPTH 8

struct tl_cpu {
	struct mkm_event *q; /* reorder queue [head, tail) */
	size_t head, tail, cap;
	uint64_t last_time; /* of the last record fed */
	struct mon_seq_track seq; /* holes become LOST records */
	bool seen;
	int64_t cur; /* monitored thread running here, or -1 */
	int64_t out; /* thread switched out to idle here, or -1 (flutter) */
	uint32_t cache_tid; /* last thread looked up here, 0: none */
	struct tl_th *cache_t; /* its entry; NULL when none */
	uint64_t events, lost, switches, flutters;
	uint64_t first_time, last_done;
	int64_t idle; /* this CPU's idle thread (TL_IDLE), or -1 */
	struct tl_irq_open
		irq[TL_IRQ_DEPTH]; /* handlers running, innermost last */
	unsigned int nr_irq;
};

/* A CPU's queue while merging. */
struct tl_src {
	uint64_t t; /* p->time_ns, kept here for a cache-friendly scan */
	const struct mkm_event *p; /* head; the queue ends at a sentinel */
	struct tl_cpu *cpu;
};

/*
 * Full-size interval blocks are carved from chunks of 64 KiB, doubling
 * up to TL_CHUNK_MAX (a huge page).
 */
#define TL_CHUNK_MIN (64u << 10)
#define TL_CHUNK_MAX (2u << 20)

struct tl_chunk {
	struct tl_chunk *next;
	size_t size;
	size_t used; /* bytes carved, this header's line included */
};

struct tl {
	struct tl_config cfg;
	bool syscalls; /* the stream has syscall events */
	struct tl_cpu *cpus;
	unsigned int nr_cpus; /* allocated entries */
	unsigned int max_cpu; /* 1 + highest cpu seen or configured */
	unsigned int *seen; /* ids of the CPUs seen, in order of appearance */
	struct tl_src *src; /* merge scratch, one per CPU */
	unsigned int nr_seen;
	unsigned int cfg_seen; /* of those, below cfg.nr_cpus */
	struct tl_th *th;
	size_t nr_th, cap_th;
	struct tl_proc *procs;
	size_t nr_procs, cap_procs;
	struct mon_u32map proc_map; /* tgid -> its latest process */
	struct mon_u32map hints; /* tid -> tgid, from PROCESSES */
	struct mon_u32map name_map; /* tid -> its entry in names */
	struct trace_thread *names; /* from THREADS: see tl_threads_known() */
	size_t nr_names, cap_names;
	struct tl_chunk *chunks; /* the current one first */
	size_t chunk_bytes; /* all chunks */
	uint32_t *map_key; /* tid -> index of its latest thread (open hash) */
	int64_t *map_val;
	size_t map_cap, map_used;
	struct tl_mark *marks;
	size_t nr_marks, cap_marks;
	struct tl_flutter *flutters;
	size_t nr_flutters, cap_flutters;
	struct tl_wake *wakes;
	size_t nr_wakes, cap_wakes;
	struct tl_irq *irqs; /* handlers run, in order of their exits */
	size_t nr_irqs, cap_irqs;
	bool idle; /* TL_IDLE: tid 0 of IRQ records is the CPU's idle task */
	bool window; /* TL_WINDOW: threads lived before the stream */
	uint64_t horizon;
	uint64_t now;
	size_t nr_anonymous; /* threads a SWITCH made, unique_id not known */
	size_t pending;
	struct tl_stats stats; /* intervals: see tl_stats() */
	uint64_t iv_reused; /* TL_STREAMING: intervals whose slot was reused */
	tl_interval_cb cb;
	void *cb_arg;
	bool streaming; /* TL_STREAMING: one stored interval a thread */
};

static inline struct tl_iv *tl_iv_at(const struct tl_th *t, size_t i)
{
	return &t->blocks[i >> TL_BLOCK_SHIFT][i & (TL_BLOCK_LEN - 1)];
}

/* The end of interval i of thread t. */
MON_HIDDEN uint64_t tl_iv_end(const struct tl *tl, const struct tl_th *t,
			      size_t i);
/* Hand a closed interval of thread th to the callback. */
MON_HIDDEN void tl_iv_report(struct tl *tl, size_t th, const struct tl_iv *iv,
			     uint64_t end);
/* iv_append's rare path: a new block; NULL when out of memory. */
MON_HIDDEN struct tl_iv *tl_iv_slot_slow(struct tl *tl, struct tl_th *t);

/* Append an interval (start, state, cpu) to t. Inlined: the hot path. */
static inline __attribute__((always_inline)) int
tl_iv_append(struct tl *tl, struct tl_th *t, uint64_t start, unsigned int state,
	     unsigned int cpu)
{
	/* As integers: last is NULL before the first interval. */
	uintptr_t next = (uintptr_t)t->last + sizeof(struct tl_iv);
	struct tl_iv *iv;

	/* Within a block, the next slot follows the open interval. */
	if (likely(next < (uintptr_t)t->slot_end)) {
		iv = (struct tl_iv *)next;
	} else {
		iv = tl_iv_slot_slow(tl, t);
		if (!iv)
			return -ENOMEM;
	}
	iv->start = start;
	iv->cpu = (uint16_t)cpu;
	iv->state = (uint8_t)state;
	iv->reserved = 0;
	t->last = iv;
	/*
	 * Each thread writes its own stream of slots, too many streams for
	 * the hardware prefetcher: ask for the next line before it is due.
	 * A prefetch past the block's end is harmless.
	 */
	__builtin_prefetch(iv + 8, 1);
	t->since = start;
	t->nr_iv++; /* tl_stats() adds them up: no count of all here */
	return 0;
}

/*
 * A list's room doubled (*cap entries of size bytes at *arr, 16 at first):
 * *arr, or NULL when out of memory (the list is kept). Free it with
 * tl_array_free(): a large one is a mapping of its own.
 */
MON_HIDDEN void *tl_array_grow(void **arr, size_t *cap, size_t size);
MON_HIDDEN void tl_array_free(void *arr, size_t cap, size_t size);

/* Room for CPUs [0, n). */
MON_HIDDEN int tl_cpus_grow(struct tl *tl, unsigned int n);

/* The tid map's home slot for tid (cap is a power of two). */
static inline size_t tl_map_slot(uint32_t tid, size_t cap)
{
	return (size_t)((tid * 0x9E3779B1u) & (cap - 1));
}

/*
 * The latest thread with this tid (live or ended), or NO_THREAD. Inlined
 * (threads.c owns the map): a record whose thread is not its CPU's last
 * one, a wakeup's most often, looks its tid up here.
 */
static inline int64_t tl_map_get(const struct tl *tl, uint32_t tid)
{
	size_t s;

	if (!tl->map_cap || !tid)
		return NO_THREAD;
	s = tl_map_slot(tid, tl->map_cap);
	while (tl->map_key[s]) {
		if (tl->map_key[s] == tid)
			return tl->map_val[s];
		s = (s + 1) & (tl->map_cap - 1);
	}
	return NO_THREAD;
}

MON_HIDDEN int tl_map_set(struct tl *tl, uint32_t tid, int64_t th);

/* Forget cpu's cached lookup. */
static inline void tl_cache_forget(struct tl_cpu *cpu)
{
	cpu->cache_tid = 0;
	cpu->cache_t = NULL;
}

/*
 * A tid's live thread changed (an end, an exec), or the thread table
 * moved: every CPU's cached lookup is forgotten here, so that the lookup,
 * once per record, only compares the tid and takes the entry.
 */
static inline void tl_forget_cached(struct tl *tl)
{
	unsigned int k;

	for (k = 0; k < tl->nr_seen; k++)
		tl_cache_forget(&tl->cpus[tl->seen[k]]);
}

/* The live thread with this tid, or NO_THREAD. */
static inline int64_t tl_thread_lookup(const struct tl *tl, uint32_t tid)
{
	int64_t i = tl_map_get(tl, tid);

	if (i == NO_THREAD || tl->th[i].tid != tid || tl->th[i].ended)
		return NO_THREAD;
	return i;
}
/* A new timeline for tid, UNKNOWN from now: its index, or -ENOMEM. */
MON_HIDDEN int64_t tl_thread_new(struct tl *tl, uint32_t tid,
				 uint32_t unique_id, uint64_t now,
				 unsigned int cpu);
/* The idle thread of CPU cpu, made at first use: its index, or -ENOMEM. */
MON_HIDDEN int64_t tl_idle_get(struct tl *tl, unsigned int cpu, uint64_t now);
MON_HIDDEN void tl_thread_end(struct tl *tl, struct tl_th *t, uint64_t now,
			      enum tl_end how);

/* Thread t's name (16 bytes): its NAME records' or a THREADS chunk's. */
MON_HIDDEN void tl_th_name(const struct tl *tl, const struct tl_th *t,
			   char out[16]);

/* Put a new thread in its process (a PROCESSES hint, else its own). */
MON_HIDDEN int tl_process_new_thread(struct tl *tl, size_t th);
MON_HIDDEN void tl_process_thread_ended(struct tl *tl, size_t th);
/* A FORK made child: its process by tl_fork_tgid(). */
MON_HIDDEN void tl_process_forked(struct tl *tl, size_t child, size_t parent,
				  const struct mkm_event *fork);

/* Process one record, in merged time order. */
MON_HIDDEN void tl_apply(struct tl *tl, const struct mkm_event *ev);
/*
 * Process the records of width (4 or TL_MERGE_SMALL) queue heads in time
 * order, up to time lim; unused heads have t == UINT64_MAX.
 */
MON_HIDDEN void tl_apply_earliest(struct tl *tl, struct tl_src *src,
				  unsigned int width, uint64_t lim);

#endif /* MON_TIMELINE_INTERNAL_H */
