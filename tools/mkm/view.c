// SPDX-License-Identifier: GPL-2.0
/*
 * view.c - mkm view: the interactive timeline viewer on a trace file (the
 * viewer itself is in viewer/).
 */
#include <curses.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>

#include "builtin.h"
#include "util.h"
#include "viewer.h"

static const char usage[] =
	"usage: mkm view [--ascii] FILE\n"
	"  the threads' timeline, interactive; ? lists the keys\n";

/* A terminal that can place the cursor, or a clear reason why not. */
static void check_terminal(void)
{
	const char *term = getenv("TERM");
	int err = 0;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		die("view: needs a terminal (for text, use: mkm timeline FILE)");
	if (!term || !*term)
		die("view: TERM is not set (for text, use: mkm timeline FILE)");
	if (setupterm(NULL, STDOUT_FILENO, &err) != OK)
		die("view: terminal type \"%s\" is unknown (for text, use: mkm "
		    "timeline FILE)",
		    term);
	if (!tigetstr("cup") || tigetstr("cup") == (char *)-1)
		die("view: terminal \"%s\" cannot move the cursor (for text, "
		    "use: mkm timeline FILE)",
		    term);
	del_curterm(cur_term);
}

int cmd_view(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ascii", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct viewer w;
	struct mon_meta meta;
	char damage[sizeof(w.message)];
	bool ascii = false;
	struct tl *tl;
	int opt, err;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (opt == 'a') {
			ascii = true;
		} else if (opt == 'h') {
			fputs(usage, stdout);
			return 0;
		} else {
			die_usage("view: bad option");
		}
	}
	if (optind != argc - 1)
		die_usage("view: give one trace file");
	setlocale(LC_ALL, "");
	check_terminal();
	tl = load_trace(argv[optind], &meta, damage, sizeof(damage));
	if (!tl_nr_threads(tl))
		die("view: %s: no thread timeline in it%s%s", argv[optind],
		    damage[0] ? ": " : "", damage);
	err = viewer_open(&w, argv[optind], tl, &meta);
	if (err)
		die("view: %s", monitor_strerror(err));
	w.ascii_only = ascii;
	/* Said on screen, where stderr would be wiped out. */
	snprintf(w.message, sizeof(w.message), "%s", damage);
	err = viewer_run(&w);
	viewer_close(&w);
	tl_destroy(tl);
	if (damage[0])
		warnx_("%s", damage);
	if (err)
		die("view: the terminal could not be set up");
	return 0;
}
