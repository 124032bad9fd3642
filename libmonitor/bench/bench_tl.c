// SPDX-License-Identifier: GPL-2.0
/*
 * bench_tl.c - timeline rebuild throughput (events/s on one core) and
 * memory per interval, on a generated stream: bench_tl [-1] [-w FILE]
 * [EVENTS [THREADS [CPUS]]]. With -1 a switch between two threads is one
 * MKM_EV_SWITCH record (ABI 2.4, MKM_CONFIG_ONE_SWITCH), else the
 * SWITCH_OUT and SWITCH_IN that mon_split_event() makes of it; -w writes
 * the stream, as batched, to a trace file (for babeltrace2 on its CTF
 * export: bench_lib.sh).
 *
 * The generator simulates a scheduler: CPUS CPUs, THREADS threads that
 * compute, take interrupts (some nested), make system calls, get
 * preempted, migrate, sleep and are woken from another CPU. Each CPU's
 * records go to its own array, as in its ring; the stream is then fed the
 * way a reader drains the rings: every 1 ms of trace time, each CPU's new
 * records as one tl_feed() call, so the builder really merges. The
 * generation and the cutting into batches are not timed; the rebuild is
 * run REPS times and the median and best are printed, with the goals (50M
 * events/s, 16 bytes/interval) as ratios. Since absolute times on a shared machine are noise, each
 * rebuild is paired with a reference pass over the same records (read each
 * one, as any consumer must) and the ratio of the two is printed too.
 * Each rebuild is then paired with the same batches sent through the
 * pipeline (a source of these slices -> the timeline sink): the pipeline's
 * own cost per record is the difference.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libmonitor.h"

#define REPS 5
#define WINDOW_NS 1000000ull

struct cpu_stream {
	struct mkm_event *ev;
	size_t n, cap;
	uint32_t seq;
	uint64_t now;
	int cur; /* thread running, -1 idle */
};

struct sim_thread {
	int cpu; /* last CPU */
	uint64_t wake; /* when sleeping */
	uint64_t ready; /* when it became runnable */
};

static struct cpu_stream *cpus;
static struct sim_thread *threads;
static int *runq;
static size_t runq_n;
static int *sleepq; /* binary heap on wake time */
static size_t sleepq_n;
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static bool one_switch; /* -1: MKM_EV_SWITCH records are kept */
static size_t nr_switch_records; /* each is two records once split */

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)((rng >> 32) % n);
}

static void emit(int c, unsigned int type, int th, uint32_t a0, uint32_t a1,
		 unsigned int flags)
{
	struct cpu_stream *s = &cpus[c];
	struct mkm_event *e;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1 << 16;
		s->ev = realloc(s->ev, s->cap * sizeof(*s->ev));
		if (!s->ev) {
			perror("bench_tl");
			exit(1);
		}
	}
	e = &s->ev[s->n++];
	e->time_ns = s->now;
	e->tid = (uint32_t)th + 1000;
	e->unique_id = (uint32_t)th;
	e->seq = s->seq++;
	e->cpu = (uint16_t)c;
	e->type = (uint8_t)type;
	e->flags = (uint8_t)flags;
	e->arg0 = a0;
	e->arg1 = a1;
}

static void sleep_push(int th)
{
	size_t i = sleepq_n++;

	while (i && threads[sleepq[(i - 1) / 2]].wake > threads[th].wake) {
		sleepq[i] = sleepq[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	sleepq[i] = th;
}

static int sleep_pop(void)
{
	int top = sleepq[0], last = sleepq[--sleepq_n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= sleepq_n)
			break;
		if (c + 1 < sleepq_n &&
		    threads[sleepq[c + 1]].wake < threads[sleepq[c]].wake)
			c++;
		if (threads[last].wake <= threads[sleepq[c]].wake)
			break;
		sleepq[i] = sleepq[c];
		i = c;
	}
	sleepq[i] = last;
	return top;
}

/*
 * Put the next runnable thread on CPU c, whose thread prev (-1: none) left
 * it in kernel state ts with flags: one SWITCH record when a thread
 * follows a thread, as the kernel writes it with MKM_CONFIG_ONE_SWITCH; a
 * SWITCH_OUT alone when nothing is runnable, a SWITCH_IN alone on an idle
 * CPU. The caller queues a preempted prev after this: never its own next.
 */
static void dispatch(int c, int prev, uint32_t ts, unsigned int flags)
{
	struct cpu_stream *s = &cpus[c];
	int th;
	uint32_t k;

	if (!runq_n) {
		if (prev >= 0)
			emit(c, MKM_EV_SWITCH_OUT, prev, ts, 0, flags);
		s->cur = -1;
		return;
	}
	k = rnd((uint32_t)runq_n);
	th = runq[k];
	runq[k] = runq[--runq_n];
	if (threads[th].cpu != c) {
		if (s->now < threads[th].ready)
			s->now = threads[th].ready;
		emit(c, MKM_EV_MIGRATE, th, (uint32_t)c,
		     (uint32_t)threads[th].cpu, 0);
		threads[th].cpu = c;
	}
	/* Not before it left the CPU it was preempted on. */
	if (s->now < threads[th].ready)
		s->now = threads[th].ready;
	s->now += 1 + rnd(3);
	if (prev >= 0) {
		emit(c, MKM_EV_SWITCH, prev, 0, (uint32_t)th + 1000,
		     flags | ts << MKM_EVF_STATE_SHIFT);
		nr_switch_records++;
	} else {
		emit(c, MKM_EV_SWITCH_IN, th, 0, 0, 0);
	}
	s->cur = th;
}

/*
 * The two-record form of the stream: each CPU's records through
 * libmonitor's splitter, which knows each next thread's unique_id from
 * its ATTACH (every CPU's stream begins with its threads' ATTACH records).
 */
static void split_switches(int ncpu)
{
	struct mon_split *split = mon_split_new();
	int c;

	if (!split) {
		perror("bench_tl");
		exit(1);
	}
	for (c = 0; c < ncpu; c++) {
		struct cpu_stream *s = &cpus[c];
		size_t i;

		for (i = 0; i < s->n && s->ev[i].type == MKM_EV_ATTACH; i++)
			mon_split_note(split, &s->ev[i]);
	}
	for (c = 0; c < ncpu; c++) {
		struct cpu_stream *s = &cpus[c];
		struct mkm_event *out = malloc(2 * s->n * sizeof(*out));
		size_t i, n = 0;

		if (!out) {
			perror("bench_tl");
			exit(1);
		}
		for (i = 0; i < s->n; i++) {
			int k = mon_split_event(split, &s->ev[i], out + n);

			if (k < 0) {
				fprintf(stderr, "bench_tl: %s\n",
					monitor_strerror(k));
				exit(1);
			}
			n += (size_t)k;
		}
		free(s->ev);
		s->ev = out;
		s->n = s->cap = n;
	}
	mon_split_free(split);
}

static size_t total(int ncpu)
{
	size_t n = 0;
	int c;

	for (c = 0; c < ncpu; c++)
		n += cpus[c].n;
	return n;
}

static void generate(size_t want, int nth, int ncpu)
{
	int c, th;

	cpus = calloc((size_t)ncpu, sizeof(*cpus));
	threads = calloc((size_t)nth, sizeof(*threads));
	runq = calloc((size_t)nth, sizeof(*runq));
	sleepq = calloc((size_t)nth, sizeof(*sleepq));
	for (c = 0; c < ncpu; c++) {
		cpus[c].cur = -1;
		cpus[c].now = 1000000;
	}
	for (th = 0; th < nth; th++) {
		c = th % ncpu;
		threads[th].cpu = c;
		if (cpus[c].cur < 0) {
			cpus[c].cur = th;
			emit(c, MKM_EV_ATTACH, th, MKM_TS_RUNNING, (uint32_t)c,
			     0);
		} else {
			runq[runq_n++] = th;
			emit(c, MKM_EV_ATTACH, th, MKM_TS_RUNNING, 0xffffffffu,
			     0);
		}
	}
	/* want counts records in the form measured. */
	while (total(ncpu) + (one_switch ? 0 : nr_switch_records) < want) {
		struct cpu_stream *s;
		uint32_t r;

		/* The CPU furthest behind acts next: global time order. */
		c = 0;
		for (th = 1; th < ncpu; th++)
			if (cpus[th].now < cpus[c].now)
				c = th;
		s = &cpus[c];
		/* Wake the sleepers due, from this CPU. */
		while (sleepq_n && threads[sleepq[0]].wake <= s->now) {
			th = sleep_pop();
			emit(c, MKM_EV_WAKEUP, th, (uint32_t)threads[th].cpu,
			     s->cur >= 0 ? (uint32_t)s->cur + 1000 : 0, 0);
			threads[th].ready = s->now;
			runq[runq_n++] = th;
		}
		if (s->cur < 0) {
			if (runq_n) {
				dispatch(c, -1, 0, 0);
			} else if (sleepq_n) {
				s->now = threads[sleepq[0]].wake;
			} else {
				s->now += 1000;
			}
			continue;
		}
		th = s->cur;
		s->now += 200 + rnd(5000); /* compute */
		r = rnd(100);
		if (r < 35) {
			emit(c, MKM_EV_IRQ_ENTRY, th, 30, 0, 0);
			s->now += 1 + rnd(2000);
			if (r < 5) { /* a softirq nested in it */
				emit(c, MKM_EV_SOFTIRQ_ENTRY, th, 3, 0, 0);
				s->now += 1 + rnd(500);
				emit(c, MKM_EV_SOFTIRQ_EXIT, th, 3, 0, 0);
				s->now += 1;
			}
			emit(c, MKM_EV_IRQ_EXIT, th, 30, 1, 0);
		} else if (r < 65) {
			emit(c, MKM_EV_SYSCALL_ENTRY, th, 0, 0, 0);
			s->now += 100 + rnd(3000);
			emit(c, MKM_EV_SYSCALL_EXIT, th, 0, 0, 0);
		} else if (r < 80) {
			/* Preempted, when another thread is runnable. */
			if (!runq_n)
				continue;
			dispatch(c, th, MKM_TS_RUNNING, MKM_EVF_PREEMPTED);
			threads[th].ready = s->now;
			runq[runq_n++] = th;
		} else {
			emit(c, MKM_EV_SYSCALL_ENTRY, th, 202, 0, 0);
			s->now += 50;
			dispatch(c, th, MKM_TS_INTERRUPTIBLE, 0);
			threads[th].wake = s->now + 1000 + rnd(200000);
			sleep_push(th);
		}
	}
	if (!one_switch)
		split_switches(ncpu);
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/*
 * The rebuild's CPU time too: on a shared machine the wall time also
 * counts the time other jobs had the core, the CPU time does not.
 */
static double cpu_s(void)
{
	return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The reference: one read of every record, per CPU, as a reader does. */
static volatile uint64_t sink;

static double reference(int ncpu)
{
	uint64_t x = 0;
	double t0 = now_s();
	size_t i;
	int c;

	for (c = 0; c < ncpu; c++)
		for (i = 0; i < cpus[c].n; i++)
			x += cpus[c].ev[i].time_ns ^ cpus[c].ev[i].tid;
	sink = x;
	return now_s() - t0;
}

/*
 * The batches a reader would hand over: every WINDOW_NS of trace time,
 * each CPU's new records, in CPU order. Cut once, before any timing: the
 * timed loops only hand them over, as a reader's read() returns them.
 */
struct batch {
	const struct mkm_event *ev;
	size_t n;
};

static struct batch *batches;
static size_t nr_batches;

static void cut_batches(int ncpu)
{
	size_t *pos = calloc((size_t)ncpu, sizeof(*pos)), cap = 0;
	uint64_t end = 0, w;
	int c;

	for (c = 0; c < ncpu; c++)
		if (cpus[c].n && cpus[c].ev[cpus[c].n - 1].time_ns > end)
			end = cpus[c].ev[cpus[c].n - 1].time_ns;
	for (w = WINDOW_NS; w < end + WINDOW_NS; w += WINDOW_NS) {
		for (c = 0; c < ncpu; c++) {
			struct cpu_stream *s = &cpus[c];
			size_t from = pos[c];

			while (pos[c] < s->n && s->ev[pos[c]].time_ns < w)
				pos[c]++;
			if (pos[c] == from)
				continue;
			if (nr_batches == cap) {
				cap = cap ? cap * 2 : 1024;
				batches = realloc(batches,
						  cap * sizeof(*batches));
				if (!batches) {
					perror("bench_tl");
					exit(1);
				}
			}
			batches[nr_batches++] =
				(struct batch){ s->ev + from, pos[c] - from };
		}
	}
	free(pos);
}

static double rebuild(int ncpu, size_t n, struct tl_stats *st,
		      struct tl_memory *mem, double *cpu)
{
	struct tl_config cfg = { .nr_cpus = (unsigned int)ncpu,
				 .classes = MKM_CLASS_ALL };
	struct tl *tl;
	double t0, c0, t;
	size_t b;
	int err;

	err = tl_create(&tl, &cfg);
	if (err) {
		fprintf(stderr, "bench_tl: %s\n", monitor_strerror(err));
		exit(1);
	}
	c0 = cpu_s();
	t0 = now_s();
	for (b = 0; b < nr_batches; b++)
		tl_feed(tl, batches[b].ev, batches[b].n);
	tl_flush(tl);
	t = now_s() - t0;
	*cpu = cpu_s() - c0;
	tl_stats(tl, st);
	tl_memory(tl, mem);
	if (st->events != n) {
		fprintf(stderr, "bench_tl: %llu events processed of %zu\n",
			(unsigned long long)st->events, n);
		exit(1);
	}
	tl_destroy(tl);
	return t;
}

/* The same batches as rebuild() feeds, as a pipeline source. */
static int batches_next(void *priv, struct mon_msg *msg)
{
	size_t *b = priv;

	if (*b == nr_batches)
		return 0;
	msg->type = MON_MSG_EVENTS;
	msg->events = batches[*b].ev;
	msg->nr_events = batches[*b].n;
	(*b)++;
	return 1;
}

static const struct mon_source_ops batches_ops = {
	.name = "batches",
	.next = batches_next,
};

static double rebuild_pipeline(int ncpu, size_t n)
{
	struct tl_config cfg = { .nr_cpus = (unsigned int)ncpu,
				 .classes = MKM_CLASS_ALL };
	struct trace_info info = {
		.nr_cpus = (unsigned int)ncpu,
		.classes = MKM_CLASS_ALL,
		.flags = one_switch ? MKM_CONFIG_ONE_SWITCH : 0,
	};
	size_t next = 0;
	struct mon_pipeline *p;
	struct mon_source *src;
	struct mon_sink *to_timeline;
	struct tl_stats st;
	struct tl *tl;
	double t0, t;
	int err;

	err = tl_create(&tl, &cfg);
	if (!err)
		err = mon_source_new(&src, &batches_ops, &next, &info);
	if (!err)
		err = mon_pipeline_create(&p, src);
	if (!err)
		err = mon_sink_timeline(&to_timeline, tl);
	if (!err)
		err = mon_pipeline_add_sink(p, to_timeline);
	if (err) {
		fprintf(stderr, "bench_tl: %s\n", monitor_strerror(err));
		exit(1);
	}
	t0 = now_s();
	err = mon_pipeline_run(p);
	t = now_s() - t0;
	tl_stats(tl, &st);
	if (err || st.events != n) {
		fprintf(stderr, "bench_tl: pipeline: %s, %llu events of %zu\n",
			mon_pipeline_error(p, NULL),
			(unsigned long long)st.events, n);
		exit(1);
	}
	mon_pipeline_destroy(p);
	tl_destroy(tl);
	return t;
}

/* The stream as the reader handed it over, in a trace file. */
static void write_trace(const char *path, int ncpu)
{
	struct trace_info info = {
		.nr_cpus = (uint32_t)ncpu,
		.classes = MKM_CLASS_ALL,
		.flags = one_switch ? MKM_CONFIG_ONE_SWITCH : 0,
	};
	struct trace_writer *w;
	size_t b;
	int err;

	err = trace_writer_open(&w, path, &info);
	for (b = 0; !err && b < nr_batches; b++)
		err = trace_writer_events(w, batches[b].ev, batches[b].n);
	if (!err)
		err = trace_writer_close(w);
	else
		trace_writer_close(w);
	if (err) {
		fprintf(stderr, "bench_tl: %s: %s\n", path,
			monitor_strerror(err));
		exit(1);
	}
}

static const char usage[] =
	"usage: bench_tl [-1] [-w FILE] [EVENTS [THREADS [CPUS]]]\n"
	"  -1       a switch between two threads is one MKM_EV_SWITCH record\n"
	"  -w FILE  also write the stream to the trace FILE\n";

int main(int argc, char **argv)
{
	const char *trace_path = NULL;
	size_t want = 12000000;
	int nth = 64, ncpu = 4, opt;
	double t[REPS], ratio[REPS], med, best, evs_med, evs_best, bpi, bpi_all;
	double pipe[REPS], pipe_ratio[REPS], cpu[REPS];
	struct tl_memory mem;
	struct tl_stats st;
	size_t n;
	int i;

	while ((opt = getopt(argc, argv, "1w:")) != -1) {
		switch (opt) {
		case '1':
			one_switch = true;
			break;
		case 'w':
			trace_path = optarg;
			break;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind < argc)
		want = strtoull(argv[optind], NULL, 0);
	if (optind + 1 < argc)
		nth = atoi(argv[optind + 1]);
	if (optind + 2 < argc)
		ncpu = atoi(argv[optind + 2]);
	if (nth < 1 || ncpu < 1 || ncpu > 256 || want < 1) {
		fputs(usage, stderr);
		return 2;
	}
	generate(want, nth, ncpu);
	cut_batches(ncpu);
	n = total(ncpu);
	printf("bench-lib: timeline rebuild of %zu events, %d threads, "
	       "%d CPUs, fed per CPU every %llu us of trace time\n",
	       n, nth, ncpu, WINDOW_NS / 1000);
	printf("  switches:         %zu, %s\n", nr_switch_records,
	       one_switch ? "one MKM_EV_SWITCH record each (ABI 2.4)" :
			    "a SWITCH_OUT and a SWITCH_IN each");
	if (trace_path)
		write_trace(trace_path, ncpu);
	for (i = 0; i < REPS; i++) {
		double ref = reference(ncpu), r2 = reference(ncpu),
		       r3 = reference(ncpu);

		/* The pass is short: its best of three. */
		ref = ref < r2 ? ref : r2;
		ref = ref < r3 ? ref : r3;

		t[i] = rebuild(ncpu, n, &st, &mem, &cpu[i]);
		ratio[i] = t[i] / ref;
		pipe[i] = rebuild_pipeline(ncpu, n);
		pipe_ratio[i] = pipe[i] / t[i];
	}
	qsort(t, REPS, sizeof(t[0]), cmp_double);
	qsort(cpu, REPS, sizeof(cpu[0]), cmp_double);
	qsort(ratio, REPS, sizeof(ratio[0]), cmp_double);
	qsort(pipe, REPS, sizeof(pipe[0]), cmp_double);
	qsort(pipe_ratio, REPS, sizeof(pipe_ratio[0]), cmp_double);
	med = t[REPS / 2];
	best = t[0];
	evs_med = (double)n / med;
	evs_best = (double)n / best;
	bpi = (double)mem.interval_bytes / (double)st.intervals;
	bpi_all = (double)mem.total_bytes / (double)st.intervals;
	printf("  intervals:        %llu (%.2f events per interval), "
	       "%llu anomalies\n",
	       (unsigned long long)st.intervals,
	       (double)n / (double)st.intervals,
	       (unsigned long long)st.anomalies);
	printf("  throughput:       %.1f M events/s median of %d, %.1f best "
	       "(%.1f ns/event median)\n",
	       evs_med / 1e6, REPS, evs_best / 1e6, med * 1e9 / (double)n);
	printf("  on CPU time:      %.1f M events/s median of %d, %.1f best "
	       "(the rebuild's CPU time, not the time others had the core)\n",
	       (double)n / cpu[REPS / 2] / 1e6, REPS, (double)n / cpu[0] / 1e6);
	printf("  vs one read pass: %.1f x the time of reading every record "
	       "once (median of %d pairs)\n",
	       ratio[REPS / 2], REPS);
	printf("  through pipeline: %.1f M events/s median, %.3f x the direct "
	       "time (median of %d pairs): %+.2f ns/event for the pipeline\n",
	       (double)n / pipe[REPS / 2] / 1e6, pipe_ratio[REPS / 2], REPS,
	       (pipe[REPS / 2] - med) * 1e9 / (double)n);
	printf("  memory:           %.1f bytes/interval for intervals, "
	       "%.1f with everything held (queues, threads)\n",
	       bpi, bpi_all);
	printf("  goal ratios:      throughput %.2f x 50M events/s (wall), "
	       "%.2f (CPU time); memory %.2f x 16 bytes/interval "
	       "(<= 1 meets it)\n",
	       evs_med / 50e6, (double)n / cpu[REPS / 2] / 50e6, bpi / 16.0);
	return 0;
}
