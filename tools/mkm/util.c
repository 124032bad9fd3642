// SPDX-License-Identifier: GPL-2.0
/* util.c - the helpers the mkm subcommands share (see util.h). */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

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

int64_t parse_time(const char *s)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 },
		      { "us", 1e3 },
		      { "ms", 1e6 },
		      { "s", 1e9 },
		      { "", 1 } };
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -1;
	while (*end == ' ')
		end++;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit))
			return (int64_t)(v * units[i].ns + 0.5);
	return -1;
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

const char *fmt_event_args(char *buf, size_t len, const struct mkm_event *e)
{
	switch (e->type) {
	case MKM_EV_SWITCH_OUT:
		snprintf(buf, len, "%s%s next=%u", mon_task_state_name(e->arg0),
			 e->flags & MKM_EVF_PREEMPTED ? " preempted" : "",
			 e->arg1);
		break;
	case MKM_EV_SWITCH_IN:
		snprintf(buf, len, "prev=%u waited=%u%s", e->arg1, e->arg0,
			 e->flags & MKM_EVF_WAIT_US ? "us" : "ns");
		break;
	case MKM_EV_WAKING:
	case MKM_EV_WAKEUP:
	case MKM_EV_WAKEUP_NEW:
		snprintf(buf, len, "by=%u cpu=%d%s", e->arg1, (int)e->arg0,
			 e->flags & MKM_EVF_IN_IRQ ? " in_irq" : "");
		break;
	case MKM_EV_MIGRATE:
		snprintf(buf, len, "cpu%u->cpu%u", e->arg1, e->arg0);
		break;
	case MKM_EV_FORK:
		snprintf(buf, len, "child=%u%s%s", e->arg0,
			 e->flags & MKM_EVF_THREAD ? " thread" : "",
			 e->flags & MKM_EVF_INHERITED ? " inherited" : "");
		break;
	case MKM_EV_NAME: {
		char s[9] = { 0 };

		memcpy(s, &e->arg0, 4);
		memcpy(s + 4, &e->arg1, 4);
		snprintf(buf, len, "part%u \"%s\"", e->flags, s);
		break;
	}
	case MKM_EV_ATTACH:
		snprintf(buf, len, "%s cpu=%d", mon_task_state_name(e->arg0),
			 (int)e->arg1);
		break;
	case MKM_EV_LOST:
		snprintf(buf, len, "%u events", e->arg0);
		break;
	default:
		snprintf(buf, len, "%u %u", e->arg0, e->arg1);
	}
	return buf;
}

struct mon_pipeline *open_trace(const char *path)
{
	struct mon_source *src = NULL;
	struct mon_pipeline *p;
	int ret;

	ret = mon_source_file(&src, path);
	if (ret) {
		const char *why = src ? mon_source_error(src, NULL) : "";

		die("%s: %s", path, *why ? why : monitor_strerror(ret));
	}
	ret = mon_pipeline_create(&p, src);
	if (ret)
		die("%s: %s", path, monitor_strerror(ret));
	return p;
}

void run_trace(struct mon_pipeline *p, const char *path, char *damage,
	       size_t len)
{
	int ret = mon_pipeline_run(p);
	const char *why = mon_pipeline_error(p, NULL);

	if (damage && len)
		damage[0] = 0;
	/* A damaged or cut trace: say where, keep what came before. */
	if ((ret == -EBADMSG || ret == -ENODATA) && damage && len)
		snprintf(damage, len, "%s: %s; showing what precedes it", path,
			 why);
	else if (ret == -EBADMSG || ret == -ENODATA)
		warnx_("%s: %s; showing what precedes it", path, why);
	else if (ret)
		die("%s: %s", path, why);
}

struct tl *load_trace(const char *path, struct mon_meta *meta, char *damage,
		      size_t len)
{
	struct mon_pipeline *p = open_trace(path);
	const struct trace_info *info = mon_source_info(mon_pipeline_source(p));
	struct tl_config cfg = { .nr_cpus = info->nr_cpus,
				 .classes = info->classes };
	struct mon_sink *sink;
	struct tl *tl;
	int ret;

	ret = tl_create(&tl, &cfg);
	if (!ret)
		ret = mon_sink_timeline(&sink, tl);
	if (!ret)
		ret = mon_pipeline_add_sink(p, sink);
	if (ret)
		die("%s: %s", path, monitor_strerror(ret));
	run_trace(p, path, damage, len);
	*meta = *mon_pipeline_meta(p);
	mon_pipeline_destroy(p);
	return tl;
}
