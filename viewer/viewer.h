/* SPDX-License-Identifier: GPL-2.0 */
/*
 * viewer.h - mkm view, the ncurses timeline viewer (PIEScope in a
 * terminal). Its parts, as tig keeps views apart from drawing:
 *
 *   model.c   the window, cursor, metering lines and selected row (pure)
 *   state.h   what the user navigates, without a terminal: rows, order,
 *             sort, selection, panes, places, search, message; state.c
 *             opens it, actions.c applies a key's action to it
 *   layout.c  a time range and a width to cells (pure, shared with
 *             mkm timeline); lod.c indexes the intervals so a frame costs
 *             O(rows x columns x log n), and gives a window's time per
 *             state group and the flutters on screen
 *   rows.c    which threads (or CPUs) are rows, their order, hidden ones;
 *             a merged trace's threads under a header row per node
 *   keys.c    one table of keys: what each does, and the help screen
 *   draw.c    ncurses only paints the state (const: the noise pane's
 *             figures too, state_noise_update() computes them)
 *   events.c  the events pane: a thread's records around the cursor,
 *             read again from the file through a pipeline
 *   waker.c   follow the waker (W) and back (b)
 *   path.c    the critical path of a thread's wait chain (P)
 *   late.c    the wakeup pane: why the wakeup under the cursor waited
 *   wide.c    the compensated timeline's bounds: rows marked where they
 *             are wide, the selected thread's in a pane
 *   bounds.c  the figures and their bounds in words (mkm report's too)
 *   live.c    --live: the recording's records handed to the viewer
 *   viewer.c  the loop: keys to actions, prompts, the mouse, frames
 *
 * This header is the terminal's side: the state and what only a terminal
 * has (its glyphs and colours, the help screen, the loop's callbacks).
 */
#ifndef MKM_VIEWER_H
#define MKM_VIEWER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "state.h"

struct viewer {
	struct viewer_state vs;
	bool utf8, colour, ascii_only;
	bool help, quit;
	/* Live: called between frames (at least every 100 ms) to feed the
	 * timeline; it calls state_refresh() when it did. */
	void (*tick)(struct viewer_state *vs, void *arg);
	void *tick_arg;
	/* K: show the other timeline of the trace (raw <-> compensated);
	 * it calls state_swap(), or says why not in vs->message. NULL: none. */
	void (*toggle)(struct viewer_state *vs, void *arg);
	void *toggle_arg;
};

/* draw.c */
int draw_init(struct viewer *w);
void draw_end(void);
/* The time area's columns and the rows' lines on this screen, with the
 * panes @vs has open; false if the screen is too small for any. */
bool draw_size(const struct viewer_state *vs, unsigned int *cols,
	       unsigned int *page);
void draw(const struct viewer *w);
/* What screen position (y, x) shows: the time area's column and the row
 * index (into the shown rows), each -1 if outside. */
void draw_locate(const struct viewer_state *vs, int y, int x, int *col,
		 int64_t *row);
/* Ask for a line of text at the bottom; false if cancelled. */
bool draw_prompt(const char *prompt, char *buf, size_t len);

/* wide.c: the compensated timeline's bounds (vs->bounds). A thread's
 * row is marked WIDE_WIDE (±) or WIDE_UNKNOWN (?) by the rule at the top
 * of wide.c. */
enum wide_mark { WIDE_NONE, WIDE_WIDE, WIDE_UNKNOWN }; /* none: unmarked */
/* Shows @bs (NULL: none; lent, kept until the next call or state_swap())
 * as the bounds of the timeline shown, each thread marked.
 * Return: 0 or -ENOMEM (none shown). */
int wide_set(struct viewer_state *vs, const struct mon_bounds *bs);
/* Thread index @th's mark (WIDE_NONE when no bounds are shown). */
enum wide_mark wide_mark(const struct viewer_state *vs, size_t th);
/* The bounds pane's lines for the selected thread, at most @max: its
 * verdict, each figure with its low, high, width and parts, and what is
 * not in them, in words; 0 when there is no pane (no bounds shown, the
 * CPUs view, no thread selected). */
#define WIDE_LINE 192
unsigned int wide_text(const struct viewer_state *vs, char (*text)[WIDE_LINE],
		       unsigned int max);

/* viewer.c */
int viewer_open(struct viewer *w, const char *file, struct tl *tl,
		const struct mon_meta *meta);
void viewer_close(struct viewer *w);
/* One frame: the state sized to the screen, then painted. */
void viewer_frame(struct viewer *w);
/* Runs until the user quits; 0, or -1 when the terminal cannot. */
int viewer_run(struct viewer *w);

#endif /* MKM_VIEWER_H */
