// SPDX-License-Identifier: GPL-2.0
/*
 * test_verdict.c - whether a calibration figure is a cost
 * (libmonitor/src/calibrate/verdict.c), judged on synthetic trials: the
 * figures seen on this project's machines (-icount: 245 ns, 1.8 ns std
 * dev; plain TCG: -1914.7 ns; a 3-trial hackbench recording: -389.9 ns),
 * and the retries that try longer before giving up.
 */
#include <errno.h>
#include <stdlib.h>

#include "calibrate/verdict.h"
#include "evstream.h"
#include "mon_calibrate.h"

static unsigned int judge(const double *x, size_t n)
{
	struct mon_sample_stats s;

	mon_sample_stats(x, n, &s);
	return mon_cost_judge(&s);
}

static void test_mon_cost_judge_steady(void **state)
{
	static const double x[] = { 245.1, 243.9, 246.8, 244.2, 247.0,
				    245.5, 242.9, 246.1, 244.7, 245.3 };

	(void)state;
	assert_int_equal(judge(x, 10), 0);
}

static void test_mon_cost_judge_negative(void **state)
{
	static const double x[] = { -1914.7, -2105.2, -1724.3 };

	(void)state;
	assert_int_equal(judge(x, 3), MON_COST_NEGATIVE | MON_COST_SPANS_ZERO);
}

/* A positive mean whose interval reaches zero: not a cost either. */
static void test_mon_cost_judge_spans_zero(void **state)
{
	static const double x[] = { 300, -100, 500,  -50, 250,
				    0,	 400,  -200, 350, 100 };

	(void)state;
	assert_true(judge(x, 10) & MON_COST_SPANS_ZERO);
	assert_false(judge(x, 10) & MON_COST_NEGATIVE);
}

/* Its interval clear of zero (many trials), but a spread of the order of
 * its mean: noisy alone. */
static void test_mon_cost_judge_noisy(void **state)
{
	double x[40];
	size_t i;

	(void)state;
	for (i = 0; i < 40; i++)
		x[i] = i % 2 ? 160 : 40; /* mean 100, std dev 60.8 */
	assert_int_equal(judge(x, 40), MON_COST_NOISY);
	for (i = 0; i < 40; i++)
		x[i] = i % 2 ? 120 : 80; /* std dev 20.3: a cost */
	assert_int_equal(judge(x, 40), 0);
}

static void test_mon_cost_judge_few_trials(void **state)
{
	static const double x[] = { 245.1, 246.0 };

	(void)state;
	assert_int_equal(judge(x, 2), MON_COST_FEW_TRIALS);
	assert_int_equal(judge(x, 1), MON_COST_FEW_TRIALS);
	assert_int_equal(mon_cost_judge(NULL), MON_COST_FEW_TRIALS);
}

/* A trace from before verdicts is judged from what it stored; a stored
 * verdict stands; an estimated figure carries its source's. */
static void test_mon_cost_verdict_stored_or_derived(void **state)
{
	struct trace_cost old = { .mean_ps = -389900,
				  .stddev_ps = 520000,
				  .ci99_ps = 773400,
				  .samples = 3,
				  .flags = MON_COST_MEASURED };
	struct trace_cost judged = old, estimated = { .mean_ps = 100000 };

	(void)state;
	assert_int_equal(mon_cost_verdict(&old),
			 MON_COST_NEGATIVE | MON_COST_SPANS_ZERO);
	judged.flags = MON_COST_MEASURED | MON_COST_JUDGED | MON_COST_NOISY;
	assert_int_equal(mon_cost_verdict(&judged), MON_COST_NOISY);
	assert_int_equal(mon_cost_verdict(&estimated), 0);
	estimated.flags = MON_COST_JUDGED | MON_COST_NEGATIVE;
	assert_int_equal(mon_cost_verdict(&estimated), MON_COST_NEGATIVE);
}

static void test_mon_calibration_judge_names_figure(void **state)
{
	struct trace_calibration cpu[2] = { { .cpu = 0 }, { .cpu = 3 } };
	struct mon_calibration cal = { .hdr = { .version = 1, .nr_cpus = 2 },
				       .cpu = cpu };
	char why[256];
	unsigned int c, k;

	(void)state;
	for (c = 0; c < 2; c++)
		for (k = 0; k < MON_COST_NR; k++)
			cpu[c].cost[k] = (struct trace_cost){
				.mean_ps = 245000,
				.stddev_ps = 1800,
				.ci99_ps = 1500,
				.samples = 10,
				.flags = MON_COST_MEASURED | MON_COST_JUDGED,
			};
	assert_int_equal(mon_calibration_judge(&cal, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	cpu[1].cost[MON_COST_CONSTANT].flags |= MON_COST_NOISY;
	assert_int_equal(mon_calibration_judge(&cal, why, sizeof(why)), -EDOM);
	assert_non_null(strstr(why, "constant on CPU 3"));
	assert_non_null(strstr(why, "noisy (a noisy or virtual machine)"));
	cpu[0].cost[MON_COST_SWITCH].flags |= MON_COST_FEW_TRIALS;
	cpu[0].cost[MON_COST_SWITCH].samples = 2;
	assert_int_equal(mon_calibration_judge(&cal, why, sizeof(why)), -EDOM);
	assert_non_null(strstr(why, "switch on CPU 0"));
	assert_non_null(strstr(why, "over 2 trials"));
	assert_non_null(strstr(why, "(too few trials)"));
	assert_int_equal(mon_calibration_judge(NULL, why, sizeof(why)),
			 -EINVAL);
	/* A noisy syscall figure, copied by the estimated migrate, irq and
	 * other ones: the message names the measured one. */
	cpu[0].cost[MON_COST_SWITCH].flags = MON_COST_MEASURED |
					     MON_COST_JUDGED;
	cpu[0].cost[MON_COST_SWITCH].samples = 10;
	cpu[1].cost[MON_COST_CONSTANT].flags = MON_COST_MEASURED |
					       MON_COST_JUDGED;
	cpu[0].cost[MON_COST_SYSCALL].flags |= MON_COST_NOISY;
	cpu[0].cost[MON_COST_MIGRATE].flags = MON_COST_JUDGED | MON_COST_NOISY;
	assert_int_equal(mon_calibration_judge(&cal, why, sizeof(why)), -EDOM);
	assert_non_null(strstr(why, "syscall on CPU 0"));
}

/* Synthetic trials: the first @noisy ones from @early (cycled), then
 * steady ones about 246 ns. */
struct synth {
	size_t noisy, given, calls;
	const double *early;
	size_t nr_early;
};

static const double straddling[] = { -400, 600 };

static int synth_measure(void *arg, unsigned long trials,
			 struct mon_trials *out)
{
	struct synth *sy = arg;
	unsigned long i;

	sy->calls++;
	*out = (struct mon_trials){ .n = trials };
	out->cost_ns = calloc(trials, sizeof(double));
	if (!out->cost_ns)
		return -ENOMEM;
	for (i = 0; i < trials; i++, sy->given++)
		out->cost_ns[i] = sy->given < sy->noisy ?
					  sy->early[sy->given % sy->nr_early] :
					  245 + (double)(sy->given % 3);
	return 0;
}

static void test_cal_figure_steady_once(void **state)
{
	struct synth sy = { 0 };
	struct trace_cost f;

	(void)state;
	assert_int_equal(cal_figure(synth_measure, &sy, 10, 40, 0, &f), 0);
	assert_int_equal(sy.calls, 1);
	assert_int_equal(f.samples, 10);
	assert_int_equal(f.flags, MON_COST_MEASURED | MON_COST_JUDGED);
	assert_true(f.mean_ps > 245000 && f.mean_ps < 247000);
}

/* Three trials spread by chance (std dev 150 ns on a mean of 247: noisy),
 * then steady ones: measured again, and the six trials together make a
 * cost (two far from the median are more than a quarter of six: none is
 * set aside). */
static void test_cal_figure_tries_longer(void **state)
{
	static const double early[] = { 100, 400, 240 };
	struct synth sy = { .noisy = 3, .early = early, .nr_early = 3 };
	struct trace_cost f;

	(void)state;
	assert_int_equal(cal_figure(synth_measure, &sy, 3, 12, 0, &f), 0);
	assert_int_equal(sy.calls, 2);
	assert_int_equal(f.samples, 6);
	assert_int_equal(mon_cost_verdict(&f), 0);
	assert_int_equal(f.flags, MON_COST_MEASURED | MON_COST_JUDGED);
}

/* One trial held up by something else (seen under -icount in a quick
 * calibration: 1506 ns among trials at 330): noisy over three trials,
 * so three more are measured, and in six it is found odd and set aside. */
static void test_cal_figure_sets_aside_disturbed(void **state)
{
	static const double early[] = { 245, 1506, 246 };
	struct synth sy = { .noisy = 3, .early = early, .nr_early = 3 };
	struct trace_cost f;

	(void)state;
	assert_int_equal(cal_figure(synth_measure, &sy, 3, 12, 0, &f), 0);
	assert_int_equal(sy.calls, 2);
	assert_int_equal(f.samples, 5);
	assert_int_equal(mon_cost_verdict(&f), 0);
	assert_int_equal(f.flags, MON_COST_MEASURED | MON_COST_JUDGED |
					  MON_COST_SET_ASIDE);
	assert_true(f.mean_ps > 245000 && f.mean_ps < 247000);
}

static size_t undisturbed(const double *x, size_t n)
{
	double kept[16];

	return mon_trials_undisturbed(x, n, kept);
}

/* The rule, on the trials of the quick calibrations bench-compensation
 * refused (one trial far off among twelve), and where it must not act. */
static void test_mon_trials_undisturbed(void **state)
{
	static const double on_held[] = { 330, 327, 335, 325, 1506, 331,
					  329, 333, 326, 334, 332,  328 };
	static const double off_held[] = { 246, 245, 247, -600, 246, 245 };
	static const double icount[] = { 250, 250, 250, 250, 400 };
	static const double two_of_six[] = { 246, 900, 245, 247, 950, 246 };
	static const double wide[] = { -400, 600, -400, 600, -400, 600 };
	double kept[12];
	size_t i;

	(void)state;
	assert_int_equal(mon_trials_undisturbed(on_held, 12, kept), 11);
	for (i = 0; i < 11; i++)
		assert_true(kept[i] < 400);
	assert_int_equal(kept[4], 331); /* the order is kept */
	assert_int_equal(undisturbed(off_held, 6), 5);
	/* Identical trials (no spread): half the median is the bound. */
	assert_int_equal(undisturbed(icount, 5), 4);
	/* Three trials cannot tell which one is odd. */
	assert_int_equal(undisturbed(on_held + 3, 3), 3);
	/* More than a quarter far off: the machine's noise, all kept. */
	assert_int_equal(undisturbed(two_of_six, 6), 6);
	assert_int_equal(undisturbed(wide, 6), 6);
	assert_int_equal(undisturbed(NULL, 0), 0);
}

/* Never steady: it stops at the bound and says why. */
static void test_cal_figure_gives_up_bounded(void **state)
{
	struct synth sy = { .noisy = 1000, .early = straddling, .nr_early = 2 };
	struct trace_cost f;

	(void)state;
	assert_int_equal(cal_figure(synth_measure, &sy, 3, 12, 0, &f), 0);
	assert_int_equal(sy.calls, 3);
	assert_int_equal(f.samples, 12);
	assert_true(f.flags & MON_COST_JUDGED);
	assert_true(mon_cost_verdict(&f) & MON_COST_SPANS_ZERO);
	assert_false(mon_cost_verdict(&f) & MON_COST_FEW_TRIALS);
}

/* Past its deadline (a slow machine): the first trials, judged, no more. */
static void test_cal_figure_deadline_stops_retries(void **state)
{
	struct synth sy = { .noisy = 1000, .early = straddling, .nr_early = 2 };
	struct trace_cost f;

	(void)state;
	assert_int_equal(cal_figure(synth_measure, &sy, 3, 12, 1, &f), 0);
	assert_int_equal(sy.calls, 1);
	assert_int_equal(f.samples, 3);
	assert_true(mon_cost_verdict(&f) & MON_COST_SPANS_ZERO);
}

static int failing_measure(void *arg, unsigned long trials,
			   struct mon_trials *out)
{
	(void)arg;
	(void)trials;
	(void)out;
	return -EOVERFLOW;
}

static void test_cal_figure_error(void **state)
{
	struct trace_cost f = { 0 };

	(void)state;
	assert_int_equal(cal_figure(failing_measure, NULL, 3, 12, 0, &f),
			 -EOVERFLOW);
	assert_int_equal(f.flags, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mon_cost_judge_steady),
		cmocka_unit_test(test_mon_cost_judge_negative),
		cmocka_unit_test(test_mon_cost_judge_spans_zero),
		cmocka_unit_test(test_mon_cost_judge_noisy),
		cmocka_unit_test(test_mon_cost_judge_few_trials),
		cmocka_unit_test(test_mon_cost_verdict_stored_or_derived),
		cmocka_unit_test(test_mon_calibration_judge_names_figure),
		cmocka_unit_test(test_cal_figure_steady_once),
		cmocka_unit_test(test_cal_figure_tries_longer),
		cmocka_unit_test(test_cal_figure_sets_aside_disturbed),
		cmocka_unit_test(test_mon_trials_undisturbed),
		cmocka_unit_test(test_cal_figure_gives_up_bounded),
		cmocka_unit_test(test_cal_figure_deadline_stops_retries),
		cmocka_unit_test(test_cal_figure_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
