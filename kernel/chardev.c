// SPDX-License-Identifier: GPL-2.0
/*
 * chardev.c - /dev/mkm: open creates a monitor, ioctls drive it, read drains
 * it, mmap maps its rings.
 */

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/uaccess.h>

#include "chardev.h"
#include "mmap.h"
#include "monitor.h"

static int chardev_open(struct inode *inode, struct file *file)
{
	struct mkm_monitor *mon = mkm_monitor_create();

	if (IS_ERR(mon))
		return PTR_ERR(mon);
	file->private_data = mon;
	return stream_open(inode, file);
}

/* The last close: MKM's monitor_terminate. */
static int chardev_release(struct inode *inode, struct file *file)
{
	mkm_monitor_destroy(file->private_data);
	return 0;
}

static ssize_t chardev_read(struct file *file, char __user *buf, size_t count,
			    loff_t *pos)
{
	return mkm_monitor_read(file->private_data, buf, count,
				file->f_flags & O_NONBLOCK);
}

static __poll_t chardev_poll(struct file *file, poll_table *wait)
{
	struct mkm_monitor *mon = file->private_data;

	poll_wait(file, &mon->readers, wait);
	if (mkm_monitor_readable(mon))
		return EPOLLIN | EPOLLRDNORM;
	/*
	 * Suspended with nothing left: read() returns 0, as a pipe's does
	 * once its writers are gone.
	 */
	return mkm_monitor_stopped(mon) ? EPOLLHUP : 0;
}

static long ioctl_version(void __user *arg)
{
	struct mkm_version v = {
		.major = MKM_ABI_MAJOR,
		.minor = MKM_ABI_MINOR,
		.event_size = sizeof(struct mkm_event),
	};

	return copy_to_user(arg, &v, sizeof(v)) ? -EFAULT : 0;
}

static long ioctl_configure(struct mkm_monitor *mon, void __user *arg)
{
	struct mkm_config cfg;
	int ret;

	if (copy_from_user(&cfg, arg, sizeof(cfg)))
		return -EFAULT;
	/* The result must reach the caller: test before applying anything. */
	if (copy_to_user(arg, &cfg, sizeof(cfg)))
		return -EFAULT;
	ret = mkm_monitor_configure(mon, &cfg);
	if (ret)
		return ret;
	return copy_to_user(arg, &cfg, sizeof(cfg)) ? -EFAULT : 0;
}

/*
 * The struct of a call, in the size its ioctl number says: those of ABI
 * 2.3 are the prefix of their successors, which the zeroed rest completes.
 */
static int ioctl_copy_in(void *kbuf, size_t kbytes, const void __user *arg,
			 unsigned int cmd)
{
	size_t size = _IOC_SIZE(cmd);

	if (WARN_ON_ONCE(size > kbytes))
		return -ENOTTY;
	memset(kbuf, 0, kbytes);
	return copy_from_user(kbuf, arg, size) ? -EFAULT : 0;
}

static long ioctl_thread(struct mkm_monitor *mon, void __user *arg,
			 unsigned int cmd, bool monitor)
{
	struct mkm_thread th;
	int ret = ioctl_copy_in(&th, sizeof(th), arg, cmd);

	if (ret)
		return ret;
	if (th.reserved)
		return -EINVAL;
	if (th.tid <= 0)
		return -ESRCH;
	return monitor ? mkm_monitor_thread(mon, th.tid, th.unique_id) :
			 mkm_monitor_unthread(mon, th.tid);
}

static long ioctl_stats(struct mkm_monitor *mon, void __user *arg,
			unsigned int cmd)
{
	struct mkm_stats st;
	int ret = ioctl_copy_in(&st, sizeof(st), arg, cmd);

	if (ret)
		return ret;
	if (st.busy_threads)
		return -EINVAL;
	/* 0: the entry as it was up to ABI 2.6, which callers built then size. */
	if (!st.cpu_stats_size)
		st.cpu_stats_size = MKM_CPU_STATS_SIZE_2_6;
	if (st.cpu_stats_size < 32 || st.cpu_stats_size > PAGE_SIZE ||
	    st.cpu_stats_size % 8)
		return -EINVAL;
	ret = mkm_monitor_stats(mon, &st);
	if (ret)
		return ret;
	return copy_to_user(arg, &st, _IOC_SIZE(cmd)) ? -EFAULT : 0;
}

static long ioctl_mark(struct mkm_monitor *mon, void __user *arg,
		       unsigned int cmd)
{
	struct mkm_mark mark;
	int ret = ioctl_copy_in(&mark, sizeof(mark), arg, cmd);

	if (ret)
		return ret;
	if (mark.reserved || mark.flags & ~(MKM_MARK_TRIGGER | MKM_MARK_OWN))
		return -EINVAL;
	return mkm_monitor_mark(mon, mark.value, mark.flags);
}

static long ioctl_clock(void __user *arg)
{
	struct mkm_clock clk;
	int ret;

	if (copy_from_user(&clk, arg, sizeof(clk)))
		return -EFAULT;
	ret = mkm_monitor_clock(&clk);
	if (ret)
		return ret;
	return copy_to_user(arg, &clk, sizeof(clk)) ? -EFAULT : 0;
}

static int chardev_mmap(struct file *file, struct vm_area_struct *vma)
{
	return mkm_monitor_mmap(file->private_data, vma);
}

/*
 * The calls that change the monitor: refused on an fd opened read-only,
 * as write() on it would be, so that such an fd may watch (read, poll,
 * mmap read-only, STATS, CLOCK) and do nothing else.
 */
static bool chardev_drives(unsigned int cmd)
{
	switch (cmd) {
	case MKM_IOC_CONFIGURE:
	case MKM_IOC_RESUME:
	case MKM_IOC_SUSPEND:
	case MKM_IOC_THREAD_MONITOR:
	case MKM_IOC_THREAD_MONITOR_2_3:
	case MKM_IOC_THREAD_UNMONITOR:
	case MKM_IOC_THREAD_UNMONITOR_2_3:
	case MKM_IOC_MARK:
	case MKM_IOC_MARK_2_3:
		return true;
	default:
		return false;
	}
}

static long chardev_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct mkm_monitor *mon = file->private_data;
	void __user *uarg = (void __user *)arg;

	if (!(file->f_mode & FMODE_WRITE) && chardev_drives(cmd))
		return -EBADF;
	switch (cmd) {
	case MKM_IOC_VERSION:
		return ioctl_version(uarg);
	case MKM_IOC_CONFIGURE:
		return ioctl_configure(mon, uarg);
	case MKM_IOC_RESUME:
		return mkm_monitor_resume(mon);
	case MKM_IOC_SUSPEND:
		return mkm_monitor_suspend(mon);
	case MKM_IOC_THREAD_MONITOR:
	case MKM_IOC_THREAD_MONITOR_2_3:
		return ioctl_thread(mon, uarg, cmd, true);
	case MKM_IOC_THREAD_UNMONITOR:
	case MKM_IOC_THREAD_UNMONITOR_2_3:
		return ioctl_thread(mon, uarg, cmd, false);
	case MKM_IOC_STATS:
	case MKM_IOC_STATS_2_3:
		return ioctl_stats(mon, uarg, cmd);
	case MKM_IOC_MARK:
	case MKM_IOC_MARK_2_3:
		return ioctl_mark(mon, uarg, cmd);
	case MKM_IOC_CLOCK:
		return ioctl_clock(uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations chardev_fops = {
	.owner = THIS_MODULE,
	.open = chardev_open,
	.release = chardev_release,
	.read = chardev_read,
	.poll = chardev_poll,
	.mmap = chardev_mmap,
	.unlocked_ioctl = chardev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	/* No .llseek: stream_open() makes lseek() fail with ESPIPE. */
};

/* Anyone may create a monitor; what it may watch is checked per thread. */
static struct miscdevice chardev_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "mkm",
	.fops = &chardev_fops,
	.mode = 0666,
};

int mkm_chardev_init(void)
{
	return misc_register(&chardev_misc);
}

void mkm_chardev_exit(void)
{
	misc_deregister(&chardev_misc);
}
