// SPDX-License-Identifier: GPL-2.0
/*
 * calibrate.c - mkm calibrate: what the monitor costs on this machine,
 * per CPU (MKM's Tables 2 and 3), printed, and written with -o as a trace
 * file carrying just the calibration, for mkm record --calibration and
 * mkm replay --calibration. Exits 1 when a figure is not a cost (the
 * table says which and why; -o still writes it, verdict included).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "builtin.h"
#include "libmonitor.h"
#include "messages.h"
#include "module.h"
#include "calibration.h"

#define USAGE "usage: mkm calibrate [-o FILE] [-r ROUNDS] [-n TRIALS] [--cpu N]"
const char calibrate_usage[] = USAGE;

static void progress(void *arg, unsigned int cpu, enum mon_cost_kind kind)
{
	(void)arg;
	fprintf(stderr, "\rmkm: calibrating CPU %u: %-9s", cpu,
		mon_cost_name(kind));
}

/* A trace of no events: INFO, the calibration, END. */
static void save(const char *path, const struct mon_calibration *cal)
{
	struct trace_info info = { .nr_cpus = 1,
				   .clock_res_ps = cal->clock_res_ps };
	struct trace_writer *w;
	struct utsname u;
	int ret;

	if (!uname(&u)) {
		snprintf(info.hostname, sizeof(info.hostname), "%s",
			 u.nodename);
		snprintf(info.kernel, sizeof(info.kernel), "%s", u.release);
		snprintf(info.machine, sizeof(info.machine), "%s", u.machine);
	}
	ret = trace_writer_open(&w, path, &info);
	if (!ret)
		ret = trace_writer_calibration(w, &cal->hdr, cal->cpu,
					       cal->hdr.nr_cpus);
	if (!ret)
		ret = trace_writer_close(w);
	else
		trace_writer_close(w);
	if (ret)
		die("%s: %s", path, monitor_strerror(ret));
}

int cmd_calibrate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "trials", required_argument, NULL, 'n' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct mon_calibrate_config cfg = { .progress = isatty(STDERR_FILENO) ?
								progress :
								NULL };
	struct mon_calibration cal;
	const char *out = NULL;
	char why[256];
	unsigned int cpu;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "o:r:n:c:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'r':
			if (atol(optarg) <= 0)
				die_usage("--rounds: '%s' is not a count",
					  optarg);
			cfg.rounds = atol(optarg);
			break;
		case 'n':
			if (atol(optarg) < 2)
				die_usage("--trials: at least 2");
			cfg.trials = atol(optarg);
			break;
		case 'c':
			if (atoi(optarg) < 0)
				die_usage("--cpu: '%s' is not a CPU", optarg);
			cpu = (unsigned int)atoi(optarg);
			cfg.cpus = &cpu;
			cfg.nr_cpus = 1;
			break;
		case 'h':
			puts(USAGE);
			return 0;
		default:
			die_usage(USAGE);
		}
	}
	if (optind != argc)
		die_usage(USAGE);
	ret = mon_calibrate(&cal, &cfg);
	if (cfg.progress)
		fprintf(stderr, "\r%40s\r", "");
	if (ret == -ENOENT)
		die_no_module();
	if (ret)
		die("calibration: %s", monitor_strerror(ret));
	print_calibration(&cal);
	if (out)
		save(out, &cal);
	ret = mon_calibration_judge(&cal, why, sizeof(why));
	if (ret)
		warnx_("calibration is not a cost (%s), even after more trials: compensation will refuse it; calibrate on a quiet machine (under QEMU: -icount)",
		       why);
	mon_calibration_free(&cal);
	return ret ? 1 : 0;
}
