// SPDX-License-Identifier: GPL-2.0
/*
 * timeline.c - mkm timeline: the threads' microstates as text, one row per
 * thread, time across (PIEScope's view, in a terminal or a log); or, with
 * --svg/--png, the same layout as a picture (viewer/picture.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "layout.h"
#include "picture.h"
#include "builtin.h"
#include "libmonitor.h"
#include "messages.h"
#include "parse.h"
#include "trace.h"

#define LABEL_WIDTH 24

static unsigned int terminal_width(void)
{
	struct winsize ws;
	const char *cols = getenv("COLUMNS");

	if (cols && atoi(cols) > 0)
		return atoi(cols);
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return 100;
}

/* The time axis: every 20 columns or so a tick and its time from @origin
 * (mon_time_origin(), as every command counts). */
static void print_axis(uint64_t origin, uint64_t t0, uint64_t t1,
		       unsigned int width)
{
	char line[4096], buf[32];
	unsigned int c;

	memset(line, ' ', width);
	line[width] = 0;
	for (c = 0; c + 10 < width; c += 20) {
		uint64_t t = t0 + (t1 - t0) * c / width;
		size_t len;

		mon_fmt_time(buf, sizeof(buf), t, origin);
		len = strlen(buf);
		line[c] = '|';
		memcpy(line + c + 1, buf, len < 18 ? len : 18);
	}
	printf("%*s %s\n", LABEL_WIDTH, "", line);
}

const char timeline_usage[] =
	"usage: mkm timeline [-w WIDTH] [--from T] [--to T] FILE\n"
	"       mkm timeline --svg OUT | --png OUT [-w PIXELS] [--from T] [--to T]\n"
	"                    [--shade T..T] FILE\n"
	"  T: a time from the recording's start (as mkm view, dump and export\n"
	"  count), with a unit (1.5s, 20ms, 300us):\n"
	"  --from and --to show that window only (zoom); --shade marks a window\n"
	"  (the viewer's A .. B) in the picture\n";

/* "T..T" (--shade) into two times from the origin; dies (usage) if not. */
static void parse_window(const char *s, int64_t *a, int64_t *b)
{
	const char *dots = strstr(s, "..");
	char first[64];

	if (!dots || (size_t)(dots - s) >= sizeof(first))
		die_usage(
			"timeline --shade: '%s' is not a window T..T (e.g. 40ms..150ms)",
			s);
	memcpy(first, s, (size_t)(dots - s));
	first[dots - s] = 0;
	*a = parse_time_arg("timeline --shade", first);
	*b = parse_time_arg("timeline --shade", dots + 2);
	if (*b <= *a)
		die_usage(
			"timeline --shade %s: the second time must come after the first",
			s);
}

/* The picture of [t0, t1), a shaded window if given (@a < @b). */
static int picture(struct tl *tl, const char *file, const char *out, bool svg,
		   unsigned int width, int64_t a, int64_t b, uint64_t origin,
		   uint64_t t0, uint64_t t1)
{
	struct picture_opts o = {
		.width = width,
		.t0 = t0,
		.t1 = t1,
		.origin = origin,
		.title = file,
	};
	int err;

	if (a >= 0 && b > a) {
		o.meter_a = origin + (uint64_t)a;
		o.meter_b = origin + (uint64_t)b;
	}
	err = picture_write(tl, &o, out, svg);
	if (err == -EIO)
		die("%s: cannot write it", out);
	if (err)
		die("%s: %s", out, monitor_strerror(err));
	return 0;
}

/* [t0, t1) cut to --from/--to (-1: open); dies when nothing is left. */
static void cut_window(const char *file, uint64_t origin, int64_t from,
		       int64_t to, uint64_t *t0, uint64_t *t1)
{
	uint64_t a = from >= 0 ? origin + (uint64_t)from : *t0;
	uint64_t b = to >= 0 ? origin + (uint64_t)to : *t1;
	char x[32], y[32];

	if (a < *t0)
		a = *t0;
	if (b > *t1)
		b = *t1;
	if (a >= b)
		die("timeline: %s's threads span %s .. %s: the window given shows none of it",
		    file, mon_fmt_time(x, sizeof(x), *t0, origin),
		    mon_fmt_time(y, sizeof(y), *t1, origin));
	*t0 = a;
	*t1 = b;
}

int cmd_timeline(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "svg", required_argument, NULL, 'S' },
		{ "png", required_argument, NULL, 'P' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ "shade", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct layout_cell *cells;
	struct mon_meta meta;
	struct tl_interval *iv = NULL;
	unsigned int width = 0, c;
	uint64_t t0 = UINT64_MAX, t1 = 0;
	int64_t from = -1, to = -1, shade_a = -1, shade_b = -1;
	const char *out = NULL;
	bool svg = false;
	size_t th, nr, cap = 0;
	struct tl *tl;
	int opt;

	while ((opt = getopt_long(argc, argv, "w:h", opts, NULL)) != -1) {
		if (opt == 'w' && atoi(optarg) > 0) {
			width = atoi(optarg);
		} else if (opt == 'S' || opt == 'P') {
			out = optarg;
			svg = opt == 'S';
		} else if (opt == 'F' || opt == 'T') {
			*(opt == 'F' ? &from : &to) =
				parse_time_arg(opt == 'F' ? "timeline --from" :
							    "timeline --to",
					       optarg);
		} else if (opt == 'A') {
			parse_window(optarg, &shade_a, &shade_b);
		} else if (opt == 'h') {
			fputs(timeline_usage, stdout);
			return 0;
		} else {
			die_usage("timeline: bad option");
		}
	}
	if (optind != argc - 1)
		die_usage("timeline: give one trace file");
	if (shade_a >= 0 && !out)
		die_usage("timeline: --shade goes with --svg or --png");
	if (from >= 0 && to >= 0 && to <= from)
		die_usage("timeline: --to must come after --from");
	if (!width && !out)
		width = terminal_width() > LABEL_WIDTH + 11 ?
				terminal_width() - LABEL_WIDTH - 1 :
				10;
	if (width > 4000 && !out)
		width = 4000;

	tl = load_trace(argv[optind], &meta, NULL, 0);
	nr = tl_nr_threads(tl);
	for (th = 0; th < nr; th++) {
		struct tl_thread t;

		tl_thread(tl, th, &t);
		if (t.first_ns < t0)
			t0 = t.first_ns;
		if (t.end_ns > t1)
			t1 = t.end_ns;
	}
	if (!nr || t1 <= t0) {
		printf("%s: no thread timeline\n", argv[optind]);
		tl_destroy(tl);
		return 0;
	}
	cut_window(argv[optind], mon_time_origin(&meta.info), from, to, &t0,
		   &t1);
	if (out) {
		picture(tl, argv[optind], out, svg, width, shade_a, shade_b,
			mon_time_origin(&meta.info), t0, t1);
		tl_destroy(tl);
		return 0;
	}
	cells = calloc(width, sizeof(*cells));
	if (!cells)
		die("out of memory");
	print_axis(mon_time_origin(&meta.info), t0, t1, width);
	for (th = 0; th < nr; th++) {
		struct tl_thread t;
		char label[LABEL_WIDTH + 1];
		size_t i;

		tl_thread(tl, th, &t);
		if (t.nr_intervals > cap) {
			cap = t.nr_intervals;
			iv = realloc(iv, cap * sizeof(*iv));
			if (!iv)
				die("out of memory");
		}
		for (i = 0; i < t.nr_intervals; i++)
			tl_interval(tl, th, i, &iv[i]);
		layout_row(iv, t.nr_intervals, t0, t1, width, cells);
		snprintf(label, sizeof(label), "%u %s", t.tid,
			 t.name[0] ? t.name : "?");
		printf("%-*s ", LABEL_WIDTH, label);
		for (c = 0; c < width; c++)
			putchar(layout_glyph(cells[c]));
		putchar('\n');
	}
	printf("\n%s\n", layout_legend());
	free(iv);
	free(cells);
	tl_destroy(tl);
	return 0;
}
