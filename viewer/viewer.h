/* SPDX-License-Identifier: GPL-2.0 */
/*
 * viewer.h - mkm view, the ncurses timeline viewer (PIEScope in a
 * terminal). Its parts, as tig keeps views apart from drawing:
 *
 *   model.c   the window, cursor, metering lines and rows (pure)
 *   layout.c  a time range and a width to cells (pure, shared with
 *             mkm timeline); lod.c indexes the intervals so a frame costs
 *             O(rows x columns x log n), and gives a window's time per
 *             state group and the flutters on screen
 *   rows.c    which threads (or CPUs) are rows, their order, hidden ones;
 *             a merged trace's threads under a header row per node
 *   keys.c    one table of keys: what each does, and the help screen
 *   draw.c    ncurses only paints the state above (the noise pane's
 *             figures too: viewer.c computes them before each frame)
 *   events.c  the events pane: a thread's records around the cursor,
 *             read again from the file through a pipeline
 *   waker.c   follow the waker (W) and back (b)
 *   path.c    the critical path of a thread's wait chain (P)
 *   live.c    --live: the recording's records handed to the viewer
 *   viewer.c  the loop: keys to actions, actions to the model
 */
#ifndef MKM_VIEWER_H
#define MKM_VIEWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* In viewer.order, a node's header row: ROW_NODE | the node's index. */
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
	size_t id; /* the row's id: thread index or CPU */
	size_t top; /* the first row shown */
	bool valid;
};

struct viewer {
	const char *file;
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
	bool cpu_view, help, meter_pane, events_pane, noise_pane;
	struct mon_path path; /* P: the critical path shown, or none */
	bool path_pane;
	size_t path_th; /* whose path it is, back from path_at */
	uint64_t path_at;
	struct noise *noise; /* the noise pane's index, made when opened */
	/* The noise pane's figures for the frame (noise_ok: there are some),
	 * over A..B (noise_metered) or the window on screen. */
	struct noise_result noise_res;
	bool noise_ok, noise_metered;
	struct mkm_event *events; /* the events pane's records, in time order */
	size_t nr_events, events_before; /* of those, before the cursor */
	uint32_t events_tid; /* the pane's thread, or 0 */
	int events_cpu; /* the pane's CPU (CPUs view), or -1 */
	uint64_t events_cursor; /* where they were read around */
	bool utf8, colour, ascii_only;
	char search[64];
	/* Live: called between frames (at least every 100 ms) to feed the
	 * timeline; it calls viewer_refresh() when it did. */
	void (*tick)(struct viewer *w, void *arg);
	void *tick_arg;
	/* K: show the other timeline of the trace (raw <-> compensated);
	 * it calls viewer_swap(), or says why not in message. NULL: none. */
	void (*toggle)(struct viewer *w, void *arg);
	void *toggle_arg;
	char message[320]; /* for the footer (or the detail lines if long),
			     until the next key */
	bool quit;
};

/* rows.c */
/* The rows of the timeline's threads and CPUs, new ones added (live). */
int rows_update(struct viewer *w);
void rows_free(struct viewer *w);
/* Recompute the shown rows (view, sort, hidden), keeping the selection.
 * Return: 0 or -ENOMEM (the CPUs view's tracks). */
int rows_order(struct viewer *w);
/* Select the shown row of id @id (a thread index or a CPU), scrolling it
 * into view; false if no shown row has it. */
bool rows_select_id(struct viewer *w, size_t id);
/* The selected row's entry (a thread or a CPU), or NULL if none or a
 * node's header row. */
struct row *rows_selected(struct viewer *w);
/* Shown row @i's entry (a thread or a CPU), or NULL if a node's header
 * row or past the end. */
const struct row *rows_at(const struct viewer *w, size_t i);
/* The node whose header shown row @i is, or -1 if it is none. */
int rows_node_at(const struct viewer *w, size_t i);
/* Fold the node of the selected row (its header or one of its threads)
 * to its header row, or unfold it; its header is selected.
 * Return: 0, -ENOENT (not a merged trace, or a row of no node) or
 * -ENOMEM. */
int rows_fold(struct viewer *w);
/* The next shown row after the selection whose label holds @what (a name
 * or a tid), wrapping; -1 if none. */
int64_t rows_find(const struct viewer *w, const char *what);
const char *rows_sort_name(enum rows_sort s);
/*
 * The cells of CPU @cpu, in O(log n) each: the thread index + 1 of the
 * monitored thread that ran there (the one at the column's middle if
 * several did, with CPU_CELL_MIXED set), or 0 where none ran.
 */
#define CPU_CELL_MIXED 0x80000000u
void rows_cpu_cells(const struct viewer *w, size_t cpu, uint32_t *cells);
/* The same, for column @c alone. */
uint32_t rows_cpu_cell(const struct viewer *w, size_t cpu, unsigned int c);
/* The last task a monitored thread switched to on CPU @cpu at or before
 * @t (events_peers() read them), or NULL. */
const struct cpu_peer *rows_cpu_peer(const struct viewer *w, size_t cpu,
				     uint64_t t);

/* events.c: the records of thread @tid (0: any) on CPU @cpu (-1: any)
 * around the cursor, within the window on screen, @max at most; 0 or
 * -errno (w->message says why). */
int events_around(struct viewer *w, uint32_t tid, int cpu, size_t max);

/* events.c: reads the trace file again, file source -> @filter (if not
 * NULL) -> order stage -> a sink of @ops and @priv; a cut file (live: still
 * being written) gives what it has. 0, or -errno (w->message says why). */
int events_read(struct viewer *w, const struct mon_filter *filter,
		const struct mon_sink_ops *ops, void *priv);

/* waker.c: follow the waker (W) of the selected thread at the cursor:
 * its row selected, the cursor at the wakeup, the way back kept; and back
 * (b). Each says what it did, or why not, in w->message. */
void waker_follow(struct viewer *w);
void waker_back(struct viewer *w);

/* path.c: P computes the critical path of the selected thread back from
 * the cursor and opens its pane, or closes it (w->message says why not);
 * path_clear() drops it; path_row() sets @on[c] for the columns of
 * thread @th's row that lie on the path (view.cols of them). */
void path_toggle(struct viewer *w);
void path_clear(struct viewer *w);
void path_row(const struct viewer *w, size_t th, bool *on);

/* events.c: the tasks monitored threads switched to, per CPU, into the
 * CPUs view's tracks (a read of the file); 0 or -errno. */
int events_peers(struct viewer *w);

/* draw.c */
int draw_init(struct viewer *w);
void draw_end(void);
void draw(struct viewer *w);
/* What screen position (y, x) shows: the time area's column and the row
 * index (into the shown rows), each -1 if outside. */
void draw_locate(const struct viewer *w, int y, int x, int *col, int64_t *row);
/* Ask for a line of text at the bottom; false if cancelled. */
bool draw_prompt(const char *prompt, char *buf, size_t len);

/* viewer.c */
int viewer_open(struct viewer *w, const char *file, struct tl *tl,
		const struct mon_meta *meta);
void viewer_close(struct viewer *w);
/* The timeline grew: index it, add rows, extend the time range. */
int viewer_refresh(struct viewer *w);
/* Shows @tl (another timeline of the same trace) in place of the one
 * shown, at the same times; rows are rebuilt. Return: 0 or -ENOMEM. */
int viewer_swap(struct viewer *w, struct tl *tl, const struct mon_meta *meta);
/* Runs until the user quits; 0, or -1 when the terminal cannot. */
int viewer_run(struct viewer *w);

#endif /* MKM_VIEWER_H */
