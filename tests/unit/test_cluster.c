// SPDX-License-Identifier: GPL-2.0
/*
 * test_cluster.c - unit tests of libmonitor/src/cluster/: the alignment of
 * a node's clock, and mon_merge() on synthetic jobs whose clocks are known
 * (synjob.h): offsets, drifts and steps merged within 1 us of the truth,
 * and bad inputs (a missing node, a cut trace, another job's trace, a
 * node twice, not a trace) named while the rest merges.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evstream.h"
#include "synjob.h"

#define SEC 1000000000ull

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test_cluster.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static const char *path_of(const char *name)
{
	static char paths[16][96];
	static unsigned int next;
	char *p = paths[next++ % 16];

	snprintf(p, 96, "%s/%s", dir, name);
	return p;
}

/* A node of job 77 with 3 nodes and a 1 s run, as the tests vary it. */
static struct syn_node node(const char *name, uint32_t id, int64_t offset,
			    double drift)
{
	struct syn_node n = {
		.name = name,
		.node_id = id,
		.nr_nodes = 3,
		.job_id = 77,
		.step_id = 0,
		.reference = id == 0,
		.reference_name = "n0",
		.offset_ns = offset,
		.drift = drift,
		.nr_cpus = 2,
		.rtt_ns = 20000,
		.asym_ns = 1200, /* the offset's true error: 600 ns */
		.t0_ns = 10 * SEC,
		.t1_ns = 11 * SEC,
		.period_ns = 37000,
	};

	return n;
}

struct check {
	size_t records, marks, attached;
	uint64_t worst_ns; /* |merged time - truth| */
	uint64_t worst_of[8]; /* by node index */
	size_t of[8];
	bool ordered;
	size_t nr_nodes;
	struct trace_node nodes[8];
	struct trace_info info;
	size_t clock_chunks;
	size_t nr_stats;
	uint64_t stats_read[16]; /* by merged CPU */
};

/* Reads a merged trace and compares every MARK with its truth. */
static void check_merged(const char *path, struct check *k)
{
	struct trace_reader *r;
	struct trace_chunk c;
	uint64_t last = 0;
	size_t i;
	int ret;

	memset(k, 0, sizeof(*k));
	k->ordered = true;
	assert_int_equal(trace_reader_open(&r, path), 0);
	k->info = *trace_reader_info(r);
	while ((ret = trace_reader_next(r, &c)) == 1) {
		if (c.type == TRACE_CHUNK_NODES) {
			assert_true(c.nr_nodes <= 8);
			k->nr_nodes = c.nr_nodes;
			memcpy(k->nodes, c.nodes,
			       c.nr_nodes * sizeof(*c.nodes));
		}
		if (c.type == TRACE_CHUNK_CLOCK_SYNC)
			k->clock_chunks++;
		if (c.type == TRACE_CHUNK_STATS) {
			k->nr_stats = c.nr_stats;
			for (i = 0; i < c.nr_stats && i < 16; i++)
				k->stats_read[i] = c.stats[i].read;
		}
		if (c.type != TRACE_CHUNK_EVENTS)
			continue;
		for (i = 0; i < c.nr_events; i++) {
			const struct mkm_event *e = &c.events[i];
			uint32_t idx = e->tid >> TRACE_NODE_TID_SHIFT;
			uint64_t d;

			k->records++;
			if (e->time_ns < last)
				k->ordered = false;
			last = e->time_ns;
			if (e->type == MKM_EV_ATTACH) {
				/* Its CPU argument moved with its CPU. */
				assert_int_equal(e->arg1, e->cpu);
				assert_int_equal(
					e->tid & TRACE_NODE_TID_MASK,
					1000 + e->cpu - k->nodes[idx].cpu_base);
				k->attached++;
			}
			if (e->type != MKM_EV_MARK)
				continue;
			k->marks++;
			d = e->time_ns > syn_truth(e) ?
				    e->time_ns - syn_truth(e) :
				    syn_truth(e) - e->time_ns;
			if (d > k->worst_ns)
				k->worst_ns = d;
			assert_true(idx < 8);
			k->of[idx]++;
			if (d > k->worst_of[idx])
				k->worst_of[idx] = d;
			/* The node's tid and CPU, made unique. */
			assert_int_equal(e->tid & TRACE_NODE_TID_MASK,
					 1000 + e->cpu -
						 k->nodes[idx].cpu_base);
		}
	}
	assert_int_equal(ret, 0);
	trace_reader_close(r);
}

static void write_nodes(struct syn_node *n, size_t nr, const char **paths)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		paths[i] = path_of(n[i].name);
		assert_true(syn_write(&n[i], paths[i]) > 0);
	}
}

static void test_mon_align_linear_between_exchanges(void **state)
{
	/* Offset -1 s growing by 50 ppm, exchanges 1 s apart. */
	struct trace_clock_sample s[3] = {
		{ .local_ns = 1 * SEC,
		  .offset_ns = -1000000000,
		  .error_ns = 800 },
		{ .local_ns = 2 * SEC,
		  .offset_ns = -1000000000 + 50000,
		  .error_ns = 200 },
		{ .local_ns = 3 * SEC,
		  .offset_ns = -1000000000 + 100000,
		  .error_ns = 200 },
	};
	struct mkm_event e = { .time_ns = 1500000000, .cpu = 0 };
	struct mon_align_summary sum;
	struct mon_align *a;
	uint64_t err;

	(void)state;
	assert_int_equal(mon_align_new(&a, s, 3), 0);
	assert_int_equal(mon_align_steps(a), 0);
	/* Half way between: the offset and the bound interpolated. */
	assert_int_equal(mon_align_time(a, 1500000000, 0, &err),
			 1500000000 - 1000000000 + 25000);
	assert_int_equal(err, 500);
	assert_int_equal(mon_align_event(a, &e, &err), 500025000);
	/* Beyond the last exchange: extrapolated, the bound growing by the
	 * line's own uncertainty ((200 + 200) / 1 s, over 1 s). */
	assert_int_equal(mon_align_time(a, 4 * SEC, 0, &err),
			 4 * SEC - 1000000000 + 150000);
	assert_int_equal(err, 200 + 400);
	assert_int_equal(mon_align_summarize(a, 1 * SEC, 3 * SEC, &sum), 0);
	assert_int_equal(sum.drift_ppb, 50000);
	assert_int_equal(sum.offset_ns, -1000000000);
	assert_int_equal(sum.max_error_ns, 800);
	assert_int_equal(sum.steps, 0);
	assert_false(sum.no_drift);
	mon_align_destroy(a);

	/* One exchange: the offset, and no drift known. */
	assert_int_equal(mon_align_new(&a, s, 1), 0);
	assert_int_equal(mon_align_time(a, 2 * SEC, 0, &err), 1 * SEC);
	assert_int_equal(err, 800 + MON_ALIGN_MAX_DRIFT_PPB);
	assert_int_equal(mon_align_summarize(a, 1 * SEC, 2 * SEC, &sum), 0);
	assert_true(sum.no_drift);
	mon_align_destroy(a);

	assert_int_equal(mon_align_new(&a, s, 0), -EINVAL);
	s[1].error_ns = 0; /* an offset without a bound is no measurement */
	assert_int_equal(mon_align_new(&a, s, 3), -EINVAL);
}

static void test_mon_align_finds_steps(void **state)
{
	struct trace_clock_sample s[4] = {
		{ .local_ns = 1 * SEC, .offset_ns = 1000, .error_ns = 500 },
		{ .local_ns = 2 * SEC, .offset_ns = 1010, .error_ns = 500 },
		/* 3 ms in 1 s is 3000 ppm: no oscillator drifts that fast */
		{ .local_ns = 3 * SEC,
		  .offset_ns = 1020 - 3000000,
		  .error_ns = 500 },
		{ .local_ns = 4 * SEC,
		  .offset_ns = 1030 - 3000000,
		  .error_ns = 500 },
	};
	struct mon_align_summary sum;
	struct mon_align *a;

	(void)state;
	assert_int_equal(mon_align_new(&a, s, 4), 0);
	assert_int_equal(mon_align_steps(a), 1);
	assert_int_equal(mon_align_summarize(a, 1 * SEC, 4 * SEC, &sum), 0);
	assert_int_equal(sum.largest_step_ns, 3000000);
	/* Each epoch keeps its own drift: 10 ns per s, i.e. 10 ppb. */
	assert_int_equal(sum.drift_ppb, 10);
	mon_align_destroy(a);

	/* 600 us in 1 s is within what clocks drift: no step, unless the
	 * recorder said so. */
	s[2].offset_ns = s[3].offset_ns = 600000;
	assert_int_equal(mon_align_new(&a, s, 4), 0);
	assert_int_equal(mon_align_steps(a), 0);
	mon_align_destroy(a);
	s[2].flags = TRACE_CLOCK_STEPPED;
	assert_int_equal(mon_align_new(&a, s, 4), 0);
	assert_int_equal(mon_align_steps(a), 1);
	mon_align_destroy(a);

	assert_int_equal(mon_align_identity(&a), 0);
	assert_int_equal(mon_align_time(a, 12345, 0, NULL), 12345);
	mon_align_destroy(a);
}

static void merge_ok(const char **paths, size_t n, const char *out,
		     struct mon_merge_result *res)
{
	int ret = mon_merge(paths, n, out, NULL, res);
	size_t i;

	for (i = 0; i < res->nr_inputs; i++)
		if (res->inputs[i].err)
			print_message("%s\n", res->inputs[i].msg);
	assert_int_equal(ret, 0);
}

/* Known offsets (seconds) and drifts (tens of ppm), exchanges at the
 * start and end only, then with periodic ones: within 1 us. */
static void test_mon_merge_offsets_and_drifts(void **state)
{
	struct syn_node n[3] = {
		node("n0", 0, 0, 0),
		node("n1", 1, 5300000000LL, 40e-6),
		node("n2", 2, -2100000000LL, -25e-6),
	};
	const char *paths[3], *out = path_of("job.mkm");
	struct mon_merge_result res;
	struct check k;
	unsigned int periodic;
	size_t i;

	(void)state;
	for (periodic = 0; periodic <= 4; periodic += 4) {
		for (i = 0; i < 3; i++) {
			n[i].periodic = periodic;
			n[i].own_tid = 990 + (uint32_t)i;
		}
		/* The order given is not the nodes' order. */
		write_nodes(n, 3, paths);
		paths[0] = path_of("n2");
		paths[2] = path_of("n0");
		merge_ok(paths, 3, out, &res);
		assert_int_equal(res.nr_merged, 3);
		assert_string_equal(res.reference, "n0");
		assert_int_equal(res.job_id, 77);
		check_merged(out, &k);
		assert_true(k.ordered);
		assert_int_equal(k.records, res.events);
		/* Each node's recorder, as its tids are mapped. */
		assert_int_equal(k.info.nr_monitor_tids, 3);
		for (i = 0; i < 3; i++)
			assert_int_equal(k.info.monitor_tids[i],
					 i << TRACE_NODE_TID_SHIFT | (990 + i));
		assert_int_equal(k.marks + k.attached, res.events);
		assert_int_equal(k.attached, 6);
		print_message("periodic %u: worst %llu ns over %zu records\n",
			      periodic, (unsigned long long)k.worst_ns,
			      k.marks);
		assert_true(k.worst_ns <= 1000);
		/* Without alignment they would be seconds apart. */
		assert_int_equal(k.nr_nodes, 3);
		for (i = 0; i < 3; i++) {
			const struct trace_node *tn = &k.nodes[i];

			assert_string_equal(tn->name, n[i].name);
			assert_int_equal(tn->index, i);
			assert_int_equal(tn->cpu_base, 2 * i);
			assert_int_equal(tn->nr_cpus, 2);
			assert_true(k.of[i] > 50000);
			/* The bound holds what happened. */
			assert_true(k.worst_of[i] <= tn->error_ns);
			assert_int_equal(tn->nr_samples, i ? periodic + 2 : 0);
		}
		assert_true(k.nodes[0].flags & TRACE_NODE_REFERENCE);
		assert_false(k.nodes[1].flags & TRACE_NODE_REFERENCE);
		/* Drift, as ppb of the reference's minus the node's clock. */
		assert_true(llabs(k.nodes[1].drift_ppb + 40000) < 100);
		assert_true(llabs(k.nodes[2].drift_ppb - 25000) < 100);
		assert_true(k.info.trace_flags & TRACE_F_MERGED);
		{
			struct mon_nodes mn;

			assert_int_equal(mon_nodes_load(&mn, out), 0);
			assert_int_equal(mn.hdr.nr_nodes, 3);
			assert_string_equal(mon_nodes_of_cpu(&mn, 3)->name,
					    "n1");
			assert_string_equal(
				mon_nodes_of_tid(&mn, 2u << 22 | 1000)->name,
				"n2");
			assert_null(mon_nodes_of_tid(&mn, 0));
			assert_null(mon_nodes_of_cpu(&mn, 6));
			mon_nodes_free(&mn);
			/* A node's own trace is no merged trace. */
			assert_int_equal(mon_nodes_load(&mn, paths[1]),
					 -ENOENT);
		}
		assert_int_equal(k.info.nr_cpus, 6);
		/* Every exchange message received after it was sent on the
		 * merged clock: two nodes, two messages per exchange. */
		assert_int_equal(res.messages, 2 * 2 * (periodic + 2));
		assert_int_equal(res.violations, 0);
		assert_int_equal(res.inputs[1].check.exchanges, periodic + 2);
		assert_true(res.inputs[1].check.min_margin_ns > 0);
		assert_int_equal(res.inputs[1].check.max_error_ns,
				 k.nodes[1].error_ns);
		assert_int_equal(res.inputs[2].check.messages, 0); /* n0 */
		/* Each node's exchanges, the reference's with itself too. */
		assert_int_equal(k.clock_chunks, 3);
		/* Each node's STATS at its CPUs: what it read, per CPU. */
		assert_int_equal(k.nr_stats, 6);
		for (i = 0; i < 3; i++)
			assert_int_equal(k.stats_read[2 * i] +
						 k.stats_read[2 * i + 1],
					 k.of[i] + 2);
		mon_merge_free(&res);
	}
}

/* A node whose clock steps forward mid-run, one whose clock steps back,
 * with exchanges every 100 ms. A CPU of each is idle across the step: the
 * forward one's idle gap holds the step, the backward one's CPU shows no
 * time going back, so the other CPUs say where the step falls. */
static void test_mon_merge_clock_steps(void **state)
{
	struct syn_node n[3] = {
		node("n0", 0, 0, 0),
		node("n1", 1, 5300000000LL, 40e-6),
		node("n2", 2, -2100000000LL, -25e-6),
	};
	const char *paths[3], *out = path_of("job.mkm");
	struct mon_merge_result res;
	struct check k;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++)
		n[i].periodic = 9;
	n[1].step_at_ns = 10 * SEC + 453000000;
	n[1].step_ns = 3000000;
	n[1].nr_cpus = 3;
	n[1].sparse_cpu = 3;
	n[2].step_at_ns = 10 * SEC + 611000000;
	n[2].step_ns = -2000000;
	n[2].nr_cpus = 3;
	n[2].sparse_cpu = 3;
	write_nodes(n, 3, paths);
	merge_ok(paths, 3, out, &res);
	check_merged(out, &k);
	for (i = 0; i < 3; i++)
		print_message(
			"steps: node %zu: worst %llu ns over %zu records, "
			"%llu ambiguous\n",
			i, (unsigned long long)k.worst_of[i], k.of[i],
			(unsigned long long)k.nodes[i].ambiguous);
	assert_true(k.ordered);
	assert_true(k.worst_ns <= 1000);
	assert_true(k.nodes[1].flags & TRACE_NODE_STEPPED);
	assert_true(k.nodes[2].flags & TRACE_NODE_STEPPED);
	assert_false(k.nodes[0].flags & TRACE_NODE_STEPPED);
	assert_int_equal(res.inputs[1].align.steps, 1);
	assert_true(llabs(res.inputs[1].align.largest_step_ns - 3000000) <
		    1000);
	assert_true(llabs(res.inputs[2].align.largest_step_ns + 2000000) <
		    1000);
	assert_int_equal(k.nodes[1].ambiguous, 0);
	assert_int_equal(k.nodes[2].ambiguous, 0);
	assert_int_equal(k.nodes[1].cpu_base, 2);
	assert_int_equal(k.nodes[2].cpu_base, 5);
	assert_int_equal(k.info.nr_cpus, 8);
	/* Each epoch holds its exchanges: none crosses a step. */
	assert_int_equal(res.messages, 2 * 2 * 11);
	assert_int_equal(res.violations, 0);
	mon_merge_free(&res);
}

/* A node whose clock's rate changes half way (+40 ppm, then -40: NTP
 * retuning it): exchanges at the start and end only draw one line
 * through a bent offset, 20 us off in the middle, twice their bound;
 * periodic ones every 100 ms follow the bend, linear between each two. */
static void test_mon_merge_periodic_follows_drift(void **state)
{
	struct syn_node n[2] = {
		node("n0", 0, 0, 0),
		node("n1", 1, 5300000000LL, 40e-6),
	};
	const char *paths[2], *out = path_of("bend.mkm");
	struct mon_merge_result res;
	struct check k;
	unsigned int periodic;

	(void)state;
	n[0].nr_nodes = n[1].nr_nodes = 2;
	n[1].drift_at_ns = 10 * SEC + SEC / 2 + 20000000;
	n[1].drift2 = -40e-6;
	for (periodic = 0; periodic <= 9; periodic += 9) {
		n[0].periodic = n[1].periodic = periodic;
		write_nodes(n, 2, paths);
		merge_ok(paths, 2, out, &res);
		check_merged(out, &k);
		print_message("rate change, %u periodic exchanges: worst %llu "
			      "ns, bound %llu ns, %zu causality violations\n",
			      periodic, (unsigned long long)k.worst_of[1],
			      (unsigned long long)k.nodes[1].error_ns,
			      res.violations);
		assert_true(k.ordered);
		assert_int_equal(k.nodes[1].nr_samples, periodic + 2);
		assert_int_equal(res.violations, 0);
		if (periodic) {
			/* The bend's segment: 2 us at most, + the 600 ns
			 * asymmetry. */
			assert_true(k.worst_of[1] <= 2600);
			assert_true(k.worst_of[1] <= k.nodes[1].error_ns);
		} else {
			assert_true(k.worst_of[1] > 15000);
		}
		mon_merge_free(&res);
	}
}

/* The causality check against alignments right and wrong: a node 5.3 s
 * behind, 40 ppm fast, its exchanges 20 us round trips with a 1.2 us
 * asymmetry (synjob.h), every 100 ms. */
static void test_mon_align_check_offsets(void **state)
{
	struct syn_node n = node("n1", 1, 5300000000LL, 40e-6);
	struct trace_clock_sample s[6], w[6];
	struct mon_align_check c;
	struct mon_align *a;
	int64_t shift;
	size_t i;

	(void)state;
	for (i = 0; i < 6; i++)
		s[i] = syn_exchange(&n, 10 * SEC + i * SEC / 10,
				    TRACE_CLOCK_PERIODIC);
	/* Its own exchanges: every message after its send, by about half
	 * the round trip. */
	assert_int_equal(mon_align_new(&a, s, 6), 0);
	assert_int_equal(mon_align_check(a, s, 6, &c), 0);
	assert_int_equal(c.exchanges, 6);
	assert_int_equal(c.messages, 12);
	assert_int_equal(c.violations, 0);
	assert_true(c.min_margin_ns > 9000 && c.min_margin_ns <= 10000);
	assert_int_equal(c.min_error_ns, s[0].error_ns);
	assert_int_equal(c.max_error_ns, s[0].error_ns);
	mon_align_destroy(a);

	/* An alignment whose offsets are off by 3 bounds: forward, every
	 * request arrives before it left; back, every reply does. Off by
	 * half a bound: still within causality. */
	for (shift = -3; shift <= 3; shift++) {
		int64_t by = shift * (int64_t)s[0].error_ns;

		if (shift == 0)
			by = (int64_t)s[0].error_ns / 2;
		for (i = 0; i < 6; i++) {
			w[i] = s[i];
			w[i].offset_ns += by;
		}
		assert_int_equal(mon_align_new(&a, w, 6), 0);
		assert_int_equal(mon_align_check(a, s, 6, &c), 0);
		print_message("offset off by %+lld ns: %zu violations, "
			      "margin %lld ns\n",
			      (long long)by, c.violations,
			      (long long)c.min_margin_ns);
		/* The causal interval's half-width is the bound less its
		 * 1 ns of resolution: a whole bound off is 1 ns outside. */
		assert_int_equal(c.violations, shift ? 6 : 0);
		assert_int_equal(c.min_margin_ns,
				 (int64_t)s[0].error_ns - 1 - llabs(by));
		mon_align_destroy(a);
	}

	/* A one-sample alignment checked on more exchanges (by time), and
	 * one 1 ms off: all of the later requests. */
	for (i = 0; i < 6; i++) {
		w[i] = s[i];
		w[i].offset_ns += 1000000;
	}
	assert_int_equal(mon_align_new(&a, w, 1), 0);
	assert_int_equal(mon_align_check(a, s, 6, &c), 0);
	assert_int_equal(c.violations, 6);
	mon_align_destroy(a);
	/* The reference's own samples (error 0) are not messages. */
	assert_int_equal(mon_align_identity(&a), 0);
	memset(w, 0, sizeof(w));
	w[0].local_ns = 10 * SEC;
	assert_int_equal(mon_align_check(a, w, 1, &c), 0);
	assert_int_equal(c.messages, 0);
	/* An exchange whose round trip is longer than its clock's age is
	 * damage: two violations, not a node left unchecked. */
	w[0].rtt_ns = 30 * SEC;
	w[0].error_ns = 15 * SEC + 1;
	assert_int_equal(mon_align_check(a, w, 1, &c), 0);
	assert_int_equal(c.messages, 2);
	assert_int_equal(c.violations, 2);
	assert_int_equal(mon_align_check(NULL, w, 1, &c), -EINVAL);
	mon_align_destroy(a);
}

static void write_junk(const char *path)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs("not a trace, but long enough for a trace's header\n", f);
	fclose(f);
}

/* Node 3 of 5 has no trace, n2's is cut, x9's is of another job, n1 is
 * given twice, one file is no trace: each said, the rest merged. */
static void test_mon_merge_bad_inputs(void **state)
{
	struct syn_node n[4] = {
		node("n0", 0, 0, 0),
		node("n1", 1, 5300000000LL, 40e-6),
		node("n2", 2, -2100000000LL, -25e-6),
		node("x9", 4, 42, 1e-6),
	};
	const char *paths[6], *out = path_of("job.mkm");
	struct mon_merge_result res;
	struct check k;
	size_t i;

	(void)state;
	for (i = 0; i < 4; i++) {
		n[i].nr_nodes = 5;
		n[i].periodic = 2;
	}
	n[2].cut = true;
	n[3].job_id = 78;
	write_nodes(n, 4, paths);
	paths[4] = path_of("n1-again.mkm");
	assert_true(syn_write(&n[1], paths[4]) > 0);
	paths[5] = path_of("junk.mkm");
	write_junk(paths[5]);

	assert_int_equal(mon_merge(paths, 6, out, NULL, &res), 1);
	for (i = 0; i < res.nr_inputs; i++)
		print_message("  %s\n", res.inputs[i].msg);
	assert_int_equal(res.nr_merged, 3);
	assert_int_equal(res.nr_nodes, 5);
	/* x9 is node 4 of another job: job 77's nodes 3 and 4 are missing. */
	assert_int_equal(res.nr_missing, 2);
	assert_int_equal(res.missing[0], 3);
	assert_int_equal(res.missing[1], 4);
	assert_true(res.inputs[0].merged && !res.inputs[0].err);
	assert_true(res.inputs[1].merged && !res.inputs[1].err);
	/* Cut: merged as far as it reads, and said. */
	assert_true(res.inputs[2].merged);
	assert_int_equal(res.inputs[2].err, -ENODATA);
	assert_non_null(strstr(res.inputs[2].msg, "merged what is before it"));
	assert_false(res.inputs[3].merged);
	assert_int_equal(res.inputs[3].err, -EXDEV);
	assert_non_null(strstr(res.inputs[3].msg, "job 78.0, not 77.0"));
	assert_false(res.inputs[4].merged);
	assert_int_equal(res.inputs[4].err, -EEXIST);
	assert_non_null(strstr(res.inputs[4].msg, "node n1 is also"));
	assert_false(res.inputs[5].merged);
	assert_non_null(strstr(res.inputs[5].msg, "not an mkm trace"));

	check_merged(out, &k);
	assert_true(k.ordered);
	assert_int_equal(k.nr_nodes, 3);
	assert_true(k.nodes[2].flags & TRACE_NODE_TRUNCATED);
	/* The cut node lost its last exchange: extrapolated, within the
	 * bound it states. */
	assert_true(k.of[2] > 10000);
	assert_true(k.worst_of[2] <= k.nodes[2].error_ns);
	assert_true(k.worst_of[0] <= 1000 && k.worst_of[1] <= 1000);
	mon_merge_free(&res);

	/* Asked for job 78: only x9, and the others said. */
	{
		struct mon_merge_opts o = { .job_given = true, .job_id = 78 };

		assert_int_equal(mon_merge(paths, 4, out, &o, &res), 1);
		assert_int_equal(res.nr_merged, 1);
		mon_merge_free(&res);
	}
}

/* Nothing mergeable: nothing written, -ENOENT. */
static void test_mon_merge_nothing(void **state)
{
	const char *paths[1], *out = path_of("none.mkm");
	struct mon_merge_result res;

	(void)state;
	paths[0] = path_of("junk2.mkm");
	write_junk(paths[0]);
	unlink(out);
	assert_int_equal(mon_merge(paths, 1, out, NULL, &res), -ENOENT);
	assert_int_not_equal(access(out, F_OK), 0);
	assert_non_null(strstr(res.inputs[0].msg, "not an mkm trace"));
	mon_merge_free(&res);
	assert_int_equal(mon_merge(NULL, 1, out, NULL, &res), -EINVAL);
}

static void test_mon_node_path(void **state)
{
	char b[64];

	(void)state;
	assert_int_equal(mon_node_path(b, sizeof(b), "out/%j/%N.mkm", 1234, 0,
				       "n7", 7),
			 0);
	assert_string_equal(b, "out/1234/n7.mkm");
	assert_int_equal(
		mon_node_path(b, sizeof(b), "%j.%s-%n%%", 1234, 2, "n7", 7), 0);
	assert_string_equal(b, "1234.2-7%");
	assert_int_equal(mon_node_path(b, sizeof(b), "%x", 1, 0, "n", 0),
			 -EINVAL);
	assert_int_equal(mon_node_path(b, sizeof(b), "a%", 1, 0, "n", 0),
			 -EINVAL);
	/* A node name is one path component, never a way out of DIR. */
	assert_int_equal(mon_node_path(b, sizeof(b), "d/%N", 1, 0, "../x", 0),
			 -EINVAL);
	assert_int_equal(mon_node_path(b, 8, "out/%j/%N", 1234, 0, "n7", 7),
			 -ENAMETOOLONG);
	assert_int_equal(mon_node_path(b, 16, "out/%j/%N", 1234, 0, "n7", 7),
			 0);
}

/* A recorder's stream with exchanges added while it runs: each one in
 * the trace as a CLOCK_SYNC chunk, after INFO, before the records that
 * followed it; those added at the end flushed at the end. */
static void test_mon_stage_clock_sync(void **state)
{
	struct syn_node n = node("n1", 1, 5300000000LL, 40e-6);
	const char *in = path_of("sync-in.mkm"), *out = path_of("sync-out.mkm");
	struct trace_clock_sample smp = { .local_ns = 1,
					  .error_ns = 5,
					  .kind = TRACE_CLOCK_START };
	struct trace_info info;
	struct mon_source *src;
	struct mon_pipeline *p;
	struct mon_stage *st;
	struct mon_sink *sink;
	struct trace_reader *r;
	struct trace_chunk c;
	size_t syncs = 0, events_before_first = 0, samples = 0;
	bool seen_sync = false;
	int ret, steps = 0;

	(void)state;
	n.t1_ns = n.t0_ns + SEC / 10;
	assert_true(syn_write(&n, in) > 0);
	assert_int_equal(mon_source_file(&src, in), 0);
	info = *mon_source_info(src);
	assert_int_equal(mon_pipeline_create(&p, src), 0);
	assert_int_equal(mon_stage_clock_sync(&st, "n1", "n0"), 0);
	assert_int_equal(mon_pipeline_add_stage(p, st), 0);
	assert_int_equal(mon_sink_trace(&sink, out, &info), 0);
	assert_int_equal(mon_pipeline_add_sink(p, sink), 0);
	assert_int_equal(mon_stage_clock_sync_add(st, &smp), 0);
	while ((ret = mon_pipeline_step(p)) == 1)
		if (++steps == 5) {
			smp.kind = TRACE_CLOCK_PERIODIC;
			assert_int_equal(mon_stage_clock_sync_add(st, &smp), 0);
			assert_int_equal(mon_stage_clock_sync_add(st, &smp), 0);
		}
	assert_int_equal(ret, 0);
	mon_pipeline_destroy(p);

	assert_int_equal(trace_reader_open(&r, out), 0);
	while (trace_reader_next(r, &c) == 1) {
		if (c.type == TRACE_CHUNK_EVENTS && !seen_sync)
			events_before_first++;
		if (c.type != TRACE_CHUNK_CLOCK_SYNC)
			continue;
		/* The input's own exchanges pass too (node n1's). */
		seen_sync = true;
		syncs++;
		samples += c.nr_clock_samples;
		assert_string_equal(c.clock_sync_hdr->node, "n1");
	}
	assert_string_equal(trace_reader_error(r, NULL), "");
	trace_reader_close(r);
	assert_int_equal(events_before_first, 0);
	/* The input's start, periodic... and end exchanges (2 + 0), and ours:
	 * one at the start, two together. */
	assert_int_equal(samples, 2 + 3);
	assert_true(syncs >= 4);
	assert_int_equal(mon_stage_clock_sync(&st, "", "n0"), -EINVAL);
	assert_int_equal(mon_stage_clock_sync_add(NULL, &smp), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mon_align_linear_between_exchanges),
		cmocka_unit_test(test_mon_align_finds_steps),
		cmocka_unit_test(test_mon_align_check_offsets),
		cmocka_unit_test(test_mon_merge_periodic_follows_drift),
		cmocka_unit_test(test_mon_merge_offsets_and_drifts),
		cmocka_unit_test(test_mon_merge_clock_steps),
		cmocka_unit_test(test_mon_merge_bad_inputs),
		cmocka_unit_test(test_mon_merge_nothing),
		cmocka_unit_test(test_mon_node_path),
		cmocka_unit_test(test_mon_stage_clock_sync),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
