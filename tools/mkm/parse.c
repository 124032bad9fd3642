// SPDX-License-Identifier: GPL-2.0
/* parse.c - the values the options of mkm's commands take: thread ids,
 * sizes, times, speeds. */

#include <errno.h>
#include <stdlib.h>

#include "libmonitor.h"
#include "messages.h"
#include "parse.h"

size_t parse_tid_list(const char *opt, const char *s, uint32_t *tids,
		      size_t max)
{
	size_t n = 0;

	while (*s) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(s, &end, 10);
		if (errno || end == s || !v || v > UINT32_MAX || n == max ||
		    (*end && *end != ','))
			die_usage("%s: '%s' is not a list of ids (e.g. 12,15)",
				  opt, s);
		tids[n++] = (uint32_t)v;
		s = *end ? end + 1 : end;
	}
	return n;
}

int64_t parse_time_arg(const char *opt, const char *s)
{
	int64_t t = mon_parse_time(s);

	if (t < 0)
		die_usage(
			"%s: '%s' is not a time: give a number and a unit, one of " MON_TIME_UNITS
			" (e.g. 20ms)",
			opt, s);
	return t;
}

double parse_speed(const char *s)
{
	char *end;
	double x = strtod(s, &end);

	if (end == s || *end || !(x >= 0) || x > 1e9)
		die_usage(
			"--speed: '%s': a factor (0.5, 10) or 0 for no waiting",
			s);
	return x;
}
