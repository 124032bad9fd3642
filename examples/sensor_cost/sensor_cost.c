// SPDX-License-Identifier: GPL-2.0
/*
 * sensor_cost.c - the MKM paper's Fig. 12: the sensor firing time.
 *
 * Two threads ping-pong on one CPU. Trials alternate between the threads
 * monitored (their sensors fire and write events) and their monitor
 * suspended (the sensors only check and return: another monitor keeps the
 * probes registered, as the paper's sensors stayed compiled in). The
 * firing time per context switch is (T_on - T_off) / N_on for each pair of
 * trials, N_on being the kernel's own count of the switches.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "keeper.h"
#include "pingpong.h"
#include "stats.h"

static int count_consume(void *priv, const struct mon_msg *msg)
{
	if (msg->type == MON_MSG_EVENTS)
		*(uint64_t *)priv += msg->nr_events;
	return 0;
}

static const struct mon_sink_ops count_ops = {
	.name = "count",
	.consume = count_consume,
};

/* Drains the (suspended) monitor between trials: no drain thread runs
 * while the ping-pong is timed. */
static void drain(struct mon_pipeline *p)
{
	mon_source_live_drain(mon_pipeline_source(p));
	while (mon_pipeline_step(p) > 0)
		;
}

int main(int argc, char **argv)
{
	unsigned long rounds = 20000, trials = 20, i;
	double *t_on, *n_on, *t_off, *n_off, *fire;
	struct sample_stats s;
	struct pingpong pp;
	struct keeper *keeper;
	const struct mon_live_config live = { .no_thread = true,
					      .nonblock = true };
	struct mon_pipeline *p = NULL;
	struct mon_source *src;
	struct mon_sink *count;
	struct monitor *mon;
	size_t size = 16 << 20;
	uint64_t events = 0, on_switches = 0;
	int ret;

	pingpong_options(argc, argv, "sensor_cost", &rounds, &trials);
	t_on = calloc(trials, sizeof(double));
	n_on = calloc(trials, sizeof(double));
	t_off = calloc(trials, sizeof(double));
	n_off = calloc(trials, sizeof(double));
	fire = calloc(trials, sizeof(double));
	keeper = keeper_start();
	if (!t_on || !n_on || !t_off || !n_off || !fire || !keeper)
		return 1;
	ret = monitor_create(&mon, &size);
	if (!ret)
		ret = pingpong_start(&pp, 0);
	if (!ret)
		ret = thread_monitor(mon, 1, pp.main_tid);
	if (!ret)
		ret = thread_monitor(mon, 2, pp.peer_tid);
	if (!ret)
		ret = mon_source_live(&src, mon, &live);
	if (!ret)
		ret = mon_pipeline_create(&p, src);
	if (!ret)
		ret = mon_sink_new(&count, &count_ops, &events);
	if (!ret)
		ret = mon_pipeline_add_sink(p, count);
	if (ret) {
		fprintf(stderr, "sensor_cost: %s\n", monitor_strerror(ret));
		return 1;
	}

	for (i = 0; i < trials; i++) {
		uint64_t sw = pingpong_switches(&pp);

		monitor_resume(mon);
		t_on[i] = pingpong_run(&pp, rounds) / 1e9;
		monitor_suspend(mon);
		n_on[i] = pingpong_switches(&pp) - sw;
		on_switches += n_on[i];
		drain(p);

		sw = pingpong_switches(&pp);
		t_off[i] = pingpong_run(&pp, rounds) / 1e9;
		n_off[i] = pingpong_switches(&pp) - sw;
		fire[i] = (t_on[i] - t_off[i]) / n_on[i];
	}
	pingpong_stop(&pp);
	mon_pipeline_destroy(p);
	monitor_terminate(mon);
	keeper_stop(keeper);

	printf("Sensor firing time (MKM Fig. 12 / Table 2): %lu trials of %lu round trips each way\n\n",
	       trials, rounds);
	printf("%-22s %17s %17s %s\n", "Statistic", "mean", "std dev",
	       "99% confidence interval");
	stats_compute(t_on, trials, &s);
	stats_print_row("T_sensors-on", &s, 1, "s");
	stats_compute(n_on, trials, &s);
	stats_print_row("N_sensors-on", &s, 1, "");
	stats_compute(t_off, trials, &s);
	stats_print_row("T_sensors-off", &s, 1, "s");
	stats_compute(n_off, trials, &s);
	stats_print_row("N_sensors-off", &s, 1, "");
	stats_compute(fire, trials, &s);
	stats_print_row("T_sensor-fire", &s, 1e9, "ns");
	printf("\nper context switch, with %.2f events recorded per switch\n",
	       on_switches ? (double)events / on_switches : 0.0);
	return 0;
}
