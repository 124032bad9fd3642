// SPDX-License-Identifier: GPL-2.0
/*
 * const_overhead.c - the MKM paper's Fig. 13: the constant overhead.
 *
 * Two unmonitored threads ping-pong on one CPU. Trials alternate between a
 * monitor resumed on another thread (mkm's probes registered: every switch
 * pays for looking its threads up and finding nothing) and no monitor at
 * all (no probe registered: the sensors are out of the code, as in the
 * paper's kernel built without them). The constant overhead per context
 * switch is (T_in - T_out) / N_out for each pair of trials. libmonitor's
 * calibration (mon_calibrate_kind()) runs the trials; this prints them as
 * the paper's Table 3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common.h"
#include "libmonitor.h"

int main(int argc, char **argv)
{
	unsigned long rounds = 20000, trials = 20;
	struct mon_trials t;
	int opt, ret;

	while ((opt = getopt(argc, argv, "r:n:")) != -1) {
		if (opt == 'r' && atol(optarg) > 0) {
			rounds = atol(optarg);
		} else if (opt == 'n' && atol(optarg) > 1) {
			trials = atol(optarg);
		} else {
			fprintf(stderr,
				"usage: const_overhead [-r ROUNDS] [-n TRIALS]\n");
			return 2;
		}
	}
	ret = mon_calibrate_kind(MON_COST_CONSTANT, 0, rounds, trials, &t);
	if (ret) {
		fprintf(stderr, "const_overhead: %s\n", monitor_strerror(ret));
		return 1;
	}
	printf("Constant overhead (MKM Fig. 13 / Table 3): %lu trials of %lu round trips each way\n\n",
	       trials, rounds);
	printf("%-22s %17s %17s %s\n", "Statistic", "mean", "std dev",
	       "99% confidence interval");
	stats_row("T_sensors-in", t.t_on, t.n, 1, "s");
	stats_row("T_sensors-out", t.t_off, t.n, 1, "s");
	stats_row("N_est", t.n_off, t.n, 1, "");
	stats_row("T_const-overhead", t.cost_ns, t.n, 1, "ns");
	printf("\nper context switch of an unmonitored thread\n");
	mon_trials_free(&t);
	return 0;
}
