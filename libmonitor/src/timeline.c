// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * timeline.c - the timeline builder: per-CPU reorder queues merged in time
 * order, and a per-thread state machine that turns scheduler events into
 * gap-free microstate intervals.
 *
 * Merging. Each CPU's records arrive in order, CPUs interleave arbitrarily,
 * so a record may only be processed once no CPU can still deliver an
 * earlier one. The watermark W is the minimum over the counted CPUs (all
 * configured ones, or those seen so far) of max(last time fed on that CPU,
 * the horizon given to tl_advance()); records with time < W are processed,
 * the rest wait in the CPU's queue (copied there in runs: a read returns
 * each CPU's records together). The merge picks the earliest head record by
 * record with conditional moves when few CPUs have records (their records
 * interleave finely, and a branch would mispredict), else it takes runs up
 * to the next CPU's head. Each queue ends in a sentinel record stamped
 * UINT64_MAX, so reading a head needs no bounds check.
 *
 * Lost events. A MKM_EV_LOST record, or a jump in a CPU's seq numbers
 * (synthesised into a LOST record at feed time), opens a gap at the time of
 * the last record before it. The lost records may have been any thread's
 * switch or wakeup, so every thread becomes UNKNOWN there, except threads
 * running on another CPU (that CPU's stream shows them still running) and
 * zombies; each one's next state-fixing event ends its UNKNOWN interval.
 *
 * Intervals. A thread's intervals live in blocks of TL_BLOCK_LEN 16-byte
 * entries holding only the start, the state and the CPU: the end is the
 * next start (or the thread's end, or the time processed so far for the
 * open one). Block 0 grows by doubling (most threads have few intervals);
 * later blocks are carved from large chunks and never move. A transition
 * at the very instant the open interval began rewrites that interval
 * instead of leaving one of zero length.
 *
 * Hot path. Records of the thread that last had one on the same CPU skip
 * the tid map (a per-CPU cache, invalidated by a generation count when a
 * timeline ends or changes tid); the open interval's start and slot are
 * kept in the thread, so a transition touches the thread and one 16-byte
 * slot.
 *
 * Flutter (MKM 3.2): a thread switched out to the idle task and switched
 * back in from the idle task on the same CPU with no monitored thread in
 * between. The kernel's sched_switch does not fire when the scheduler
 * picks the same task again, so only idle can be "nothing run between".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "internal.h"

#define TL_MAX_CPUS 8192u /* Linux x86 NR_CPUS at most (MAXSMP) */
#define NO_THREAD ((int64_t)-1)
#define CPU_NONE 0xffffffffu
/* Up to this many CPUs with records: the merge's branch-free path. */
#define MERGE_SMALL 8

static const char *const tl_state_names[TL_NR_STATES] = {
	[TL_UNKNOWN] = "UNKNOWN",
	[TL_RUN] = "RUN",
	[TL_RUN_USER] = "RUN_USER",
	[TL_RUN_SYS] = "RUN_SYS",
	[TL_TRAP] = "TRAP",
	[TL_INTERRUPTED] = "INTERRUPTED",
	[TL_RUNQ] = "RUNQ",
	[TL_SLEEP] = "SLEEP",
	[TL_FUTEX_SLEEP] = "FUTEX_SLEEP",
	[TL_POLL_SLEEP] = "POLL_SLEEP",
	[TL_DISK] = "DISK",
	[TL_PAGING_SLEEP] = "PAGING_SLEEP",
	[TL_STOPPED] = "STOPPED",
	[TL_ZOMBIE] = "ZOMBIE",
};

const char *tl_state_name(unsigned int state)
{
	return state < TL_NR_STATES ? tl_state_names[state] : "?";
}

static bool state_on_cpu(unsigned int s)
{
	return s == TL_RUN || s == TL_RUN_USER || s == TL_RUN_SYS ||
	       s == TL_TRAP || s == TL_INTERRUPTED;
}

/* ---- creation ---------------------------------------------------------- */

static int cpus_grow(struct tl *tl, unsigned int n)
{
	struct tl_cpu *c;
	unsigned int i, cap;

	if (n <= tl->nr_cpus)
		return 0;
	if (n > TL_MAX_CPUS)
		return -EINVAL;
	cap = tl->nr_cpus ? tl->nr_cpus : 4;
	while (cap < n)
		cap *= 2;
	if (cap > TL_MAX_CPUS)
		cap = TL_MAX_CPUS;
	{
		unsigned int *seen = realloc(tl->seen, cap * sizeof(*seen));
		struct tl_src *src;

		if (!seen)
			return -ENOMEM;
		tl->seen = seen;
		src = realloc(tl->src, (cap > MERGE_SMALL ? cap : MERGE_SMALL) *
					       sizeof(*src));
		if (!src)
			return -ENOMEM;
		tl->src = src;
	}
	c = realloc(tl->cpus, (size_t)cap * sizeof(*c));
	if (!c)
		return -ENOMEM;
	memset(c + tl->nr_cpus, 0, (size_t)(cap - tl->nr_cpus) * sizeof(*c));
	for (i = tl->nr_cpus; i < cap; i++) {
		c[i].cur = NO_THREAD;
		c[i].out = NO_THREAD;
		c[i].cache_th = NO_THREAD;
	}
	tl->cpus = c;
	tl->nr_cpus = cap;
	return 0;
}

int tl_create(struct tl **tlp, const struct tl_config *cfg)
{
	struct tl_config def = { 0 };
	struct tl *tl;
	int err;

	if (!tlp)
		return -EINVAL;
	*tlp = NULL;
	if (!cfg)
		cfg = &def;
	if (cfg->flags || (cfg->classes & ~MKM_CLASS_ALL) ||
	    cfg->nr_cpus > TL_MAX_CPUS)
		return -EINVAL;
	tl = calloc(1, sizeof(*tl));
	if (!tl)
		return -ENOMEM;
	tl->cfg = *cfg;
	if (!tl->cfg.classes)
		tl->cfg.classes = MKM_CLASS_DEFAULT;
	tl->syscalls = tl->cfg.classes & MKM_CLASS_SYSCALL;
	err = cpus_grow(tl, cfg->nr_cpus ? cfg->nr_cpus : 1);
	if (err) {
		free(tl);
		return err;
	}
	tl->max_cpu = cfg->nr_cpus;
	*tlp = tl;
	return 0;
}

void tl_destroy(struct tl *tl)
{
	size_t i;

	if (!tl)
		return;
	for (i = 0; i < tl->nr_cpus; i++)
		free(tl->cpus[i].q);
	for (i = 0; i < tl->nr_th; i++) {
		/* Block 0 is malloc'd; the others live in chunks. */
		if (tl->th[i].nr_blocks)
			free(tl->th[i].blocks[0]);
		free(tl->th[i].blocks);
	}
	while (tl->chunks) {
		struct tl_chunk *c = tl->chunks;

		tl->chunks = c->next;
		free(c);
	}
	free(tl->cpus);
	free(tl->seen);
	free(tl->src);
	free(tl->th);
	free(tl->map_key);
	free(tl->map_val);
	free(tl->marks);
	free(tl);
}

int tl_set_callback(struct tl *tl, tl_interval_cb cb, void *arg)
{
	if (!tl)
		return -EINVAL;
	tl->cb = cb;
	tl->cb_arg = arg;
	return 0;
}

/* ---- tid -> thread map (open addressing, linear probing) ---------------- */

static inline size_t map_slot(uint32_t tid, size_t cap)
{
	return (size_t)((tid * 0x9E3779B1u) & (cap - 1));
}

static int map_grow(struct tl *tl)
{
	size_t cap = tl->map_cap ? tl->map_cap * 2 : 64, i, s;
	uint32_t *key = calloc(cap, sizeof(*key));
	int64_t *val = malloc(cap * sizeof(*val));

	if (!key || !val) {
		free(key);
		free(val);
		return -ENOMEM;
	}
	for (i = 0; i < tl->map_cap; i++) {
		if (!tl->map_key[i])
			continue;
		s = map_slot(tl->map_key[i], cap);
		while (key[s])
			s = (s + 1) & (cap - 1);
		key[s] = tl->map_key[i];
		val[s] = tl->map_val[i];
	}
	free(tl->map_key);
	free(tl->map_val);
	tl->map_key = key;
	tl->map_val = val;
	tl->map_cap = cap;
	return 0;
}

/* tid 0 is never a key (no thread). */
static int map_set(struct tl *tl, uint32_t tid, int64_t th)
{
	size_t s;
	int err;

	if ((tl->map_used + 1) * 4 > tl->map_cap * 3) {
		err = map_grow(tl);
		if (err)
			return err;
	}
	s = map_slot(tid, tl->map_cap);
	while (tl->map_key[s] && tl->map_key[s] != tid)
		s = (s + 1) & (tl->map_cap - 1);
	if (!tl->map_key[s])
		tl->map_used++;
	tl->map_key[s] = tid;
	tl->map_val[s] = th;
	return 0;
}

static int64_t map_get(const struct tl *tl, uint32_t tid)
{
	size_t s;

	if (!tl->map_cap || !tid)
		return NO_THREAD;
	s = map_slot(tid, tl->map_cap);
	while (tl->map_key[s]) {
		if (tl->map_key[s] == tid)
			return tl->map_val[s];
		s = (s + 1) & (tl->map_cap - 1);
	}
	return NO_THREAD;
}

/* The live thread with this tid, or NO_THREAD. */
static int64_t thread_lookup(const struct tl *tl, uint32_t tid)
{
	int64_t i = map_get(tl, tid);

	if (i == NO_THREAD || tl->th[i].tid != tid || tl->th[i].ended)
		return NO_THREAD;
	return i;
}

/* ---- intervals -------------------------------------------------------- */

/*
 * Room for one more interval. Block 0 grows by doubling from 8 entries up
 * to TL_BLOCK_LEN (most threads of a trace have few intervals); later
 * blocks are allocated full size and never move.
 */
/*
 * A full-size block (TL_BLOCK_LEN intervals), carved from chunks that grow
 * from TL_CHUNK_MIN to TL_CHUNK_MAX; those are aligned and offered to
 * transparent huge pages: a long trace stores hundreds of MB of intervals,
 * and a page fault per 4 KiB of them cost more than a tenth of the rebuild.
 */
static struct tl_iv *block_alloc(struct tl *tl)
{
	const size_t bytes = TL_BLOCK_LEN * sizeof(struct tl_iv);
	struct tl_chunk *c = tl->chunks;
	void *p;

	if (!c || c->used + bytes > c->size) {
		size_t size = TL_CHUNK_MIN;

		if (c)
			size = c->size < TL_CHUNK_MAX ? c->size * 2 :
							TL_CHUNK_MAX;
		c = aligned_alloc(size == TL_CHUNK_MAX ? TL_CHUNK_MAX : 64,
				  size);
		if (!c)
			return NULL;
		if (size == TL_CHUNK_MAX)
			madvise(c, size, MADV_HUGEPAGE); /* a hint only */
		c->size = size;
		c->used = 64; /* blocks start on a cache line */
		c->next = tl->chunks;
		tl->chunks = c;
		tl->chunk_bytes += size;
	}
	p = (char *)c + c->used;
	c->used += bytes;
	return p;
}

static int iv_grow(struct tl *tl, struct tl_th *t)
{
	if (t->cap_iv < TL_BLOCK_LEN) {
		size_t cap = t->cap_iv ? t->cap_iv * 2 : 8;
		struct tl_iv *b;

		if (!t->blocks) {
			t->blocks = malloc(4 * sizeof(*t->blocks));
			if (!t->blocks)
				return -ENOMEM;
			t->cap_blocks = 4;
		}
		b = realloc(t->nr_blocks ? t->blocks[0] : NULL,
			    cap * sizeof(*b));
		if (!b)
			return -ENOMEM;
		t->blocks[0] = b;
		t->nr_blocks = 1;
		t->cap_iv = cap;
		return 0;
	}
	if (t->nr_blocks == t->cap_blocks) {
		size_t cap = t->cap_blocks * 2;
		struct tl_iv **nb = realloc(t->blocks, cap * sizeof(*nb));

		if (!nb)
			return -ENOMEM;
		t->blocks = nb;
		t->cap_blocks = cap;
	}
	t->blocks[t->nr_blocks] = block_alloc(tl);
	if (!t->blocks[t->nr_blocks])
		return -ENOMEM;
	t->nr_blocks++;
	t->cap_iv += TL_BLOCK_LEN;
	return 0;
}

/* iv_append's rare path: a new block. */
static __attribute__((noinline)) struct tl_iv *iv_slot_slow(struct tl *tl,
							    struct tl_th *t)
{
	if (t->nr_iv == t->cap_iv && iv_grow(tl, t))
		return NULL;
	return tl_iv_at(t, t->nr_iv);
}

static inline __attribute__((always_inline)) int
iv_append(struct tl *tl, struct tl_th *t, uint64_t start, unsigned int state,
	  unsigned int cpu)
{
	struct tl_iv *iv;

	/* Within a block, the next slot follows the open interval. */
	if (likely(t->nr_iv < t->cap_iv && (t->nr_iv & (TL_BLOCK_LEN - 1)))) {
		iv = t->last + 1;
	} else {
		iv = iv_slot_slow(tl, t);
		if (!iv)
			return -ENOMEM;
	}
	iv->start = start;
	iv->cpu = (uint16_t)cpu;
	iv->state = (uint8_t)state;
	memset(iv->reserved, 0, sizeof(iv->reserved));
	t->last = iv;
	t->since = start;
	t->nr_iv++;
	tl->stats.intervals++;
	return 0;
}

uint64_t tl_iv_end(const struct tl *tl, const struct tl_th *t, size_t i)
{
	if (i + 1 < t->nr_iv)
		return tl_iv_at(t, i + 1)->start;
	if (t->ended)
		return t->end;
	return tl->now > tl_iv_at(t, i)->start ? tl->now :
						 tl_iv_at(t, i)->start;
}

static void iv_report(struct tl *tl, size_t th, const struct tl_iv *iv,
		      uint64_t end)
{
	struct tl_interval out = {
		.start_ns = iv->start,
		.end_ns = end,
		.cpu = iv->cpu,
		.state = iv->state,
	};

	tl->cb(tl->cb_arg, th, &out);
}

/*
 * Move thread t into (state, cpu) at time now. Returns -ENOMEM only; the
 * state is changed even then, the interval is lost. Inlined: it runs for
 * nearly every record.
 */
static inline __attribute__((always_inline)) int
set_state(struct tl *tl, struct tl_th *t, uint64_t now, unsigned int state,
	  unsigned int cpu)
{
	struct tl_iv *last = t->last;

	if (likely(last)) {
		if (state == t->state && cpu == t->ivcpu)
			return 0;
		t->state = (uint8_t)state;
		t->ivcpu = (uint16_t)cpu;
		if (unlikely(t->since >= now)) {
			last->state = (uint8_t)state;
			last->cpu = (uint16_t)cpu;
			return 0;
		}
		if (unlikely(tl->cb != NULL))
			iv_report(tl, (size_t)(t - tl->th), last, now);
	} else {
		t->state = (uint8_t)state;
		t->ivcpu = (uint16_t)cpu;
	}
	return iv_append(tl, t, now, state, cpu);
}

static void thread_end(struct tl *tl, struct tl_th *t, uint64_t now,
		       enum tl_end how)
{
	size_t th = (size_t)(t - tl->th);
	unsigned int k;

	if (t->ended)
		return;
	t->ended = (uint8_t)how;
	t->end = now;
	tl->gen++;
	if (tl->cb && t->last && t->last->start < now)
		iv_report(tl, th, t->last, now);
	for (k = 0; k < tl->nr_seen; k++) {
		struct tl_cpu *c = &tl->cpus[tl->seen[k]];

		if (c->cur == (int64_t)th)
			c->cur = NO_THREAD;
		if (c->out == (int64_t)th)
			c->out = NO_THREAD;
	}
	/* ATTACH may name a CPU not seen yet. */
	if (t->cpu < tl->nr_cpus && tl->cpus[t->cpu].cur == (int64_t)th)
		tl->cpus[t->cpu].cur = NO_THREAD;
}

/* A new timeline for tid, starting UNKNOWN at now. */
static int64_t thread_new(struct tl *tl, uint32_t tid, uint32_t uid,
			  uint64_t now, unsigned int cpu)
{
	struct tl_th *t;
	int64_t i;

	if (tl->nr_th == tl->cap_th) {
		size_t cap = tl->cap_th ? tl->cap_th * 2 : 16;
		struct tl_th *n = realloc(tl->th, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		tl->th = n;
		tl->cap_th = cap;
	}
	i = (int64_t)tl->nr_th;
	if (map_set(tl, tid, i))
		return -ENOMEM;
	t = &tl->th[i];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->uid = uid;
	t->parent = NO_THREAD;
	t->first = now;
	t->cpu = (uint16_t)cpu;
	t->ivcpu = (uint16_t)cpu;
	t->state = TL_UNKNOWN;
	tl->nr_th++;
	tl->stats.threads = tl->nr_th;
	if (iv_append(tl, t, now, TL_UNKNOWN, cpu)) {
		/* Keep the thread: an empty timeline is still consistent. */
		return i;
	}
	return i;
}

/* ---- the state machine ------------------------------------------------ */

static unsigned int run_state(const struct tl *tl, const struct tl_th *t)
{
	if (t->irq_depth)
		return TL_INTERRUPTED;
	if (!tl->syscalls || t->sys == SYS_UNKNOWN)
		return TL_RUN;
	return t->sys == SYS_IN ? TL_RUN_SYS : TL_RUN_USER;
}

static bool sys_is_futex(uint32_t nr)
{
	switch (nr) {
#ifdef SYS_futex
	case SYS_futex:
#endif
#ifdef SYS_futex_waitv
	case SYS_futex_waitv:
#endif
		return true;
	}
	return false;
}

static bool sys_is_poll(uint32_t nr)
{
	switch (nr) {
#ifdef SYS_poll
	case SYS_poll:
#endif
#ifdef SYS_ppoll
	case SYS_ppoll:
#endif
#ifdef SYS_select
	case SYS_select:
#endif
#ifdef SYS_pselect6
	case SYS_pselect6:
#endif
#ifdef SYS_epoll_wait
	case SYS_epoll_wait:
#endif
#ifdef SYS_epoll_pwait
	case SYS_epoll_pwait:
#endif
#ifdef SYS_epoll_pwait2
	case SYS_epoll_pwait2:
#endif
		return true;
	}
	return false;
}

/* The state a thread is in after leaving its CPU in kernel state ts. */
static unsigned int state_after(const struct tl *tl, const struct tl_th *t,
				uint32_t ts)
{
	switch (ts) {
	case MKM_TS_RUNNING:
		return TL_RUNQ;
	case MKM_TS_INTERRUPTIBLE:
		if (tl->syscalls && t->sys == SYS_IN) {
			if (sys_is_futex(t->sysnr))
				return TL_FUTEX_SLEEP;
			if (sys_is_poll(t->sysnr))
				return TL_POLL_SLEEP;
		}
		return TL_SLEEP;
	case MKM_TS_UNINTERRUPTIBLE:
		return TL_DISK;
	case MKM_TS_STOPPED:
	case MKM_TS_TRACED:
		return TL_STOPPED;
	case MKM_TS_DEAD: /* released at exit (ATTACH of a dying thread) */
	case MKM_TS_ZOMBIE: /* waits for its parent's wait() */
		return TL_ZOMBIE;
	case MKM_TS_PARKED:
		return TL_SLEEP;
	}
	return TL_UNKNOWN;
}

/* The event proves t is on CPU c now: make it so, counting a correction. */
static inline __attribute__((always_inline)) int
ensure_running(struct tl *tl, struct tl_th *t, uint64_t now, unsigned int c)
{
	if (likely(state_on_cpu(t->state) && t->ivcpu == c))
		return 0;
	if (t->state != TL_UNKNOWN) {
		t->anomalies++;
		tl->stats.anomalies++;
	}
	t->cpu = (uint16_t)c;
	tl->cpus[c].cur = t - tl->th;
	return set_state(tl, t, now, run_state(tl, t), c);
}

static void lost_gap(struct tl *tl, unsigned int c, uint64_t now)
{
	size_t i;

	tl->cpus[c].events--; /* merge counted it: not an event */
	tl->cpus[c].out = NO_THREAD;
	tl->cpus[c].cur = NO_THREAD;
	tl->cpus[c].cache_tid = 0;
	for (i = 0; i < tl->nr_th; i++) {
		struct tl_th *t = &tl->th[i];

		if (t->ended || t->state == TL_ZOMBIE)
			continue;
		if (state_on_cpu(t->state) && t->ivcpu != c)
			continue;
		t->irq_depth = 0;
		t->sys = SYS_UNKNOWN;
		if (tl->cpus[t->cpu].cur == (int64_t)i)
			tl->cpus[t->cpu].cur = NO_THREAD;
		set_state(tl, t, now, TL_UNKNOWN, t->cpu);
	}
}

static void add_mark(struct tl *tl, const struct mkm_event *ev, uint64_t now)
{
	struct tl_mark *m;

	if (tl->nr_marks == tl->cap_marks) {
		size_t cap = tl->cap_marks ? tl->cap_marks * 2 : 16;

		m = realloc(tl->marks, cap * sizeof(*m));
		if (!m)
			return;
		tl->marks = m;
		tl->cap_marks = cap;
	}
	m = &tl->marks[tl->nr_marks++];
	m->time_ns = now;
	m->value = (uint64_t)ev->arg0 | (uint64_t)ev->arg1 << 32;
	m->tid = ev->tid;
	m->cpu = ev->cpu;
}

static unsigned int cpu_arg(const struct tl *tl, uint32_t arg,
			    unsigned int dflt)
{
	return arg < tl->max_cpu ? arg : dflt;
}

/*
 * A non-leader thread exec'd (de_thread): it takes the leader's tid, and
 * the old leader's timeline, if monitored, ends.
 */
static void do_exec(struct tl *tl, const struct mkm_event *ev, uint64_t now)
{
	int64_t old = thread_lookup(tl, ev->arg0);
	int64_t leader = thread_lookup(tl, ev->tid);

	if (old == NO_THREAD)
		return;
	if (leader != NO_THREAD && leader != old)
		thread_end(tl, &tl->th[leader], now, TL_REPLACED);
	tl->th[old].tid = ev->tid;
	map_set(tl, ev->tid, old);
	tl->gen++;
}

/*
 * The thread an event is about: the per-CPU cache, else the tid map; a new
 * timeline for an unknown tid when create.
 */
static inline struct tl_th *th_get(struct tl *tl, struct tl_cpu *cpu,
				   const struct mkm_event *ev, uint64_t now,
				   bool create)
{
	int64_t i;

	if (unlikely(!ev->tid))
		return NULL;
	if (likely(cpu->cache_gen == tl->gen && cpu->cache_tid == ev->tid))
		return &tl->th[cpu->cache_th];
	i = thread_lookup(tl, ev->tid);
	if (i == NO_THREAD) {
		if (!create)
			return NULL;
		i = thread_new(tl, ev->tid, ev->unique_id, now, ev->cpu);
		if (i < 0)
			return NULL;
	}
	cpu->cache_tid = ev->tid;
	cpu->cache_th = i;
	cpu->cache_gen = tl->gen;
	return &tl->th[i];
}

/*
 * A SWITCH_IN says how long its thread waited runnable (the kernel's
 * run_delay): unless a WAKEUP already said so, it was on the run queue from
 * then, or since its last known state began if that is later.
 */
static void runnable_since(struct tl *tl, struct tl_th *t,
			   const struct mkm_event *ev, uint64_t now)
{
	uint64_t wait = ev->flags & MKM_EVF_WAIT_US ? ev->arg0 * 1000ull :
						      ev->arg0;

	if (state_on_cpu(t->state) || t->state == TL_RUNQ ||
	    t->state == TL_ZOMBIE)
		return;
	set_state(tl, t, wait < now - t->since ? now - wait : t->since, TL_RUNQ,
		  ev->cpu);
}

/* Process one record, in merged time order: one switch on its type. */
static inline __attribute__((always_inline)) void
tl_apply_inline(struct tl *tl, const struct mkm_event *ev)
{
	unsigned int c = ev->cpu, type = ev->type, ns;
	struct tl_cpu *cpu = &tl->cpus[c];
	uint64_t now = ev->time_ns;
	struct tl_th *t;
	int64_t i;

	if (unlikely(now < tl->now)) {
		tl->stats.late++;
		now = tl->now;
	}
	tl->now = now;

	switch (type) {
	case MKM_EV_LOST:
		lost_gap(tl, c, now);
		return;
	case MKM_EV_MARK:
		add_mark(tl, ev, now);
		return;
	case MKM_EV_SWITCH_IN:
		t = th_get(tl, cpu, ev, now, true);
		if (!t)
			return;
		i = t - tl->th;
		if (cpu->out == i && ev->arg1 == 0) {
			t->flutters++;
			cpu->flutters++;
		}
		cpu->out = NO_THREAD;
		if (cpu->cur != NO_THREAD && cpu->cur != i) {
			/* Its switch-out was not seen: it is off CPU now. */
			struct tl_th *o = &tl->th[cpu->cur];

			if (!o->ended && state_on_cpu(o->state) &&
			    o->ivcpu == c) {
				o->anomalies++;
				tl->stats.anomalies++;
				o->irq_depth = 0;
				set_state(tl, o, now, TL_UNKNOWN, c);
			}
		}
		t->switches++;
		cpu->switches++;
		t->irq_depth = 0;
		t->cpu = (uint16_t)c;
		cpu->cur = i;
		if (ev->arg0)
			runnable_since(tl, t, ev, now);
		set_state(tl, t, now, run_state(tl, t), c);
		return;
	case MKM_EV_SWITCH_OUT:
		t = th_get(tl, cpu, ev, now, true);
		if (!t)
			return;
		i = t - tl->th;
		if (!state_on_cpu(t->state) && t->state != TL_UNKNOWN) {
			t->anomalies++;
			tl->stats.anomalies++;
		}
		t->irq_depth = 0;
		t->cpu = (uint16_t)c;
		if (cpu->cur == i)
			cpu->cur = NO_THREAD;
		cpu->out = ev->arg1 == 0 ? i : NO_THREAD;
		/*
		 * Released at exit (a thread, or a process nobody waits
		 * for): gone now, not a zombie until the late REAP, which
		 * comes after an RCU grace period and finds it ended.
		 */
		if (ev->arg0 == MKM_TS_DEAD) {
			thread_end(tl, t, now, TL_REAPED);
			return;
		}
		set_state(tl, t, now, state_after(tl, t, ev->arg0), c);
		return;
	case MKM_EV_WAKEUP:
	case MKM_EV_WAKEUP_NEW:
		t = th_get(tl, cpu, ev, now, true);
		if (!t)
			return;
		i = t - tl->th;
		if (type == MKM_EV_WAKEUP_NEW && t->parent == NO_THREAD) {
			int64_t p = thread_lookup(tl, ev->arg1);

			if (p != i)
				t->parent = p;
		}
		/*
		 * A wakeup of a thread still on its CPU, or already runnable,
		 * changes nothing.
		 */
		if (state_on_cpu(t->state) || t->state == TL_ZOMBIE ||
		    (t->state == TL_RUNQ && type == MKM_EV_WAKEUP))
			return;
		t->cpu = (uint16_t)cpu_arg(tl, ev->arg0, t->cpu);
		set_state(tl, t, now, TL_RUNQ, t->cpu);
		return;
	case MKM_EV_WAKING:
		return;
	case MKM_EV_MIGRATE:
		t = th_get(tl, cpu, ev, now, false);
		if (!t)
			return;
		t->cpu = (uint16_t)cpu_arg(tl, ev->arg0, t->cpu);
		if (t->state == TL_RUNQ)
			set_state(tl, t, now, TL_RUNQ, t->cpu);
		return;
	case MKM_EV_FORK:
		t = th_get(tl, cpu, ev, now, true);
		if (!t)
			return;
		i = t - tl->th;
		ensure_running(tl, t, now, c);
		if (ev->flags & MKM_EVF_INHERITED && ev->arg0) {
			int64_t ch = thread_lookup(tl, ev->arg0);

			if (ch == NO_THREAD) {
				ch = thread_new(tl, ev->arg0, ev->arg1, now, c);
				if (ch < 0)
					return;
				t = &tl->th[i]; /* tl->th may have moved */
				set_state(tl, &tl->th[ch], now, TL_RUNQ, c);
			}
			if (ch != i && tl->th[ch].parent == NO_THREAD)
				tl->th[ch].parent = i;
		}
		return;
	case MKM_EV_EXEC:
		if (ev->arg0 != ev->tid) {
			do_exec(tl, ev, now);
			cpu->cache_tid = 0;
		}
		t = th_get(tl, cpu, ev, now, true);
		if (!t)
			return;
		ensure_running(tl, t, now, c);
		return;
	case MKM_EV_EXIT:
		t = th_get(tl, cpu, ev, now, true);
		if (!t)
			return;
		t->exited = 1;
		ensure_running(tl, t, now, c);
		return;
	case MKM_EV_REAP:
		t = th_get(tl, cpu, ev, now, false);
		if (!t)
			return;
		if (t->state != TL_ZOMBIE) {
			/* Its last switch-out was not seen. */
			set_state(tl, t, now, TL_ZOMBIE, t->cpu);
		}
		thread_end(tl, t, now, TL_REAPED);
		cpu->cache_tid = 0;
		return;
	case MKM_EV_DETACH:
		t = th_get(tl, cpu, ev, now, true);
		if (!t)
			return;
		thread_end(tl, t, now, TL_DETACHED);
		cpu->cache_tid = 0;
		return;
	case MKM_EV_IRQ_ENTRY:
	case MKM_EV_SOFTIRQ_ENTRY:
		t = th_get(tl, cpu, ev, now, true);
		if (!t)
			return;
		ensure_running(tl, t, now, c);
		if (t->irq_depth < UINT8_MAX)
			t->irq_depth++;
		set_state(tl, t, now, TL_INTERRUPTED, c);
		return;
	case MKM_EV_IRQ_EXIT:
	case MKM_EV_SOFTIRQ_EXIT:
		t = th_get(tl, cpu, ev, now, true);
		if (!t)
			return;
		if (t->irq_depth) {
			t->irq_depth--;
		} else if (t->state != TL_UNKNOWN) {
			/* Entered before the stream began, or lost. */
			t->anomalies++;
			tl->stats.anomalies++;
		}
		ensure_running(tl, t, now, c);
		set_state(tl, t, now, run_state(tl, t), c);
		return;
	case MKM_EV_SYSCALL_ENTRY:
	case MKM_EV_SYSCALL_EXIT:
		t = th_get(tl, cpu, ev, now, true);
		if (!t)
			return;
		t->sys = type == MKM_EV_SYSCALL_ENTRY ? SYS_IN : SYS_USER;
		t->sysnr = ev->arg0;
		ensure_running(tl, t, now, c);
		set_state(tl, t, now, run_state(tl, t), c);
		return;
	case MKM_EV_ATTACH: {
		unsigned int on = ev->arg1 == CPU_NONE ?
					  CPU_NONE :
					  cpu_arg(tl, ev->arg1, c);

		t = th_get(tl, cpu, ev, now, true);
		if (!t)
			return;
		i = t - tl->th;
		t->irq_depth = 0;
		if (ev->arg0 == MKM_TS_RUNNING && on != CPU_NONE) {
			t->cpu = (uint16_t)on;
			tl->cpus[on].cur = i;
			set_state(tl, t, now, run_state(tl, t), on);
			return;
		}
		ns = state_after(tl, t, ev->arg0);
		set_state(tl, t, now, ns, t->cpu);
		return;
	}
	case MKM_EV_NAME:
		t = th_get(tl, cpu, ev, now, true);
		if (!t)
			return;
		memcpy(t->name + (ev->flags ? 8 : 0), &ev->arg0, 4);
		memcpy(t->name + (ev->flags ? 12 : 4), &ev->arg1, 4);
		return;
	}
}

/* The same, out of line, for the merge's less common paths. */
static __attribute__((noinline)) void tl_apply(struct tl *tl,
					       const struct mkm_event *ev)
{
	tl_apply_inline(tl, ev);
}

/* ---- feeding and merging ---------------------------------------------- */

/*
 * Room for k more records at the tail of cpu's queue, and one more for the
 * sentinel: the slot after the last record always holds time_ns ==
 * UINT64_MAX (no record has that time: feed clamps it), so the merge reads
 * a head time without checking for the end.
 */
static int queue_reserve(struct tl_cpu *cpu, size_t k)
{
	size_t live = cpu->tail - cpu->head, cap;
	struct mkm_event *q;

	if (likely(cpu->cap - cpu->tail > k))
		return 0;
	if (cpu->head && cpu->cap - live > k && cpu->head >= live) {
		memcpy(cpu->q, cpu->q + cpu->head, live * sizeof(*q));
	} else {
		cap = cpu->cap ? cpu->cap : 1024;
		while (cap - live <= k)
			cap *= 2;
		q = malloc(cap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		if (live)
			memcpy(q, cpu->q + cpu->head, live * sizeof(*q));
		free(cpu->q);
		cpu->q = q;
		cpu->cap = cap;
	}
	cpu->head = 0;
	cpu->tail = live;
	return 0;
}

static void queue_seal(struct tl_cpu *cpu)
{
	cpu->q[cpu->tail].time_ns = UINT64_MAX;
}

static int queue_push(struct tl_cpu *cpu, const struct mkm_event *ev)
{
	int err = queue_reserve(cpu, 1);

	if (err)
		return err;
	cpu->q[cpu->tail++] = *ev;
	queue_seal(cpu);
	return 0;
}

/* The watermark: records with time < it may be processed. */
static uint64_t watermark(const struct tl *tl)
{
	uint64_t w = UINT64_MAX;
	unsigned int k;

	/* A configured CPU not heard of yet is complete up to the horizon. */
	if (tl->cfg_seen < tl->cfg.nr_cpus)
		return tl->horizon;
	for (k = 0; k < tl->nr_seen; k++) {
		const struct tl_cpu *cpu = &tl->cpus[tl->seen[k]];
		uint64_t l = cpu->last_time > tl->horizon ? cpu->last_time :
							    tl->horizon;

		if (l < w)
			w = l;
	}
	return w == UINT64_MAX ? tl->horizon : w;
}

/*
 * The earliest of width heads, without branches (width is a constant once
 * inlined, so the scan unrolls), record by record up to lim.
 */
static inline __attribute__((always_inline)) void
merge_small(struct tl *tl, struct tl_src *src, unsigned int width, uint64_t lim)
{
	for (;;) {
		uint64_t best = src[0].t;
		const struct mkm_event *p;
		unsigned int b = 0, k;

		for (k = 1; k < width; k++) {
			uint64_t h = src[k].t;
			bool lt = h < best;

			best = lt ? h : best;
			b = lt ? k : b;
		}
		if (best > lim)
			break;
		p = src[b].p;
		tl_apply_inline(tl, p);
		src[b].p = ++p;
		src[b].t = p->time_ns;
	}
}

/*
 * Process the queued records with time < w (all of them if all), in time
 * order. With up to MERGE_SMALL CPUs holding records, each record is the
 * minimum of the heads found with conditional moves: CPUs' records usually
 * interleave finely, and a branch on which CPU is next would mispredict
 * about every other record. With more, take the CPU whose head is earliest
 * and run through its records up to the next CPU's head. Ties go to the
 * lower CPU id (tl->seen is kept sorted), so the result does not depend on
 * how the records were batched.
 */
static void merge(struct tl *tl, uint64_t w, bool all)
{
	uint64_t lim = all ? UINT64_MAX - 1 : w - 1;
	struct tl_src *src = tl->src;
	unsigned int n = 0, k;

	if (!all && !w)
		return;
	for (k = 0; k < tl->nr_seen; k++) {
		struct tl_cpu *cpu = &tl->cpus[tl->seen[k]];

		if (cpu->head == cpu->tail)
			continue;
		src[n].p = cpu->q + cpu->head;
		src[n].t = src[n].p->time_ns;
		src[n].cpu = cpu;
		n++;
	}
	if (n == 1) {
		const struct mkm_event *p = src[0].p;

		while (p->time_ns <= lim)
			tl_apply(tl, p++);
		src[0].p = p;
	} else if (n && n <= MERGE_SMALL) {
		/* Pad to 4 or 8 heads that never win: a fixed, unrolled scan. */
		unsigned int width = n <= 4 ? 4 : MERGE_SMALL;

		for (k = n; k < width; k++)
			src[k].t = UINT64_MAX;
		if (width == 4)
			merge_small(tl, src, 4, lim);
		else
			merge_small(tl, src, MERGE_SMALL, lim);
	} else if (n > MERGE_SMALL) {
		for (;;) {
			uint64_t best = UINT64_MAX, second = UINT64_MAX, limit;
			const struct mkm_event *p;
			unsigned int b = 0;

			for (k = 0; k < n; k++) {
				uint64_t h = src[k].t;

				if (h < best) {
					second = best;
					best = h;
					b = k;
				} else if (h < second) {
					second = h;
				}
			}
			if (best > lim)
				break;
			limit = second < lim ? second : lim;
			p = src[b].p;
			do {
				tl_apply(tl, p++);
			} while (p->time_ns <= limit);
			src[b].p = p;
			src[b].t = p->time_ns;
		}
	}
	for (k = 0; k < n; k++) {
		struct tl_cpu *cpu = src[k].cpu;
		size_t head = (size_t)(src[k].p - cpu->q);
		size_t did = head - cpu->head;

		if (!did)
			continue;
		/* LOST records are counted here and taken off by lost_gap. */
		cpu->events += did;
		cpu->last_done = src[k].p[-1].time_ns;
		tl->pending -= did;
		if (head == cpu->tail) {
			cpu->head = cpu->tail = 0;
			queue_seal(cpu);
		} else {
			cpu->head = head;
		}
	}
	if (!all && w > tl->now)
		tl->now = w;
}

static int feed_one(struct tl *tl, const struct mkm_event *ev)
{
	struct tl_cpu *cpu;
	struct mkm_event e = *ev;
	unsigned int c = ev->cpu;
	int err;

	if (unlikely(c >= tl->max_cpu)) {
		if (c >= TL_MAX_CPUS) {
			tl->stats.anomalies++; /* a corrupt record: skip */
			return 0;
		}
		err = cpus_grow(tl, c + 1);
		if (err)
			return err;
		tl->max_cpu = c + 1;
	}
	if (unlikely(e.time_ns == UINT64_MAX)) {
		tl->stats.anomalies++; /* the queue's sentinel value */
		e.time_ns = UINT64_MAX - 1;
	}
	cpu = &tl->cpus[c];
	if (unlikely(!cpu->seen)) {
		unsigned int k = tl->nr_seen++;

		/* Kept in CPU order: ties in time go to the lower CPU id,
		 * whatever order the CPUs showed up in. */
		while (k && tl->seen[k - 1] > c) {
			tl->seen[k] = tl->seen[k - 1];
			k--;
		}
		tl->seen[k] = c;
		cpu->seen = true;
		cpu->first_time = e.time_ns;
		tl->cfg_seen += c < tl->cfg.nr_cpus;
		cpu->last_time = e.time_ns;
	}
	if (unlikely(e.time_ns < cpu->last_time)) {
		/* A LOST record with no record before it has time 0. */
		if (e.type != MKM_EV_LOST)
			tl->stats.anomalies++;
		e.time_ns = cpu->last_time;
	}
	if (cpu->seq_valid && unlikely(e.seq != cpu->next_seq)) {
		uint32_t gap = e.seq - cpu->next_seq;

		if (gap < 0x80000000u) {
			struct mkm_event lost = {
				.time_ns = cpu->last_time,
				.seq = cpu->next_seq,
				.cpu = (uint16_t)c,
				.type = MKM_EV_LOST,
				.arg0 = gap,
			};

			tl->stats.seq_gaps++;
			tl->stats.gaps++;
			tl->stats.lost += gap;
			cpu->lost += gap;
			err = queue_push(cpu, &lost);
			if (err)
				return err;
			tl->pending++;
		} else {
			tl->stats.anomalies++; /* seq went backwards */
		}
	}
	if (e.type == MKM_EV_LOST) {
		cpu->next_seq = e.seq + e.arg0;
		tl->stats.gaps++;
		tl->stats.lost += e.arg0;
		cpu->lost += e.arg0;
	} else {
		cpu->next_seq = e.seq + 1;
		tl->stats.events++;
	}
	cpu->seq_valid = true;
	cpu->last_time = e.time_ns;
	err = queue_push(cpu, &e);
	if (err)
		return err;
	tl->pending++;
	return 0;
}

/*
 * The common case, a run of one CPU's records in sequence with nothing
 * lost: copy it in one go. Returns how many records of ev it took.
 */
static size_t feed_run(struct tl *tl, const struct mkm_event *ev, size_t n)
{
	unsigned int c = ev->cpu;
	struct tl_cpu *cpu;
	uint64_t last;
	uint32_t seq;
	size_t j;

	if (c >= tl->max_cpu)
		return 0;
	cpu = &tl->cpus[c];
	if (!cpu->seq_valid)
		return 0;
	last = cpu->last_time;
	seq = cpu->next_seq;
	for (j = 0; j < n; j++) {
		const struct mkm_event *e = &ev[j];

		if (e->cpu != c || e->seq != seq || e->time_ns < last ||
		    e->type == MKM_EV_LOST || e->time_ns == UINT64_MAX)
			break;
		last = e->time_ns;
		seq++;
	}
	if (!j || queue_reserve(cpu, j))
		return 0;
	memcpy(cpu->q + cpu->tail, ev, j * sizeof(*ev));
	cpu->tail += j;
	queue_seal(cpu);
	cpu->last_time = last;
	cpu->next_seq = seq;
	tl->stats.events += j;
	tl->pending += j;
	return j;
}

int tl_feed(struct tl *tl, const struct mkm_event *ev, size_t n)
{
	size_t i = 0, k;
	int err = 0;

	if (!tl || (n && !ev))
		return -EINVAL;
	while (i < n) {
		k = feed_run(tl, ev + i, n - i);
		if (k) {
			i += k;
			continue;
		}
		err = feed_one(tl, &ev[i]);
		if (err)
			break;
		i++;
	}
	merge(tl, watermark(tl), false);
	return err;
}

int tl_advance(struct tl *tl, uint64_t horizon_ns)
{
	if (!tl)
		return -EINVAL;
	if (horizon_ns > tl->horizon)
		tl->horizon = horizon_ns;
	merge(tl, watermark(tl), false);
	return 0;
}

int tl_flush(struct tl *tl)
{
	if (!tl)
		return -EINVAL;
	merge(tl, UINT64_MAX, true);
	return 0;
}

/* ---- queries ---------------------------------------------------------- */

size_t tl_nr_threads(const struct tl *tl)
{
	return tl ? tl->nr_th : 0;
}

unsigned int tl_nr_cpus(const struct tl *tl)
{
	return tl ? tl->max_cpu : 0;
}

int tl_thread(const struct tl *tl, size_t th, struct tl_thread *out)
{
	const struct tl_th *t;

	if (!tl || !out)
		return -EINVAL;
	if (th >= tl->nr_th)
		return -ENOENT;
	t = &tl->th[th];
	memset(out, 0, sizeof(*out));
	out->tid = t->tid;
	out->unique_id = t->uid;
	out->parent = t->parent;
	memcpy(out->name, t->name, sizeof(t->name));
	out->state = t->state;
	out->end = t->ended;
	out->first_ns = t->first;
	out->end_ns = t->nr_iv ? tl_iv_end(tl, t, t->nr_iv - 1) : t->first;
	out->nr_intervals = t->nr_iv;
	out->switches = t->switches;
	out->flutters = t->flutters;
	out->anomalies = t->anomalies;
	return 0;
}

int64_t tl_find(const struct tl *tl, uint32_t tid)
{
	int64_t i;

	if (!tl)
		return -EINVAL;
	i = map_get(tl, tid);
	if (i == NO_THREAD || tl->th[i].tid != tid)
		return -ENOENT;
	return i;
}

int tl_interval(const struct tl *tl, size_t th, size_t i,
		struct tl_interval *out)
{
	const struct tl_th *t;
	const struct tl_iv *iv;

	if (!tl || !out)
		return -EINVAL;
	if (th >= tl->nr_th || i >= tl->th[th].nr_iv)
		return -ENOENT;
	t = &tl->th[th];
	iv = tl_iv_at(t, i);
	memset(out, 0, sizeof(*out));
	out->start_ns = iv->start;
	out->end_ns = tl_iv_end(tl, t, i);
	out->cpu = iv->cpu;
	out->state = iv->state;
	out->open = i + 1 == t->nr_iv && !t->ended;
	return 0;
}

int tl_stats(const struct tl *tl, struct tl_stats *out)
{
	if (!tl || !out)
		return -EINVAL;
	*out = tl->stats;
	out->now_ns = tl->now;
	out->threads = tl->nr_th;
	out->pending = tl->pending;
	return 0;
}

int tl_memory(const struct tl *tl, struct tl_memory *out)
{
	size_t i;

	if (!tl || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (i = 0; i < tl->nr_th; i++)
		out->interval_bytes +=
			(tl->th[i].cap_iv < TL_BLOCK_LEN ? tl->th[i].cap_iv :
							   TL_BLOCK_LEN) *
				sizeof(struct tl_iv) +
			tl->th[i].cap_blocks * sizeof(struct tl_iv *);
	/* Chunks whole, their unused tails included. */
	out->interval_bytes += tl->chunk_bytes;
	out->thread_bytes = tl->cap_th * sizeof(struct tl_th) +
			    tl->map_cap * (sizeof(uint32_t) + sizeof(int64_t));
	for (i = 0; i < tl->nr_cpus; i++)
		out->queue_bytes += tl->cpus[i].cap * sizeof(struct mkm_event);
	out->queue_bytes += tl->nr_cpus * sizeof(struct tl_cpu);
	out->total_bytes = out->interval_bytes + out->thread_bytes +
			   out->queue_bytes + sizeof(*tl) +
			   tl->cap_marks * sizeof(struct tl_mark);
	return 0;
}

size_t tl_nr_marks(const struct tl *tl)
{
	return tl ? tl->nr_marks : 0;
}

int tl_mark(const struct tl *tl, size_t i, struct tl_mark *out)
{
	if (!tl || !out)
		return -EINVAL;
	if (i >= tl->nr_marks)
		return -ENOENT;
	*out = tl->marks[i];
	return 0;
}
