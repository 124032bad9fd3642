/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mon_calibrate.h - what the monitor costs on the machine in use, measured
 * as MKM measured it (Lehr, Black, Segall and Vrsalovic, "MKM: Mach Kernel
 * Monitor", CMU-CS-89-131, 1989: Figs. 12 and 13, Tables 2 and 3), for the
 * compensation stage (mon_stage_compensate()) and `mkm calibrate`.
 *
 * Each figure comes from trials that alternate the sensors on and off over
 * the same work pinned to one CPU; the cost of one event is the time the
 * "on" trial took beyond the "off" one, divided by the events counted:
 *
 *   switch    two threads ping-pong a byte over pipes (SCHED_BATCH, so that
 *             no wakeup preempts: every switch a sleep), monitored: resumed
 *             (records written) against suspended (the probes check and
 *             return; another monitor keeps them registered); per switch
 *             recorded, whatever its records (MON_COST_PER_SWITCH)
 *   wakeup    the same, recording MKM_CLASS_WAKEUP against not
 *   syscall   getppid() in a loop, recording MKM_CLASS_SYSCALL against not
 *   irq       the caller spins while a one-shot timer of its own, due at
 *             once, interrupts it (its signal ends each round), recording
 *             MKM_CLASS_IRQ against not
 *   mark      monitor_mark() resumed against suspended (refused at once)
 *   constant  the ping-pong unmonitored, another thread's monitor resumed
 *             (every switch pays the probe's check) against no monitor at
 *             all (no probe registered): per context switch
 *
 * Migrations and the lifecycle records have no workload that makes them
 * alone: the module writes them as it writes a syscall record (one call
 * for the current thread), and they take that figure, marked estimated
 * (no MON_COST_MEASURED flag); so does irq where the program has a
 * handler of its own for the timer's signal (SIGRTMAX), which is left
 * alone. docs/compensation.md says more.
 *
 * The calibrating thread's CPU affinity, and its policy where it is
 * SCHED_OTHER, are changed while it runs and put back before it returns.
 * Every function returns 0 or a negative errno.
 */
/* First, outside the guard, so that any of the library's headers may be
 * included first (libmonitor.h includes them all). */
#include "libmonitor.h"

#ifndef MON_CALIBRATE_H
#define MON_CALIBRATE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sample statistics as MKM's Tables 2 and 3 give them. */
struct mon_sample_stats {
	size_t n;
	double mean, stddev, min, max;
	double ci99; /* half-width of the mean's 99% confidence interval
			(normal approximation, z = 2.576, as the paper's) */
};

/* mon_sample_stats - the statistics of @x[0 .. @n-1] (all 0 when @n is 0) */
MON_API void mon_sample_stats(const double *x, size_t n,
			      struct mon_sample_stats *out);

/*
 * Short trials by default, for a quick calibration: since the ping-pong runs
 * as SCHED_BATCH, longer ones give the same figures (under -icount, 427 ns
 * a switch from 3000 round trips, 424 from 300: docs/compensation.md).
 */
#define MON_CALIBRATE_ROUNDS 300

/*
 * A figure is a cost only when its trials say so (mon_cost_judge()): a
 * mean above zero, a 99% interval that stays above zero, a standard
 * deviation under half the mean, and at least MON_CALIBRATE_MIN_TRIALS
 * trials. mon_calibrate() measures a figure that fails again, with twice
 * its trials each time, up to MON_CALIBRATE_RETRY_FACTOR times the trials
 * asked for, before it gives up and stores the verdict.
 */
#define MON_CALIBRATE_MIN_TRIALS 3
#define MON_CALIBRATE_NOISY_CV 0.5 /* std dev / mean from which: noisy */
#define MON_CALIBRATE_RETRY_FACTOR 4

/*
 * A trial that something else on the machine held up (an interrupt storm,
 * another task's time slice: in bench-compensation's -icount guests,
 * about one trial in a hundred took 0.7 to 4 ms more than its peers) is
 * not the monitor's cost. It is
 * set aside when it lies farther from the trials' median than both
 * MON_CALIBRATE_DISTURBED_MADS robust standard deviations (1.4826 x the
 * median absolute deviation) and MON_CALIBRATE_NOISY_CV x the median; at
 * most one trial in MON_CALIBRATE_DISTURBED_SHARE is, and none when more
 * lie that far: then the noise is the machine's, and the verdict says so.
 */
#define MON_CALIBRATE_DISTURBED_MADS 5
#define MON_CALIBRATE_DISTURBED_SHARE 4

/*
 * mon_trials_undisturbed - copy into @kept the trials of @x[0 .. @n-1]
 * that are not set aside as disturbed (above), in their order
 *
 * Return: how many were kept (@n when none was set aside).
 */
MON_API size_t mon_trials_undisturbed(const double *x, size_t n, double *kept);

/*
 * mon_cost_judge - the verdict on a figure from its trials' statistics
 *
 * Return: 0 (a cost), or MON_COST_NEGATIVE, _SPANS_ZERO, _NOISY and
 * _FEW_TRIALS or'ed (libmonitor.h).
 */
MON_API unsigned int mon_cost_judge(const struct mon_sample_stats *s);

/*
 * mon_cost_verdict - the verdict of a stored figure: the one it carries
 * (MON_COST_JUDGED), else, for a trace written before verdicts existed,
 * judged now from its mean, std dev, interval and trials; 0 for an
 * estimated figure without one (its source is judged)
 *
 * Return: 0 or MON_COST_NOT_A_COST bits.
 */
MON_API unsigned int mon_cost_verdict(const struct trace_cost *c);

/* The trials of one figure, for those who print them (the examples). */
struct mon_trials {
	size_t n; /* trials: entries of each array */
	double *t_on, *t_off; /* seconds each trial took */
	double *n_on, *n_off; /* operations the kernel counted in each:
				 context switches of the two threads
				 (/proc/<tid>/status), or loop iterations */
	double *events; /* records of the kind written in the "on" trial
			   (for MON_COST_SWITCH the switches recorded: a
			   SWITCH, or a SWITCH_OUT and the SWITCH_IN at its
			   instant, counts once: MON_COST_PER_SWITCH); for
			   MON_COST_CONSTANT the switches of "off" */
	double *cost_ns; /* (t_on - t_off) / events, per trial */
};

/*
 * mon_calibrate_kind - measure one figure on one CPU
 * @kind: MON_COST_SWITCH, _WAKEUP, _SYSCALL, _MARK or _CONSTANT
 * @cpu: the CPU the work is pinned to
 * @rounds: round trips or loop iterations per trial (0:
 *          MON_CALIBRATE_ROUNDS)
 * @trials: pairs of trials (0: 10; at least 2)
 * @out: the trials (free with mon_trials_free())
 *
 * Return: 0, or -EINVAL (another kind, @trials 1), -ENOMEM, an errno of
 * monitor_create() (-ENOENT: no /dev/mkm), thread_monitor(), monitor_
 * configure() (-EACCES: a class refused), sched_setaffinity() (-EINVAL:
 * @cpu offline or not allowed), pipe() or pthread_create(); -EOVERFLOW if
 * the monitor lost records (the figure would be wrong).
 */
MON_API int mon_calibrate_kind(enum mon_cost_kind kind, unsigned int cpu,
			       unsigned long rounds, unsigned long trials,
			       struct mon_trials *out);

/* mon_trials_free - free the arrays of @t (not @t); NULL is a no-op */
MON_API void mon_trials_free(struct mon_trials *t);

/* A calibration: where it was taken and one entry per CPU measured. */
struct mon_calibration {
	struct trace_calibration_hdr hdr; /* hdr.nr_cpus entries at cpu */
	struct trace_calibration *cpu;
	/* The step of the clock it was measured with (trace_info's, or
	 * mon_clock_resolution_ps() where taken); 0: not known */
	uint32_t clock_res_ps;
};

struct mon_calibrate_config {
	unsigned long rounds, trials; /* per figure; 0: MON_CALIBRATE_ROUNDS
					 and 10 */
	unsigned long max_trials; /* a figure that is not a cost is measured
				     again up to this many trials; 0:
				     MON_CALIBRATE_RETRY_FACTOR x trials */
	const unsigned int *cpus; /* the CPUs to measure; NULL: every CPU
				     the caller may run on */
	size_t nr_cpus;
	/* Called before each figure (may be NULL), e.g. for a progress line. */
	void (*progress)(void *arg, unsigned int cpu, enum mon_cost_kind kind);
	void *arg;
	/* Figures are measured again only while the calibration has run less
	 * than this (0: no limit); each gets its first trials however slow
	 * the machine (on the KASAN kernel under emulation, the quick
	 * calibration's twelve trials of each figure took 114 s). */
	uint64_t budget_ns;
};

/*
 * mon_calibrate - measure every figure on every CPU of @cfg
 * @out: the calibration (free with mon_calibration_free())
 * @cfg: NULL for the defaults
 *
 * A kind that cannot be measured (e.g. -EACCES) is left estimated, as
 * those without a workload are; other errors end the calibration. Each
 * figure is judged (mon_cost_judge()), measured longer while it is not a
 * cost (up to @cfg->max_trials), and stored with its verdict: a
 * calibration that is not meaningful is still returned (0), for
 * mon_calibration_judge() to say so.
 *
 * Return: 0, or as mon_calibrate_kind().
 */
MON_API int mon_calibrate(struct mon_calibration *out,
			  const struct mon_calibrate_config *cfg);

/*
 * mon_calibration_set - fill @out from a CALIBRATION chunk or message
 * (@hdr and @n entries at @cpu, copied)
 *
 * Return: 0, or -EINVAL (@n is 0 or differs from hdr->nr_cpus), -ENOMEM.
 */
MON_API int mon_calibration_set(struct mon_calibration *out,
				const struct trace_calibration_hdr *hdr,
				const struct trace_calibration *cpu, size_t n);

/*
 * mon_calibration_load - the calibration a trace file carries (one that
 * `mkm record` or `mkm calibrate -o` wrote), with its INFO's clock step:
 * its CALIBRATION chunks together, by CPU, a later one superseding an
 * earlier one's CPUs (a merged trace holds one a node, on its CPUs, so
 * each node's threads are compensated with their node's costs)
 *
 * Return: 0, or -ENOENT (the file has no CALIBRATION chunk), or as
 * trace_reader_open() and trace_reader_next() (damage before the chunk).
 */
MON_API int mon_calibration_load(struct mon_calibration *out, const char *path);

/*
 * mon_calibration_below_resolution - the costs smaller than one step of
 * the clock they were measured with (@c->clock_res_ps): each is a mean
 * over many events, sound as an average (a trial spans thousands of
 * steps) but finer than any one timestamp, so compensation moves a
 * single interval by less than the clock can show. Estimated figures
 * and figures that are not costs are left out.
 *
 * Return: a mask of (1u << enum mon_cost_kind), 0 if none or the step
 * is not known.
 */
MON_API unsigned int
mon_calibration_below_resolution(const struct mon_calibration *c);

/* mon_cost_below_resolution - whether figure @c is one of those: measured,
 * a cost (mon_cost_verdict() 0), its mean under @clock_res_ps (0: never) */
MON_API bool mon_cost_below_resolution(const struct trace_cost *c,
				       uint32_t clock_res_ps);

/* mon_calibration_free - free what @c holds (not @c); NULL is a no-op */
MON_API void mon_calibration_free(struct mon_calibration *c);

/*
 * mon_calibration_cost - ns one event of @kind costs on @cpu: the mean,
 * or 0 when the mean is negative (noise). A CPU the calibration lacks
 * takes the mean over the CPUs it has.
 */
MON_API double mon_calibration_cost(const struct mon_calibration *c,
				    unsigned int cpu, enum mon_cost_kind kind);

/*
 * mon_calibration_judge - whether every figure of @c is a cost
 * (mon_cost_verdict()), as compensation requires
 * @why: if not NULL, @len bytes for one line naming the first figure that
 *       is not a cost and why ("switch on CPU 0: mean -389.9 ns, 99%
 *       interval -1200.2 .. 420.4 ns over 3 trials: negative, spans zero,
 *       noisy (too few trials)"); "" when it is meaningful
 *
 * Return: 0, -EINVAL (@c NULL or without a CPU), or -EDOM (a figure is not
 * a cost).
 */
MON_API int mon_calibration_judge(const struct mon_calibration *c, char *why,
				  size_t len);

/* mon_cost_verdict_str - the verdict bits of @verdict in words ("negative,
 * spans zero"), "a cost" for 0; in @buf of @len bytes, which it returns */
MON_API const char *mon_cost_verdict_str(unsigned int verdict, char *buf,
					 size_t len);

/*
 * mon_calibration_check - compare the machine a calibration was taken on
 * with the one a trace was recorded on
 *
 * Return: NULL when the kernel release and CPU model agree (a @cpu_model
 * NULL or "" is not compared), else a static string saying which differs
 * (for a warning).
 */
MON_API const char *mon_calibration_check(const struct mon_calibration *c,
					  const struct trace_info *info,
					  const char *cpu_model);

/* mon_cost_name - "switch", "wakeup", ... ("?" when out of range) */
MON_API const char *mon_cost_name(unsigned int kind);

/* mon_cpu_model - this machine's CPU model (/proc/cpuinfo), or "" */
MON_API void mon_cpu_model(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* MON_CALIBRATE_H */
