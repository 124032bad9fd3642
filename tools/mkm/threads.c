// SPDX-License-Identifier: GPL-2.0
/* threads.c - the threads a command's table shows, as --tid, --comm and
 * --pid choose them (see threads.h). */

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "messages.h"
#include "parse.h"
#include "threads.h"

/* Whether thread t is in one of the @n processes of @pids (all: NULL). */
static bool in_pids(const struct tl_thread *t, const uint32_t *pids, size_t n)
{
	size_t i;

	for (i = 0; pids && i < n; i++)
		if (t->tgid == pids[i])
			return true;
	return !pids;
}

/* --pid's list; dies naming a pid no thread of the trace has. */
static size_t parse_pids(const struct tl *tl, const char *cmd, const char *s,
			 uint32_t *pids)
{
	char opt[32];
	size_t n, i, p;

	snprintf(opt, sizeof(opt), "%s --pid", cmd);
	n = parse_tid_list(opt, s, pids, MAX_TIDS);
	for (i = 0; i < n; i++) {
		struct tl_process pr = { 0 };

		for (p = 0; p < tl_nr_processes(tl); p++)
			if (!tl_process(tl, p, &pr) && pr.pid == pids[i] &&
			    pr.nr_threads)
				break;
		if (p == tl_nr_processes(tl))
			die("%s %u: no such process in the trace (mkm report --by-process lists them)",
			    opt, pids[i]);
	}
	return n;
}

size_t select_threads(const struct tl *tl, const char *cmd, const char *tids,
		      const char *comm, const char *pids, size_t *rows)
{
	static uint32_t list[MAX_TIDS], plist[MAX_TIDS];
	size_t th, i, n = 0,
		      nr_pids = pids ? parse_pids(tl, cmd, pids, plist) : 0;
	char opt[32];

	if (tids) {
		size_t nr;

		snprintf(opt, sizeof(opt), "%s --tid", cmd);
		nr = parse_tid_list(opt, tids, list, MAX_TIDS);
		for (i = 0; i < nr; i++) {
			int64_t found = tl_find(tl, list[i]);

			if (found < 0)
				die("%s %u: no such thread in the trace", opt,
				    list[i]);
			rows[n++] = (size_t)found;
		}
		return n;
	}
	for (th = 0; th < tl_nr_threads(tl); th++) {
		struct tl_thread t;

		tl_thread(tl, th, &t);
		if ((!comm || !strcmp(t.name, comm)) &&
		    in_pids(&t, pids ? plist : NULL, nr_pids))
			rows[n++] = th;
	}
	if (comm && !n)
		die("%s --comm %s: no thread of that name in the trace", cmd,
		    comm);
	return n;
}
