// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * process.c - the timeline's processes (thread groups), inferred once here
 * for every consumer.
 *
 * The records name threads only. A thread's process comes from, in order
 * of trust: the FORK that made it (MKM_EVF_THREAD: its parent's process;
 * else a process of its own), what the recorder found when it attached it
 * (the PROCESSES chunk, tl_processes_known()), and else a guess: a thread
 * first seen alone leads a process of its own (tgid = tid), which is what
 * a trace without PROCESSES says of `mkm record -p PID`'s other threads.
 * The CPUs' idle tasks (tid 0) make process 0, "swapper", as perf says.
 *
 * A process is keyed by its tgid while one of its threads lives: a tgid
 * seen again after all of them ended is a new process (the kernel reused
 * the pid). Moving a thread (a FORK or a PROCESSES entry that comes after
 * the guess) pops the process it leaves if that became empty and is the
 * last one made, as a guess for a fork's child is: indexes stay dense
 * save in the rare case of a thread seen before the FORK that made it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "timeline/timeline.h"

/* ---- processes ------------------------------------------------------- */

#define NO_PROC UINT32_MAX

/* The live process of tgid, or NO_PROC. */
static uint32_t proc_find(const struct tl *tl, uint32_t tgid)
{
	uint32_t p;

	if (!mon_u32map_get(&tl->proc_map, tgid, &p) || p == NO_PROC ||
	    !tl->procs[p].nr_live)
		return NO_PROC;
	return p;
}

static uint32_t proc_new(struct tl *tl, uint32_t tgid)
{
	struct tl_proc *pr;
	uint32_t prev;

	if (tl->nr_procs == tl->cap_procs) {
		size_t cap = tl->cap_procs ? tl->cap_procs * 2 : 16;
		struct tl_proc *n = realloc(tl->procs, cap * sizeof(*n));

		if (!n)
			return NO_PROC;
		tl->procs = n;
		tl->cap_procs = cap;
	}
	if (!mon_u32map_get(&tl->proc_map, tgid, &prev))
		prev = NO_PROC;
	if (mon_u32map_set(&tl->proc_map, tgid, (uint32_t)tl->nr_procs))
		return NO_PROC;
	pr = &tl->procs[tl->nr_procs];
	memset(pr, 0, sizeof(*pr));
	pr->tgid = tgid;
	pr->prev = prev;
	pr->first = NO_THREAD;
	return (uint32_t)tl->nr_procs++;
}

/* Put thread th (not in any process) into tgid's. */
static int proc_join(struct tl *tl, size_t th, uint32_t tgid)
{
	struct tl_th *t = &tl->th[th];
	uint32_t p = proc_find(tl, tgid);

	if (p == NO_PROC)
		p = proc_new(tl, tgid);
	if (p == NO_PROC)
		return -ENOMEM;
	t->tgid = tgid;
	t->process = p;
	tl->procs[p].nr_threads++;
	if (!t->ended)
		tl->procs[p].nr_live++;
	if (tl->procs[p].first == NO_THREAD || (int64_t)th < tl->procs[p].first)
		tl->procs[p].first = (int64_t)th;
	return 0;
}

/* Take thread th out of its process; pop that if it is now empty and the
 * last made (a guess undone). */
static void proc_leave(struct tl *tl, size_t th)
{
	struct tl_th *t = &tl->th[th];
	struct tl_proc *pr = &tl->procs[t->process];

	pr->nr_threads--;
	if (!t->ended)
		pr->nr_live--;
	if (pr->first == (int64_t)th) {
		size_t i;

		pr->first = NO_THREAD;
		for (i = th + 1; i < tl->nr_th && pr->nr_threads; i++)
			if (tl->th[i].process == t->process) {
				pr->first = (int64_t)i;
				break;
			}
	}
	if (!pr->nr_threads && t->process + 1 == tl->nr_procs) {
		/* Shrinking the map's entry back never allocates. */
		mon_u32map_set(&tl->proc_map, pr->tgid, pr->prev);
		tl->nr_procs--;
	}
}

static int proc_move(struct tl *tl, size_t th, uint32_t tgid)
{
	const struct tl_th *t = &tl->th[th];

	if (t->tgid == tgid && tl->procs[t->process].tgid == tgid)
		return 0;
	proc_leave(tl, th);
	return proc_join(tl, th, tgid);
}

int tl_process_new_thread(struct tl *tl, size_t th)
{
	uint32_t tid = tl->th[th].tid, tgid;

	if (!mon_u32map_get(&tl->hints, tid, &tgid))
		tgid = tid;
	return proc_join(tl, th, tgid);
}

void tl_process_thread_ended(struct tl *tl, size_t th)
{
	const struct tl_th *t = &tl->th[th];

	if (t->process < tl->nr_procs)
		tl->procs[t->process].nr_live--;
}

uint32_t tl_fork_tgid(const struct mkm_event *fork, uint32_t parent_tgid)
{
	return fork->flags & MKM_EVF_THREAD ? parent_tgid : fork->arg0;
}

void tl_process_forked(struct tl *tl, size_t child, size_t parent,
		       const struct mkm_event *fork)
{
	struct tl_th *c = &tl->th[child];

	if (!proc_move(tl, child, tl_fork_tgid(fork, tl->th[parent].tgid)))
		c->tgid_known = 1;
}

int tl_processes_known(struct tl *tl, const struct trace_process *p, size_t n)
{
	size_t k;
	int err;

	if (!tl || (n && !p))
		return -EINVAL;
	for (k = 0; k < n; k++) {
		int64_t i = tl_thread_lookup(tl, p[k].tid);

		err = mon_u32map_set(&tl->hints, p[k].tid, p[k].tgid);
		if (err)
			return err;
		/* A thread seen before its entry: unless a FORK said. */
		if (i != NO_THREAD && !tl->th[i].tgid_known) {
			err = proc_move(tl, (size_t)i, p[k].tgid);
			if (err)
				return err;
			tl->th[i].tgid_known = 1;
		}
	}
	return 0;
}

size_t tl_nr_processes(const struct tl *tl)
{
	return tl ? tl->nr_procs : 0;
}

int tl_process(const struct tl *tl, size_t p, struct tl_process *out)
{
	const struct tl_proc *pr;
	int64_t lead;

	if (!tl || !out)
		return -EINVAL;
	if (p >= tl->nr_procs)
		return -ENOENT;
	pr = &tl->procs[p];
	memset(out, 0, sizeof(*out));
	out->pid = pr->tgid;
	out->nr_threads = pr->nr_threads;
	out->nr_live = pr->nr_live;
	/* The leader is the latest thread whose tid is the tgid, if it is
	 * this process's (an exec by another thread makes it so). */
	lead = pr->tgid ? tl_map_get(tl, pr->tgid) : NO_THREAD;
	if (lead != NO_THREAD && tl->th[lead].process != p)
		lead = NO_THREAD;
	out->leader = lead;
	out->first = pr->first;
	if (!pr->tgid && pr->first != NO_THREAD &&
	    tl->th[pr->first].idle_cpu >= 0)
		strcpy(out->name, "swapper");
	else if (lead != NO_THREAD)
		tl_th_name(tl, &tl->th[lead], out->name);
	else if (pr->first != NO_THREAD)
		tl_th_name(tl, &tl->th[pr->first], out->name);
	return 0;
}
