// SPDX-License-Identifier: GPL-2.0
/*
 * bench_view.c - what mkm view costs on a large trace (make bench-view):
 * the time to the first frame after opening, frame times fully zoomed
 * out, at a middle zoom and at the deepest zoom on a 200x60 screen, and
 * the level-of-detail index's memory against the timeline's.
 *
 * Frames are drawn by the viewer's own code into an ncurses screen whose
 * output goes to /dev/null: layout, index lookups and painting are all
 * counted, the terminal's own time is not.
 *
 *   bench_view TRACE
 */
#define _XOPEN_SOURCE_EXTENDED
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "messages.h"
#include "trace.h"
#include "viewer.h"

#define FRAMES 60
#define SCREEN_COLS 200
#define SCREEN_LINES 60

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* FRAMES frames of span ns each, at positions spread over the trace and
 * over the rows; prints the median and the max. */
static void frames(struct viewer *w, const char *what, uint64_t span)
{
	struct view *v = &w->vs.view;
	uint64_t whole = v->end - v->begin;
	double t[FRAMES];
	unsigned int i;

	for (i = 0; i < FRAMES; i++) {
		double t0;

		view_fit(v);
		if (span < whole) {
			view_set_cursor(v, v->begin + whole / FRAMES * i);
			view_zoom_to(v, v->cursor, v->cursor + span);
		}
		view_select(v,
			    (int64_t)(i * 97 % (v->nr_rows ? v->nr_rows : 1)) -
				    (int64_t)v->sel);
		t0 = now_s();
		viewer_frame(w);
		t[i] = now_s() - t0;
	}
	qsort(t, FRAMES, sizeof(t[0]), cmp_double);
	printf("  %-28s median %6.2f ms  max %6.2f ms  (%d frames)\n", what,
	       t[FRAMES / 2] * 1e3, t[FRAMES - 1] * 1e3, FRAMES);
}

int main(int argc, char **argv)
{
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	struct tl_memory mem;
	struct tl_stats st;
	struct mon_meta meta;
	struct viewer w;
	double t0, t_load, t_index, t_first;
	struct tl *tl;
	SCREEN *scr;

	if (argc != 2 || !out || !in) {
		fprintf(stderr, "usage: bench_view TRACE\n");
		return 2;
	}
	t0 = now_s();
	tl = load_trace(argv[1], &meta, NULL, 0);
	t_load = now_s();
	if (viewer_open(&w, argv[1], tl, &meta)) {
		fprintf(stderr, "bench_view: out of memory\n");
		return 1;
	}
	t_index = now_s();
	scr = newterm("xterm-256color", out, in);
	if (!scr) {
		fprintf(stderr, "bench_view: no terminfo for xterm-256color\n");
		return 1;
	}
	resize_term(SCREEN_LINES, SCREEN_COLS);
	w.utf8 = true;
	w.colour = true;
	start_color();
	viewer_frame(&w);
	t_first = now_s();

	tl_stats(tl, &st);
	tl_memory(tl, &mem);
	printf("bench-view: %s: %llu events, %zu threads, %zu CPUs; "
	       "screen %dx%d\n",
	       argv[1], (unsigned long long)st.events, w.vs.nr_threads,
	       w.vs.nr_cpus, SCREEN_COLS, SCREEN_LINES);
	printf("  first frame after opening    %6.2f s (reading %.2f s, "
	       "index and rows %.2f s, one frame %.1f ms)   goal <= 2 s\n",
	       t_first - t0, t_load - t0, t_index - t_load,
	       (t_first - t_index) * 1e3);
	frames(&w, "fully zoomed out", UINT64_MAX);
	frames(&w, "middle zoom (1/1000 of it)",
	       (w.vs.view.end - w.vs.view.begin) / 1000);
	frames(&w, "deepest zoom (1 ns/column)", w.vs.view.cols);
	t0 = now_s();
	w.vs.cpu_view = true;
	rows_order(&w.vs);
	printf("  CPUs view first shown        %6.2f s (its tracks built)\n",
	       now_s() - t0);
	frames(&w, "CPUs view, zoomed out", UINT64_MAX);
	frames(&w, "CPUs view, middle zoom",
	       (w.vs.view.end - w.vs.view.begin) / 1000);
	printf("  goal: every frame <= 16 ms\n");
	printf("  index %.1f MiB, timeline %.1f MiB: %.1f%% of it   "
	       "goal <= 25%%\n",
	       lod_bytes(w.vs.lod) / 1048576.0, mem.total_bytes / 1048576.0,
	       100.0 * (double)lod_bytes(w.vs.lod) / (double)mem.total_bytes);
	endwin();
	delscreen(scr);
	viewer_close(&w);
	tl_destroy(tl);
	return 0;
}
