// SPDX-License-Identifier: GPL-2.0
/* main.c - mkm.ko: the Mach Kernel Monitor for Linux, module init and exit. */

#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/tracepoint.h>

#include "mkm.h"
#include "chardev.h"
#include "sensor.h"
#include "threads.h"

static int __init mkm_init(void)
{
	int ret;

	ret = mkm_threads_init();
	if (ret)
		return ret;
	ret = mkm_sensor_init();
	if (ret)
		goto err_threads;
	ret = mkm_chardev_init();
	if (ret)
		goto err_sensor;
	pr_info("mkm: kernel monitor ready, ABI %u.%u\n", MKM_ABI_MAJOR,
		MKM_ABI_MINOR);
	return 0;

err_sensor:
	mkm_sensor_exit();
err_threads:
	mkm_threads_exit();
	return ret;
}

static void __exit mkm_exit(void)
{
	/* No monitor is left: each held a reference on the module. */
	mkm_chardev_exit();
	mkm_sensor_exit();
	/* Entries freed with call_rcu must be gone before our code is. */
	rcu_barrier();
	mkm_threads_exit();
}

module_init(mkm_init);
module_exit(mkm_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The mkm developers");
MODULE_DESCRIPTION("MKM: per-thread context-switch monitor");
#ifdef MKM_VERSION
MODULE_VERSION(MKM_VERSION);
#endif
