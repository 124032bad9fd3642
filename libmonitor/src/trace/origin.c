// SPDX-License-Identifier: GPL-2.0
/*
 * origin.c - the one instant every consumer counts a trace's times from
 * (mon_time_origin() in mon_trace.h).
 */
#include "libmonitor.h"

/*
 * The recording's start, not its first record: it is known before any
 * record is read (an export's --from/--to window is set before the
 * stream runs, a live view has it before the first batch), and it does
 * not move when a window, a thread filter or compensation changes which
 * record comes first. A trace that does not say (start 0, as some
 * synthetic ones) counts from the clock's own zero.
 */
uint64_t mon_time_origin(const struct trace_info *info)
{
	return info ? info->start_mono_ns : 0;
}
