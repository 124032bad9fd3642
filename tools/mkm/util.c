// SPDX-License-Identifier: GPL-2.0
/* util.c - the helpers the mkm subcommands share (see util.h). */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

const struct event_class event_classes[] = {
	{ "sched", MKM_CLASS_SCHED },	{ "lifecycle", MKM_CLASS_LIFECYCLE },
	{ "irq", MKM_CLASS_IRQ },	{ "syscall", MKM_CLASS_SYSCALL },
	{ "wakeup", MKM_CLASS_WAKEUP }, { "default", RECORD_CLASSES },
	{ "all", MKM_CLASS_ALL },	{ NULL, 0 },
};

const char *fmt_classes(char *buf, size_t len, uint32_t mask)
{
	const struct event_class *c;
	size_t n = 0;

	buf[0] = 0;
	/* The single classes only: each bit once. */
	for (c = event_classes; c->name && !(c->classes & (c->classes - 1));
	     c++)
		if (mask & c->classes && n < len)
			n += snprintf(buf + n, len - n, "%s%s", n ? "," : "",
				      c->name);
	return buf;
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

struct mon_pipeline *open_trace(const char *path)
{
	struct mon_source *src = NULL;
	struct mon_pipeline *p;
	int ret;

	ret = mon_source_file(&src, path);
	if (ret == -EISDIR)
		die("%s: is a directory: give a trace file (mkm record writes one)",
		    path);
	if (ret) {
		const char *why = src ? mon_source_error(src, NULL) : "";

		/* Not the module's words: opening a file failed. */
		die("%s: %s", path, *why ? why : strerror(-ret));
	}
	ret = mon_pipeline_create(&p, src);
	if (ret)
		die("%s: %s", path, monitor_strerror(ret));
	return p;
}

bool add_order_and_cut(struct mon_pipeline *p, const char *path,
		       struct mon_filter *filter, int64_t from, int64_t to)
{
	uint64_t origin =
		mon_time_origin(mon_source_info(mon_pipeline_source(p)));
	bool cut = filter->nr_tids || from >= 0 || to >= 0;
	struct mon_stage *order, *keep;
	int ret;

	if (from >= 0 && to >= 0 && to <= from)
		die_usage("--to must come after --from");
	filter->from_ns = from >= 0 ? origin + (uint64_t)from : 0;
	filter->to_ns = to >= 0 ? origin + (uint64_t)to : 0;
	ret = mon_stage_order(&order);
	if (!ret)
		ret = mon_pipeline_add_stage(p, order);
	if (!ret && cut) {
		ret = mon_stage_filter(&keep, filter);
		if (!ret)
			ret = mon_pipeline_add_stage(p, keep);
	}
	if (ret)
		die("%s: %s", path, monitor_strerror(ret));
	return cut;
}

void run_trace(struct mon_pipeline *p, const char *path, char *damage,
	       size_t len)
{
	int ret = mon_pipeline_run(p);
	const char *why = mon_pipeline_error(p, NULL);

	if (damage && len)
		damage[0] = 0;
	/* Damage skipped: the stream read on from the next good chunk. */
	if (!ret) {
		why = mon_source_error(mon_pipeline_source(p), NULL);
		if (*why && damage && len)
			snprintf(damage, len, "%s: %s; read on from there",
				 path, why);
		else if (*why)
			warnx_("%s: %s; read on from there", path, why);
		return;
	}
	/* A damaged or cut trace: say where, keep what came before. */
	if ((ret == -EBADMSG || ret == -ENODATA) && damage && len)
		snprintf(damage, len, "%s: %s; showing what precedes it", path,
			 why);
	else if (ret == -EBADMSG || ret == -ENODATA)
		warnx_("%s: %s; showing what precedes it", path, why);
	else if (ret)
		die("%s: %s", path, why);
}

/* file source [-> order -> compensate] -> timeline sink */
static struct tl *load(const char *path, const struct mon_calibration *cal,
		       const struct mon_compensate_opts *opts,
		       struct mon_meta *meta, char *damage, size_t len)
{
	struct mon_pipeline *p = open_trace(path);
	const struct trace_info *info = mon_source_info(mon_pipeline_source(p));
	struct tl_config cfg = { .nr_cpus = info->nr_cpus,
				 .classes = info->classes };
	struct mon_stage *order, *comp;
	struct mon_sink *sink;
	struct tl *tl;
	int ret;

	ret = tl_create(&tl, &cfg);
	if (!ret && cal) {
		ret = mon_stage_order(&order);
		if (!ret)
			ret = mon_pipeline_add_stage(p, order);
		if (!ret)
			ret = mon_stage_compensate_opts(&comp, cal, opts);
		if (!ret)
			ret = mon_pipeline_add_stage(p, comp);
	}
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

struct tl *load_trace(const char *path, struct mon_meta *meta, char *damage,
		      size_t len)
{
	return load(path, NULL, NULL, meta, damage, len);
}

struct tl *load_trace_compensated(const char *path,
				  const struct mon_calibration *cal,
				  const struct mon_compensate_opts *opts,
				  struct mon_meta *meta, char *damage,
				  size_t len)
{
	return load(path, cal, opts, meta, damage, len);
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

#define COMMS 4096 /* the printer's table of names, by tid (modulo) */

struct printer {
	uint64_t origin; /* times print from it: mon_time_origin() */
	uint64_t *printed; /* records printed but LOST ones, or NULL */
	char machine[65]; /* the trace's, for syscall names */
	/* The names seen (THREADS, NAME records), to name the tids that
	 * records give as numbers; a tid's slot may be taken by another. */
	struct {
		uint32_t tid;
		char comm[16];
	} comms[COMMS];
	/* Per CPU (modulo), the last first half of a comm, and whose: the
	 * kernel writes both halves one after the other on one CPU. */
	struct {
		uint32_t tid;
		char half[9];
	} names[64];
};

static void set_comm(struct printer *pr, uint32_t tid, const char *comm,
		     size_t len)
{
	typeof(pr->comms[0]) *c = &pr->comms[tid % COMMS];

	c->tid = tid;
	snprintf(c->comm, sizeof(c->comm), "%.*s", (int)len, comm);
}

static const char *printer_comm(void *arg, uint32_t tid)
{
	const struct printer *pr = arg;

	return pr->comms[tid % COMMS].tid == tid ? pr->comms[tid % COMMS].comm :
						   NULL;
}

static void print_event_line(struct printer *pr, const struct mkm_event *e)
{
	struct mon_event_fmt f = { .machine = pr->machine,
				   .comm = printer_comm,
				   .arg = pr };
	char args[128], comm[17];

	if (e->type == MKM_EV_NAME) {
		typeof(pr->names[0]) *n = &pr->names[e->cpu % 64];

		if (!e->flags) {
			n->tid = e->tid;
			memcpy(n->half, &e->arg0, 4);
			memcpy(n->half + 4, &e->arg1, 4);
		} else if (n->tid == e->tid) {
			f.first_half = n->half;
		}
	}
	printf("%14.6f ms cpu%-2u %7u %-13s %s  seq=%u\n",
	       ((double)e->time_ns - (double)pr->origin) / 1e6, e->cpu, e->tid,
	       mon_event_name(e->type),
	       mon_fmt_event_args(args, sizeof(args), e, &f), e->seq);
	/* The comm is known from its second record on. */
	if (e->type == MKM_EV_NAME && e->flags &&
	    sscanf(args, "comm \"%16[^\"]\"", comm) == 1)
		set_comm(pr, e->tid, comm, strlen(comm));
}

static int printer_consume(void *priv, const struct mon_msg *msg)
{
	struct printer *pr = priv;
	size_t i;

	if (msg->type == MON_MSG_THREADS)
		for (i = 0; i < msg->nr_threads; i++)
			set_comm(pr, msg->threads[i].tid, msg->threads[i].name,
				 strnlen(msg->threads[i].name,
					 sizeof(msg->threads[i].name)));
	if (msg->type == MON_MSG_INFO) {
		pr->origin = mon_time_origin(msg->info);
		snprintf(pr->machine, sizeof(pr->machine), "%s",
			 msg->info->machine);
	}
	if (msg->type != MON_MSG_EVENTS || !msg->nr_events)
		return 0;
	for (i = 0; i < msg->nr_events; i++) {
		print_event_line(pr, &msg->events[i]);
		if (pr->printed && msg->events[i].type != MKM_EV_LOST)
			(*pr->printed)++;
	}
	fflush(stdout);
	return ferror(stdout) ? -EIO : 0;
}

static const struct mon_sink_ops printer_ops = {
	.name = "print",
	.consume = printer_consume,
	.destroy = free,
};

int event_printer(struct mon_sink **skp, uint64_t *printed)
{
	struct printer *pr = calloc(1, sizeof(*pr));
	int ret;

	if (!pr)
		return -ENOMEM;
	pr->printed = printed;
	ret = mon_sink_new(skp, &printer_ops, pr);
	if (ret)
		free(pr);
	return ret;
}

void print_calibration(const struct mon_calibration *cal)
{
	char when[64], why[256];
	time_t t = (time_t)(cal->hdr.taken_real_ns / 1000000000ull);
	struct tm tm;
	uint32_t i, k;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime_r(&t, &tm));
	printf("Calibration: %s, kernel %s, %s; %u trials of %u rounds per figure\n",
	       when, cal->hdr.kernel,
	       cal->hdr.cpu_model[0] ? cal->hdr.cpu_model : "CPU model unknown",
	       cal->hdr.trials, cal->hdr.rounds);
	printf("%4s %-9s %12s %12s %8s %22s  %s\n", "CPU", "COST", "MEAN ns",
	       "STDDEV ns", "TRIALS", "99% CONFIDENCE (ns)", "VERDICT");
	for (i = 0; i < cal->hdr.nr_cpus; i++)
		for (k = 0; k < MON_COST_NR; k++) {
			const struct trace_cost *c = &cal->cpu[i].cost[k];
			double m = (double)c->mean_ps / 1000,
			       ci = (double)c->ci99_ps / 1000;
			unsigned int v = mon_cost_verdict(c);
			char words[96];

			if (v)
				snprintf(words, sizeof(words), "NOT A COST: ");
			else
				words[0] = '\0';
			if (v)
				mon_cost_verdict_str(v, words + strlen(words),
						     sizeof(words) -
							     strlen(words));
			if (c->flags & MON_COST_SET_ASIDE)
				snprintf(words + strlen(words),
					 sizeof(words) - strlen(words),
					 "%sdisturbed trials set aside",
					 words[0] ? "; " : "");
			if (!(c->flags & MON_COST_MEASURED)) {
				printf("%4u %-9s %12.1f %12s %8s %22s  %s\n",
				       cal->cpu[i].cpu, mon_cost_name(k), m, "",
				       "", "(estimated)", words);
				continue;
			}
			printf("%4u %-9s %12.1f %12.1f %8u %10.1f .. %-9.1f  %s\n",
			       cal->cpu[i].cpu, mon_cost_name(k), m,
			       (double)c->stddev_ps / 1000, c->samples, m - ci,
			       m + ci, words);
		}
	printf("(per record; switch: %s; constant: per context switch of unmonitored threads)\n",
	       cal->hdr.nr_cpus && cal->cpu[0].cost[MON_COST_SWITCH].flags &
					   MON_COST_PER_SWITCH ?
		       "per switch, its records counted once" :
		       "per record");
	if (mon_calibration_judge(cal, why, sizeof(why)) == -EDOM)
		printf("MEANINGLESS: %s; compensation refuses it (mkm calibrate on a quiet machine, or --calibration FILE)\n",
		       why);
}

/* Dies (one line: which figure, why, what to do) unless @cal is a cost
 * or @force; warns when forced. */
static void judge(const char *file, const struct mon_calibration *cal,
		  bool force)
{
	char why[256];

	if (!mon_calibration_judge(cal, why, sizeof(why)))
		return;
	if (force) {
		warnx_("%s: calibration is not a cost (%s): compensating with it anyway (--force-calibration)",
		       file, why);
		return;
	}
	die("%s: calibration is not a cost (%s): run mkm calibrate -o cal.mkm on a quiet machine and pass --calibration cal.mkm (or --force-calibration)",
	    file, why);
}

void calibration_for(const char *path, const char *cal_file, bool force,
		     struct mon_calibration *cal)
{
	struct mon_pipeline *p = open_trace(path);
	struct trace_info info = *mon_source_info(mon_pipeline_source(p));
	struct mon_calibration own;
	const char *why;
	int ret;

	mon_pipeline_destroy(p);
	if (info.trace_flags & TRACE_F_COMPENSATED)
		die("%s: compensated already: compensate the raw trace", path);
	ret = mon_calibration_load(&own, path);
	if (ret && ret != -ENOENT)
		die("%s: %s", path, monitor_strerror(ret));
	if (!cal_file) {
		if (ret)
			die("%s: the trace carries no calibration (recorded with --no-calibrate?): give one with --calibration FILE (mkm calibrate -o FILE writes one)",
			    path);
		judge(path, &own, force);
		*cal = own;
		return;
	}
	ret = mon_calibration_load(cal, cal_file);
	if (ret == -ENOENT)
		die("%s: no calibration in this file (mkm calibrate -o FILE writes one)",
		    cal_file);
	if (ret)
		die("%s: %s", cal_file, monitor_strerror(ret));
	judge(cal_file, cal, force);
	why = mon_calibration_check(cal, &info,
				    own.cpu ? own.hdr.cpu_model : NULL);
	if (why)
		warnx_("%s: calibration %s than %s (kernel %s, %s): its costs may not apply",
		       cal_file, why, path, info.kernel,
		       own.cpu ? own.hdr.cpu_model : "CPU model not recorded");
	mon_calibration_free(&own);
}

void print_acct_cell(const struct acct_cell *c, int width)
{
	char buf[32], cell[48];

	snprintf(cell, sizeof(cell), "%s (%llu)",
		 mon_fmt_ns(buf, sizeof(buf), c->run_ns),
		 (unsigned long long)c->dispatches);
	printf(" %*s", width, cell);
}
