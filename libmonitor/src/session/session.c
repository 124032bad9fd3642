// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * session.c - a recording (mon_session.h): the monitor, the calibration,
 * the pipeline "live source -> calibration and processes -> clock sync
 * -> trace sink (+ extra)" and its runner thread.
 *
 * The runner is started before the trace is created, so that its tid can
 * go into INFO with the caller's (the live source adds its drain
 * thread's), and waits on @go until mon_session_start() has resumed the
 * monitor: the file's first records are then the monitor's first. A
 * session that is not started lets it leave without running (go -1).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "session/session.h"

void session_warn(const struct mon_session *s, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!s->cfg.warn)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	s->cfg.warn(s->cfg.warn_arg, line);
}

static bool all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		if (*b++)
			return false;
	return true;
}

/*
 * The monitor, with the classes and ring size asked for (0: resolved as
 * mon_session.h says): the IRQ class dropped where the module refuses it
 * to this user and it was not asked for by name, the rings halved while
 * the user's budget (-EPERM, not system-wide) or the RAM (-ENOMEM)
 * refuses them, down to the module's default.
 */
static int open_monitor(struct mon_session *s)
{
	struct monitor_config *cfg = &s->applied;
	const char *dev = s->device ? s->device : MKM_DEVICE;
	unsigned int cpus = (unsigned int)get_nprocs_conf();
	uint64_t ram = (uint64_t)sysconf(_SC_PHYS_PAGES) *
		       (uint64_t)sysconf(_SC_PAGESIZE);
	bool auto_size = !cfg->ring_bytes, auto_events = !cfg->classes;
	int ret;

	if (auto_events)
		cfg->classes = MON_CLASS_RECORD_DEFAULT;
	if (auto_size)
		cfg->ring_bytes = mon_ring_bytes_for(cfg->classes, cpus, ram);
	for (;;) {
		ret = monitor_create_at(&s->mon, s->device, cfg);
		if (ret == -EACCES && auto_events &&
		    cfg->classes & MKM_CLASS_IRQ &&
		    access(dev, R_OK | W_OK) == 0) {
			cfg->classes &= ~MKM_CLASS_IRQ;
			if (auto_size)
				cfg->ring_bytes = mon_ring_bytes_for(
					cfg->classes, cpus, ram);
			continue;
		}
		if ((ret == -ENOMEM ||
		     (ret == -EPERM && !(cfg->flags & MKM_CONFIG_SYSTEM))) &&
		    auto_size && cfg->ring_bytes > MKM_RING_DEFAULT_BYTES) {
			cfg->ring_bytes /= 2;
			continue;
		}
		return ret;
	}
}

static int copy_str(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

int mon_session_create(struct mon_session **sp,
		       const struct mon_session_config *cfg)
{
	struct mon_session *s;
	int ret;

	if (!sp || !cfg || cfg->flags & ~MON_SESSION_FLAGS ||
	    !all_zero(cfg->reserved, sizeof(cfg->reserved)))
		return -EINVAL;
	if (cfg->mode > MON_SESSION_MODE_FLIGHT)
		return -EOPNOTSUPP;
	if (cfg->realtime &&
	    cfg->realtime > (uint32_t)sched_get_priority_max(SCHED_FIFO))
		return -EINVAL;
	if (cfg->mode != MON_SESSION_MODE_FLIGHT &&
	    !all_zero(&cfg->flight, sizeof(cfg->flight)))
		return -EINVAL;
	/* A snapshot carries the calibration taken before the start. */
	if (cfg->flight.flags & ~MON_FLIGHT_AT_END ||
	    (cfg->mode == MON_SESSION_MODE_FLIGHT &&
	     cfg->flags & MON_SESSION_CALIBRATE_AT_END))
		return -EINVAL;
	if (cfg->calibration > MON_SESSION_CAL_FILE ||
	    (cfg->calibration == MON_SESSION_CAL_FILE &&
	     !cfg->calibration_file))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->cfg = *cfg;
	s->applied = cfg->monitor;
	if (cfg->mode == MON_SESSION_MODE_FLIGHT) {
		/* Always full: it wakes its reader on triggers only. */
		s->applied.flags |= MKM_CONFIG_FLIGHT;
		s->applied.wakeup_bytes = 0;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	ret = copy_str(&s->device, cfg->device);
	if (!ret && cfg->mode == MON_SESSION_MODE_FLIGHT)
		ret = session_flight_open(s);
	if (!ret)
		ret = copy_str(&s->cal_file, cfg->calibration_file);
	s->cfg.device = s->device;
	s->cfg.calibration_file = s->cal_file;
	if (!ret)
		ret = open_monitor(s);
	if (ret) {
		mon_session_destroy(s);
		return ret;
	}
	*sp = s;
	return 0;
}

int mon_session_track(struct mon_session *s, pid_t tid)
{
	int ret;

	if (!s || tid <= 0)
		return -EINVAL;
	ret = thread_monitor(s->mon, (uint32_t)tid, tid);
	if (ret || s->prepared)
		return ret;
	if (s->nr_tids == s->cap_tids) {
		size_t cap = s->cap_tids ? 2 * s->cap_tids : 16;
		pid_t *t = realloc(s->tids, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		s->tids = t;
		s->cap_tids = cap;
	}
	s->tids[s->nr_tids++] = tid;
	return 0;
}

static int calibrate_quick(struct mon_session *s)
{
	struct mon_calibrate_config quick = {
		.trials = MON_SESSION_QUICK_TRIALS,
		.nr_cpus = 1,
		.budget_ns = MON_SESSION_QUICK_BUDGET_NS,
	};
	unsigned int cpu = 0;
	cpu_set_t allowed;

	if (!sched_getaffinity(0, sizeof(allowed), &allowed))
		while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &allowed))
			cpu++;
	quick.cpus = &cpu;
	return mon_calibrate(&s->cal, &quick);
}

static bool at_end(const struct mon_session *s)
{
	return s->cfg.flags & MON_SESSION_CALIBRATE_AT_END &&
	       s->cfg.calibration == MON_SESSION_CAL_QUICK;
}

int mon_session_calibrate(struct mon_session *s)
{
	int ret = 0;

	if (!s)
		return -EINVAL;
	if (s->calibrated)
		return s->cal_ret;
	if (at_end(s) && !s->stopped)
		return 0; /* mon_session_stop()'s */
	if (s->prepared && !at_end(s))
		return -EALREADY;
	if (s->cfg.calibration == MON_SESSION_CAL_QUICK)
		ret = calibrate_quick(s);
	else if (s->cfg.calibration == MON_SESSION_CAL_FILE)
		ret = mon_calibration_load(&s->cal, s->cal_file);
	if (ret) {
		mon_calibration_free(&s->cal);
		memset(&s->cal, 0, sizeof(s->cal));
	}
	s->calibrated = true;
	s->cal_ret = ret;
	return ret;
}

const struct mon_calibration *
mon_session_calibration(const struct mon_session *s)
{
	return s && s->cal.hdr.nr_cpus ? &s->cal : NULL;
}

/* A thread's process, from /proc/TID/status; 0 if it is gone. */
static uint32_t tgid_of(pid_t tid)
{
	char path[64], line[128];
	unsigned int tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %u", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

static int add_known(struct mon_session *s, uint32_t tid, uint32_t tgid)
{
	if (!tgid)
		return 0;
	if (s->nr_procs == s->cap_procs) {
		size_t cap = s->cap_procs ? s->cap_procs * 2 : 64;
		struct trace_process *p =
			realloc(s->procs, cap * sizeof(*s->procs));

		if (!p)
			return -ENOMEM;
		s->procs = p;
		s->cap_procs = cap;
	}
	s->procs[s->nr_procs++] =
		(struct trace_process){ .tid = tid, .tgid = tgid };
	return 0;
}

/*
 * The process of every thread tracked so far (with MKM_CONFIG_SYSTEM,
 * every thread of the machine), as /proc says before the recording
 * starts: the records tell it only for threads forked while recorded.
 */
static int find_processes(struct mon_session *s)
{
	struct dirent *p, *t;
	char path[64];
	DIR *dir, *tasks;
	size_t i;
	int ret = 0;

	if (!(s->applied.flags & MKM_CONFIG_SYSTEM)) {
		for (i = 0; i < s->nr_tids && !ret; i++)
			ret = add_known(s, (uint32_t)s->tids[i],
					tgid_of(s->tids[i]));
		return ret;
	}
	dir = opendir("/proc");
	if (!dir)
		return 0;
	while (!ret && (p = readdir(dir))) {
		uint32_t tgid = (uint32_t)strtoul(p->d_name, NULL, 10);

		if (!tgid)
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task", tgid);
		tasks = opendir(path);
		if (!tasks)
			continue; /* gone meanwhile */
		while (!ret && (t = readdir(tasks)))
			if (t->d_name[0] != '.')
				ret = add_known(s,
						(uint32_t)strtoul(t->d_name,
								  NULL, 10),
						tgid);
		closedir(tasks);
	}
	closedir(dir);
	return ret;
}

/* A stage that puts the calibration and the threads' processes right
 * after INFO, so the file carries them before any event. */
static int after_info_process(void *priv, const struct mon_msg *msg,
			      struct mon_emit *out)
{
	const struct mon_session *s = priv;
	struct mon_msg cal = { .type = MON_MSG_CALIBRATION,
			       .calibration_hdr = &s->cal.hdr,
			       .calibration = s->cal.cpu,
			       .nr_calibration = s->cal.hdr.nr_cpus };
	struct mon_msg procs = { .type = MON_MSG_PROCESSES,
				 .processes = s->procs,
				 .nr_processes = s->nr_procs };
	int ret = mon_emit(out, msg);

	if (ret || msg->type != MON_MSG_INFO)
		return ret;
	if (s->cal.hdr.nr_cpus)
		ret = mon_emit(out, &cal);
	if (!ret && s->nr_procs)
		ret = mon_emit(out, &procs);
	return ret;
}

/* A calibration measured at the end goes out after the records. */
static int after_info_finish(void *priv, struct mon_emit *out)
{
	const struct mon_session *s = priv;
	struct mon_msg cal = { .type = MON_MSG_CALIBRATION,
			       .calibration_hdr = &s->cal.hdr,
			       .calibration = s->cal.cpu,
			       .nr_calibration = s->cal.hdr.nr_cpus };

	if (!at_end(s) || !s->cal.hdr.nr_cpus)
		return 0;
	return mon_emit(out, &cal);
}

static const struct mon_stage_ops after_info_ops = {
	.name = "calibration and processes",
	.process = after_info_process,
	.finish = after_info_finish,
};

static void *runner_thread(void *arg)
{
	struct mon_session *s = arg;
	int go;

	if (s->cfg.realtime) {
		struct sched_param prio = { .sched_priority =
						    (int)s->cfg.realtime };

		s->runner_prio_err = -pthread_setschedparam(pthread_self(),
							    SCHED_FIFO, &prio);
	}
	pthread_mutex_lock(&s->lock);
	s->runner_tid = gettid();
	pthread_cond_broadcast(&s->cond);
	while (!s->go)
		pthread_cond_wait(&s->cond, &s->lock);
	go = s->go;
	pthread_mutex_unlock(&s->lock);
	if (go > 0)
		s->run_err = s->flight ? session_flight_run(s) :
					 mon_pipeline_run(s->p);
	return NULL;
}

static void release_runner(struct mon_session *s, int go)
{
	pthread_mutex_lock(&s->lock);
	s->go = go;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

static void join_runner(struct mon_session *s)
{
	if (!s->runner_on)
		return;
	if (!s->go)
		release_runner(s, -1);
	pthread_join(s->runner, NULL);
	s->runner_on = false;
}

static int start_runner(struct mon_session *s)
{
	if (pthread_create(&s->runner, NULL, runner_thread, s))
		return -EAGAIN;
	s->runner_on = true;
	pthread_mutex_lock(&s->lock);
	while (!s->runner_tid)
		pthread_cond_wait(&s->cond, &s->lock);
	pthread_mutex_unlock(&s->lock);
	if (s->runner_prio_err) {
		join_runner(s);
		return s->runner_prio_err;
	}
	return 0;
}

/* The recording's own threads, in INFO: what they take from monitored
 * threads on a shared CPU is the monitor's cost (docs/compensation.md). */
static void add_own_tid(struct trace_info *info, pid_t tid)
{
	if (info->nr_monitor_tids < TRACE_MAX_MONITOR_TIDS)
		info->monitor_tids[info->nr_monitor_tids++] = (uint32_t)tid;
}

/*
 * A flight recorder's: no pipeline; the thread that writes the snapshots
 * started, waiting, so that INFO names it.
 */
static int prepare_flight(struct mon_session *s)
{
	struct trace_info info;
	int ret;

	mon_session_calibrate(s); /* without one, if it fails */
	ret = find_processes(s);
	if (!ret)
		ret = mon_live_info(s->mon, &info);
	if (!ret)
		ret = start_runner(s);
	if (ret)
		return ret;
	if (!(s->cfg.flags & MON_SESSION_FOREIGN_CALLER))
		add_own_tid(&info, gettid());
	add_own_tid(&info, s->runner_tid);
	if (s->node)
		session_node_info(s, &info);
	s->info = info;
	return s->node ? session_node_begin(s) : 0;
}

static int prepare(struct mon_session *s, const struct mon_session_output *out)
{
	struct mon_sink *extra = out->extra;
	struct trace_info info;
	struct mon_source *src;
	struct mon_sink *sink;
	int ret;

	if (snprintf(s->path, sizeof(s->path), "%s", out->path) >=
	    (int)sizeof(s->path)) {
		mon_sink_destroy(extra);
		return -ENAMETOOLONG;
	}
	/* A flight recorder has no stream for a viewer's sink. */
	if (s->flight && extra) {
		mon_sink_destroy(extra);
		return -EOPNOTSUPP;
	}
	if (out->node) {
		ret = session_node_open(s, out->node);
		if (ret) {
			mon_sink_destroy(extra);
			return ret;
		}
	}
	if (s->flight)
		return prepare_flight(s);
	mon_session_calibrate(s); /* without one, if it fails */
	ret = find_processes(s);
	if (!ret)
		ret = mon_source_live(&src, s->mon, NULL);
	if (ret) {
		mon_sink_destroy(extra);
		return ret;
	}
	ret = mon_pipeline_create(&s->p, src);
	if (!ret && (s->cal.hdr.nr_cpus || s->nr_procs || at_end(s))) {
		struct mon_stage *st;

		ret = mon_stage_new(&st, &after_info_ops, s);
		if (!ret)
			ret = mon_pipeline_add_stage(s->p, st);
	}
	if (!ret && s->node)
		ret = session_node_stage(s);
	if (!ret)
		ret = start_runner(s);
	if (ret) {
		mon_sink_destroy(extra);
		return ret;
	}
	info = *mon_source_info(src);
	if (!(s->cfg.flags & MON_SESSION_FOREIGN_CALLER))
		add_own_tid(&info, gettid());
	add_own_tid(&info, s->runner_tid);
	if (s->node)
		session_node_info(s, &info);
	s->info = info;
	ret = mon_sink_trace_flags(&sink, s->path, &info,
				   s->cfg.flags & MON_SESSION_BUFFERED_IO ?
					   0 :
					   TRACE_WRITE_DIRECT);
	if (ret) {
		mon_sink_destroy(extra);
		return ret;
	}
	ret = mon_pipeline_add_sink(s->p, sink);
	if (!ret)
		s->sink = sink;
	if (!ret && extra)
		ret = mon_pipeline_add_sink(s->p, extra);
	else if (extra)
		mon_sink_destroy(extra);
	if (!ret && s->node)
		ret = session_node_begin(s);
	return ret;
}

int mon_session_prepare(struct mon_session *s,
			const struct mon_session_output *out)
{
	int ret;

	if (!s || !out || !out->path ||
	    !all_zero(out->reserved, sizeof(out->reserved))) {
		if (out)
			mon_sink_destroy(out->extra);
		return -EINVAL;
	}
	if (s->prepared || s->broken) {
		mon_sink_destroy(out->extra);
		return s->broken ? -EINVAL : -EALREADY;
	}
	ret = prepare(s, out);
	if (ret) {
		s->broken = true;
		return ret;
	}
	s->prepared = true;
	return 0;
}

/* This process's CPU time so far (its children's apart), ns: in user
 * space, and in the kernel on its behalf (reads, writes, faults). */
static void self_cpu_ns(double *user, double *sys)
{
	struct rusage ru;

	*user = *sys = 0;
	if (getrusage(RUSAGE_SELF, &ru))
		return;
	*user = (double)ru.ru_utime.tv_sec * 1e9 +
		(double)ru.ru_utime.tv_usec * 1e3;
	*sys = (double)ru.ru_stime.tv_sec * 1e9 +
	       (double)ru.ru_stime.tv_usec * 1e3;
}

int mon_session_start(struct mon_session *s,
		      const struct mon_session_output *out)
{
	int ret;

	if (!s)
		return -EINVAL;
	if (!s->prepared) {
		if (!out)
			return -EINVAL;
		ret = mon_session_prepare(s, out);
		if (ret)
			return ret;
	}
	if (s->started)
		return -EALREADY;
	ret = monitor_resume(s->mon);
	if (ret)
		return ret;
	if (monitor_deferrals(s->mon, &s->deferrals_start))
		s->deferrals_start = 0;
	release_runner(s, 1);
	s->started = true;
	self_cpu_ns(&s->user_ns, &s->sys_ns);
	if (s->node)
		session_node_periodic(s);
	return 0;
}

int mon_session_stop(struct mon_session *s)
{
	double user, sys;
	int ret;

	if (!s)
		return -EINVAL;
	if (!s->started || s->stopped)
		return s->stop_err;
	s->stopped = true;
	if (s->node)
		session_node_end(s);
	/* Before the suspend: its own drop may be the one deferred. */
	if (monitor_deferrals(s->mon, &s->deferrals_end))
		s->deferrals_end = s->deferrals_start;
	if (s->flight) {
		session_flight_stop(s);
		join_runner(s);
		session_flight_end(s);
		self_cpu_ns(&user, &sys);
		s->user_ns = user - s->user_ns;
		s->sys_ns = sys - s->sys_ns;
		s->stop_err = s->run_err;
		return s->stop_err;
	}
	if (at_end(s)) {
		/* The runner's stage reads the calibration at the end of
		 * the stream, which mon_source_live_stop() queues after. */
		monitor_suspend(s->mon);
		mon_session_calibrate(s);
	}
	ret = mon_source_live_stop(mon_pipeline_source(s->p));
	join_runner(s);
	self_cpu_ns(&user, &sys);
	s->user_ns = user - s->user_ns;
	s->sys_ns = sys - s->sys_ns;
	s->stop_err = s->run_err ? s->run_err : ret;
	return s->stop_err;
}

void mon_session_destroy(struct mon_session *s)
{
	if (!s)
		return;
	mon_session_stop(s);
	if (s->node && !s->started)
		session_node_end(s);
	if (s->p && !s->started)
		mon_source_live_stop(mon_pipeline_source(s->p));
	join_runner(s);
	mon_pipeline_destroy(s->p);
	session_node_free(s);
	session_flight_free(s);
	monitor_terminate(s->mon);
	mon_calibration_free(&s->cal);
	free(s->tids);
	free(s->procs);
	free(s->device);
	free(s->cal_file);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

int mon_session_counts(const struct mon_session *s, uint64_t *events,
		       uint64_t *lost)
{
	if (!s)
		return -EINVAL;
	if (events)
		*events = s->flight ? session_flight_records(s) : 0;
	if (lost)
		*lost = 0;
	if (!s->p)
		return 0;
	return mon_source_live_counts(mon_pipeline_source(s->p), events, lost);
}

int mon_session_stats(const struct mon_session *s, struct mon_session_stats *st)
{
	double user, sys;

	if (!s || !st || (!s->p && !(s->flight && s->prepared)))
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	if (s->p)
		mon_source_live_stats(mon_pipeline_source(s->p), &st->live);
	st->user_ns = s->user_ns;
	st->sys_ns = s->sys_ns;
	if (s->started && !s->stopped) {
		self_cpu_ns(&user, &sys);
		st->user_ns = user - s->user_ns;
		st->sys_ns = sys - s->sys_ns;
	} else if (!s->started) {
		st->user_ns = st->sys_ns = 0;
	}
	st->deferrals_start = s->deferrals_start;
	st->deferrals_end = s->stopped ? s->deferrals_end : s->deferrals_start;
	st->direct = s->sink && mon_sink_trace_direct(s->sink);
	return 0;
}

const char *mon_session_error(const struct mon_session *s)
{
	return s && s->p ? mon_pipeline_error(s->p, NULL) : "";
}

const struct mon_meta *mon_session_meta(const struct mon_session *s)
{
	return s && s->p ? mon_pipeline_meta(s->p) : NULL;
}

const struct trace_info *mon_session_info(const struct mon_session *s)
{
	return s && s->prepared ? &s->info : NULL;
}

struct monitor *mon_session_monitor(const struct mon_session *s)
{
	return s ? s->mon : NULL;
}

const struct monitor_config *
mon_session_monitor_config(const struct mon_session *s)
{
	return s ? &s->applied : NULL;
}
