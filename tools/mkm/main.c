// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - mkm: record threads' context switches, report where time went.
 *
 * One table of the commands (as perf's struct cmd_struct in perf.c):
 * dispatch, mkm help, mkm --help and the unknown-command line all read
 * it, and tests/cli/test_commands checks mkm(1) against mkm help, so
 * none of them can leave a command out.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "libmonitor.h"

#ifndef MKM_VERSION
#error "MKM_VERSION: the build passes it from VERSION"
#endif

static int cmd_help(int argc, char **argv);

static const char help_usage[] = "usage: mkm help [COMMAND]";

static const struct cmd_struct commands[] = {
	{ "record", cmd_record,
	  "monitor a command, threads or the whole machine; write a trace",
	  record_usage },
	{ "report", cmd_report,
	  "where each thread's time went: microstates, CPUs, bursts, CPU x thread",
	  report_usage },
	{ "latency", cmd_latency,
	  "each thread's scheduling delays, the longest and when (as perf sched latency)",
	  latency_usage },
	{ "noise", cmd_noise,
	  "who took time from the threads; with --barriers, what delayed each barrier",
	  noise_usage },
	{ "idle", cmd_idle,
	  "each CPU's idle intervals and what ended them (a record -a trace)",
	  idle_usage },
	{ "timeline", cmd_timeline,
	  "the threads' timeline as text, or as a picture (SVG, PNG)",
	  timeline_usage },
	{ "dump", cmd_dump, "every event, one line each, in time order",
	  dump_usage },
	{ "view", cmd_view,
	  "the timeline, interactive; live while recording, or played back",
	  view_usage },
	{ "export", cmd_export,
	  "the trace in another tool's format (Perfetto, CTF, Paraver, OTF2)",
	  export_usage },
	{ "calibrate", cmd_calibrate,
	  "what the monitor costs here, per CPU and kind of record",
	  calibrate_usage },
	{ "replay", cmd_replay,
	  "the trace compensated for the monitor's cost: written or played",
	  replay_usage },
	{ "merge", cmd_merge,
	  "a job's node traces as one trace on one node's clock", merge_usage },
	{ "trigger", cmd_trigger,
	  "a flight recorder's snapshot now (mkm record --flight)",
	  trigger_usage },
	{ "help", cmd_help, "the commands, or one command's usage",
	  help_usage },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct cmd_struct *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].cmd, name))
			return &commands[i];
	return NULL;
}

/* "record, report, ..., help": every command's name. */
static void print_names(FILE *f)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "%s%s", i ? ", " : "", commands[i].cmd);
}

/* A command's synopsis from its usage: its lines but the notes (those
 * indented by two), without "usage: " and the alignment under it,
 * indented by @indent. */
static void print_synopsis(FILE *f, const char *usage, int indent)
{
	const char *line = usage, *end;

	for (; *line; line = *end ? end + 1 : end) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (line != usage && line[0] == ' ' && line[1] == ' ' &&
		    line[2] != ' ')
			break;
		if (!strncmp(line, "usage: ", 7) ||
		    !strncmp(line, "       ", 7))
			line += 7;
		/* A form's second line, when its usage aligns it under the
		 * first's "mkm" (as record's), goes under its options. */
		fprintf(f, "%*s%s%.*s\n", indent, "",
			*line == 'm' || *line == ' ' ? "" : "    ",
			(int)(end - line), line);
	}
}

/* mkm --help: every command's synopsis and what it does. */
static void print_usage(FILE *f)
{
	size_t i;

	fputs("usage: mkm COMMAND [ARGS]\n\n", f);
	for (i = 0; i < NR_COMMANDS; i++) {
		print_synopsis(f, commands[i].usage, 2);
		fprintf(f, "      %s\n", commands[i].summary);
	}
	fputs("  mkm --version, mkm --help\n"
	      "\n"
	      "Times (T) count from the recording's start, in every command, and\n"
	      "take a unit: ns, us, ms, s. mkm COMMAND --help: its usage; mkm(1):\n"
	      "what each command does.\n",
	      f);
}

/* mkm help: the commands, one a line; mkm help COMMAND: its usage. */
static int cmd_help(int argc, char **argv)
{
	const struct cmd_struct *c;
	size_t i;

	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "%s\n", help_usage);
		return argc == 2 && !strcmp(argv[1], "--help") ? 0 : 2;
	}
	if (argc == 2) {
		c = find_command(argv[1]);
		if (!c) {
			fprintf(stderr,
				"mkm: help: unknown command '%s': ", argv[1]);
			print_names(stderr);
			fputs("\n", stderr);
			return 2;
		}
		printf("mkm %s: %s\n", c->cmd, c->summary);
		fputs(c->usage, stdout);
		if (c->usage[strlen(c->usage) - 1] != '\n')
			putchar('\n');
		return 0;
	}
	printf("usage: mkm COMMAND [ARGS]\n\nThe commands:\n");
	for (i = 0; i < NR_COMMANDS; i++)
		printf("   %-10s %s\n", commands[i].cmd, commands[i].summary);
	printf("\nmkm help COMMAND (or mkm COMMAND --help): its usage; mkm --help: every\ncommand's; mkm(1): what each does.\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "";
	const struct cmd_struct *c = find_command(name);

	if (c)
		return c->fn(argc - 1, argv + 1);
	if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
		print_usage(stdout);
		return 0;
	}
	if (!strcmp(name, "-V") || !strcmp(name, "--version")) {
		printf("mkm %s (MKM ABI %u.%u)\n", MKM_VERSION, MKM_ABI_MAJOR,
		       MKM_ABI_MINOR);
		return 0;
	}
	if (!*name) {
		print_usage(stderr);
		return 2;
	}
	fprintf(stderr, "mkm: unknown command '%s': ", name);
	print_names(stderr);
	fputs(" (mkm help)\n", stderr);
	return 2;
}
