// SPDX-License-Identifier: GPL-2.0
/*
 * view.c - mkm view: the interactive timeline viewer on a trace file, or
 * on a recording as it is made (--live); the viewer itself is in viewer/.
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
#include "live.h"
#include "recorder.h"
#include "util.h"
#include "viewer.h"

static const char usage[] =
	"usage: mkm view [--ascii] FILE\n"
	"       mkm view [--ascii] --live " RECORDER_USAGE "\n"
	"  the threads' timeline, interactive; ? lists the keys. --live\n"
	"  records as mkm record does (the trace goes to -o FILE) and shows\n"
	"  it as it comes\n";

/* A live view: the recording, and the feed from its pipeline. */
struct live_view {
	struct recorder rec;
	struct live_feed *feed;
	bool recording;
};

/* Between frames: the recording's state, then what it recorded since. */
static void live_tick(struct viewer *w, void *arg)
{
	struct live_view *lv = arg;
	uint64_t lost = 0;
	size_t records;
	bool ended;

	if (lv->recording && !recorder_wait(&lv->rec, 0)) {
		recorder_stop(&lv->rec);
		lv->recording = false;
		snprintf(w->message, sizeof(w->message),
			 "recording ended; %s is written", lv->rec.out);
	}
	ended = live_feed_apply(lv->feed, w->tl, &records);
	recorder_counts(&lv->rec, NULL, &lost);
	w->meta.lost_by_stats = lost;
	if (records || ended)
		viewer_refresh(w);
}

static int view_live(struct live_view *lv, bool ascii)
{
	const struct trace_info *info;
	struct tl_config cfg = { 0 };
	struct mon_meta meta = { 0 };
	struct mon_sink *sink;
	struct viewer w;
	struct tl *tl;
	size_t records;
	int err;

	err = live_feed_create(&lv->feed, &sink);
	if (err)
		die("view: %s", monitor_strerror(err));
	recorder_start(&lv->rec, sink);
	lv->recording = true;
	info = mon_source_info(mon_pipeline_source(lv->rec.p));
	cfg.nr_cpus = info->nr_cpus;
	cfg.classes = info->classes;
	meta.info = *info;
	err = tl_create(&tl, &cfg);
	if (!err)
		err = viewer_open(&w, lv->rec.out, tl, &meta);
	if (err)
		die("view: %s", monitor_strerror(err));
	w.ascii_only = ascii;
	w.view.follow = true;
	w.tick = live_tick;
	w.tick_arg = lv;
	err = viewer_run(&w);
	/* Quitting ends the recording: the rest is drained into the file. */
	recorder_stop(&lv->rec);
	live_feed_apply(lv->feed, tl, &records);
	viewer_close(&w);
	tl_destroy(tl);
	if (err)
		warnx_("view: the terminal could not be set up");
	err = recorder_finish(&lv->rec);
	live_feed_destroy(lv->feed);
	return err;
}

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

/* The trace's two timelines: raw, and compensated once asked for. */
struct both {
	const char *path;
	struct tl *tl[2];
	struct mon_meta meta[2];
	struct mon_calibration cal;
	bool shown; /* 1: the compensated one */
};

static void toggle(struct viewer *w, void *arg)
{
	struct both *b = arg;
	int err;

	if (b->meta[0].info.trace_flags & TRACE_F_COMPENSATED) {
		snprintf(w->message, sizeof(w->message),
			 "compensated already: view the raw trace for both");
		return;
	}
	if (!b->tl[1]) {
		err = mon_calibration_load(&b->cal, b->path);
		if (err) {
			snprintf(
				w->message, sizeof(w->message),
				"no calibration in this trace: mkm replay --calibration FILE %s -o OUT, then view OUT",
				b->path);
			return;
		}
		b->tl[1] = load_trace_compensated(b->path, &b->cal, &b->meta[1],
						  NULL, 0);
	}
	b->shown = !b->shown;
	err = viewer_swap(w, b->tl[b->shown], &b->meta[b->shown]);
	if (err)
		die("view: %s", monitor_strerror(err));
	snprintf(
		w->message, sizeof(w->message), "%s",
		b->shown ?
			"compensated: times without the monitor's cost (K: raw)" :
			"raw: times as recorded (K: compensated)");
}

int cmd_view(int argc, char **argv)
{
	static struct both both;
	static const struct option opts[] = {
		RECORDER_LONG_OPTS,
		{ "ascii", no_argument, NULL, 'a' },
		{ "live", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct live_view lv;
	bool live = false, recording_opts = false;
	struct viewer w;
	struct mon_meta meta;
	char damage[sizeof(w.message)];
	bool ascii = false;
	struct tl *tl;
	int opt, err;

	recorder_init(&lv.rec);
	while ((opt = getopt_long(argc, argv, "+" RECORDER_SHORT_OPTS "h", opts,
				  NULL)) != -1) {
		if (recorder_option(&lv.rec, opt, optarg)) {
			recording_opts = true;
		} else if (opt == 'a') {
			ascii = true;
		} else if (opt == 'l') {
			live = true;
		} else if (opt == 'h') {
			fputs(usage, stdout);
			return 0;
		} else {
			die_usage("view: bad option");
		}
	}
	if (live) {
		recorder_command(&lv.rec, argc - optind, argv + optind,
				 "view --live");
		setlocale(LC_ALL, "");
		check_terminal();
		return view_live(&lv, ascii);
	}
	if (recording_opts)
		die_usage("view: -o, -b, -e, -t and -p go with --live");
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
	both.path = argv[optind];
	both.tl[0] = tl;
	both.meta[0] = meta;
	w.toggle = toggle;
	w.toggle_arg = &both;
	w.ascii_only = ascii;
	/* Said on screen, where stderr would be wiped out. */
	snprintf(w.message, sizeof(w.message), "%s", damage);
	err = viewer_run(&w);
	viewer_close(&w);
	tl_destroy(both.tl[0]);
	tl_destroy(both.tl[1]);
	mon_calibration_free(&both.cal);
	if (damage[0])
		warnx_("%s", damage);
	if (err)
		die("view: the terminal could not be set up");
	return 0;
}
