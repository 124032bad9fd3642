/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * calibrate/verdict.h - measuring one figure until its trials say it is a
 * cost, or until the trials allowed are spent (mon_calibrate()'s "try
 * longer before giving up"), apart from the module so that it is tested
 * on synthetic trials.
 */
#ifndef MON_CALIBRATE_VERDICT_H
#define MON_CALIBRATE_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "mon_calibrate.h"

/* Measures @trials more trials of one figure into @out (mon_trials). */
typedef int (*cal_measure_fn)(void *arg, unsigned long trials,
			      struct mon_trials *out);

/*
 * cal_figure - the figure of the trials @measure gives: @trials first,
 * then as many again (doubling the total) while the figure is not a cost
 * (mon_cost_judge()), the total stays within @max_trials and
 * CLOCK_MONOTONIC has not reached @deadline_ns (0: none). Every trial
 * counts but those the others show disturbed (mon_trials_undisturbed()).
 * @out gets the mean, std dev, interval and number of the trials kept,
 * and the verdict (MON_COST_MEASURED | MON_COST_JUDGED | the verdict bits,
 * and MON_COST_SET_ASIDE when a trial was).
 *
 * Return: 0, -ENOMEM or what @measure returned.
 */
int cal_figure(cal_measure_fn measure, void *arg, unsigned long trials,
	       unsigned long max_trials, uint64_t deadline_ns,
	       struct trace_cost *out);

#endif /* MON_CALIBRATE_VERDICT_H */
