// SPDX-License-Identifier: GPL-2.0
/*
 * test_viewer_late.c - the viewer's wakeup pane without a terminal
 * (viewer/late.c): a trace written to a temporary file and its timeline,
 * the state opened on them, the cursor and the selection moved as the
 * keys move them, then late_update() as each frame calls it: which wait
 * it explains, that the breakdown is libmonitor's (mon_late_wakeup_at()
 * with the file's WAKING records), when there is none, and that it is
 * computed again only when the wait under the cursor changes.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "evstream.h"
#include "state.h"

#define VEC(s, t, c, tid, type, num) \
	evs_add(s, t, c, type, tid, num, 0, MKM_EVF_VECTOR)
#define TIMER MKM_X86_LOCAL_TIMER_VECTOR

struct fixture {
	char path[64];
	struct tl *tl;
	struct viewer_state vs;
	struct evs s;
};

/*
 * Two CPUs, system-wide. 10 runs on CPU 0 and at 1000 wakes 20 (WAKING
 * there), asleep on CPU 1, where 30 runs: 20 is queued at 1300. The tick
 * preempts 30 at 1950, 20 runs until 3000 and sleeps; 30 runs, wakes 20
 * at 3100 and sleeps at 3200; 20 runs to the end.
 */
static void workload(struct evs *s)
{
	memset(s, 0, sizeof(*s));
	ATTACH(s, 100, 0, 10, MKM_TS_RUNNING, 0);
	ATTACH(s, 100, 1, 30, MKM_TS_RUNNING, 1);
	ATTACH(s, 100, 1, 20, MKM_TS_INTERRUPTIBLE, 0xffffffffu);
	evs_add(s, 1000, 0, MKM_EV_WAKING, 20, 0, 10, 0);
	evs_add(s, 1300, 1, MKM_EV_WAKEUP, 20, 1, 10, 0);
	VEC(s, 1900, 1, 30, MKM_EV_IRQ_ENTRY, TIMER);
	VEC(s, 1950, 1, 30, MKM_EV_IRQ_EXIT, TIMER);
	evs_add(s, 1950, 1, MKM_EV_SWITCH_OUT, 30, MKM_TS_RUNNING, 20,
		MKM_EVF_PREEMPTED);
	IN(s, 1950, 1, 20, 30);
	OUT(s, 3000, 1, 20, MKM_TS_INTERRUPTIBLE, 30);
	IN(s, 3000, 1, 30, 20);
	evs_add(s, 3100, 1, MKM_EV_WAKING, 20, 0, 30, 0);
	evs_add(s, 3100, 1, MKM_EV_WAKEUP, 20, 1, 30, 0);
	OUT(s, 3200, 1, 30, MKM_TS_INTERRUPTIBLE, 20);
	IN(s, 3200, 1, 20, 30);
	OUT(s, 4000, 1, 20, MKM_TS_INTERRUPTIBLE, 0);
	OUT(s, 4000, 0, 10, MKM_TS_INTERRUPTIBLE, 0);
}

static int setup(void **state)
{
	struct mon_meta meta = { .info = { .nr_cpus = 2,
					   .classes = MKM_CLASS_DEFAULT |
						      MKM_CLASS_WAKEUP,
					   .flags = MKM_CONFIG_SYSTEM } };
	struct tl_config cfg = { .nr_cpus = 2,
				 .classes = meta.info.classes,
				 .flags = TL_IDLE };
	struct fixture *f = calloc(1, sizeof(*f));
	struct trace_writer *w;
	int fd;

	if (!f)
		return -1;
	workload(&f->s);
	strcpy(f->path, "/tmp/mkm-test-viewer-late-XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(trace_writer_open(&w, f->path, &meta.info), 0);
	assert_int_equal(trace_writer_events(w, f->s.ev, f->s.n), 0);
	assert_int_equal(trace_writer_close(w), 0);
	assert_int_equal(tl_create(&f->tl, &cfg), 0);
	assert_int_equal(tl_feed(f->tl, f->s.ev, f->s.n), 0);
	assert_int_equal(tl_flush(f->tl), 0);
	assert_int_equal(state_open(&f->vs, f->path, f->tl, &meta), 0);
	view_set_size(&f->vs.view, 80, 20);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	state_close(&f->vs);
	tl_destroy(f->tl);
	unlink(f->path);
	free(f);
	return 0;
}

static void select_tid(struct fixture *f, uint32_t tid)
{
	int64_t th = tl_find(f->tl, tid);

	assert_true(th >= 0);
	assert_true(rows_select_id(&f->vs, (size_t)th));
}

/* The cursor in 20's wait: libmonitor's breakdown of that wakeup, from
 * the WAKING the pane read in the file. */
static void test_late_update_wait(void **state)
{
	struct fixture *f = *state;
	const struct mon_late *l = &f->vs.late;

	select_tid(f, 20);
	view_set_cursor(&f->vs.view, 1600);
	late_update(&f->vs);
	assert_true(f->vs.late_ok);
	assert_int_equal(l->thread, (size_t)tl_find(f->tl, 20));
	assert_int_equal(l->waker, tl_find(f->tl, 10));
	assert_int_equal(l->waker_cpu, 0);
	assert_int_equal(l->waking_ns, 1000);
	assert_int_equal(l->wakeup_ns, 1300);
	assert_int_equal(l->switch_in_ns, 1950);
	assert_int_equal(l->latency_ns, 950);
	/* 30 held CPU 1 until the tick's handler, which took 50. */
	assert_int_equal(l->thread_ns, 600);
	assert_int_equal(l->irq_ns, 50);
	assert_int_equal(l->nr_parts, 2);
	assert_int_equal(l->parts[0].thread, tl_find(f->tl, 30));
	assert_int_equal(l->parts[0].came, MON_LATE_HELD);
	assert_int_equal(l->parts[0].left, MON_LATE_TICK);
}

/* On the switch-in itself (n puts the cursor there): the same wakeup;
 * one column on, in the run, none. */
static void test_late_update_switch_in(void **state)
{
	struct fixture *f = *state;

	select_tid(f, 20);
	view_set_cursor(&f->vs.view, 3200);
	late_update(&f->vs);
	assert_true(f->vs.late_ok);
	assert_int_equal(f->vs.late.wakeup_ns, 3100);
	assert_int_equal(f->vs.late.latency_ns, 100);
	view_set_cursor(&f->vs.view, 3201);
	late_update(&f->vs);
	assert_false(f->vs.late_ok);
	assert_int_equal(f->vs.late.nr_parts, 0);
}

/* The events pane's SWITCH_IN at > is the instant explained, wherever
 * the cursor is before it. */
static void test_late_update_events_pane(void **state)
{
	struct fixture *f = *state;

	select_tid(f, 20);
	view_set_cursor(&f->vs.view, 1940);
	act(&f->vs, ACT_EVENTS, NULL);
	assert_true(f->vs.events_pane);
	assert_true(f->vs.events_before < f->vs.nr_events);
	assert_int_equal(f->vs.events[f->vs.events_before].type,
			 MKM_EV_SWITCH_IN);
	late_update(&f->vs);
	assert_true(f->vs.late_ok);
	assert_int_equal(f->vs.late.switch_in_ns, 1950);
}

/* None asleep, in a wait after a preemption (noise, not a wakeup), in
 * the CPUs view. */
static void test_late_update_none(void **state)
{
	struct fixture *f = *state;

	select_tid(f, 20);
	view_set_cursor(&f->vs.view, 500);
	late_update(&f->vs);
	assert_false(f->vs.late_ok);
	assert_null(f->vs.late_noise); /* nothing indexed for a sleep */
	select_tid(f, 30);
	view_set_cursor(&f->vs.view, 2500);
	late_update(&f->vs);
	assert_false(f->vs.late_ok);
	select_tid(f, 20);
	view_set_cursor(&f->vs.view, 1600);
	act(&f->vs, ACT_CPUS, NULL);
	assert_true(f->vs.cpu_view);
	late_update(&f->vs);
	assert_false(f->vs.late_ok);
}

/* The same wait as the last frame's is not computed again, another one
 * is; once the timeline grew (live), the index is made again only for a
 * wait that ends past it. */
static void test_late_update_cached(void **state)
{
	struct fixture *f = *state;
	const struct mon_late_part *parts;
	struct evs more = { 0 };
	uint64_t upto;

	select_tid(f, 20);
	view_set_cursor(&f->vs.view, 1400);
	late_update(&f->vs);
	assert_true(f->vs.late_ok);
	parts = f->vs.late.parts;
	view_set_cursor(&f->vs.view, 1800);
	late_update(&f->vs);
	assert_ptr_equal(f->vs.late.parts, parts);
	view_set_cursor(&f->vs.view, 3150);
	late_update(&f->vs);
	assert_true(f->vs.late_ok);
	assert_int_equal(f->vs.late.wakeup_ns, 3100);
	upto = f->vs.late_upto;
	/* Live: 30 wakes 20 again at 4500 (queued behind 10), it runs at
	 * 4700. */
	evs_add(&more, 4400, 1, MKM_EV_SWITCH_IN, 30, 0, 0, 0);
	evs_add(&more, 4500, 1, MKM_EV_WAKEUP, 20, 0, 30, 0);
	evs_add(&more, 4700, 0, MKM_EV_SWITCH_IN, 20, 0, 0, 0);
	evs_add(&more, 5000, 0, MKM_EV_SWITCH_OUT, 20, MKM_TS_INTERRUPTIBLE, 0,
		0);
	evs_add(&more, 5000, 1, MKM_EV_SWITCH_OUT, 30, MKM_TS_INTERRUPTIBLE, 0,
		0);
	assert_int_equal(tl_feed(f->tl, more.ev, more.n), 0);
	assert_int_equal(tl_flush(f->tl), 0);
	assert_int_equal(state_refresh(&f->vs), 0);
	assert_true(f->vs.late_stale);
	/* An earlier wait: the index holds it. */
	view_set_cursor(&f->vs.view, 1400);
	late_update(&f->vs);
	assert_true(f->vs.late_ok);
	assert_int_equal(f->vs.late_upto, upto);
	/* The new one: indexed again. */
	view_set_cursor(&f->vs.view, 4600);
	late_update(&f->vs);
	assert_true(f->vs.late_ok);
	assert_false(f->vs.late_stale);
	assert_true(f->vs.late_upto > upto);
	assert_int_equal(f->vs.late.wakeup_ns, 4500);
	assert_int_equal(f->vs.late.switch_in_ns, 4700);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_late_update_wait, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_late_update_switch_in,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_late_update_events_pane,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_late_update_none, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_late_update_cached, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
