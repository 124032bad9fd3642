// SPDX-License-Identifier: GPL-2.0
/* trace.c - a trace file read through libmonitor's pipeline, as every
 * command that reads one opens, cuts, runs and loads it. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "messages.h"
#include "trace.h"

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

/* file source [-> order -> compensate] -> timeline sink (+ extra) */
static struct tl *load(const char *path, const struct mon_calibration *cal,
		       const struct mon_compensate_opts *opts,
		       struct mon_sink *extra, struct mon_meta *meta,
		       char *damage, size_t len)
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
	if (!ret && extra)
		ret = mon_pipeline_add_sink(p, extra);
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
	return load(path, NULL, NULL, NULL, meta, damage, len);
}

struct tl *load_trace_compensated(const char *path,
				  const struct mon_calibration *cal,
				  const struct mon_compensate_opts *opts,
				  struct mon_meta *meta, char *damage,
				  size_t len)
{
	return load(path, cal, opts, NULL, meta, damage, len);
}

struct tl *load_trace_with(const char *path, const struct mon_calibration *cal,
			   const struct mon_compensate_opts *opts,
			   struct mon_sink *extra, struct mon_meta *meta)
{
	return load(path, cal, opts, extra, meta, NULL, 0);
}
