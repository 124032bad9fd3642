// SPDX-License-Identifier: GPL-2.0
/*
 * timeline.c - mkm timeline: the threads' microstates as text, one row per
 * thread, time across (PIEScope's view, in a terminal or a log).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "layout.h"
#include "builtin.h"
#include "util.h"

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

/* The time axis: a tick and its offset from t0 every 20 columns or so. */
static void print_axis(uint64_t t0, uint64_t t1, unsigned int width)
{
	char line[4096], buf[32];
	unsigned int c;

	memset(line, ' ', width);
	line[width] = 0;
	for (c = 0; c + 10 < width; c += 20) {
		uint64_t t = (t1 - t0) * c / width;
		size_t len;

		fmt_ns(buf, sizeof(buf), t);
		len = strlen(buf);
		line[c] = '|';
		memcpy(line + c + 1, buf, len < 18 ? len : 18);
	}
	printf("%*s %s\n", LABEL_WIDTH, "", line);
}

int cmd_timeline(int argc, char **argv)
{
	struct layout_cell *cells;
	struct mon_meta meta;
	struct tl_interval *iv = NULL;
	unsigned int width = 0, c;
	uint64_t t0 = UINT64_MAX, t1 = 0;
	size_t th, nr, cap = 0;
	struct tl *tl;
	int opt;

	while ((opt = getopt(argc, argv, "w:h")) != -1) {
		if (opt == 'w' && atoi(optarg) > 0) {
			width = atoi(optarg);
		} else if (opt == 'h') {
			puts("usage: mkm timeline [-w WIDTH] FILE");
			return 0;
		} else {
			die_usage("timeline: bad option");
		}
	}
	if (optind != argc - 1)
		die_usage("timeline: give one trace file");
	if (!width)
		width = terminal_width() > LABEL_WIDTH + 11 ?
				terminal_width() - LABEL_WIDTH - 1 :
				10;
	if (width > 4000)
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
	cells = calloc(width, sizeof(*cells));
	if (!cells)
		die("out of memory");
	print_axis(t0, t1, width);
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
