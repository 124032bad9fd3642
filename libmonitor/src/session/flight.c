// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * flight.c - a flight recorder's session (MON_SESSION_MODE_FLIGHT): the
 * session's thread sleeps in poll() on the monitor, which wakes it at a
 * trigger only (the rings overwrite: MKM_CONFIG_FLIGHT), and writes each
 * trigger's snapshot as a trace of its own.
 *
 * A snapshot is every CPU's window read at once (the module gives what
 * each ring kept since the last read, without a hole), then the
 * post-roll, read every FLIGHT_POST_READ_NS until its end so that the
 * rings never come round meanwhile. Each CPU's first LOST record, of what
 * was overwritten before the window, is left out: the trace starts
 * there. One later in the window is kept: the post-roll was overtaken,
 * and the records are missing there as any lost ones are.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "session/session.h"

#define FLIGHT_POST_READ_NS 10000000ull
/* The records read at once: the buffer grows by as much. */
#define FLIGHT_READ_RECORDS 65536u

struct session_flight {
	int stop_fd; /* eventfd: the session stops */
	struct mkm_event *buf; /* the snapshot's records, as read */
	size_t n, cap;
	unsigned int index; /* the last snapshot's number (its file's) */
	uint64_t last_trigger_ns; /* the last written snapshot's trigger */
	struct mon_session_flight_counts counts; /* under the session's lock */
	uint64_t records; /* written, over all snapshots */
};

static uint64_t now_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void flight_note(const struct mon_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void flight_note(const struct mon_session *s, const char *fmt, ...)
{
	void (*note)(void *, const char *) = s->cfg.note ? s->cfg.note :
							   s->cfg.warn;
	char line[768];
	va_list ap;

	if (!note)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	note(s->cfg.warn_arg, line);
}

int session_flight_open(struct mon_session *s)
{
	struct session_flight *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (f->stop_fd < 0) {
		free(f);
		return -errno;
	}
	s->flight = f;
	return 0;
}

void session_flight_free(struct mon_session *s)
{
	struct session_flight *f = s->flight;

	if (!f)
		return;
	close(f->stop_fd);
	free(f->buf);
	free(f);
	s->flight = NULL;
}

/* Everything the rings hold now, appended to the buffer. */
static int read_all(struct mon_session *s, struct session_flight *f)
{
	for (;;) {
		size_t n = 0;
		int ret;

		if (f->cap - f->n < FLIGHT_READ_RECORDS) {
			size_t cap = f->cap + 4 * FLIGHT_READ_RECORDS;
			struct mkm_event *b = realloc(f->buf, cap * sizeof(*b));

			if (!b)
				return -ENOMEM;
			f->buf = b;
			f->cap = cap;
		}
		ret = monitor_read(s->mon, f->buf + f->n, f->cap - f->n, &n);
		if (ret)
			return ret;
		if (!n)
			return 0;
		f->n += n;
	}
}

/* The first TRIGGER in the buffer, or NULL. */
static const struct mkm_event *first_trigger(const struct session_flight *f,
					     uint64_t *count)
{
	const struct mkm_event *t = NULL;

	*count = 0;
	for (size_t i = 0; i < f->n; i++)
		if (f->buf[i].type == MKM_EV_TRIGGER) {
			if (!t)
				t = &f->buf[i];
			++*count;
		}
	return t;
}

/* A trigger's record, as a line: "runq 5.31 ms > 1 ms, tid 123". */
static void describe(const struct mkm_event *t, char *buf, size_t len)
{
	double unit;
	unsigned int kind;

	if (!t) {
		snprintf(buf, len, "the recording's end");
		return;
	}
	unit = t->flags & MKM_EVF_WAIT_US ? 1e3 : 1.0;
	kind = t->flags & MKM_EVF_TRIGGER_MASK;
	if (kind == MKM_TRIGGER_MARK)
		snprintf(buf, len, "a mark (value %llu) by tid %u",
			 (unsigned long long)((uint64_t)t->arg1 << 32 |
					      t->arg0),
			 t->tid);
	else
		snprintf(buf, len, "%s %.3f ms over %.3f ms, tid %u%s",
			 kind == MKM_TRIGGER_RUNQ ? "a run-queue wait of" :
						    "an interrupt of",
			 t->arg0 * unit / 1e6, t->arg1 * unit / 1e6, t->tid,
			 t->flags & MKM_EVF_WAITING ? " waiting through it" :
						      "");
}

/*
 * The names of the threads the records name, as /proc has them: looked up
 * right after the last read of the rings, before a thread that ran in the
 * window can exit and be reaped. One that exited earlier is named by its
 * in-band NAME records: the kernel repeats them just before a flight
 * recorder's EXIT, so a window that kept the exit keeps the name.
 */
static int thread_names(const struct session_flight *f,
			struct trace_thread **out, size_t *nr_out)
{
	struct trace_thread *th = NULL;
	size_t nr = 0, cap = 0, named = 0;

	for (size_t i = 0; i < f->n; i++) {
		uint32_t tid = f->buf[i].tid;
		char path[64];
		size_t k;
		int fd;

		if (!tid)
			continue;
		for (k = 0; k < nr && th[k].tid != tid; k++)
			;
		if (k < nr)
			continue;
		if (nr == cap) {
			struct trace_thread *t;

			cap = cap ? 2 * cap : 64;
			t = realloc(th, cap * sizeof(*t));
			if (!t) {
				free(th);
				return -ENOMEM;
			}
			th = t;
		}
		memset(&th[nr], 0, sizeof(th[nr]));
		th[nr].tid = tid;
		th[nr].unique_id = f->buf[i].unique_id;
		snprintf(path, sizeof(path), "/proc/%u/comm", tid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ssize_t got =
				read(fd, th[nr].name, sizeof(th[nr].name));

			if (got > 0 && th[nr].name[got - 1] == '\n')
				th[nr].name[got - 1] = 0;
			close(fd);
		}
		nr++; /* unnamed too: one lookup a tid, not one a record */
	}
	/* Only the names found: an empty one would hide a NAME record's. */
	for (size_t i = 0; i < nr; i++)
		if (th[i].name[0])
			th[named++] = th[i];
	*out = th;
	*nr_out = named;
	return 0;
}

/*
 * The snapshot's file: INFO (its start the window's), the calibration,
 * the processes, the records but each CPU's leading OVERWRITTEN, the
 * names, the monitor's counts.
 */
static int write_snapshot(struct mon_session *s, struct session_flight *f,
			  const char *path, const bool *keep, uint64_t start_ns,
			  const struct trace_thread *th, size_t nr_th)
{
	struct trace_info info = s->info;
	unsigned int nr_cpus = info.nr_cpus;
	struct mkm_cpu_stats *st;
	struct trace_writer *w;
	int ret, err;

	info.start_real_ns += start_ns - info.start_mono_ns;
	info.start_mono_ns = start_ns;
	ret = trace_writer_open_flags(&w, path, &info,
				      s->cfg.flags & MON_SESSION_BUFFERED_IO ?
					      0 :
					      TRACE_WRITE_DIRECT);
	if (ret)
		return ret;
	if (s->cal.hdr.nr_cpus)
		ret = trace_writer_calibration(w, &s->cal.hdr, s->cal.cpu,
					       s->cal.hdr.nr_cpus);
	if (!ret && s->nr_procs)
		ret = trace_writer_processes(w, s->procs, s->nr_procs);
	for (size_t i = 0, run; !ret && i < f->n; i += run) {
		for (run = 0; i + run < f->n && keep[i + run]; run++)
			;
		if (run)
			ret = trace_writer_events(w, f->buf + i, run);
		else
			run = 1;
	}
	if (!ret && nr_th)
		ret = trace_writer_threads(w, th, nr_th);
	/* Last, so the window's exchange adds nothing before the records. */
	if (!ret && s->node)
		ret = session_node_snapshot(s, w, start_ns);
	st = calloc(nr_cpus ? nr_cpus : 1, sizeof(*st));
	if (!ret && st && !monitor_statistics(s->mon, st, &nr_cpus))
		ret = trace_writer_stats(w, st, nr_cpus);
	free(st);
	err = trace_writer_close(w);
	return ret ? ret : err;
}

/*
 * One snapshot: read, judge the rate limits, read the post-roll, write.
 * @at_end: the session's end (the monitor suspended): no trigger needed,
 * no limit, no post-roll.
 */
static void snapshot(struct mon_session *s, struct session_flight *f,
		     bool at_end)
{
	const struct mon_session_flight *c = &s->cfg.flight;
	uint64_t triggers, trig_ns, first_ns = 0, last_ns = 0, kept = 0;
	uint64_t start_ns = UINT64_MAX; /* the earliest record kept */
	/* Where the time to a complete file goes: the wake-up, the read of
	 * the rings, the write. */
	uint64_t woke_ns = now_mono_ns(), read_ns, write_ns, done_ns;
	const struct mkm_event *t;
	unsigned int nr_cpus = s->info.nr_cpus ? s->info.nr_cpus : 1;
	struct trace_thread *th = NULL;
	size_t nr_th = 0;
	bool *keep, *seen;
	char path[PATH_MAX + 16], part[PATH_MAX + 24], what[160];
	int ret;

	f->n = 0;
	ret = read_all(s, f);
	read_ns = now_mono_ns() - woke_ns;
	t = first_trigger(f, &triggers);
	if (ret) {
		session_warn(s, "flight recorder: cannot read the rings: %s",
			     strerror(-ret));
		return;
	}
	if (!t && !at_end)
		return; /* woken, but the trigger was read with another */
	pthread_mutex_lock(&s->lock);
	f->counts.triggers += triggers;
	pthread_mutex_unlock(&s->lock);
	trig_ns = t ? t->time_ns : f->n ? f->buf[f->n - 1].time_ns : 0;
	describe(at_end ? NULL : t, what, sizeof(what));
	if (!at_end) {
		bool over = c->max_snapshots &&
			    f->counts.written >= c->max_snapshots;
		bool held = f->counts.written && c->hold_off_ns &&
			    trig_ns - f->last_trigger_ns < c->hold_off_ns;

		if (over || held) {
			pthread_mutex_lock(&s->lock);
			if (over)
				f->counts.over_max++;
			else
				f->counts.held_off++;
			pthread_mutex_unlock(&s->lock);
			return;
		}
		size_t before = f->n;

		/* The post-roll: read as it comes, so the rings keep up. */
		while (c->post_ns && now_mono_ns() < trig_ns + c->post_ns &&
		       !ret) {
			uint64_t left = trig_ns + c->post_ns - now_mono_ns();
			struct timespec nap = { 0, 0 };

			left = left < FLIGHT_POST_READ_NS ? left :
							    FLIGHT_POST_READ_NS;
			nap.tv_nsec = (long)left;
			nanosleep(&nap, NULL);
			ret = read_all(s, f);
		}
		/* Its triggers are the snapshot's (t may have moved). */
		triggers = 0;
		for (size_t i = before; i < f->n; i++)
			triggers += f->buf[i].type == MKM_EV_TRIGGER;
		pthread_mutex_lock(&s->lock);
		f->counts.triggers += triggers;
		pthread_mutex_unlock(&s->lock);
	}
	/* Nothing between the last read and the names but this. */
	ret = thread_names(f, &th, &nr_th);
	keep = calloc(f->n + 1, sizeof(*keep));
	seen = calloc(nr_cpus, sizeof(*seen));
	if (ret || !keep || !seen) {
		free(th);
		free(keep);
		free(seen);
		session_warn(s,
			     "flight recorder: out of memory for a snapshot");
		return;
	}
	for (size_t i = 0; i < f->n; i++) {
		const struct mkm_event *e = &f->buf[i];
		unsigned int cpu = e->cpu < nr_cpus ? e->cpu : 0;

		keep[i] = seen[cpu] || e->type != MKM_EV_LOST ||
			  !(e->flags & MKM_EVF_OVERWRITTEN);
		if (!keep[i])
			continue;
		/* The window is whole from the latest CPU's first record. */
		if (!seen[cpu] && e->time_ns > first_ns)
			first_ns = e->time_ns;
		if (e->time_ns < start_ns)
			start_ns = e->time_ns;
		if (e->time_ns > last_ns)
			last_ns = e->time_ns;
		seen[cpu] = true;
		kept++;
	}
	free(seen);
	snprintf(path, sizeof(path), "%s.%u", s->path, ++f->index);
	/*
	 * Written under another name, renamed once complete: whoever
	 * watches for FILE.N sees whole traces only.
	 */
	snprintf(part, sizeof(part), "%s.part", path);
	/* The trace starts at its first record, on whichever CPU. */
	write_ns = now_mono_ns();
	ret = write_snapshot(s, f, part, keep,
			     start_ns == UINT64_MAX ? first_ns : start_ns, th,
			     nr_th);
	free(th);
	if (!ret && rename(part, path))
		ret = -errno;
	/* From the trigger to the file complete, the post-roll aside. */
	done_ns = now_mono_ns();
	write_ns = done_ns - write_ns;
	done_ns -= trig_ns + (at_end ? 0 : c->post_ns);
	free(keep);
	pthread_mutex_lock(&s->lock);
	if (ret) {
		f->counts.failed++;
	} else {
		f->counts.written++;
		f->counts.last = f->index;
		f->records += kept;
		f->last_trigger_ns = trig_ns;
	}
	pthread_mutex_unlock(&s->lock);
	if (ret) {
		/* Its part written is no trace: the earlier ones stay. */
		unlink(part);
		session_warn(
			s,
			"flight recorder: cannot write %s: %s (trigger: %s); recording goes on",
			path, strerror(-ret), what);
		return;
	}
	flight_note(
		s,
		"wrote %s: %llu records, %.1f ms before the trigger and %.1f ms after, complete %.1f ms after it%s (woken after %.1f ms, read in %.1f, written in %.1f); trigger: %s",
		path, (unsigned long long)kept,
		trig_ns > first_ns ? (trig_ns - first_ns) / 1e6 : 0.0,
		last_ns > trig_ns ? (last_ns - trig_ns) / 1e6 : 0.0,
		done_ns / 1e6,
		c->post_ns && !at_end ? " and its post-roll" : "",
		woke_ns > trig_ns ? (woke_ns - trig_ns) / 1e6 : 0.0,
		read_ns / 1e6, write_ns / 1e6, what);
	if (!at_end && c->pre_ns && trig_ns - first_ns < c->pre_ns)
		flight_note(
			s,
			"%s: the rings kept %.1f ms before the trigger, not the %.1f ms asked: larger rings keep more",
			path, (trig_ns - first_ns) / 1e6, c->pre_ns / 1e6);
}

/* The session's thread: asleep in poll() until a trigger or the stop. */
int session_flight_run(struct mon_session *s)
{
	struct session_flight *f = s->flight;

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = monitor_fd(s->mon), .events = POLLIN },
			{ .fd = f->stop_fd, .events = POLLIN },
		};

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (p[1].revents)
			return 0;
		if (p[0].revents & POLLIN)
			snapshot(s, f, false);
		else if (p[0].revents)
			/* Suspended behind our back: wait for the stop. */
			poll(&p[1], 1, -1);
	}
}

void session_flight_stop(struct mon_session *s)
{
	uint64_t one = 1;

	if (write(s->flight->stop_fd, &one, sizeof(one)) != sizeof(one))
		session_warn(s, "flight recorder: cannot stop its thread");
}

void session_flight_end(struct mon_session *s)
{
	monitor_suspend(s->mon);
	if (s->cfg.flight.flags & MON_FLIGHT_AT_END)
		snapshot(s, s->flight, true);
}

int mon_session_snapshot(struct mon_session *s, uint64_t value)
{
	if (!s || !s->flight || !s->started || s->stopped)
		return -EINVAL;
	return monitor_trigger(s->mon, value);
}

int mon_session_flight_counts(const struct mon_session *s,
			      struct mon_session_flight_counts *c)
{
	struct mon_session *m = (struct mon_session *)s;

	if (!s || !c || !s->flight)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	*c = s->flight->counts;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

uint64_t session_flight_records(const struct mon_session *s)
{
	return s->flight ? s->flight->records : 0;
}

int mon_session_flight_size(struct mon_session_config *cfg, uint64_t bytes)
{
	int cpus = get_nprocs_conf();

	if (!cfg || bytes < MKM_RING_MIN_BYTES || cfg->monitor.ring_bytes)
		return -EINVAL;
	cfg->mode = MON_SESSION_MODE_FLIGHT;
	cfg->monitor.ring_bytes = bytes / (uint64_t)(cpus > 0 ? cpus : 1);
	if (cfg->monitor.ring_bytes < MKM_RING_MIN_BYTES)
		cfg->monitor.ring_bytes = MKM_RING_MIN_BYTES;
	return 0;
}

/* One trigger of a list, @n bytes at @spec, into the copy @c. */
static int trigger_parse_one(struct mon_session_config *c, const char *spec,
			     size_t n)
{
	char item[64];
	size_t op;
	int64_t t;

	if (!n || n >= sizeof(item))
		return -EINVAL;
	memcpy(item, spec, n);
	item[n] = 0;
	if (!strcmp(item, "exit")) {
		c->flight.flags |= MON_FLIGHT_AT_END;
		return 0;
	}
	op = strcspn(item, ">=");
	if (!item[op])
		return -EINVAL;
	t = mon_parse_time(item + op + 1);
	if (t <= 0)
		return -EINVAL;
	if (op == 4 && !strncmp(item, "runq", op))
		c->monitor.trigger_runq_ns = (uint64_t)t;
	else if (op == 3 && !strncmp(item, "irq", op))
		c->monitor.trigger_irq_ns = (uint64_t)t;
	else
		return -EINVAL;
	return 0;
}

int mon_session_trigger_parse(struct mon_session_config *cfg, const char *specs)
{
	struct mon_session_config c;

	if (!cfg || !specs)
		return -EINVAL;
	c = *cfg;
	for (const char *p = specs;; p++) {
		size_t n = strcspn(p, ",");
		int ret = trigger_parse_one(&c, p, n);

		if (ret)
			return ret;
		p += n;
		if (!*p)
			break;
	}
	*cfg = c;
	return 0;
}
