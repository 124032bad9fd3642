// SPDX-License-Identifier: GPL-2.0
/*
 * test_commands.c - the mkm command on the host, where it needs no module:
 * the commands that read traces (dump, export, timeline, report) on
 * traces tests/view's mktrace writes, and mkm's own arguments. Run by
 * check-unit (check-cli):
 *
 *   test_commands MKM MKTRACE WORKDIR
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static const char *mkm, *mktrace, *dir;

/* Runs a shell command line in WORKDIR (MKM for "mkm " at its start);
 * returns its exit status. */
static int sh(const char *fmt, ...)
{
	char cmd[2048], line[1536];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "cd '%s' && %s%s", dir,
		 strncmp(line, "mkm ", 4) ? "" : mkm,
		 strncmp(line, "mkm ", 4) ? line : line + 3);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A file of WORKDIR, whole (up to 1 MiB). */
static char *slurp(const char *name)
{
	static char buf[1 << 20];
	char path[1024];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	buf[0] = 0;
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	return buf;
}

static bool exists(const char *name)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !access(path, F_OK);
}

/* The records mkm dump prints in [from_ms, to_ms). */
static int dumped_between(double from_ms, double to_ms)
{
	char *s = slurp("late.dump"), *line;
	int n = 0;

	for (line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
		double t = atof(line);

		n += t >= from_ms && t < to_ms;
	}
	return n;
}

/*
 * One origin: the late trace's first record comes 50 ms after its
 * recording's start, and mkm dump counts from the start, as export's
 * --from/--to do: a window read in the dump selects its records.
 */
static void test_dump_counts_from_recording_start(void **state)
{
	(void)state;
	assert_int_equal(sh("mkm dump late.mkm >late.dump"), 0);
	assert_non_null(strstr(slurp("late.dump"), "50.000000 ms cpu0"));
	assert_null(strstr(slurp("late.dump"), " 0.000000 ms"));
}

static void test_export_window_read_in_dump(void **state)
{
	char want[64];
	int n;

	(void)state;
	assert_int_equal(sh("mkm dump late.mkm >late.dump"), 0);
	n = dumped_between(51, 53.5);
	assert_true(n > 0);
	assert_int_equal(
		sh("mkm export -f perfetto --from 51ms --to 53.5ms late.mkm -o win.pf 2>win.err"),
		0);
	snprintf(want, sizeof(want), "from %d records", n);
	assert_non_null(strstr(slurp("win.err"), want));
}

/* The timeline's axis and its pictures' --from/--to count from there too. */
static void test_timeline_counts_from_recording_start(void **state)
{
	(void)state;
	assert_int_equal(sh("mkm timeline -w 60 late.mkm >late.tl"), 0);
	assert_non_null(strstr(slurp("late.tl"), "|50.0 ms"));
}

/* A window that selects nothing is an error, and leaves no file. */
static void test_export_empty_window_fails(void **state)
{
	(void)state;
	unlink("empty.pf");
	assert_int_equal(
		sh("mkm export -f perfetto --from 1ms --to 2ms late.mkm -o empty.pf 2>empty.err"),
		1);
	assert_non_null(strstr(slurp("empty.err"), "no record in the window"));
	assert_false(exists("empty.pf"));
	assert_false(exists("empty.pf.tmp"));
	assert_int_equal(
		sh("mkm export -f ctf --threads 4242 late.mkm -o empty.ctf 2>empty.err"),
		1);
	assert_false(exists("empty.ctf"));
	assert_false(exists("empty.ctf.tmp"));
}

/* A time without a unit is refused, naming the units. */
static void test_export_time_without_unit_refused(void **state)
{
	(void)state;
	assert_int_equal(
		sh("mkm export -f perfetto --from 5 late.mkm -o nounit.pf 2>nounit.err"),
		2);
	assert_non_null(strstr(slurp("nounit.err"), "'5' is not a time"));
	assert_non_null(strstr(slurp("nounit.err"), "ns, us, ms, s"));
	assert_false(exists("nounit.pf"));
	assert_int_equal(
		sh("mkm timeline --svg x.svg --from 5 --to 6ms late.mkm 2>nounit.err"),
		2);
	assert_non_null(strstr(slurp("nounit.err"), "ns, us, ms, s"));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dump_counts_from_recording_start),
		cmocka_unit_test(test_export_window_read_in_dump),
		cmocka_unit_test(test_timeline_counts_from_recording_start),
		cmocka_unit_test(test_export_empty_window_fails),
		cmocka_unit_test(test_export_time_without_unit_refused),
	};

	if (argc != 4) {
		fprintf(stderr, "usage: test_commands MKM MKTRACE WORKDIR\n");
		return 2;
	}
	mkm = argv[1];
	mktrace = argv[2];
	dir = argv[3];
	if (sh("mkdir -p . && '%s' late late.mkm && '%s' small small.mkm",
	       mktrace, mktrace))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
