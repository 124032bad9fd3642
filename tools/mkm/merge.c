// SPDX-License-Identifier: GPL-2.0
/*
 * merge.c - mkm merge: the node traces of one job step (a directory of
 * them, as srun --mkm writes DIR/%j/%N.mkm, or files) as one trace on the
 * reference node's clock, with a node dimension (mon_merge(),
 * docs/cluster.md). Each node's alignment is printed with its bound;
 * what could not be merged is said, one line each, and the rest merged.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin.h"
#include "libmonitor.h"
#include "messages.h"

#define USAGE "usage: mkm merge [-o OUT] [--job ID[.STEP]] DIR | FILE..."
const char merge_usage[] = USAGE;

/* Exit status when the merge was written without every node. */
#define EXIT_PARTIAL 3
/* Exit status when the merged clock contradicts the exchanges. */
#define EXIT_CAUSALITY 4

struct list {
	char **v;
	size_t n, cap;
};

static void add(struct list *l, char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v)
			die("out of memory");
	}
	l->v[l->n++] = s;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.mkm file in @dir, sorted, but @out. */
static void scan_dir(const char *dir, const char *out, struct list *l)
{
	size_t before = l->n;
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		die("%s: %s", dir, strerror(errno));
	while ((d = readdir(dp))) {
		size_t len = strlen(d->d_name);
		char *p;

		if (len < 5 || strcmp(d->d_name + len - 4, ".mkm"))
			continue;
		if (asprintf(&p, "%s/%s", dir, d->d_name) < 0)
			die("out of memory");
		if (out && !strcmp(p, out)) {
			free(p);
			continue;
		}
		add(l, p);
	}
	closedir(dp);
	if (l->n == before)
		die("%s: no .mkm trace in it (srun --mkm writes one per node "
		    "under --mkm-output)",
		    dir);
	qsort(l->v + before, l->n - before, sizeof(*l->v), by_name);
}

static void parse_job(const char *s, struct mon_merge_opts *o)
{
	char *end;
	unsigned long job = strtoul(s, &end, 10), step = 0;

	if (end != s && *end == '.')
		step = strtoul(end + 1, &end, 10);
	if (end == s || *end || job > UINT32_MAX || step > UINT32_MAX)
		die_usage("--job %s: give a job id, or ID.STEP\n" USAGE, s);
	o->job_given = true;
	o->job_id = (uint32_t)job;
	o->step_id = (uint32_t)step;
}

/* "+5.300000123 s" */
static const char *fmt_offset(char *buf, size_t len, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)-ns : (uint64_t)ns;

	snprintf(buf, len, "%c%" PRIu64 ".%09" PRIu64 " s", ns < 0 ? '-' : '+',
		 a / 1000000000u, a % 1000000000u);
	return buf;
}

static void print_node(const struct mon_merge_input *in)
{
	const struct mon_align_summary *s = &in->align;
	char off[40], err[32], step[32];

	if (in->reference) {
		printf("  %-12s the reference clock; %" PRIu64 " records\n",
		       in->node, in->events);
		return;
	}
	printf("  %-12s offset %s, drift %+.3f ppm%s, bound +-%s "
	       "(%zu exchanges); %" PRIu64 " records\n",
	       in->node, fmt_offset(off, sizeof(off), s->offset_ns),
	       (double)s->drift_ppb / 1000.0, s->no_drift ? " (unknown)" : "",
	       mon_fmt_ns(err, sizeof(err), s->max_error_ns), s->samples,
	       in->events);
	if (s->steps)
		printf("  %-12s its clock stepped %zu time%s, the largest by "
		       "%c%s; %" PRIu64 " records placed by their time "
		       "alone\n",
		       "", s->steps, s->steps == 1 ? "" : "s",
		       s->largest_step_ns < 0 ? '-' : '+',
		       mon_fmt_ns(step, sizeof(step),
				  (uint64_t)llabs(s->largest_step_ns)),
		       s->ambiguous);
}

/* The causality check: every exchange message received after it was
 * sent on the merged clock, and the exchanges' bounds. */
static void print_causality(const struct mon_merge_result *res)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	int64_t margin = INT64_MAX;
	char a[32], b[32], m[32];
	size_t i;

	for (i = 0; i < res->nr_inputs; i++) {
		const struct mon_align_check *c = &res->inputs[i].check;

		if (!res->inputs[i].merged || !c->messages)
			continue;
		if (c->min_error_ns < lo)
			lo = c->min_error_ns;
		if (c->max_error_ns > hi)
			hi = c->max_error_ns;
		if (c->min_margin_ns < margin)
			margin = c->min_margin_ns;
	}
	if (!res->messages)
		return;
	printf("  causality: %zu of %zu exchange messages received before "
	       "they were sent on the merged clock (smallest margin %s%s; "
	       "bounds +-%s to +-%s)\n",
	       res->violations, res->messages, margin < 0 ? "-" : "",
	       mon_fmt_ns(m, sizeof(m), (uint64_t)llabs(margin)),
	       mon_fmt_ns(a, sizeof(a), lo), mon_fmt_ns(b, sizeof(b), hi));
	for (i = 0; i < res->nr_inputs; i++) {
		const struct mon_merge_input *in = &res->inputs[i];

		if (in->merged && in->check.violations)
			warnx_("node %s: %zu of its %zu exchange messages "
			       "received before they were sent on the merged "
			       "clock (by up to %s): its alignment contradicts "
			       "its own clock exchanges; do not trust its "
			       "times",
			       in->node, in->check.violations,
			       in->check.messages,
			       mon_fmt_ns(m, sizeof(m),
					  (uint64_t)-in->check.min_margin_ns));
	}
}

int cmd_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "job", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct mon_merge_opts opts = { 0 };
	struct mon_merge_result res;
	struct list paths = { 0 };
	char *out = NULL;
	struct stat st;
	size_t i;
	int c, ret;

	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'j':
			parse_job(optarg, &opts);
			break;
		case 'h':
			puts(USAGE);
			return 0;
		default:
			die_usage(USAGE);
		}
	}
	if (optind == argc)
		die_usage("give the node traces: a directory or files\n" USAGE);
	if (optind + 1 == argc && !stat(argv[optind], &st) &&
	    S_ISDIR(st.st_mode)) {
		size_t len = strlen(argv[optind]);

		while (len > 1 && argv[optind][len - 1] == '/')
			argv[optind][--len] = 0;
		if (!out && asprintf(&out, "%s.mkm", argv[optind]) < 0)
			die("out of memory");
		scan_dir(argv[optind], out, &paths);
	} else {
		if (!out)
			die_usage(
				"give the merged trace's name: -o OUT\n" USAGE);
		for (i = (size_t)optind; i < (size_t)argc; i++)
			add(&paths, argv[i]);
	}

	ret = mon_merge((const char *const *)paths.v, paths.n, out, &opts,
			&res);
	fflush(stdout);
	if (ret < 0 && ret != -ENOENT) {
		mon_merge_free(&res);
		die("%s: %s", out, monitor_strerror(ret));
	}
	for (i = 0; i < res.nr_inputs; i++)
		if (res.inputs[i].err)
			warnx_("%s", res.inputs[i].msg);
	for (i = 0; i < res.nr_missing &&
		    i < sizeof(res.missing) / sizeof(res.missing[0]);
	     i++)
		warnx_("node %" PRIu32 " of the %" PRIu32 " of job %" PRIu32
		       ".%" PRIu32 ": no trace among the inputs (did its "
		       "recorder fail? see the job's stderr)",
		       res.missing[i], res.nr_nodes, res.job_id, res.step_id);
	if (ret == -ENOENT) {
		mon_merge_free(&res);
		die("%s: no input could be merged; nothing written", out);
	}
	printf("mkm merge: job %" PRIu32 ".%" PRIu32 ": %zu node%s of %" PRIu32
	       " merged into %s on %s's clock, %" PRIu64 " records\n",
	       res.job_id, res.step_id, res.nr_merged,
	       res.nr_merged == 1 ? "" : "s",
	       res.nr_nodes > res.nr_merged ? res.nr_nodes :
					      (uint32_t)res.nr_merged,
	       out, res.reference[0] ? res.reference : "the reference",
	       res.events);
	for (i = 0; i < res.nr_inputs; i++)
		if (res.inputs[i].merged)
			print_node(&res.inputs[i]);
	print_causality(&res);
	c = res.violations ? EXIT_CAUSALITY : ret ? EXIT_PARTIAL : 0;
	mon_merge_free(&res);
	return c;
}
