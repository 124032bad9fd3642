// SPDX-License-Identifier: GPL-2.0
/*
 * rows.c - the viewer's rows: threads or CPUs, sorted, some hidden; in a
 * merged trace (mkm merge), the threads, or the CPUs, grouped under a
 * header row per node, a node folded to its header alone (in both views).
 */
#define _GNU_SOURCE /* qsort_r */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "state.h"

static int track_add(struct cpu_track *t, uint64_t start, uint64_t end,
		     size_t th)
{
	/* A thread's running and interrupted intervals make one slice. */
	if (t->n && t->s[t->n - 1].th == th && t->s[t->n - 1].end == start) {
		t->s[t->n - 1].end = end;
		return 0;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct cpu_slice *s = realloc(t->s, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		t->s = s;
		t->cap = cap;
	}
	t->s[t->n++] = (struct cpu_slice){ start, end, (uint32_t)th };
	return 0;
}

static int slice_cmp(const void *a, const void *b)
{
	const struct cpu_slice *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void tracks_free(struct viewer_state *vs)
{
	size_t c;

	for (c = 0; vs->tracks && c < vs->nr_cpus; c++) {
		free(vs->tracks[c].s);
		free(vs->tracks[c].peers);
	}
	free(vs->tracks);
	vs->tracks = NULL;
}

/* Each CPU's slices of monitored threads, in time order. */
static int tracks_build(struct viewer_state *vs)
{
	struct tl_interval iv[256];
	size_t th, c, first;
	ssize_t n, i;

	vs->tracks = calloc(vs->nr_cpus ? vs->nr_cpus : 1, sizeof(*vs->tracks));
	if (!vs->tracks)
		return -ENOMEM;
	for (th = 0; th < vs->nr_threads; th++) {
		for (first = 0;
		     (n = tl_intervals(vs->tl, th, first, 256, iv)) > 0;
		     first += (size_t)n) {
			for (i = 0; i < n; i++) {
				if (!tl_state_desc(iv[i].state)->on_cpu ||
				    iv[i].cpu >= vs->nr_cpus ||
				    iv[i].end_ns <= iv[i].start_ns)
					continue;
				if (track_add(&vs->tracks[iv[i].cpu],
					      iv[i].start_ns, iv[i].end_ns, th))
					return -ENOMEM;
			}
		}
	}
	for (c = 0; c < vs->nr_cpus; c++)
		qsort(vs->tracks[c].s, vs->tracks[c].n,
		      sizeof(struct cpu_slice), slice_cmp);
	/* Who ran in the gaps: without it the view still works. */
	events_peers(vs);
	return 0;
}

/* A merged trace's thread's node, or -1 (none, or not merged). */
static int rows_node_of(const struct viewer_state *vs, uint32_t tid)
{
	const struct trace_node *n = mon_nodes_of_tid(&vs->nodes, tid);

	return n ? (int)(n - vs->nodes.node) : -1;
}

/* Each node's header: its name, threads and CPUs. */
static void groups_label(struct viewer_state *vs)
{
	uint32_t g;
	size_t i;

	for (g = 0; g < vs->nodes.hdr.nr_nodes; g++)
		vs->groups[g].nr_threads = 0;
	for (i = 0; i < vs->nr_threads; i++)
		if (vs->threads[i].node >= 0)
			vs->groups[vs->threads[i].node].nr_threads++;
	for (g = 0; g < vs->nodes.hdr.nr_nodes; g++) {
		const struct trace_node *n = &vs->nodes.node[g];
		struct node_group *ng = &vs->groups[g];

		snprintf(ng->label, sizeof(ng->label),
			 "%c %s %zu thr cpu %u-%u", ng->folded ? '+' : '-',
			 n->name, ng->nr_threads, n->cpu_base,
			 n->cpu_base + (n->nr_cpus ? n->nr_cpus - 1 : 0));
	}
}

/* Grow an array of rows from n to m entries, zeroing the new ones. */
static int grow(struct row **rows, size_t n, size_t m)
{
	struct row *r = realloc(*rows, (m + 1) * sizeof(*r));

	if (!r)
		return -ENOMEM;
	memset(r + n, 0, (m + 1 - n) * sizeof(*r));
	*rows = r;
	return 0;
}

int rows_update(struct viewer_state *vs)
{
	size_t nr_th = tl_nr_threads(vs->tl), nr_cpus = tl_nr_cpus(vs->tl), i;
	uint64_t timers[TL_NR_STATES];
	size_t *order;
	unsigned int s;

	if (grow(&vs->threads, vs->nr_threads, nr_th) ||
	    grow(&vs->cpus, vs->nr_cpus, nr_cpus))
		return -ENOMEM;
	order = realloc(vs->order, (nr_th + nr_cpus + vs->nodes.hdr.nr_nodes +
				    1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	vs->order = order;
	for (i = 0; i < nr_th; i++) {
		struct row *r = &vs->threads[i];
		struct tl_thread t;

		/* Names and totals change while a live trace grows. */
		tl_thread(vs->tl, i, &t);
		r->id = i;
		r->tid = t.tid;
		r->pid = t.tgid;
		r->node = rows_node_of(vs, t.tid);
		/* A merged trace's tids are node << 22 | tid: its own. */
		snprintf(r->label, sizeof(r->label), "%u %s",
			 r->node >= 0 ? t.tid & TRACE_NODE_TID_MASK : t.tid,
			 t.name[0] ? t.name : "?");
		r->run_ns = r->runq_ns = 0;
		/* From the index: O(log n) a thread, not a walk of all. */
		if (lod_time(vs->lod, i, t.first_ns, t.end_ns, timers))
			continue;
		for (s = 0; s < TL_NR_STATES; s++) {
			unsigned int g = tl_state_desc(s)->group;

			if (g == TL_GROUP_RUN)
				r->run_ns += timers[s];
			else if (g == TL_GROUP_RUNQ)
				r->runq_ns += timers[s];
		}
	}
	for (i = vs->nr_cpus; i < nr_cpus; i++) {
		const struct trace_node *n = mon_nodes_of_cpu(&vs->nodes, i);
		struct row *r = &vs->cpus[i];

		r->id = i;
		r->node = n ? (int)(n - vs->nodes.node) : -1;
		/* A merged trace's CPUs are cpu_base + the node's own. */
		snprintf(r->label, sizeof(r->label), "cpu %zu",
			 n ? i - n->cpu_base : i);
	}
	/* The CPUs' tracks are rebuilt when next shown. */
	tracks_free(vs);
	vs->nr_threads = nr_th;
	groups_label(vs);
	vs->nr_cpus = nr_cpus;
	return rows_order(vs);
}

void rows_free(struct viewer_state *vs)
{
	tracks_free(vs);
	free(vs->threads);
	free(vs->cpus);
	free(vs->order);
}

const char *rows_sort_name(enum rows_sort s)
{
	static const char *const names[NR_SORTS] = {
		[SORT_FIRST] = "first seen", [SORT_NAME] = "name",
		[SORT_TID] = "tid",	     [SORT_RUN] = "run time",
		[SORT_RUNQ] = "run queue",   [SORT_PROCESS] = "process",
	};

	return s < NR_SORTS ? names[s] : "?";
}

static int u32_cmp(uint32_t a, uint32_t b)
{
	return a < b ? -1 : a > b;
}

/* @key (enum rows_sort) orders @rows' indexes: qsort_r's argument, where
 * a static would race between two viewers. */
struct sort_ctx {
	const struct row *rows;
	enum rows_sort key;
	bool by_node; /* first by node (a merged trace's rows) */
};

static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *ctx = arg;
	const struct row *x = &ctx->rows[*(const size_t *)a];
	const struct row *y = &ctx->rows[*(const size_t *)b];
	const char *nx = strchr(x->label, ' '), *ny = strchr(y->label, ' ');
	int c = 0;

	/* Each node's threads together, those of no node last. */
	if (ctx->by_node && x->node != y->node)
		return u32_cmp((uint32_t)x->node, (uint32_t)y->node);
	switch (ctx->key) {
	case SORT_NAME:
		c = strcmp(nx ? nx : x->label, ny ? ny : y->label);
		break;
	case SORT_TID:
		c = u32_cmp(x->tid, y->tid);
		break;
	case SORT_PROCESS: /* a process's threads together, by tid */
		c = u32_cmp(x->pid, y->pid);
		if (!c)
			c = u32_cmp(x->tid, y->tid);
		break;
	case SORT_RUN: /* the busiest first */
		c = x->run_ns > y->run_ns ? -1 : x->run_ns < y->run_ns;
		break;
	case SORT_RUNQ:
		c = x->runq_ns > y->runq_ns ? -1 : x->runq_ns < y->runq_ns;
		break;
	default:
		break;
	}
	if (!c) /* stable: ties keep the order first seen */
		c = x->id < y->id ? -1 : x->id > y->id;
	return c;
}

/* Rows sorted by node into each node's header and, unless it is folded,
 * its rows; the rows of no node after them. */
static int group(struct viewer_state *vs, const struct row *rows)
{
	size_t n = vs->nr_order, i = 0, *sorted;
	uint32_t g;

	sorted = malloc((n + 1) * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, vs->order, n * sizeof(*sorted));
	vs->nr_order = 0;
	for (g = 0; g < vs->nodes.hdr.nr_nodes; g++) {
		vs->order[vs->nr_order++] = ROW_NODE | g;
		for (; i < n && rows[sorted[i]].node == (int)g; i++)
			if (!vs->groups[g].folded)
				vs->order[vs->nr_order++] = sorted[i];
	}
	for (; i < n; i++)
		vs->order[vs->nr_order++] = sorted[i];
	free(sorted);
	return 0;
}

bool rows_select_node(struct viewer_state *vs, int node)
{
	size_t i;

	for (i = 0; i < vs->nr_order; i++) {
		if (vs->order[i] == (ROW_NODE | (size_t)node)) {
			view_select(&vs->view,
				    (int64_t)i - (int64_t)vs->view.sel);
			return true;
		}
	}
	return false;
}

int rows_order(struct viewer_state *vs)
{
	const struct row *rows = vs->cpu_view ? vs->cpus : vs->threads;
	size_t n = vs->cpu_view ? vs->nr_cpus : vs->nr_threads, i;
	const struct row *sel = rows_selected(vs);
	size_t sel_id = sel ? sel->id : 0;
	int sel_node = rows_node_at(vs, vs->view.sel);
	bool grouped = vs->nodes.hdr.nr_nodes;

	/* The CPUs' tracks: a walk of every interval, made when first shown. */
	if (vs->cpu_view && !vs->tracks && tracks_build(vs))
		return -ENOMEM;
	vs->nr_order = 0;
	for (i = 0; i < n; i++)
		if (!rows[i].hidden)
			vs->order[vs->nr_order++] = i;
	/* CPUs keep their order, within their nodes. */
	if (!vs->cpu_view || grouped) {
		struct sort_ctx ctx = { rows,
					vs->cpu_view ? SORT_FIRST : vs->sort,
					grouped };

		qsort_r(vs->order, vs->nr_order, sizeof(*vs->order), row_cmp,
			&ctx);
	}
	if (grouped && group(vs, rows))
		return -ENOMEM;
	view_set_rows(&vs->view, vs->nr_order);
	if (sel)
		rows_select_id(vs, sel_id);
	else if (sel_node >= 0 && grouped)
		rows_select_node(vs, sel_node);
	return 0;
}

void rows_hide_selected(struct viewer_state *vs)
{
	const struct row *sel = rows_selected(vs);

	if (!sel || vs->nr_order <= 1)
		return;
	/* A row's id is its index in its view's rows. */
	(vs->cpu_view ? vs->cpus : vs->threads)[sel->id].hidden = true;
	rows_order(vs);
}

void rows_show_all(struct viewer_state *vs)
{
	size_t i;

	for (i = 0; i < vs->nr_threads; i++)
		vs->threads[i].hidden = false;
	for (i = 0; i < vs->nr_cpus; i++)
		vs->cpus[i].hidden = false;
	rows_order(vs);
}

int rows_fold(struct viewer_state *vs)
{
	int g = rows_node_at(vs, vs->view.sel);
	const struct row *sel = rows_selected(vs);
	int err;

	if (g < 0 && sel)
		g = sel->node;
	if (g < 0)
		return -ENOENT;
	vs->groups[g].folded = !vs->groups[g].folded;
	groups_label(vs);
	err = rows_order(vs);
	if (!err)
		rows_select_node(vs, g);
	return err;
}

int rows_node_at(const struct viewer_state *vs, size_t i)
{
	if (i >= vs->nr_order || !(vs->order[i] & ROW_NODE))
		return -1;
	return (int)(vs->order[i] & ~ROW_NODE);
}

const struct row *rows_at(const struct viewer_state *vs, size_t i)
{
	if (i >= vs->nr_order || rows_node_at(vs, i) >= 0)
		return NULL;
	return vs->cpu_view ? &vs->cpus[vs->order[i]] :
			      &vs->threads[vs->order[i]];
}

bool rows_select_id(struct viewer_state *vs, size_t id)
{
	const struct row *rows = vs->cpu_view ? vs->cpus : vs->threads;
	size_t i;

	for (i = 0; i < vs->nr_order; i++) {
		if (rows_node_at(vs, i) < 0 && rows[vs->order[i]].id == id) {
			view_select(&vs->view,
				    (int64_t)i - (int64_t)vs->view.sel);
			return true;
		}
	}
	return false;
}

const struct row *rows_selected(const struct viewer_state *vs)
{
	const struct row *rows = vs->cpu_view ? vs->cpus : vs->threads;

	if (!vs->nr_order || vs->view.sel >= vs->nr_order ||
	    rows_node_at(vs, vs->view.sel) >= 0)
		return NULL;
	return &rows[vs->order[vs->view.sel]];
}

int64_t rows_find(const struct viewer_state *vs, const char *what)
{
	const struct row *rows = vs->cpu_view ? vs->cpus : vs->threads;
	size_t k;

	for (k = 1; k <= vs->nr_order; k++) {
		size_t i = (vs->view.sel + k) % vs->nr_order;

		if (rows_node_at(vs, i) < 0 &&
		    strstr(rows[vs->order[i]].label, what))
			return (int64_t)i;
	}
	return -1;
}

/* The first slice of track t that ends after x (by_end), or that starts
 * at or after x: binary searches. Slices of one CPU do not overlap, so
 * their ends are in order as their starts are. */
static bool ends_by(const void *t, size_t i, uint64_t x)
{
	return ((const struct cpu_track *)t)->s[i].end <= x;
}

static bool starts_before(const void *t, size_t i, uint64_t x)
{
	return ((const struct cpu_track *)t)->s[i].start < x;
}

static size_t first_slice(const struct cpu_track *t, uint64_t x, bool by_end)
{
	return layout_lower_bound(t->n, by_end ? ends_by : starts_before, t, x);
}

uint32_t rows_cpu_cell(const struct viewer_state *vs, size_t cpu,
		       unsigned int c)
{
	const struct cpu_track *t = &vs->tracks[cpu];
	const struct view *v = &vs->view;
	uint64_t lo = view_col_time(v, c), hi = view_col_time(v, c + 1);
	size_t first = first_slice(t, lo, true);
	size_t end = first_slice(t, hi, false), mid;

	if (end <= first)
		return 0;
	/* Several slices: the one at the column's middle, marked. */
	mid = first_slice(t, lo + (hi - lo) / 2, true);
	if (mid >= end)
		mid = end - 1;
	return (t->s[mid].th + 1) | (end - first > 1 ? CPU_CELL_MIXED : 0);
}

void rows_cpu_cells(const struct viewer_state *vs, size_t cpu, uint32_t *cells)
{
	unsigned int c;

	for (c = 0; c < vs->view.cols; c++)
		cells[c] = rows_cpu_cell(vs, cpu, c);
}

static bool peer_by(const void *t, size_t i, uint64_t x)
{
	return ((const struct cpu_track *)t)->peers[i].time <= x;
}

const struct cpu_peer *rows_cpu_peer(const struct viewer_state *vs, size_t cpu,
				     uint64_t t)
{
	const struct cpu_track *k = &vs->tracks[cpu];
	size_t i = layout_lower_bound(k->nr_peers, peer_by, k, t);

	return i ? &k->peers[i - 1] : NULL;
}
