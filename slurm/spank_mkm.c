// SPDX-License-Identifier: GPL-2.0
/*
 * spank_mkm.c - mkm.so, a Slurm SPANK plugin: srun --mkm[=EVENTS] records
 * the step's tasks on every node of the step, from their first
 * instruction (threads and children too), into one trace per node
 * (--mkm-output, a template: %j job, %s step, %N node, %n node index), each
 * with its clock's exchanges with node 0's (docs/cluster.md). mkm merge
 * then makes one trace of them.
 *
 * Thin, as pyxis is: options in, libmonitor's calls out, errors in Slurm's
 * own way (slurm_error, a failed step: never a node silently lost). In
 * slurmstepd (remote context):
 *   init_post_opt   the monitor, opened as root (slurmstepd's own
 *                   credentials): a monitor created with CAP_PERFMON may
 *                   track the tasks after they become the job's user; one
 *                   the user opened in user_init (real uid root, effective
 *                   the user's) may track neither the task slurmstepd
 *                   forked (still root) nor, once it setuid()s, the user's
 *   user_init       a missing module fails the step, loudly (the job's
 *                   stderr is connected by then); the trace, the clock
 *                   exchange at the start, the recording thread (live
 *                   source -> clock-sync stage -> trace sink)
 *   task_post_fork  thread_monitor() on each task, before it execs
 *   exit            the end exchange, the rest drained, the trace closed
 *
 * Each trace is written with O_DIRECT where its file system allows, as
 * mkm record's (a node-local disk; NFS and other shared file systems say
 * no alignment and are written through the page cache);
 * --mkm-buffered-io always goes through the page cache.
 *
 * The clock exchange: node 0 is the reference; it listens on TCP (port
 * --mkm-port, or 40000 + (job * 31 + step) % 20000) and answers every
 * other node of the step, which connects to the step's first host. With
 * --mkm-sync=SECONDS, every other node also exchanges every SECONDS
 * between the start and the end, from a thread of its own, on the same
 * connection (mkm merge aligns linearly between consecutive exchanges).
 *
 * plugstack.conf:  optional mkm.so [output=TEMPLATE] [port=N] [sync=S]
 *                  [buffered-io]
 *
 * A callback fails with FAIL, negative: slurmstepd tests spank_user()
 * and spank_task_post_fork() with < 0, so ESPANK_ERROR (positive) would
 * be logged and the step would go on without its trace.
 *
 * make check-cluster runs it under Debian's slurmstepd in a cluster of
 * QEMU guests (tests/slurm/cluster.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "libmonitor.h"

SPANK_PLUGIN(mkm, 1);

#define DEFAULT_OUTPUT "mkm-%j/%N.mkm"
#define SYNC_TIMEOUT_MS 30000
/* --mkm-sync's shortest period: an exchange of 32 round trips takes
 * 10-30 ms between QEMU guests. */
#define SYNC_MIN_S 0.1
#define SYNC_MAX_S 86400 /* --mkm-sync's longest period */
#define FAIL (-ESPANK_ERROR)

static struct {
	bool enabled;
	uint32_t classes;
	char output[PATH_MAX];
	unsigned int port;
	uint64_t sync_ns; /* periodic exchanges' period (0: none) */
	bool buffered_io; /* no O_DIRECT (TRACE_WRITE_DIRECT) */
	/* In slurmstepd: */
	struct monitor *mon;
	bool mon_tried; /* monitor_create() called in init_post_opt, */
	int mon_ret; /* with this result, reported in user_init */
	struct mon_source *src;
	struct mon_stage *sync;
	struct mon_pipeline *p;
	struct mon_sink *sink; /* the pipeline's: asked how it wrote */
	pthread_t runner, server;
	pthread_t *served; /* node 0: a thread per other node */
	/* The other nodes, with --mkm-sync: the periodic exchanges' thread;
	 * lock serialises the exchanges on sync_fd. */
	pthread_t periodic;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool periodic_on, periodic_stop;
	bool sync_broken; /* an exchange failed: sync_fd's protocol is lost */
	uint32_t nr_served;
	bool running, serving;
	int run_ret;
	int sync_fd, listen_fd;
	uint32_t job, step, node_id, nr_nodes;
	char node[64], path[PATH_MAX];
} mkm = { .output = DEFAULT_OUTPUT,
	  .sync_fd = -1,
	  .listen_fd = -1,
	  .lock = PTHREAD_MUTEX_INITIALIZER };

static int opt_mkm(int val, const char *arg, int remote)
{
	char bad[64];

	(void)val;
	(void)remote;
	mkm.enabled = true;
	mkm.classes = 0; /* the module's default classes */
	/* sbatch --mkm hands the option to the job's sruns in its
	 * environment, and Slurm 22.05 writes a missing argument there as
	 * "(null)" (check-cluster's sbatch case). */
	if (arg && !strcmp(arg, "(null)"))
		arg = NULL;
	if (arg && *arg &&
	    mon_classes_parse(arg, &mkm.classes, bad, sizeof(bad))) {
		slurm_error("mkm: --mkm=%s: unknown event class '%s' (%s)", arg,
			    bad, MON_CLASS_NAMES);
		return ESPANK_BAD_ARG;
	}
	return ESPANK_SUCCESS;
}

static int opt_output(int val, const char *arg, int remote)
{
	char probe[PATH_MAX];

	(void)val;
	(void)remote;
	if (!arg || mon_node_path(probe, sizeof(probe), arg, 1, 0, "node", 0)) {
		slurm_error("mkm: --mkm-output=%s: a path with %%j (job), %%s "
			    "(step), %%N (node), %%n (node index), %%%% only",
			    arg ? arg : "");
		return ESPANK_BAD_ARG;
	}
	snprintf(mkm.output, sizeof(mkm.output), "%s", arg);
	return ESPANK_SUCCESS;
}

static int opt_port(int val, const char *arg, int remote)
{
	char *end;
	unsigned long port = arg ? strtoul(arg, &end, 10) : 0;

	(void)val;
	(void)remote;
	if (!arg || *end || !port || port > 65535) {
		slurm_error("mkm: --mkm-port=%s: a TCP port, 1 to 65535",
			    arg ? arg : "");
		return ESPANK_BAD_ARG;
	}
	mkm.port = (unsigned int)port;
	return ESPANK_SUCCESS;
}

static int opt_sync(int val, const char *arg, int remote)
{
	char *end;
	double s = arg ? strtod(arg, &end) : 0;

	(void)val;
	(void)remote;
	if (!arg || end == arg || *end ||
	    !(s >= SYNC_MIN_S && s <= SYNC_MAX_S)) {
		slurm_error("mkm: --mkm-sync=%s: the seconds between periodic "
			    "clock exchanges, %g to %d",
			    arg ? arg : "", SYNC_MIN_S, SYNC_MAX_S);
		return ESPANK_BAD_ARG;
	}
	mkm.sync_ns = (uint64_t)(s * 1e9);
	return ESPANK_SUCCESS;
}

static int opt_buffered_io(int val, const char *arg, int remote)
{
	(void)val;
	(void)arg;
	(void)remote;
	mkm.buffered_io = true;
	return ESPANK_SUCCESS;
}

static struct spank_option options[] = {
	{ "mkm", "[events]",
	  "Record the step's tasks with mkm on every node (events: "
	  "sched,lifecycle,irq,syscall,wakeup,default,all)",
	  2, 0, opt_mkm },
	{ "mkm-output", "template",
	  "Each node's trace (default " DEFAULT_OUTPUT
	  "; %j job, %s step, %N node, %n node index)",
	  1, 0, opt_output },
	{ "mkm-port", "port",
	  "TCP port of node 0 for the clock exchanges (default: from the "
	  "job id)",
	  1, 0, opt_port },
	{ "mkm-sync", "seconds",
	  "Also exchange clocks with node 0 every this many seconds "
	  "(default: at the step's start and end only)",
	  1, 0, opt_sync },
	{ "mkm-buffered-io", NULL,
	  "Write the traces through the page cache (default: with O_DIRECT "
	  "where the file system allows)",
	  0, 0, opt_buffered_io },
	SPANK_OPTIONS_TABLE_END
};

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	int i;

	for (i = 0; options[i].name; i++)
		if (spank_option_register(sp, &options[i]) != ESPANK_SUCCESS) {
			slurm_error("mkm: cannot register --%s",
				    options[i].name);
			return FAIL;
		}
	for (i = 0; i < ac; i++) {
		int ret = ESPANK_BAD_ARG;

		if (!strncmp(av[i], "output=", 7))
			ret = opt_output(0, av[i] + 7, 0);
		else if (!strncmp(av[i], "port=", 5))
			ret = opt_port(0, av[i] + 5, 0);
		else if (!strncmp(av[i], "sync=", 5))
			ret = opt_sync(0, av[i] + 5, 0);
		else if (!strcmp(av[i], "buffered-io"))
			ret = opt_buffered_io(0, NULL, 0);
		else
			slurm_error("mkm: plugstack.conf: unknown argument "
				    "'%s' (output=TEMPLATE, port=N, sync=S, "
				    "buffered-io)",
				    av[i]);
		if (ret != ESPANK_SUCCESS)
			return FAIL;
	}
	return ESPANK_SUCCESS;
}

/* In slurmstepd as root, before any privilege is dropped (see the top). */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (mkm.enabled && spank_remote(sp) == 1 && !mkm.mon_tried) {
		mkm.mon_ret = monitor_create(&mkm.mon, NULL);
		mkm.mon_tried = true;
	}
	return ESPANK_SUCCESS;
}

static int item_u32(spank_t sp, spank_item_t item, uint32_t *v)
{
	return spank_get_item(sp, item, v) == ESPANK_SUCCESS ? 0 : -EINVAL;
}

/* mkdir -p of @path's directory. */
static int make_dirs(const char *path)
{
	char dir[PATH_MAX], *p;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	p = strrchr(dir, '/');
	if (!p)
		return 0;
	*p = 0;
	for (p = dir + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(dir, 0755) && errno != EEXIST)
				return -errno;
			*p = '/';
		}
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	if (stat(dir, &st))
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

static void *run(void *arg)
{
	(void)arg;
	mkm.run_ret = mon_pipeline_run(mkm.p);
	return NULL;
}

/* Node 0: answer every other node's exchanges (one thread each, until
 * that node closes after its end exchange). */
static void *serve_one(void *arg)
{
	int fd = (int)(intptr_t)arg;
	long n = mon_clock_serve(fd, NULL, NULL);

	if (n < 0)
		slurm_error("mkm: node %s: a clock exchange failed: %s",
			    mkm.node, monitor_strerror((int)n));
	close(fd);
	return NULL;
}

static void *serve(void *arg)
{
	(void)arg;
	while (mkm.nr_served + 1 < mkm.nr_nodes) {
		int fd = accept(mkm.listen_fd, NULL, NULL);

		if (fd < 0)
			break; /* shut down at the step's end */
		if (pthread_create(&mkm.served[mkm.nr_served], NULL, serve_one,
				   (void *)(intptr_t)fd))
			close(fd);
		else
			mkm.nr_served++;
	}
	return NULL;
}

/* Node 0 at the step's end: the others' end exchanges, waited for, and
 * first the others that have not connected yet: a node whose slurmstepd
 * starts late (a loaded machine) connects after node 0's task may have
 * ended, and must still find it listening. */
static void stop_serving(void)
{
	struct timespec until;
	uint32_t i;

	if (!mkm.serving)
		return;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += SYNC_TIMEOUT_MS / 1000;
	if (pthread_timedjoin_np(mkm.server, NULL, &until)) {
		shutdown(mkm.listen_fd, SHUT_RDWR); /* wakes accept() */
		pthread_join(mkm.server, NULL);
		slurm_error("mkm: node %s: %u of the step's %u nodes did not "
			    "connect for the clock exchange in %d s; their "
			    "traces cannot be aligned",
			    mkm.node, mkm.nr_nodes - 1 - mkm.nr_served,
			    mkm.nr_nodes, SYNC_TIMEOUT_MS / 1000);
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += SYNC_TIMEOUT_MS / 1000;
	for (i = 0; i < mkm.nr_served; i++)
		if (pthread_timedjoin_np(mkm.served[i], NULL, &until)) {
			slurm_error("mkm: node %s: node(s) still in a clock "
				    "exchange after %d s; their end exchange "
				    "is lost",
				    mkm.node, SYNC_TIMEOUT_MS / 1000);
			break;
		}
	close(mkm.listen_fd);
	mkm.serving = false;
}

/*
 * The step's host number index (Slurm's node id), from the step's node
 * list: node 0 is the reference. The node's own name is taken from there
 * too, not from SLURMD_NODENAME: in a step started by a batch script the
 * job's environment still holds the batch node's.
 */
static int step_host(spank_t sp, uint32_t index, char *buf, size_t len)
{
	char list[4096];
	hostlist_t hl;
	char *h = NULL;

	if (spank_getenv(sp, "SLURM_STEP_NODELIST", list, sizeof(list)) !=
		    ESPANK_SUCCESS &&
	    spank_getenv(sp, "SLURM_JOB_NODELIST", list, sizeof(list)) !=
		    ESPANK_SUCCESS)
		return -ENOENT;
	hl = slurm_hostlist_create(list);
	for (uint32_t i = 0; hl && i <= index; i++) {
		free(h);
		h = slurm_hostlist_shift(hl);
		if (!h)
			break;
	}
	if (h)
		snprintf(buf, len, "%s", h);
	free(h);
	if (hl)
		slurm_hostlist_destroy(hl);
	return h ? 0 : -ENOENT;
}

static int exchange(uint32_t kind)
{
	struct trace_clock_sample s = { .kind = kind };
	int ret = 0;

	if (mkm.node_id == 0) { /* the reference: its own clock, exactly */
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		s.local_ns = (uint64_t)ts.tv_sec * 1000000000u +
			     (uint64_t)ts.tv_nsec;
		clock_gettime(CLOCK_REALTIME, &ts);
		s.taken_real_ns = (uint64_t)ts.tv_sec * 1000000000u +
				  (uint64_t)ts.tv_nsec;
		s.rounds = 0;
		mon_clock_ntp_state(&s);
	} else {
		ret = mon_clock_exchange(mkm.sync_fd, 0, kind, NULL, NULL, &s);
	}
	if (!ret)
		ret = mon_stage_clock_sync_add(mkm.sync, &s);
	if (ret && mkm.node_id)
		mkm.sync_broken = true;
	if (ret && kind == TRACE_CLOCK_PERIODIC)
		slurm_error("mkm: node %s: a periodic clock exchange with "
			    "node 0 failed: %s; the exchanges before it align "
			    "%s, none after it",
			    mkm.node, monitor_strerror(ret), mkm.path);
	else if (ret)
		slurm_error("mkm: node %s: the clock exchange with node 0 "
			    "failed: %s; %s will not align",
			    mkm.node, monitor_strerror(ret), mkm.path);
	return ret;
}

/*
 * A node but the reference, with --mkm-sync: an exchange every period
 * until the step's end (the first failure ends them, and the end one:
 * said once). Each period counts from the end of the exchange before it,
 * so one slower than the period does not make them run back to back.
 */
static void *periodic(void *arg)
{
	struct timespec at;

	(void)arg;
	pthread_mutex_lock(&mkm.lock);
	while (!mkm.periodic_stop) {
		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_sec += (time_t)(mkm.sync_ns / 1000000000u);
		at.tv_nsec += (long)(mkm.sync_ns % 1000000000u);
		if (at.tv_nsec >= 1000000000L) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000L;
		}
		while (!mkm.periodic_stop &&
		       pthread_cond_timedwait(&mkm.wake, &mkm.lock, &at) == 0)
			;
		if (mkm.periodic_stop || exchange(TRACE_CLOCK_PERIODIC))
			break;
	}
	pthread_mutex_unlock(&mkm.lock);
	return NULL;
}

/* Starts the periodic exchanges; without them the step still records
 * (its start and end exchanges align it). */
static void start_periodic(void)
{
	pthread_condattr_t ca;

	if (!mkm.sync_ns || mkm.node_id == 0 || mkm.sync_fd < 0)
		return;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&mkm.wake, &ca);
	pthread_condattr_destroy(&ca);
	mkm.periodic_stop = false;
	if (pthread_create(&mkm.periodic, NULL, periodic, NULL)) {
		slurm_error("mkm: node %s: no periodic clock exchanges (cannot "
			    "start a thread); the start and end ones align "
			    "%s",
			    mkm.node, mkm.path);
		pthread_cond_destroy(&mkm.wake);
		return;
	}
	mkm.periodic_on = true;
}

static void stop_periodic(void)
{
	if (!mkm.periodic_on)
		return;
	pthread_mutex_lock(&mkm.lock);
	mkm.periodic_stop = true;
	pthread_cond_signal(&mkm.wake);
	pthread_mutex_unlock(&mkm.lock);
	pthread_join(mkm.periodic, NULL);
	pthread_cond_destroy(&mkm.wake);
	mkm.periodic_on = false;
}

static int start_clock(spank_t sp, const char *reference)
{
	char host[256];
	uint16_t port =
		(uint16_t)(mkm.port ?
				   mkm.port :
				   40000 + (mkm.job * 31u + mkm.step) % 20000);
	int ret;

	if (mkm.nr_nodes < 2 && mkm.node_id == 0)
		return exchange(TRACE_CLOCK_START);
	if (mkm.node_id == 0) {
		ret = mon_clock_listen(&port);
		if (ret < 0)
			goto fail;
		mkm.listen_fd = ret;
		mkm.served = calloc(mkm.nr_nodes, sizeof(*mkm.served));
		if (!mkm.served ||
		    pthread_create(&mkm.server, NULL, serve, NULL)) {
			ret = -EAGAIN;
			goto fail;
		}
		mkm.serving = true;
		return exchange(TRACE_CLOCK_START);
	}
	ret = step_host(sp, 0, host, sizeof(host));
	if (!ret)
		ret = mon_clock_connect(host, port, SYNC_TIMEOUT_MS);
	if (ret < 0)
		goto fail;
	mkm.sync_fd = ret;
	return exchange(TRACE_CLOCK_START);
fail:
	slurm_error("mkm: node %s: no clock exchange with node 0 (%s, port "
		    "%u): %s",
		    mkm.node, reference, port, monitor_strerror(ret));
	return ret;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	struct monitor_config cfg = { .flags = MKM_CONFIG_INHERIT |
					       MKM_CONFIG_ONE_SWITCH };
	struct trace_info info;
	struct mon_sink *sink;
	char reference[64];
	int ret;

	(void)ac;
	(void)av;
	if (!mkm.enabled || spank_remote(sp) != 1)
		return ESPANK_SUCCESS;
	if (item_u32(sp, S_JOB_ID, &mkm.job) ||
	    item_u32(sp, S_JOB_STEPID, &mkm.step) ||
	    item_u32(sp, S_JOB_NODEID, &mkm.node_id) ||
	    item_u32(sp, S_JOB_NNODES, &mkm.nr_nodes)) {
		slurm_error("mkm: cannot read the step's ids from Slurm");
		return FAIL;
	}
	if (step_host(sp, mkm.node_id, mkm.node, sizeof(mkm.node)))
		gethostname(mkm.node, sizeof(mkm.node) - 1);
	ret = mon_node_path(mkm.path, sizeof(mkm.path), mkm.output, mkm.job,
			    mkm.step, mkm.node, mkm.node_id);
	if (!ret)
		ret = make_dirs(mkm.path);
	if (ret) {
		slurm_error("mkm: node %s: --mkm-output %s: %s", mkm.node,
			    mkm.output, strerror(-ret));
		return FAIL;
	}

	/* Opened in init_post_opt; slurmstepd without it (an older
	 * plugstack, a test) opens it here, as the job's user. */
	ret = mkm.mon_tried ? mkm.mon_ret : monitor_create(&mkm.mon, NULL);
	if (ret) {
		slurm_error("mkm: node %s: %s: %s — load the module on this "
			    "node (sudo modprobe mkm), or run without --mkm",
			    mkm.node, MKM_DEVICE, monitor_strerror(ret));
		return FAIL;
	}
	cfg.classes = mkm.classes;
	ret = monitor_configure(mkm.mon, &cfg);
	if (!ret)
		ret = mon_source_live(&mkm.src, mkm.mon, NULL);
	if (ret) {
		slurm_error("mkm: node %s: configuring the monitor: %s",
			    mkm.node, monitor_strerror(ret));
		goto err_terminate;
	}
	info = *mon_source_info(mkm.src);
	snprintf(info.node, sizeof(info.node), "%s", mkm.node);
	info.job_id = mkm.job;
	info.step_id = mkm.step;
	info.node_id = mkm.node_id;
	info.nr_nodes = mkm.nr_nodes;
	ret = mon_pipeline_create(&mkm.p, mkm.src);
	mkm.src = NULL; /* the pipeline's now */
	if (ret)
		goto err_say;
	if (step_host(sp, 0, reference, sizeof(reference)))
		snprintf(reference, sizeof(reference), "%s", mkm.node);
	ret = mon_stage_clock_sync(&mkm.sync, mkm.node, reference);
	if (!ret)
		ret = mon_pipeline_add_stage(mkm.p, mkm.sync);
	if (!ret) {
		ret = mon_sink_trace_flags(
			&sink, mkm.path, &info,
			mkm.buffered_io ? 0 : TRACE_WRITE_DIRECT);
		if (ret) {
			slurm_error("mkm: node %s: %s: %s (is the directory "
				    "writable by the job's user?)",
				    mkm.node, mkm.path, strerror(-ret));
			goto err_destroy;
		}
		ret = mon_pipeline_add_sink(mkm.p, sink);
		mkm.sink = ret ? NULL : sink; /* else destroyed */
	}
	if (!ret)
		ret = start_clock(sp, reference);
	if (!ret && pthread_create(&mkm.runner, NULL, run, NULL))
		ret = -EAGAIN;
	if (ret)
		goto err_say;
	mkm.running = true;
	ret = monitor_resume(mkm.mon);
	if (ret)
		goto err_say;
	start_periodic();
	return ESPANK_SUCCESS;

err_say:
	slurm_error("mkm: node %s: cannot record: %s", mkm.node,
		    monitor_strerror(ret));
err_destroy:
	if (mkm.running) {
		mon_source_live_stop(mon_pipeline_source(mkm.p));
		pthread_join(mkm.runner, NULL);
		mkm.running = false;
	}
	mon_pipeline_destroy(mkm.p);
	mkm.p = NULL;
	mon_source_destroy(mkm.src);
err_terminate:
	monitor_terminate(mkm.mon);
	mkm.mon = NULL;
	return FAIL;
}

int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
	pid_t pid;
	int ret;

	(void)ac;
	(void)av;
	if (!mkm.mon)
		return ESPANK_SUCCESS;
	if (spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS)
		return FAIL;
	/* Before the task execs: monitored from its first instruction;
	 * its threads and children inherit the monitor. */
	ret = thread_monitor(mkm.mon, (uint32_t)pid, pid);
	if (ret) {
		slurm_error("mkm: node %s: task %d: %s", mkm.node, (int)pid,
			    monitor_strerror(ret));
		return FAIL;
	}
	return ESPANK_SUCCESS;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	uint64_t events = 0, lost = 0;
	int ret;

	(void)ac;
	(void)av;
	if (!mkm.mon || spank_remote(sp) != 1)
		return ESPANK_SUCCESS;
	stop_periodic();
	if (!mkm.sync_broken)
		exchange(TRACE_CLOCK_END);
	if (mkm.sync_fd >= 0) {
		mon_clock_end(mkm.sync_fd);
		close(mkm.sync_fd);
	}
	stop_serving();
	mon_source_live_counts(mon_pipeline_source(mkm.p), &events, &lost);
	ret = mon_source_live_stop(mon_pipeline_source(mkm.p));
	pthread_join(mkm.runner, NULL);
	if (!ret)
		ret = mkm.run_ret;
	if (ret)
		slurm_error("mkm: node %s: %s: %s", mkm.node, mkm.path,
			    mon_pipeline_error(mkm.p, NULL));
	else
		slurm_info("mkm: node %s: wrote %s (%" PRIu64
			   " events, %" PRIu64 " lost, %s)",
			   mkm.node, mkm.path, events, lost,
			   mon_sink_trace_direct(mkm.sink) ?
				   "with O_DIRECT" :
				   "through the page cache");
	mon_pipeline_destroy(mkm.p);
	mkm.sink = NULL;
	monitor_terminate(mkm.mon);
	mkm.mon = NULL;
	free(mkm.served);
	return ret ? FAIL : ESPANK_SUCCESS;
}
