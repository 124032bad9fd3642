// SPDX-License-Identifier: GPL-2.0
/* messages.c - what mkm says on stderr: one line, "mkm: " first. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "messages.h"

/* "mkm: " + the message + tail, on stderr. */
static void say(const char *tail, const char *fmt, va_list ap)
{
	fputs("mkm: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs(tail, stderr);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("\n", fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("\n", fmt, ap);
	va_end(ap);
	exit(1);
}

void die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(" (mkm --help)\n", fmt, ap);
	va_end(ap);
	exit(2);
}
