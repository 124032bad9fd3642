// SPDX-License-Identifier: GPL-2.0
/* main.c - mkm: record threads' context switches, report where time went. */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
	"usage: mkm COMMAND [ARGS]\n"
	"\n"
	"  record [-o FILE] [--buffer-size N] [--events LIST] -- CMD [ARGS...]\n"
	"  record [-o FILE] ... -t TID[,TID...] | -p PID\n"
	"      monitor CMD and every thread and child it creates, or running\n"
	"      threads, and write a trace file (default CMD.mkm / mkm.mkm)\n"
	"  report [--json] FILE\n"
	"      per-thread microstates, per-CPU summary, bursts, CPU x thread\n"
	"  timeline [-w WIDTH] FILE\n"
	"      the threads' timeline as text, one row per thread\n"
	"  dump FILE\n"
	"      every event, one line each, in time order\n"
	"\n"
	"See mkm(1).\n";

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

int64_t parse_size(const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || v < 0)
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		v <<= 10, end++;
		break;
	case 'm':
	case 'M':
		v <<= 20, end++;
		break;
	case 'g':
	case 'G':
		v <<= 30, end++;
		break;
	}
	return *end ? -1 : v;
}

const char *fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 10000)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 10000000)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 10000000000ull)
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
	return buf;
}

struct tl *load_trace(const char *path, struct trace_info *info,
		      uint64_t *lost_by_stats)
{
	struct trace_reader *r = NULL;
	struct trace_chunk c;
	struct tl_config cfg = { 0 };
	struct tl *tl;
	int ret;

	ret = trace_reader_open(&r, path);
	if (ret) {
		if (r)
			die("%s: %s", path, trace_reader_error(r, NULL));
		die("%s: %s", path, monitor_strerror(ret));
	}
	*info = *trace_reader_info(r);
	cfg.nr_cpus = info->nr_cpus;
	cfg.classes = info->classes;
	ret = tl_create(&tl, &cfg);
	if (ret)
		die("%s: %s", path, monitor_strerror(ret));
	*lost_by_stats = 0;
	while ((ret = trace_reader_next(r, &c)) > 0) {
		size_t i;

		switch (c.type) {
		case TRACE_CHUNK_EVENTS:
			ret = tl_feed(tl, c.events, c.nr_events);
			break;
		case TRACE_CHUNK_HORIZON:
			ret = tl_advance(tl, c.horizon_ns);
			break;
		case TRACE_CHUNK_STATS:
			*lost_by_stats = 0;
			for (i = 0; i < c.nr_stats; i++)
				*lost_by_stats += c.stats[i].lost;
			break;
		}
		if (ret < 0)
			die("%s: %s", path, monitor_strerror(ret));
	}
	tl_flush(tl);
	/* A damaged or cut trace: say where, keep what came before. */
	if (ret < 0)
		warnx_("%s: %s; showing what precedes it", path,
		       trace_reader_error(r, NULL));
	trace_reader_close(r);
	return tl;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "timeline"))
		return cmd_timeline(argc - 1, argv + 1);
	if (!strcmp(cmd, "dump"))
		return cmd_dump(argc - 1, argv + 1);
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		fputs(usage, stdout);
		return 0;
	}
	fputs(usage, stderr);
	return 2;
}
