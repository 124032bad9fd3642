// SPDX-License-Identifier: GPL-2.0
/*
 * floor.c - the least a tracepoint sensor can cost on this kernel
 * (bench-vm's floor configurations, docs/performance.md).
 *
 * One probe on sched_switch, found and registered as mkm's sensor does
 * (for_each_kernel_tracepoint, tracepoint_probe_register). mode=nop: the
 * probe returns at once, so a switch pays only the tracepoint's own call;
 * mode=count: it bumps a per-CPU counter, the least a sensor that records
 * anything does; mode=none: nothing is registered, the module is only
 * loaded. The switches parameter reads the counter's sum, so that the
 * benchmark can check the probe ran once per switch.
 */
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

static char *mode = "nop";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "none, nop or count");

static DEFINE_PER_CPU(unsigned long, floor_switches);

static int switches_get(char *buf, const struct kernel_param *kp)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(floor_switches, cpu);
	return sysfs_emit(buf, "%lu\n", sum);
}

static const struct kernel_param_ops switches_ops = { .get = switches_get };
module_param_cb(switches, &switches_ops, NULL, 0444);
MODULE_PARM_DESC(switches, "sched_switch calls counted (mode=count)");

/* notrace, as mkm's switch probe: not even the function tracer's nop. */
static notrace void floor_nop(void *data, bool preempt,
			      struct task_struct *prev,
			      struct task_struct *next, unsigned int prev_state)
{
}

static notrace void floor_count(void *data, bool preempt,
				struct task_struct *prev,
				struct task_struct *next,
				unsigned int prev_state)
{
	this_cpu_inc(floor_switches);
}

static struct tracepoint *floor_tp;
static void *floor_probe;

static void floor_find(struct tracepoint *tp, void *data)
{
	if (!strcmp(tp->name, "sched_switch"))
		floor_tp = tp;
}

static int __init floor_init(void)
{
	int ret;

	if (!strcmp(mode, "none"))
		return 0;
	if (!strcmp(mode, "nop"))
		floor_probe = floor_nop;
	else if (!strcmp(mode, "count"))
		floor_probe = floor_count;
	else
		return -EINVAL;
	for_each_kernel_tracepoint(floor_find, NULL);
	if (!floor_tp)
		return -ENOENT;
	ret = tracepoint_probe_register(floor_tp, floor_probe, NULL);
	if (ret)
		floor_probe = NULL;
	return ret;
}

static void __exit floor_exit(void)
{
	if (!floor_probe)
		return;
	tracepoint_probe_unregister(floor_tp, floor_probe, NULL);
	/* No CPU may still be in the probe when its text goes. */
	tracepoint_synchronize_unregister();
}

module_init(floor_init);
module_exit(floor_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mkm bench: the floor of a sched_switch probe");
