// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * calibrate/calibration.c - a whole calibration: every figure on every
 * CPU (mon_calibrate()), and calibrations as traces carry them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "calibrate/verdict.h"
#include "internal.h"
#include "mon_calibrate.h"

static const char *const cost_names[MON_COST_NR] = {
	[MON_COST_SWITCH] = "switch",	[MON_COST_WAKEUP] = "wakeup",
	[MON_COST_MIGRATE] = "migrate", [MON_COST_IRQ] = "irq",
	[MON_COST_SYSCALL] = "syscall", [MON_COST_MARK] = "mark",
	[MON_COST_OTHER] = "other",	[MON_COST_CONSTANT] = "constant",
};

const char *mon_cost_name(unsigned int kind)
{
	return kind < MON_COST_NR ? cost_names[kind] : "?";
}

/* The kinds with a workload of their own (mon_calibrate.h). */
static const enum mon_cost_kind measured[] = {
	MON_COST_SWITCH, MON_COST_WAKEUP, MON_COST_SYSCALL,
	MON_COST_IRQ,	 MON_COST_MARK,	  MON_COST_CONSTANT,
};

void mon_cpu_model(char *buf, size_t len)
{
	char line[256], *v;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (len)
		buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10) || !(v = strchr(line, ':')))
			continue;
		v += 1 + (v[1] == ' ');
		v[strcspn(v, "\n")] = '\0';
		snprintf(buf, len, "%s", v);
		break;
	}
	fclose(f);
}

struct measure {
	enum mon_cost_kind kind;
	unsigned int cpu;
	unsigned long rounds;
};

static int measure(void *arg, unsigned long trials, struct mon_trials *out)
{
	const struct measure *m = arg;

	return mon_calibrate_kind(m->kind, m->cpu, m->rounds, trials, out);
}

static int calibrate_cpu(struct trace_calibration *e, unsigned int cpu,
			 const struct mon_calibrate_config *cfg,
			 uint64_t deadline_ns)
{
	unsigned long trials = cfg->trials ? cfg->trials : 10;
	unsigned long max_trials = cfg->max_trials ?
					   cfg->max_trials :
					   trials * MON_CALIBRATE_RETRY_FACTOR;
	size_t i;
	int ret;

	e->cpu = cpu;
	for (i = 0; i < ARRAY_SIZE(measured); i++) {
		struct measure m = {
			.kind = measured[i],
			.cpu = cpu,
			.rounds = cfg->rounds ? cfg->rounds :
						MON_CALIBRATE_ROUNDS,
		};

		/* The constant cost is small against a short trial's noise
		 * and what a monitor's start leaves behind (it shrinks with
		 * longer trials): ten times longer ones. */
		if (measured[i] == MON_COST_CONSTANT)
			m.rounds *= 10;
		if (cfg->progress)
			cfg->progress(cfg->arg, cpu, measured[i]);
		ret = cal_figure(measure, &m, trials, max_trials, deadline_ns,
				 &e->cost[measured[i]]);
		/* A class refused here, or the interrupts' signal the
		 * program's own: left estimated. */
		if (ret == -EACCES || ret == -EOPNOTSUPP || ret == -EBUSY)
			continue;
		if (ret)
			return ret;
		if (measured[i] == MON_COST_SWITCH) /* experiment.c counts so */
			e->cost[MON_COST_SWITCH].flags |= MON_COST_PER_SWITCH;
	}
	/*
	 * No workload makes these alone (migrations, the lifecycle's), or
	 * none could run here. The module writes them, as a syscall record,
	 * with one call for the current thread (sensor_emit_thread()): they
	 * take its figure (the switch's if a class was refused), marked
	 * estimated, and its verdict.
	 */
	for (i = 0; i < MON_COST_NR; i++) {
		const struct trace_cost *from =
			&e->cost[e->cost[MON_COST_SYSCALL].flags ?
					 MON_COST_SYSCALL :
					 MON_COST_SWITCH];

		if (!(e->cost[i].flags & MON_COST_MEASURED) &&
		    i != MON_COST_CONSTANT)
			e->cost[i] = (struct trace_cost){
				.mean_ps = from->mean_ps,
				.stddev_ps = from->stddev_ps,
				.ci99_ps = from->ci99_ps,
				.flags = from->flags & ~(MON_COST_MEASURED |
							 MON_COST_PER_SWITCH |
							 MON_COST_SET_ASIDE),
			};
	}
	return 0;
}

int mon_calibrate(struct mon_calibration *out,
		  const struct mon_calibrate_config *config)
{
	struct mon_calibrate_config cfg =
		config ? *config : (struct mon_calibrate_config){ 0 };
	cpu_set_t saved;
	unsigned int cpu;
	struct utsname u;
	size_t n = 0;
	int ret = 0;
	uint64_t deadline_ns =
		cfg.budget_ns ? now_ns(CLOCK_MONOTONIC) + cfg.budget_ns : 0;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (sched_getaffinity(0, sizeof(saved), &saved))
		return -errno;
	out->cpu = calloc(cfg.cpus ? cfg.nr_cpus : (size_t)CPU_COUNT(&saved),
			  sizeof(*out->cpu));
	if (!out->cpu)
		return -ENOMEM;
	for (cpu = 0; !ret && cpu < CPU_SETSIZE; cpu++) {
		if (cfg.cpus ? n >= cfg.nr_cpus || cfg.cpus[n] != cpu :
			       !CPU_ISSET(cpu, &saved))
			continue;
		ret = calibrate_cpu(&out->cpu[n++], cpu, &cfg, deadline_ns);
	}
	if (!ret && cfg.cpus && n < cfg.nr_cpus)
		ret = -EINVAL; /* not in increasing order, or too large */
	sched_setaffinity(0, sizeof(saved), &saved);
	if (ret) {
		mon_calibration_free(out);
		return ret;
	}
	out->hdr.version = 1;
	out->hdr.nr_cpus = (uint32_t)n;
	out->clock_res_ps = mon_clock_resolution_ps();
	out->hdr.taken_real_ns = now_ns(CLOCK_REALTIME);
	out->hdr.rounds =
		(uint32_t)(cfg.rounds ? cfg.rounds : MON_CALIBRATE_ROUNDS);
	out->hdr.trials = (uint32_t)(cfg.trials ? cfg.trials : 10);
	if (!uname(&u))
		snprintf(out->hdr.kernel, sizeof(out->hdr.kernel), "%s",
			 u.release);
	mon_cpu_model(out->hdr.cpu_model, sizeof(out->hdr.cpu_model));
	return 0;
}

int mon_calibration_set(struct mon_calibration *out,
			const struct trace_calibration_hdr *hdr,
			const struct trace_calibration *cpu, size_t n)
{
	if (!out || !hdr || !cpu || !n || n != hdr->nr_cpus)
		return -EINVAL;
	out->cpu = malloc(n * sizeof(*cpu));
	if (!out->cpu)
		return -ENOMEM;
	memcpy(out->cpu, cpu, n * sizeof(*cpu));
	out->hdr = *hdr;
	out->hdr.kernel[sizeof(out->hdr.kernel) - 1] = '\0';
	out->hdr.cpu_model[sizeof(out->hdr.cpu_model) - 1] = '\0';
	return 0;
}

/*
 * A CALIBRATION chunk into @out: its CPUs' entries added, or replacing an
 * earlier chunk's for the same CPU (a merged trace has one a node, each
 * on its node's CPUs; a later calibration of a CPU supersedes). The
 * header stays the first's, where it was taken.
 */
static int add_chunk(struct mon_calibration *out, const struct trace_chunk *c)
{
	size_t i, j, n = out->hdr.nr_cpus;
	struct trace_calibration *cpu;

	if (!c->calibration_hdr || !c->nr_calibration)
		return 0;
	if (!n)
		return mon_calibration_set(out, c->calibration_hdr,
					   c->calibration, c->nr_calibration);
	cpu = realloc(out->cpu, (n + c->nr_calibration) * sizeof(*cpu));
	if (!cpu)
		return -ENOMEM;
	out->cpu = cpu;
	for (i = 0; i < c->nr_calibration; i++) {
		for (j = 0; j < n && cpu[j].cpu != c->calibration[i].cpu; j++)
			;
		cpu[j] = c->calibration[i];
		n += j == n;
	}
	out->hdr.nr_cpus = (uint32_t)n;
	return 0;
}

int mon_calibration_load(struct mon_calibration *out, const char *path)
{
	uint32_t clock_res_ps = 0;
	struct trace_reader *r;
	struct trace_chunk c;
	bool merged = false;
	int ret;

	if (!out || !path)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	ret = trace_reader_open(&r, path);
	if (!ret) {
		clock_res_ps = trace_reader_info(r)->clock_res_ps;
		merged = trace_reader_info(r)->trace_flags & TRACE_F_MERGED;
	}
	/* One recording's comes first: the file is not read to its end. */
	while (!ret && (merged || !out->hdr.nr_cpus) &&
	       (ret = trace_reader_next(r, &c)) > 0)
		ret = c.type == TRACE_CHUNK_CALIBRATION ? add_chunk(out, &c) :
							  0;
	trace_reader_close(r);
	if (ret < 0 && ret != -ENOMEM && out->hdr.nr_cpus)
		ret = 0; /* damage after what it holds */
	if (!ret && !out->hdr.nr_cpus)
		ret = -ENOENT;
	if (ret) {
		mon_calibration_free(out);
		return ret;
	}
	out->clock_res_ps = clock_res_ps;
	return 0;
}

bool mon_cost_below_resolution(const struct trace_cost *c,
			       uint32_t clock_res_ps)
{
	return c && c->flags & MON_COST_MEASURED && !mon_cost_verdict(c) &&
	       c->mean_ps < (int64_t)clock_res_ps;
}

unsigned int mon_calibration_below_resolution(const struct mon_calibration *c)
{
	unsigned int mask = 0, k;
	uint32_t i;

	if (!c)
		return 0;
	for (i = 0; i < c->hdr.nr_cpus; i++)
		for (k = 0; k < MON_COST_NR; k++)
			if (mon_cost_below_resolution(&c->cpu[i].cost[k],
						      c->clock_res_ps))
				mask |= 1u << k;
	return mask;
}

void mon_calibration_free(struct mon_calibration *c)
{
	if (!c)
		return;
	free(c->cpu);
	c->cpu = NULL;
	c->hdr.nr_cpus = 0;
}

static double cost_of(const struct trace_calibration *e,
		      enum mon_cost_kind kind)
{
	return fmax((double)e->cost[kind].mean_ps / 1000, 0);
}

double mon_calibration_cost(const struct mon_calibration *c, unsigned int cpu,
			    enum mon_cost_kind kind)
{
	double sum = 0;
	size_t i;

	if (!c || !c->hdr.nr_cpus || (unsigned int)kind >= MON_COST_NR)
		return 0;
	for (i = 0; i < c->hdr.nr_cpus; i++) {
		if (c->cpu[i].cpu == cpu)
			return cost_of(&c->cpu[i], kind);
		sum += cost_of(&c->cpu[i], kind);
	}
	return sum / c->hdr.nr_cpus;
}

const char *mon_calibration_check(const struct mon_calibration *c,
				  const struct trace_info *info,
				  const char *cpu_model)
{
	if (info && info->kernel[0] && strcmp(c->hdr.kernel, info->kernel))
		return "taken on another kernel release";
	if (cpu_model && cpu_model[0] && strcmp(c->hdr.cpu_model, cpu_model))
		return "taken on another CPU model";
	return NULL;
}
