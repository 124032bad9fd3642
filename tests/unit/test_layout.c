// SPDX-License-Identifier: GPL-2.0
/* test_layout.c - intervals to timeline columns (viewer/layout.c). */

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "layout.h"

#define IV(a, b, s)                                          \
	{                                                    \
		.start_ns = (a), .end_ns = (b), .state = (s) \
	}

static void row_string(const struct tl_interval *iv, size_t n, uint64_t t0,
		       uint64_t t1, unsigned int width, char *out)
{
	struct layout_cell cells[64];
	unsigned int c;

	layout_row(iv, n, t0, t1, width, cells);
	for (c = 0; c < width; c++)
		out[c] = layout_glyph(cells[c]);
	out[width] = 0;
}

static bool at_or_before(const void *ctx, size_t i, uint64_t x)
{
	return ((const uint64_t *)ctx)[i] <= x;
}

/* The first entry after x, in a table with repeats; the ends. */
static void test_layout_lower_bound_finds_first_after(void **state)
{
	static const uint64_t t[] = { 10, 20, 20, 20, 30 };

	(void)state;
	assert_int_equal(layout_lower_bound(5, at_or_before, t, 5), 0);
	assert_int_equal(layout_lower_bound(5, at_or_before, t, 10), 1);
	assert_int_equal(layout_lower_bound(5, at_or_before, t, 20), 4);
	assert_int_equal(layout_lower_bound(5, at_or_before, t, 29), 4);
	assert_int_equal(layout_lower_bound(5, at_or_before, t, 30), 5);
	assert_int_equal(layout_lower_bound(0, at_or_before, t, 30), 0);
}

static void test_layout_row_one_state_per_column(void **state)
{
	const struct tl_interval iv[] = {
		IV(0, 40, TL_RUN),
		IV(40, 60, TL_SLEEP),
		IV(60, 100, TL_RUNQ),
	};
	char s[16];

	(void)state;
	row_string(iv, 3, 0, 100, 5, s);
	assert_string_equal(s, "##.--");
}

static void test_layout_row_blank_outside_life(void **state)
{
	const struct tl_interval iv[] = { IV(30, 70, TL_RUN) };
	char s[16];

	(void)state;
	row_string(iv, 1, 0, 100, 10, s);
	assert_string_equal(s, "   ####   ");
}

static void test_layout_row_dominant_state_wins(void **state)
{
	/* One column of 100 ns: 70 running, 30 sleeping. */
	const struct tl_interval iv[] = {
		IV(0, 70, TL_RUN),
		IV(70, 100, TL_SLEEP),
	};
	char s[4];

	(void)state;
	row_string(iv, 2, 0, 100, 1, s);
	assert_string_equal(s, "#");
}

static void test_layout_row_too_fine_is_squiggle(void **state)
{
	/* Three states, none with 60% of the column. */
	const struct tl_interval iv[] = {
		IV(0, 40, TL_RUN),
		IV(40, 70, TL_RUNQ),
		IV(70, 100, TL_SLEEP),
	};
	char s[4];

	(void)state;
	row_string(iv, 3, 0, 100, 1, s);
	assert_string_equal(s, "~");
}

static void test_layout_row_zoomed_in_range(void **state)
{
	/* Zooming on [1000, 1010): only the part of the run inside counts. */
	const struct tl_interval iv[] = {
		IV(0, 1005, TL_SLEEP),
		IV(1005, 5000, TL_RUN),
	};
	char s[16];

	(void)state;
	row_string(iv, 2, 1000, 1010, 10, s);
	assert_string_equal(s, ".....#####");
}

static void test_layout_row_huge_times_do_not_overflow(void **state)
{
	const uint64_t big = UINT64_MAX - 1000;
	const struct tl_interval iv[] = {
		IV(big, big + 500, TL_DISK),
		IV(big + 500, big + 1000, TL_ZOMBIE),
	};
	char s[4];

	(void)state;
	row_string(iv, 2, big, big + 1000, 2, s);
	assert_string_equal(s, "Dz");
}

static void span_string(uint64_t a, uint64_t b, char *out)
{
	bool on[10] = { false };
	unsigned int c;

	layout_span(100, 200, 10, a, b, on);
	for (c = 0; c < 10; c++)
		out[c] = on[c] ? '#' : '.';
	out[10] = 0;
}

static void test_layout_span_marks_overlapped_columns(void **state)
{
	char s[11];

	(void)state;
	span_string(120, 140, s); /* columns 2 and 3, exactly */
	assert_string_equal(s, "..##......");
	span_string(125, 141, s); /* a part of column 4 is a part */
	assert_string_equal(s, "..###.....");
	span_string(50, 110, s); /* from before the window */
	assert_string_equal(s, "#.........");
	span_string(190, 900, s); /* past its end */
	assert_string_equal(s, ".........#");
	span_string(0, 100, s); /* ending at its start: nothing */
	assert_string_equal(s, "..........");
	span_string(130, 130, s); /* empty */
	assert_string_equal(s, "..........");
}

static void test_layout_glyph_none_and_unknown(void **state)
{
	struct layout_cell none = { LAYOUT_NONE, 0 };
	struct layout_cell unknown = { TL_UNKNOWN, 0 };

	(void)state;
	assert_int_equal(layout_glyph(none), ' ');
	assert_int_equal(layout_glyph(unknown), '?');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_lower_bound_finds_first_after),
		cmocka_unit_test(test_layout_row_one_state_per_column),
		cmocka_unit_test(test_layout_row_blank_outside_life),
		cmocka_unit_test(test_layout_row_dominant_state_wins),
		cmocka_unit_test(test_layout_row_too_fine_is_squiggle),
		cmocka_unit_test(test_layout_row_zoomed_in_range),
		cmocka_unit_test(test_layout_row_huge_times_do_not_overflow),
		cmocka_unit_test(test_layout_glyph_none_and_unknown),
		cmocka_unit_test(test_layout_span_marks_overlapped_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
