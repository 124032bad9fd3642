/* SPDX-License-Identifier: GPL-2.0 */
/*
 * state.h - what the user navigates in mkm view, without a terminal: the
 * rows shown and their order, sort and selection, the panes open, the
 * places W keeps for b, the last search and the message, over the
 * model's window (model.h). Keys change it (actions.c, rows.c, waker.c,
 * path.c, events.c), and so does each frame (state_noise_update(),
 * late_update()); the drawing only reads it, so all of it can be
 * built and driven in a unit test (tests/unit/test_state.c).
 */
#ifndef MKM_STATE_H
#define MKM_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keys.h"
#include "libmonitor.h"
#include "lod.h"
#include "model.h"

enum rows_sort {
	SORT_FIRST,
	SORT_NAME,
	SORT_TID,
	SORT_RUN,
	SORT_RUNQ,
	SORT_PROCESS, /* by process (pid), then tid */
	NR_SORTS
};

/* One row: a thread, or in the CPUs view a CPU. */
struct row {
	size_t id; /* thread index in the timeline, or CPU number */
	char label[40];
	uint32_t tid, pid; /* a thread's, and its process's (tl_process()) */
	uint64_t run_ns, runq_ns; /* over the whole trace, for sorting */
	bool hidden;
	int node; /* a merged trace's thread: its node (in nodes), else -1 */
};

/* A merged trace's node (mkm merge): the header row over its threads. */
struct node_group {
	char label[128]; /* the name, its threads, its CPUs */
	size_t nr_threads;
	bool folded; /* its threads not shown: the header alone */
};

/* In viewer_state.order, a node's header row: ROW_NODE | the node's index. */
#define ROW_NODE ((size_t)1 << (sizeof(size_t) * 8 - 1))

/* One thread's time on a CPU (the CPUs view). */
struct cpu_slice {
	uint64_t start, end;
	uint32_t th;
};

/* An unmonitored task switched in by a monitored one (SWITCH_OUT's next). */
struct cpu_peer {
	uint64_t time;
	uint32_t tid; /* 0: idle, or a task the monitor may not name */
};

struct cpu_track {
	struct cpu_slice *s;
	size_t n, cap;
	struct cpu_peer *peers; /* in time order */
	size_t nr_peers, cap_peers;
};

/* Where the user was before following a waker (W), for b. */
struct place {
	size_t th; /* the selected thread's index */
	uint64_t cursor, t0, t1;
};
#define VIEWER_PLACES 64

/* A view's selection, kept while the other view is shown (Tab). */
struct kept_place {
	size_t id; /* the row's id (thread index or CPU), or the node's */
	size_t top; /* the first row shown */
	bool node; /* a node's header row was selected */
	bool valid;
};

struct viewer_state {
	const char *file; /* read again by the panes; NULL: none */
	struct tl *tl;
	struct lod *lod;
	struct mon_meta meta;
	struct view view;
	struct row *threads, *cpus; /* all rows of each view */
	size_t nr_threads, nr_cpus;
	size_t *order; /* the rows shown, in order: indexes into threads/cpus,
			  or ROW_NODE | a node (a merged trace: each
			  node's header, its threads or CPUs under it) */
	struct mon_nodes nodes; /* a merged trace's (hdr.nr_nodes 0: none) */
	struct node_group *groups; /* one per node */
	size_t nr_order;
	struct cpu_track *tracks; /* per CPU */
	enum rows_sort sort;
	struct kept_place kept[2]; /* of the threads view [0], CPUs [1] */
	struct place places[VIEWER_PLACES]; /* W's way back, newest last */
	size_t nr_places;
	bool cpu_view, meter_pane, events_pane, noise_pane;
	struct mon_path path; /* P: the critical path shown, or none */
	bool path_pane;
	size_t path_th; /* whose path it is, back from path_at */
	uint64_t path_at;
	struct noise *noise; /* the noise pane's index, made when opened */
	/* The noise pane's figures for the frame (noise_ok: there are some),
	 * over A..B (noise_metered) or the window on screen. */
	struct noise_result noise_res;
	bool noise_ok, noise_metered;
	/* The wakeup pane's (late.c): why the selected thread's wakeup
	 * under the cursor waited, for the frame (late_ok: there is one),
	 * and which wait it is (late_th's interval late_iv, -1: none). */
	struct mon_late late;
	bool late_ok;
	size_t late_th;
	int64_t late_iv;
	struct noise *late_noise; /* its index, made when first needed */
	struct mon_wakings *late_wakings; /* the file's WAKING records */
	bool late_stale; /* the timeline grew since they were made */
	uint64_t late_upto; /* the timeline's end when they were made */
	struct mkm_event *events; /* the events pane's records, in time order */
	size_t nr_events, events_before; /* of those, before the cursor */
	uint32_t events_tid; /* the pane's thread, or 0 */
	int events_cpu; /* the pane's CPU (CPUs view), or -1 */
	uint64_t events_cursor; /* where they were read around */
	/* The compensated figures' bounds of the timeline shown (K's, or a
	 * compensated trace's BOUNDS chunk), NULL: none; and each thread's
	 * mark by thread index, nr_wide of them (wide.c: enum wide_mark). */
	const struct mon_bounds *bounds;
	unsigned char *wide;
	size_t nr_wide;
	char search[64];
	char message[320]; /* for the footer (or the detail lines if long),
			     until the next key */
};

/* state.c */
/* The state of @tl, whose records the panes read again from @file (NULL:
 * none, and they say so); fitted, the first row selected.
 * Return: 0 or -ENOMEM. */
int state_open(struct viewer_state *vs, const char *file, struct tl *tl,
	       const struct mon_meta *meta);
void state_close(struct viewer_state *vs);
/* The timeline grew: index it, add rows, extend the time range. */
int state_refresh(struct viewer_state *vs);
/* The cursor on the timeline's first trigger (a flight recorder's
 * snapshot), if it has one. */
void state_at_trigger(struct viewer_state *vs);
/* Shows @tl (another timeline of the same trace) in place of the one
 * shown, at the same times; rows are rebuilt, bounds dropped (they were
 * the other's: wide_set() gives the new one's). Return: 0 or -ENOMEM. */
int state_swap(struct viewer_state *vs, struct tl *tl,
	       const struct mon_meta *meta);
/* Before each frame: the noise pane's figures for the selected thread. */
void state_noise_update(struct viewer_state *vs);

/* late.c: before each frame, the wakeup pane's breakdown of the selected
 * thread's wakeup under the cursor (or the events pane's SWITCH_IN at >),
 * if it is one; late_clear() drops it, late_free() its index too. */
void late_update(struct viewer_state *vs);
void late_clear(struct viewer_state *vs);
void late_free(struct viewer_state *vs);

/* actions.c */
/* Apply action @a; @text is what the user typed for the actions that ask
 * (act_prompt()), NULL or "" if nothing. The events pane then follows the
 * cursor and the selection. Actions of the terminal (quit, help, K) do
 * nothing here. */
void act(struct viewer_state *vs, enum action a, const char *text);
/* The prompt to ask the user with before act(@a), or NULL if @a asks
 * nothing (or, as it stands, would not use the answer). */
const char *act_prompt(const struct viewer_state *vs, enum action a);

/* rows.c */
/* The rows of the timeline's threads and CPUs, new ones added (live). */
int rows_update(struct viewer_state *vs);
void rows_free(struct viewer_state *vs);
/* Recompute the shown rows (view, sort, hidden), keeping the selection.
 * Return: 0 or -ENOMEM (the CPUs view's tracks). */
int rows_order(struct viewer_state *vs);
/* Select the shown row of id @id (a thread index or a CPU), scrolling it
 * into view; false if no shown row has it. */
bool rows_select_id(struct viewer_state *vs, size_t id);
/* The selected row's entry (a thread or a CPU), or NULL if none or a
 * node's header row. */
const struct row *rows_selected(const struct viewer_state *vs);
/* Shown row @i's entry (a thread or a CPU), or NULL if a node's header
 * row or past the end. */
const struct row *rows_at(const struct viewer_state *vs, size_t i);
/* The node whose header shown row @i is, or -1 if it is none. */
int rows_node_at(const struct viewer_state *vs, size_t i);

/* Select node @node's header row. Return: false if it is not shown. */
bool rows_select_node(struct viewer_state *vs, int node);
/* Hide the selected row, unless it is the last shown; show all rows. */
void rows_hide_selected(struct viewer_state *vs);
void rows_show_all(struct viewer_state *vs);
/* Fold the node of the selected row (its header or one of its threads)
 * to its header row, or unfold it; its header is selected.
 * Return: 0, -ENOENT (not a merged trace, or a row of no node) or
 * -ENOMEM. */
int rows_fold(struct viewer_state *vs);
/* The next shown row after the selection whose label holds @what (a name
 * or a tid), wrapping; -1 if none. */
int64_t rows_find(const struct viewer_state *vs, const char *what);
const char *rows_sort_name(enum rows_sort s);
/*
 * The cells of CPU @cpu, in O(log n) each: the thread index + 1 of the
 * monitored thread that ran there (the one at the column's middle if
 * several did, with CPU_CELL_MIXED set), or 0 where none ran.
 */
#define CPU_CELL_MIXED 0x80000000u
void rows_cpu_cells(const struct viewer_state *vs, size_t cpu, uint32_t *cells);
/* The same, for column @c alone. */
uint32_t rows_cpu_cell(const struct viewer_state *vs, size_t cpu,
		       unsigned int c);
/* The last task a monitored thread switched to on CPU @cpu at or before
 * @t (events_peers() read them), or NULL. */
const struct cpu_peer *rows_cpu_peer(const struct viewer_state *vs, size_t cpu,
				     uint64_t t);

/* events.c: the records of thread @tid (0: any) on CPU @cpu (-1: any)
 * around the cursor, within the window on screen, @max at most; 0 or
 * -errno (vs->message says why). */
int events_around(struct viewer_state *vs, uint32_t tid, int cpu, size_t max);

/* events.c: reads the trace file again, file source -> @filter (if not
 * NULL) -> order stage -> a sink of @ops and @priv; a cut file (live: still
 * being written) gives what it has. 0, or -errno (vs->message says why). */
int events_read(struct viewer_state *vs, const struct mon_filter *filter,
		const struct mon_sink_ops *ops, void *priv);

/* events.c: the tasks monitored threads switched to, per CPU, into the
 * CPUs view's tracks (a read of the file); 0 or -errno. */
int events_peers(struct viewer_state *vs);

/* waker.c: follow the waker (W) of the selected thread at the cursor:
 * its row selected, the cursor at the wakeup, the way back kept; and back
 * (b). Each says what it did, or why not, in vs->message. */
void waker_follow(struct viewer_state *vs);
void waker_back(struct viewer_state *vs);

/* path.c: P computes the critical path of the selected thread back from
 * the cursor and opens its pane, or closes it (vs->message says why not);
 * path_clear() drops it; path_row() sets @on[c] for the columns of
 * thread @th's row that lie on the path (view.cols of them). */
void path_toggle(struct viewer_state *vs);
void path_clear(struct viewer_state *vs);
void path_row(const struct viewer_state *vs, size_t th, bool *on);

#endif /* MKM_STATE_H */
