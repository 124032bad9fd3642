/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * session.h - the recording session's internals (mon_session.h): the
 * object, and its clock exchanges on a node of a job (node.c).
 */
#ifndef MON_SESSION_INTERNAL_H
#define MON_SESSION_INTERNAL_H

#include <limits.h>
#include <pthread.h>

#include "internal.h"

struct session_node;
struct session_flight;

struct mon_session {
	struct mon_session_config cfg;
	char *device, *cal_file; /* cfg's, copied */
	struct monitor *mon;
	struct monitor_config applied; /* cfg.monitor as the module took it */

	bool calibrated; /* mon_session_calibrate() was called */
	int cal_ret; /* with this result */
	struct mon_calibration cal; /* hdr.nr_cpus 0: none */

	pid_t *tids; /* tracked before mon_session_prepare() */
	size_t nr_tids, cap_tids;
	struct trace_process *procs; /* their processes (PROCESSES) */
	size_t nr_procs, cap_procs;

	char path[PATH_MAX];
	struct mon_pipeline *p;
	struct mon_sink *sink; /* the file's, in p */
	struct trace_info info; /* its INFO */
	struct session_node *node; /* a node of a job step, or NULL */
	struct session_flight *flight; /* a flight recorder's, or NULL */

	pthread_t runner;
	pid_t runner_tid;
	int runner_prio_err; /* cfg.realtime refused: -errno */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int go; /* the runner: 0 waits, 1 runs, -1 leaves without running */
	bool runner_on; /* started, not joined */
	int run_err;

	bool prepared, broken, started, stopped;
	int stop_err;
	double user_ns, sys_ns; /* at the start, then while recording */
	uint32_t deferrals_start, deferrals_end;
};

/* Says @fmt through the config's warn, one line. */
MON_HIDDEN void session_warn(const struct mon_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * node.c: a node of a job step's clock exchanges. session_node_open():
 * the reference listens and serves, another node connects (before the
 * calibration: its time is not the others' wait); _stage(): the clock-sync
 * stage, added to the pipeline; _begin(): the start exchange; _periodic():
 * the periodic exchanges' thread; _end(): the periodic ones stopped, the
 * end exchange, the connections closed; _free().
 */
MON_HIDDEN int session_node_open(struct mon_session *s,
				 const struct mon_session_node *n);
MON_HIDDEN int session_node_stage(struct mon_session *s);
MON_HIDDEN int session_node_begin(struct mon_session *s);
MON_HIDDEN void session_node_periodic(struct mon_session *s);
MON_HIDDEN void session_node_end(struct mon_session *s);
MON_HIDDEN void session_node_free(struct mon_session *s);
/* The node's fields of INFO. */
MON_HIDDEN void session_node_info(const struct mon_session *s,
				  struct trace_info *info);
/* A flight recorder's snapshot: an exchange now, then the exchanges
 * from the last at or before @since_ns (the window's start) into @w. */
MON_HIDDEN int session_node_snapshot(struct mon_session *s,
				     struct trace_writer *w, uint64_t since_ns);

/*
 * flight.c: a flight recorder (MON_SESSION_MODE_FLIGHT), in place of the
 * pipeline. _open(): its state; _run(): the session's thread, until
 * _stop() tells it; _end(): the monitor suspended, the snapshot at the end
 * if asked; _records(): records written over all snapshots; _free().
 */
MON_HIDDEN int session_flight_open(struct mon_session *s);
MON_HIDDEN int session_flight_run(struct mon_session *s);
MON_HIDDEN void session_flight_stop(struct mon_session *s);
MON_HIDDEN void session_flight_end(struct mon_session *s);
MON_HIDDEN uint64_t session_flight_records(const struct mon_session *s);
MON_HIDDEN void session_flight_free(struct mon_session *s);

#endif /* MON_SESSION_INTERNAL_H */
