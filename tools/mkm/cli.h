/* SPDX-License-Identifier: GPL-2.0 */
/* cli.h - the mkm command: its subcommands and shared helpers. */
#ifndef MKM_CLI_H
#define MKM_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libmonitor.h"

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
int cmd_dump(int argc, char **argv);

/* Prints "mkm: ..." and a newline on stderr. */
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same, then exits with status 1 (2 for usage errors: die_usage). */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void die_usage(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/* Parses a size with an optional K, M or G suffix; -1 if malformed. */
int64_t parse_size(const char *s);

/* Reads a whole trace into a new timeline; dies with a clear message. */
struct tl *load_trace(const char *path, struct trace_info *info,
		      uint64_t *lost_by_stats);

/* Nanoseconds as a short human string ("12.3 ms") in buf. */
const char *fmt_ns(char *buf, size_t len, uint64_t ns);

#endif /* MKM_CLI_H */
