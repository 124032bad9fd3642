/* SPDX-License-Identifier: GPL-2.0 */
/* builtin.h - the mkm command's subcommands, one file each (as perf's
 * builtin-*.c); what they share has a file of its own per concept
 * (messages.h, parse.h, trace.h, ...), as perf's util/. */
#ifndef MKM_BUILTIN_H
#define MKM_BUILTIN_H

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_merge(int argc, char **argv);

#endif /* MKM_BUILTIN_H */
