// SPDX-License-Identifier: GPL-2.0
/*
 * idle.c - mkm idle: each CPU's idle intervals in a system-wide trace and
 * what ended them (report_noise.c prints them); also reached as mkm
 * report --idle.
 */
#include <getopt.h>
#include <stdio.h>

#include "builtin.h"
#include "libmonitor.h"
#include "messages.h"
#include "report_noise.h"
#include "trace.h"

const char idle_usage[] = "usage: mkm idle [--json] FILE";

int cmd_idle(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct mon_meta meta;
	bool json = false;
	struct tl *tl;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (opt == 'j') {
			json = true;
		} else if (opt == 'h') {
			puts(idle_usage);
			return 0;
		} else {
			die_usage("%s", idle_usage);
		}
	}
	if (optind != argc - 1)
		die_usage("idle: give one trace file");
	tl = load_trace(argv[optind], &meta, NULL, 0);
	ret = report_idle(tl, &meta, json);
	tl_destroy(tl);
	return ret;
}
