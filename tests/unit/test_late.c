// SPDX-License-Identifier: GPL-2.0
/*
 * test_late.c - why a wakeup was late (analysis/late.c) on synthetic
 * system-wide streams: the waking-to-enqueue gap of a remote wakeup, the
 * handlers and threads on the wakee's CPU meanwhile, how each came to
 * hold the CPU and how it let it go, a migration, the longest first; one
 * wakeup found by an instant of its wait or its switch-in.
 */
#include <errno.h>

#include "evstream.h"

#define IRQ(s, t, c, tid, type, num, flags) \
	evs_add(s, t, c, type, tid, num, 0, flags)
#define VEC(s, t, c, tid, type, num) \
	IRQ(s, t, c, tid, type, num, MKM_EVF_VECTOR)
#define TIMER MKM_X86_LOCAL_TIMER_VECTOR
#define CALLF MKM_X86_CALL_FUNCTION_SINGLE_VECTOR

/*
 * Two CPUs. 10 runs on CPU 0 and at 1000 wakes 20 (WAKING there), which
 * sleeps on CPU 1; the wakeup goes through CPU 1's wake list: an IPI
 * interrupts 30 there at 1200, 20 is queued at 1300. 40 is woken at
 * 1500. The tick interrupts 30 at 1900 and preempts it at 1950; 40, woken
 * after 20, runs first and sleeps at 2500; then 20 runs. At 3000 20
 * sleeps, 30 runs and wakes it at 3100, sleeps at 3200; 20 runs.
 */
static struct tl *workload(struct mon_wakings **w)
{
	static struct evs s;
	struct tl_config cfg = { .nr_cpus = 2,
				 .classes = MKM_CLASS_DEFAULT |
					    MKM_CLASS_WAKEUP,
				 .flags = TL_IDLE };
	struct tl *tl;

	memset(&s, 0, sizeof(s));
	ATTACH(&s, 100, 0, 10, MKM_TS_RUNNING, 0);
	ATTACH(&s, 100, 1, 30, MKM_TS_RUNNING, 1);
	ATTACH(&s, 100, 1, 20, MKM_TS_INTERRUPTIBLE, 0xffffffffu);
	ATTACH(&s, 100, 1, 40, MKM_TS_INTERRUPTIBLE, 0xffffffffu);
	evs_add(&s, 1000, 0, MKM_EV_WAKING, 20, 0, 10, 0);
	VEC(&s, 1200, 1, 30, MKM_EV_IRQ_ENTRY, CALLF);
	evs_add(&s, 1300, 1, MKM_EV_WAKEUP, 20, 1, 10, 0);
	VEC(&s, 1350, 1, 30, MKM_EV_IRQ_EXIT, CALLF);
	evs_add(&s, 1500, 0, MKM_EV_WAKING, 40, 0, 10, 0);
	evs_add(&s, 1500, 1, MKM_EV_WAKEUP, 40, 1, 10, 0);
	VEC(&s, 1900, 1, 30, MKM_EV_IRQ_ENTRY, TIMER);
	VEC(&s, 1950, 1, 30, MKM_EV_IRQ_EXIT, TIMER);
	evs_add(&s, 1950, 1, MKM_EV_SWITCH_OUT, 30, MKM_TS_RUNNING, 40,
		MKM_EVF_PREEMPTED);
	IN(&s, 1950, 1, 40, 30);
	OUT(&s, 2500, 1, 40, MKM_TS_INTERRUPTIBLE, 20);
	IN(&s, 2500, 1, 20, 40);
	OUT(&s, 3000, 1, 20, MKM_TS_INTERRUPTIBLE, 30);
	IN(&s, 3000, 1, 30, 20);
	evs_add(&s, 3100, 1, MKM_EV_WAKING, 20, 0, 30, 0);
	evs_add(&s, 3100, 1, MKM_EV_WAKEUP, 20, 1, 30, 0);
	OUT(&s, 3200, 1, 30, MKM_TS_INTERRUPTIBLE, 20);
	IN(&s, 3200, 1, 20, 30);
	OUT(&s, 4000, 1, 20, MKM_TS_INTERRUPTIBLE, 0);
	OUT(&s, 4000, 0, 10, MKM_TS_INTERRUPTIBLE, 0);
	assert_int_equal(tl_create(&tl, &cfg), 0);
	assert_int_equal(tl_feed(tl, s.ev, s.n), 0);
	assert_int_equal(tl_flush(tl), 0);
	assert_int_equal(mon_wakings_create(w), 0);
	assert_int_equal(mon_wakings_add(*w, s.ev, s.n), 0);
	return tl;
}

static const struct mon_late_part *part(const struct mon_late *l,
					const char *name)
{
	size_t i;

	for (i = 0; i < l->nr_parts; i++)
		if (!strcmp(l->parts[i].name, name))
			return &l->parts[i];
	fail_msg("no part %s", name);
	return NULL;
}

static void test_mon_late_wakeups_breakdown(void **state)
{
	struct mon_wakings *w;
	struct mon_lates r;
	const struct mon_late *l;
	const struct mon_late_part *p;
	struct noise *n;
	struct tl *tl;
	size_t th;
	(void)state;

	tl = workload(&w);
	th = (size_t)tl_find(tl, 20);
	assert_int_equal(noise_create(&n, tl), 0);
	assert_int_equal(mon_late_wakeups(n, &th, 1, w, 0, &r), 0);
	assert_int_equal(r.nr_wakeups, 2);
	assert_int_equal(r.nr, 2);
	l = &r.late[0];
	/* The remote wakeup: called at 1000 on CPU 0, queued at 1300. */
	assert_int_equal(l->type, MKM_EV_WAKEUP);
	assert_int_equal(l->waker, tl_find(tl, 10));
	assert_int_equal(l->waker_cpu, 0);
	assert_int_equal(l->cpu, 1);
	assert_int_equal(l->run_cpu, 1);
	assert_int_equal(l->waking_ns, 1000);
	assert_int_equal(l->wakeup_ns, 1300);
	assert_int_equal(l->switch_in_ns, 2500);
	assert_int_equal(l->latency_ns, 1500);
	assert_int_equal(l->migrations, 0);
	/* 1300-2500: the IPI's end, 30, the tick, 40. */
	assert_int_equal(l->irq_ns, 50 + 50);
	assert_int_equal(l->thread_ns, 550 + 550);
	assert_int_equal(l->unknown_ns, 0);
	assert_int_equal(l->idle_ns, 0);
	assert_int_equal(l->irqs, 1); /* the tick began meanwhile */
	p = part(l, "tid 30");
	assert_int_equal(p->ns, 550);
	assert_int_equal(p->count, 1);
	assert_int_equal(p->came, MON_LATE_HELD);
	assert_int_equal(p->left, MON_LATE_TICK);
	p = part(l, "tid 40");
	assert_int_equal(p->ns, 550);
	assert_int_equal(p->came, MON_LATE_OVERTOOK);
	assert_int_equal(p->left, MON_LATE_SLEPT);
	p = part(l, "local_timer");
	assert_int_equal(p->ns, 50);
	assert_int_equal(p->count, 1);
	p = part(l, "call_func1_ipi");
	assert_int_equal(p->ns, 50);
	assert_int_equal(p->count, 0); /* it began before the wakeup */
	/* The local one: no gap, 30 held the CPU until it slept. */
	l = &r.late[1];
	assert_int_equal(l->latency_ns, 100);
	assert_int_equal(l->waking_ns, 3100);
	assert_int_equal(l->waker_cpu, 1);
	assert_int_equal(l->nr_parts, 1);
	assert_int_equal(l->parts[0].came, MON_LATE_HELD);
	assert_int_equal(l->parts[0].left, MON_LATE_SLEPT);
	mon_lates_free(&r);
	/* The longest only; without WAKING records, from the enqueue. */
	assert_int_equal(mon_late_wakeups(n, &th, 1, NULL, 1, &r), 0);
	assert_int_equal(r.nr, 1);
	assert_int_equal(r.late[0].waking_ns, 0);
	assert_int_equal(r.late[0].waker_cpu, -1);
	assert_int_equal(r.late[0].latency_ns, 1200);
	mon_lates_free(&r);
	noise_destroy(n);
	mon_wakings_destroy(w);
	tl_destroy(tl);
}

/* Queued on CPU 0, moved to CPU 1 where it runs: one migration, each
 * CPU's part on its own. */
static void test_mon_late_wakeups_migration(void **state)
{
	struct tl_config cfg = { .nr_cpus = 2,
				 .classes = MKM_CLASS_DEFAULT |
					    MKM_CLASS_WAKEUP,
				 .flags = TL_IDLE };
	struct evs s = { 0 };
	struct mon_lates r;
	struct noise *n;
	struct tl *tl;
	size_t th;
	(void)state;

	ATTACH(&s, 100, 0, 10, MKM_TS_RUNNING, 0);
	ATTACH(&s, 100, 1, 30, MKM_TS_RUNNING, 1);
	ATTACH(&s, 100, 0, 20, MKM_TS_INTERRUPTIBLE, 0xffffffffu);
	evs_add(&s, 1000, 0, MKM_EV_WAKEUP, 20, 0, 10, 0);
	evs_add(&s, 1400, 1, MKM_EV_MIGRATE, 20, 1, 0, 0);
	OUT(&s, 1600, 1, 30, MKM_TS_INTERRUPTIBLE, 20);
	IN(&s, 1600, 1, 20, 30);
	OUT(&s, 2000, 1, 20, MKM_TS_INTERRUPTIBLE, 0);
	OUT(&s, 2000, 0, 10, MKM_TS_INTERRUPTIBLE, 0);
	assert_int_equal(tl_create(&tl, &cfg), 0);
	assert_int_equal(tl_feed(tl, s.ev, s.n), 0);
	assert_int_equal(tl_flush(tl), 0);
	th = (size_t)tl_find(tl, 20);
	assert_int_equal(noise_create(&n, tl), 0);
	assert_int_equal(mon_late_wakeups(n, &th, 1, NULL, 0, &r), 0);
	assert_int_equal(r.nr, 1);
	assert_int_equal(r.late[0].cpu, 0);
	assert_int_equal(r.late[0].run_cpu, 1);
	assert_int_equal(r.late[0].migrations, 1);
	assert_int_equal(r.late[0].latency_ns, 600);
	assert_int_equal(r.late[0].thread_ns, 400 + 200);
	assert_int_equal(r.late[0].nr_parts, 2);
	assert_int_equal(r.late[0].parts[0].thread, tl_find(tl, 10));
	assert_int_equal(r.late[0].parts[0].ns, 400);
	mon_lates_free(&r);
	assert_int_equal(mon_late_wakeups(NULL, &th, 1, NULL, 0, &r), -EINVAL);
	th = 99;
	assert_int_equal(mon_late_wakeups(n, &th, 1, NULL, 0, &r), -ENOENT);
	assert_string_equal(mon_late_left_name(MON_LATE_TICK),
			    "ran to the tick");
	assert_string_equal(mon_late_came_name(9), "?");
	noise_destroy(n);
	tl_destroy(tl);
}

/* One wakeup by an instant of it (a viewer's cursor): the same breakdown
 * as in the list, from its wait or its switch-in; none in a run, or in
 * a wait after a preemption. */
static void test_mon_late_wakeup_at_cursor(void **state)
{
	struct mon_wakings *w;
	struct mon_lates r;
	struct mon_late one;
	struct noise *n;
	struct tl *tl;
	size_t th, k;
	(void)state;

	tl = workload(&w);
	th = (size_t)tl_find(tl, 20);
	assert_int_equal(noise_create(&n, tl), 0);
	assert_int_equal(mon_late_wakeups(n, &th, 1, w, 0, &r), 0);
	/* In the wait, at its start, at the switch-in. */
	for (k = 0; k < 3; k++) {
		static const uint64_t at[] = { 1300, 2000, 2500 };

		assert_int_equal(mon_late_wakeup_at(n, th, at[k], w, &one), 0);
		assert_int_equal(one.wakeup_ns, r.late[0].wakeup_ns);
		assert_int_equal(one.switch_in_ns, r.late[0].switch_in_ns);
		assert_int_equal(one.latency_ns, r.late[0].latency_ns);
		assert_int_equal(one.waking_ns, 1000);
		assert_int_equal(one.thread_ns, r.late[0].thread_ns);
		assert_int_equal(one.irq_ns, r.late[0].irq_ns);
		assert_int_equal(one.nr_parts, r.late[0].nr_parts);
		assert_string_equal(one.parts[0].name, r.late[0].parts[0].name);
		mon_late_free(&one);
	}
	assert_int_equal(mon_late_wakeup_at(n, th, 3150, w, &one), 0);
	assert_int_equal(one.latency_ns, 100);
	assert_int_equal(one.switch_in_ns, 3200);
	mon_late_free(&one);
	/* Running, asleep: no wakeup there. */
	assert_int_equal(mon_late_wakeup_at(n, th, 2600, w, &one), -ESRCH);
	assert_int_equal(one.nr_parts, 0);
	assert_int_equal(mon_late_wakeup_at(n, th, 3050, w, &one), -ESRCH);
	/* 30's wait after the tick preempted it is noise, not a wakeup. */
	assert_int_equal(mon_late_wakeup_at(n, (size_t)tl_find(tl, 30), 2000, w,
					    &one),
			 -ESRCH);
	assert_int_equal(mon_late_wakeup_at(n, 99, 2000, w, &one), -ENOENT);
	assert_int_equal(mon_late_wakeup_at(NULL, th, 2000, w, &one), -EINVAL);
	mon_late_free(NULL);
	mon_lates_free(&r);
	noise_destroy(n);
	mon_wakings_destroy(w);
	tl_destroy(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mon_late_wakeups_breakdown),
		cmocka_unit_test(test_mon_late_wakeups_migration),
		cmocka_unit_test(test_mon_late_wakeup_at_cursor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
