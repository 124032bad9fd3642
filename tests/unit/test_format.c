// SPDX-License-Identifier: GPL-2.0
/*
 * test_format.c - format.c: the arguments of a record as mkm dump and the
 * viewer's events pane print them (mon_fmt_event_args), names and units
 * where the record holds numbers, system calls by the trace's machine.
 */
#include <signal.h>

#include "evstream.h"

static const char *args(uint8_t type, uint32_t arg0, uint32_t arg1)
{
	static char buf[128];
	struct mkm_event e = { .type = type, .arg0 = arg0, .arg1 = arg1 };

	return mon_fmt_event_args(buf, sizeof(buf), &e, NULL);
}

/* EXIT carries the task's exit_code, a wait(2) status: the code it gave
 * exit(), or the signal that ended it. */
static void test_fmt_event_args_exit(void **state)
{
	(void)state;
	assert_string_equal(args(MKM_EV_EXIT, 0, 0), "status=0");
	assert_string_equal(args(MKM_EV_EXIT, 3 << 8, 0), "status=3");
	assert_string_equal(args(MKM_EV_EXIT, SIGTERM, 0), "signal=15 SIGTERM");
	assert_string_equal(args(MKM_EV_EXIT, SIGSEGV | 0x80, 0),
			    "signal=11 SIGSEGV core");
}

/* EXEC: the tid the thread had before (a non-leader takes the leader's). */
static void test_fmt_event_args_exec(void **state)
{
	(void)state;
	assert_string_equal(args(MKM_EV_EXEC, 503, 0), "old_tid=503");
}

/* A mark's value is 64 bits, low word first, as monitor_mark() took it. */
static void test_fmt_event_args_mark(void **state)
{
	(void)state;
	assert_string_equal(args(MKM_EV_MARK, 42, 0), "value=42");
	assert_string_equal(args(MKM_EV_MARK, 7, 1), "value=4294967303");
	assert_string_equal(args(MKM_EV_MARK, UINT32_MAX, UINT32_MAX),
			    "value=18446744073709551615");
}

/* DETACH says why the thread stopped being tracked; REAP has nothing. */
static void test_fmt_event_args_detach_reap(void **state)
{
	(void)state;
	assert_string_equal(args(MKM_EV_DETACH, MKM_DETACH_UNMONITOR, 0),
			    "reason=thread_unmonitor");
	assert_string_equal(args(MKM_EV_DETACH, MKM_DETACH_EXEC, 0),
			    "reason=exec (a binary it may not watch)");
	assert_string_equal(args(MKM_EV_DETACH, 9, 0), "reason=9");
	assert_string_equal(args(MKM_EV_REAP, 0, 0), "");
}

/* A system call is named from the table of the machine the trace was
 * recorded on (asm-generic's numbers on arm64), whichever machine reads
 * it; a trace that names no machine is x86-64's, one of a machine with no
 * table gives its number only. */
static void test_fmt_event_args_syscall_by_machine(void **state)
{
	static const struct {
		const char *machine;
		uint32_t nr;
		const char *args;
	} cases[] = {
		{ "x86_64", 1, "nr=1 write" },
		{ NULL, 1, "nr=1 write" },
		{ "", 0, "nr=0 read" },
		{ "aarch64", 64, "nr=64 write" },
		{ "aarch64", 63, "nr=63 read" },
		{ "aarch64", 25, "nr=25 fcntl" },
		{ "aarch64", 1, "nr=1 io_destroy" },
		{ "aarch64", 100000, "nr=100000 ?" },
		{ "riscv64", 64, "nr=64 ?" },
	};
	char buf[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mkm_event e = { .type = MKM_EV_SYSCALL_ENTRY,
				       .arg0 = cases[i].nr };
		struct mon_event_fmt f = { .machine = cases[i].machine };

		assert_string_equal(mon_fmt_event_args(buf, sizeof(buf), &e,
						       &f),
				    cases[i].args);
	}
}

/* A trigger says what fired it, over what, and a wait through an irq. */
static void test_fmt_event_args_trigger(void **state)
{
	char buf[128];
	struct mkm_event e = { .type = MKM_EV_TRIGGER,
			       .flags = MKM_TRIGGER_RUNQ,
			       .arg0 = 7000000,
			       .arg1 = 5000000 };

	(void)state;
	assert_string_equal(mon_fmt_event_args(buf, sizeof(buf), &e, NULL),
			    "runq 7000000 ns > 5000000 ns");
	e.flags = MKM_TRIGGER_IRQ | MKM_EVF_WAITING | MKM_EVF_WAIT_US;
	e.arg0 = 300;
	e.arg1 = 200;
	assert_string_equal(mon_fmt_event_args(buf, sizeof(buf), &e, NULL),
			    "irq 300000 ns > 200000 ns waiting");
	e.flags = MKM_TRIGGER_MARK;
	e.arg0 = 42;
	e.arg1 = 0;
	assert_string_equal(mon_fmt_event_args(buf, sizeof(buf), &e, NULL),
			    "mark value=42");
}

/* The fair class's state: the peer's lead as a signed difference of the
 * low halves, across their wrap. */
static void test_fmt_event_args_sched_state(void **state)
{
	char buf[128];
	struct mkm_event e = { .type = MKM_EV_SCHED_STATE,
			       .flags = MKM_EVF_SS_PEER | MKM_EVF_SS_RESCHED,
			       .arg0 = 0xfffffff0u,
			       .arg1 = 0x10 };
	uint32_t classes = 0;

	(void)state;
	assert_string_equal(mon_fmt_event_args(buf, sizeof(buf), &e, NULL),
			    "vruntime=4294967280 peer=16 lead=+32 ns resched");
	e.flags = MKM_EVF_SS_DEADLINE | MKM_EVF_SS_SWITCH;
	assert_string_equal(mon_fmt_event_args(buf, sizeof(buf), &e, NULL),
			    "deadline=4294967280 at_switch");
	/* Named, it brings the records it adds to; "all" leaves it out. */
	assert_int_equal(mon_classes_parse("sched-state", &classes, NULL, 0),
			 0);
	assert_int_equal(classes, MKM_CLASS_SCHED_STATE | MKM_CLASS_SCHED |
					  MKM_CLASS_WAKEUP);
	assert_string_equal(mon_classes_format(buf, sizeof(buf), classes),
			    "sched,wakeup,sched-state");
	assert_int_equal(mon_classes_parse("all", &classes, NULL, 0), 0);
	assert_false(classes & MKM_CLASS_SCHED_STATE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt_event_args_exit),
		cmocka_unit_test(test_fmt_event_args_trigger),
		cmocka_unit_test(test_fmt_event_args_sched_state),
		cmocka_unit_test(test_fmt_event_args_exec),
		cmocka_unit_test(test_fmt_event_args_mark),
		cmocka_unit_test(test_fmt_event_args_detach_reap),
		cmocka_unit_test(test_fmt_event_args_syscall_by_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
