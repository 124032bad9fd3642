// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - mkm record: monitor a command or running threads into a trace
 * (the session itself is recorder.c), with a live status line.
 */
#include <getopt.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "messages.h"
#include "recorder.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void status_line(struct recorder *rec, uint64_t start, uint64_t *last_t,
			uint64_t *last_events, bool final)
{
	uint64_t t = now_ns(), ev = 0, lost = 0;
	double dt, rate;
	struct stat st;

	recorder_counts(rec, &ev, &lost);
	dt = (t - *last_t) / 1e9;
	rate = dt > 0 ? (ev - *last_events) / dt : 0;

	if (stat(rec->out, &st))
		st.st_size = 0;
	fprintf(stderr, "\rmkm: %6.1f s  %8.0f events/s  %llu lost  %.1f MiB%s",
		(t - start) / 1e9, rate, (unsigned long long)lost,
		st.st_size / 1048576.0, final ? "\n" : "  ");
	*last_t = t;
	*last_events = ev;
}

const char record_usage[] = "usage: mkm record " RECORDER_USAGE
			    "\n" RECORDER_FLIGHT_USAGE;

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		RECORDER_LONG_OPTS,
		RECORDER_FLIGHT_LONG_OPTS,
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool tty = isatty(STDERR_FILENO);
	uint64_t start, last_t, last_ev = 0;
	struct recorder rec;
	int opt;

	recorder_init(&rec);
	while ((opt = getopt_long(argc, argv, "+" RECORDER_SHORT_OPTS "ah",
				  opts, NULL)) != -1) {
		if (recorder_option(&rec, opt == 'a' ? 'S' : opt, optarg) ||
		    recorder_flight_option(&rec, opt, optarg))
			continue;
		if (opt == 'h') {
			puts(record_usage);
			return 0;
		}
		die_usage("record: bad option");
	}
	recorder_command(&rec, argc - optind, argv + optind, "record");
	recorder_start(&rec, NULL);
	start = last_t = now_ns();
	/*
	 * A flight recorder's file is not growing: no status line, and no
	 * tick either where a signal says what ends the recording (the
	 * command's SIGCHLD, Ctrl-C): an armed recorder does not wake.
	 */
	tty = tty && !rec.flight_bytes;
	while (recorder_wait(&rec, !rec.flight_bytes	   ? 250 :
				   rec.child || rec.system ? 3600000 :
							     1000))
		if (tty)
			status_line(&rec, start, &last_t, &last_ev, false);
	recorder_stop(&rec);
	if (tty)
		status_line(&rec, start, &last_t, &last_ev, true);
	return recorder_finish(&rec);
}
