// SPDX-License-Identifier: GPL-2.0
/* calibration.c - a trace's calibration: its table as mkm calibrate and
 * mkm report print it, and the one a command compensates with. */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "calibration.h"
#include "messages.h"
#include "trace.h"

const char *cost_kinds_str(unsigned int mask, char *buf, size_t size)
{
	size_t n = 0;
	unsigned int k;

	buf[0] = '\0';
	for (k = 0; k < MON_COST_NR; k++)
		if (mask & 1u << k && n < size)
			n += (size_t)snprintf(buf + n, size - n, "%s%s",
					      n ? ", " : "", mon_cost_name(k));
	return buf;
}

void print_calibration(const struct mon_calibration *cal)
{
	char when[64], why[256];
	time_t t = (time_t)(cal->hdr.taken_real_ns / 1000000000ull);
	struct tm tm;
	unsigned int below = mon_calibration_below_resolution(cal);
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
			if (mon_cost_below_resolution(c, cal->clock_res_ps))
				snprintf(words + strlen(words),
					 sizeof(words) - strlen(words),
					 "below the clock's step");
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
	if (below)
		printf("Below the clock's step (%.1f ns): %s; an average over many events, finer than any one timestamp\n",
		       (double)cal->clock_res_ps / 1000,
		       cost_kinds_str(below, why, sizeof(why)));
	if (mon_calibration_judge(cal, why, sizeof(why)) == -EDOM)
		printf("MEANINGLESS: %s; compensation refuses it (mkm calibrate on a quiet machine, or --calibration FILE)\n",
		       why);
}

/* Dies (one line: which figure, why, what to do) unless @cal is a cost
 * or @force; warns when forced, and when a cost is finer than the clock
 * it was measured with. */
static void judge(const char *file, const struct mon_calibration *cal,
		  bool force)
{
	unsigned int below = mon_calibration_below_resolution(cal);
	char why[256];

	if (below)
		warnx_("%s: the %s cost%s below the clock's step (%.1f ns): compensation is right in totals, finer than the clock for any one interval",
		       file, cost_kinds_str(below, why, sizeof(why)),
		       below & (below - 1) ? "s are" : " is",
		       (double)cal->clock_res_ps / 1000);
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
