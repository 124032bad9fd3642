// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * source_live.c - the live source: a monitor's records as it runs.
 *
 * A drain thread sleeps in poll() on the monitor (woken when a ring passes
 * its watermark, or every poll_ms to move the horizon on) and on an
 * eventfd that stop() writes. Each drain reads the monitor into batches,
 * then queues a HORIZON 1 ms before the drain began (records stamped that
 * close to it may still be in flight on another CPU). Batches go to the
 * consumer through a liburcu wait-free queue, with a second eventfd to
 * wake it (or its poll loop). The queue holds at most max_queued_bytes: a
 * drain waits for the consumer beyond that, and the kernel's rings then
 * absorb the burst, or drop and count, as MKM's did. stop() suspends the
 * monitor, drains it to its end (drops at the rings' tails come out as
 * LOST records only once suspended) and queues the monitor's STATS and the
 * end of the stream.
 */
#define _GNU_SOURCE
#define _LGPL_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <urcu/compiler.h>
#include <urcu/wfcqueue.h>

#include "pipeline/pipeline_internal.h"

/* Records stamped this close to a drain may still be in flight. */
#define HORIZON_MARGIN_NS 1000000ull

static const struct mon_source_ops live_ops;

enum item_type { ITEM_END = 0 }; /* else a MON_MSG_* type */

#define ITEM_ALIGN 4096

struct item {
	struct cds_wfcq_node node;
	uint32_t type;
	int err; /* ITEM_END: what ended the drain */
	uint64_t offset; /* records drained before it */
	uint64_t horizon_ns;
	size_t n; /* records, or stats entries */
	size_t bytes; /* what it counts in the queue */
	struct mkm_cpu_stats *stats;
	/* On a page: the trace writer's direct I/O writes a batch from
	 * here (TRACE_WRITE_DIRECT). */
	struct mkm_event ev[] __attribute__((aligned(ITEM_ALIGN)));
};

/* What an item's header holds before the records' alignment. */
#define ITEM_HDR_BYTES (offsetof(struct item, stats) + sizeof(void *))

struct live {
	struct monitor *mon;
	struct mon_live_config cfg;
	struct __cds_wfcq_head head;
	struct cds_wfcq_tail tail;
	int ready_fd; /* eventfd: an item was queued */
	int wake_fd; /* eventfd: stop() wakes the drain thread */
	pthread_t thread;
	bool threaded;
	sem_t started; /* the drain thread has set tid */
	pid_t tid;
	pthread_mutex_t drain_lock; /* one drain at a time */
	pthread_mutex_t queue_lock; /* queued, and the space condition */
	pthread_cond_t space;
	size_t queued;
	atomic_bool stopping;
	bool stopped; /* the end was queued (under drain_lock) */
	int stop_err;
	atomic_uint_fast64_t events, lost, drained;
	atomic_uint_fast64_t drains, reads, batches,
		signals; /* mon_live_stats */
	/* EVENTS items kept for the next batches (queue_lock), a stack
	 * through their nodes: batch_records records is 128 KiB, which
	 * glibc maps and unmaps at every malloc and free, or takes from
	 * the heap and calloc() clears, 32 bytes a record; a drain queues
	 * several before the consumer frees the first, so one spare was
	 * not enough: clearing new batches was a large share of the
	 * recorder's CPU per record. */
	struct item *spare;
	unsigned int nr_spare;
	struct item *cur; /* lent to the consumer by next() */
	bool ended;
	int end_err;
};

/* A new item; its records cleared only if @clear (read() fills a
 * batch's: clearing 128 KiB is 32 bytes of stores a record). */
static struct item *item_new(uint32_t type, size_t records, bool clear)
{
	size_t bytes = sizeof(struct item) + records * sizeof(struct mkm_event);
	struct item *it = aligned_alloc(
		ITEM_ALIGN, (bytes + ITEM_ALIGN - 1) / ITEM_ALIGN * ITEM_ALIGN);

	if (it) {
		memset(it, 0, ITEM_HDR_BYTES);
		if (clear)
			memset(it->ev, 0, records * sizeof(it->ev[0]));
		it->type = type;
		it->bytes = sizeof(*it) + records * sizeof(it->ev[0]);
	}
	return it;
}

/* Spare EVENTS items kept at most: 2 MiB with the default batch. */
#define MAX_SPARE 16
/*
 * Spares made, their pages touched, before the recording starts: the
 * first drains would otherwise fault each page of their batches in (a
 * kernel-cleared page every 128 records) while the workload runs; a
 * drain of the default poll at 100,000 records a second fills three.
 */
#define PREFILLED_SPARES 8

/* Frees @it, which was queued (@queued) or not; an EVENTS item is kept
 * as a spare unless there are MAX_SPARE. */
static void item_put(struct live *l, struct item *it, bool queued)
{
	if (!it)
		return;
	pthread_mutex_lock(&l->queue_lock);
	if (queued) {
		l->queued -= it->bytes;
		pthread_cond_signal(&l->space);
	}
	if (it->type == MON_MSG_EVENTS && l->nr_spare < MAX_SPARE) {
		it->node.next = (struct cds_wfcq_node *)l->spare;
		l->spare = it;
		l->nr_spare++;
		it = NULL;
	}
	pthread_mutex_unlock(&l->queue_lock);
	if (it)
		free(it->stats);
	free(it);
}

static void item_free(struct live *l, struct item *it)
{
	item_put(l, it, true);
}

/* An EVENTS item for a batch: a spare, or a new one. */
static struct item *events_item(struct live *l)
{
	struct item *it;

	pthread_mutex_lock(&l->queue_lock);
	it = l->spare;
	if (it) {
		l->spare = (struct item *)it->node.next;
		l->nr_spare--;
	}
	pthread_mutex_unlock(&l->queue_lock);
	if (!it)
		return item_new(MON_MSG_EVENTS, l->cfg.batch_records, false);
	memset(it, 0, ITEM_HDR_BYTES); /* not the records: read() fills them */
	it->type = MON_MSG_EVENTS;
	it->bytes = sizeof(*it) + l->cfg.batch_records * sizeof(it->ev[0]);
	return it;
}

static void queue(struct live *l, struct item *it)
{
	uint64_t one = 1;

	pthread_mutex_lock(&l->queue_lock);
	l->queued += it->bytes;
	pthread_mutex_unlock(&l->queue_lock);
	cds_wfcq_node_init(&it->node);
	cds_wfcq_enqueue(&l->head, &l->tail, &it->node);
	atomic_fetch_add(&l->signals, 1);
	if (write(l->ready_fd, &one, sizeof(one)) != sizeof(one))
		abort(); /* an eventfd write only fails on overflow */
}

/* Back-pressure: the drain thread waits while the consumer lags. */
static void wait_for_space(struct live *l)
{
	pthread_mutex_lock(&l->queue_lock);
	while (l->queued >= l->cfg.max_queued_bytes &&
	       !atomic_load(&l->stopping))
		pthread_cond_wait(&l->space, &l->queue_lock);
	pthread_mutex_unlock(&l->queue_lock);
}

/* Reads everything buffered into the queue, then the horizon. Called
 * with drain_lock held. */
static int drain(struct live *l, uint64_t horizon, bool may_wait)
{
	bool any = false;

	for (;;) {
		struct item *it;
		size_t i, nr_lost;
		uint64_t lost;
		bool any_lost;
		int ret;

		if (may_wait)
			wait_for_space(l);
		it = events_item(l);
		if (!it)
			return -ENOMEM;
		ret = mon_monitor_read(l->mon, it->ev, l->cfg.batch_records,
				       &it->n, &any_lost);
		atomic_fetch_add(&l->reads, 1);
		if (!ret && it->n && !any) {
			any = true;
			atomic_fetch_add(&l->drains, 1);
		}
		if (ret || !it->n) {
			item_put(l, it, false);
			if (ret || !horizon)
				return ret;
			it = item_new(MON_MSG_HORIZON, 0, true);
			if (!it)
				return -ENOMEM;
			it->horizon_ns = horizon;
			it->offset = atomic_load(&l->drained);
			queue(l, it);
			return 0;
		}
		/* Counted here, published once a batch: an atomic add per
		 * record was a locked instruction per record; and looked
		 * for only where the rings told drops. */
		lost = 0;
		nr_lost = 0;
		for (i = 0; any_lost && i < it->n; i++)
			if (unlikely(it->ev[i].type == MKM_EV_LOST)) {
				lost += it->ev[i].arg0;
				nr_lost++;
			}
		if (lost)
			atomic_fetch_add(&l->lost, lost);
		atomic_fetch_add(&l->events, it->n - nr_lost);
		it->offset = atomic_fetch_add(&l->drained, it->n);
		atomic_fetch_add(&l->batches, 1);
		queue(l, it);
	}
}

/* The end of the recording: suspend, drain to the end, STATS, END. */
static int end_recording(struct live *l, int err)
{
	unsigned int nr_cpus = 0;
	struct item *it;

	pthread_mutex_lock(&l->drain_lock);
	if (l->stopped) {
		pthread_mutex_unlock(&l->drain_lock);
		return l->stop_err;
	}
	if (!err)
		err = monitor_suspend(l->mon);
	if (!err)
		err = drain(l, now_ns(CLOCK_MONOTONIC), false);
	if (!err)
		err = monitor_statistics(l->mon, NULL, &nr_cpus);
	it = err ? NULL : item_new(MON_MSG_STATS, 0, true);
	if (it) {
		it->stats = calloc(nr_cpus ? nr_cpus : 1, sizeof(*it->stats));
		if (it->stats &&
		    !monitor_statistics(l->mon, it->stats, &nr_cpus)) {
			it->n = nr_cpus;
			it->offset = atomic_load(&l->drained);
			queue(l, it);
		} else {
			free(it->stats);
			free(it);
		}
	}
	it = item_new(ITEM_END, 0, true);
	if (!it)
		abort(); /* a few bytes; the end of the stream must get out */
	it->err = err;
	it->offset = atomic_load(&l->drained);
	queue(l, it);
	l->stopped = true;
	l->stop_err = err;
	pthread_mutex_unlock(&l->drain_lock);
	return err;
}

static void *drain_loop(struct live *l);

static void *drain_thread(void *arg)
{
	struct live *l = arg;

	l->tid = gettid();
	sem_post(&l->started);
	return drain_loop(l);
}

static void *drain_loop(struct live *l)
{
	struct pollfd pfd[2] = {
		{ .fd = l->wake_fd, .events = POLLIN },
		{ .fd = monitor_fd(l->mon), .events = POLLIN },
	};
	nfds_t nfds = 2;
	int ret = 0;

	while (!atomic_load(&l->stopping) && !ret) {
		uint64_t count;

		if (poll(pfd, nfds, l->cfg.poll_ms) < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		if (pfd[0].revents & POLLIN &&
		    read(l->wake_fd, &count, sizeof(count)) < 0)
			count = 0;
		/* A monitor that reports hang-up (suspended and drained)
		 * stays readable: wait on the timer alone next time. */
		nfds = nfds == 2 && pfd[1].revents & (POLLHUP | POLLERR) ? 1 :
									   2;
		if (atomic_load(&l->stopping))
			break;
		pthread_mutex_lock(&l->drain_lock);
		ret = drain(l, now_ns(CLOCK_MONOTONIC) - HORIZON_MARGIN_NS,
			    true);
		pthread_mutex_unlock(&l->drain_lock);
	}
	end_recording(l, ret);
	return NULL;
}

int mon_source_live_stop(struct mon_source *src)
{
	struct live *l = mon_source_priv(src, &live_ops);
	uint64_t one = 1;

	if (!l)
		return -EINVAL;
	atomic_store(&l->stopping, true);
	pthread_mutex_lock(&l->queue_lock);
	pthread_cond_broadcast(&l->space);
	pthread_mutex_unlock(&l->queue_lock);
	if (!l->threaded)
		return end_recording(l, 0);
	if (write(l->wake_fd, &one, sizeof(one)) != sizeof(one))
		abort();
	pthread_join(l->thread, NULL);
	l->threaded = false;
	return l->stop_err;
}

int mon_source_live_drain(struct mon_source *src)
{
	struct live *l = mon_source_priv(src, &live_ops);
	int ret = -EINVAL;

	if (!l)
		return -EINVAL;
	pthread_mutex_lock(&l->drain_lock);
	if (!l->stopped)
		ret = drain(l, now_ns(CLOCK_MONOTONIC) - HORIZON_MARGIN_NS,
			    false);
	pthread_mutex_unlock(&l->drain_lock);
	return ret;
}

int mon_source_live_fd(const struct mon_source *src)
{
	struct live *l = mon_source_priv(src, &live_ops);

	return l ? l->ready_fd : -EINVAL;
}

int mon_source_live_counts(const struct mon_source *src, uint64_t *events,
			   uint64_t *lost)
{
	struct live *l = mon_source_priv(src, &live_ops);

	if (!l)
		return -EINVAL;
	if (events)
		*events = atomic_load(&l->events);
	if (lost)
		*lost = atomic_load(&l->lost);
	return 0;
}

int mon_source_live_stats(const struct mon_source *src,
			  struct mon_live_stats *st)
{
	struct live *l = mon_source_priv(src, &live_ops);

	if (!l || !st)
		return -EINVAL;
	*st = (struct mon_live_stats){
		.events = atomic_load(&l->events),
		.drains = atomic_load(&l->drains),
		.reads = atomic_load(&l->reads),
		.batches = atomic_load(&l->batches),
		.signals = atomic_load(&l->signals),
	};
	return 0;
}

/* The next item, waiting for one unless non-blocking; NULL and *err
 * (-EAGAIN) if none. */
static struct item *take(struct live *l, int *err)
{
	for (;;) {
		struct cds_wfcq_node *node;
		struct pollfd pfd = { .fd = l->ready_fd, .events = POLLIN };
		uint64_t count;

		/* One consumer: the dequeue needs no lock. */
		node = __cds_wfcq_dequeue_blocking(&l->head, &l->tail);
		if (node)
			return caa_container_of(node, struct item, node);
		if (l->cfg.nonblock) {
			/* Clear the eventfd, then look once more: an item
			 * queued after this read makes it readable again. */
			if (read(l->ready_fd, &count, sizeof(count)) < 0)
				count = 0;
			node = __cds_wfcq_dequeue_blocking(&l->head, &l->tail);
			if (node)
				return caa_container_of(node, struct item,
							node);
			*err = -EAGAIN;
			return NULL;
		}
		if (poll(&pfd, 1, -1) > 0 &&
		    read(l->ready_fd, &count, sizeof(count)) < 0)
			count = 0;
	}
}

static int live_next(void *priv, struct mon_msg *msg)
{
	struct live *l = priv;
	struct item *it;
	int err = 0;

	item_free(l, l->cur);
	l->cur = NULL;
	if (l->ended)
		return l->end_err;
	it = take(l, &err);
	if (!it)
		return err;
	if (it->type == ITEM_END) {
		l->ended = true;
		l->end_err = it->err;
		item_free(l, it);
		return l->end_err;
	}
	l->cur = it;
	msg->type = it->type;
	msg->offset = it->offset;
	msg->events = it->ev;
	msg->nr_events = it->type == MON_MSG_EVENTS ? it->n : 0;
	msg->horizon_ns = it->horizon_ns;
	msg->stats = it->stats;
	msg->nr_stats = it->stats ? it->n : 0;
	return 1;
}

static void live_destroy(void *priv)
{
	struct live *l = priv;
	struct cds_wfcq_node *node;

	if (l->threaded) {
		uint64_t one = 1;

		atomic_store(&l->stopping, true);
		pthread_mutex_lock(&l->queue_lock);
		pthread_cond_broadcast(&l->space);
		pthread_mutex_unlock(&l->queue_lock);
		if (write(l->wake_fd, &one, sizeof(one)) < 0)
			abort();
		pthread_join(l->thread, NULL);
	}
	item_free(l, l->cur);
	while ((node = __cds_wfcq_dequeue_blocking(&l->head, &l->tail)))
		item_free(l, caa_container_of(node, struct item, node));
	while (l->spare) {
		struct item *it = l->spare;

		l->spare = (struct item *)it->node.next;
		free(it);
	}
	close(l->ready_fd);
	close(l->wake_fd);
	pthread_mutex_destroy(&l->drain_lock);
	pthread_mutex_destroy(&l->queue_lock);
	pthread_cond_destroy(&l->space);
	sem_destroy(&l->started);
	free(l);
}

static const struct mon_source_ops live_ops = {
	.name = "live",
	.next = live_next,
	.destroy = live_destroy,
};

/* A live monitor's INFO, as its trace starts (the flight recorder's too). */
int mon_live_info(struct monitor *mon, struct trace_info *info)
{
	struct monitor_config cfg;
	unsigned int nr_cpus = 0;
	struct utsname u;
	int ret;

	memset(info, 0, sizeof(*info));
	ret = monitor_statistics(mon, NULL, &nr_cpus);
	if (ret)
		return ret;
	mon_monitor_config(mon, &cfg);
	info->nr_cpus = nr_cpus;
	info->classes = cfg.classes;
	info->flags = cfg.flags;
	info->ring_bytes = cfg.ring_bytes;
	info->start_mono_ns = now_ns(CLOCK_MONOTONIC);
	info->start_real_ns = now_ns(CLOCK_REALTIME);
	if (!uname(&u)) {
		snprintf(info->hostname, sizeof(info->hostname), "%s",
			 u.nodename);
		snprintf(info->kernel, sizeof(info->kernel), "%s", u.release);
		snprintf(info->machine, sizeof(info->machine), "%s", u.machine);
	}
	info->clock_res_ps = mon_clock_resolution_ps();
	return 0;
}

int mon_source_live(struct mon_source **srcp, struct monitor *mon,
		    const struct mon_live_config *cfg)
{
	struct trace_info info;
	unsigned int i;
	struct live *l;
	int ret;

	if (!srcp || !mon)
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->mon = mon;
	if (cfg)
		l->cfg = *cfg;
	if (!l->cfg.batch_records)
		l->cfg.batch_records = 4096;
	if (!l->cfg.max_queued_bytes)
		l->cfg.max_queued_bytes = 64u << 20;
	if (!l->cfg.poll_ms)
		l->cfg.poll_ms = 100;
	__cds_wfcq_init(&l->head, &l->tail);
	pthread_mutex_init(&l->drain_lock, NULL);
	pthread_mutex_init(&l->queue_lock, NULL);
	pthread_cond_init(&l->space, NULL);
	sem_init(&l->started, 0, 0);
	l->ready_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	l->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ret = l->ready_fd < 0 || l->wake_fd < 0 ? -errno :
						  mon_live_info(l->mon, &info);
	for (i = 0; !ret && i < PREFILLED_SPARES; i++) {
		struct item *it =
			item_new(MON_MSG_EVENTS, l->cfg.batch_records, true);

		if (!it)
			ret = -ENOMEM;
		item_put(l, it, false);
	}
	if (!ret && !l->cfg.no_thread) {
		ret = -pthread_create(&l->thread, NULL, drain_thread, l);
		l->threaded = !ret;
		/* Its CPU time is the monitor's: INFO names it. */
		while (!ret && sem_wait(&l->started))
			;
		if (!ret)
			info.monitor_tids[info.nr_monitor_tids++] =
				(uint32_t)l->tid;
	}
	if (!ret)
		ret = mon_source_new(srcp, &live_ops, l, &info);
	if (ret)
		live_destroy(l);
	return ret;
}
