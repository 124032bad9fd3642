// SPDX-License-Identifier: GPL-2.0
/*
 * export.c - mkm export: a trace in another tool's format (export/): a file
 * source, the order stage (the formats want time order), the filter stage
 * (--threads, --from, --to) and the format's sink, which writes OUT.tmp
 * and renames it when the trace has been read to its end.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "export.h"
#include "libmonitor.h"
#include "messages.h"
#include "parse.h"
#include "trace.h"

const char export_usage[] =
	"usage: mkm export -f FORMAT FILE [-o OUT] [--threads TID,...]\n"
	"                  [--from T] [--to T]\n"
	"  T: a time from the recording's start (as mkm view, dump and timeline\n"
	"     count), with a unit: 1.5s, 20ms, 300us, 4000ns";

static void list_formats(FILE *f)
{
	const struct export_format *fmt;

	fputs("formats:\n", f);
	for (fmt = export_formats; fmt->name; fmt++)
		fprintf(f, "  %-10s %s\n", fmt->name, fmt->what);
}

/* OUT from FILE: its name without .mkm, and the format's extension. */
static char *default_out(const char *in, const struct export_format *fmt)
{
	size_t n = strlen(in);
	char *out;

	if (n > 4 && !strcmp(in + n - 4, ".mkm"))
		n -= 4;
	out = malloc(n + strlen(fmt->ext) + 1);
	if (!out)
		die("out of memory");
	memcpy(out, in, n);
	strcpy(out + n, fmt->ext);
	return out;
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "threads", required_argument, NULL, 't' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static uint32_t tids[MAX_TIDS];
	const struct export_format *fmt;
	const char *format = NULL, *in;
	int64_t from = -1, to = -1;
	struct mon_filter filter = { .tids = tids };
	struct mon_pipeline *p;
	struct mon_sink *sink;
	char *out = NULL, why[512];
	struct export_result res = { 0 };
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "f:o:t:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			format = optarg;
			break;
		case 'o':
			free(out);
			out = strdup(optarg);
			if (!out)
				die("out of memory");
			break;
		case 't':
			filter.nr_tids = parse_tid_list("export --threads",
							optarg, tids, MAX_TIDS);
			break;
		case 'F':
		case 'T':
			*(opt == 'F' ? &from : &to) = parse_time_arg(
				opt == 'F' ? "export --from" : "export --to",
				optarg);
			break;
		case 'h':
			puts(export_usage);
			list_formats(stdout);
			return 0;
		default:
			die_usage("export: bad option");
		}
	}
	if (!format || optind != argc - 1) {
		fprintf(stderr, "%s\n", export_usage);
		list_formats(stderr);
		return 2;
	}
	fmt = export_format_find(format);
	if (!fmt) {
		fprintf(stderr, "mkm: export: unknown format '%s'; ", format);
		list_formats(stderr);
		return 2;
	}
	in = argv[optind];
	if (!out)
		out = default_out(in, fmt);

	p = open_trace(in);
	/* A cut that keeps nothing is a mistake to say, not an empty file. */
	res.need_records = add_order_and_cut(p, in, &filter, from, to);
	ret = fmt->sink(&sink, out, &res);
	if (ret)
		die("%s: cannot write: %s", out, strerror(-ret));
	ret = mon_pipeline_add_sink(p, sink);
	if (ret) {
		/* the pipeline owns the sink: destroying it removes OUT.tmp */
		mon_pipeline_destroy(p);
		die("%s: %s", out, monitor_strerror(ret));
	}

	/* A sink that fails must remove its temporary, which it does when
	 * destroyed: so the failure is handled here, before run_trace() (which
	 * would exit at once), and run_trace() only says what a damaged input
	 * kept. The runner returns the same result when asked again; it keeps
	 * its first error only, so the sink says whether it wrote. */
	ret = mon_pipeline_run(p);
	if (res.err == -ENOMSG) {
		if (ret == -EBADMSG || ret == -ENODATA)
			run_trace(p, in, NULL, 0); /* says where it stopped */
		mon_pipeline_destroy(p);
		die("%s: " EMPTY_CUT "; nothing written", in);
	}
	if (ret && ret != -EBADMSG && ret != -ENODATA) {
		snprintf(why, sizeof(why), "%s", mon_pipeline_error(p, NULL));
		mon_pipeline_destroy(p);
		die("%s -> %s: %s; nothing written", in, out, why);
	}
	run_trace(p, in, NULL, 0);
	if (res.err) {
		mon_pipeline_destroy(p);
		die("%s -> %s: sink %s: %s; nothing written", in, out,
		    fmt->name, strerror(-res.err));
	}
	fprintf(stderr, "mkm: wrote %s (%s) from %llu records\n", out,
		fmt->name, (unsigned long long)mon_pipeline_meta(p)->events);
	mon_pipeline_destroy(p);
	free(out);
	return 0;
}
