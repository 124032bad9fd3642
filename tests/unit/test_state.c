// SPDX-License-Identifier: GPL-2.0
/*
 * test_state.c - the viewer's state driven without a terminal
 * (viewer/state.h): a trace written to a temporary file and its timeline,
 * then the actions the keys call, as the user presses them.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "evstream.h"
#include "state.h"

#define WAKEUP_BY(s, t, c, tid, waker) \
	evs_add(s, t, c, MKM_EV_WAKEUP, tid, c, waker, 0)

/* A trace on disk, its timeline and a state opened on both. */
struct fixture {
	char path[64];
	struct tl *tl;
	struct viewer_state vs;
};

/*
 * Writes @s (in time order) as a trace of two CPUs with wakeups, with a
 * NODES chunk of @nodes if @nr_nodes (a merged trace), feeds the same
 * records to a timeline, and opens the state on them: a 80-column screen
 * of @page rows.
 */
static void fixture_open(struct fixture *f, const struct evs *s,
			 const struct trace_node *nodes, size_t nr_nodes,
			 unsigned int page)
{
	struct mon_meta meta = { .info = { .nr_cpus = 2,
					   .classes = MKM_CLASS_DEFAULT |
						      MKM_CLASS_WAKEUP } };
	struct tl_config cfg = { .nr_cpus = 2, .classes = meta.info.classes };
	struct trace_nodes_hdr hdr = { .job_id = 7 };
	struct trace_writer *w;
	int fd;

	if (nr_nodes)
		meta.info.trace_flags |= TRACE_F_MERGED;
	strcpy(f->path, "/tmp/mkm-test-state-XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(trace_writer_open(&w, f->path, &meta.info), 0);
	if (nr_nodes)
		assert_int_equal(trace_writer_nodes(w, &hdr, nodes, nr_nodes),
				 0);
	assert_int_equal(trace_writer_events(w, s->ev, s->n), 0);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(tl_create(&f->tl, &cfg), 0);
	assert_int_equal(tl_feed(f->tl, s->ev, s->n), 0);
	assert_int_equal(tl_flush(f->tl), 0);
	assert_int_equal(state_open(&f->vs, f->path, f->tl, &meta), 0);
	view_set_size(&f->vs.view, 80, page);
}

static void fixture_close(struct fixture *f)
{
	state_close(&f->vs);
	tl_destroy(f->tl);
	unlink(f->path);
}

/*
 * Three threads on two CPUs: 10 runs on CPU 0 and wakes 11 at 200, which
 * takes CPU 0 from it at 300; 12 runs on CPU 1, sleeps at 400, is woken
 * by 11 at 500 and runs again from 600; 10 runs again from 900.
 */
static void three_threads(struct evs *s)
{
	memset(s, 0, sizeof(*s));
	ATTACH(s, 100, 0, 10, MKM_TS_RUNNING, 0);
	ATTACH(s, 101, 0, 11, MKM_TS_INTERRUPTIBLE, 0xffffffffu);
	ATTACH(s, 102, 1, 12, MKM_TS_RUNNING, 1);
	WAKEUP_BY(s, 200, 0, 11, 10);
	evs_switch(s, false, 300, 0, 10, MKM_TS_RUNNING, MKM_EVF_PREEMPTED, 11,
		   100, 0);
	evs_switch(s, false, 400, 1, 12, MKM_TS_INTERRUPTIBLE, 0, 0, 0, 0);
	WAKEUP_BY(s, 500, 0, 12, 11);
	evs_switch(s, false, 600, 1, 0, MKM_TS_RUNNING, 0, 12, 100, 0);
	evs_switch(s, false, 900, 0, 11, MKM_TS_INTERRUPTIBLE, 0, 10, 600, 0);
	evs_switch(s, false, 1000, 1, 12, MKM_TS_INTERRUPTIBLE, 0, 0, 0, 0);
}

/* The thread index of tid @tid; fails the test if there is none. */
static size_t thread_of(const struct fixture *f, uint32_t tid)
{
	int64_t th = tl_find(f->tl, tid);

	assert_true(th >= 0);
	return (size_t)th;
}

static void select_thread(struct fixture *f, uint32_t tid)
{
	assert_true(rows_select_id(&f->vs, thread_of(f, tid)));
}

static uint32_t selected_tid(const struct fixture *f)
{
	const struct row *sel = rows_selected(&f->vs);

	assert_non_null(sel);
	return sel->tid;
}

/* Each test's state: on three_threads(), 20 rows on screen. */
static int three_threads_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct evs s;

	if (!f)
		return -1;
	three_threads(&s);
	fixture_open(f, &s, NULL, 0, 20);
	*state = f;
	return 0;
}

static int fixture_teardown(void **state)
{
	fixture_close(*state);
	free(*state);
	return 0;
}

static void
test_act_tab_to_cpus_and_back_keeps_the_selected_thread(void **state)
{
	struct fixture *f = *state;

	select_thread(f, 12);
	view_set_cursor(&f->vs.view, 700);
	act(&f->vs, ACT_CPUS, NULL);
	/* The CPU 12 runs on at the cursor. */
	assert_true(f->vs.cpu_view);
	assert_non_null(rows_selected(&f->vs));
	assert_int_equal(rows_selected(&f->vs)->id, 1);
	act(&f->vs, ACT_UP, NULL);
	assert_int_equal(rows_selected(&f->vs)->id, 0);
	act(&f->vs, ACT_CPUS, NULL);
	assert_false(f->vs.cpu_view);
	assert_int_equal(selected_tid(f), 12);
	/* And back again: the CPUs view's own selection. */
	act(&f->vs, ACT_CPUS, NULL);
	assert_int_equal(rows_selected(&f->vs)->id, 0);
}

static void test_waker_follow_then_back_restores_the_place(void **state)
{
	struct fixture *f = *state;
	uint64_t t0, t1;

	select_thread(f, 12);
	view_zoom_to(&f->vs.view, 550, 950);
	view_set_cursor(&f->vs.view, 700);
	t0 = f->vs.view.t0;
	t1 = f->vs.view.t1;
	act(&f->vs, ACT_WAKER, NULL);
	assert_int_equal(selected_tid(f), 11);
	assert_int_equal(f->vs.view.cursor, 500);
	/* The synthetic threads have no names: tids. */
	assert_non_null(strstr(f->vs.message, "woken at 500 ns by tid 11"));
	act(&f->vs, ACT_WAKER, NULL);
	assert_int_equal(selected_tid(f), 10);
	assert_int_equal(f->vs.view.cursor, 200);
	act(&f->vs, ACT_BACK, NULL);
	assert_int_equal(selected_tid(f), 11);
	assert_int_equal(f->vs.view.cursor, 500);
	act(&f->vs, ACT_BACK, NULL);
	assert_int_equal(selected_tid(f), 12);
	assert_int_equal(f->vs.view.cursor, 700);
	assert_int_equal(f->vs.view.t0, t0);
	assert_int_equal(f->vs.view.t1, t1);
	/* Nowhere further back: said, and nothing moves. */
	f->vs.message[0] = 0;
	act(&f->vs, ACT_BACK, NULL);
	assert_non_null(strstr(f->vs.message, "nowhere to go back to"));
	assert_int_equal(selected_tid(f), 12);
}

static void test_act_sort_keeps_the_selection_among_the_first_rows(void **state)
{
	struct fixture *f = *state;

	select_thread(f, 10);
	/* first seen -> name -> tid -> run time: the busiest, 12, first */
	act(&f->vs, ACT_SORT, NULL);
	act(&f->vs, ACT_SORT, NULL);
	act(&f->vs, ACT_SORT, NULL);
	assert_int_equal(f->vs.sort, SORT_RUN);
	assert_string_equal(f->vs.message, "sorted by run time");
	assert_int_equal(rows_at(&f->vs, 0)->tid, 12);
	assert_int_equal(rows_at(&f->vs, 2)->tid, 10);
	assert_int_equal(selected_tid(f), 10);
	assert_int_equal(f->vs.view.top, 0);
}

static void
test_act_sort_selects_the_first_row_when_the_selection_is_below(void **state)
{
	struct fixture *f = *state;

	view_set_size(&f->vs.view, 80, 2); /* two rows on screen */
	select_thread(f, 10);
	act(&f->vs, ACT_SORT, NULL);
	act(&f->vs, ACT_SORT, NULL);
	act(&f->vs, ACT_SORT, NULL);
	/* 10 is third by run time: the first rows, the first selected. */
	assert_int_equal(f->vs.view.sel, 0);
	assert_int_equal(f->vs.view.top, 0);
	assert_int_equal(selected_tid(f), 12);
}

/* Two nodes of a job, a CPU and two threads each. */
static void two_nodes(struct evs *s, struct trace_node n[2])
{
	uint32_t b = 1u << TRACE_NODE_TID_SHIFT; /* node 1's tids */

	memset(n, 0, 2 * sizeof(*n));
	strcpy(n[0].name, "n0");
	strcpy(n[1].name, "n1");
	n[1].index = n[1].node_id = n[1].cpu_base = 1;
	n[0].nr_cpus = n[1].nr_cpus = 1;
	memset(s, 0, sizeof(*s));
	ATTACH(s, 100, 0, 10, MKM_TS_RUNNING, 0);
	ATTACH(s, 101, 0, 11, MKM_TS_INTERRUPTIBLE, 0xffffffffu);
	ATTACH(s, 102, 1, b | 10, MKM_TS_RUNNING, 1);
	ATTACH(s, 103, 1, b | 11, MKM_TS_INTERRUPTIBLE, 0xffffffffu);
	evs_switch(s, false, 500, 0, 10, MKM_TS_INTERRUPTIBLE, 0, 0, 0, 0);
}

/* Each test's state: on two_nodes(), a merged trace, 20 rows on screen. */
static int two_nodes_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct trace_node nodes[2];
	struct evs s;

	if (!f)
		return -1;
	two_nodes(&s, nodes);
	fixture_open(f, &s, nodes, 2, 20);
	*state = f;
	return 0;
}

static void test_rows_fold_folds_and_unfolds_a_node(void **state)
{
	struct fixture *f = *state;

	/* n0's header, its two threads, n1's header, its two threads. */
	assert_int_equal(f->vs.nr_order, 6);
	assert_int_equal(rows_node_at(&f->vs, 3), 1);
	select_thread(f, (1u << TRACE_NODE_TID_SHIFT) | 11);
	assert_string_equal(rows_selected(&f->vs)->label, "11 ?");
	act(&f->vs, ACT_FOLD, NULL);
	/* n1 folded to its header, which is selected. */
	assert_int_equal(f->vs.nr_order, 4);
	assert_int_equal(rows_node_at(&f->vs, f->vs.view.sel), 1);
	assert_null(rows_selected(&f->vs));
	assert_true(f->vs.groups[1].folded);
	assert_int_equal(f->vs.groups[1].label[0], '+');
	/* Folded in the CPUs view too. */
	act(&f->vs, ACT_CPUS, NULL);
	assert_int_equal(f->vs.nr_order, 3);
	assert_int_equal(rows_node_at(&f->vs, 2), 1);
	act(&f->vs, ACT_CPUS, NULL);
	/* The last row is n1's header: there, Space unfolds it. */
	act(&f->vs, ACT_PAGE_DOWN, NULL);
	assert_int_equal(rows_node_at(&f->vs, f->vs.view.sel), 1);
	act(&f->vs, ACT_FOLD, NULL);
	assert_int_equal(f->vs.nr_order, 6);
	assert_false(f->vs.groups[1].folded);
	assert_int_equal(f->vs.groups[1].label[0], '-');
}

/* A node's header stays selected in its view across Tab and back. */
static void test_act_tab_keeps_a_node_header_selected(void **state)
{
	struct fixture *f = *state;

	view_select(&f->vs.view, 3 - (int64_t)f->vs.view.sel);
	assert_int_equal(rows_node_at(&f->vs, f->vs.view.sel), 1);
	act(&f->vs, ACT_CPUS, NULL);
	act(&f->vs, ACT_CPUS, NULL);
	assert_int_equal(f->vs.view.sel, 3);
	assert_int_equal(rows_node_at(&f->vs, f->vs.view.sel), 1);
}

static void test_act_fold_says_why_not_in_a_trace_of_one_machine(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(rows_fold(&f->vs), -ENOENT);
	act(&f->vs, ACT_FOLD, NULL);
	assert_non_null(strstr(f->vs.message, "not a merged trace"));
	assert_int_equal(f->vs.nr_order, 3);
}

static void test_act_search_finds_the_next_row_and_repeats(void **state)
{
	struct fixture *f = *state;

	assert_string_equal(act_prompt(&f->vs, ACT_SEARCH), "/");
	act(&f->vs, ACT_SEARCH, "1");
	assert_int_equal(selected_tid(f), 11);
	act(&f->vs, ACT_SEARCH, ""); /* repeats, wrapping */
	assert_int_equal(selected_tid(f), 12);
	act(&f->vs, ACT_SEARCH, "");
	assert_int_equal(selected_tid(f), 10);
	act(&f->vs, ACT_SEARCH, "bash");
	assert_string_equal(f->vs.message, "no row matches \"bash\"");
	assert_int_equal(selected_tid(f), 10);
}

static void test_act_hide_and_show_all(void **state)
{
	struct fixture *f = *state;

	select_thread(f, 11);
	act(&f->vs, ACT_HIDE, NULL);
	assert_int_equal(f->vs.nr_order, 2);
	assert_int_equal(rows_at(&f->vs, 1)->tid, 12);
	act(&f->vs, ACT_HIDE, NULL);
	act(&f->vs, ACT_HIDE, NULL); /* never the last row */
	assert_int_equal(f->vs.nr_order, 1);
	act(&f->vs, ACT_SHOW_ALL, NULL);
	assert_int_equal(f->vs.nr_order, 3);
}

static void test_act_events_pane_follows_the_cursor(void **state)
{
	struct fixture *f = *state;

	select_thread(f, 12);
	view_set_cursor(&f->vs.view, 450);
	act(&f->vs, ACT_EVENTS, NULL);
	assert_true(f->vs.events_pane);
	assert_int_equal(f->vs.events_tid, 12);
	/* ATTACH and SWITCH_OUT before the cursor; WAKEUP, SWITCH_IN... */
	assert_int_equal(f->vs.events_before, 2);
	assert_int_equal(f->vs.events[f->vs.events_before].type, MKM_EV_WAKEUP);
	act(&f->vs, ACT_CURSOR_RIGHT_FAST, NULL);
	assert_int_equal(f->vs.events_cursor, f->vs.view.cursor);
	act(&f->vs, ACT_EVENTS, NULL);
	assert_false(f->vs.events_pane);
}

/* A test on the state of three_threads(), opened and closed around it. */
#define ON_THREE_THREADS(test)                                     \
	cmocka_unit_test_setup_teardown(test, three_threads_setup, \
					fixture_teardown)

/* A test on the state of two_nodes(). */
#define ON_TWO_NODES(test) \
	cmocka_unit_test_setup_teardown(test, two_nodes_setup, fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		ON_THREE_THREADS(
			test_act_tab_to_cpus_and_back_keeps_the_selected_thread),
		ON_THREE_THREADS(
			test_waker_follow_then_back_restores_the_place),
		ON_THREE_THREADS(
			test_act_sort_keeps_the_selection_among_the_first_rows),
		ON_THREE_THREADS(
			test_act_sort_selects_the_first_row_when_the_selection_is_below),
		ON_TWO_NODES(test_rows_fold_folds_and_unfolds_a_node),
		ON_TWO_NODES(test_act_tab_keeps_a_node_header_selected),
		ON_THREE_THREADS(
			test_act_fold_says_why_not_in_a_trace_of_one_machine),
		ON_THREE_THREADS(
			test_act_search_finds_the_next_row_and_repeats),
		ON_THREE_THREADS(test_act_hide_and_show_all),
		ON_THREE_THREADS(test_act_events_pane_follows_the_cursor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
