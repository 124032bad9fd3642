/* SPDX-License-Identifier: GPL-2.0 */
/* threads.h - the threads a command's table shows, as --tid, --comm and
 * --pid choose them (mkm report and mkm latency). */
#ifndef MKM_THREADS_H
#define MKM_THREADS_H

#include <stddef.h>

#include "libmonitor.h"

/*
 * The timeline indexes of the threads of @tids (a --tid list, in its
 * order), else of those named @comm and in the processes of @pids (a
 * --pid list); all without any. @rows has room for every thread of @tl;
 * @cmd names the command in the messages. Dies naming a tid, comm or pid
 * that no thread of the trace has.
 * Return: how many.
 */
size_t select_threads(const struct tl *tl, const char *cmd, const char *tids,
		      const char *comm, const char *pids, size_t *rows);

#endif /* MKM_THREADS_H */
