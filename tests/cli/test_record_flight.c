// SPDX-License-Identifier: GPL-2.0
/*
 * test_record_flight.c - mkm record --flight in the guest: the planted stall of
 * examples/flight caught once, with the hog in the snapshot, and nothing
 * over a threshold above it; mkm trigger (SIGUSR2) and a mark by the
 * program recorded each write a snapshot; --max-snapshots holds; a
 * snapshot that cannot be written is said in one line and the recording
 * goes on.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "shell.h"

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static void clean(const char *base)
{
	sh("rm -f %s %s.[0-9]*", base, base);
}

/*
 * Exactly once: a threshold well above what a loaded guest's vCPU waits
 * by itself (25 ms gave a second snapshot beside other load), a post-roll
 * that takes the stall's aftermath, the other threads that waited behind
 * the hog (on PREEMPT_RT, up to 200 ms after it), whose triggers are then
 * this snapshot's, and a hold-off for an aftermath longer than that (the
 * hog's own wait behind the worker, 370 ms after the stall on arm64's
 * 6.1-rt under TCG), counted, not written.
 */
static void test_flight_catches_the_stall_once(void **state)
{
	char *e;

	(void)state;
	clean("/tmp/fl.mkm");
	assert_int_equal(
		sh("mkm record --no-calibrate --flight 4M --trigger 'runq>50ms' --post 300ms --hold-off 2s -o /tmp/fl.mkm -- flight -t 1.5 -s 100 >/tmp/fl.out 2>/tmp/e"),
		0);
	e = slurp("/tmp/e");
	fputs(e, stderr); /* what fired, for a failure */
	assert_non_null(strstr(e, "wrote /tmp/fl.mkm.1"));
	assert_non_null(strstr(e, "a run-queue wait of"));
	assert_non_null(strstr(e, "1 snapshot written"));
	assert_true(exists("/tmp/fl.mkm.1"));
	assert_false(exists("/tmp/fl.mkm.2"));
	assert_false(exists("/tmp/fl.mkm"));
	/* A trace as any: its trigger, the hog that stalled the worker. */
	assert_int_equal(sh("mkm dump /tmp/fl.mkm.1 >/tmp/fl.dump"), 0);
	assert_int_equal(sh("grep -q ' trigger ' /tmp/fl.dump"), 0);
	assert_int_equal(sh("grep -q hog /tmp/fl.dump"), 0);
	assert_int_equal(
		sh("mkm latency /tmp/fl.mkm.1 | grep -q '^triggered by a run-queue wait of .* (worker)'"),
		0);
	assert_int_equal(sh("mkm report /tmp/fl.mkm.1 >/tmp/fl.txt"), 0);
	assert_non_null(strstr(slurp("/tmp/fl.txt"), "worker"));

	/* Above the stall: armed all along, nothing written. */
	clean("/tmp/fh.mkm");
	assert_int_equal(
		sh("mkm record --no-calibrate --flight 4M --trigger 'runq>500ms' -o /tmp/fh.mkm -- flight -t 1 -s 50 >/dev/null 2>/tmp/e"),
		0);
	assert_non_null(strstr(slurp("/tmp/e"), "0 snapshots written"));
	assert_false(exists("/tmp/fh.mkm.1"));
}

static void test_flight_max_snapshots_and_hold_off(void **state)
{
	char *e;

	(void)state;
	clean("/tmp/fm.mkm");
	assert_int_equal(
		sh("mkm record --no-calibrate --flight 4M --trigger 'runq>25ms' --max-snapshots 1 -o /tmp/fm.mkm -- flight -t 1.5 -n 3 -s 50 >/dev/null 2>/tmp/e"),
		0);
	e = slurp("/tmp/e");
	assert_true(exists("/tmp/fm.mkm.1"));
	assert_false(exists("/tmp/fm.mkm.2"));
	assert_non_null(strstr(e, "past --max-snapshots"));
	clean("/tmp/fo.mkm");
	assert_int_equal(
		sh("mkm record --no-calibrate --flight 4M --trigger 'runq>25ms' --hold-off 10s -o /tmp/fo.mkm -- flight -t 1.5 -n 3 -s 50 >/dev/null 2>/tmp/e"),
		0);
	assert_true(exists("/tmp/fo.mkm.1"));
	assert_false(exists("/tmp/fo.mkm.2"));
	assert_non_null(strstr(slurp("/tmp/e"), "within --hold-off"));
}

/* From outside: mkm trigger by the output's name, and at the end. */
static void test_flight_mkm_trigger_and_exit(void **state)
{
	int i;

	(void)state;
	clean("/tmp/fs.mkm");
	assert_int_equal(
		sh("mkm record --no-calibrate --flight 1M --trigger exit -o /tmp/fs.mkm -- sleep 4 >/dev/null 2>/tmp/es &"),
		0);
	/* Armed: the command runs, the recorder waits in sigtimedwait(),
	 * where SIGUSR2 shows as caught, not blocked. */
	for (i = 0; i < 100 && sh("pidof sleep >/dev/null"); i++)
		usleep(50000);
	usleep(200000);
	for (i = 0; i < 100 && sh("mkm trigger /tmp/fs.mkm 2>/tmp/et"); i++)
		usleep(50000);
	if (i == 100)
		sh("cat /tmp/et >&2");
	assert_true(i < 100);
	for (i = 0; i < 100 && !exists("/tmp/fs.mkm.1"); i++)
		usleep(50000);
	if (!exists("/tmp/fs.mkm.1"))
		sh("cat /tmp/es >&2; ls -la /tmp/ >&2");
	assert_true(exists("/tmp/fs.mkm.1"));
	if (sh("mkm dump /tmp/fs.mkm.1 | grep -q ' trigger '"))
		sh("cat /tmp/es >&2; mkm dump /tmp/fs.mkm.1 | tail -20 >&2");
	assert_int_equal(sh("mkm dump /tmp/fs.mkm.1 | grep -q ' trigger '"), 0);
	/* The end's snapshot, once the command is done. */
	for (i = 0; i < 200 && !exists("/tmp/fs.mkm.2"); i++)
		usleep(50000);
	assert_true(exists("/tmp/fs.mkm.2"));
	sleep(1);
	assert_non_null(strstr(slurp("/tmp/es"), "2 snapshots written"));
	assert_int_equal(sh("mkm trigger 1 2>/tmp/e"), 1);
	assert_non_null(strstr(slurp("/tmp/e"), "not mkm record --flight"));
}

/*
 * From the program itself: examples/flight's worker, woken 50 ms late by
 * the stall, asks for the snapshot (-d: monitor_trigger(NULL, ...), a
 * mark into the monitor that tracks it, the recorder's), with no
 * --trigger armed; the snapshot and mkm latency name the mark.
 */
static void test_flight_program_asks_for_the_snapshot(void **state)
{
	char *e, *asked, want[64];
	unsigned int n;

	(void)state;
	clean("/tmp/fp.mkm");
	assert_int_equal(
		sh("mkm record --no-calibrate --flight 4M --post 100ms --hold-off 2s -o /tmp/fp.mkm -- flight -t 1.5 -s 100 -d 50 >/tmp/fp.out 2>/tmp/e"),
		0);
	e = slurp("/tmp/e");
	fputs(e, stderr); /* what fired, for a failure */
	assert_null(strstr(e, "no snapshot asked"));
	assert_non_null(strstr(e, "wrote /tmp/fp.mkm.1"));
	assert_non_null(strstr(e, "a mark (value"));
	/* Each ask is one trigger; on a busy host a second wake may come
	 * late too, and falls within --hold-off. (slurp's buffer is one:
	 * e is read again.) */
	asked = strstr(slurp("/tmp/fp.out"), "snapshots asked by the worker: ");
	assert_non_null(asked);
	assert_int_equal(
		sscanf(asked, "snapshots asked by the worker: %u ", &n), 1);
	assert_true(n >= 1);
	snprintf(want, sizeof(want), ", %u trigger%s", n, n == 1 ? "" : "s");
	e = slurp("/tmp/e");
	assert_non_null(strstr(e, want));
	assert_non_null(strstr(e, "flight recorder: 1 snapshot written"));
	assert_int_equal(
		sh("mkm latency /tmp/fp.mkm.1 | grep -q '^triggered by a mark (value [0-9]*) of tid [0-9]* (worker)'"),
		0);
}

/*
 * Both CPUs loaded by spinners: the snapshot still comes, whole (no LOST
 * record: no hole in any CPU's window), and says how soon after the
 * trigger it was complete; its writer at SCHED_FIFO (--realtime) is not
 * queued behind the spinners.
 */
static void test_flight_loaded_snapshot_has_no_hole(void **state)
{
	char *e;

	(void)state;
	clean("/tmp/fb.mkm");
	sh("for c in 0 1; do taskset -c $c sh -c 'while :; do :; done' & echo $! >>/tmp/fb.spin; done");
	assert_int_equal(
		sh("mkm record --no-calibrate --realtime 1 --flight 4M --events default,wakeup --trigger 'runq>25ms' -o /tmp/fb.mkm -- flight -t 1.5 -s 50 >/dev/null 2>/tmp/e"),
		0);
	sh("kill $(cat /tmp/fb.spin); rm -f /tmp/fb.spin");
	e = slurp("/tmp/e");
	fputs(e, stderr);
	assert_non_null(strstr(e, "wrote /tmp/fb.mkm.1"));
	assert_non_null(strstr(e, "complete "));
	assert_int_equal(sh("mkm dump /tmp/fb.mkm.1 >/tmp/fb.dump"), 0);
	assert_int_equal(sh("grep -c LOST /tmp/fb.dump"), 1); /* none */
	assert_int_equal(sh("grep -q ' trigger ' /tmp/fb.dump"), 0);
}

/* The context switches of every thread of process @pid so far. */
static long switches(int pid)
{
	sh("cat /proc/%d/task/*/status | awk '/ctxt_switches/ { n += $2 } END { print n }' >/tmp/fw.n",
	   pid);
	return atol(slurp("/tmp/fw.n"));
}

/*
 * Armed, the recorder sleeps: no drain, no tick, while the command
 * runs (its threads' switches are the command's, not counted).
 */
static void test_flight_armed_recorder_does_not_wake(void **state)
{
	long before, after;
	int pid;

	(void)state;
	clean("/tmp/fw.mkm");
	assert_int_equal(
		sh("mkm record --no-calibrate --flight 4M --trigger 'runq>1s' -o /tmp/fw.mkm -- sleep 5 >/dev/null 2>&1 & echo $! >/tmp/fw.pid"),
		0);
	sleep(2);
	pid = atoi(slurp("/tmp/fw.pid"));
	before = switches(pid);
	sleep(2);
	after = switches(pid);
	fprintf(stderr, "armed recorder: %ld context switches in 2 s\n",
		after - before);
	assert_true(after - before <= 1);
	for (int i = 0; i < 100 && !kill(pid, 0); i++)
		usleep(100000);
}

/* A full file system: said in one line, the recording goes on. */
static void test_flight_full_disk_says_so_and_goes_on(void **state)
{
	char *e;

	(void)state;
	mkdir("/tmp/small", 0755);
	assert_int_equal(mount("tmpfs", "/tmp/small", "tmpfs", 0, "size=16k"),
			 0);
	assert_int_equal(
		sh("mkm record --no-calibrate --flight 4M --trigger 'runq>25ms' -o /tmp/small/x.mkm -- flight -t 1.5 -n 2 -s 50 >/dev/null 2>/tmp/e"),
		0);
	e = slurp("/tmp/e");
	assert_non_null(strstr(e, "cannot write /tmp/small/x.mkm.1"));
	assert_non_null(strstr(e, "recording goes on"));
	assert_non_null(strstr(e, "could not be written"));
	assert_false(exists("/tmp/small/x.mkm.1"));
	assert_false(exists("/tmp/small/x.mkm.1.part"));
	umount("/tmp/small");
}

/*
 * The disk fills between two snapshots (the first, shorter than its --pre,
 * says so): the first stays whole and
 * readable, the second is said in one line and leaves nothing, and the
 * recording goes on to its end (whose snapshot has no room either). An
 * -o that cannot be written at all is refused before anything runs.
 */
static void test_flight_full_disk_keeps_earlier_snapshot(void **state)
{
	char *e;
	int i;

	(void)state;
	mkdir("/tmp/keep", 0755);
	assert_int_equal(mount("tmpfs", "/tmp/keep", "tmpfs", 0, "size=8m"), 0);
	assert_int_equal(
		sh("mkm record --no-calibrate --flight 1M --trigger exit --pre 30s -o /tmp/keep/k.mkm -- sleep 4 >/dev/null 2>/tmp/ek & echo $! >/tmp/ek.pid"),
		0);
	for (i = 0; i < 100 && sh("pidof sleep >/dev/null"); i++)
		usleep(50000);
	usleep(200000);
	for (i = 0; i < 100 && sh("mkm trigger /tmp/keep/k.mkm 2>/dev/null");
	     i++)
		usleep(50000);
	for (i = 0; i < 100 && !exists("/tmp/keep/k.mkm.1"); i++)
		usleep(50000);
	assert_true(exists("/tmp/keep/k.mkm.1"));
	/* No room left at all. */
	sh("dd if=/dev/zero of=/tmp/keep/fill bs=64k 2>/dev/null");
	assert_int_equal(sh("mkm trigger /tmp/keep/k.mkm"), 0);
	for (i = 0; i < 200 && !kill(atoi(slurp("/tmp/ek.pid")), 0); i++)
		usleep(50000);
	e = slurp("/tmp/ek");
	fputs(e, stderr);
	/* Less kept than --pre asks: said, with the remedy. */
	assert_non_null(strstr(e, "not the 30000.0 ms asked: larger rings"));
	assert_non_null(strstr(e, "cannot write /tmp/keep/k.mkm.2"));
	assert_non_null(strstr(e, "recording goes on"));
	assert_false(exists("/tmp/keep/k.mkm.2"));
	assert_false(exists("/tmp/keep/k.mkm.2.part"));
	/* The first, whole: its trigger, and its END. */
	assert_int_equal(sh("mkm dump /tmp/keep/k.mkm.1 >/tmp/ek.dump 2>&1"),
			 0);
	assert_int_equal(sh("grep -q ' trigger ' /tmp/ek.dump"), 0);
	assert_int_equal(sh("grep -qi 'without an END' /tmp/ek.dump"), 1);
	umount("/tmp/keep");

	assert_int_equal(mount("tmpfs", "/tmp/keep", "tmpfs", MS_RDONLY, NULL),
			 0);
	assert_int_equal(
		sh("mkm record --no-calibrate --flight 1M -o /tmp/keep/r.mkm -- true >/dev/null 2>/tmp/er"),
		1);
	e = slurp("/tmp/er");
	assert_non_null(strstr(e, "-o /tmp/keep/r.mkm: cannot write there"));
	assert_true(strchr(e, '\n') && !strchr(e, '\n')[1]); /* one line */
	umount("/tmp/keep");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flight_catches_the_stall_once),
		cmocka_unit_test(test_flight_max_snapshots_and_hold_off),
		cmocka_unit_test(test_flight_mkm_trigger_and_exit),
		cmocka_unit_test(test_flight_program_asks_for_the_snapshot),
		cmocka_unit_test(test_flight_armed_recorder_does_not_wake),
		cmocka_unit_test(test_flight_loaded_snapshot_has_no_hole),
		cmocka_unit_test(test_flight_full_disk_says_so_and_goes_on),
		cmocka_unit_test(test_flight_full_disk_keeps_earlier_snapshot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
