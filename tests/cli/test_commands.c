// SPDX-License-Identifier: GPL-2.0
/*
 * test_commands.c - the mkm command on the host, where it needs no module:
 * the commands that read traces (dump, export, timeline, report, latency,
 * noise, idle, merge) on traces tests/view's mktrace writes, and mkm's own
 * arguments: its one table of commands against mkm(1) (found from this
 * file's path, docs/man/mkm.1). Run by check-unit (check-cli):
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

#include "shell.h"

static const char *mkm, *mktrace, *dir;

/* Runs a shell command line in WORKDIR (MKM for "mkm " at its start);
 * returns its exit status. */
static int run(const char *fmt, ...)
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
static char *slurp_in(const char *name)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return slurp(path);
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
	char *s = slurp_in("late.dump"), *line;
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
	assert_int_equal(run("mkm dump late.mkm >late.dump"), 0);
	assert_non_null(strstr(slurp_in("late.dump"), "50.000000 ms cpu0"));
	assert_null(strstr(slurp_in("late.dump"), " 0.000000 ms"));
}

static void test_export_window_read_in_dump(void **state)
{
	char want[64];
	int n;

	(void)state;
	assert_int_equal(run("mkm dump late.mkm >late.dump"), 0);
	n = dumped_between(51, 53.5);
	assert_true(n > 0);
	assert_int_equal(
		run("mkm export -f perfetto --from 51ms --to 53.5ms late.mkm -o win.pf 2>win.err"),
		0);
	snprintf(want, sizeof(want), "from %d records", n);
	assert_non_null(strstr(slurp_in("win.err"), want));
}

/* The timeline's axis and its pictures' --from/--to count from there too. */
static void test_timeline_counts_from_recording_start(void **state)
{
	(void)state;
	assert_int_equal(run("mkm timeline -w 60 late.mkm >late.tl"), 0);
	assert_non_null(strstr(slurp_in("late.tl"), "|50.0 ms"));
}

/* A window that selects nothing is an error, and leaves no file. */
static void test_export_empty_window_fails(void **state)
{
	(void)state;
	unlink("empty.pf");
	assert_int_equal(
		run("mkm export -f perfetto --from 1ms --to 2ms late.mkm -o empty.pf 2>empty.err"),
		1);
	assert_non_null(
		strstr(slurp_in("empty.err"), "no record in the window"));
	assert_false(exists("empty.pf"));
	assert_false(exists("empty.pf.tmp"));
	assert_int_equal(
		run("mkm export -f ctf --threads 4242 late.mkm -o empty.ctf 2>empty.err"),
		1);
	assert_false(exists("empty.ctf"));
	assert_false(exists("empty.ctf.tmp"));
}

/* mkm dump likewise: a window or a thread that selects no record is an
 * error, with export's words, not an empty dump with status 0 (a LOST
 * record, which every cut keeps, is no record of the threads). */
static void test_dump_empty_cut_fails(void **state)
{
	(void)state;
	assert_int_equal(run("mkm dump --from 1ms --to 2ms late.mkm "
			     ">empty.dump 2>empty.err"),
			 1);
	assert_non_null(
		strstr(slurp_in("empty.err"), "no record in the window"));
	assert_int_equal(
		run("mkm dump --tid 4242 small.mkm >empty.dump 2>empty.err"),
		1);
	assert_non_null(
		strstr(slurp_in("empty.err"), "no record in the window"));
	assert_int_equal(run("mkm dump --from 51ms late.mkm >/dev/null"), 0);
}

/* A time without a unit is refused, naming the units. */
static void test_export_time_without_unit_refused(void **state)
{
	(void)state;
	assert_int_equal(
		run("mkm export -f perfetto --from 5 late.mkm -o nounit.pf 2>nounit.err"),
		2);
	assert_non_null(strstr(slurp_in("nounit.err"), "'5' is not a time"));
	assert_non_null(strstr(slurp_in("nounit.err"), "ns, us, ms, s"));
	assert_false(exists("nounit.pf"));
	assert_int_equal(
		run("mkm timeline --svg x.svg --from 5 --to 6ms late.mkm 2>nounit.err"),
		2);
	assert_non_null(strstr(slurp_in("nounit.err"), "ns, us, ms, s"));
}

/*
 * Four flipped bytes in the middle of a trace cost one chunk, not the
 * rest of the file: the dump reads on, and says what it skipped.
 */
static void test_dump_resyncs_after_flipped_bytes(void **state)
{
	long whole, kept;

	(void)state;
	assert_int_equal(run("'%s' big big.mkm 20000 10 && cp big.mkm flip.mkm",
			     mktrace),
			 0);
	assert_int_equal(
		run("printf '\\377\\377\\377\\377' | dd of=flip.mkm bs=1 seek=$(($(stat -c %%s big.mkm) / 2)) conv=notrunc status=none"),
		0);
	assert_int_equal(run("mkm dump big.mkm | wc -l >whole.n"), 0);
	assert_int_equal(run("mkm dump flip.mkm 2>flip.err | wc -l >flip.n"),
			 0);
	whole = atol(slurp_in("whole.n"));
	kept = atol(slurp_in("flip.n"));
	/* 20000 records, of which each thread's comm, two records, is a
	 * line. */
	assert_int_equal(whole, 20000 - 10);
	/* One EVENTS chunk holds 2048 records. */
	assert_true(kept >= whole - 2048 && kept < whole);
	assert_non_null(strstr(slurp_in("flip.err"), "flip.mkm: offset "));
	assert_non_null(strstr(slurp_in("flip.err"), "checksum mismatch"));
	assert_non_null(
		strstr(slurp_in("flip.err"),
		       "bytes (1 chunk) to the next good chunk, at offset"));
	/* The report reads the same records, and says so too. */
	assert_int_equal(run("mkm report flip.mkm >flip.report 2>flip.err"), 0);
	assert_non_null(strstr(slurp_in("flip.err"), "skipped"));
}

/* A missing file is said to be missing, not blamed on the module. */
static void test_report_missing_file_says_so(void **state)
{
	(void)state;
	assert_int_equal(run("mkm report missing.mkm 2>missing.err"), 1);
	assert_string_equal(slurp_in("missing.err"),
			    "mkm: missing.mkm: No such file or directory\n");
	assert_int_equal(run("mkm dump missing.mkm 2>missing.err"), 1);
	assert_null(strstr(slurp_in("missing.err"), "module"));
}

static void test_report_directory_says_so(void **state)
{
	(void)state;
	assert_int_equal(run("mkdir -p adir"), 0);
	assert_int_equal(run("mkm report adir 2>dir.err"), 1);
	assert_non_null(strstr(slurp_in("dir.err"), "adir: is a directory"));
	assert_null(strstr(slurp_in("dir.err"), "read error"));
}

static void test_main_version(void **state)
{
	(void)state;
	assert_int_equal(run("mkm --version >version.out"), 0);
	assert_true(!strncmp(slurp_in("version.out"), "mkm 0.", 6) ||
		    !strncmp(slurp_in("version.out"), "mkm 1.", 6));
}

static void test_main_unknown_command(void **state)
{
	(void)state;
	assert_int_equal(run("mkm bogus 2>bogus.err"), 2);
	assert_non_null(
		strstr(slurp_in("bogus.err"), "unknown command 'bogus'"));
	assert_null(strstr(slurp_in("bogus.err"), "usage:"));
}

/* mkm(1), beside this file in the tree (the build names it relatively,
 * from the top). */
static char *man_page(void)
{
	char path[1024];
	const char *slash = strrchr(__FILE__, '/');

	snprintf(path, sizeof(path), "%.*s/../../docs/man/mkm.1",
		 slash ? (int)(slash - __FILE__) : 1, slash ? __FILE__ : ".");
	return slurp(path);
}

/* Adds @name to the @n names of @names (room for @max) if new. */
static void add_name(char names[][32], size_t *n, size_t max, const char *name,
		     size_t len)
{
	size_t i;

	if (len >= 32)
		len = 31;
	for (i = 0; i < *n; i++)
		if (strlen(names[i]) == len && !strncmp(names[i], name, len))
			return;
	if (*n < max) {
		memcpy(names[*n], name, len);
		names[(*n)++][len] = 0;
	}
}

/* The commands mkm(1)'s SYNOPSIS shows (".B mkm NAME ..." lines), and,
 * into @sections, those its DESCRIPTION has a section for (".SS NAME"). */
static size_t man_commands(char names[][32], size_t max, char sections[][32],
			   size_t *nr_sections)
{
	char *man = man_page(), *line, *save;
	bool synopsis = false;
	size_t n = 0;

	*nr_sections = 0;
	for (line = strtok_r(man, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, ".SH ", 4))
			synopsis = !strcmp(line, ".SH SYNOPSIS");
		if (synopsis && !strncmp(line, ".B mkm ", 7) && line[7] != '\\')
			add_name(names, &n, max, line + 7,
				 strcspn(line + 7, " "));
		if (!strncmp(line, ".SS ", 4))
			add_name(sections, nr_sections, max, line + 4,
				 strcspn(line + 4, " "));
	}
	return n;
}

/* The commands mkm help lists: its lines "   NAME  what it does". */
static size_t help_commands(char names[][32], size_t max)
{
	char *out, *line, *save;
	size_t n = 0;

	assert_int_equal(run("mkm help >help.list"), 0);
	out = slurp_in("help.list");
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "   ", 3) && line[3] != ' ')
			add_name(names, &n, max, line + 3,
				 strcspn(line + 3, " "));
	return n;
}

/*
 * One table of commands: mkm help lists exactly the commands mkm(1)'s
 * synopsis and sections describe, each of them runs (its --help, exit 0,
 * is its own usage), mkm --help shows each, and an unknown command is
 * answered with all their names.
 */
static void test_main_help_matches_man_page(void **state)
{
	char man[64][32], sections[64][32], help[64][32], err[4096];
	size_t nr_man, nr_sections, nr_help, i, j;

	(void)state;
	nr_man = man_commands(man, 64, sections, &nr_sections);
	nr_help = help_commands(help, 64);
	assert_true(nr_help >= 10);
	for (i = 0; i < nr_help; i++) {
		for (j = 0; j < nr_man && strcmp(man[j], help[i]); j++)
			;
		if (j == nr_man)
			fail_msg(
				"mkm help lists %s; mkm(1)'s synopsis does not",
				help[i]);
		for (j = 0; j < nr_sections && strcmp(sections[j], help[i]);
		     j++)
			;
		if (j == nr_sections)
			fail_msg(
				"mkm help lists %s; mkm(1) has no section on it",
				help[i]);
	}
	for (i = 0; i < nr_man; i++) {
		for (j = 0; j < nr_help && strcmp(man[i], help[j]); j++)
			;
		if (j == nr_help)
			fail_msg(
				"mkm(1)'s synopsis shows mkm %s; mkm help does not list it",
				man[i]);
	}
	assert_int_equal(run("mkm frobnicate 2>unknown.err"), 2);
	snprintf(err, sizeof(err), "%s", slurp_in("unknown.err"));
	assert_int_equal(run("mkm --help >usage.out"), 0);
	for (i = 0; i < nr_help; i++) {
		char want[64];

		snprintf(want, sizeof(want), " %s%s", help[i],
			 i + 1 < nr_help ? "," : " ");
		if (!strstr(err, want))
			fail_msg(
				"the unknown-command line does not name %s: %s",
				help[i], err);
		snprintf(want, sizeof(want), "\n  mkm %s ", help[i]);
		if (!strstr(slurp_in("usage.out"), want))
			fail_msg("mkm --help does not show mkm %s", help[i]);
		if (run("mkm %s --help >cmd.help 2>&1", help[i]))
			fail_msg("mkm %s --help failed", help[i]);
		snprintf(want, sizeof(want), "usage: mkm %s ", help[i]);
		if (!strstr(slurp_in("cmd.help"), want))
			fail_msg("mkm %s --help does not say \"%s\"", help[i],
				 want);
		assert_int_equal(run("mkm help %s >cmd.help", help[i]), 0);
		if (!strstr(slurp_in("cmd.help"), want))
			fail_msg("mkm help %s does not say \"%s\"", help[i],
				 want);
	}
	assert_int_equal(run("mkm help frobnicate 2>unknown.err"), 2);
	assert_non_null(strstr(slurp_in("unknown.err"), "merge"));
}

/* --realtime takes a SCHED_FIFO priority, refused before anything runs. */
static void test_record_realtime_priority_checked(void **state)
{
	(void)state;
	assert_int_equal(run("mkm record --realtime 0 -- true 2>rt.err"), 2);
	assert_non_null(strstr(
		slurp_in("rt.err"),
		"--realtime: '0' is not a SCHED_FIFO priority (1 to 99)"));
	assert_int_equal(run("mkm record --realtime 1x -- true 2>rt.err"), 2);
	assert_non_null(strstr(slurp_in("rt.err"), "'1x' is not"));
}

/* The top-level usage names the options users look for there. */
static void test_main_usage_lists_options(void **state)
{
	const char *opts[] = { " -a ",	    "mkm latency ", "mkm noise ",
			       "mkm idle ", "--png",	    "--svg",
			       "--from",    "--version",    "--by-process",
			       "--pid",	    "--barriers",   "--realtime" };
	char *u;
	size_t i;

	(void)state;
	assert_int_equal(run("mkm --help >help.out"), 0);
	u = slurp_in("help.out");
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (!strstr(u, opts[i]))
			fail_msg("mkm --help does not list %s", opts[i]);
}

/*
 * Names where the records have numbers: system calls from the kernel's
 * table, softirqs as /proc/softirqs says them, a comm whole on one line
 * (the kernel sends it in two records, whose seqs the line gives), the tids a record gives with their comms,
 * waits with their unit; what an exec, an exit, a mark and a detach carry
 * by its name.
 */
static void test_dump_names_what_records_number(void **state)
{
	const char *want[] = {
		"syscall_entry nr=56 clone ",
		"syscall_exit  nr=157 prctl ret=-22 ",
		"softirq_entry vec=3 NET_RX ",
		"irq_exit      irq=24 handled=1 ",
		"name          comm \"parent-process\"  seq=1,2\n",
		"name          comm \"child-exec\"  seq=21,22\n",
		"switch_in     prev=0 waited=14.0 us ",
		"wakeup_new    by=501 (parent-process) cpu=1 ",
		"exec          old_tid=503 ",
		"exit          status=0 ",
		"mark          value=4294967303 ",
		"detach        reason=thread_unmonitor ",
	};
	char *d;
	size_t i;

	(void)state;
	assert_int_equal(run("'%s' events events.mkm", mktrace), 0);
	assert_int_equal(run("mkm dump events.mkm >events.dump"), 0);
	d = slurp_in("events.dump");
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(d, want[i]))
			fail_msg("mkm dump does not say \"%s\"", want[i]);
	/* A comm is one line, not its two records' halves. */
	assert_null(strstr(d, " of 2)"));
	assert_null(strstr(d, "half only"));
}

/* A trace's event classes in report --json, by the names record --events
 * takes (libmonitor's one table: mon_classes_format()). mktrace writes
 * the module's default classes. */
static void test_report_json_names_classes(void **state)
{
	(void)state;
	assert_int_equal(run("mkm report --json small.mkm >cls.json"), 0);
	assert_non_null(strstr(slurp_in("cls.json"),
			       "\"classes\":\"sched,lifecycle,irq\","));
}

/* A checker of mkm dump --json's output: each line one JSON object with
 * the members every record has; prints how many lines. */
static const char json_check[] =
	"import json, sys\n"
	"keys = ('time_ns', 'kernel_time_ns', 'cpu', 'tid', 'comm', 'type',\n"
	"        'seq')\n"
	"n = 0\n"
	"for line in open(sys.argv[1]):\n"
	"    o = json.loads(line)\n"
	"    assert isinstance(o, dict), line\n"
	"    for k in keys:\n"
	"        assert k in o, (k, line)\n"
	"    n += 1\n"
	"print(n)\n";

/* Whether every line of WORKDIR's @name parses (python3's json) as a
 * record's object; *n: how many lines. */
static bool json_lines_ok(const char *name, long *n)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/check_json.py", dir);
	f = fopen(path, "w");
	if (!f)
		return false;
	fputs(json_check, f);
	fclose(f);
	if (run("python3 check_json.py %s >%s.n", name, name))
		return false;
	snprintf(path, sizeof(path), "%s.n", name);
	*n = atol(slurp_in(path));
	return true;
}

/*
 * mkm dump --json, as perf script gives per-event output for scripts: a
 * JSON object a line, a line for each of the text dump's, each with the
 * time from the recording's start and on the kernel's clock, the CPU,
 * tid, comm, type and seq, then the type's fields by name.
 */
static void test_dump_json(void **state)
{
	const char *want[] = {
		"\"type\":\"switch_in\",\"seq\":0,\"prev_tid\":0,\"prev_comm\":null,\"waited_ns\":14000}\n",
		"\"tid\":501,\"comm\":\"parent-process\",\"type\":\"name\",\"seq\":1,\"name\":\"parent-process\",\"seq_last\":2}\n",
		"\"type\":\"syscall_exit\",\"seq\":4,\"nr\":157,\"name\":\"prctl\",\"ret\":-22}\n",
		"\"type\":\"softirq_entry\",\"seq\":16,\"vec\":3,\"name\":\"NET_RX\"}\n",
		"\"type\":\"wakeup_new\",\"seq\":7,\"by_tid\":501,\"by_comm\":\"parent-process\",\"target_cpu\":1,\"in_irq\":false}\n",
		"\"type\":\"switch_out\",\"seq\":9,\"state\":\"R\",\"preempted\":true,",
		"\"type\":\"LOST\",\"seq\":11,\"lost\":5}\n",
		"\"type\":\"exit\",\"seq\":23,\"status\":0}\n",
		"\"type\":\"mark\",\"seq\":7,\"value\":4294967303}\n",
		"\"type\":\"detach\",\"seq\":29,\"reason\":\"thread_unmonitor\"}\n",
	};
	const char *traces[] = { "events", "eo", "late", "small", "big" };
	long n, lines;
	size_t i;
	char *d;

	(void)state;
	assert_int_equal(run("'%s' events-one eo.mkm", mktrace), 0);
	for (i = 0; i < sizeof(traces) / sizeof(traces[0]); i++) {
		char name[32];

		assert_int_equal(run("mkm dump --json %s.mkm >%s.jsonl",
				     traces[i], traces[i]),
				 0);
		snprintf(name, sizeof(name), "%s.jsonl", traces[i]);
		if (!json_lines_ok(name, &n))
			fail_msg(
				"mkm dump --json %s.mkm: a line is not a record's JSON object",
				traces[i]);
		assert_int_equal(run("mkm dump %s.mkm | wc -l >%s.lines",
				     traces[i], traces[i]),
				 0);
		snprintf(name, sizeof(name), "%s.lines", traces[i]);
		lines = atol(slurp_in(name));
		assert_true(n > 10);
		assert_int_equal(n, lines);
	}
	d = slurp_in("events.jsonl");
	assert_true(!strncmp(
		d,
		"{\"time_ns\":0,\"kernel_time_ns\":1000000000,"
		"\"cpu\":0,\"tid\":501,\"comm\":null,"
		"\"type\":\"attach\",\"seq\":0,\"state\":\"R\"",
		strlen("{\"time_ns\":0,\"kernel_time_ns\":1000000000,"
		       "\"cpu\":0,\"tid\":501,\"comm\":null,"
		       "\"type\":\"attach\",\"seq\":0,\"state\":\"R\"")));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(d, want[i]))
			fail_msg("mkm dump --json does not say %s", want[i]);
	/* One record: both its halves in one, as a SWITCH_OUT and IN. */
	assert_non_null(strstr(
		slurp_in("eo.jsonl"),
		"\"type\":\"switch\",\"seq\":18,\"prev_tid\":501,\"prev_comm\":\"parent-process\",\"next_tid\":503,\"next_comm\":\"parent-process\",\"state\":\"S\","));
	/* Both clocks: the late trace starts 50 ms before its first record,
	 * stamped at 1 s on the kernel's clock. */
	assert_non_null(strstr(slurp_in("late.jsonl"),
			       "{\"time_ns\":50000000,\"kernel_time_ns\":"
			       "1000000000,\"cpu\":0,\"tid\":1001,"));
	/* The cuts as the text dump's. */
	assert_int_equal(
		run("mkm dump --json --tid 1002 --from 2ms small.mkm >cut.jsonl"),
		0);
	assert_true(json_lines_ok("cut.jsonl", &n));
	assert_int_equal(run("mkm dump --tid 1002 --from 2ms small.mkm | wc -l "
			     ">cut.lines"),
			 0);
	assert_int_equal(n, atol(slurp_in("cut.lines")));
	assert_null(strstr(slurp_in("cut.jsonl"), "\"tid\":1001,"));
	assert_int_equal(run("mkm dump --json --from 1ms --to 2ms late.mkm "
			     ">/dev/null 2>&1"),
			 1);
}

/* Whether WORKDIR's @name is one line, whole (its newline last). */
static bool one_line(const char *name)
{
	const char *s = slurp_in(name), *nl = strchr(s, '\n');

	return nl && !nl[1] && !strncmp(s, "mkm: ", 5);
}

/*
 * What --compensated refuses, it refuses in one line, whole: a trace
 * without a calibration (as a recording with --no-calibrate, or mktrace's
 * events), one compensated already, a --calibration file that has none;
 * nothing on stdout, and the next line starts on a line of its own.
 */
static void test_report_compensated_refusal_is_one_line(void **state)
{
	const char *cmds[] = {
		"mkm report --compensated events.mkm",
		"mkm report --compensated --json events.mkm",
		"mkm latency --compensated events.mkm",
		"mkm report --compensated comp.mkm",
		"mkm report --compensated --calibration events.mkm small.mkm",
	};
	size_t i;

	(void)state;
	assert_int_equal(run("'%s' events events.mkm", mktrace), 0);
	assert_int_equal(run("mkm replay -o comp.mkm small.mkm 2>/dev/null"),
			 0);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		assert_int_equal(run("%s >refused.out 2>refused.err", cmds[i]),
				 1);
		if (!one_line("refused.err"))
			fail_msg("%s: not one whole line: \"%s\"", cmds[i],
				 slurp_in("refused.err"));
		assert_string_equal(slurp_in("refused.out"), "");
	}
	assert_non_null(strstr(slurp_in("refused.err"),
			       "events.mkm: no calibration in this file"));
	assert_int_equal(run("(%s%s; echo next) >refused.both 2>&1", mkm,
			     " report --compensated events.mkm"),
			 0);
	assert_non_null(strstr(slurp_in("refused.both"),
			       "(mkm calibrate -o FILE writes one)\nnext\n"));
}

/*
 * A trace recorded on a clock coarser than its nanoseconds (arm64's
 * timer, 16 ns on QEMU's virt machine) says so: the report's first line
 * names the step, a cost below it is marked in the calibration's table
 * and said once by the commands that compensate, and --json gives both.
 * A trace of x86-64's 1 ns clock says nothing of it.
 */
static void test_report_clock_step(void **state)
{
	(void)state;
	assert_int_equal(run("'%s' arm64 arm.mkm", mktrace), 0);
	assert_int_equal(run("mkm report arm.mkm >arm.out"), 0);
	assert_non_null(strstr(slurp_in("arm.out"), "clock step 16.0 ns\n"));
	assert_non_null(strstr(slurp_in("arm.out"), "below the clock's step"));
	assert_non_null(strstr(slurp_in("arm.out"),
			       "Below the clock's step (16.0 ns): switch;"));
	assert_int_equal(
		run("mkm report --compensated arm.mkm >arm.out 2>arm.err"), 0);
	assert_non_null(strstr(
		slurp_in("arm.err"),
		"arm.mkm: the switch cost is below the clock's step (16.0 ns)"));
	assert_int_equal(run("mkm replay -o armc.mkm arm.mkm 2>arm.err"), 0);
	assert_non_null(strstr(slurp_in("arm.err"), "below the clock's step"));
	assert_int_equal(run("mkm report --json arm.mkm >arm.json"), 0);
	assert_non_null(strstr(slurp_in("arm.json"),
			       "\"clock_resolution_ns\":16.000,"));
	assert_non_null(strstr(slurp_in("arm.json"),
			       "\"below_resolution\":[\"switch\"]"));
	assert_int_equal(run("'%s' small small.mkm", mktrace), 0);
	assert_int_equal(run("mkm report small.mkm >small.out 2>&1"), 0);
	assert_null(strstr(slurp_in("small.out"), "step"));
}

/*
 * The bounds of the compensated figures: report --compensated prints
 * each with its low and high and --json gives them per thread; mkm
 * replay's trace keeps them (its BOUNDS chunk) for every later report;
 * a raw trace has none and its report says nothing of them.
 */
static void test_report_compensated_bounds(void **state)
{
	const char *s;

	(void)state;
	assert_int_equal(run("mkm report --compensated small.mkm >bounds.txt"),
			 0);
	s = slurp_in("bounds.txt");
	assert_non_null(strstr(s, "Bounds of the compensated figures"));
	assert_non_null(strstr(s, " run "));
	assert_non_null(strstr(s, "elapsed, thread "));
	assert_int_equal(run("mkm report --compensated --json small.mkm"
			     " >bounds.json"),
			 0);
	s = slurp_in("bounds.json");
	assert_non_null(strstr(s, "\"bounds\":{\"run\":{\"ns\":"));
	assert_non_null(strstr(s, "\"bounded\":true"));
	assert_non_null(strstr(s, "\"elapsed\":{\"first_tid\":"));
	assert_int_equal(run("mkm replay -o bcomp.mkm small.mkm 2>/dev/null"),
			 0);
	assert_int_equal(run("mkm report --json bcomp.mkm >bcomp.json"), 0);
	assert_non_null(strstr(slurp_in("bcomp.json"), "\"bounded\":true"));
	assert_int_equal(run("mkm report bcomp.mkm >bcomp.txt"), 0);
	assert_non_null(strstr(slurp_in("bcomp.txt"),
			       "Bounds of the compensated figures"));
	assert_int_equal(run("mkm report --json small.mkm >braw.json"), 0);
	assert_null(strstr(slurp_in("braw.json"), "\"bounds\""));
}

/* The life_ns of each thread of a report --json, in order; how many. */
static size_t json_lives(const char *json, uint64_t *life, size_t max)
{
	const char *p = json;
	size_t n = 0;

	while (n < max && (p = strstr(p, "\"life_ns\":"))) {
		p += strlen("\"life_ns\":");
		life[n++] = strtoull(p, NULL, 10);
	}
	return n;
}

/* perf sched's one command: the threads that matter, first, and only. */
static void test_report_sort_top_tid(void **state)
{
	uint64_t life[64];
	size_t n, i;

	(void)state;
	assert_int_equal(run("'%s' big rep.mkm 20000 10", mktrace), 0);
	assert_int_equal(run("mkm report --json rep.mkm >all.json"), 0);
	assert_int_equal(json_lives(slurp_in("all.json"), life, 64), 10);
	assert_int_equal(
		run("mkm report --json --sort life --top 3 rep.mkm >top.json"),
		0);
	n = json_lives(slurp_in("top.json"), life, 64);
	assert_int_equal(n, 3);
	for (i = 1; i < n; i++)
		assert_true(life[i - 1] >= life[i]);
	assert_non_null(strstr(slurp_in("top.json"), "\"nr_threads\":10,"));
	/* The text: three rows, and the header says so. */
	assert_int_equal(run("mkm report --sort runq --top 3 rep.mkm >top.txt"),
			 0);
	assert_non_null(strstr(slurp_in("top.txt"), "10 threads (3 shown)"));
	/* Threads by tid, in the order given. */
	assert_int_equal(
		run("mkm report --json --tid 1002,1001 small.mkm >tid.json"),
		0);
	assert_int_equal(json_lives(slurp_in("tid.json"), life, 64), 2);
	assert_true(strstr(slurp_in("tid.json"), "\"tid\":1002") <
		    strstr(slurp_in("tid.json"), "\"tid\":1001"));
	assert_int_equal(run("mkm report --tid 77 small.mkm 2>tid.err"), 1);
	assert_non_null(strstr(slurp_in("tid.err"), "77: no such thread"));
	assert_int_equal(run("mkm report --sort bogus small.mkm 2>sort.err"),
			 2);
	assert_non_null(strstr(slurp_in("sort.err"), "RUNQ"));
	assert_int_equal(run("mkm report --top 0 small.mkm 2>sort.err"), 2);
}

/*
 * Processes: report --by-process sums threads by
 * process, --pid keeps a process's threads. mktrace procs is `record -p`
 * of two processes (a PROCESSES chunk says whose 701 and 702 are), one
 * forking a thread and a process; small.mkm, without the chunk, reads
 * each attached thread as its own process, as traces before 1.3 do.
 */
static void test_report_by_process(void **state)
{
	const char *out;

	(void)state;
	assert_int_equal(run("'%s' procs procs.mkm", mktrace), 0);
	assert_int_equal(run("mkm report --by-process procs.mkm >bp.txt"), 0);
	out = slurp_in("bp.txt");
	assert_non_null(strstr(out, "6 threads in 3 processes,"));
	assert_non_null(strstr(
		out,
		"    700 server                 3    30.0 ms  33.3   0.0  20.0  46.7"));
	assert_non_null(strstr(
		out,
		"    800 client                 2    19.0 ms  52.6   0.0  15.8  31.6"));
	assert_non_null(strstr(out, "    802 client-child           1"));
	/* --pid: the threads of process 800, its forked thread included */
	assert_int_equal(run("mkm report --pid 800 procs.mkm >pid.txt"), 0);
	out = slurp_in("pid.txt");
	assert_non_null(strstr(out, "6 threads (2 shown)"));
	assert_non_null(strstr(out, "\n    800 client "));
	assert_non_null(strstr(out, "\n    801 client "));
	assert_null(strstr(out, "\n    802 "));
	assert_int_equal(
		run("mkm report --json --by-process --sort run --top 1 procs.mkm >bp.json"),
		0);
	out = slurp_in("bp.json");
	assert_non_null(strstr(
		out,
		"\"nr_processes\":3,\"processes\":[{\"pid\":700,\"name\":\"server\",\"threads\":3,\"life_ns\":30000000,"));
	assert_non_null(strstr(out, "{\"tid\":702,\"pid\":700,"));
	assert_non_null(strstr(out, "{\"tid\":801,\"pid\":800,"));
	/* A trace without PROCESSES: each attached thread its own. */
	assert_int_equal(run("mkm report --by-process small.mkm >bp0.txt"), 0);
	assert_non_null(
		strstr(slurp_in("bp0.txt"), "3 threads in 3 processes"));
	assert_int_equal(run("mkm report --pid 999 procs.mkm 2>pid.err"), 1);
	assert_non_null(strstr(slurp_in("pid.err"), "999: no such process"));
	assert_int_equal(
		run("mkm report --pid 800 --tid 801 procs.mkm 2>pid.err"), 2);
	assert_int_equal(
		run("mkm report --by-process --latency procs.mkm 2>pid.err"),
		2);
}

/* mkm dump keeps some threads, or a window, as export does. */
static void test_dump_filters(void **state)
{
	char *s, *line;
	int n = 0;

	(void)state;
	assert_int_equal(run("mkm dump --tid 1002 small.mkm >tid.dump"), 0);
	s = slurp_in("tid.dump");
	for (line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned int cpu, tid;
		double t;

		assert_int_equal(
			sscanf(line, "%lf ms cpu%u %u", &t, &cpu, &tid), 3);
		/* LOST records always pass: a cut hides no loss. */
		assert_true(tid == 1002 || strstr(line, " LOST "));
		n++;
	}
	assert_true(n > 5);
	assert_int_equal(
		run("mkm dump --from 2ms --to 4ms small.mkm >win.dump"), 0);
	s = slurp_in("win.dump");
	n = 0;
	for (line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
		double t = atof(line);

		assert_true(t >= 2 && t < 4);
		n++;
	}
	assert_true(n > 0);
	assert_int_equal(run("mkm dump --from 2 small.mkm 2>win.err"), 2);
	/* By comm: worker-a's records, as --tid 1002 gives them. */
	assert_int_equal(run("mkm dump --comm worker-a small.mkm >comm.dump"),
			 0);
	assert_true(strlen(slurp_in("comm.dump")) > 100);
	assert_int_equal(run("cmp -s comm.dump tid.dump"), 0);
	assert_int_equal(run("mkm dump --comm nobody small.mkm 2>comm.err"), 1);
	assert_non_null(strstr(slurp_in("comm.err"), "no thread of that name"));
	assert_int_equal(
		run("mkm dump --comm main --tid 1001 small.mkm 2>comm.err"), 2);
}

/* perf sched latency's table: the longest run-queue wait of each thread,
 * when it began and ended, the longest first. small.mkm: main waits 500
 * us from 5.0 ms; worker-a 500 us from 3.0 ms and 200 us from 9.0 ms;
 * worker-b 200 us from 2.0 ms. */
static void test_report_latency(void **state)
{
	char *s, *main_row, *a_row, *b_row;

	(void)state;
	assert_int_equal(run("mkm report --latency small.mkm >lat.txt"), 0);
	s = slurp_in("lat.txt");
	main_row = strstr(s, "   1001 main ");
	a_row = strstr(s, "   1002 worker-a ");
	b_row = strstr(s, "   1003 worker-b ");
	assert_non_null(main_row);
	assert_non_null(a_row);
	assert_non_null(b_row);
	/* Equal longest delays keep the timeline's order; worker-b last. */
	assert_true(main_row < a_row && a_row < b_row);
	assert_non_null(strstr(main_row, "500.0 us  5000.0 us .. 5500.0 us\n"));
	assert_non_null(strstr(
		a_row, " 2   350.0 us   500.0 us  3000.0 us .. 3500.0 us\n"));
	assert_int_equal(
		run("mkm report --latency --json --top 1 --comm worker-a small.mkm >lat.json"),
		0);
	s = slurp_in("lat.json");
	assert_non_null(strstr(s, "\"tid\":1002,"));
	assert_null(strstr(s, "\"tid\":1001,"));
	assert_non_null(strstr(s, "\"delays\":2,\"delay_ns\":700000,"));
	assert_non_null(strstr(s, "\"max_delay_start_ns\":1003000000,"));
	assert_int_equal(
		run("mkm report --latency --top 2 small.mkm >lat2.txt"), 0);
	assert_null(strstr(slurp_in("lat2.txt"), "worker-b"));
	assert_non_null(strstr(slurp_in("lat2.txt"), "(2 of 3 threads shown)"));
	assert_int_equal(
		run("mkm report --latency --sort runq small.mkm 2>lat.err"), 2);
	assert_int_equal(
		run("mkm report --latency --noise small.mkm 2>lat.err"), 2);
}

/*
 * The reports perf users reach as commands (perf sched latency) are
 * commands: mkm latency, noise and idle print what report --latency,
 * --noise and --idle print, which stay as their aliases; report takes
 * one of them at a time, and --barriers only with --noise.
 */
static void test_reports_as_commands(void **state)
{
	(void)state;
	assert_int_equal(run("mkm latency --top 2 small.mkm >cmd.lat"), 0);
	assert_int_equal(
		run("mkm report --latency --top 2 small.mkm >alias.lat"), 0);
	assert_non_null(strstr(slurp_in("cmd.lat"), "(2 of 3 threads shown)"));
	assert_int_equal(run("cmp -s cmd.lat alias.lat"), 0);
	assert_int_equal(
		run("mkm latency --json --pid 800 procs.mkm >cmd.latj"), 0);
	assert_int_equal(
		run("mkm report --pid 800 --json --latency procs.mkm >alias.latj"),
		0);
	assert_int_equal(run("cmp -s cmd.latj alias.latj"), 0);
	assert_non_null(strstr(slurp_in("cmd.latj"), "\"tid\":801,"));
	assert_int_equal(run("mkm latency --compensated small.mkm >cmd.latc"),
			 0);
	assert_int_equal(run("cmp -s cmd.latc cmd.lat"), 1);
	assert_int_equal(
		run("rm -rf jobc && mkdir jobc && '%s' job jobc barrier",
		    mktrace),
		0);
	assert_int_equal(run("mkm merge jobc >/dev/null"), 0);
	assert_int_equal(run("mkm noise --barriers jobc.mkm >cmd.bar"), 0);
	assert_int_equal(
		run("mkm report --noise --barriers jobc.mkm >alias.bar"), 0);
	assert_non_null(strstr(slurp_in("cmd.bar"), "12 rounds;"));
	assert_int_equal(run("cmp -s cmd.bar alias.bar"), 0);
	assert_int_equal(
		run("mkm noise --json --comm worker-a small.mkm >cmd.noi"), 0);
	assert_int_equal(
		run("mkm report --noise --json --comm worker-a small.mkm >alias.noi"),
		0);
	assert_int_equal(run("cmp -s cmd.noi alias.noi"), 0);
	/* idle: a trace without idle tasks says why, both ways. */
	assert_int_equal(run("mkm idle small.mkm 2>cmd.err"), 1);
	assert_non_null(strstr(slurp_in("cmd.err"), "record -a"));
	assert_int_equal(run("mkm report --idle small.mkm 2>cmd.err"), 1);
	assert_non_null(strstr(slurp_in("cmd.err"), "record -a"));
	/* Options a command does not take are usage errors. */
	assert_int_equal(run("mkm noise --compensated small.mkm 2>/dev/null"),
			 2);
	assert_int_equal(run("mkm latency --sort runq small.mkm 2>/dev/null"),
			 2);
	assert_int_equal(run("mkm idle --tid 1001 small.mkm 2>/dev/null"), 2);
	assert_int_equal(run("mkm report --idle --noise small.mkm 2>cmd.err"),
			 2);
	assert_non_null(strstr(slurp_in("cmd.err"), "one at a time"));
	assert_int_equal(run("mkm report --barriers small.mkm 2>cmd.err"), 2);
	assert_non_null(strstr(slurp_in("cmd.err"), "mkm noise --barriers"));
	assert_int_equal(run("mkm latency --tid 77 small.mkm 2>cmd.err"), 1);
	assert_string_equal(
		slurp_in("cmd.err"),
		"mkm: latency --tid 77: no such thread in the trace\n");
}

/*
 * mkm noise's osnoise table (rtla osnoise top's columns) of small.mkm's
 * worker-a: run time 0-6 ms and 9.2-10 ms on CPU 1 (8-9 ms is UNKNOWN,
 * a gap of lost events; 9-9.2 ms queued after it is no noise), an IRQ of
 * 100 us at 1 ms, a preemption by a thread not recorded at 3-3.5 ms.
 */
static void test_noise_osnoise_table(void **state)
{
	char *s;

	(void)state;
	assert_int_equal(run("mkm noise --comm worker-a small.mkm >os.txt"), 0);
	s = slurp_in("os.txt");
	assert_non_null(
		strstr(s, "osnoise's table (rtla osnoise top's columns)"));
	assert_non_null(strstr(
		s,
		"worker-a (1002)             1 #1              6800          600    91.17647         600         500      -      -        1        0        1\n"));
	assert_non_null(strstr(
		s,
		"net: IRQ 100.0 us, softirq 0 ns, thread 0 ns, not recorded 500.0 us; most: irq 19 100.0 us (1)\n"));
	/* One CPU: no all-CPU row. */
	assert_null(strstr(s, " all #"));
	/* Periods of 1 ms from the start: run time in 7 of them, the most
	 * noise in one the preemption's. */
	assert_int_equal(
		run("mkm noise --comm worker-a --period 1ms small.mkm >os.txt"),
		0);
	assert_non_null(strstr(
		slurp_in("os.txt"),
		" 1 #7              6800          600    91.17647         500         500 "));
	/* A threshold: the IRQ is no sample, and still an interference. */
	assert_int_equal(
		run("mkm noise --json --comm worker-a --threshold 200us small.mkm >os.json"),
		0);
	s = slurp_in("os.json");
	assert_non_null(strstr(
		s, "\"osnoise\":{\"period_ns\":0,\"threshold_ns\":200000,"));
	assert_non_null(strstr(
		s,
		"\"cpu\":1,\"periods\":1,\"runtime_ns\":6800000,\"noise_ns\":500000,\"cpu_available\":92.64706,\"max_noise_ns\":500000,\"max_single_ns\":500000,\"min_single_ns\":500000,\"samples\":1,\"hw\":null,\"nmi\":null,\"irq\":1,\"softirq\":0,\"thread\":1,"));
	/* rtla osnoise hist's buckets of 1 us, 256 of them: the 100 us
	 * IRQ in its bucket, the 500 us preemption over. A pattern picks
	 * both workers. */
	assert_int_equal(
		run("mkm noise --comm 'worker-*' --hist small.mkm >os.txt"), 0);
	s = slurp_in("os.txt");
	assert_non_null(strstr(s, "Index        1003/0       1002/1\n"
				  "100               0            1\n"
				  "over:             0            1\n"
				  "count:            0            2\n"));
	assert_int_equal(
		run("mkm noise --hist --bucket-size 100us --entries 4 --comm worker-a small.mkm >os.txt"),
		0);
	assert_non_null(strstr(slurp_in("os.txt"), "Index        1002/1\n"
						   "100               1\n"
						   "over:             1\n"));
	/* Bad values are usage errors that name the option. */
	assert_int_equal(run("mkm noise --period 0ms small.mkm 2>os.err"), 2);
	assert_non_null(strstr(slurp_in("os.err"), "noise --period: '0ms'"));
	assert_int_equal(run("mkm noise --threshold 5 small.mkm 2>os.err"), 2);
	assert_non_null(strstr(slurp_in("os.err"), "is not a time"));
	assert_int_equal(run("mkm noise --entries 0 --hist small.mkm 2>os.err"),
			 2);
	assert_int_equal(run("mkm noise --entries 8 small.mkm 2>os.err"), 2);
	assert_non_null(strstr(slurp_in("os.err"), "go with --hist"));
	assert_int_equal(
		run("mkm noise --barriers --period 1ms small.mkm 2>os.err"), 2);
	assert_non_null(strstr(slurp_in("os.err"), "--barriers does not"));
	assert_int_equal(run("mkm noise --comm 'nobody*' small.mkm 2>os.err"),
			 1);
	assert_non_null(strstr(slurp_in("os.err"), "no thread of that name"));
}

/*
 * mkm latency --why on mktrace's events trace: 503, made by a FORK at
 * 50 us, waits while its parent runs (an IRQ and a softirq inside) and
 * sleeps at 70 us; 502, made at 20 us on CPU 0, moves to CPU 1 queued.
 */
static void test_latency_why(void **state)
{
	char *s;

	(void)state;
	assert_int_equal(run("'%s' events why.mkm", mktrace), 0);
	assert_int_equal(run("mkm latency --why why.mkm >why.txt"), 0);
	s = slurp_in("why.txt");
	assert_non_null(
		strstr(s, "2 of 2 wakeups of 3 threads, the longest first\n"));
	assert_non_null(strstr(
		s,
		"#1 child-exec (503): 20.0 us, created at 50.0 us by parent-process (501), switched in at 70.0 us on CPU 0\n"));
	assert_non_null(strstr(
		s,
		"from the enqueue at 50.0 us on CPU 0: threads 15.0 us, IRQs 3000 ns (1 begun), softirqs 2000 ns (1), idle 0 ns, not recorded 0 ns\n"));
	assert_non_null(strstr(
		s,
		"    thread  parent-process (501)            15.0 us  x1  held the CPU at the wakeup; ran until it slept\n"));
	assert_non_null(
		strstr(s, "on CPU 0 (moved 1 time while queued, to CPU 1)"));
	/* The alias prints the same; JSON keeps the longest alone. */
	assert_int_equal(run("mkm report --latency --why why.mkm >why2.txt"),
			 0);
	assert_int_equal(run("cmp -s why.txt why2.txt"), 0);
	assert_int_equal(
		run("mkm latency --why --json --top 1 why.mkm >why.json"), 0);
	s = slurp_in("why.json");
	assert_non_null(strstr(s, "\"wakeups\":2,\"late\":[{\"tid\":503,"));
	assert_non_null(
		strstr(s, "\"latency_ns\":20000,\"type\":\"wakeup_new\","));
	assert_null(strstr(
		s, "\"tid\":502,\"name\":\"worker-thread\",\"latency_ns\""));
	assert_int_equal(run("mkm latency --why --top 0 why.mkm 2>why.err"), 2);
	assert_non_null(strstr(slurp_in("why.err"), "is not a count above 0"));
}

/* --noise and --latency on a merged trace (job 77, each CPU's rank and
 * progress threads taking turns): rows say their node and the tid the
 * node gave, as the threads table does; JSON keeps the merged tid (what
 * --tid takes) and adds the node and its tid. n1's rank 1000 is merged
 * tid 1 << 22 | 1000 = 4195304, n2's rank 1001 8389609. */
static void test_report_noise_latency_merged(void **state)
{
	char *s;

	(void)state;
	assert_int_equal(run("rm -rf jobn jobn.mkm && mkdir jobn && "
			     "'%s' job jobn busy",
			     mktrace),
			 0);
	assert_int_equal(run("mkm merge jobn >/dev/null"), 0);
	assert_int_equal(run("mkm report --latency jobn.mkm >jobn.lat"), 0);
	s = slurp_in("jobn.lat");
	assert_non_null(strstr(s, "\nNODE             TID NAME "));
	assert_non_null(strstr(s, "\nn1              1000 rank "));
	assert_non_null(strstr(s, "\nn2              1101 progress "));
	assert_null(strstr(s, "4195304"));
	assert_int_equal(
		run("mkm report --latency --json --tid 4195304 jobn.mkm >jobn.latj"),
		0);
	assert_non_null(strstr(slurp_in("jobn.latj"),
			       "{\"tid\":4195304,\"node\":\"n1\","
			       "\"node_tid\":1000,\"name\":\"rank\","));
	assert_int_equal(
		run("mkm report --noise --comm rank jobn.mkm >jobn.noi"), 0);
	s = slurp_in("jobn.noi");
	assert_non_null(strstr(s, "\nn1 rank (1000): observed 200.1 ms"));
	assert_non_null(strstr(s, "\nn2 rank (1001): observed "));
	/* The matrix: a row per node's CPU, a column per thread. */
	assert_non_null(strstr(s, "\nNODE          CPU "));
	assert_non_null(strstr(s, "\nn2              1 "));
	assert_non_null(strstr(s, "n1 rank (1000)"));
	assert_null(strstr(s, "4195304"));
	assert_null(strstr(s, "8389609"));
	assert_int_equal(
		run("mkm report --noise --json --tid 8389609 jobn.mkm >jobn.noij"),
		0);
	assert_non_null(strstr(slurp_in("jobn.noij"),
			       "{\"tid\":8389609,\"node\":\"n2\","
			       "\"node_tid\":1001,\"name\":\"rank\","));
	/* The threads table's JSON says the same. */
	assert_int_equal(run("mkm report --json jobn.mkm >jobn.json"), 0);
	assert_non_null(strstr(slurp_in("jobn.json"),
			       "{\"tid\":4195304,\"node\":\"n1\","
			       "\"node_tid\":1000,\"pid\":"));
	/* A trace of one machine: no NODE, no node in JSON. */
	assert_int_equal(run("mkm report --noise small.mkm >small.noi"), 0);
	assert_int_equal(
		run("mkm report --latency --json small.mkm >small.latj"), 0);
	assert_null(strstr(slurp_in("small.noi"), "NODE"));
	assert_non_null(strstr(slurp_in("small.noi"), "\nmain (1001): "));
	assert_null(strstr(slurp_in("small.latj"), "\"node\""));
}

/* --noise --barriers on a merged job whose ranks meet at barriers
 * (mktrace job DIR barrier: ../unit/synbarrier.h): of its 12 rounds 4
 * waited long, each named with the node and the cause that delayed its
 * last rank: the daemon on n1 (rounds 3 and 7), the tick on n0 (5), a
 * kernel thread on n2 (9). */
static void test_report_barriers_merged(void **state)
{
	char *s, *row;

	(void)state;
	assert_int_equal(
		run("rm -rf jobb jobb.mkm && mkdir jobb && '%s' job jobb barrier",
		    mktrace),
		0);
	assert_int_equal(run("mkm merge jobb >/dev/null"), 0);
	/* By default on a merged trace: each node's busiest thread. */
	assert_int_equal(
		run("mkm report --noise --barriers jobb.mkm >jobb.bar"), 0);
	s = slurp_in("jobb.bar");
	assert_non_null(strstr(
		s, "Barriers of 3 threads: n0 rank (100), n1 rank (100), "
		   "n2 rank (100)\n"));
	assert_non_null(strstr(s, "\n12 rounds; wait (first arrival to last): "
				  "median 60.6 us, "));
	/* Long: above the median by a tenth of the median phase (1 ms). */
	assert_non_null(strstr(s, "; 4 waited more than 160.6 us\n"));
	row = strstr(s, "\n     3 ");
	assert_non_null(row);
	assert_true(!strncmp(
		strstr(row, "440.6 us "),
		"440.6 us n1               100 rank              1400.0 us   "
		"400.0 us  noised (300) (thread: 400.0 us)\n",
		strlen("440.6 us n1               100 rank              "
		       "1400.0 us   400.0 us  noised (300) (thread: 400.0 us)\n")));
	assert_non_null(strstr(
		s,
		" n0               100 rank              1340.6 us   300.0 us  "
		"local_timer (vector: 300.0 us)\n"));
	/* The tally: by node and cause. */
	assert_non_null(strstr(
		s, "\nn1           noised (300)                 thread         "
		   "2   800.0 us\n"));
	assert_non_null(strstr(
		s, "\nn2           kworker/0:1 (40)             thread         "
		   "1   300.0 us\n"));
	assert_non_null(strstr(
		s, "\nn0           local_timer                  vector         "
		   "1   300.0 us\n"));
	/* Ties (n0's tick, n2's kworker: 1, 300 us) by node. */
	assert_true(strstr(s, "\nn0           local_timer") <
		    strstr(s, "\nn2           kworker/0:1"));
	/* Tsafrir et al.'s noise law: n1's rank hit in 2 rounds of 12, the
	 * others in 1; all three ranks in 4 rounds, where independence says
	 * 29.98%. */
	assert_non_null(
		strstr(s, " rank              1000.0 us      2   16.67%\n"));
	assert_non_null(
		strstr(s, "\n    3     33.33%       29.98%       29.77%\n"));
	assert_int_equal(run("mkm report --noise --barriers --json --comm rank "
			     "jobb.mkm >jobb.barj"),
			 0);
	s = slurp_in("jobb.barj");
	assert_non_null(strstr(s, "\"rounds\":12,"));
	assert_non_null(strstr(s, "\"nr_long\":4,"));
	assert_non_null(strstr(s, "\"median_phase_ns\":1000000,\"hits\":2}"));
	assert_non_null(strstr(s, "{\"n\":3,\"observed\":0.333333,"));
	assert_non_null(strstr(s, "{\"round\":3,\"release_ns\":13310000,"));
	assert_non_null(
		strstr(s, "\"cause\":{\"kind\":\"thread\",\"name\":\"noised\","
			  "\"tid\":4194604,\"node\":\"n1\",\"node_tid\":300,"
			  "\"taken_ns\":400000}"));
	/* A node's thread by the tid the report shows: NODE:TID. */
	assert_int_equal(run("mkm report --noise --barriers --tid "
			     "n0:100,n1:100,n2:100 jobb.mkm >jobb.bar2"),
			 0);
	assert_non_null(strstr(slurp_in("jobb.bar2"),
			       "; 4 waited more than 160.6 us\n"));
	assert_int_equal(
		run("mkm report --noise --tid 300 jobb.mkm 2>jobb.err"), 1);
	assert_non_null(strstr(slurp_in("jobb.err"),
			       "--tid 300: no such thread in the trace (a "
			       "node's thread: NODE:TID, as the report names "
			       "it)"));
	assert_int_equal(
		run("mkm report --noise --tid n9:100 jobb.mkm 2>jobb.err"), 1);
	assert_non_null(strstr(slurp_in("jobb.err"),
			       "--tid n9:100: no node n9 in the trace"));
	/* Bad asks: one line each. */
	assert_int_equal(run("mkm report --barriers jobb.mkm 2>jobb.err"), 2);
	assert_non_null(
		strstr(slurp_in("jobb.err"), "--barriers goes with --noise"));
	assert_int_equal(
		run("mkm report --noise --barriers --comm noised jobb.mkm 2>jobb.err"),
		1);
	assert_non_null(strstr(slurp_in("jobb.err"),
			       "1 thread chosen; it takes one per rank"));
	assert_int_equal(
		run("mkm report --noise --barriers small.mkm 2>jobb.err"), 1);
	assert_non_null(strstr(slurp_in("jobb.err"),
			       "no round where all 3 threads computed"));
}

/* --from/--to zoom the timeline, as text and as pictures; --shade marks
 * a window in a picture; a window outside the trace is an error. */
static void test_timeline_window_zooms(void **state)
{
	char *s;

	(void)state;
	assert_int_equal(
		run("mkm timeline -w 60 --from 2ms --to 4ms small.mkm >win.tl"),
		0);
	s = slurp_in("win.tl");
	assert_true(strncmp(strstr(s, "|"), "|2000.0 us", 10) == 0);
	/* worker-b, woken at 2.0 ms, waits 200 us: the first 6 of 60
	 * columns of 2 ms (the whole trace would give it one). */
	assert_non_null(strstr(s, "1003 worker-b            ------#"));
	assert_int_equal(run("mkm timeline -w 60 --from 8ms small.mkm >win.tl"),
			 0);
	assert_true(strncmp(strstr(slurp_in("win.tl"), "|"), "|8000.0 us",
			    10) == 0);
	/* The picture zoomed is not the whole one with the window shaded
	 * (cairo's SVG draws text as glyphs: the files are compared). */
	assert_int_equal(
		run("mkm timeline --svg zoom.svg --from 2ms --to 4ms small.mkm"),
		0);
	assert_int_equal(
		run("mkm timeline --svg shade.svg --shade 2ms..4ms small.mkm"),
		0);
	assert_int_equal(run("mkm timeline --svg whole.svg small.mkm"), 0);
	assert_int_equal(run("cmp -s zoom.svg shade.svg"), 1);
	assert_int_equal(run("cmp -s shade.svg whole.svg"), 1);
	assert_int_equal(run("mkm timeline --from 20ms small.mkm 2>win.err"),
			 1);
	assert_non_null(strstr(slurp_in("win.err"), "shows none of it"));
	assert_int_equal(
		run("mkm timeline --from 3ms --to 2ms small.mkm 2>win.err"), 2);
	assert_int_equal(
		run("mkm timeline --shade 1ms..2ms small.mkm 2>win.err"), 2);
	assert_int_equal(
		run("mkm timeline --svg win.svg --shade 2ms small.mkm 2>win.err"),
		2);
}

/* mkm merge on a job's node traces with known clocks (mktrace job): the
 * nodes aligned, each with its bound, and the merge read by commands that
 * know nothing of nodes (its CPUs and tids unique per node). */
static void test_merge_job_dir(void **state)
{
	char *out, *d;

	(void)state;
	assert_int_equal(
		run("rm -rf job77 job77.mkm && mkdir job77 && '%s' job job77",
		    mktrace),
		0);
	assert_int_equal(run("mkm merge job77 >merge.out 2>merge.err"), 0);
	out = slurp_in("merge.out");
	assert_non_null(strstr(
		out,
		"job 77.0: 3 nodes of 3 merged into job77.mkm on n0's clock, 24006 records"));
	assert_non_null(strstr(out, "n0           the reference clock"));
	assert_non_null(strstr(out, "n1           offset -5.300"));
	assert_non_null(strstr(out, "drift -39.99"));
	assert_non_null(strstr(
		out,
		"its clock stepped 1 time, the largest by +3000.1 us; 0 records"));
	/* Two nodes' 6 exchanges, two messages each, checked. */
	assert_non_null(strstr(
		out, "causality: 0 of 24 exchange messages received before "
		     "they were sent on the merged clock"));
	assert_non_null(strstr(out, "bounds +-10.0 us to +-10.0 us)"));
	assert_string_equal(slurp_in("merge.err"), "");
	assert_int_equal(run("mkm dump job77.mkm >job77.dump"), 0);
	d = slurp_in("job77.dump");
	/* n2's first thread: index 2, tid 1000, on its CPU 1 (merged CPU 5) */
	assert_non_null(strstr(d, "cpu5  8389609 mark"));
	assert_non_null(strstr(d, "cpu0     1000 mark"));
	/* mkm report: a table per node, its threads told apart by tid. */
	assert_int_equal(run("mkm report job77.mkm >job77.rep"), 0);
	d = slurp_in("job77.rep");
	assert_non_null(strstr(d, "6 threads, 6 CPUs, 24006 events"));
	assert_non_null(strstr(
		d, "Per node (mkm merge of job 77.0: times on n0's clock"));
	assert_non_null(strstr(d, "n0                 0-1       2   400.1 ms"));
	assert_non_null(strstr(
		d,
		"n2                 4-5       2   400.1 ms       0 ns        0      8002       0  +2.100250"));
	assert_non_null(strstr(d, "clock stepped (0 ambiguous)"));
	/* The thread and CPU tables name each row's node and its own tid or
	 * CPU; the CPU x thread matrix is one per node, its columns the
	 * node's CPUs. */
	assert_non_null(strstr(d, "NODE             TID NAME"));
	assert_non_null(strstr(d, "\nn2              1001 ?  "));
	assert_non_null(strstr(d, "\nn1              1   200.1 ms"));
	assert_non_null(strstr(
		d,
		"CPU x thread on n1 (its CPUs and tids): time run (dispatches)\n"
		"    TID NAME                           CPU0               CPU1\n"
		"   1000 ?                      200.1 ms (1)           0 ns (0)\n"
		"   1001 ?                          0 ns (0)       200.1 ms (1)\n"));
	assert_null(strstr(d, "CPU2"));
	assert_int_equal(run("mkm report --json job77.mkm >job77.json"), 0);
	assert_non_null(strstr(slurp_in("job77.json"),
			       "\"nodes\":[{\"name\":\"n0\",\"index\":0,"));
	/* A trace of one machine has no such table. */
	assert_int_equal(run("mkm report late.mkm >late.rep"), 0);
	assert_null(strstr(slurp_in("late.rep"), "Per node"));
	assert_null(strstr(slurp_in("late.rep"), "NODE"));
	assert_non_null(
		strstr(slurp_in("late.rep"), "\nCPU x thread: time run"));
	/* Merging again overwrites; the merge is not taken for a node. */
	assert_int_equal(run("mkm merge job77 >/dev/null 2>&1"), 0);
}

static void test_merge_bad_inputs(void **state)
{
	char *err;

	(void)state;
	assert_int_equal(
		run("rm -rf bad && mkdir bad && '%s' job bad bad", mktrace), 0);
	/* Merged in part: exit 3, the merge written, each problem said. */
	assert_int_equal(
		run("mkm merge -o bad.mkm bad/*.mkm >bad.out 2>bad.err"), 3);
	assert_true(exists("bad.mkm"));
	err = slurp_in("bad.err");
	assert_non_null(strstr(err, "bad/n2.mkm: offset "));
	assert_non_null(strstr(err, "(truncated, or a corrupt length)"));
	assert_non_null(strstr(err, "merged what is before it"));
	assert_non_null(strstr(
		err,
		"bad/x9.mkm: node x9 recorded job 78.0, not 77.0 (the others'); not merged"));
	assert_non_null(strstr(
		err, "node 1 of the 4 of job 77.0: no trace among the inputs"));
	assert_non_null(strstr(err, "node 3 of the 4 of job 77.0: no trace"));
	assert_non_null(strstr(slurp_in("bad.out"), "2 nodes of 4 merged"));
	assert_int_equal(run("mkm report bad.mkm >bad.rep"), 0);
	assert_non_null(strstr(slurp_in("bad.rep"), "; trace cut short"));
	/* The other job, asked for. */
	assert_int_equal(
		run("mkm merge --job 78 -o x9.mkm bad/*.mkm >x9.out 2>/dev/null"),
		3);
	assert_non_null(strstr(slurp_in("x9.out"), "job 78.0: 1 node of"));
	/* Nothing to merge: nothing written, exit 1. */
	assert_int_equal(run("mkdir -p none"), 0);
	assert_int_equal(run("mkm merge none 2>none.err"), 1);
	assert_non_null(
		strstr(slurp_in("none.err"), "none: no .mkm trace in it"));
	assert_int_equal(run("mkm merge -o j.mkm late.mkm 2>late.err"), 1);
	assert_non_null(
		strstr(slurp_in("late.err"), "late.mkm: not a node's trace"));
	assert_false(exists("j.mkm"));
	/* Files need a name for the merge. */
	assert_int_equal(run("mkm merge bad/n0.mkm 2>/dev/null"), 2);
	assert_int_equal(
		run("mkm merge --job x -o j.mkm bad/n0.mkm 2>/dev/null"), 2);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dump_counts_from_recording_start),
		cmocka_unit_test(test_merge_job_dir),
		cmocka_unit_test(test_merge_bad_inputs),
		cmocka_unit_test(test_export_window_read_in_dump),
		cmocka_unit_test(test_timeline_counts_from_recording_start),
		cmocka_unit_test(test_export_empty_window_fails),
		cmocka_unit_test(test_dump_empty_cut_fails),
		cmocka_unit_test(test_export_time_without_unit_refused),
		cmocka_unit_test(test_dump_resyncs_after_flipped_bytes),
		cmocka_unit_test(test_report_missing_file_says_so),
		cmocka_unit_test(test_report_directory_says_so),
		cmocka_unit_test(test_main_version),
		cmocka_unit_test(test_main_unknown_command),
		cmocka_unit_test(test_main_usage_lists_options),
		cmocka_unit_test(test_record_realtime_priority_checked),
		cmocka_unit_test(test_main_help_matches_man_page),
		cmocka_unit_test(test_dump_names_what_records_number),
		cmocka_unit_test(test_report_json_names_classes),
		cmocka_unit_test(test_report_sort_top_tid),
		cmocka_unit_test(test_report_by_process),
		cmocka_unit_test(test_dump_filters),
		cmocka_unit_test(test_dump_json),
		cmocka_unit_test(test_report_compensated_refusal_is_one_line),
		cmocka_unit_test(test_report_clock_step),
		cmocka_unit_test(test_report_compensated_bounds),
		cmocka_unit_test(test_report_latency),
		cmocka_unit_test(test_reports_as_commands),
		cmocka_unit_test(test_noise_osnoise_table),
		cmocka_unit_test(test_latency_why),
		cmocka_unit_test(test_report_noise_latency_merged),
		cmocka_unit_test(test_report_barriers_merged),
		cmocka_unit_test(test_timeline_window_zooms),
	};

	if (argc != 4) {
		fprintf(stderr, "usage: test_commands MKM MKTRACE WORKDIR\n");
		return 2;
	}
	mkm = argv[1];
	mktrace = argv[2];
	dir = argv[3];
	if (run("mkdir -p . && '%s' late late.mkm && '%s' small small.mkm",
		mktrace, mktrace))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
