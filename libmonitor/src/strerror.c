// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * strerror.c - monitor_strerror: what libmonitor's negative errnos mean.
 * Where the library gives an errno a meaning of its own, say that; else
 * the C library's description.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "internal.h"

static const struct {
	int err;
	const char *msg;
} mon_errors[] = {
	{ ENOENT, "not found (for /dev/mkm: the mkm module is not loaded, "
		  "try sudo modprobe mkm)" },
	{ EPROTO, "unsupported version: the module's ABI or the trace "
		  "file's major version is not one this library knows" },
	{ EBADMSG, "corrupt data: checksum mismatch or malformed record" },
	{ ENODATA, "truncated: the data ends before its end marker" },
	{ EBUSY, "busy: the thread is tracked by another monitor, or the "
		 "monitor is resumed or holds unread events" },
	{ EEXIST, "the thread is already tracked by this monitor" },
	{ ESRCH, "no such thread" },
	{ EPERM, "not allowed to monitor this thread" },
	{ EAGAIN, "the monitor is suspended" },
	{ EDOM, "the calibration is not a cost (a figure negative, its "
		"interval reaching zero, or as noisy as its mean): calibrate "
		"on a quiet machine" },
	{ ESTALE, "the module kept probes registered that the measurement "
		  "did not ask for (a resume/suspend loop, or calibrations "
		  "in a row, used up the ration of probe drops of users "
		  "without CAP_PERFMON): try again in a minute, or as root" },
};

const char *monitor_strerror(int err)
{
	const char *s;
	size_t i;

	if (err < 0)
		err = -err;
	if (err == 0)
		return "success";
	for (i = 0; i < ARRAY_SIZE(mon_errors); i++)
		if (mon_errors[i].err == err)
			return mon_errors[i].msg;
	s = strerrordesc_np(err);
	return s ? s : "unknown error";
}
