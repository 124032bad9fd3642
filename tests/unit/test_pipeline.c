// SPDX-License-Identifier: GPL-2.0
/*
 * test_pipeline.c - the event pipeline: the runner's batching, end of
 * stream and errors, the file and merge sources, the order and filter
 * stages, a stage that delays, and the timeline and trace sinks.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evstream.h"
#include "mon_pipeline.h"

/* ---- helpers ------------------------------------------------------------ */

static const struct trace_info test_info = { .nr_cpus = 2 };

/* Writes @ev as a trace file, @per_chunk records per EVENTS chunk (a
 * HORIZON after each at the chunk's last time), into a new temp file. */
static void write_trace(char *path, const struct mkm_event *ev, size_t n,
			size_t per_chunk)
{
	struct trace_writer *w;
	size_t i;
	int fd;

	strcpy(path, "/tmp/mkm-test-pipeline-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(trace_writer_open(&w, path, &test_info), 0);
	for (i = 0; i < n; i += per_chunk) {
		size_t k = n - i < per_chunk ? n - i : per_chunk;

		assert_int_equal(trace_writer_events(w, ev + i, k), 0);
		assert_int_equal(trace_writer_flush(w, 0), 0);
	}
	assert_int_equal(trace_writer_close(w), 0);
}

/* A sink that keeps what it is given. */
struct keeper {
	struct mkm_event ev[EVS_MAX * 2];
	size_t n;
	size_t calls, events_msgs, finishes;
	uint32_t types[64];
	int fail_at; /* consume call that fails with -ENOSPC (0: never) */
	int done_at; /* consume call that returns MON_DONE (0: never) */
};

static int keeper_consume(void *priv, const struct mon_msg *msg)
{
	struct keeper *k = priv;
	size_t i;

	if (k->calls < 64)
		k->types[k->calls] = msg->type;
	k->calls++;
	if (k->fail_at && (int)k->calls == k->fail_at)
		return -ENOSPC;
	if (msg->type == MON_MSG_EVENTS) {
		k->events_msgs++;
		for (i = 0; i < msg->nr_events; i++) {
			assert_true(k->n < EVS_MAX * 2);
			k->ev[k->n++] = msg->events[i];
		}
	}
	return k->done_at && (int)k->calls == k->done_at ? MON_DONE : 0;
}

static int keeper_finish(void *priv)
{
	((struct keeper *)priv)->finishes++;
	return 0;
}

static const struct mon_sink_ops keeper_ops = {
	.name = "keeper",
	.consume = keeper_consume,
	.finish = keeper_finish,
};

static struct mon_pipeline *pipeline_of(struct mon_source *src,
					struct keeper *k)
{
	struct mon_pipeline *p;
	struct mon_sink *sk;

	assert_int_equal(mon_pipeline_create(&p, src), 0);
	assert_int_equal(mon_sink_new(&sk, &keeper_ops, k), 0);
	assert_int_equal(mon_pipeline_add_sink(p, sk), 0);
	return p;
}

/* A source of one's own: @nr_batches batches of @per records on CPU 0. */
struct counter_src {
	struct mkm_event ev[16];
	size_t batches, nr_batches, per, nexts;
};

static int counter_next(void *priv, struct mon_msg *msg)
{
	struct counter_src *c = priv;
	size_t i;

	c->nexts++;
	if (c->batches == c->nr_batches)
		return 0;
	for (i = 0; i < c->per; i++) {
		memset(&c->ev[i], 0, sizeof(c->ev[i]));
		c->ev[i].time_ns = 1000 + c->batches * c->per + i;
		c->ev[i].seq = c->batches * c->per + i;
		c->ev[i].type = MKM_EV_MARK;
		c->ev[i].tid = 7;
	}
	msg->type = MON_MSG_EVENTS;
	msg->events = c->ev;
	msg->nr_events = c->per;
	msg->offset = c->batches * 100;
	c->batches++;
	return 1;
}

static const struct mon_source_ops counter_ops = {
	.name = "counter",
	.next = counter_next,
};

/* ---- the runner --------------------------------------------------------- */

static void test_mon_pipeline_run_batches(void **state)
{
	struct counter_src c = { .nr_batches = 5, .per = 16 };
	struct keeper k = { 0 };
	struct mon_pipeline *p;
	struct mon_source *src;
	size_t i;

	(void)state;
	assert_int_equal(mon_source_new(&src, &counter_ops, &c, &test_info), 0);
	p = pipeline_of(src, &k);
	assert_int_equal(mon_pipeline_run(p), 0);
	/* INFO first, then one consume per batch, not per record. */
	assert_int_equal(k.calls, 6);
	assert_int_equal(k.types[0], MON_MSG_INFO);
	assert_int_equal(k.events_msgs, 5);
	assert_int_equal(k.n, 80);
	for (i = 0; i < k.n; i++)
		assert_int_equal(k.ev[i].seq, i);
	assert_int_equal(k.finishes, 1);
	assert_int_equal(mon_pipeline_meta(p)->events, 80);
	assert_int_equal(mon_pipeline_meta(p)->info.nr_cpus, 2);
	/* Ended: it stays ended, finish is not called again. */
	assert_int_equal(mon_pipeline_step(p), 0);
	assert_int_equal(k.finishes, 1);
	assert_string_equal(mon_pipeline_error(p, NULL), "");
	mon_pipeline_destroy(p);
}

static void test_mon_pipeline_sink_done_stops_source(void **state)
{
	struct counter_src c = { .nr_batches = 100, .per = 4 };
	struct keeper k = { .done_at = 3 }; /* INFO, batch, batch: done */
	struct mon_pipeline *p;
	struct mon_source *src;

	(void)state;
	assert_int_equal(mon_source_new(&src, &counter_ops, &c, &test_info), 0);
	p = pipeline_of(src, &k);
	assert_int_equal(mon_pipeline_run(p), 0);
	assert_int_equal(k.events_msgs, 2);
	assert_int_equal(c.nexts, 2); /* never asked for a third batch */
	assert_int_equal(k.finishes, 1);
	mon_pipeline_destroy(p);
}

static void test_mon_pipeline_sink_error_names_offset(void **state)
{
	struct counter_src c = { .nr_batches = 10, .per = 2 };
	struct keeper k = { .fail_at = 4 }; /* the third batch, offset 200 */
	struct mon_pipeline *p;
	struct mon_source *src;
	uint64_t off;

	(void)state;
	assert_int_equal(mon_source_new(&src, &counter_ops, &c, &test_info), 0);
	p = pipeline_of(src, &k);
	assert_int_equal(mon_pipeline_run(p), -ENOSPC);
	assert_non_null(strstr(mon_pipeline_error(p, &off), "sink keeper"));
	assert_non_null(
		strstr(mon_pipeline_error(p, NULL), "(source offset 200)"));
	assert_int_equal(off, 200);
	assert_int_equal(k.finishes, 1); /* still finished */
	assert_int_equal(mon_pipeline_step(p), -ENOSPC);
	assert_int_equal(c.nexts, 3);
	mon_pipeline_destroy(p);
}

static void test_mon_pipeline_no_sink(void **state)
{
	struct counter_src c = { .nr_batches = 1, .per = 1 };
	struct mon_pipeline *p;
	struct mon_source *src;

	(void)state;
	assert_int_equal(mon_source_new(&src, &counter_ops, &c, &test_info), 0);
	assert_int_equal(mon_pipeline_create(&p, src), 0);
	assert_int_equal(mon_pipeline_run(p), -EINVAL);
	mon_pipeline_destroy(p);
	assert_int_equal(mon_pipeline_create(&p, NULL), -EINVAL);
}

/* ---- stages -------------------------------------------------------------- */

/* A stage that holds every record back until the end, and one that drops
 * the MARK records. */
struct holder {
	struct mkm_event ev[EVS_MAX];
	size_t n;
};

static int holder_process(void *priv, const struct mon_msg *msg,
			  struct mon_emit *out)
{
	struct holder *h = priv;

	if (msg->type != MON_MSG_EVENTS)
		return mon_emit(out, msg);
	assert_true(h->n + msg->nr_events <= EVS_MAX);
	memcpy(h->ev + h->n, msg->events, msg->nr_events * sizeof(h->ev[0]));
	h->n += msg->nr_events;
	return 0;
}

static int holder_finish(void *priv, struct mon_emit *out)
{
	struct holder *h = priv;
	struct mon_msg msg = { .type = MON_MSG_EVENTS,
			       .events = h->ev,
			       .nr_events = h->n };

	return mon_emit(out, &msg);
}

static const struct mon_stage_ops holder_ops = {
	.name = "holder",
	.process = holder_process,
	.finish = holder_finish,
};

static int dropper_process(void *priv, const struct mon_msg *msg,
			   struct mon_emit *out)
{
	(void)priv;
	if (msg->type == MON_MSG_EVENTS && msg->nr_events &&
	    msg->events[0].type == MKM_EV_MARK)
		return 0;
	return mon_emit(out, msg);
}

static const struct mon_stage_ops dropper_ops = {
	.name = "dropper",
	.process = dropper_process,
};

static void test_mon_stage_delay_and_drop(void **state)
{
	struct counter_src c = { .nr_batches = 3, .per = 5 };
	struct holder h = { .n = 0 };
	struct keeper k = { 0 };
	struct mon_pipeline *p;
	struct mon_source *src;
	struct mon_stage *st;

	(void)state;
	assert_int_equal(mon_source_new(&src, &counter_ops, &c, &test_info), 0);
	p = pipeline_of(src, &k);
	assert_int_equal(mon_stage_new(&st, &holder_ops, &h), 0);
	assert_int_equal(mon_pipeline_add_stage(p, st), 0);
	assert_int_equal(mon_pipeline_run(p), 0);
	/* Held back, then all at once at the end, before the sink's finish. */
	assert_int_equal(k.events_msgs, 1);
	assert_int_equal(k.n, 15);
	assert_int_equal(k.finishes, 1);
	mon_pipeline_destroy(p);

	memset(&k, 0, sizeof(k));
	c = (struct counter_src){ .nr_batches = 3, .per = 5 };
	assert_int_equal(mon_source_new(&src, &counter_ops, &c, &test_info), 0);
	p = pipeline_of(src, &k);
	assert_int_equal(mon_stage_new(&st, &dropper_ops, NULL), 0);
	assert_int_equal(mon_pipeline_add_stage(p, st), 0);
	assert_int_equal(mon_pipeline_run(p), 0);
	assert_int_equal(k.n, 0);
	assert_int_equal(k.calls, 1); /* INFO only */
	mon_pipeline_destroy(p);
}

/* Two CPUs whose records a read returns CPU by CPU: CPU 1's are earlier. */
static void interleaved(struct evs *s)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < 20; i++)
		evs_add(s, 1000 + 10 * i, 0, MKM_EV_MARK, 1, i, 0, 0);
	for (i = 0; i < 20; i++)
		evs_add(s, 995 + 10 * i, 1, MKM_EV_MARK, 2, i, 0, 0);
	/* Equal times on both CPUs: CPU 0 goes first. */
	evs_add(s, 5000, 1, MKM_EV_MARK, 2, 99, 0, 0);
	evs_add(s, 5000, 0, MKM_EV_MARK, 1, 99, 0, 0);
}

static void test_mon_stage_order_sorts(void **state)
{
	struct evs s;
	struct keeper k = { 0 };
	struct mon_pipeline *p;
	struct mon_source *src;
	struct mon_stage *st;
	char path[64];
	size_t i;

	(void)state;
	interleaved(&s);
	write_trace(path, s.ev, s.n, 7);
	assert_int_equal(mon_source_file(&src, path), 0);
	p = pipeline_of(src, &k);
	assert_int_equal(mon_stage_order(&st), 0);
	assert_int_equal(mon_pipeline_add_stage(p, st), 0);
	assert_int_equal(mon_pipeline_run(p), 0);
	assert_int_equal(k.n, s.n);
	for (i = 1; i < k.n; i++)
		assert_true(k.ev[i - 1].time_ns <= k.ev[i].time_ns);
	assert_int_equal(k.ev[k.n - 2].cpu, 0);
	assert_int_equal(k.ev[k.n - 1].cpu, 1);
	/* Seqs are untouched: each CPU's still run 0, 1, 2... */
	assert_int_equal(k.ev[k.n - 2].seq, 20);
	mon_pipeline_destroy(p);
	unlink(path);
}

/* Two threads on one CPU; a filter keeps one, and the timeline sees no
 * loss where there was none, and the loss where there was one. */
static void test_mon_stage_filter_threads(void **state)
{
	struct mon_filter f = { .tids = (uint32_t[]){ 11 }, .nr_tids = 1 };
	struct tl_stats st;
	struct evs s = { .n = 0 };
	struct mon_pipeline *p;
	struct mon_source *src;
	struct mon_stage *stage;
	struct mon_sink *sink;
	struct tl *tl;
	char path[64];
	unsigned int i;

	(void)state;
	memset(&s, 0, sizeof(s));
	for (i = 0; i < 10; i++) {
		IN(&s, 100 * i, 0, 11, 12);
		OUT(&s, 100 * i + 50, 0, 11, MKM_TS_INTERRUPTIBLE, 12);
		IN(&s, 100 * i + 50, 0, 12, 11);
		OUT(&s, 100 * i + 99, 0, 12, MKM_TS_INTERRUPTIBLE, 11);
	}
	s.seq[0] += 3; /* three events lost on CPU 0 */
	IN(&s, 2000, 0, 11, 0);
	write_trace(path, s.ev, s.n, 16);

	assert_int_equal(mon_source_file(&src, path), 0);
	assert_int_equal(tl_create(&tl, NULL), 0);
	assert_int_equal(mon_pipeline_create(&p, src), 0);
	assert_int_equal(mon_stage_filter(&stage, &f), 0);
	assert_int_equal(mon_pipeline_add_stage(p, stage), 0);
	assert_int_equal(mon_sink_timeline(&sink, tl), 0);
	assert_int_equal(mon_pipeline_add_sink(p, sink), 0);
	assert_int_equal(mon_pipeline_run(p), 0);
	assert_int_equal(tl_nr_threads(tl), 1);
	assert_int_equal(tl_stats(tl, &st), 0);
	assert_int_equal(st.lost, 3);
	assert_int_equal(st.gaps, 1);
	assert_int_equal(st.events, 21);
	check_invariants(tl);
	mon_pipeline_destroy(p);
	tl_destroy(tl);

	assert_int_equal(mon_stage_filter(&stage,
					  &(struct mon_filter){ .from_ns = 5,
								.to_ns = 5 }),
			 -EINVAL);
	unlink(path);
}

/* The records of @ev through order and @f, into @k. */
static void filtered(const struct evs *s, const struct mon_filter *f,
		     struct keeper *k)
{
	struct mon_pipeline *p;
	struct mon_source *src;
	struct mon_stage *stage;
	char path[64];

	memset(k, 0, sizeof(*k));
	write_trace(path, s->ev, s->n, 7);
	assert_int_equal(mon_source_file(&src, path), 0);
	p = pipeline_of(src, k);
	assert_int_equal(mon_stage_order(&stage), 0);
	assert_int_equal(mon_pipeline_add_stage(p, stage), 0);
	assert_int_equal(mon_stage_filter(&stage, f), 0);
	assert_int_equal(mon_pipeline_add_stage(p, stage), 0);
	assert_int_equal(mon_pipeline_run(p), 0);
	mon_pipeline_destroy(p);
	unlink(path);
}

/*
 * A thread filter keeps, of a SWITCH with a thread left out, the kept
 * thread's half: one thread's records are those of the two-record
 * stream, record for record (seq numbers too); a SWITCH between two kept
 * threads stays one record.
 */
static void test_mon_stage_filter_switch_halves(void **state)
{
	static struct evs one, two;
	static struct keeper a, b;
	uint32_t tid;
	size_t i, switches = 0;

	(void)state;
	evs_switch_run(&one, true);
	evs_switch_run(&two, false);
	for (tid = 10; tid <= 14; tid++) {
		struct mon_filter f = { .tids = &tid, .nr_tids = 1 };

		filtered(&one, &f, &a);
		filtered(&two, &f, &b);
		assert_true(a.n > 2);
		assert_int_equal(a.n, b.n);
		for (i = 0; i < a.n; i++) {
			assert_int_not_equal(a.ev[i].type, MKM_EV_SWITCH);
			assert_memory_equal(&a.ev[i], &b.ev[i],
					    sizeof(a.ev[i]));
		}
	}
	filtered(&one,
		 &(struct mon_filter){ .tids = (uint32_t[]){ 10, 11 },
				       .nr_tids = 2 },
		 &a);
	for (i = 0; i < a.n; i++)
		switches += a.ev[i].type == MKM_EV_SWITCH;
	assert_int_equal(switches, 3);
}

/* ---- sources and sinks ---------------------------------------------------- */

static void test_mon_source_merge_equal_timestamps(void **state)
{
	struct evs a, b;
	struct keeper k = { 0 };
	struct mon_source *srcs[2];
	struct mon_pipeline *p;
	struct mon_source *src;
	char pa[64], pb[64];
	size_t i;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	for (i = 0; i < 10; i++) {
		evs_add(&a, 100 * i, 0, MKM_EV_MARK, 1, (uint32_t)i, 0, 0);
		evs_add(&b, 100 * i, 0, MKM_EV_MARK, 2, (uint32_t)i, 0, 0);
		evs_add(&b, 100 * i + 1, 1, MKM_EV_MARK, 3, (uint32_t)i, 0, 0);
	}
	write_trace(pa, a.ev, a.n, 3);
	write_trace(pb, b.ev, b.n, 4);
	assert_int_equal(mon_source_file(&srcs[0], pa), 0);
	assert_int_equal(mon_source_file(&srcs[1], pb), 0);
	assert_int_equal(mon_source_merge(&src, srcs, 2), 0);
	p = pipeline_of(src, &k);
	assert_int_equal(mon_pipeline_run(p), 0);
	assert_int_equal(k.n, 30);
	for (i = 0; i < 10; i++) {
		/* Equal times: source 0 first, then source 1. */
		assert_int_equal(k.ev[3 * i].tid, 1);
		assert_int_equal(k.ev[3 * i + 1].tid, 2);
		assert_int_equal(k.ev[3 * i + 2].tid, 3);
		/* CPU 0's seqs run on over both sources' records. */
		assert_int_equal(k.ev[3 * i].seq, 2 * i);
		assert_int_equal(k.ev[3 * i + 1].seq, 2 * i + 1);
		assert_int_equal(k.ev[3 * i + 2].seq, i);
	}
	mon_pipeline_destroy(p);
	unlink(pa);
	unlink(pb);

	srcs[0] = NULL;
	assert_int_equal(mon_source_merge(&src, srcs, 1), -EINVAL);
}

/* A loss inside one source survives the renumbering of the merge. */
static void test_mon_source_merge_keeps_losses(void **state)
{
	struct evs a, b;
	struct mon_source *srcs[2];
	struct mon_pipeline *p;
	struct mon_source *src;
	struct mon_sink *sink;
	struct tl_stats st;
	struct tl *tl;
	char pa[64], pb[64];
	unsigned int i;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	for (i = 0; i < 10; i++) {
		evs_add(&a, 10 * i, 0, MKM_EV_MARK, 1, i, 0, 0);
		evs_add(&b, 10 * i + 5, 0, MKM_EV_MARK, 2, i, 0, 0);
		if (i == 4)
			a.seq[0] += 5;
	}
	write_trace(pa, a.ev, a.n, 4);
	write_trace(pb, b.ev, b.n, 4);
	assert_int_equal(mon_source_file(&srcs[0], pa), 0);
	assert_int_equal(mon_source_file(&srcs[1], pb), 0);
	assert_int_equal(mon_source_merge(&src, srcs, 2), 0);
	assert_int_equal(mon_pipeline_create(&p, src), 0);
	assert_int_equal(tl_create(&tl, NULL), 0);
	assert_int_equal(mon_sink_timeline(&sink, tl), 0);
	assert_int_equal(mon_pipeline_add_sink(p, sink), 0);
	assert_int_equal(mon_pipeline_run(p), 0);
	assert_int_equal(tl_stats(tl, &st), 0);
	assert_int_equal(st.events, 20);
	assert_int_equal(st.lost, 5);
	assert_int_equal(tl_nr_marks(tl), 20);
	mon_pipeline_destroy(p);
	tl_destroy(tl);
	unlink(pa);
	unlink(pb);
}

/* A cut file: the stream ends with the reader's error, after the valid
 * part reached the sinks, and the sinks were finished. */
static void test_mon_source_file_cut(void **state)
{
	struct evs s;
	struct keeper k = { 0 };
	struct mon_pipeline *p;
	struct mon_source *src;
	char path[64];
	uint64_t off;
	long size;
	FILE *fp;

	(void)state;
	interleaved(&s);
	write_trace(path, s.ev, s.n, 10);
	fp = fopen(path, "r+");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	fclose(fp);
	assert_int_equal(truncate(path, size - 200), 0);
	assert_int_equal(mon_source_file(&src, path), 0);
	p = pipeline_of(src, &k);
	assert_int_equal(mon_pipeline_run(p), -ENODATA);
	assert_true(k.n >= 30 && k.n < s.n);
	assert_int_equal(k.finishes, 1);
	assert_non_null(strstr(mon_pipeline_error(p, &off), "source file"));
	assert_true(off > 0 && off < (uint64_t)size);
	mon_pipeline_destroy(p);
	unlink(path);

	assert_int_equal(mon_source_file(&src, "/nonexistent/x.mkm"), -ENOENT);
	assert_null(src);
}

/* File source -> trace sink -> file source again: the same records. */
static void test_mon_sink_trace_roundtrip(void **state)
{
	struct evs s;
	struct keeper k = { 0 };
	struct mon_pipeline *p;
	struct mon_source *src;
	struct mon_sink *sink;
	char in[64], out[64];
	size_t i;
	int fd;

	(void)state;
	interleaved(&s);
	write_trace(in, s.ev, s.n, 9);
	strcpy(out, "/tmp/mkm-test-pipeline-XXXXXX");
	fd = mkstemp(out);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(mon_source_file(&src, in), 0);
	assert_int_equal(mon_pipeline_create(&p, src), 0);
	assert_int_equal(mon_sink_trace(&sink, out, mon_source_info(src)), 0);
	assert_int_equal(mon_pipeline_add_sink(p, sink), 0);
	assert_int_equal(mon_pipeline_run(p), 0);
	mon_pipeline_destroy(p);

	assert_int_equal(mon_source_file(&src, out), 0);
	assert_int_equal(mon_source_info(src)->nr_cpus, 2);
	p = pipeline_of(src, &k);
	assert_int_equal(mon_pipeline_run(p), 0);
	assert_int_equal(k.n, s.n);
	for (i = 0; i < s.n; i++)
		assert_memory_equal(&k.ev[i], &s.ev[i], sizeof(s.ev[i]));
	mon_pipeline_destroy(p);
	unlink(in);
	unlink(out);
}

/* A live recording's records, a batch and then its horizon, with the
 * size of the file each time the sink had taken the message before. */
struct horizon_src {
	struct counter_src c;
	const char *path;
	off_t size[4];
};

static off_t file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

static int batch_then_horizon(void *priv, struct mon_msg *msg)
{
	struct horizon_src *h = priv;

	if (h->c.nexts < 4)
		h->size[h->c.nexts] = file_size(h->path);
	if (h->c.nexts % 2 == 0) /* counter_next() counts itself */
		return counter_next(&h->c, msg);
	h->c.nexts++;
	msg->type = MON_MSG_HORIZON;
	msg->horizon_ns = 1000 + h->c.batches * h->c.per;
	return 1;
}

static const struct mon_source_ops batch_horizon_ops = {
	.name = "batch-horizon",
	.next = batch_then_horizon,
};

/* A recording is readable while it runs: a horizon puts what the sink
 * holds into the file (once a second; the first one at once). */
static void test_mon_sink_trace_flushes_at_horizon(void **state)
{
	struct horizon_src h = { .c = { .nr_batches = 2, .per = 3 } };
	struct mon_pipeline *p;
	struct mon_source *src;
	struct mon_sink *sink;
	char out[64];
	int fd;

	(void)state;
	strcpy(out, "/tmp/mkm-test-pipeline-XXXXXX");
	fd = mkstemp(out);
	assert_true(fd >= 0);
	close(fd);
	h.path = out;
	assert_int_equal(
		mon_source_new(&src, &batch_horizon_ops, &h, &test_info), 0);
	assert_int_equal(mon_pipeline_create(&p, src), 0);
	assert_int_equal(mon_sink_trace(&sink, out, &test_info), 0);
	assert_int_equal(mon_pipeline_add_sink(p, sink), 0);
	assert_int_equal(mon_pipeline_run(p), 0);
	mon_pipeline_destroy(p);
	assert_int_equal(h.size[1], h.size[0]); /* the records: kept */
	assert_true(h.size[2] >= /* the horizon: written */
		    h.size[1] + (off_t)(3 * sizeof(struct mkm_event)));
	unlink(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mon_pipeline_run_batches),
		cmocka_unit_test(test_mon_pipeline_sink_done_stops_source),
		cmocka_unit_test(test_mon_pipeline_sink_error_names_offset),
		cmocka_unit_test(test_mon_pipeline_no_sink),
		cmocka_unit_test(test_mon_stage_delay_and_drop),
		cmocka_unit_test(test_mon_stage_order_sorts),
		cmocka_unit_test(test_mon_stage_filter_threads),
		cmocka_unit_test(test_mon_stage_filter_switch_halves),
		cmocka_unit_test(test_mon_source_merge_equal_timestamps),
		cmocka_unit_test(test_mon_source_merge_keeps_losses),
		cmocka_unit_test(test_mon_source_file_cut),
		cmocka_unit_test(test_mon_sink_trace_roundtrip),
		cmocka_unit_test(test_mon_sink_trace_flushes_at_horizon),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
