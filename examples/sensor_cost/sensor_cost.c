// SPDX-License-Identifier: GPL-2.0
/*
 * sensor_cost.c - the MKM paper's Fig. 12: the sensor firing time.
 *
 * Two threads ping-pong on one CPU. Trials alternate between the threads
 * monitored (their sensors fire and write events) and their monitor
 * suspended (the sensors only check and return: another monitor keeps the
 * probes registered, as the paper's sensors stayed compiled in). The
 * firing time per context switch is (T_on - T_off) / N_on for each pair of
 * trials, N_on being the kernel's own count of the switches. libmonitor's
 * calibration (mon_calibrate_kind()) runs the trials; this prints them as
 * the paper's Table 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common.h"
#include "libmonitor.h"

int main(int argc, char **argv)
{
	unsigned long rounds = 20000, trials = 20;
	double fire[1024], events = 0, switches = 0;
	struct mon_trials t;
	size_t i;
	int opt, ret;

	while ((opt = getopt(argc, argv, "r:n:")) != -1) {
		if (opt == 'r' && atol(optarg) > 0) {
			rounds = atol(optarg);
		} else if (opt == 'n' && atol(optarg) > 1 &&
			   atol(optarg) <= 1024) {
			trials = atol(optarg);
		} else {
			fprintf(stderr, "usage: sensor_cost [-r ROUNDS] "
					"[-n TRIALS (2-1024)]\n");
			return 2;
		}
	}
	ret = mon_calibrate_kind(MON_COST_SWITCH, 0, rounds, trials, &t);
	if (ret) {
		fprintf(stderr, "sensor_cost: %s\n", monitor_strerror(ret));
		return 1;
	}
	for (i = 0; i < t.n; i++) {
		fire[i] = (t.t_on[i] - t.t_off[i]) / t.n_on[i];
		events += t.events[i];
		switches += t.n_on[i];
	}
	printf("Sensor firing time (MKM Fig. 12 / Table 2): %lu trials of %lu round trips each way\n\n",
	       trials, rounds);
	printf("%-22s %17s %17s %s\n", "Statistic", "mean", "std dev",
	       "99% confidence interval");
	stats_row("T_sensors-on", t.t_on, t.n, 1, "s");
	stats_row("N_sensors-on", t.n_on, t.n, 1, "");
	stats_row("T_sensors-off", t.t_off, t.n, 1, "s");
	stats_row("N_sensors-off", t.n_off, t.n, 1, "");
	stats_row("T_sensor-fire", fire, t.n, 1e9, "ns");
	printf("\nper context switch, with %.2f switches recorded per switch\n",
	       switches ? events / switches : 0.0);
	mon_trials_free(&t);
	return 0;
}
