/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * internal.h - libmonitor's internals, shared by its source files and by
 * the unit tests; nothing here is exported.
 */
#ifndef MON_INTERNAL_H
#define MON_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "libmonitor.h"

#define MON_HIDDEN __attribute__((visibility("hidden")))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* The microstates' table (names.c), for lookups on the hot path. */
MON_HIDDEN extern const struct tl_state_desc mon_states[TL_NR_STATES];

/*
 * Calls @fn on each chunk of @type in the trace at @path, in order, until
 * it returns non-zero (trace/reader.c). Return: that value, 0 at the
 * trace's end, or the reader's negative errno (open, read, damage).
 */
MON_HIDDEN int mon_trace_each_chunk(const char *path, uint32_t type,
				    int (*fn)(const struct trace_chunk *c,
					      void *arg),
				    void *arg);

/* crc32c (Castagnoli), for trace chunks (trace/crc32c.c). */
MON_HIDDEN uint32_t mon_crc32c(uint32_t crc, const void *buf, size_t len);

/* A live monitor's INFO, as a trace of it starts (source_live.c). */
MON_HIDDEN int mon_live_info(struct monitor *mon, struct trace_info *info);

/* A u32 -> u32 open hash (u32map.c); zeroed is empty. */
struct mon_u32map {
	uint64_t *key; /* the key plus one; 0: empty */
	uint32_t *val;
	size_t cap, used;
};
MON_HIDDEN bool mon_u32map_get(const struct mon_u32map *m, uint32_t key,
			       uint32_t *val);
/* 0, or -ENOMEM (the map unchanged). */
MON_HIDDEN int mon_u32map_set(struct mon_u32map *m, uint32_t key, uint32_t val);
MON_HIDDEN void mon_u32map_free(struct mon_u32map *m);
/* The same by table whatever the CPU has, and whether mon_crc32c() uses the
 * CPU's instruction: for the tests. */
MON_HIDDEN uint32_t mon_crc32c_soft(uint32_t crc, const void *buf, size_t len);
MON_HIDDEN bool mon_crc32c_hard(void);

/*
 * The half-width of a cost's 99% interval as the bounds take it: the
 * stored one (ci99_ps, the normal approximation, as MKM's tables) widened
 * to Student's t over its trials, which a quick calibration's 3 trials
 * make 3.85 times as wide; the stored one where there are fewer than two
 * trials (an estimated figure's, copied). calibrate/stats.c.
 */
struct trace_cost;
MON_HIDDEN uint64_t mon_cost_half_width_ps(const struct trace_cost *c);
/* Student's t's 0.995 quantile at @df degrees of freedom (at least 1). */
MON_HIDDEN double mon_student_t995(unsigned long df);

static inline uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif /* MON_INTERNAL_H */
