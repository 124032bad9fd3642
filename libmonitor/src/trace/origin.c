// SPDX-License-Identifier: GPL-2.0
/*
 * origin.c - a trace's clock: the one instant every consumer counts its
 * times from (mon_time_origin()), and the clock's step where it was
 * recorded (mon_clock_resolution_ps()), both in mon_trace.h.
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

uint32_t mon_clock_resolution_ps(void)
{
#if defined(__aarch64__)
	uint64_t hz;

	/* Readable at EL0 on every Linux arm64 machine: the kernel's
	 * sched_clock is this counter, at this rate. */
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
	return hz ? (uint32_t)((1000000000000ull + hz - 1) / hz) : 0;
#elif defined(__x86_64__)
	return 1000;
#else
	return 0;
#endif
}
