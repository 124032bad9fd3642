// SPDX-License-Identifier: GPL-2.0
/* test_model.c - the viewer's window, cursor and rows (viewer/model.c). */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model.h"

static void test_view_init_fits_the_trace(void **state)
{
	struct view v;

	(void)state;
	view_init(&v, 1000, 101000, 100);
	assert_int_equal(v.t0, 1000);
	assert_int_equal(v.t1, 101000);
	assert_int_equal(v.cursor, 1000);
	assert_int_equal(view_col_span(&v), 1000);
	assert_true(v.meter[0] == VIEW_UNSET && v.meter[1] == VIEW_UNSET);
	/* A trace shorter than the screen: a nanosecond a column. */
	view_init(&v, 5, 7, 100);
	assert_int_equal(v.t1 - v.t0, 100);
}

static void test_view_col_time_and_time_col_agree(void **state)
{
	struct view v;
	unsigned int c;

	(void)state;
	view_init(&v, 0, 1000003, 97);
	for (c = 0; c < 97; c++) {
		assert_int_equal(view_time_col(&v, view_col_time(&v, c)), c);
		assert_int_equal(
			view_time_col(&v, view_col_time(&v, c + 1) - 1), c);
	}
	assert_int_equal(view_time_col(&v, 1000003), -1);
}

static void test_view_zoom_keeps_the_cursor_in_place(void **state)
{
	struct view v;
	int col;

	(void)state;
	view_init(&v, 0, 1000000, 100);
	view_set_cursor(&v, 250000);
	col = view_time_col(&v, v.cursor);
	view_zoom(&v, 1, 2);
	assert_int_equal(v.t1 - v.t0, 500000);
	assert_int_equal(view_time_col(&v, v.cursor), col);
	assert_int_equal(v.cursor, 250000);
	view_zoom(&v, 1, 2);
	view_zoom(&v, 2, 1);
	view_zoom(&v, 2, 1);
	assert_int_equal(v.t0, 0);
	assert_int_equal(v.t1, 1000000);
	/* Never wider than the trace, never under a ns a column. */
	view_zoom(&v, 2, 1);
	assert_int_equal(v.t1 - v.t0, 1000000);
	for (col = 0; col < 40; col++)
		view_zoom(&v, 1, 2);
	assert_int_equal(v.t1 - v.t0, 100);
	assert_true(v.cursor >= v.t0 && v.cursor < v.t1);
}

static void test_view_pan_stops_at_the_ends(void **state)
{
	struct view v;

	(void)state;
	view_init(&v, 1000, 11000, 100);
	view_zoom(&v, 1, 10); /* 1000 ns on screen, at the start */
	assert_int_equal(v.t0, 1000);
	view_pan(&v, -50);
	assert_int_equal(v.t0, 1000);
	view_pan(&v, 50);
	assert_int_equal(v.t0, 1500);
	assert_true(v.cursor >= v.t0 && v.cursor < v.t1);
	view_pan(&v, 100000);
	assert_int_equal(v.t1, 11000);
	assert_true(v.cursor >= v.t0 && v.cursor < v.t1);
}

static void test_view_set_cursor_pans_to_show_it(void **state)
{
	struct view v;

	(void)state;
	view_init(&v, 0, 100000, 100);
	view_zoom(&v, 1, 100); /* 1000 ns */
	view_set_cursor(&v, 50000);
	assert_true(v.t0 <= 50000 && 50000 < v.t1);
	assert_int_equal(v.t1 - v.t0, 1000);
	view_set_cursor(&v, 10);
	assert_int_equal(v.t0, 10);
	view_set_cursor(&v, UINT64_MAX);
	assert_int_equal(v.cursor, 99999);
	assert_int_equal(v.t1, 100000);
	view_move_cursor(&v, -3);
	assert_int_equal(v.cursor, 99999 - 30);
}

static void test_view_zoom_to_shows_the_metering_window(void **state)
{
	struct view v;

	(void)state;
	view_init(&v, 0, 100000, 100);
	view_zoom_to(&v, 60000, 20000);
	assert_int_equal(v.t0, 20000);
	assert_int_equal(v.t1, 60000);
	assert_int_equal(v.cursor, 20000);
}

/* What the metering panes cover: A..B in time order once both are set,
 * else the window on screen. */
static void test_view_meter_window_orders_a_and_b(void **state)
{
	uint64_t a, b;
	struct view v;

	(void)state;
	view_init(&v, 0, 100000, 100);
	assert_false(view_meter_window(&v, &a, &b));
	assert_int_equal(a, v.t0);
	assert_int_equal(b, v.t1);
	v.meter[0] = 60000;
	assert_false(view_meter_window(&v, &a, &b));
	assert_int_equal(b, v.t1);
	v.meter[1] = 20000;
	assert_true(view_meter_window(&v, &a, &b));
	assert_int_equal(a, 20000);
	assert_int_equal(b, 60000);
	v.meter[0] = 10000;
	assert_true(view_meter_window(&v, &a, &b));
	assert_int_equal(a, 10000);
	assert_int_equal(b, 20000);
}

static void test_view_select_scrolls_rows(void **state)
{
	struct view v;

	(void)state;
	view_init(&v, 0, 100, 10);
	view_set_size(&v, 10, 5);
	view_set_rows(&v, 12);
	view_select(&v, 7);
	assert_int_equal(v.sel, 7);
	assert_int_equal(v.top, 3);
	view_select(&v, 100);
	assert_int_equal(v.sel, 11);
	assert_int_equal(v.top, 7);
	view_select(&v, -100);
	assert_int_equal(v.sel, 0);
	assert_int_equal(v.top, 0);
	view_set_rows(&v, 0);
	assert_int_equal(v.sel, 0);
}

static void test_view_follow_keeps_the_newest_time(void **state)
{
	struct view v;

	(void)state;
	view_init(&v, 0, 1000, 10);
	view_zoom(&v, 1, 10);
	v.follow = true;
	view_set_range(&v, 0, 5000);
	assert_int_equal(v.t1, 5000);
	assert_int_equal(v.t1 - v.t0, 100);
	v.follow = false;
	view_set_range(&v, 0, 9000);
	assert_int_equal(v.t1, 5000);
	/* Fitted, it stays fitted as the trace grows. */
	view_fit(&v);
	v.follow = true;
	view_set_range(&v, 0, 20000);
	assert_int_equal(v.t0, 0);
	assert_int_equal(v.t1, 20000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_view_init_fits_the_trace),
		cmocka_unit_test(test_view_col_time_and_time_col_agree),
		cmocka_unit_test(test_view_zoom_keeps_the_cursor_in_place),
		cmocka_unit_test(test_view_pan_stops_at_the_ends),
		cmocka_unit_test(test_view_set_cursor_pans_to_show_it),
		cmocka_unit_test(test_view_zoom_to_shows_the_metering_window),
		cmocka_unit_test(test_view_meter_window_orders_a_and_b),
		cmocka_unit_test(test_view_select_scrolls_rows),
		cmocka_unit_test(test_view_follow_keeps_the_newest_time),
	};

	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
