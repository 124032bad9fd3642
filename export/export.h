/* SPDX-License-Identifier: GPL-2.0 */
/*
 * export.h - mkm's exporters: each writes a trace in another tool's format
 * as a sink of libmonitor's pipeline (mon_pipeline.h), so a trace of any
 * size exports in bounded memory. Feed them records in time order (the
 * order stage) starting with the INFO message.
 *
 * Every constructor creates its output under a temporary name (OUT.tmp)
 * and renames it to @path when the stream ends (the sink's finish()); a
 * sink destroyed before that removes what it wrote, so a failed export
 * leaves nothing half-written behind.
 */
#ifndef MKM_EXPORT_H
#define MKM_EXPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "libmonitor.h"
#include "mon_pipeline.h"

/*
 * What an exporter's sink says of its output. The runner keeps only the
 * first error of a run, so a sink that fails at the end of a damaged trace
 * is known from here only.
 */
struct export_result {
	/* Set by the caller before the run: with no record (LOST ones not
	 * counted) at the end of the stream, write nothing and end with
	 * -ENOMSG (a --from/--to window or --threads that selects nothing). */
	bool need_records;
	/* -ECANCELED until the sink is finished, then 0 when the output is
	 * in place, else the error that stopped it. */
	int err;
	uint64_t records; /* records the sink was given, LOST ones not
			     counted */
};

/*
 * export_perfetto - a Perfetto protobuf trace (one file): per-CPU ftrace
 * event bundles, thread names in process trees, marks as instant track
 * events.
 * export_ctf - a CTF 1.8 trace in LTTng-modules' kernel layout (a folder:
 * metadata and one stream file per CPU), as Trace Compass and babeltrace2
 * read it.
 * @skp: out: the sink
 * @path: the output file or folder
 * @result: (may be NULL) what became of the output (struct
 *          export_result)
 *
 * Return: 0, -EINVAL, -ENOMEM, or the errno of creating @path's
 * temporary (-EACCES, -ENOENT, ...).
 */
int export_perfetto(struct mon_sink **skp, const char *path,
		    struct export_result *result);
int export_ctf(struct mon_sink **skp, const char *path,
	       struct export_result *result);
/*
 * export_paraver - a Paraver trace: @path's .prv (or @path.prv), .pcf and
 * .row; the microstates from the timeline builder, which keeps every
 * interval: this one's memory grows with the trace.
 */
int export_paraver(struct mon_sink **skp, const char *path,
		   struct export_result *result);
/*
 * export_otf2 - an OTF2 archive (a folder; open its traces.otf2) through
 * libotf2: a location per thread, microstates as regions, marks and lost
 * spans as markers; memory as Paraver's. Built when pkg-config finds otf2.
 */
int export_otf2(struct mon_sink **skp, const char *path,
		struct export_result *result);

/* A format mkm export knows. */
struct export_format {
	const char *name; /* as -f takes it: "perfetto" */
	const char *what; /* one line for the list of formats */
	const char *ext; /* OUT's default: FILE without .mkm, then this */
	int (*sink)(struct mon_sink **skp, const char *path,
		    struct export_result *result);
};

/* export_formats - the formats, ending with an entry whose name is NULL */
extern const struct export_format export_formats[];

/* export_format_find - the format called @name, or NULL */
const struct export_format *export_format_find(const char *name);

#endif /* MKM_EXPORT_H */
