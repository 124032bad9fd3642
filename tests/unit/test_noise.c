// SPDX-License-Identifier: GPL-2.0
/*
 * test_noise.c - osnoise's columns for recorded threads (noise_osnoise()
 * in analysis/noise.c) on synthetic event streams: run time, samples and
 * their net durations by kind, periods, the histogram, per-CPU rows; and
 * on random streams, what the osnoise table and the late wakeups'
 * breakdown (analysis/late.c) must add up to.
 */
#include <errno.h>

#include "evstream.h"

#define IRQ(s, t, c, tid, type, num, flags) \
	evs_add(s, t, c, type, tid, num, 0, flags)
#define TIMER MKM_X86_LOCAL_TIMER_VECTOR

static struct tl *build_sys(const struct evs *s, unsigned int nr_cpus)
{
	struct tl_config cfg = { .nr_cpus = nr_cpus,
				 .classes = MKM_CLASS_DEFAULT,
				 .flags = TL_IDLE };
	struct tl *tl;

	assert_int_equal(tl_create(&tl, &cfg), 0);
	assert_int_equal(tl_feed(tl, s->ev, s->n), 0);
	assert_int_equal(tl_flush(tl), 0);
	return tl;
}

/*
 * One CPU, system-wide. Thread 10 runs from 1000; the tick (2000-2100,
 * a softirq nested in it 2020-2060) ends in a preemption by 20, which an
 * IRQ interrupts (2300-2350) and which sleeps at 2600; 10 runs on and
 * sleeps at 4000, is woken at 5000 and switched in at 5500 (a wakeup's
 * wait: not noise), a 10 ns IRQ at 7000, sleeps at 8000.
 */
static void workload(struct evs *s)
{
	ATTACH(s, 1000, 0, 10, MKM_TS_RUNNING, 0);
	IRQ(s, 2000, 0, 10, MKM_EV_IRQ_ENTRY, TIMER, MKM_EVF_VECTOR);
	IRQ(s, 2020, 0, 10, MKM_EV_SOFTIRQ_ENTRY, 1, 0);
	IRQ(s, 2060, 0, 10, MKM_EV_SOFTIRQ_EXIT, 1, 0);
	IRQ(s, 2100, 0, 10, MKM_EV_IRQ_EXIT, TIMER, MKM_EVF_VECTOR);
	evs_add(s, 2100, 0, MKM_EV_SWITCH_OUT, 10, MKM_TS_RUNNING, 20,
		MKM_EVF_PREEMPTED);
	IN(s, 2100, 0, 20, 10);
	IRQ(s, 2300, 0, 20, MKM_EV_IRQ_ENTRY, 19, 0);
	IRQ(s, 2350, 0, 20, MKM_EV_IRQ_EXIT, 19, 0);
	OUT(s, 2600, 0, 20, MKM_TS_INTERRUPTIBLE, 10);
	evs_add(s, 2600, 0, MKM_EV_SWITCH_IN, 10, 500, 20, 0);
	OUT(s, 4000, 0, 10, MKM_TS_INTERRUPTIBLE, 0);
	WAKEUP(s, 5000, 0, 10, 0);
	IN(s, 5500, 0, 10, 0);
	IRQ(s, 7000, 0, 10, MKM_EV_IRQ_ENTRY, 19, 0);
	IRQ(s, 7010, 0, 10, MKM_EV_IRQ_EXIT, 19, 0);
	OUT(s, 8000, 0, 10, MKM_TS_INTERRUPTIBLE, 0);
	evs_add(s, 9000, 0, MKM_EV_MARK, 10, 1, 0, 0);
}

static void report(struct tl *tl, struct noise **n, uint32_t tid,
		   const struct osnoise_opts *o, struct osnoise_report *r)
{
	size_t th = (size_t)tl_find(tl, tid);

	assert_int_equal(noise_create(n, tl), 0);
	assert_int_equal(noise_osnoise(*n, &th, 1, o, r), 0);
}

static void test_osnoise_threads_columns(void **state)
{
	struct osnoise_report r;
	struct evs s = { 0 };
	const struct osnoise_row *c, *all;
	struct noise *n;
	struct tl *tl;
	(void)state;

	workload(&s);
	tl = build_sys(&s, 1);
	report(tl, &n, 10, NULL, &r);
	/* Its CPU's row, then its all-CPU row: the same on one CPU. */
	assert_int_equal(r.nr_rows, 2);
	c = &r.rows[0];
	all = &r.rows[1];
	assert_int_equal(c->cpu, 0);
	assert_int_equal(all->cpu, -1);
	assert_int_equal(c->thread, tl_find(tl, 10));
	/* Run time: 1000-4000 and 5500-8000, the wakeup's wait left out. */
	assert_int_equal(c->runtime_ns, 3000 + 2500);
	/* Two noises: the tick and the preemption (600), the short IRQ. */
	assert_int_equal(c->samples, 2);
	assert_int_equal(c->noise_ns, 610);
	assert_int_equal(c->max_single_ns, 600);
	assert_int_equal(c->min_single_ns, 10);
	assert_int_equal(c->periods, 1);
	assert_int_equal(c->max_period_noise_ns, 610);
	/* Entries: the tick and two IRQs, the softirq, thread 20. */
	assert_int_equal(c->count[OSNOISE_IRQ], 3);
	assert_int_equal(c->count[OSNOISE_SOFTIRQ], 1);
	assert_int_equal(c->count[OSNOISE_THREAD], 1);
	assert_int_equal(c->count[OSNOISE_HW], 0);
	assert_int_equal(c->count[OSNOISE_NMI], 0);
	/* Net: the tick less its softirq, 20 less the IRQ inside it. */
	assert_int_equal(c->net_ns[OSNOISE_IRQ], 60 + 50 + 10);
	assert_int_equal(c->net_ns[OSNOISE_SOFTIRQ], 40);
	assert_int_equal(c->net_ns[OSNOISE_THREAD], 450);
	assert_int_equal(c->unknown_ns, 0);
	/* Named: 20 took most, then the tick's own 60, irq 19's 60. */
	assert_int_equal(c->nr_sources, 4);
	assert_int_equal(c->sources[0].thread, tl_find(tl, 20));
	assert_int_equal(c->sources[0].taken_ns, 450);
	assert_int_equal(c->sources[0].count, 1);
	assert_string_equal(c->sources[1].name, "irq 19");
	assert_int_equal(c->sources[1].taken_ns, 60);
	assert_int_equal(c->sources[1].count, 2);
	assert_int_equal(c->sources[1].max_ns, 50);
	assert_string_equal(c->sources[2].name, "local_timer");
	assert_int_equal(c->sources[3].kind, NOISE_IRQ_SOFT);
	/* Both samples below 1 us: the first bucket. */
	assert_int_equal(r.entries, OSNOISE_HIST_ENTRIES);
	assert_int_equal(r.bucket_ns, OSNOISE_HIST_BUCKET_NS);
	assert_int_equal(c->hist[0], 2);
	assert_int_equal(all->runtime_ns, c->runtime_ns);
	assert_int_equal(all->noise_ns, c->noise_ns);
	assert_int_equal(all->count[OSNOISE_IRQ], 3);
	noise_osnoise_free(&r);
	noise_destroy(n);
	tl_destroy(tl);
}

/*
 * A threshold keeps short noises out of the samples, not their
 * interferences out of the counts (osnoise counts every entry).
 */
static void test_osnoise_threads_threshold(void **state)
{
	struct osnoise_opts o = { .threshold_ns = 100 };
	struct osnoise_report r;
	struct evs s = { 0 };
	struct noise *n;
	struct tl *tl;
	(void)state;

	workload(&s);
	tl = build_sys(&s, 1);
	report(tl, &n, 10, &o, &r);
	assert_int_equal(r.rows[0].samples, 1);
	assert_int_equal(r.rows[0].noise_ns, 600);
	assert_int_equal(r.rows[0].min_single_ns, 600);
	assert_int_equal(r.rows[0].count[OSNOISE_IRQ], 3);
	assert_int_equal(r.rows[0].net_ns[OSNOISE_IRQ], 120);
	noise_osnoise_free(&r);
	noise_destroy(n);
	tl_destroy(tl);
}

/*
 * Periods of 500 ns from 0: run time in 1000-4000 and 5500-8000 touches
 * 6 + 5 of them; the 600 ns noise at 2000 lies 500 in one, 100 in the
 * next. A histogram of 4 buckets of 100 ns: the 600 ns noise is over.
 */
static void test_osnoise_threads_periods_hist(void **state)
{
	struct osnoise_opts o = { .period_ns = 500,
				  .bucket_ns = 100,
				  .entries = 4 };
	struct osnoise_report r;
	struct evs s = { 0 };
	struct noise *n;
	struct tl *tl;
	(void)state;

	workload(&s);
	tl = build_sys(&s, 1);
	report(tl, &n, 10, &o, &r);
	assert_int_equal(r.rows[0].periods, 11);
	assert_int_equal(r.rows[0].max_period_noise_ns, 500);
	assert_int_equal(r.rows[0].noise_ns, 610);
	assert_int_equal(r.entries, 4);
	assert_int_equal(r.rows[0].hist[0], 1);
	assert_int_equal(r.rows[0].hist[4], 1);
	noise_osnoise_free(&r);
	/* Periods from 300: the noise lies 300 and 300 in two. */
	o.origin_ns = 300;
	noise_destroy(n);
	report(tl, &n, 10, &o, &r);
	assert_int_equal(r.rows[0].max_period_noise_ns, 300);
	noise_osnoise_free(&r);
	noise_destroy(n);
	tl_destroy(tl);
}

/*
 * Two CPUs, selective: 10 is preempted on CPU 0 by 20 at 2000, migrates
 * to CPU 1 at 2300 while queued, and runs there at 2500 (what ran on CPU
 * 1 meanwhile is not recorded). Per CPU, two noises; the all-CPU row
 * keeps the one whole, and the preemption on CPU 1 by 77, a thread
 * nobody monitors, is a thread interference of unknown time.
 */
static void test_osnoise_threads_migration(void **state)
{
	struct osnoise_report r;
	struct evs s = { 0 };
	struct tl_config cfg = { .nr_cpus = 2, .classes = MKM_CLASS_DEFAULT };
	size_t th[2];
	struct noise *n;
	struct tl *tl;
	(void)state;

	ATTACH(&s, 1000, 0, 10, MKM_TS_RUNNING, 0);
	ATTACH(&s, 1000, 1, 11, MKM_TS_RUNNING, 1);
	evs_add(&s, 2000, 0, MKM_EV_SWITCH_OUT, 10, MKM_TS_RUNNING, 20,
		MKM_EVF_PREEMPTED);
	IN(&s, 2000, 0, 20, 10);
	evs_add(&s, 2100, 1, MKM_EV_SWITCH_OUT, 11, MKM_TS_RUNNING, 77,
		MKM_EVF_PREEMPTED);
	evs_add(&s, 2300, 1, MKM_EV_MIGRATE, 10, 1, 0, 0);
	evs_add(&s, 2500, 1, MKM_EV_SWITCH_IN, 10, 500, 77, 0);
	OUT(&s, 3000, 1, 10, MKM_TS_INTERRUPTIBLE, 11);
	evs_add(&s, 3000, 1, MKM_EV_SWITCH_IN, 11, 900, 10, 0);
	OUT(&s, 4000, 0, 20, MKM_TS_INTERRUPTIBLE, 0);
	OUT(&s, 4000, 1, 11, MKM_TS_INTERRUPTIBLE, 0);
	assert_int_equal(tl_create(&tl, &cfg), 0);
	assert_int_equal(tl_feed(tl, s.ev, s.n), 0);
	assert_int_equal(tl_flush(tl), 0);
	th[0] = (size_t)tl_find(tl, 10);
	th[1] = (size_t)tl_find(tl, 11);
	assert_int_equal(noise_create(&n, tl), 0);
	assert_int_equal(noise_osnoise(n, th, 2, NULL, &r), 0);
	/* 10: CPU 0, CPU 1, all; 11: CPU 1, all. */
	assert_int_equal(r.nr_rows, 5);
	assert_int_equal(r.rows[0].cpu, 0);
	assert_int_equal(r.rows[0].runtime_ns, 1000 + 300);
	assert_int_equal(r.rows[0].noise_ns, 300);
	assert_int_equal(r.rows[0].net_ns[OSNOISE_THREAD], 300);
	assert_int_equal(r.rows[0].count[OSNOISE_THREAD], 1);
	assert_int_equal(r.rows[1].cpu, 1);
	assert_int_equal(r.rows[1].runtime_ns, 200 + 500);
	assert_int_equal(r.rows[1].noise_ns, 200);
	assert_int_equal(r.rows[1].unknown_ns, 200);
	assert_int_equal(r.rows[1].count[OSNOISE_THREAD], 1);
	assert_int_equal(r.rows[2].cpu, -1);
	assert_int_equal(r.rows[2].samples, 1);
	assert_int_equal(r.rows[2].max_single_ns, 500);
	assert_int_equal(r.rows[2].count[OSNOISE_THREAD], 1);
	assert_int_equal(r.rows[3].thread, (int64_t)th[1]);
	assert_int_equal(r.rows[3].cpu, 1);
	assert_int_equal(r.rows[3].noise_ns, 900);
	/* 10 ran there from 2500: the 400 before it, nobody known. */
	assert_int_equal(r.rows[3].unknown_ns, 400);
	assert_int_equal(r.rows[3].net_ns[OSNOISE_THREAD], 500);
	assert_int_equal(r.rows[3].count[OSNOISE_THREAD], 1);
	noise_osnoise_free(&r);
	/* Per CPU, the two threads together: CPU 0's and CPU 1's rows. */
	{
		struct osnoise_opts o = { .per_cpu = true };

		assert_int_equal(noise_osnoise(n, th, 2, &o, &r), 0);
		assert_int_equal(r.nr_rows, 2);
		assert_int_equal(r.rows[0].thread, -1);
		assert_int_equal(r.rows[0].cpu, 0);
		assert_int_equal(r.rows[0].noise_ns, 300);
		assert_int_equal(r.rows[1].cpu, 1);
		assert_int_equal(r.rows[1].runtime_ns, 700 + 1100 + 900 + 1000);
		assert_int_equal(r.rows[1].noise_ns, 200 + 900);
		assert_int_equal(r.rows[1].samples, 2);
		assert_int_equal(r.rows[1].max_single_ns, 900);
		noise_osnoise_free(&r);
	}
	noise_destroy(n);
	tl_destroy(tl);
}

static void test_osnoise_threads_bad_args(void **state)
{
	struct osnoise_report r;
	struct evs s = { 0 };
	struct noise *n;
	struct tl *tl;
	size_t th = 99;
	(void)state;

	workload(&s);
	tl = build_sys(&s, 1);
	assert_int_equal(noise_create(&n, tl), 0);
	assert_int_equal(noise_osnoise(NULL, &th, 1, NULL, &r), -EINVAL);
	assert_int_equal(noise_osnoise(n, NULL, 1, NULL, &r), -EINVAL);
	assert_int_equal(noise_osnoise(n, &th, 1, NULL, NULL), -EINVAL);
	assert_int_equal(noise_osnoise(n, &th, 1, NULL, &r), -ENOENT);
	assert_int_equal(noise_osnoise(n, &th, 0, NULL, &r), 0);
	assert_int_equal(r.nr_rows, 0);
	noise_osnoise_free(&r);
	noise_osnoise_free(NULL);
	assert_string_equal(noise_osnoise_kind_name(OSNOISE_SOFTIRQ),
			    "softirq");
	assert_string_equal(noise_osnoise_kind_name(OSNOISE_NR_KINDS), "?");
	noise_destroy(n);
	tl_destroy(tl);
}

/* xorshift64*: repeatable streams. */
static uint64_t rnd(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ull;
}

#define R_CPUS 3
#define R_THREADS 6 /* tids 10 .. 15 */

/*
 * A random system-wide stream that a scheduler could have made: per CPU
 * one thread (or idle) at a time, wakeups of sleeping threads onto a
 * CPU, switches to queued threads or idle, preempted or to sleep,
 * migrations of queued threads, handlers nested two deep.
 */
static void random_stream(struct evs *s, uint64_t seed)
{
	int where[R_THREADS]; /* -1 asleep; c: queued on c; R_CPUS + c: on c */
	uint32_t cur[R_CPUS] = { 0 };
	uint64_t t = 1000;
	unsigned int i, c;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < R_THREADS; i++) {
		bool on = i < R_CPUS;

		where[i] = on ? R_CPUS + (int)i : -1;
		if (on)
			cur[i] = 10 + i;
		ATTACH(s, t, on ? i : 0, 10 + i,
		       on ? MKM_TS_RUNNING : MKM_TS_INTERRUPTIBLE,
		       on ? i : 0xffffffffu);
	}
	while (s->n + 8 < EVS_MAX) {
		uint64_t op = rnd(&seed) % 4;

		t += 1 + rnd(&seed) % 50;
		c = (unsigned int)(rnd(&seed) % R_CPUS);
		if (op == 0) { /* a handler, maybe another inside */
			unsigned int kind = (unsigned int)(rnd(&seed) % 3);
			unsigned int type = kind == 2 ? MKM_EV_SOFTIRQ_ENTRY :
							MKM_EV_IRQ_ENTRY;
			unsigned int f = kind == 1 ? MKM_EVF_VECTOR : 0;
			uint32_t num = kind == 1 ? TIMER : kind == 2 ? 1 : 19;

			evs_add(s, t, c, type, cur[c], num, 0, f);
			if (rnd(&seed) % 2) {
				IRQ(s, t + 2, c, cur[c], MKM_EV_SOFTIRQ_ENTRY,
				    3, 0);
				IRQ(s, t + 5, c, cur[c], MKM_EV_SOFTIRQ_EXIT, 3,
				    0);
			}
			t += 10 + rnd(&seed) % 40;
			evs_add(s, t, c, type + 1, cur[c], num, 0, f);
		} else if (op == 1) { /* wake a sleeper onto c */
			for (i = 0; i < R_THREADS && where[i] != -1; i++)
				;
			if (i == R_THREADS)
				continue;
			evs_add(s, t, (c + 1) % R_CPUS, MKM_EV_WAKING, 10 + i,
				0, cur[(c + 1) % R_CPUS], 0);
			t += rnd(&seed) % 20;
			evs_add(s, t, c, MKM_EV_WAKEUP, 10 + i, c, 0, 0);
			where[i] = (int)c;
		} else if (op == 2) { /* switch on c */
			uint32_t prev = cur[c], next = 0;
			bool preempt = rnd(&seed) % 2;

			for (i = 0; i < R_THREADS; i++)
				if (where[i] == (int)c) {
					next = 10 + i;
					break;
				}
			if (!prev && !next)
				continue;
			if (prev) {
				evs_add(s, t, c, MKM_EV_SWITCH_OUT, prev,
					preempt ? MKM_TS_RUNNING :
						  MKM_TS_INTERRUPTIBLE,
					next, preempt ? MKM_EVF_PREEMPTED : 0);
				where[prev - 10] = preempt ? (int)c : -1;
			}
			if (next) {
				evs_add(s, t, c, MKM_EV_SWITCH_IN, next, 0,
					prev, 0);
				where[next - 10] = R_CPUS + (int)c;
			}
			cur[c] = next;
		} else { /* move a thread queued on c */
			unsigned int to = (c + 1) % R_CPUS;

			for (i = 0; i < R_THREADS && where[i] != (int)c; i++)
				;
			if (i == R_THREADS)
				continue;
			evs_add(s, t, c, MKM_EV_MIGRATE, 10 + i, to, c, 0);
			where[i] = (int)to;
		}
	}
	for (c = 0; c < R_CPUS; c++)
		evs_add(s, t + 100, c, MKM_EV_MARK, cur[c], 1, 0, 0);
}

/*
 * On random streams, what the columns promise: a row's noise is its
 * net time by kind plus what no record explains, within its run time,
 * its samples in its histogram; the per-CPU table's run time is the
 * threads' rows' added up; a late wakeup's parts add up to its wait.
 */
static void test_noise_osnoise_random_streams(void **state)
{
	static struct evs s;
	uint64_t seed;
	(void)state;

	for (seed = 1; seed <= 300; seed++) {
		struct tl_config cfg = { .nr_cpus = R_CPUS,
					 .classes = MKM_CLASS_DEFAULT |
						    MKM_CLASS_WAKEUP,
					 .flags = TL_IDLE };
		struct osnoise_opts po = { .per_cpu = true };
		struct osnoise_report r, pc;
		struct mon_wakings *w;
		uint64_t per_thread = 0, per_cpu = 0, x = seed * 0x9e37u;
		struct mon_lates l;
		size_t th[R_THREADS], i, k;
		struct noise *n;
		struct tl *tl;

		random_stream(&s, x);
		assert_int_equal(tl_create(&tl, &cfg), 0);
		assert_int_equal(tl_feed(tl, s.ev, s.n), 0);
		assert_int_equal(tl_flush(tl), 0);
		for (i = 0; i < R_THREADS; i++)
			th[i] = (size_t)tl_find(tl, 10 + (uint32_t)i);
		assert_int_equal(noise_create(&n, tl), 0);
		assert_int_equal(noise_osnoise(n, th, R_THREADS, NULL, &r), 0);
		for (i = 0; i < r.nr_rows; i++) {
			const struct osnoise_row *o = &r.rows[i];
			uint64_t sum = o->unknown_ns, hist = 0;

			for (k = 0; k < OSNOISE_NR_KINDS; k++)
				sum += o->net_ns[k];
			for (k = 0; k <= r.entries; k++)
				hist += o->hist[k];
			assert_int_equal(sum, o->noise_ns);
			assert_true(o->noise_ns <= o->runtime_ns);
			assert_true(o->max_single_ns <= o->noise_ns);
			assert_true(o->max_period_noise_ns == o->noise_ns);
			assert_int_equal(hist, o->samples);
			if (o->cpu >= 0)
				per_thread += o->runtime_ns;
		}
		assert_int_equal(noise_osnoise(n, th, R_THREADS, &po, &pc), 0);
		for (i = 0; i < pc.nr_rows; i++)
			per_cpu += pc.rows[i].runtime_ns;
		assert_int_equal(per_cpu, per_thread);
		noise_osnoise_free(&pc);
		noise_osnoise_free(&r);
		assert_int_equal(mon_wakings_create(&w), 0);
		assert_int_equal(mon_wakings_add(w, s.ev, s.n), 0);
		assert_int_equal(mon_late_wakeups(n, th, R_THREADS, w, 0, &l),
				 0);
		for (i = 0; i < l.nr; i++) {
			const struct mon_late *m = &l.late[i];
			uint64_t parts = 0;

			for (k = 0; k < m->nr_parts; k++)
				if (m->parts[k].kind != NOISE_THREAD ||
				    m->parts[k].ns)
					parts += m->parts[k].ns;
			assert_int_equal(m->thread_ns + m->irq_ns +
						 m->softirq_ns + m->idle_ns +
						 m->unknown_ns,
					 m->switch_in_ns - m->wakeup_ns);
			assert_int_equal(parts, m->thread_ns + m->irq_ns +
							m->softirq_ns +
							m->idle_ns);
			assert_int_equal(m->latency_ns,
					 m->switch_in_ns -
						 (m->waking_ns ? m->waking_ns :
								 m->wakeup_ns));
			if (i)
				assert_true(m->latency_ns <=
					    l.late[i - 1].latency_ns);
		}
		mon_lates_free(&l);
		mon_wakings_destroy(w);
		noise_destroy(n);
		tl_destroy(tl);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_osnoise_threads_columns),
		cmocka_unit_test(test_osnoise_threads_threshold),
		cmocka_unit_test(test_osnoise_threads_periods_hist),
		cmocka_unit_test(test_osnoise_threads_migration),
		cmocka_unit_test(test_osnoise_threads_bad_args),
		cmocka_unit_test(test_noise_osnoise_random_streams),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
