// SPDX-License-Identifier: GPL-2.0
/*
 * spank_mkm.c - mkm.so, a Slurm SPANK plugin: srun --mkm[=EVENTS] records
 * the step's tasks on every node of the step, from their first
 * instruction (threads and children too), into one trace per node
 * (--mkm-output, a template: %j job, %s step, %N node, %n node index), each
 * with its clock's exchanges with node 0's (docs/cluster.md). mkm merge
 * then makes one trace of them.
 *
 * Thin, as pyxis is: options in, libmonitor's recording session
 * (mon_session.h: the monitor, the calibration, the trace writer and its
 * thread, the clock exchanges) out, errors in Slurm's own way
 * (slurm_error, a failed step: never a node silently lost). In
 * slurmstepd (remote context):
 *   init_post_opt   the session and its monitor, opened as root
 *                   (slurmstepd's own credentials): a monitor created
 *                   with CAP_PERFMON may track the tasks after they
 *                   become the job's user; one the user opened in
 *                   user_init (real uid root, effective the user's) may
 *                   track neither the task slurmstepd forked (still root)
 *                   nor, once it setuid()s, the user's. A calibration
 *                   file is read here
 *   user_init       a missing module fails the step, loudly (the job's
 *                   stderr is connected by then); the trace and the
 *                   clock exchange at the start (mon_session_prepare()),
 *                   the recording started
 *   task_post_fork  each task tracked, before it execs
 *   exit            the end exchange, the calibration measured (as root:
 *                   it monitors threads of its own, which slurmstepd's
 *                   change of effective uid made undumpable to the
 *                   job's user), the rest drained, the trace closed
 *
 * Each trace is written with O_DIRECT where its file system allows, as
 * mkm record's (a node-local disk; NFS and other shared file systems say
 * no alignment and are written through the page cache);
 * --mkm-buffered-io always goes through the page cache.
 *
 * Each trace carries a calibration, as mkm record's: a short one
 * measured on the node at the step's end (a second or so, once the tasks
 * have ended: measured at the start, it would make the nodes' tasks start
 * apart, each after its own), or with calibration=FILE the one FILE
 * holds (mkm calibrate -o FILE, run once on the node), or none with
 * no-calibrate (--mkm-no-calibrate): compensation then needs a
 * calibration file.
 *
 * The clock exchange: node 0 is the reference; it listens on TCP (port
 * --mkm-port, or 40000 + (job * 31 + step) % 20000) and answers every
 * other node of the step, which connects to the step's first host. With
 * --mkm-sync=SECONDS, every other node also exchanges every SECONDS
 * between the start and the end, from a thread of its own, on the same
 * connection (mkm merge aligns linearly between consecutive exchanges).
 *
 * --mkm-flight=SIZE makes each node's recording a flight recorder
 * (mon_session.h's MON_SESSION_MODE_FLIGHT, as mkm record --flight): the
 * rings keep the last SIZE of records, nothing is written while nothing
 * triggers, and each trigger of --mkm-trigger (runq>T, irq>T, exit) or
 * of the program (monitor_trigger(NULL, value): a mark into the monitor
 * that tracks the calling thread, the node's recorder's) writes that
 * node's snapshot, TRACE.1, TRACE.2, ..., with --mkm-post's post-roll.
 * Each snapshot carries the node's exchanges that span its window (one
 * more is taken at each snapshot), so any node's snapshots go through
 * mkm merge as traces do. Its calibration is measured before the start,
 * in init_post_opt: a snapshot is written while the step runs.
 *
 * plugstack.conf:  optional mkm.so [output=TEMPLATE] [port=N] [sync=S]
 *                  [buffered-io] [no-calibrate | calibration=FILE]
 *                  [flight=SIZE] [trigger=LIST] [post=T]
 * (flight=SIZE makes --mkm a flight recorder; it records nothing alone.)
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "libmonitor.h"
#include "mon_session.h"

SPANK_PLUGIN(mkm, 1);

#define DEFAULT_OUTPUT "mkm-%j/%N.mkm"
#define SYNC_TIMEOUT_MS 30000
/* --mkm-sync's shortest period: an exchange of 32 round trips takes
 * 10-30 ms between QEMU guests. */
#define SYNC_MIN_S 0.1
#define SYNC_MAX_S 86400 /* --mkm-sync's longest period */
#define FAIL (-ESPANK_ERROR)
/* An option's val when plugstack.conf gives it (srun's are 0). */
#define PLUGSTACK 1

static struct {
	bool enabled;
	uint32_t classes;
	char output[PATH_MAX];
	unsigned int port;
	uint64_t sync_ns; /* periodic exchanges' period (0: none) */
	bool buffered_io; /* no O_DIRECT */
	bool no_calibrate;
	char cal_file[PATH_MAX]; /* calibration=FILE ("": measured) */
	/* --mkm-flight=SIZE and its triggers: a flight recorder's rings
	 * (0: a recording of everything) */
	struct mon_session_config flight;
	uint64_t flight_bytes;
	/* In slurmstepd: */
	struct mon_session *s;
	bool tried; /* mon_session_create() called in init_post_opt, */
	int create_ret; /* with this result, reported in user_init, */
	int cal_ret; /* and the calibration's */
	uint32_t job, step, node_id, nr_nodes;
	char node[64], path[PATH_MAX];
} mkm = { .output = DEFAULT_OUTPUT };

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

static int opt_no_calibrate(int val, const char *arg, int remote)
{
	(void)val;
	(void)arg;
	(void)remote;
	mkm.no_calibrate = true;
	return ESPANK_SUCCESS;
}

static int opt_calibration(int val, const char *arg, int remote)
{
	(void)val;
	(void)remote;
	if (!arg || !*arg ||
	    snprintf(mkm.cal_file, sizeof(mkm.cal_file), "%s", arg) >=
		    (int)sizeof(mkm.cal_file)) {
		slurm_error("mkm: --mkm-calibration=%s: a calibration file "
			    "(mkm calibrate -o FILE writes one)",
			    arg ? arg : "");
		mkm.cal_file[0] = 0;
		return ESPANK_BAD_ARG;
	}
	return ESPANK_SUCCESS;
}

static int opt_flight(int val, const char *arg, int remote)
{
	int64_t bytes = mon_parse_size(arg);

	(void)val;
	(void)remote;
	if (bytes < (int64_t)MKM_RING_MIN_BYTES) {
		slurm_error("mkm: --mkm-flight=%s: the rings' size over all "
			    "CPUs, at least 4K (e.g. 64M)",
			    arg ? arg : "");
		return ESPANK_BAD_ARG;
	}
	/* srun's option records; plugstack.conf's only sets the size. */
	if (val != PLUGSTACK)
		mkm.enabled = true;
	mkm.flight_bytes = (uint64_t)bytes;
	return ESPANK_SUCCESS;
}

static int opt_trigger(int val, const char *arg, int remote)
{
	(void)val;
	(void)remote;
	if (!arg || mon_session_trigger_parse(&mkm.flight, arg)) {
		slurm_error("mkm: --mkm-trigger=%s: give %s, comma-separated",
			    arg ? arg : "", MON_TRIGGER_SPECS);
		return ESPANK_BAD_ARG;
	}
	return ESPANK_SUCCESS;
}

static int opt_post(int val, const char *arg, int remote)
{
	int64_t t = arg ? mon_parse_time(arg) : -1;

	(void)val;
	(void)remote;
	if (t < 0) {
		slurm_error("mkm: --mkm-post=%s: a time (%s)", arg ? arg : "",
			    MON_TIME_UNITS);
		return ESPANK_BAD_ARG;
	}
	mkm.flight.flight.post_ns = (uint64_t)t;
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
	{ "mkm-no-calibrate", NULL,
	  "Store no calibration in the traces (default: a short one, "
	  "measured on each node at the step's end)",
	  0, 0, opt_no_calibrate },
	{ "mkm-calibration", "file",
	  "Store this calibration (mkm calibrate -o FILE) in the traces "
	  "instead of measuring one",
	  1, 0, opt_calibration },
	{ "mkm-flight", "size",
	  "A flight recorder on every node: rings of this size keep the "
	  "last records, and each trigger writes a snapshot (TRACE.1, ...)",
	  1, 0, opt_flight },
	{ "mkm-trigger", "triggers",
	  "With --mkm-flight: runq>T, irq>T, exit (comma-separated)", 1, 0,
	  opt_trigger },
	{ "mkm-post", "time",
	  "With --mkm-flight: records kept after a trigger (e.g. 100ms)", 1, 0,
	  opt_post },
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
		else if (!strcmp(av[i], "no-calibrate"))
			ret = opt_no_calibrate(0, NULL, 0);
		else if (!strncmp(av[i], "calibration=", 12))
			ret = opt_calibration(0, av[i] + 12, 0);
		else if (!strncmp(av[i], "flight=", 7))
			ret = opt_flight(PLUGSTACK, av[i] + 7, 0);
		else if (!strncmp(av[i], "trigger=", 8))
			ret = opt_trigger(0, av[i] + 8, 0);
		else if (!strncmp(av[i], "post=", 5))
			ret = opt_post(0, av[i] + 5, 0);
		else
			slurm_error("mkm: plugstack.conf: unknown argument "
				    "'%s' (output=TEMPLATE, port=N, sync=S, "
				    "buffered-io, no-calibrate, "
				    "calibration=FILE, flight=SIZE, "
				    "trigger=LIST, post=T)",
				    av[i]);
		if (ret != ESPANK_SUCCESS)
			return FAIL;
	}
	return ESPANK_SUCCESS;
}

/* What the session's threads have to say (the clock exchanges', a
 * snapshot that could not be written), in the job's stderr. */
static void warn(void *arg, const char *line)
{
	(void)arg;
	slurm_error("mkm: node %s: %s", mkm.node, line);
}

/* A flight recorder's snapshot written: slurmd's log. */
static void note(void *arg, const char *line)
{
	(void)arg;
	slurm_info("mkm: node %s: %s", mkm.node, line);
}

/* The session, and its monitor; a calibration file (see the top). */
static int create_session(void)
{
	struct mon_session_config cfg = {
		.monitor = { .flags = MKM_CONFIG_INHERIT |
				      MKM_CONFIG_ONE_SWITCH,
			     /* --mkm: the module's default classes */
			     .classes = mkm.classes ? mkm.classes :
						      MKM_CLASS_DEFAULT },
		.flags = MON_SESSION_FOREIGN_CALLER |
			 MON_SESSION_CALIBRATE_AT_END |
			 (mkm.buffered_io ? MON_SESSION_BUFFERED_IO : 0),
		.calibration = mkm.no_calibrate ? MON_SESSION_CAL_NONE :
			       mkm.cal_file[0]	? MON_SESSION_CAL_FILE :
						  MON_SESSION_CAL_QUICK,
		.calibration_file = mkm.cal_file[0] ? mkm.cal_file : NULL,
		.warn = warn,
	};
	int ret;

	if (mkm.flight_bytes) {
		/* Each snapshot carries the calibration, so it is measured
		 * before the start, here as root (see the top). */
		cfg.monitor.trigger_runq_ns =
			mkm.flight.monitor.trigger_runq_ns;
		cfg.monitor.trigger_irq_ns = mkm.flight.monitor.trigger_irq_ns;
		cfg.flight = mkm.flight.flight;
		cfg.flags &= ~MON_SESSION_CALIBRATE_AT_END;
		cfg.note = note;
		if (cfg.monitor.trigger_irq_ns) /* what it is measured on */
			cfg.monitor.classes |= MKM_CLASS_IRQ;
		mon_session_flight_size(&cfg, mkm.flight_bytes);
	}
	ret = mon_session_create(&mkm.s, &cfg);
	if (!ret &&
	    (mkm.cal_file[0] || (mkm.flight_bytes && !mkm.no_calibrate)))
		mkm.cal_ret = mon_session_calibrate(mkm.s);
	return ret;
}

/* In slurmstepd as root, before any privilege is dropped (see the top). */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (mkm.enabled && spank_remote(sp) == 1 && !mkm.tried) {
		mkm.create_ret = create_session();
		mkm.tried = true;
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

/* Whether the trace can be compensated: a file that could not be read
 * in the job's stderr (at the start), a measurement in slurmd's log (at
 * the end). */
static void say_calibration(void)
{
	const struct mon_calibration *cal = mon_session_calibration(mkm.s);
	char why[256];

	if (mkm.no_calibrate)
		return;
	if (mkm.cal_ret && mkm.cal_file[0])
		slurm_error("mkm: node %s: --mkm-calibration %s: %s; "
			    "recording without one",
			    mkm.node, mkm.cal_file,
			    mkm.cal_ret == -ENOENT ?
				    "no calibration in this file (mkm "
				    "calibrate -o FILE writes one)" :
				    monitor_strerror(mkm.cal_ret));
	else if (mkm.cal_ret)
		slurm_info("mkm: node %s: calibration: %s: recording "
			   "without one (compensating will need mkm replay "
			   "--calibration FILE)",
			   mkm.node, monitor_strerror(mkm.cal_ret));
	else if (mon_calibration_judge(cal, why, sizeof(why)))
		slurm_info("mkm: node %s: calibration is not a cost (%s): "
			   "stored with its verdict",
			   mkm.node, why);
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	struct mon_session_node node = { .timeout_ms = SYNC_TIMEOUT_MS };
	struct mon_session_output out = { .node = &node };
	char reference[64];
	int ret;

	(void)ac;
	(void)av;
	if (!mkm.enabled || spank_remote(sp) != 1)
		return ESPANK_SUCCESS;
	if (!mkm.flight_bytes &&
	    (mkm.flight.monitor.trigger_runq_ns ||
	     mkm.flight.monitor.trigger_irq_ns || mkm.flight.flight.flags ||
	     mkm.flight.flight.post_ns)) {
		slurm_error("mkm: --mkm-trigger and --mkm-post go with "
			    "--mkm-flight=SIZE");
		goto err_destroy;
	}
	if (item_u32(sp, S_JOB_ID, &mkm.job) ||
	    item_u32(sp, S_JOB_STEPID, &mkm.step) ||
	    item_u32(sp, S_JOB_NODEID, &mkm.node_id) ||
	    item_u32(sp, S_JOB_NNODES, &mkm.nr_nodes)) {
		slurm_error("mkm: cannot read the step's ids from Slurm");
		goto err_destroy;
	}
	/* sbatch's batch step runs on the batch host alone, and slurmstepd
	 * gives it no node count (0 in 22.05): a step of one node, its own
	 * reference. */
	if (mkm.step == SLURM_BATCH_SCRIPT || !mkm.nr_nodes) {
		mkm.node_id = 0;
		mkm.nr_nodes = 1;
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
		goto err_destroy;
	}

	/* Made in init_post_opt; slurmstepd without it (an older
	 * plugstack, a test) makes it here, as the job's user. */
	ret = mkm.tried ? mkm.create_ret : create_session();
	if (ret && (ret == -ENOENT || ret == -EPROTO ||
		    access(MKM_DEVICE, R_OK | W_OK))) {
		slurm_error("mkm: node %s: %s: %s — load the module on this "
			    "node (sudo modprobe mkm), or run without --mkm",
			    mkm.node, MKM_DEVICE, monitor_strerror(ret));
		return FAIL;
	}
	if (ret) {
		slurm_error("mkm: node %s: configuring the monitor: %s",
			    mkm.node, monitor_strerror(ret));
		return FAIL;
	}
	if (mkm.cal_file[0])
		say_calibration();
	if (step_host(sp, 0, reference, sizeof(reference)))
		snprintf(reference, sizeof(reference), "%s", mkm.node);
	node.name = mkm.node;
	node.reference = reference;
	node.job_id = mkm.job;
	node.step_id = mkm.step;
	node.node_id = mkm.node_id;
	node.nr_nodes = mkm.nr_nodes;
	node.port = (uint16_t)mkm.port;
	node.sync_ns = mkm.sync_ns;
	out.path = mkm.path;
	slurm_debug("mkm: node %s: job %u step %u, node %u of %u (reference "
		    "%s), recording into %s",
		    mkm.node, mkm.job, mkm.step, mkm.node_id, mkm.nr_nodes,
		    reference, mkm.path);
	ret = mon_session_prepare(mkm.s, &out);
	if (ret == -EACCES || ret == -ENOENT || ret == -EROFS ||
	    ret == -EISDIR || ret == -ENOSPC) {
		slurm_error("mkm: node %s: %s: %s (is the directory "
			    "writable by the job's user?)",
			    mkm.node, mkm.path, strerror(-ret));
		goto err_destroy;
	}
	if (!ret)
		ret = mon_session_start(mkm.s, NULL);
	if (ret) {
		slurm_error("mkm: node %s: cannot record: %s", mkm.node,
			    monitor_strerror(ret));
		goto err_destroy;
	}
	return ESPANK_SUCCESS;

err_destroy:
	mon_session_destroy(mkm.s);
	mkm.s = NULL;
	return FAIL;
}

int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
	pid_t pid;
	int ret;

	(void)ac;
	(void)av;
	if (!mkm.s)
		return ESPANK_SUCCESS;
	if (spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS)
		return FAIL;
	/* Before the task execs: monitored from its first instruction;
	 * its threads and children inherit the monitor. */
	ret = mon_session_track(mkm.s, pid);
	if (ret) {
		slurm_error("mkm: node %s: task %d: %s", mkm.node, (int)pid,
			    monitor_strerror(ret));
		return FAIL;
	}
	return ESPANK_SUCCESS;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	struct mon_session_stats st = { 0 };
	struct mon_session_flight_counts fc;
	uint64_t events = 0, lost = 0;
	int ret;

	(void)ac;
	(void)av;
	if (!mkm.s || spank_remote(sp) != 1)
		return ESPANK_SUCCESS;
	/* The end exchange, the other nodes waited for (node 0), the
	 * calibration, the rest drained, the file closed. */
	ret = mon_session_stop(mkm.s);
	if (!mkm.cal_file[0]) {
		mkm.cal_ret = mon_session_calibrate(mkm.s); /* stop's result */
		say_calibration();
	}
	mon_session_counts(mkm.s, &events, &lost);
	mon_session_stats(mkm.s, &st);
	if (ret)
		slurm_error("mkm: node %s: %s: %s", mkm.node, mkm.path,
			    mon_session_error(mkm.s));
	else if (!mon_session_flight_counts(mkm.s, &fc))
		slurm_info("mkm: node %s: %u snapshot(s) of %s written "
			   "(%u held off, %u past the limit, %u failed)",
			   mkm.node, fc.written, mkm.path, fc.held_off,
			   fc.over_max, fc.failed);
	else
		slurm_info("mkm: node %s: wrote %s (%" PRIu64
			   " events, %" PRIu64 " lost, %s)",
			   mkm.node, mkm.path, events, lost,
			   st.direct ? "with O_DIRECT" :
				       "through the page cache");
	mon_session_destroy(mkm.s);
	mkm.s = NULL;
	return ret ? FAIL : ESPANK_SUCCESS;
}
