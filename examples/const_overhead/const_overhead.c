// SPDX-License-Identifier: GPL-2.0
/*
 * const_overhead.c - the MKM paper's Fig. 13: the constant overhead.
 *
 * Two unmonitored threads ping-pong on one CPU. Trials alternate between a
 * monitor resumed on another thread (mkm's probes registered: every switch
 * pays for looking its threads up and finding nothing) and no monitor at
 * all (no probe registered: the sensors are out of the code, as in the
 * paper's kernel built without them). The constant overhead per context
 * switch is (T_in - T_out) / N_out for each pair of trials.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "keeper.h"
#include "pingpong.h"
#include "stats.h"

int main(int argc, char **argv)
{
	unsigned long rounds = 20000, trials = 20, i;
	double *t_in, *t_out, *n_out, *over;
	struct sample_stats s;
	struct pingpong pp;
	int ret;

	pingpong_options(argc, argv, "const_overhead", &rounds, &trials);
	t_in = calloc(trials, sizeof(double));
	t_out = calloc(trials, sizeof(double));
	n_out = calloc(trials, sizeof(double));
	over = calloc(trials, sizeof(double));
	if (!t_in || !t_out || !n_out || !over)
		return 1;
	ret = pingpong_start(&pp, 0);
	if (ret) {
		fprintf(stderr, "const_overhead: %s\n", monitor_strerror(ret));
		return 1;
	}
	for (i = 0; i < trials; i++) {
		struct keeper *keeper = keeper_start();
		uint64_t sw;

		if (!keeper)
			return 1;
		t_in[i] = pingpong_run(&pp, rounds) / 1e9;
		keeper_stop(keeper);

		sw = pingpong_switches(&pp);
		t_out[i] = pingpong_run(&pp, rounds) / 1e9;
		n_out[i] = pingpong_switches(&pp) - sw;
		over[i] = (t_in[i] - t_out[i]) / n_out[i];
	}
	pingpong_stop(&pp);

	printf("Constant overhead (MKM Fig. 13 / Table 3): %lu trials of %lu round trips each way\n\n",
	       trials, rounds);
	printf("%-22s %17s %17s %s\n", "Statistic", "mean", "std dev",
	       "99% confidence interval");
	stats_compute(t_in, trials, &s);
	stats_print_row("T_sensors-in", &s, 1, "s");
	stats_compute(t_out, trials, &s);
	stats_print_row("T_sensors-out", &s, 1, "s");
	stats_compute(n_out, trials, &s);
	stats_print_row("N_est", &s, 1, "");
	stats_compute(over, trials, &s);
	stats_print_row("T_const-overhead", &s, 1e9, "ns");
	printf("\nper context switch of an unmonitored thread\n");
	return 0;
}
