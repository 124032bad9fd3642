// SPDX-License-Identifier: GPL-2.0
/*
 * test_picture.c - the timeline as a picture (viewer/picture.c): a PNG of
 * a known timeline read back with cairo, its size and the colours of
 * pixels in known cells as the state table says; an SVG; a path that
 * cannot be written.
 */
#include <cairo.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "evstream.h"
#include "picture.h"

/* Thread 100 runs, then sleeps from 500 us; thread 200 the other way. */
static struct tl *two_threads(void)
{
	static struct evs s;

	s.n = 0;
	ATTACH(&s, 1000, 0, 100, MKM_TS_RUNNING, 0);
	ATTACH(&s, 1000, 0, 200, MKM_TS_INTERRUPTIBLE, -1);
	OUT(&s, 500000, 0, 100, MKM_TS_INTERRUPTIBLE, 200);
	IN(&s, 500000, 0, 200, 100);
	OUT(&s, 1000000, 0, 200, MKM_TS_INTERRUPTIBLE, 0);
	return build(&s, 0, 1);
}

static uint32_t pixel(cairo_surface_t *s, unsigned int x, unsigned int y)
{
	const unsigned char *data = cairo_image_surface_get_data(s);
	int stride = cairo_image_surface_get_stride(s);

	return *(const uint32_t *)(data + (size_t)y * stride + x * 4) &
	       0xffffff;
}

/* The pixel in the middle of row r's upper half, at time t. */
static uint32_t cell(cairo_surface_t *s, const struct picture_geom *g,
		     const struct picture_opts *o, unsigned int r, uint64_t t)
{
	unsigned int x = g->plot_x + (unsigned int)((t - o->t0) * g->plot_w /
						    (o->t1 - o->t0));

	return pixel(s, x, g->rows_y + r * g->row_h + g->row_h / 4 + 1);
}

static void test_picture_png_cells_have_their_states_colours(void **state)
{
	struct picture_opts o = { .width = 800, .t0 = 1000, .t1 = 1000000 };
	char path[] = "/tmp/mkm-test-picture-XXXXXX";
	struct tl *tl = two_threads();
	struct picture_geom g;
	cairo_surface_t *s;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(picture_write(tl, &o, path, false), 0);
	s = cairo_image_surface_create_from_png(path);
	assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
	picture_geom(tl, &o, &g);
	assert_int_equal(cairo_image_surface_get_width(s), g.width);
	assert_int_equal(cairo_image_surface_get_height(s), g.height);
	assert_int_equal(g.width, 800);
	assert_int_equal(cell(s, &g, &o, 0, 250000),
			 tl_state_desc(TL_RUN)->rgb);
	assert_int_equal(cell(s, &g, &o, 0, 750000),
			 tl_state_desc(TL_SLEEP)->rgb);
	assert_int_equal(cell(s, &g, &o, 1, 250000),
			 tl_state_desc(TL_SLEEP)->rgb);
	assert_int_equal(cell(s, &g, &o, 1, 750000),
			 tl_state_desc(TL_RUN)->rgb);
	/* The label column is background. */
	assert_int_equal(pixel(s, g.plot_x - 2, g.rows_y + 1), 0xffffff);
	cairo_surface_destroy(s);
	unlink(path);
	tl_destroy(tl);
}

static void test_picture_svg_and_bad_path(void **state)
{
	struct picture_opts o = { .t0 = 1000,
				  .t1 = 1000000,
				  .meter_a = 200000,
				  .meter_b = 600000,
				  .title = "two threads" };
	char path[] = "/tmp/mkm-test-picture-XXXXXX", head[64] = { 0 };
	struct tl *tl = two_threads();
	FILE *f;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(picture_write(tl, &o, path, true), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_true(fread(head, 1, sizeof(head) - 1, f) > 0);
	fclose(f);
	assert_non_null(strstr(head, "<svg"));
	unlink(path);
	assert_int_equal(picture_write(tl, &o, "/no/such/dir/x.png", false),
			 -EIO);
	o.t1 = o.t0;
	assert_int_equal(picture_write(tl, &o, path, false), -EINVAL);
	tl_destroy(tl);
}

/* Ticks are round and never closer than a label is wide (2 ms over 1030
 * pixels once gave 100 us ticks, 51 pixels apart: labels overlapped). */
static void test_picture_tick_step(void **state)
{
	static const uint64_t spans[] = {
		1, 999, 2000000, 10000000, 1234567, 26000000, 60000000000ull
	};
	static const unsigned int widths[] = { 100, 1030, 1200, 4000 };
	size_t i, j;

	(void)state;
	assert_int_equal(picture_tick_step(2000000, 1030), 200000);
	for (i = 0; i < sizeof(spans) / sizeof(spans[0]); i++) {
		for (j = 0; j < sizeof(widths) / sizeof(widths[0]); j++) {
			uint64_t s = picture_tick_step(spans[i], widths[j]);
			uint64_t m = s;

			while (m % 10 == 0)
				m /= 10;
			assert_true(m == 1 || m == 2 || m == 5);
			/* TICK_PX apart or more, and the smallest such step:
			 * half of it or less would not be. */
			assert_true((double)s * widths[j] / spans[i] >=
					    TICK_PX ||
				    s == 1);
			assert_true(s == 1 ||
				    (double)(m == 5 ? s * 2 / 5 : s / 2) *
						    widths[j] / spans[i] <
					    TICK_PX);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_picture_png_cells_have_their_states_colours),
		cmocka_unit_test(test_picture_svg_and_bad_path),
		cmocka_unit_test(test_picture_tick_step),
	};

	return cmocka_run_group_tests_name("picture", tests, NULL, NULL);
}
