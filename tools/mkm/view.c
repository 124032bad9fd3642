// SPDX-License-Identifier: GPL-2.0
/*
 * view.c - mkm view: the interactive timeline viewer on a trace file, or
 * on a recording as it is made (--live); the viewer itself is in viewer/.
 */
#include <curses.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>

#include "builtin.h"
#include "live.h"
#include "player.h"
#include "recorder.h"
#include "report_bounds.h" /* bounds_collect() */
#include "libmonitor.h"
#include "messages.h"
#include "parse.h"
#include "trace.h"
#include "viewer.h"

const char view_usage[] =
	"usage: mkm view [--ascii] FILE\n"
	"       mkm view [--ascii] --live " RECORDER_USAGE "\n"
	"       mkm view [--ascii] --live --flight SIZE [--trigger ...] ...\n"
	"       mkm view [--ascii] --play [--speed X] [--calibration CAL] FILE\n"
	"  the threads' timeline, interactive; ? lists the keys. --live\n"
	"  records as mkm record does (the trace goes to -o FILE) and shows\n"
	"  it as it comes (with --flight, mkm record's flight recorder: each\n"
	"  snapshot as it is written); --play shows FILE compensated as it is played\n"
	"  back, at X times real time (mkm replay --play prints it)\n";

/* A viewer on an empty timeline that a feed fills between frames. */
static struct tl *fed_viewer(struct viewer *w, const char *title,
			     const struct trace_info *info, bool ascii)
{
	struct tl_config cfg = { .nr_cpus = info->nr_cpus,
				 .classes = info->classes };
	struct mon_meta meta = { .info = *info };
	struct tl *tl;
	int err;

	err = tl_create(&tl, &cfg);
	if (!err)
		err = viewer_open(w, title, tl, &meta);
	if (err)
		die("view: %s", monitor_strerror(err));
	w->ascii_only = ascii;
	w->vs.view.follow = true;
	return tl;
}

/* A live view: the recording, and the feed from its pipeline. */
struct live_view {
	struct recorder rec;
	struct live_feed *feed;
	bool recording;
};

/* Between frames: the recording's state, then what it recorded since. */
static void live_tick(struct viewer_state *vs, void *arg)
{
	struct live_view *lv = arg;
	uint64_t lost = 0;
	size_t records;
	bool ended;

	if (lv->recording && !recorder_wait(&lv->rec, 0)) {
		recorder_stop(&lv->rec);
		lv->recording = false;
		snprintf(vs->message, sizeof(vs->message),
			 "recording ended; %s is written", lv->rec.out);
	}
	ended = live_feed_apply(lv->feed, vs->tl, &records);
	recorder_counts(&lv->rec, NULL, &lost);
	vs->meta.lost_by_stats = lost;
	if (records || ended)
		state_refresh(vs);
}

static int view_live(struct live_view *lv, bool ascii)
{
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
	tl = fed_viewer(&w, lv->rec.out, mon_session_info(lv->rec.s), ascii);
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

/*
 * A flight recorder's live view: nothing streams while it is armed; each
 * snapshot, once written, is read as any trace and shown in place of the
 * one before, its cursor on its trigger. The session's lines (a snapshot
 * written, one that failed) come from its thread, for the next frame.
 */
struct flight_view {
	struct live_view lv;
	pthread_mutex_t lock;
	char line[sizeof(((struct viewer_state *)0)->message)];
	bool line_new;
	uint32_t shown; /* the snapshot shown: FILE.shown */
	struct tl *tl; /* its timeline (the viewer's empty one before) */
};

static void flight_say(void *arg, const char *line)
{
	struct flight_view *fv = arg;

	pthread_mutex_lock(&fv->lock);
	snprintf(fv->line, sizeof(fv->line), "%s", line);
	fv->line_new = true;
	pthread_mutex_unlock(&fv->lock);
}

static void flight_tick(struct viewer_state *vs, void *arg)
{
	struct flight_view *fv = arg;
	struct mon_session_flight_counts c;
	char path[PATH_MAX], damage[sizeof(vs->message)];
	struct mon_meta meta;
	struct tl *tl;

	if (fv->lv.recording && !recorder_wait(&fv->lv.rec, 0)) {
		recorder_stop(&fv->lv.rec); /* --trigger exit: one more */
		fv->lv.recording = false;
		flight_say(fv, "recording ended");
	}
	pthread_mutex_lock(&fv->lock);
	if (fv->line_new)
		snprintf(vs->message, sizeof(vs->message), "%s", fv->line);
	fv->line_new = false;
	pthread_mutex_unlock(&fv->lock);
	if (mon_session_flight_counts(fv->lv.rec.s, &c) || c.last == fv->shown)
		return;
	snprintf(path, sizeof(path), "%s.%u", fv->lv.rec.out, c.last);
	tl = load_trace(path, &meta, damage, sizeof(damage));
	if (state_swap(vs, tl, &meta)) {
		tl_destroy(tl);
		snprintf(vs->message, sizeof(vs->message),
			 "snapshot %u: too large to show here (mkm view it)",
			 c.last);
		return;
	}
	tl_destroy(fv->tl);
	fv->tl = tl;
	fv->shown = c.last;
	state_refresh(vs); /* its own time range, */
	view_fit(&vs->view); /* shown whole, */
	state_at_trigger(vs); /* the cursor at its trigger */
}

static int view_flight(struct flight_view *fv, bool ascii)
{
	struct viewer w;
	int err;

	pthread_mutex_init(&fv->lock, NULL);
	fv->lv.rec.say = flight_say;
	fv->lv.rec.say_arg = fv;
	recorder_start(&fv->lv.rec, NULL);
	fv->lv.recording = true;
	fv->tl = fed_viewer(&w, fv->lv.rec.out, mon_session_info(fv->lv.rec.s),
			    ascii);
	w.vs.view.follow = false;
	snprintf(w.vs.message, sizeof(w.vs.message),
		 "armed: each snapshot %s.N is shown here once written",
		 fv->lv.rec.out);
	w.tick = flight_tick;
	w.tick_arg = fv;
	err = viewer_run(&w);
	recorder_stop(&fv->lv.rec);
	viewer_close(&w);
	tl_destroy(fv->tl);
	if (err)
		warnx_("view: the terminal could not be set up");
	return recorder_finish(&fv->lv.rec);
}

/* A play: the compensated trace, paced, fed to the viewer by a thread. */
struct play_view {
	struct live_feed *feed;
	struct player *pl;
	struct mon_pipeline *p;
	bool ended;
};

static void *play_thread(void *arg)
{
	struct play_view *pv = arg;

	mon_pipeline_run(pv->p); /* errors: as the file's, said at the end */
	return NULL;
}

static void play_tick(struct viewer_state *vs, void *arg)
{
	struct play_view *pv = arg;
	size_t records;
	bool ended = live_feed_apply(pv->feed, vs->tl, &records);

	if (ended && !pv->ended)
		snprintf(vs->message, sizeof(vs->message), "%s",
			 "the play has ended");
	pv->ended = ended;
	if (records || ended)
		state_refresh(vs);
}

static int view_play(const char *path, const char *cal_file, double speed,
		     bool ascii)
{
	static struct play_view pv;
	struct trace_info info;
	struct mon_sink *sink;
	const char *why;
	struct viewer w;
	pthread_t runner;
	struct tl *tl;
	size_t records;
	int err;

	err = live_feed_create(&pv.feed, &sink);
	if (err)
		die("view: %s", monitor_strerror(err));
	pv.p = player_open(&pv.pl, path, cal_file, false, speed, sink);
	info = *mon_source_info(mon_pipeline_source(pv.p));
	info.trace_flags |= TRACE_F_COMPENSATED;
	tl = fed_viewer(&w, path, &info, ascii);
	w.tick = play_tick;
	w.tick_arg = &pv;
	if (pthread_create(&runner, NULL, play_thread, &pv))
		die("view: cannot start the player");
	err = viewer_run(&w);
	player_stop(pv.pl);
	pthread_join(runner, NULL);
	live_feed_apply(pv.feed, tl, &records);
	viewer_close(&w);
	tl_destroy(tl);
	why = mon_pipeline_error(pv.p, NULL);
	if (why && *why)
		warnx_("%s: %s", path, why);
	mon_pipeline_destroy(pv.p);
	player_destroy(pv.pl);
	live_feed_destroy(pv.feed);
	if (err)
		die("view: the terminal could not be set up");
	return 0;
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

/* The trace's two timelines: raw, and compensated once asked for; the
 * compensated figures' bounds of each (of [0] when the file is a
 * compensated trace, from its BOUNDS chunk; of [1] from the stage). */
struct both {
	const char *path;
	struct tl *tl[2];
	struct mon_meta meta[2];
	struct mon_bounds bounds[2];
	struct mon_calibration cal;
	bool shown; /* 1: the compensated one */
};

static void toggle(struct viewer_state *vs, void *arg)
{
	struct both *b = arg;
	struct mon_compensate_opts copts = { .bounds = bounds_collect,
					     .arg = &b->bounds[1] };
	int err;

	if (b->meta[0].info.trace_flags & TRACE_F_COMPENSATED) {
		snprintf(vs->message, sizeof(vs->message),
			 "compensated already: view the raw trace for both");
		return;
	}
	if (!b->tl[1]) {
		err = mon_calibration_load(&b->cal, b->path);
		if (err) {
			snprintf(
				vs->message, sizeof(vs->message),
				"no calibration in this trace: mkm replay --calibration FILE %s -o OUT, then view OUT",
				b->path);
			return;
		}
		if (mon_calibration_judge(&b->cal, NULL, 0)) {
			snprintf(
				vs->message, sizeof(vs->message),
				"the trace's calibration is not a cost: mkm replay --calibration FILE %s -o OUT, then view OUT",
				b->path);
			return;
		}
		b->tl[1] = load_trace_compensated(b->path, &b->cal, &copts,
						  &b->meta[1], NULL, 0);
	}
	b->shown = !b->shown;
	err = state_swap(vs, b->tl[b->shown], &b->meta[b->shown]);
	if (!err && b->shown)
		err = wide_set(vs, &b->bounds[1]);
	if (err)
		die("view: %s", monitor_strerror(err));
	snprintf(
		vs->message, sizeof(vs->message), "%s",
		b->shown ?
			"compensated: times without the monitor's cost (K: raw)" :
			"raw: times as recorded (K: compensated)");
}

int cmd_view(int argc, char **argv)
{
	static struct both both;
	static const struct option opts[] = {
		RECORDER_LONG_OPTS,
		RECORDER_FLIGHT_LONG_OPTS,
		{ "ascii", no_argument, NULL, 'a' },
		{ "live", no_argument, NULL, 'l' },
		{ "play", no_argument, NULL, 'P' },
		{ "speed", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct flight_view fv;
	struct live_view *lv = &fv.lv;
	bool live = false, play = false, recording_opts = false;
	double speed = 1;
	struct viewer w;
	struct mon_meta meta;
	char damage[sizeof(w.vs.message)];
	bool ascii = false;
	struct tl *tl;
	int opt, err;

	recorder_init(&lv->rec);
	while ((opt = getopt_long(argc, argv, "+" RECORDER_SHORT_OPTS "h", opts,
				  NULL)) != -1) {
		if (recorder_option(&lv->rec, opt, optarg) ||
		    recorder_flight_option(&lv->rec, opt, optarg)) {
			/* --calibration goes with --play too */
			recording_opts |= opt != 'C';
		} else if (opt == 'a') {
			ascii = true;
		} else if (opt == 'l') {
			live = true;
		} else if (opt == 'P') {
			play = true;
		} else if (opt == 's') {
			speed = parse_speed(optarg);
		} else if (opt == 'h') {
			fputs(view_usage, stdout);
			return 0;
		} else {
			die_usage("view: bad option");
		}
	}
	if (live && play)
		die_usage("view: --live or --play, not both");
	if (live) {
		recorder_command(&lv->rec, argc - optind, argv + optind,
				 "view --live");
		setlocale(LC_ALL, "");
		check_terminal();
		if (lv->rec.flight_bytes)
			return view_flight(&fv, ascii);
		return view_live(lv, ascii);
	}
	recorder_release(&lv->rec);
	if (recording_opts || (lv->rec.cal_file && !play))
		die_usage(
			"view: -o, -b, -e, -t, -p, --no-calibrate, --buffered-io and the flight recorder's options go with --live, --calibration with --live or --play");
	if (optind != argc - 1)
		die_usage("view: give one trace file");
	setlocale(LC_ALL, "");
	check_terminal();
	if (play)
		return view_play(argv[optind], lv->rec.cal_file, speed, ascii);
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
	/* A compensated trace (mkm replay's) carries its bounds. */
	if (meta.info.trace_flags & TRACE_F_COMPENSATED &&
	    !mon_bounds_load(&both.bounds[0], argv[optind]) &&
	    wide_set(&w.vs, &both.bounds[0]))
		die("view: %s", monitor_strerror(-ENOMEM));
	/* Said on screen, where stderr would be wiped out. */
	snprintf(w.vs.message, sizeof(w.vs.message), "%s", damage);
	err = viewer_run(&w);
	viewer_close(&w);
	tl_destroy(both.tl[0]);
	tl_destroy(both.tl[1]);
	mon_bounds_free(&both.bounds[0]);
	mon_bounds_free(&both.bounds[1]);
	mon_calibration_free(&both.cal);
	if (damage[0])
		warnx_("%s", damage);
	if (err)
		die("view: the terminal could not be set up");
	return 0;
}
