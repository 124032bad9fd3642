/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace/format.h - the .mkm file's layout (docs/trace-format.md), shared
 * by the writer and the reader. A file is a 32-byte header followed by
 * chunks, each a 16-byte header (type, length, index, crc32c) and a
 * payload.
 */
#ifndef MON_TRACE_FORMAT_H
#define MON_TRACE_FORMAT_H

#include <string.h>

#include "internal.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .mkm format and struct mkm_event are little-endian: port me"
#endif

#define TRACE_MAGIC "MKMTRACE"
#define TRACE_HDR_SIZE 32u
#define CHUNK_HDR_SIZE 16u
#define CHUNK_MAX (64u << 20) /* largest payload accepted */
#define WRITER_BATCH 2048u /* records per EVENTS chunk (64 KiB) */

/*
 * The fuzzer build ignores checksums, as fuzzing builds conventionally do,
 * so that mutated inputs reach the decoders behind them.
 */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define CRC_CHECKED 0
#else
#define CRC_CHECKED 1
#endif

/* INFO tags. Unknown tags are skipped by readers. */
enum {
	TAG_CLOCK = 1, /* u32 */
	TAG_ABI = 2, /* u32 major, u32 minor, u32 event_size */
	TAG_NR_CPUS = 3, /* u32 */
	TAG_CLASSES = 4, /* u32 */
	TAG_FLAGS = 5, /* u32 */
	TAG_RING_BYTES = 6, /* u64 */
	TAG_START_MONO = 7, /* u64 */
	TAG_START_REAL = 8, /* u64 */
	TAG_HOSTNAME = 9, /* bytes */
	TAG_KERNEL = 10, /* bytes */
	TAG_MACHINE = 11, /* bytes */
	TAG_TRACE_FLAGS = 12, /* u32 */
	TAG_MONITOR_TIDS = 13, /* u32 each */
	TAG_NODE = 14, /* bytes (since 1.2) */
	TAG_JOB = 15, /* u32 job, step, node_id, nr_nodes (since 1.2) */
	TAG_CLOCK_RES = 16, /* u32 picoseconds (since 1.6) */
	TAG_MONITOR_TIDS_ALL = 17, /* u32 each, over 8 (since 1.6) */
};

_Static_assert(sizeof(struct mkm_event) == 32, "record size");
_Static_assert(sizeof(struct trace_thread) == 24, "thread entry size");
_Static_assert(sizeof(struct trace_process) == 8, "process entry size");
_Static_assert(sizeof(struct trace_calibration) == 264, "calibration size");
_Static_assert(sizeof(struct trace_calibration_hdr) == 224,
	       "calibration header size");
/* STATS' entry before it carried a flight recorder's counters. */
#define TRACE_STATS_SIZE_1_0 32u
_Static_assert(sizeof(struct mkm_cpu_stats) == 48, "stats entry size");
_Static_assert(sizeof(struct trace_clock_sample) == 72, "clock sample size");
_Static_assert(sizeof(struct trace_clock_sync_hdr) == 144,
	       "clock sync header size");
_Static_assert(sizeof(struct trace_node) == 208, "node entry size");
_Static_assert(sizeof(struct trace_nodes_hdr) == 24, "nodes header size");

static inline void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static inline void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

static inline uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static inline uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t chunk_crc(const uint8_t *hdr, const void *payload,
				 size_t len)
{
	return mon_crc32c(mon_crc32c(0, hdr, 12), payload, len);
}

#endif /* MON_TRACE_FORMAT_H */
