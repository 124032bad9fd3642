// SPDX-License-Identifier: GPL-2.0
/*
 * test_barrier.c - mon_barriers() on a synthetic merged job (synbarrier.h:
 * three ranks, one per node, a barrier gathered and released by rank 0;
 * a daemon on n1, a kernel thread on n2, the tick on n0 delay some
 * rounds), merged as mkm merge would: node i's tids i << 22 | tid, its
 * CPU merged CPU i.
 */
#include <errno.h>

#include "evstream.h"
#include "synbarrier.h"

#define US SYNB_US
#define MERGED(node, tid) ((node) << 22 | (tid))

struct to_evs {
	struct synb_out o;
	struct evs s;
};

static void to_evs(struct synb_out *o, unsigned int node, uint64_t t,
		   unsigned int type, uint32_t tid, uint32_t a0, uint32_t a1,
		   unsigned int flags)
{
	struct to_evs *x = (struct to_evs *)o;

	/* A switch's other thread is a tid too. */
	if (type == MKM_EV_SWITCH_OUT || type == MKM_EV_SWITCH_IN)
		a1 = a1 ? MERGED(node, a1) : 0;
	evs_add(&x->s, t, node, type, MERGED(node, tid), a0, a1, flags);
}

static struct tl *job(void)
{
	static struct to_evs x;
	struct tl_config cfg = { .nr_cpus = SYNB_NODES,
				 .classes = MKM_CLASS_DEFAULT,
				 .flags = TL_IDLE };
	struct tl *tl;

	memset(&x, 0, sizeof(x));
	x.o.emit = to_evs;
	synb_job(&x.o);
	assert_int_equal(tl_create(&tl, &cfg), 0);
	assert_int_equal(tl_feed(tl, x.s.ev, x.s.n), 0);
	assert_int_equal(tl_flush(tl), 0);
	return tl;
}

static void ranks(const struct tl *tl, size_t *th)
{
	unsigned int i;

	for (i = 0; i < 3; i++) {
		int64_t k = tl_find(tl, MERGED(i, SYNB_RANK));

		assert_true(k >= 0);
		th[i] = (size_t)k;
	}
}

static void test_barriers_name_node_and_cause(void **state)
{
	struct tl *tl = job();
	struct mon_barriers b;
	struct noise *n;
	size_t th[3], k, nlong = 0;
	(void)state;

	ranks(tl, th);
	assert_int_equal(noise_create(&n, tl), 0);
	assert_int_equal(mon_barriers(n, th, 3, &b), 0);
	/* Rank 0's 5 us wakes are not phases: 1 ms ones are. */
	assert_true(b.min_phase_ns >= 900 * US && b.min_phase_ns <= SYNB_PHASE);
	assert_int_equal(b.nr_rounds, SYNB_ROUNDS);
	/* A round's wait: rank 0 starts 20 us before the release it sends,
	 * rank 2 40 us after it: 60 us apart. */
	assert_int_equal(b.median_ns, 60 * US);
	assert_int_equal(b.nr_long, 4);
	for (k = 0; k < b.nr_rounds; k++) {
		const struct mon_barrier_round *r = &b.rounds[k];
		const struct synb_inj *j = NULL;
		unsigned int i;

		for (i = 0; i < 3 && !j; i++)
			j = synb_at((unsigned int)k, i);
		assert_int_equal(r->long_wait, j != NULL);
		if (!j)
			continue;
		nlong++;
		/* The node: the last rank's tid says it. */
		assert_int_equal(r->last, j->node);
		assert_true(r->last_ns - r->first_ns >= j->ns - 60 * US);
		if (j->who) {
			assert_int_equal(r->cause.kind, NOISE_THREAD);
			assert_int_equal(r->cause.thread,
					 tl_find(tl, MERGED(j->node, j->who)));
		} else {
			assert_int_equal(r->cause.kind, NOISE_IRQ_VECTOR);
			assert_string_equal(r->cause.name, "local_timer");
		}
		assert_int_equal(r->cause.taken_ns, j->ns);
		assert_int_equal(r->taken_ns, j->ns);
	}
	assert_int_equal(nlong, 4);
	/* Rank 0, last in round 5, never slept: round 6 still counted, its
	 * phase from the release on. */
	assert_int_equal(b.rounds[5].last, 0);
	assert_int_equal(b.rounds[5].last_ns, b.rounds[6].release_ns);
	assert_false(b.rounds[6].long_wait);
	mon_barriers_free(&b);
	noise_destroy(n);
	tl_destroy(tl);
}

/*
 * The noise law of Tsafrir et al. ("System noise and OS clock ticks",
 * 2005) on the same job: of 12 rounds, n0's rank is hit in one (the tick,
 * round 5), n1's in two (its daemon, rounds 3 and 7), n2's in one (round
 * 9), each in a round of its own.
 */
static void test_barriers_noise_law(void **state)
{
	struct tl *tl = job();
	struct mon_barrier_law law[3];
	struct mon_barriers b;
	struct noise *n;
	size_t th[3];
	(void)state;

	ranks(tl, th);
	assert_int_equal(noise_create(&n, tl), 0);
	assert_int_equal(mon_barriers(n, th, 3, &b), 0);
	assert_int_equal(b.nr_threads, 3);
	assert_int_equal(b.hits[0], 1);
	assert_int_equal(b.hits[1], 2);
	assert_int_equal(b.hits[2], 1);
	assert_true(b.hit[5 * 3 + 0] && b.hit[3 * 3 + 1] && b.hit[7 * 3 + 1] &&
		    b.hit[9 * 3 + 2]);
	assert_int_equal(mon_barriers_law(&b, law), 0);
	/* One thread: the mean hit rate, 4 of 36, every way. */
	assert_float_equal(law[0].observed, 4.0 / 36, 1e-9);
	assert_float_equal(law[0].independent, 4.0 / 36, 1e-9);
	assert_float_equal(law[0].uniform, 4.0 / 36, 1e-9);
	/* Two: {n0,n1} hit in 3 rounds, {n1,n2} in 3, {n2,n0} in 2; were
	 * they independent, 1 - 11/12 x 10/12 twice and 1 - (11/12)^2. */
	assert_float_equal(law[1].observed, 8.0 / 36, 1e-9);
	assert_float_equal(law[1].independent, (34.0 + 34 + 23) / 432, 1e-9);
	assert_float_equal(law[1].uniform, 1 - (8.0 / 9) * (8.0 / 9), 1e-9);
	/* All three: 4 rounds of 12, where independence says 518 of 1728
	 * (never in the same round: the hits here are exclusive). */
	assert_float_equal(law[2].observed, 4.0 / 12, 1e-9);
	assert_float_equal(law[2].independent, 518.0 / 1728, 1e-9);
	assert_float_equal(law[2].uniform, 1 - 512.0 / 729, 1e-9);
	mon_barriers_free(&b);
	assert_int_equal(mon_barriers_law(&b, law), -EINVAL);
	noise_destroy(n);
	tl_destroy(tl);
}

/* Threads 10 and 11 on CPUs 0 and 1 from @s's records, with their
 * noise index: th[0] and th[1]. */
static struct tl *two_threads(const struct evs *s, struct noise **n, size_t *th)
{
	struct tl_config cfg = { .nr_cpus = 2, .flags = TL_IDLE };
	struct tl *tl;

	assert_int_equal(tl_create(&tl, &cfg), 0);
	assert_int_equal(tl_feed(tl, s->ev, s->n), 0);
	assert_int_equal(tl_flush(tl), 0);
	th[0] = (size_t)tl_find(tl, 10);
	th[1] = (size_t)tl_find(tl, 11);
	assert_int_equal(noise_create(n, tl), 0);
	return tl;
}

/* Two threads that never wait: one stretch each, no round. */
static void test_barriers_none_without_waits(void **state)
{
	struct mon_barriers b;
	struct evs s = { 0 };
	struct noise *n;
	struct tl *tl;
	size_t th[2];
	(void)state;

	ATTACH(&s, 1000, 0, 10, MKM_TS_RUNNING, 0);
	ATTACH(&s, 1000, 1, 11, MKM_TS_RUNNING, 1);
	evs_add(&s, 900000, 0, MKM_EV_MARK, 10, 1, 0, 0);
	evs_add(&s, 900000, 1, MKM_EV_MARK, 11, 1, 0, 0);
	tl = two_threads(&s, &n, th);
	assert_int_equal(mon_barriers(n, th, 2, &b), 0);
	assert_int_equal(b.nr_rounds, 0);
	assert_int_equal(b.nr_long, 0);
	mon_barriers_free(&b);
	assert_int_equal(mon_barriers(n, th, 1, &b), -EINVAL);
	th[1] = 99;
	assert_int_equal(mon_barriers(n, th, 2, &b), -ENOENT);
	assert_int_equal(mon_barriers(NULL, th, 2, &b), -EINVAL);
	noise_destroy(n);
	tl_destroy(tl);
}

/* Two threads busy only from the trace's last instant: stretches of no
 * length, which made the release window 0 and its loop endless. */
static void test_barriers_none_from_empty_stretches(void **state)
{
	struct mon_barriers b;
	struct evs s = { 0 };
	struct noise *n;
	struct tl *tl;
	size_t th[2];
	(void)state;

	ATTACH(&s, 1000, 0, 10, MKM_TS_INTERRUPTIBLE, 0);
	ATTACH(&s, 1000, 1, 11, MKM_TS_INTERRUPTIBLE, 1);
	IN(&s, 5000, 0, 10, 0);
	IN(&s, 5000, 1, 11, 0);
	tl = two_threads(&s, &n, th);
	assert_int_equal(mon_barriers(n, th, 2, &b), 0);
	assert_int_equal(b.nr_rounds, 0);
	mon_barriers_free(&b);
	noise_destroy(n);
	tl_destroy(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_barriers_name_node_and_cause),
		cmocka_unit_test(test_barriers_noise_law),
		cmocka_unit_test(test_barriers_none_from_empty_stretches),
		cmocka_unit_test(test_barriers_none_without_waits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
