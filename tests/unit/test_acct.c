// SPDX-License-Identifier: GPL-2.0
/*
 * test_acct.c - unit tests of libmonitor/src/acct.c: msa() totals, burst
 * statistics, the CPU x thread matrix and per-CPU summaries of a
 * hand-checked four-thread stream.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "evstream.h"

#define NONE 0xffffffffu
#define P 100 /* forks C, which forks G */
#define C 101
#define G 102
#define U 200 /* unrelated */

/*
 * P: RUN0 100-150 INTERRUPTED0 -160 RUN0 -300 SLEEP0 -950 RUNQ0 -1000 RUN0
 * C: RUNQ0 200-300 RUN0 -400 RUNQ0 -410 RUNQ1 -420 RUN1 -500 SLEEP1 -1000
 * G: RUNQ0 350-400 RUN0 -600 ZOMBIE0 -650 (reaped)
 * U: SLEEP1 100-700 RUNQ1 -800 RUN1 -900 SLEEP1 -920 RUNQ1 -950 RUN1 -1000
 */
static struct tl *family(void)
{
	struct evs s = { 0 };

	ATTACH(&s, 100, 0, P, MKM_TS_RUNNING, 0);
	evs_add(&s, 150, 0, MKM_EV_IRQ_ENTRY, P, 5, 0, 0);
	evs_add(&s, 160, 0, MKM_EV_IRQ_EXIT, P, 5, 1, 0);
	evs_add(&s, 200, 0, MKM_EV_FORK, P, C, C, MKM_EVF_INHERITED);
	OUT(&s, 300, 0, P, MKM_TS_INTERRUPTIBLE, C);
	IN(&s, 300, 0, C, P);
	evs_add(&s, 350, 0, MKM_EV_FORK, C, G, G, MKM_EVF_INHERITED);
	evs_add(&s, 400, 0, MKM_EV_SWITCH_OUT, C, MKM_TS_RUNNING, G,
		MKM_EVF_PREEMPTED);
	IN(&s, 400, 0, G, C);
	OUT(&s, 600, 0, G, MKM_TS_ZOMBIE, 0);
	IN(&s, 1000, 0, P, 0);

	ATTACH(&s, 100, 1, U, MKM_TS_INTERRUPTIBLE, NONE);
	evs_add(&s, 410, 1, MKM_EV_MIGRATE, C, 1, 0, 0);
	IN(&s, 420, 1, C, 0);
	OUT(&s, 500, 1, C, MKM_TS_INTERRUPTIBLE, 0);
	evs_add(&s, 650, 1, MKM_EV_REAP, G, 0, 0, 0);
	WAKEUP(&s, 700, 1, U, 1);
	IN(&s, 800, 1, U, 0);
	OUT(&s, 900, 1, U, MKM_TS_INTERRUPTIBLE, 0);
	WAKEUP(&s, 920, 1, U, 1);
	IN(&s, 950, 1, U, 0); /* idle only since 900: a flutter */
	WAKEUP(&s, 950, 1, P, 0);
	return build(&s, 0, 2);
}

static size_t idx(const struct tl *tl, uint32_t tid)
{
	int64_t i = tl_find(tl, tid);

	assert_true(i >= 0);
	return (size_t)i;
}

static void test_acct_msa_thread(void **state)
{
	uint64_t t[TL_NR_STATES];
	struct tl *tl = family();

	(void)state;
	EXPECT(tl, C, { 200, 300, TL_RUNQ, 0 }, { 300, 400, TL_RUN, 0 },
	       { 400, 410, TL_RUNQ, 0 }, { 410, 420, TL_RUNQ, 1 },
	       { 420, 500, TL_RUN, 1 }, { 500, 1000, TL_SLEEP, 1 });
	assert_int_equal(acct_msa(tl, ACCT_THREAD, idx(tl, P), TL_NR_STATES, t),
			 0);
	assert_int_equal(t[TL_RUN], 190);
	assert_int_equal(t[TL_INTERRUPTED], 10);
	assert_int_equal(t[TL_SLEEP], 650);
	assert_int_equal(t[TL_RUNQ], 50);
	assert_int_equal(t[TL_ZOMBIE], 0);
	assert_int_equal(acct_msa(tl, ACCT_THREAD, idx(tl, G), TL_NR_STATES, t),
			 0);
	assert_int_equal(t[TL_RUNQ], 50);
	assert_int_equal(t[TL_RUN], 200);
	assert_int_equal(t[TL_ZOMBIE], 50);
	tl_destroy(tl);
}

static void test_acct_msa_children(void **state)
{
	uint64_t t[TL_NR_STATES];
	struct tl *tl = family();

	(void)state;
	assert_int_equal(
		acct_msa(tl, ACCT_CHILDREN, idx(tl, P), TL_NR_STATES, t), 0);
	assert_int_equal(t[TL_RUNQ], 170);
	assert_int_equal(t[TL_RUN], 380);
	assert_int_equal(t[TL_SLEEP], 500);
	assert_int_equal(t[TL_ZOMBIE], 50);
	assert_int_equal(t[TL_INTERRUPTED], 0);
	assert_int_equal(
		acct_msa(tl, ACCT_CHILDREN, idx(tl, C), TL_NR_STATES, t), 0);
	assert_int_equal(t[TL_RUN], 200);
	assert_int_equal(
		acct_msa(tl, ACCT_CHILDREN, idx(tl, U), TL_NR_STATES, t), 0);
	assert_int_equal(t[TL_RUN] + t[TL_SLEEP] + t[TL_RUNQ], 0);
	tl_destroy(tl);
}

static void test_acct_msa_all_sums_lives(void **state)
{
	uint64_t t[TL_NR_STATES], sum = 0, small[3];
	struct tl *tl = family();
	size_t i;

	(void)state;
	assert_int_equal(acct_msa(tl, ACCT_ALL, 0, TL_NR_STATES, t), 0);
	assert_int_equal(t[TL_RUN], 720);
	assert_int_equal(t[TL_INTERRUPTED], 10);
	assert_int_equal(t[TL_SLEEP], 1770);
	assert_int_equal(t[TL_RUNQ], 350);
	assert_int_equal(t[TL_ZOMBIE], 50);
	for (i = 0; i < TL_NR_STATES; i++)
		sum += t[i];
	/* Lives: P 900, C 800, G 300, U 900. */
	assert_int_equal(sum, 2900);
	/* Fewer timers than states: only the first ones are written. */
	memset(small, 0xff, sizeof(small));
	assert_int_equal(acct_msa(tl, ACCT_ALL, 0, 2, small), 0);
	assert_int_equal(small[TL_RUN], 720);
	assert_int_equal(small[2], UINT64_MAX);
	tl_destroy(tl);
}

static void test_acct_msa_invalid(void **state)
{
	uint64_t t[TL_NR_STATES];
	struct tl *tl = family();

	(void)state;
	assert_int_equal(acct_msa(NULL, ACCT_ALL, 0, TL_NR_STATES, t), -EINVAL);
	assert_int_equal(acct_msa(tl, (enum acct_scope)7, 0, TL_NR_STATES, t),
			 -EINVAL);
	assert_int_equal(acct_msa(tl, ACCT_THREAD, 4, TL_NR_STATES, t),
			 -ENOENT);
	assert_int_equal(acct_msa(tl, ACCT_ALL, 4, 1, NULL), -EINVAL);
	assert_int_equal(acct_msa(tl, ACCT_ALL, 4, 0, NULL), 0);
	tl_destroy(tl);
}

static void test_acct_bursts_closed_only(void **state)
{
	static const double run[] = { 50, 140, 100, 80, 200, 100 };
	struct acct_burst b[TL_NR_STATES];
	struct tl *tl = family();
	double mean = 0, var = 0;
	size_t i;

	(void)state;
	for (i = 0; i < 6; i++)
		mean += run[i] / 6;
	for (i = 0; i < 6; i++)
		var += (run[i] - mean) * (run[i] - mean) / 6;
	assert_int_equal(acct_bursts(tl, ACCT_ALL, 0, b), 0);
	/* The open RUN bursts of P (at 1000) and U (950-1000) are left out. */
	assert_int_equal(b[TL_RUN].count, 6);
	assert_int_equal(b[TL_RUN].total_ns, 670);
	assert_int_equal(b[TL_RUN].min_ns, 50);
	assert_int_equal(b[TL_RUN].max_ns, 200);
	assert_true(fabs(b[TL_RUN].mean_ns - mean) < 1e-9);
	assert_true(fabs(b[TL_RUN].stddev_ns - sqrt(var)) < 1e-9);
	assert_int_equal(b[TL_ZOMBIE].count, 1); /* G was reaped: closed */
	assert_int_equal(b[TL_INTERRUPTED].count, 1);
	assert_int_equal(b[TL_STOPPED].count, 0);
	assert_true(b[TL_STOPPED].mean_ns == 0 && b[TL_STOPPED].min_ns == 0);
	assert_int_equal(acct_bursts(tl, ACCT_THREAD, idx(tl, U), b), 0);
	assert_int_equal(b[TL_SLEEP].count, 2);
	assert_int_equal(b[TL_SLEEP].min_ns, 20);
	assert_int_equal(b[TL_SLEEP].max_ns, 600);
	assert_true(fabs(b[TL_SLEEP].stddev_ns - 290.0) < 1e-9);
	assert_int_equal(b[TL_RUNQ].count, 2);
	assert_int_equal(acct_bursts(tl, ACCT_THREAD, 9, b), -ENOENT);
	assert_int_equal(acct_bursts(tl, ACCT_ALL, 0, NULL), -EINVAL);
	tl_destroy(tl);
}

static void test_acct_matrix_cpu_by_thread(void **state)
{
	struct tl *tl = family();
	unsigned int ncpu = tl_nr_cpus(tl);
	size_t nth = tl_nr_threads(tl);
	struct acct_cell *m = calloc(ncpu * nth, sizeof(*m));

	(void)state;
	assert_int_equal(ncpu, 2);
	assert_int_equal(nth, 4);
	assert_int_equal(acct_matrix(tl, m, ncpu, nth), 0);
#define CELL(cpu, tid) m[(cpu)*nth + idx(tl, tid)]
	assert_int_equal(CELL(0, P).run_ns, 190);
	assert_int_equal(CELL(0, P).dispatches, 2); /* the IRQ does not split */
	assert_int_equal(CELL(1, P).run_ns, 0);
	assert_int_equal(CELL(0, C).run_ns, 100);
	assert_int_equal(CELL(1, C).run_ns, 80);
	assert_int_equal(CELL(0, C).dispatches, 1);
	assert_int_equal(CELL(1, C).dispatches, 1);
	assert_int_equal(CELL(0, G).run_ns, 200);
	assert_int_equal(CELL(1, U).run_ns, 150);
	assert_int_equal(CELL(1, U).dispatches, 2);
	assert_int_equal(CELL(0, U).dispatches, 0);
#undef CELL
	/* A smaller matrix: CPU 1 and threads past the first are left out. */
	assert_int_equal(acct_matrix(tl, m, 1, 1), 0);
	assert_int_equal(idx(tl, P), 0);
	assert_int_equal(m[0].run_ns, 190);
	assert_int_equal(acct_matrix(tl, NULL, 0, 0), 0);
	assert_int_equal(acct_matrix(tl, NULL, 1, 1), -EINVAL);
	assert_int_equal(acct_matrix(tl, m, 0xffffffffu, SIZE_MAX / 2),
			 -EOVERFLOW);
	free(m);
	tl_destroy(tl);
}

static void test_acct_cpu_summary(void **state)
{
	struct tl *tl = family();
	struct acct_cpu c;

	(void)state;
	assert_int_equal(acct_cpu(tl, 0, &c), 0);
	assert_int_equal(c.run_ns, 500);
	assert_int_equal(c.interrupted_ns, 10);
	assert_int_equal(c.switches, 3);
	assert_int_equal(c.flutters, 0);
	assert_int_equal(c.threads, 3);
	assert_int_equal(c.events, 11);
	assert_int_equal(c.lost, 0);
	assert_int_equal(c.first_ns, 100);
	assert_int_equal(c.last_ns, 1000);
	assert_int_equal(acct_cpu(tl, 1, &c), 0);
	assert_int_equal(c.run_ns, 230);
	assert_int_equal(c.interrupted_ns, 0);
	assert_int_equal(c.switches, 3);
	assert_int_equal(c.flutters, 1);
	assert_int_equal(c.threads, 2);
	assert_int_equal(c.events, 11);
	assert_int_equal(acct_cpu(tl, 2, &c), -ENOENT);
	assert_int_equal(acct_cpu(tl, 0, NULL), -EINVAL);
	tl_destroy(tl);
}

static void test_acct_cpus_matches_acct_cpu(void **state)
{
	struct tl *tl = family();
	struct acct_cpu all[3], one;
	unsigned int c;

	(void)state;
	memset(all, 0xee, sizeof(all));
	assert_int_equal(acct_cpus(tl, all, 3), 0);
	for (c = 0; c < 2; c++) {
		assert_int_equal(acct_cpu(tl, c, &one), 0);
		assert_memory_equal(&all[c], &one, sizeof(one));
	}
	assert_int_equal(all[2].run_ns, 0xeeeeeeeeeeeeeeeeull); /* untouched */
	assert_int_equal(acct_cpus(tl, NULL, 1), -EINVAL);
	assert_int_equal(acct_cpus(tl, NULL, 0), 0);
	tl_destroy(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_acct_msa_thread),
		cmocka_unit_test(test_acct_msa_children),
		cmocka_unit_test(test_acct_msa_all_sums_lives),
		cmocka_unit_test(test_acct_msa_invalid),
		cmocka_unit_test(test_acct_bursts_closed_only),
		cmocka_unit_test(test_acct_matrix_cpu_by_thread),
		cmocka_unit_test(test_acct_cpu_summary),
		cmocka_unit_test(test_acct_cpus_matches_acct_cpu),
	};

	return cmocka_run_group_tests_name("acct", tests, NULL, NULL);
}
