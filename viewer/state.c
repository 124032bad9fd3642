// SPDX-License-Identifier: GPL-2.0
/* state.c - the viewer's state (see state.h): opened on a timeline,
 * refreshed as it grows, swapped for another, closed. */

#include <stdlib.h>
#include <string.h>

#include "state.h"

/* The time the timeline covers: its threads' lives. */
static void time_range(const struct tl *tl, uint64_t *begin, uint64_t *end)
{
	size_t th;

	*begin = UINT64_MAX;
	*end = 0;
	for (th = 0; th < tl_nr_threads(tl); th++) {
		struct tl_thread t;

		tl_thread(tl, th, &t);
		if (t.first_ns < *begin)
			*begin = t.first_ns;
		if (t.end_ns > *end)
			*end = t.end_ns;
	}
	if (*begin > *end)
		*begin = *end = 0;
}

/* A flight recorder's snapshot opens with the cursor on its trigger. */
void state_at_trigger(struct viewer_state *vs)
{
	for (size_t k = 0; k < tl_nr_marks(vs->tl); k++) {
		struct tl_mark m;

		if (tl_mark(vs->tl, k, &m))
			return;
		if (m.trigger) {
			view_set_cursor(&vs->view, m.time_ns);
			return;
		}
	}
}

int state_open(struct viewer_state *vs, const char *file, struct tl *tl,
	       const struct mon_meta *meta)
{
	uint64_t begin, end;
	int err;

	memset(vs, 0, sizeof(*vs));
	vs->file = file;
	vs->tl = tl;
	vs->meta = *meta;
	/* A merged trace's nodes group its threads; any other has none (and
	 * is not read again for them). */
	if (file && meta->info.trace_flags & TRACE_F_MERGED &&
	    !mon_nodes_load(&vs->nodes, file)) {
		vs->groups =
			calloc(vs->nodes.hdr.nr_nodes, sizeof(*vs->groups));
		if (!vs->groups) {
			mon_nodes_free(&vs->nodes);
			memset(&vs->nodes, 0, sizeof(vs->nodes));
		}
	} else {
		memset(&vs->nodes, 0, sizeof(vs->nodes));
	}
	vs->late_iv = -1;
	time_range(tl, &begin, &end);
	view_init(&vs->view, begin, end, 80);
	state_at_trigger(vs);
	err = lod_create(&vs->lod, tl);
	if (!err)
		err = rows_update(vs);
	return err;
}

int state_refresh(struct viewer_state *vs)
{
	uint64_t begin, end;
	int err = lod_update(vs->lod);

	vs->late_stale = true; /* the wakeup pane indexes it again */
	if (!err)
		err = rows_update(vs);
	time_range(vs->tl, &begin, &end);
	view_set_range(&vs->view, begin, end);
	return err;
}

int state_swap(struct viewer_state *vs, struct tl *tl,
	       const struct mon_meta *meta)
{
	struct lod *lod;
	int err = lod_create(&lod, tl);

	if (err)
		return err;
	lod_destroy(vs->lod);
	rows_free(vs);
	vs->lod = lod;
	vs->tl = tl;
	vs->meta = *meta;
	vs->threads = vs->cpus = NULL;
	vs->order = NULL;
	vs->nr_threads = vs->nr_cpus = vs->nr_order = 0;
	vs->events_cursor = UINT64_MAX; /* the pane reads them again */
	late_free(vs); /* so did the wakeup pane's */
	noise_destroy(vs->noise); /* it indexed the other timeline */
	vs->noise = NULL;
	vs->noise_pane = false;
	path_clear(vs); /* its times are the other timeline's */
	free(vs->wide); /* so were the bounds */
	vs->wide = NULL;
	vs->nr_wide = 0;
	vs->bounds = NULL;
	err = rows_update(vs);
	return err ? err : rows_order(vs);
}

void state_close(struct viewer_state *vs)
{
	noise_result_free(&vs->noise_res);
	noise_destroy(vs->noise);
	late_free(vs);
	mon_path_free(&vs->path);
	free(vs->events);
	free(vs->wide);
	rows_free(vs);
	lod_destroy(vs->lod);
	free(vs->groups);
	mon_nodes_free(&vs->nodes);
}

/* Who took time from the selected thread (mon_analysis.h) in the metering
 * window, or in the window on screen when A and B are not both set: the
 * noise pane's figures, computed for each frame, which draw.c shows. */
void state_noise_update(struct viewer_state *vs)
{
	const struct row *sel = rows_selected(vs);
	uint64_t a, b;

	noise_result_free(&vs->noise_res);
	memset(&vs->noise_res, 0, sizeof(vs->noise_res));
	vs->noise_metered = view_meter_window(&vs->view, &a, &b);
	vs->noise_ok = vs->noise_pane && sel && vs->noise &&
		       !noise_thread(vs->noise, sel->id, a, b, &vs->noise_res);
}
