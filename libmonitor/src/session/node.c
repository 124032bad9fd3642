// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * node.c - a session's clock exchanges on a node of a job step
 * (mon_session.h, docs/cluster.md).
 *
 * Node 0 is the reference: it listens on TCP and answers every other
 * node from a thread per node, until that node closes after its end
 * exchange; its own samples are its clock read exactly. Every other node
 * connects to it and, with a period, exchanges again from a thread of its
 * own on the same connection (the lock serialises the exchanges on the
 * socket; the first failure ends them, and the end one: said once). Each
 * exchange goes into the clock-sync stage as it is taken; a flight
 * recorder, which has no pipeline, keeps them, takes one more at each
 * snapshot and writes those that span the snapshot's window into it, so
 * each snapshot aligns on its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "session/session.h"

#define NODE_TIMEOUT_MS 30000

struct session_node {
	char name[64], reference[64];
	uint32_t job, step, node_id, nr_nodes;
	uint16_t port;
	unsigned int timeout_ms;
	uint64_t sync_ns;
	struct mon_stage *sync; /* in the pipeline */
	int sync_fd, listen_fd;
	pthread_t server;
	pthread_t *served; /* the reference: a thread per other node */
	uint32_t nr_served;
	bool serving;
	pthread_t periodic;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool periodic_on, periodic_stop;
	bool broken; /* an exchange failed: sync_fd's protocol is lost */
	bool ended;
	/* A flight recorder's exchanges so far (no stage), under the lock
	 * once the session has started. */
	struct trace_clock_sample *kept;
	size_t nr_kept, cap_kept;
	struct mon_session *s;
};

static int copy_name(char *dst, const char *src)
{
	if (!src || !*src || strlen(src) > 63)
		return -EINVAL;
	memcpy(dst, src, strlen(src) + 1);
	return 0;
}

/* The reference: answer one other node's exchanges. What it needs is
 * its own: one still answering at the end is left to finish. */
struct served {
	int fd;
	void (*warn)(void *arg, const char *line);
	void *warn_arg;
};

static void *serve_one(void *arg)
{
	struct served *one = arg;
	long r = mon_clock_serve(one->fd, NULL, NULL);
	char line[256];

	if (r < 0 && one->warn) {
		snprintf(line, sizeof(line), "a clock exchange failed: %s",
			 monitor_strerror((int)r));
		one->warn(one->warn_arg, line);
	}
	close(one->fd);
	free(one);
	return NULL;
}

static void *serve(void *arg)
{
	struct session_node *n = arg;

	while (n->nr_served + 1 < n->nr_nodes) {
		int fd = accept(n->listen_fd, NULL, NULL);
		struct served *one;

		if (fd < 0)
			break; /* shut down at the end */
		one = malloc(sizeof(*one));
		if (!one) {
			close(fd);
			continue;
		}
		*one = (struct served){ .fd = fd,
					.warn = n->s->cfg.warn,
					.warn_arg = n->s->cfg.warn_arg };
		if (pthread_create(&n->served[n->nr_served], NULL, serve_one,
				   one)) {
			close(fd);
			free(one);
		} else {
			n->nr_served++;
		}
	}
	return NULL;
}

int session_node_open(struct mon_session *s, const struct mon_session_node *cfg)
{
	struct session_node *n;
	int ret;

	if (cfg->reserved16 || cfg->reserved[0] || cfg->reserved[1] ||
	    cfg->reserved[2] || cfg->reserved[3] || !cfg->nr_nodes ||
	    cfg->node_id >= cfg->nr_nodes)
		return -EINVAL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->s = s;
	n->sync_fd = n->listen_fd = -1;
	pthread_mutex_init(&n->lock, NULL);
	s->node = n;
	ret = copy_name(n->name, cfg->name);
	if (!ret)
		ret = copy_name(n->reference,
				cfg->reference ? cfg->reference : cfg->name);
	if (ret)
		return ret;
	n->job = cfg->job_id;
	n->step = cfg->step_id;
	n->node_id = cfg->node_id;
	n->nr_nodes = cfg->nr_nodes;
	n->timeout_ms = cfg->timeout_ms ? cfg->timeout_ms : NODE_TIMEOUT_MS;
	n->sync_ns = cfg->sync_ns;
	n->port = cfg->port ?
			  cfg->port :
			  (uint16_t)(40000 + (n->job * 31u + n->step) % 20000);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&n->wake, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (n->nr_nodes < 2)
		return 0;
	if (n->node_id == 0) {
		uint16_t port = n->port;

		ret = mon_clock_listen(&port);
		if (ret < 0)
			goto fail;
		n->listen_fd = ret;
		n->served = calloc(n->nr_nodes, sizeof(*n->served));
		if (!n->served || pthread_create(&n->server, NULL, serve, n)) {
			ret = -EAGAIN;
			goto fail;
		}
		n->serving = true;
		return 0;
	}
	ret = mon_clock_connect(n->reference, n->port, n->timeout_ms);
	if (ret < 0)
		goto fail;
	n->sync_fd = ret;
	return 0;
fail:
	n->broken = true;
	session_warn(s, "no clock exchange with node 0 (%s, port %u): %s",
		     n->reference, n->port, monitor_strerror(ret));
	return ret;
}

int session_node_stage(struct mon_session *s)
{
	struct session_node *n = s->node;
	int ret = mon_stage_clock_sync(&n->sync, n->name, n->reference);

	if (!ret)
		ret = mon_pipeline_add_stage(s->p, n->sync);
	if (ret)
		n->sync = NULL;
	return ret;
}

void session_node_info(const struct mon_session *s, struct trace_info *info)
{
	const struct session_node *n = s->node;

	snprintf(info->node, sizeof(info->node), "%s", n->name);
	info->job_id = n->job;
	info->step_id = n->step;
	info->node_id = n->node_id;
	info->nr_nodes = n->nr_nodes;
}

/* A flight recorder's exchange, kept for the snapshots. */
static int keep(struct session_node *n, const struct trace_clock_sample *smp)
{
	if (n->nr_kept == n->cap_kept) {
		size_t cap = n->cap_kept ? 2 * n->cap_kept : 16;
		struct trace_clock_sample *k =
			realloc(n->kept, cap * sizeof(*k));

		if (!k)
			return -ENOMEM;
		n->kept = k;
		n->cap_kept = cap;
	}
	n->kept[n->nr_kept++] = *smp;
	return 0;
}

static int exchange(struct session_node *n, uint32_t kind)
{
	struct trace_clock_sample smp = { .kind = kind };
	int ret = 0;

	if (n->node_id == 0) { /* the reference: its own clock, exactly */
		smp.local_ns = now_ns(CLOCK_MONOTONIC);
		smp.taken_real_ns = now_ns(CLOCK_REALTIME);
		smp.rounds = 0;
		mon_clock_ntp_state(&smp);
	} else {
		ret = mon_clock_exchange(n->sync_fd, 0, kind, NULL, NULL, &smp);
	}
	if (!ret && n->sync)
		ret = mon_stage_clock_sync_add(n->sync, &smp);
	else if (!ret)
		ret = keep(n, &smp);
	if (ret && n->node_id)
		n->broken = true;
	if (ret && kind == TRACE_CLOCK_PERIODIC)
		session_warn(
			n->s,
			"a periodic clock exchange with node 0 failed: %s; the exchanges before it align %s, none after it",
			monitor_strerror(ret), n->s->path);
	else if (ret)
		session_warn(
			n->s,
			"the clock exchange with node 0 failed: %s; %s will not align",
			monitor_strerror(ret), n->s->path);
	return ret;
}

int session_node_begin(struct mon_session *s)
{
	return exchange(s->node, TRACE_CLOCK_START);
}

/*
 * An exchange every period until the end. Each period counts from the
 * end of the exchange before it, so one slower than the period does not
 * make them run back to back.
 */
static void *periodic(void *arg)
{
	struct session_node *n = arg;
	struct timespec at;

	pthread_mutex_lock(&n->lock);
	while (!n->periodic_stop) {
		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_sec += (time_t)(n->sync_ns / 1000000000u);
		at.tv_nsec += (long)(n->sync_ns % 1000000000u);
		if (at.tv_nsec >= 1000000000L) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000L;
		}
		while (!n->periodic_stop &&
		       pthread_cond_timedwait(&n->wake, &n->lock, &at) == 0)
			;
		if (n->periodic_stop || exchange(n, TRACE_CLOCK_PERIODIC))
			break;
	}
	pthread_mutex_unlock(&n->lock);
	return NULL;
}

void session_node_periodic(struct mon_session *s)
{
	struct session_node *n = s->node;

	if (!n->sync_ns || n->node_id == 0 || n->sync_fd < 0 || n->broken)
		return;
	n->periodic_stop = false;
	if (pthread_create(&n->periodic, NULL, periodic, n)) {
		session_warn(
			s,
			"no periodic clock exchanges (cannot start a thread); the start and end ones align %s",
			s->path);
		return;
	}
	n->periodic_on = true;
}

/* The reference at the end: the others' end exchanges, waited for, and
 * first the others that have not connected yet: a node whose slurmstepd
 * starts late (a loaded machine) connects after node 0's task may have
 * ended, and must still find it listening. */
static void stop_serving(struct session_node *n)
{
	struct timespec until;
	uint32_t i;

	if (!n->serving)
		return;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += n->timeout_ms / 1000;
	if (pthread_timedjoin_np(n->server, NULL, &until)) {
		shutdown(n->listen_fd, SHUT_RDWR); /* wakes accept() */
		pthread_join(n->server, NULL);
		session_warn(
			n->s,
			"%u of the step's %u nodes did not connect for the clock exchange in %u s; their traces cannot be aligned",
			n->nr_nodes - 1 - n->nr_served, n->nr_nodes,
			n->timeout_ms / 1000);
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += n->timeout_ms / 1000;
	for (i = 0; i < n->nr_served; i++)
		if (pthread_timedjoin_np(n->served[i], NULL, &until)) {
			session_warn(
				n->s,
				"node(s) still in a clock exchange after %u s; their end exchange is lost",
				n->timeout_ms / 1000);
			for (; i < n->nr_served; i++)
				pthread_detach(n->served[i]);
		}
	n->serving = false;
}

void session_node_end(struct mon_session *s)
{
	struct session_node *n = s->node;

	if (!n || n->ended)
		return;
	n->ended = true;
	if (n->periodic_on) {
		pthread_mutex_lock(&n->lock);
		n->periodic_stop = true;
		pthread_cond_signal(&n->wake);
		pthread_mutex_unlock(&n->lock);
		pthread_join(n->periodic, NULL);
		n->periodic_on = false;
	}
	/* Under the lock: a flight recorder's snapshot may be exchanging. */
	pthread_mutex_lock(&n->lock);
	if (s->started && !n->broken && (n->sync || s->flight))
		exchange(n, TRACE_CLOCK_END);
	if (n->node_id && n->sync_fd >= 0) {
		mon_clock_end(n->sync_fd);
		close(n->sync_fd);
		n->sync_fd = -1;
	}
	pthread_mutex_unlock(&n->lock);
	if (!s->started && n->serving) {
		/* Never recorded: no end exchange to wait for. */
		shutdown(n->listen_fd, SHUT_RDWR);
		pthread_join(n->server, NULL);
		for (uint32_t i = 0; i < n->nr_served; i++)
			pthread_detach(n->served[i]);
		n->serving = false;
	}
	stop_serving(n);
	if (n->listen_fd >= 0) {
		close(n->listen_fd);
		n->listen_fd = -1;
	}
}

int session_node_snapshot(struct mon_session *s, struct trace_writer *w,
			  uint64_t since_ns)
{
	struct session_node *n = s->node;
	struct trace_clock_sync_hdr hdr = { .clock = CLOCK_MONOTONIC };
	size_t first = 0;
	int ret = 0;

	pthread_mutex_lock(&n->lock);
	/* The window's end: after the end exchange, that one is it. */
	if (!n->ended && !n->broken && (n->node_id == 0 || n->sync_fd >= 0))
		exchange(n, TRACE_CLOCK_PERIODIC);
	/* From the last exchange at or before the window's start on. */
	for (size_t i = 0; i < n->nr_kept; i++)
		if (n->kept[i].local_ns <= since_ns)
			first = i;
	if (n->nr_kept > first) {
		snprintf(hdr.node, sizeof(hdr.node), "%s", n->name);
		snprintf(hdr.reference, sizeof(hdr.reference), "%s",
			 n->reference);
		ret = trace_writer_clock_sync(w, &hdr, n->kept + first,
					      n->nr_kept - first);
	}
	pthread_mutex_unlock(&n->lock);
	return ret;
}

void session_node_free(struct mon_session *s)
{
	struct session_node *n = s->node;

	if (!n)
		return;
	session_node_end(s);
	pthread_cond_destroy(&n->wake);
	pthread_mutex_destroy(&n->lock);
	free(n->served);
	free(n->kept);
	free(n);
	s->node = NULL;
}
