// SPDX-License-Identifier: GPL-2.0
/*
 * probes.c - the sensor's probes switched on and off: each registered on
 * its tracepoint while some monitor wants its class (sensor.c has the
 * probes and their table), the tracking probes lingering, and the drops
 * of unprivileged monitors rationed (below: why).
 */

#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "monitor.h"
#include "probes.h"
#include "sensor.h"

static struct mkm_probe *probes;
static unsigned int nr_probes;

static void probes_find(struct tracepoint *tp, void *data)
{
	unsigned int i;

	for (i = 0; i < nr_probes; i++)
		if (!strcmp(tp->name, probes[i].name))
			probes[i].tp = tp;
}

/* The classes whose tracepoints this kernel has. */
u32 mkm_sensor_supported(void)
{
	u32 missing = 0;
	unsigned int i;

	for (i = 0; i < nr_probes; i++)
		if (!probes[i].tp && !probes[i].optional)
			missing |= probes[i].class;
	return (MKM_CLASS_ALL | MKM_CLASS_TRACKING) & ~missing;
}

/*
 * Probes are registered as soon as a class is wanted and unregistered once
 * it is not, except the tracking probes, which a monitor's existence
 * wants: they go only once no monitor has existed for SENSOR_LINGER. Each
 * registration and unregistration patches the kernel's text (the
 * tracepoint's static key), an IPI to every CPU, which one user's
 * open/close loop would otherwise put on every CPU, isolated ones
 * included: the very noise mkm exists to find (perf defers its own static
 * keys' disabling by HZ the same way). A tracking probe registered with no
 * monitor finds nothing to do, at fork, exec and reap only.
 *
 * The class probes must not linger as a rule: registered, they cost every
 * tracked thread's switch, wakeup, interrupt or (sys_enter, the slow
 * syscall path) syscall even with their class unwanted, a cost that a
 * recording right after a calibration paid and its compensation never saw
 * (the ping-pong's run time +7.8% instead of +4.2%, make
 * check-compensation). So their drops are rationed instead, for monitors
 * created without CAP_PERFMON: drop_ration drops at once (a few
 * calibrations' worth), one more each SENSOR_DROP_PERIOD. A drop past the
 * ration is deferred: every probe stays registered until no drop has come
 * for SENSOR_LINGER, so a resume/suspend loop patches text at most at that
 * rate. Deferrals are counted for MKM_IOC_STATS, so that a calibration or
 * compensation that deferred probes would falsify can tell.
 */
#define SENSOR_LINGER HZ
#define SENSOR_LINGERING MKM_CLASS_TRACKING
#define SENSOR_DROP_PERIOD (HZ / 4)

static unsigned int drop_ration = 1024;
module_param(drop_ration, uint, 0644);
MODULE_PARM_DESC(
	drop_ration,
	"without CAP_PERFMON: the probe drops (each patches kernel text, an IPI to every CPU) allowed at once, one more every quarter second; past them, unwanted probes stay registered until a second passes with no drop (default 1024: a few calibrations)");

static DEFINE_MUTEX(sensor_lock);
/* under sensor_lock: */
static u32 sensor_wanted;
static unsigned long sensor_drops = ULONG_MAX; /* left: filled at first */
static unsigned long sensor_drops_at; /* jiffies of the last ration added */
static bool sensor_deferring; /* class probes kept past their use */
static u32 sensor_deferrals; /* drops deferred since load */

/*
 * Registers the probes wanted needs; unregisters the others but those of
 * the keep classes. Says whether any of those is left registered.
 */
static int sensor_apply(u32 wanted, u32 keep, bool *kept)
{
	unsigned int i;
	int ret;

	lockdep_assert_held(&sensor_lock);
	*kept = false;
	for (i = 0; i < nr_probes; i++) {
		struct mkm_probe *p = &probes[i];
		bool want = p->tp && (p->class & wanted);

		if (want == p->registered)
			continue;
		if (!want && p->class & keep) {
			*kept = true;
			continue;
		}
		if (want)
			ret = tracepoint_probe_register(p->tp, p->func, NULL);
		else
			ret = tracepoint_probe_unregister(p->tp, p->func, NULL);
		if (ret) {
			pr_err("mkm: %sregistering probe on %s failed: %d\n",
			       want ? "" : "un", p->name, ret);
			return ret;
		}
		p->registered = want;
	}
	return 0;
}

/* Takes one drop from the ration, after adding what time has earned. */
static bool sensor_ration_drop(void)
{
	unsigned long ration = READ_ONCE(drop_ration);
	unsigned long earned = (jiffies - sensor_drops_at) / SENSOR_DROP_PERIOD;

	sensor_drops = min(sensor_drops, ration); /* or a ration made smaller */
	if (earned) {
		sensor_drops = min(sensor_drops + min(earned, ration), ration);
		sensor_drops_at += earned * SENSOR_DROP_PERIOD;
	}
	if (!sensor_drops)
		return false;
	sensor_drops--;
	return true;
}

static void sensor_linger_fn(struct work_struct *work)
{
	bool kept;

	mutex_lock(&sensor_lock);
	sensor_deferring = false;
	sensor_apply(sensor_wanted, 0, &kept);
	mutex_unlock(&sensor_lock);
}

static DECLARE_DELAYED_WORK(sensor_linger, sensor_linger_fn);

int mkm_sensor_update(u32 wanted, bool rationed)
{
	u32 dropped;
	bool kept;
	int ret;

	mutex_lock(&sensor_lock);
	dropped = sensor_wanted & ~wanted;
	sensor_wanted = wanted;
	/* Once deferring, a rationed drop waits with the others. */
	if (rationed && dropped & MKM_CLASS_ALL &&
	    (sensor_deferring || !sensor_ration_drop())) {
		sensor_deferring = true;
		sensor_deferrals++;
	}
	ret = sensor_apply(wanted, sensor_deferring ? ~0u : SENSOR_LINGERING,
			   &kept);
	/*
	 * Each drop restarts the wait: a loop keeps its probes. While class
	 * probes are deferred, only their drops do: an open/close loop (the
	 * tracking probes) need not prolong what a resume/suspend loop began.
	 */
	if (kept && (dropped & MKM_CLASS_ALL || (dropped && !sensor_deferring)))
		mod_delayed_work(mkm_percpu_wq, &sensor_linger, SENSOR_LINGER);
	mutex_unlock(&sensor_lock);
	return ret;
}

u32 mkm_sensor_deferrals(void)
{
	u32 v;

	mutex_lock(&sensor_lock);
	v = (sensor_deferrals & ~MKM_STATS_DEFERRING) |
	    (sensor_deferring ? MKM_STATS_DEFERRING : 0);
	mutex_unlock(&sensor_lock);
	return v;
}

int mkm_sensor_init(void)
{
	u32 required = MKM_CLASS_SCHED | MKM_CLASS_LIFECYCLE |
		       MKM_CLASS_TRACKING;

	probes = mkm_sensor_probes(&nr_probes);
	for_each_kernel_tracepoint(probes_find, NULL);
	if ((mkm_sensor_supported() & required) != required) {
		pr_err("mkm: this kernel lacks the scheduler tracepoints\n");
		return -ENOENT;
	}
	return 0;
}

void mkm_sensor_exit(void)
{
	bool kept;

	cancel_delayed_work_sync(&sensor_linger);
	mutex_lock(&sensor_lock);
	sensor_apply(0, 0, &kept);
	mutex_unlock(&sensor_lock);
	tracepoint_synchronize_unregister();
}
