/* SPDX-License-Identifier: GPL-2.0 */
/*
 * builtin.h - the mkm command's subcommands, one file each (as perf's
 * builtin-*.c), and the one table of them (main.c's commands[], as perf's
 * struct cmd_struct) that dispatch, mkm help, mkm --help and the
 * unknown-command line read. What the subcommands share has a file of its
 * own per concept (messages.h, parse.h, trace.h, ...), as perf's util/.
 */
#ifndef MKM_BUILTIN_H
#define MKM_BUILTIN_H

/* A subcommand: its name, what runs it (argv[0] is the name), what it
 * does in one line (mkm help), and its usage as its --help prints it
 * ("usage: mkm NAME ...", other forms below, then notes indented by 2). */
struct cmd_struct {
	const char *cmd;
	int (*fn)(int argc, char **argv);
	const char *summary;
	const char *usage;
};

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_latency(int argc, char **argv);
int cmd_noise(int argc, char **argv);
int cmd_idle(int argc, char **argv);
int cmd_trigger(int argc, char **argv);

extern const char record_usage[], report_usage[], timeline_usage[],
	dump_usage[], view_usage[], export_usage[], calibrate_usage[],
	replay_usage[], merge_usage[], latency_usage[], noise_usage[],
	idle_usage[], trigger_usage[];

#endif /* MKM_BUILTIN_H */
