/* SPDX-License-Identifier: GPL-2.0 */
/* util.h - what the mkm subcommands share: messages, parsing, formatting,
 * and opening a trace through libmonitor's pipeline. */
#ifndef MKM_UTIL_H
#define MKM_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libmonitor.h"
#include "mon_pipeline.h"

/* Prints "mkm: ..." and a newline on stderr. */
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same, then exits with status 1 (2 for usage errors: die_usage). */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void die_usage(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/* What a recording takes without --events (mon_events.h says why). */
#define RECORD_CLASSES MON_CLASS_RECORD_DEFAULT

/* The event classes by the names --events takes: one class each, then
 * "default" (RECORD_CLASSES) and "all"; ends with a NULL name. */
struct event_class {
	const char *name;
	uint32_t classes;
};
extern const struct event_class event_classes[];

/* The classes of @mask as a comma-separated list of their names. */
const char *fmt_classes(char *buf, size_t len, uint32_t mask);

/* The most tids a --tid/--threads list takes. */
#define MAX_TIDS 4096

/* A comma-separated list of thread ids (option @opt's argument @s) into
 * @tids (room for @max); dies (usage) if malformed. Return: how many. */
size_t parse_tid_list(const char *opt, const char *s, uint32_t *tids,
		      size_t max);

/* Parses a size with an optional K, M or G suffix; -1 if malformed. */
int64_t parse_size(const char *s);

/* @s on stdout as a JSON string: quoted, '"' and backslash escaped,
 * control and non-ASCII bytes as \u00XX. */
void json_string(const char *s);

/* mon_parse_time() of option @opt's argument @s; dies (usage) naming the
 * units when it is not a time. */
int64_t parse_time_arg(const char *opt, const char *s);

/* A playing speed: a factor > 0, or 0 for no waiting; dies (usage) if
 * malformed. */
double parse_speed(const char *s);

/* A sink printing every record as mkm dump does, times from the trace's
 * origin (mon_time_origin() of its INFO), flushed after each batch (a play
 * is read as it goes); @printed (if not NULL) counts the records printed
 * other than LOST ones, as it goes.
 * Return: 0 or -ENOMEM. */
int event_printer(struct mon_sink **skp, uint64_t *printed);

/* Why a cut (add_order_and_cut()) that kept no record of a thread fails,
 * in the words of every command that cuts. */
#define EMPTY_CUT                                                      \
	"no record in the window or threads given (--from/--to count " \
	"from the recording's start, in every command)"

/* The calibration table, as mkm calibrate and mkm report print it. */
void print_calibration(const struct mon_calibration *cal);

/*
 * The calibration to compensate trace @path with: the one in @cal_file
 * (NULL: the trace's own). Dies with a clear message when there is none,
 * when the trace is compensated already, or when a figure is not a cost
 * (mon_calibration_judge()) unless @force (then it warns); warns when it
 * was taken on another kernel release or CPU model than the trace.
 */
void calibration_for(const char *path, const char *cal_file, bool force,
		     struct mon_calibration *cal);

/*
 * Adds to @p, reading @path, the order stage, then, when some threads
 * (@filter's tids) or a window ([@from, @to) ns from mon_time_origin(); -1:
 * open) are asked for, the filter stage; dies with a clear message.
 * Return: whether a cut was asked for.
 */
bool add_order_and_cut(struct mon_pipeline *p, const char *path,
		       struct mon_filter *filter, int64_t from, int64_t to);

/* A pipeline reading the trace file @path; dies with a clear message. */
struct mon_pipeline *open_trace(const char *path);

/*
 * Runs @p to its end. A damaged or cut trace is not fatal: it warns,
 * naming the offset, and what came before it stays (the sinks were
 * finished); damage the reader skipped (it read on from the next good
 * chunk) is warned of the same way, saying what was skipped; any other
 * failure dies. With @damage, the warning goes there
 * (@len bytes, "" if the trace is whole) instead of to stderr.
 */
void run_trace(struct mon_pipeline *p, const char *path, char *damage,
	       size_t len);

/* Reads a whole trace into a new timeline (file source -> timeline sink);
 * @meta gets the trace's metadata; @damage as run_trace(). Dies with a
 * clear message. */
struct tl *load_trace(const char *path, struct mon_meta *meta, char *damage,
		      size_t len);

/* The same through the compensation stage, with @cal and @opts (NULL:
 * none; MON_COMPENSATE_FORCE to use a calibration that is not a cost). */
struct tl *load_trace_compensated(const char *path,
				  const struct mon_calibration *cal,
				  const struct mon_compensate_opts *opts,
				  struct mon_meta *meta, char *damage,
				  size_t len);

/* Prints a CPU x thread matrix's cell, "time run (dispatches)",
 * right-aligned in @width columns after a space. */
void print_acct_cell(const struct acct_cell *c, int width);

#endif /* MKM_UTIL_H */
