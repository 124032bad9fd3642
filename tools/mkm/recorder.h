/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recorder.h - what mkm record and mkm view --live add to a recording
 * (libmonitor's mon_session.h, which owns the monitor, the calibration,
 * the trace writer and its thread): their options, a command started
 * stopped before exec (so it is monitored from its first step), its
 * signals, and the messages and exit status of the command line.
 *
 * Signals (SIGINT, SIGTERM, SIGCHLD) are blocked from recorder_init() on,
 * in every thread, and taken by recorder_wait() only: a first Ctrl-C is
 * passed to the command, a second one (or one without a command) ends the
 * recording. One that comes before the recording starts (while it
 * calibrates) ends mkm with a message, 128 + the signal, and no file.
 */
#ifndef MKM_RECORDER_H
#define MKM_RECORDER_H

#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "libmonitor.h"
#include "mon_session.h"

/* The options every recording takes, for getopt_long. --all-cpus is
 * -a for mkm record (mkm view's -a is --ascii). */
#define RECORDER_SHORT_OPTS "o:b:e:t:p:"
#define RECORDER_LONG_OPTS                                       \
	{ "output", required_argument, NULL, 'o' },              \
		{ "buffer-size", required_argument, NULL, 'b' }, \
		{ "events", required_argument, NULL, 'e' },      \
		{ "tid", required_argument, NULL, 't' },         \
		{ "pid", required_argument, NULL, 'p' },         \
		{ "all-cpus", no_argument, NULL, 'S' },          \
		{ "no-calibrate", no_argument, NULL, 'N' },      \
		{ "buffered-io", no_argument, NULL, 'D' },       \
		{ "realtime", required_argument, NULL, 'R' },    \
	{                                                        \
		"calibration", required_argument, NULL, 'C'      \
	}
#define RECORDER_USAGE                                                     \
	"[-o FILE] [--buffer-size N] [--events LIST] [--buffered-io]\n"    \
	"       [--no-calibrate | --calibration FILE] [--realtime PRIO]\n" \
	"       -- CMD [ARGS...]\n"                                        \
	"       ... [-o FILE] ... -t TID[,TID...] | -p PID\n"              \
	"       ... [-o FILE] ... -a [-- CMD [ARGS...]]"

/* mkm record's flight recorder options (recorder_flight_option()). */
enum {
	RECORDER_OPT_FLIGHT = 1000,
	RECORDER_OPT_TRIGGER,
	RECORDER_OPT_PRE,
	RECORDER_OPT_POST,
	RECORDER_OPT_MAX_SNAPSHOTS,
	RECORDER_OPT_HOLD_OFF,
};
#define RECORDER_FLIGHT_LONG_OPTS                                             \
	{ "flight", required_argument, NULL, RECORDER_OPT_FLIGHT },           \
		{ "trigger", required_argument, NULL, RECORDER_OPT_TRIGGER }, \
		{ "pre", required_argument, NULL, RECORDER_OPT_PRE },         \
		{ "post", required_argument, NULL, RECORDER_OPT_POST },       \
		{ "max-snapshots", required_argument, NULL,                   \
		  RECORDER_OPT_MAX_SNAPSHOTS },                               \
	{                                                                     \
		"hold-off", required_argument, NULL, RECORDER_OPT_HOLD_OFF    \
	}
#define RECORDER_FLIGHT_USAGE                                                 \
	"       ... --flight SIZE [--trigger 'runq>T' | 'irq>T' | exit]...\n" \
	"           [--pre T] [--post T] [--max-snapshots N] [--hold-off T] ..."

struct recorder {
	struct mon_session_config cfg; /* the options' (cfg.monitor: -b, -e,
					  -a; cfg.flight: --flight's) */
	uint64_t flight_bytes; /* --flight SIZE: over all CPUs; 0: not one */
	bool no_calibrate;
	bool buffered_io; /* --buffered-io: no O_DIRECT */
	const char *cal_file; /* --calibration: reused, not measured */
	const char *out;
	char default_out[256];
	pid_t *tids; /* the threads given with -t / -p, or the command */
	size_t nr_tids;
	char **cmd; /* the command, or NULL */
	struct mon_session *s; /* the recording (libmonitor's) */
	bool running; /* started, not stopped */
	int run_err; /* what ended the recording early */
	pid_t child;
	int status; /* the command's, once reaped */
	bool reaped, exec_failed, stop_asked;
	int stop_sig; /* the second Ctrl-C that ended us with the command
			 still running */
	bool system; /* -a: every thread of the machine (MKM_CONFIG_SYSTEM) */
	sigset_t sigs;
	/* The session's lines (a flight recorder's snapshot written, a
	 * failure), from its threads: set before recorder_start() (a
	 * viewer's screen); NULL: stderr. */
	void (*say)(void *arg, const char *line);
	void *say_arg;
};

/* Defaults: the command's threads and children, the default classes.
 * Blocks SIGINT, SIGTERM and SIGCHLD: call it first. */
void recorder_init(struct recorder *rec);
/* The session will not record after all (mkm view of a file): gives the
 * signals back and frees what the options took. */
void recorder_release(struct recorder *rec);
/* Takes option @opt of RECORDER_SHORT_OPTS; false if it is not one. */
bool recorder_option(struct recorder *rec, int opt, const char *arg);
/*
 * Takes option @opt of RECORDER_FLIGHT_LONG_OPTS (mkm record's); false if
 * it is not one. --flight SIZE keeps the last SIZE of records over all
 * CPUs (MON_SESSION_MODE_FLIGHT) and writes a snapshot FILE.1, FILE.2,
 * ... at each trigger, at SIGUSR2 (mkm trigger) and, with --trigger exit,
 * at the end.
 */
bool recorder_flight_option(struct recorder *rec, int opt, const char *arg);
/* The arguments after the options: the command, if any. Dies (usage)
 * when there is neither a command nor threads (nor -a), or both. With -a
 * and no command the recording lasts until Ctrl-C. */
void recorder_command(struct recorder *rec, int argc, char **argv,
		      const char *who);
/* Creates the session (its monitor), checks the output can be written,
 * tracks the threads given, calibrates (a short run, unless
 * --no-calibrate or --calibration), keeps an existing output as FILE.old,
 * prepares the session (with @extra, if not NULL, as a second sink),
 * starts the command and the session. Dies with a clear message on
 * failure, before the file is made where it can. */
void recorder_start(struct recorder *rec, struct mon_sink *extra);
/* Waits up to @ms for a signal or the command's end; false once the
 * recording should end (the command ended, a second Ctrl-C, the threads
 * are gone, the command could not be run). */
bool recorder_wait(struct recorder *rec, int ms);
/* The monitor's counts so far: records read and lost. */
void recorder_counts(struct recorder *rec, uint64_t *events, uint64_t *lost);
/* Ends the recording: drains the monitor to the end, closes the file. */
void recorder_stop(struct recorder *rec);
/* Stops if need be, then says what was written (and lost) on stderr and
 * frees the session. Dies if the trace could not be written. Return: the
 * exit status for the command line: the command's (its exit code, or 128
 * + the signal that ended it, 127 if it could not be run), else 0, or 128
 * + the signal of a second Ctrl-C that left it running. */
int recorder_finish(struct recorder *rec);

#endif /* MKM_RECORDER_H */
