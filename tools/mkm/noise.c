// SPDX-License-Identifier: GPL-2.0
/*
 * noise.c - mkm noise: who took time from the chosen threads, osnoise's
 * table of them, and with --barriers what delayed each barrier of ranks
 * (report_noise.c and report_barrier.c print them); also reached as mkm
 * report --noise.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "builtin.h"
#include "libmonitor.h"
#include "messages.h"
#include "parse.h"
#include "report_noise.h"
#include "trace.h"

const char noise_usage[] =
	"usage: mkm noise [--barriers] [--tid TID[,TID...] | --comm NAME] [--top N]\n"
	"                 [--period TIME] [--threshold TIME]\n"
	"                 [--hist [--bucket-size TIME] [--entries N]] [--json] FILE";

int cmd_noise(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "barriers", no_argument, NULL, 'b' },
		{ "tid", required_argument, NULL, 't' },
		{ "comm", required_argument, NULL, 'm' },
		{ "top", required_argument, NULL, 'T' },
		{ "period", required_argument, NULL, 'P' },
		{ "threshold", required_argument, NULL, 'H' },
		{ "hist", no_argument, NULL, 'g' },
		{ "bucket-size", required_argument, NULL, 'B' },
		{ "entries", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct noise_opts o = { .top = 12 };
	bool osnoise_opt = false, hist_opt = false;
	struct mon_nodes nodes = { 0 };
	struct mon_meta meta;
	struct tl *tl;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		char *end;

		switch (opt) {
		case 'j':
			o.json = true;
			break;
		case 'b':
			o.barriers = true;
			break;
		case 't':
			o.tids = optarg;
			break;
		case 'm':
			o.comm = optarg;
			break;
		case 'T':
			o.top = (unsigned int)strtoul(optarg, &end, 10);
			if (*end || !o.top)
				die_usage(
					"noise --top: '%s' is not a count above 0",
					optarg);
			break;
		case 'P':
			o.period_ns = (uint64_t)parse_time_arg("noise --period",
							       optarg);
			if (!o.period_ns)
				die_usage(
					"noise --period: '%s' is no period: give a time above 0",
					optarg);
			osnoise_opt = true;
			break;
		case 'H':
			o.threshold_ns = (uint64_t)parse_time_arg(
				"noise --threshold", optarg);
			osnoise_opt = true;
			break;
		case 'g':
			o.hist = true;
			osnoise_opt = true;
			break;
		case 'B':
			o.bucket_ns = (uint64_t)parse_time_arg(
				"noise --bucket-size", optarg);
			if (!o.bucket_ns)
				die_usage(
					"noise --bucket-size: '%s' is no width: give a time above 0",
					optarg);
			hist_opt = true;
			break;
		case 'E':
			o.entries = (unsigned int)strtoul(optarg, &end, 10);
			if (*end || !o.entries || o.entries > 1000000)
				die_usage(
					"noise --entries: '%s' is not a count of buckets from 1 to 1000000",
					optarg);
			hist_opt = true;
			break;
		case 'h':
			puts(noise_usage);
			return 0;
		default:
			die_usage("%s", noise_usage);
		}
	}
	if (optind != argc - 1)
		die_usage("noise: give one trace file");
	if (o.tids && o.comm)
		die_usage("noise: --tid or --comm, not both");
	if (hist_opt && !o.hist)
		die_usage("noise: --bucket-size and --entries go with --hist");
	if ((osnoise_opt || hist_opt) && o.barriers)
		die_usage(
			"noise: --period, --threshold and --hist shape osnoise's table, which --barriers does not print");
	tl = load_trace(argv[optind], &meta, NULL, 0);
	if (mon_nodes_load(&nodes, argv[optind]))
		mon_nodes_free(&nodes); /* not a merged trace */
	o.nodes = &nodes;
	ret = report_noise(tl, &meta, &o);
	mon_nodes_free(&nodes);
	tl_destroy(tl);
	return ret;
}
