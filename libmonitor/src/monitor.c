// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * monitor.c - the MKM calls: thin wrappers of the /dev/mkm ioctls that
 * return 0 or a negative errno, and check the ABI version once at create.
 * monitor_read() reads the rings in place (ring_map.c) where the module
 * can map them, and falls back to read(2) where it cannot.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pipeline/pipeline_internal.h"
#include "ring_map.h"

struct monitor {
	int fd;
	struct mkm_version version;
	struct monitor_config cfg; /* as the kernel last confirmed it */
	bool resumed;
	struct mon_ring_map *map; /* the rings, once mapped */
	bool copy; /* read(2) only: mapping failed, or MKM_NO_MMAP is set */
};

static int mon_ioctl(const struct monitor *mon, unsigned long req, void *arg)
{
	int r;

	do {
		r = ioctl(mon->fd, req, arg);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : 0;
}

int monitor_create_at(struct monitor **monp, const char *path,
		      struct monitor_config *cfg)
{
	struct monitor *mon;
	int err;

	if (!monp)
		return -EINVAL;
	*monp = NULL;
	mon = calloc(1, sizeof(*mon));
	if (!mon)
		return -ENOMEM;
	mon->fd =
		open(path ? path : MKM_DEVICE, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (mon->fd < 0) {
		err = -errno;
		goto err_free;
	}
	err = mon_ioctl(mon, MKM_IOC_VERSION, &mon->version);
	if (err)
		goto err_close;
	/* A newer minor only adds types, flags and classes: fine. */
	if (mon->version.major != MKM_ABI_MAJOR ||
	    mon->version.event_size != sizeof(struct mkm_event)) {
		err = -EPROTO;
		goto err_close;
	}
	mon->cfg.classes = MKM_CLASS_DEFAULT; /* the module's, until told */
	mon->copy = mon->version.minor < 2 || getenv("MKM_NO_MMAP");
	if (cfg) {
		err = monitor_configure(mon, cfg);
		if (err)
			goto err_close;
	}
	*monp = mon;
	return 0;

err_close:
	close(mon->fd);
err_free:
	free(mon);
	return err;
}

int monitor_create(struct monitor **monp, size_t *size)
{
	struct monitor_config cfg = { 0 };
	int err;

	cfg.ring_bytes = size && *size ? *size : MKM_RING_DEFAULT_BYTES;
	err = monitor_create_at(monp, MKM_DEVICE, &cfg);
	if (!err && size)
		*size = cfg.ring_bytes;
	return err;
}

int monitor_terminate(struct monitor *mon)
{
	int err = 0;

	if (!mon)
		return 0;
	mon_ring_map_close(mon->map);
	/* close() must not be retried on EINTR: the fd is gone anyway. */
	if (close(mon->fd) < 0)
		err = -errno;
	free(mon);
	return err;
}

int monitor_configure(struct monitor *mon, struct monitor_config *cfg)
{
	struct mkm_config c;
	int err;

	if (!mon || !cfg)
		return -EINVAL;
	memset(&c, 0, sizeof(c));
	c.ring_bytes = cfg->ring_bytes ? cfg->ring_bytes :
					 MKM_RING_DEFAULT_BYTES;
	c.classes = cfg->classes;
	c.flags = cfg->flags;
	/*
	 * One record per switch is the caller's to ask for (it must read
	 * MKM_EV_SWITCH); a module before ABI 2.4 gives the two records.
	 */
	if (mon->version.minor < 4)
		c.flags &= ~MKM_CONFIG_ONE_SWITCH;
	/* A flight recorder and its triggers: no module before 2.7 has them. */
	if (mon->version.minor < 7 &&
	    (c.flags & MKM_CONFIG_FLIGHT || cfg->trigger_runq_ns ||
	     cfg->trigger_irq_ns))
		return -EOPNOTSUPP;
	if (mon->version.minor < 10 && c.classes & MKM_CLASS_SCHED_STATE)
		return -EOPNOTSUPP;
	c.wakeup_bytes = cfg->wakeup_bytes;
	c.trigger_runq_ns = cfg->trigger_runq_ns;
	c.trigger_irq_ns = cfg->trigger_irq_ns;
	/* The module refuses to replace rings that are mapped. */
	mon_ring_map_close(mon->map);
	mon->map = NULL;
	err = mon_ioctl(mon, MKM_IOC_CONFIGURE, &c);
	if (err)
		return err;
	cfg->ring_bytes = c.ring_bytes;
	cfg->total_bytes = c.total_bytes;
	cfg->classes = c.classes;
	cfg->flags = c.flags;
	cfg->wakeup_bytes = c.wakeup_bytes;
	mon->cfg = *cfg;
	return 0;
}

void mon_monitor_config(const struct monitor *mon, struct monitor_config *cfg)
{
	*cfg = mon->cfg;
}

/* Maps the rings, once they exist; read(2) from then on if that fails. */
static void monitor_map(struct monitor *mon)
{
	unsigned int nr_cpus = 0;

	if (mon->copy || mon->map)
		return;
	if (monitor_statistics(mon, NULL, &nr_cpus) ||
	    mon_ring_map_open(mon->fd, nr_cpus, &mon->map))
		mon->copy = true;
}

int monitor_resume(struct monitor *mon)
{
	int err;

	if (!mon)
		return -EINVAL;
	err = mon_ioctl(mon, MKM_IOC_RESUME, NULL);
	if (err)
		return err;
	mon->resumed = true;
	/* A new clock point for the records from now on, as read() takes. */
	if (mon->map && mon_ring_map_resumed(mon->map)) {
		mon_ring_map_close(mon->map);
		mon->map = NULL;
		mon->copy = true;
	}
	monitor_map(mon);
	return 0;
}

int monitor_suspend(struct monitor *mon)
{
	int err;

	if (!mon)
		return -EINVAL;
	err = mon_ioctl(mon, MKM_IOC_SUSPEND, NULL);
	if (!err)
		mon->resumed = false;
	return err;
}

int monitor_read(struct monitor *mon, struct mkm_event *buf, size_t max,
		 size_t *n)
{
	bool lost;

	return mon_monitor_read(mon, buf, max, n, &lost);
}

int mon_monitor_read(struct monitor *mon, struct mkm_event *buf, size_t max,
		     size_t *n, bool *lost)
{
	ssize_t r;

	if (!mon || !buf || !n || !max || !lost)
		return -EINVAL;
	*n = 0;
	*lost = false;
	if (mon->map)
		return mon_ring_map_read(mon->map, buf, max, !mon->resumed, n,
					 lost);
	*lost = true; /* read() does not say */
	if (max > SSIZE_MAX / sizeof(*buf))
		max = SSIZE_MAX / sizeof(*buf);
	do {
		r = read(mon->fd, buf, max * sizeof(*buf));
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno == EAGAIN ? 0 : -errno;
	if ((size_t)r % sizeof(*buf))
		return -EIO;
	*n = (size_t)r / sizeof(*buf);
	return 0;
}

/*
 * The ioctl number of a call whose struct gained reserved fields in ABI
 * 2.4, for this module: the 2.3 number takes the same struct's prefix.
 */
static unsigned long mon_cmd(const struct monitor *mon, unsigned long cmd,
			     unsigned long cmd_2_3)
{
	return mon->version.minor >= 4 ? cmd : cmd_2_3;
}

int thread_monitor(struct monitor *mon, uint32_t unique_id, pid_t tid)
{
	struct mkm_thread t = { .tid = tid, .unique_id = unique_id };

	if (!mon || tid <= 0)
		return -EINVAL;
	return mon_ioctl(mon,
			 mon_cmd(mon, MKM_IOC_THREAD_MONITOR,
				 MKM_IOC_THREAD_MONITOR_2_3),
			 &t);
}

int thread_unmonitor(struct monitor *mon, pid_t tid)
{
	struct mkm_thread t = { .tid = tid };

	if (!mon || tid <= 0)
		return -EINVAL;
	return mon_ioctl(mon,
			 mon_cmd(mon, MKM_IOC_THREAD_UNMONITOR,
				 MKM_IOC_THREAD_UNMONITOR_2_3),
			 &t);
}

/*
 * The way in for a mark into the caller's own monitor (a NULL monitor):
 * any monitor's fd serves, the module finds the one that tracks the
 * calling thread; so one is opened at the first such mark, never
 * configured, and kept for the process's life.
 */
static struct monitor *way_in;

static int way_in_get(struct monitor **monp)
{
	struct monitor *mon = __atomic_load_n(&way_in, __ATOMIC_ACQUIRE);
	struct monitor *none = NULL;
	int err;

	if (!mon) {
		err = monitor_create_at(&mon, MKM_DEVICE, NULL);
		if (err)
			return err;
		/* Another thread's won: that one is the way in. */
		if (!__atomic_compare_exchange_n(&way_in, &none, mon, false,
						 __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
			monitor_terminate(mon);
			mon = none;
		}
	}
	*monp = mon;
	return 0;
}

static int mark(struct monitor *mon, uint64_t value, uint32_t flags)
{
	struct mkm_mark m = { .value = value, .flags = flags };
	int err;

	if (!mon) {
		err = way_in_get(&mon);
		if (err)
			return err;
		m.flags |= MKM_MARK_OWN;
	}
	/* Flags came with 2.7, the mark into the caller's own with 2.8. */
	if (m.flags && mon->version.minor < (m.flags & MKM_MARK_OWN ? 8 : 7))
		return -EOPNOTSUPP;
	return mon_ioctl(mon, mon_cmd(mon, MKM_IOC_MARK, MKM_IOC_MARK_2_3), &m);
}

int monitor_mark(struct monitor *mon, uint64_t value)
{
	return mark(mon, value, 0);
}

int monitor_trigger(struct monitor *mon, uint64_t value)
{
	return mark(mon, value, MKM_MARK_TRIGGER);
}

int monitor_statistics(struct monitor *mon, struct mkm_cpu_stats *cpus,
		       unsigned int *nr_cpus)
{
	struct mkm_stats s;
	int err;

	if (!mon || !nr_cpus || (*nr_cpus && !cpus))
		return -EINVAL;
	memset(&s, 0, sizeof(s));
	s.nr_cpus = *nr_cpus;
	s.cpus = (uintptr_t)cpus;
	/* Ignored by a module before ABI 2.4, whose entries are a prefix. */
	s.cpu_stats_size = sizeof(*cpus);
	err = mon_ioctl(mon, mon_cmd(mon, MKM_IOC_STATS, MKM_IOC_STATS_2_3),
			&s);
	if (err)
		return err;
	*nr_cpus = s.nr_cpus;
	return 0;
}

/* The monitor's counters without the per-CPU ones. */
static int monitor_counters(struct monitor *mon, struct mkm_stats *s)
{
	memset(s, 0, sizeof(*s));
	return mon_ioctl(mon, mon_cmd(mon, MKM_IOC_STATS, MKM_IOC_STATS_2_3),
			 s);
}

int monitor_busy_threads(struct monitor *mon, unsigned int *n)
{
	struct mkm_stats s;
	int err;

	if (!mon || !n)
		return -EINVAL;
	err = monitor_counters(mon, &s);
	if (!err)
		*n = s.busy_threads;
	return err;
}

int monitor_deferrals(struct monitor *mon, uint32_t *deferrals)
{
	struct mkm_stats s;
	int err;

	if (!mon || !deferrals)
		return -EINVAL;
	err = monitor_counters(mon, &s);
	if (!err)
		*deferrals = s.deferrals; /* 0 from a module before 2.5 */
	return err;
}

int monitor_version(const struct monitor *mon, struct mkm_version *version)
{
	if (!mon || !version)
		return -EINVAL;
	*version = mon->version;
	return 0;
}

int monitor_fd(const struct monitor *mon)
{
	return mon ? mon->fd : -EINVAL;
}
