// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * reader.c - reads a .mkm trace, from a file or from memory. Each chunk's
 * length is checked against the file, then its checksum and its index,
 * before it is decoded; the first bad chunk stops reading with an error
 * naming its offset, and everything before it has already been returned.
 *
 * Payload bytes are copied into the reader's own buffer, so decoded arrays
 * are aligned whatever the source (the fuzzer hands in any buffer).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/format.h"

struct trace_reader {
	int fd; /* -1: memory */
	const uint8_t *mem;
	uint64_t size;
	uint64_t off; /* of the next chunk */
	uint32_t index; /* expected next chunk index */
	uint64_t events; /* records returned */
	int err;
	bool ended;
	uint64_t first_off; /* of INFO: damage there is not skipped */
	uint8_t *buf;
	size_t cap;
	/* STATS whose entries are not this build's struct, converted. */
	struct mkm_cpu_stats *stats;
	size_t stats_cap;
	struct trace_info info;
	uint64_t err_off;
	char msg[768];
	/* Skipped damage: the first place in detail, then totals. */
	uint32_t nr_damaged;
	uint64_t damage_off, damage_next, skipped_bytes;
	uint32_t damage_chunks, skipped_chunks;
	char damage_what[160];
};

static const char *chunk_word(uint64_t n)
{
	return n == 1 ? "chunk" : "chunks";
}

/* What was skipped, as one clause (empty without damage). */
static void damage_text(const struct trace_reader *r, char *buf, size_t len)
{
	int n;

	buf[0] = 0;
	if (!r->nr_damaged)
		return;
	n = snprintf(buf, len,
		     "offset %" PRIu64 ": %s; skipped %" PRIu64
		     " bytes (%" PRIu32
		     " %s) to the next good chunk, at offset %" PRIu64,
		     r->damage_off, r->damage_what,
		     r->damage_next - r->damage_off, r->damage_chunks,
		     chunk_word(r->damage_chunks), r->damage_next);
	if (r->nr_damaged > 1 && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n,
			 "; %" PRIu32 " damaged places in all, %" PRIu64
			 " bytes (%" PRIu32 " %s) skipped",
			 r->nr_damaged, r->skipped_bytes, r->skipped_chunks,
			 chunk_word(r->skipped_chunks));
}

static int fail(struct trace_reader *r, int err, uint64_t off, const char *fmt,
		...) __attribute__((format(printf, 4, 5)));

static int fail(struct trace_reader *r, int err, uint64_t off, const char *fmt,
		...)
{
	char what[160], earlier[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	damage_text(r, earlier, sizeof(earlier));
	snprintf(r->msg, sizeof(r->msg),
		 "offset %" PRIu64 ": %s; the %" PRIu32 " chunks (%" PRIu64
		 " events) before it are valid%s%s",
		 off, what, r->index, r->events,
		 r->nr_damaged ? " (earlier, at " : "",
		 r->nr_damaged ? earlier + strlen("offset ") : "");
	if (r->nr_damaged && strlen(r->msg) + 1 < sizeof(r->msg))
		strcat(r->msg, ")");
	r->err = err;
	r->err_off = off;
	return err;
}

/* Read len bytes at off into dst; the caller checked the bounds. */
static int src_read(struct trace_reader *r, uint64_t off, void *dst, size_t len)
{
	size_t done = 0;

	if (r->fd < 0) {
		memcpy(dst, r->mem + off, len);
		return 0;
	}
	while (done < len) {
		ssize_t n = pread(r->fd, (uint8_t *)dst + done, len - done,
				  (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENODATA; /* shrank under us */
		done += (size_t)n;
	}
	return 0;
}

static void copy_str(char *dst, const uint8_t *v, size_t len)
{
	if (len > 64)
		len = 64;
	memcpy(dst, v, len);
	dst[len] = 0;
}

static int parse_info(struct trace_reader *r, const uint8_t *p, size_t len,
		      uint64_t off)
{
	struct trace_info *in = &r->info;
	size_t i = 0;
	bool abi = false;

	memset(in, 0, sizeof(*in));
	while (i < len) {
		uint16_t tag, n;
		const uint8_t *v;

		if (len - i < 4)
			return fail(r, -EBADMSG, off, "INFO: item cut short");
		tag = get16(p + i);
		n = get16(p + i + 2);
		v = p + i + 4;
		if (n > len - i - 4)
			return fail(r, -EBADMSG, off,
				    "INFO: item %u overruns the chunk", tag);
		i += 4u + n;
		switch (tag) {
		case TAG_CLOCK:
		case TAG_NR_CPUS:
		case TAG_CLASSES:
		case TAG_FLAGS:
		case TAG_TRACE_FLAGS:
		case TAG_CLOCK_RES:
			if (n != 4)
				goto bad_size;
			*(tag == TAG_CLOCK   ? &in->clock :
			  tag == TAG_NR_CPUS ? &in->nr_cpus :
			  tag == TAG_CLASSES ? &in->classes :
			  tag == TAG_FLAGS   ? &in->flags :
			  tag == TAG_TRACE_FLAGS ?
					     &in->trace_flags :
					     &in->clock_res_ps) = get32(v);
			break;
		case TAG_ABI:
			if (n != 12)
				goto bad_size;
			in->abi_major = get32(v);
			in->abi_minor = get32(v + 4);
			in->event_size = get32(v + 8);
			abi = true;
			break;
		case TAG_RING_BYTES:
		case TAG_START_MONO:
		case TAG_START_REAL:
			if (n != 8)
				goto bad_size;
			*(tag == TAG_RING_BYTES ? &in->ring_bytes :
			  tag == TAG_START_MONO ? &in->start_mono_ns :
						  &in->start_real_ns) =
				get64(v);
			break;
		case TAG_HOSTNAME:
			copy_str(in->hostname, v, n);
			break;
		case TAG_KERNEL:
			copy_str(in->kernel, v, n);
			break;
		case TAG_MACHINE:
			copy_str(in->machine, v, n);
			break;
		case TAG_NODE:
			copy_str(in->node, v, n);
			break;
		case TAG_JOB:
			if (n != 16)
				goto bad_size;
			in->job_id = get32(v);
			in->step_id = get32(v + 4);
			in->node_id = get32(v + 8);
			in->nr_nodes = get32(v + 12);
			break;
		case TAG_MONITOR_TIDS:
		case TAG_MONITOR_TIDS_ALL:
			if (n % 4 || n / 4 > (tag == TAG_MONITOR_TIDS ?
						      8 :
						      TRACE_MAX_MONITOR_TIDS))
				goto bad_size;
			in->nr_monitor_tids = n / 4;
			memcpy(in->monitor_tids, v, n);
			break;
		default:
			break; /* a newer minor's tag */
		}
		continue;
bad_size:
		return fail(r, -EBADMSG, off, "INFO: item %u has size %u", tag,
			    n);
	}
	if (!abi)
		return fail(r, -EBADMSG, off, "INFO: no ABI item");
	/*
	 * ABI 1 records read the same; only its classes differed (its SCHED
	 * included the wakeups, which ABI 2 records under MKM_CLASS_WAKEUP).
	 */
	if (in->abi_major < 1 || in->abi_major > MKM_ABI_MAJOR ||
	    in->event_size != sizeof(struct mkm_event))
		return fail(r, -EPROTO, off,
			    "records of MKM ABI %u.%u (%u bytes) are unknown "
			    "to this library (ABI %u, %zu bytes)",
			    in->abi_major, in->abi_minor, in->event_size,
			    MKM_ABI_MAJOR, sizeof(struct mkm_event));
	if (in->nr_cpus > 65536)
		return fail(r, -EBADMSG, off, "INFO: %u CPUs", in->nr_cpus);
	return 0;
}

static const char *const chunk_names[] = {
	[TRACE_CHUNK_INFO] = "INFO",
	[TRACE_CHUNK_EVENTS] = "EVENTS",
	[TRACE_CHUNK_HORIZON] = "HORIZON",
	[TRACE_CHUNK_THREADS] = "THREADS",
	[TRACE_CHUNK_STATS] = "STATS",
	[TRACE_CHUNK_CALIBRATION] = "CALIBRATION",
	[TRACE_CHUNK_END] = "END",
	[TRACE_CHUNK_CLOCK_SYNC] = "CLOCK_SYNC",
	[TRACE_CHUNK_NODES] = "NODES",
	[TRACE_CHUNK_PROCESSES] = "PROCESSES",
	[TRACE_CHUNK_PAD] = "PAD",
	[TRACE_CHUNK_BOUNDS] = "BOUNDS",
};

static const char *chunk_name(uint32_t type)
{
	return type < ARRAY_SIZE(chunk_names) && chunk_names[type] ?
		       chunk_names[type] :
		       "unknown";
}

/* A 64-byte name field holds a NUL. */
static bool nr_str_ok(const char *s)
{
	return memchr(s, 0, 64) != NULL;
}

/* A NODES chunk's entries name their node, and their tid prefixes and
 * CPU ranges do not collide (a reader maps tids and CPUs back by them). */
static int nodes_check(struct trace_reader *r, const struct trace_chunk *c)
{
	size_t i, j;

	if (c->nodes_hdr->tid_shift != TRACE_NODE_TID_SHIFT)
		return fail(r, -EPROTO, c->offset,
			    "chunk %u (NODES): tids shifted by %u, this "
			    "library knows %u",
			    c->index, c->nodes_hdr->tid_shift,
			    TRACE_NODE_TID_SHIFT);
	for (i = 0; i < c->nr_nodes; i++) {
		const struct trace_node *a = &c->nodes[i];

		if (!nr_str_ok(a->name) || !nr_str_ok(a->kernel) ||
		    a->index >= TRACE_MAX_NODES ||
		    (uint64_t)a->cpu_base + a->nr_cpus > 65536)
			goto bad;
		for (j = 0; j < i; j++) {
			const struct trace_node *b = &c->nodes[j];

			if (a->index == b->index ||
			    (a->cpu_base < b->cpu_base + b->nr_cpus &&
			     b->cpu_base < a->cpu_base + a->nr_cpus))
				goto bad;
		}
	}
	return 0;
bad:
	return fail(r, -EBADMSG, c->offset,
		    "chunk %u (NODES): entry %zu is malformed or overlaps "
		    "another",
		    c->index, i);
}

static int decode(struct trace_reader *r, struct trace_chunk *c,
		  const uint8_t *p, size_t len)
{
	uint32_t nr;

	switch (c->type) {
	case TRACE_CHUNK_INFO:
		if (c->index)
			return fail(r, -EBADMSG, c->offset,
				    "chunk %u: a second INFO", c->index);
		return parse_info(r, p, len, c->offset);
	case TRACE_CHUNK_EVENTS:
		if (len % sizeof(struct mkm_event))
			goto bad_len;
		c->events = (const struct mkm_event *)p;
		c->nr_events = len / sizeof(struct mkm_event);
		return 0;
	case TRACE_CHUNK_HORIZON:
		if (len != 8)
			goto bad_len;
		c->horizon_ns = get64(p);
		return 0;
	case TRACE_CHUNK_THREADS:
		if (len % sizeof(struct trace_thread))
			goto bad_len;
		c->threads = (const struct trace_thread *)p;
		c->nr_threads = len / sizeof(struct trace_thread);
		return 0;
	case TRACE_CHUNK_PROCESSES:
		if (len % sizeof(struct trace_process))
			goto bad_len;
		c->processes = (const struct trace_process *)p;
		c->nr_processes = len / sizeof(struct trace_process);
		return 0;
	case TRACE_CHUNK_STATS: {
		uint32_t size;

		if (len < 8)
			goto bad_len;
		nr = get32(p);
		/* 0: the 32 bytes that were all before the entry grew. */
		size = get32(p + 4) ? get32(p + 4) : TRACE_STATS_SIZE_1_0;
		if (size < TRACE_STATS_SIZE_1_0 || size % 8 || size > 4096 ||
		    (len - 8) / size != nr || (len - 8) % size)
			goto bad_len;
		c->stats = (const struct mkm_cpu_stats *)(p + 8);
		c->nr_stats = nr;
		if (size == sizeof(struct mkm_cpu_stats) || !nr)
			return 0;
		/* Another size: this build's struct, cut or zero-filled. */
		if (nr > r->stats_cap) {
			struct mkm_cpu_stats *s =
				realloc(r->stats, nr * sizeof(*s));

			if (!s)
				return fail(r, -ENOMEM, c->offset,
					    "out of memory for STATS");
			r->stats = s;
			r->stats_cap = nr;
		}
		memset(r->stats, 0, nr * sizeof(*r->stats));
		for (uint32_t i = 0; i < nr; i++)
			memcpy(&r->stats[i], p + 8 + (size_t)i * size,
			       size < sizeof(*r->stats) ? size :
							  sizeof(*r->stats));
		c->stats = r->stats;
		return 0;
	}
	case TRACE_CHUNK_CALIBRATION:
		if (len < sizeof(struct trace_calibration_hdr))
			goto bad_len;
		c->calibration_hdr = (const struct trace_calibration_hdr *)p;
		if (c->calibration_hdr->version != 1) {
			c->calibration_hdr = NULL; /* a newer layout: skipped */
			return 0;
		}
		nr = c->calibration_hdr->nr_cpus;
		len -= sizeof(struct trace_calibration_hdr);
		if (len % sizeof(struct trace_calibration) ||
		    len / sizeof(struct trace_calibration) != nr)
			goto bad_len;
		c->calibration =
			(const struct trace_calibration
				 *)(p + sizeof(struct trace_calibration_hdr));
		c->nr_calibration = nr;
		return 0;
	case TRACE_CHUNK_CLOCK_SYNC:
		if (len < sizeof(struct trace_clock_sync_hdr))
			goto bad_len;
		c->clock_sync_hdr = (const struct trace_clock_sync_hdr *)p;
		if (c->clock_sync_hdr->version != 1) {
			c->clock_sync_hdr = NULL; /* a newer layout: skipped */
			return 0;
		}
		nr = c->clock_sync_hdr->nr_samples;
		len -= sizeof(struct trace_clock_sync_hdr);
		if (len % sizeof(struct trace_clock_sample) ||
		    len / sizeof(struct trace_clock_sample) != nr ||
		    !nr_str_ok(c->clock_sync_hdr->node) ||
		    !nr_str_ok(c->clock_sync_hdr->reference))
			goto bad_len;
		c->clock_samples =
			(const struct trace_clock_sample
				 *)(p + sizeof(struct trace_clock_sync_hdr));
		c->nr_clock_samples = nr;
		return 0;
	case TRACE_CHUNK_NODES:
		if (len < sizeof(struct trace_nodes_hdr))
			goto bad_len;
		c->nodes_hdr = (const struct trace_nodes_hdr *)p;
		if (c->nodes_hdr->version != 1) {
			c->nodes_hdr = NULL; /* a newer layout: skipped */
			return 0;
		}
		nr = c->nodes_hdr->nr_nodes;
		len -= sizeof(struct trace_nodes_hdr);
		if (len % sizeof(struct trace_node) ||
		    len / sizeof(struct trace_node) != nr ||
		    nr > TRACE_MAX_NODES)
			goto bad_len;
		c->nodes = (const struct trace_node
				    *)(p + sizeof(struct trace_nodes_hdr));
		c->nr_nodes = nr;
		return nodes_check(r, c);
	case TRACE_CHUNK_BOUNDS: {
		const struct trace_bounds_hdr *h;

		if (len < sizeof(*h))
			goto bad_len;
		h = (const struct trace_bounds_hdr *)p;
		/* Another layout (more figures or parts): skipped. */
		if (h->version != 1 || h->nr_figures != TRACE_BOUND_FIGURES ||
		    h->nr_parts != TRACE_BOUND_PARTS)
			return 0;
		nr = h->nr_threads;
		len -= sizeof(*h);
		if (len % sizeof(struct trace_bounds) ||
		    len / sizeof(struct trace_bounds) != nr)
			goto bad_len;
		c->bounds = (const struct trace_bounds *)(p + sizeof(*h));
		c->nr_bounds = nr;
		return 0;
	}
	case TRACE_CHUNK_END:
		if (len != 16)
			goto bad_len;
		/* After skipped damage only the chunks can be counted. */
		if ((get64(p) != r->events && !r->nr_damaged) ||
		    get64(p + 8) != c->index)
			return fail(r, -EBADMSG, c->offset,
				    "END counts %" PRIu64 " events in %" PRIu64
				    " chunks, the file holds %" PRIu64 " in %u",
				    get64(p), get64(p + 8), r->events,
				    c->index);
		r->ended = true;
		return 0;
	default:
		return 0; /* a newer minor's chunk: skipped */
	}
bad_len:
	return fail(r, -EBADMSG, c->offset, "chunk %u (%s): bad length %zu",
		    c->index, chunk_name(c->type), len);
}

/* Room for @len payload bytes (and a NUL) in the reader's buffer. */
static int reserve(struct trace_reader *r, uint32_t len)
{
	uint8_t *b;

	if (len + 1 <= r->cap)
		return 0;
	b = realloc(r->buf, len + 1);
	if (!b)
		return -ENOMEM;
	r->buf = b;
	r->cap = len + 1;
	return 0;
}

/* Could @hdr, at @off, start a chunk after INFO with an index in [@lo,
 * @hi] that the file holds whole? */
static bool plausible(const struct trace_reader *r, const uint8_t *hdr,
		      uint64_t off, uint32_t lo, uint64_t hi)
{
	uint32_t type = get32(hdr), len = get32(hdr + 4),
		 index = get32(hdr + 8);

	return type > TRACE_CHUNK_INFO && type <= 0xffff && len <= CHUNK_MAX &&
	       len <= r->size - off - CHUNK_HDR_SIZE && index >= lo &&
	       index <= hi;
}

/* Is the plausible chunk header @hdr at @off whole, its checksum right?
 * (A match by chance is one in 2^32.) */
static bool checksum_ok(struct trace_reader *r, const uint8_t *hdr,
			uint64_t off)
{
	uint32_t len = get32(hdr + 4);

	if (reserve(r, len) || src_read(r, off + CHUNK_HDR_SIZE, r->buf, len))
		return false;
	return chunk_crc(hdr, r->buf, len) == get32(hdr + 12) || !CRC_CHECKED;
}

/* Each chunk skipped took at least a header's bytes: the highest index a
 * chunk at @at can have after damage at @off whose next index is @lo. */
static uint64_t highest_index(uint32_t lo, uint64_t off, uint64_t at)
{
	return lo + (at - off) / CHUNK_HDR_SIZE;
}

#define SCAN_BLOCK 65536u

/*
 * The next good chunk after damage at @off, at every byte from @off + 1,
 * read a block at a time (the headers are tested in memory; the payload
 * of a plausible one is read for its checksum). Return: its offset, or
 * r->size if there is none.
 */
static uint64_t scan(struct trace_reader *r, uint64_t off, uint32_t lo)
{
	uint8_t *block = malloc(SCAN_BLOCK);
	uint64_t at = off + 1, found = r->size;

	while (block && found == r->size && r->size - at >= CHUNK_HDR_SIZE) {
		size_t n = r->size - at < SCAN_BLOCK ? (size_t)(r->size - at) :
						       SCAN_BLOCK,
		       i;

		if (src_read(r, at, block, n))
			break;
		for (i = 0; i + CHUNK_HDR_SIZE <= n; i++)
			if (plausible(r, block + i, at + i, lo,
				      highest_index(lo, off, at + i)) &&
			    checksum_ok(r, block + i, at + i)) {
				found = at + i;
				break;
			}
		at += n - (CHUNK_HDR_SIZE - 1); /* headers across blocks */
	}
	free(block);
	return found;
}

/*
 * The chunk at @off is damaged (@what says how; @len is its length, if
 * possible): find the next good chunk, first where its length says, then
 * at every byte after @off. Return: true and the reader moved to it, the
 * damage recorded; false if there is none (the caller stops).
 */
static bool resync(struct trace_reader *r, uint64_t off, uint64_t len,
		   const char *what)
{
	uint64_t next = off + CHUNK_HDR_SIZE + len, at = r->size;
	uint32_t lo = r->index + 1, index;
	uint8_t hdr[CHUNK_HDR_SIZE];

	if (len <= CHUNK_MAX && next < r->size &&
	    r->size - next >= CHUNK_HDR_SIZE &&
	    !src_read(r, next, hdr, sizeof(hdr)) &&
	    plausible(r, hdr, next, lo, highest_index(lo, off, next)) &&
	    checksum_ok(r, hdr, next))
		at = next;
	else
		at = scan(r, off, lo);
	if (at == r->size || src_read(r, at, hdr, sizeof(hdr)))
		return false;
	index = get32(hdr + 8);
	if (!r->nr_damaged++) {
		r->damage_off = off;
		r->damage_next = at;
		r->damage_chunks = index - r->index;
		snprintf(r->damage_what, sizeof(r->damage_what), "%s", what);
	}
	r->skipped_bytes += at - off;
	r->skipped_chunks += index - r->index;
	r->off = at;
	r->index = index;
	return true;
}

int trace_reader_next(struct trace_reader *r, struct trace_chunk *c)
{
	uint8_t hdr[CHUNK_HDR_SIZE];
	uint32_t len, crc, got;
	char what[160];
	uint64_t off;
	int err;

	if (!r || !c)
		return -EINVAL;
	if (r->err)
		return r->err;
	if (r->ended)
		return 0;
	off = r->off;
	memset(c, 0, sizeof(*c));
	c->offset = off;
	if (off == r->size)
		return fail(r, -ENODATA, off,
			    "the file ends without an END chunk (recording "
			    "interrupted?)");
	if (r->size - off < CHUNK_HDR_SIZE)
		return fail(r, -ENODATA, off,
			    "truncated chunk header (%" PRIu64 " bytes left)",
			    r->size - off);
	err = src_read(r, off, hdr, sizeof(hdr));
	if (err)
		return fail(r, err, off, "read error");
	c->type = get32(hdr);
	len = get32(hdr + 4);
	c->index = get32(hdr + 8);
	crc = get32(hdr + 12);
	if (len > CHUNK_MAX) {
		snprintf(what, sizeof(what),
			 "chunk %u: impossible length %" PRIu32
			 " (corrupt header)",
			 r->index, len);
		if (off > r->first_off && resync(r, off, len, what))
			return trace_reader_next(r, c);
		return fail(r, -EBADMSG, off, "%s", what);
	}
	if (len > r->size - off - CHUNK_HDR_SIZE) {
		snprintf(what, sizeof(what),
			 "chunk %u (%s) needs %" PRIu32
			 " bytes, the file has %" PRIu64
			 " (truncated, or a corrupt length)",
			 r->index, chunk_name(c->type), len,
			 r->size - off - CHUNK_HDR_SIZE);
		if (off > r->first_off && resync(r, off, len, what))
			return trace_reader_next(r, c);
		return fail(r, -ENODATA, off, "%s", what);
	}
	if (reserve(r, len))
		return fail(r, -ENOMEM, off, "out of memory");
	err = src_read(r, off + CHUNK_HDR_SIZE, r->buf, len);
	if (err)
		return fail(r, err, off, "read error");
	got = chunk_crc(hdr, r->buf, len);
	if (got != crc && CRC_CHECKED) {
		snprintf(what, sizeof(what),
			 "chunk %u: checksum mismatch (stored %08" PRIx32
			 ", computed %08" PRIx32 "): corrupt data",
			 r->index, crc, got);
		if (off > r->first_off && resync(r, off, len, what))
			return trace_reader_next(r, c);
		return fail(r, -EBADMSG, off, "%s", what);
	}
	if (c->index != r->index)
		return fail(r, -EBADMSG, off,
			    "chunk index %u where %u was due (chunks lost or "
			    "reordered)",
			    c->index, r->index);
	err = decode(r, c, r->buf, len);
	if (err)
		return err;
	r->off = off + CHUNK_HDR_SIZE + len;
	r->index++;
	r->events += c->nr_events;
	return 1;
}

static int reader_start(struct trace_reader *r)
{
	uint8_t hdr[TRACE_HDR_SIZE];
	struct trace_chunk c;
	uint32_t hsize;
	int err;

	if (r->size < TRACE_HDR_SIZE)
		return fail(r, r->size >= 8 ? -ENODATA : -EINVAL, 0,
			    "%" PRIu64 " bytes: too short for a trace header",
			    r->size);
	err = src_read(r, 0, hdr, sizeof(hdr));
	if (err)
		return fail(r, err, 0, "read error");
	if (memcmp(hdr, TRACE_MAGIC, 8))
		return fail(r, -EINVAL, 0, "not an mkm trace (bad magic)");
	if (get32(hdr + 28) != mon_crc32c(0, hdr, 28) && CRC_CHECKED)
		return fail(r, -EBADMSG, 0, "header checksum mismatch");
	if (get16(hdr + 8) != TRACE_MAJOR &&
	    get16(hdr + 8) != TRACE_MAJOR_SWITCH)
		return fail(r, -EPROTO, 0,
			    "trace format %u.%u, this library reads %u.x and "
			    "%u.x",
			    get16(hdr + 8), get16(hdr + 10), TRACE_MAJOR,
			    TRACE_MAJOR_SWITCH);
	hsize = get32(hdr + 12);
	if (hsize < TRACE_HDR_SIZE || hsize > r->size)
		return fail(r, -EBADMSG, 0, "header size %" PRIu32, hsize);
	r->off = hsize;
	r->first_off = hsize;
	err = trace_reader_next(r, &c);
	if (err < 0)
		return err;
	if (c.type != TRACE_CHUNK_INFO)
		return fail(r, -EBADMSG, c.offset,
			    "first chunk is %s, not INFO", chunk_name(c.type));
	return 0;
}

static struct trace_reader *reader_new(void)
{
	struct trace_reader *r = calloc(1, sizeof(*r));

	if (r)
		r->fd = -1;
	return r;
}

int trace_reader_open(struct trace_reader **rp, const char *path)
{
	struct trace_reader *r;
	struct stat st;

	if (!rp || !path)
		return -EINVAL;
	*rp = NULL;
	r = reader_new();
	if (!r)
		return -ENOMEM;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &st) < 0 || S_ISDIR(st.st_mode)) {
		int err = r->fd >= 0 && S_ISDIR(st.st_mode) ? -EISDIR : -errno;

		trace_reader_close(r);
		return err;
	}
	r->size = (uint64_t)st.st_size;
	*rp = r;
	return reader_start(r);
}

int trace_reader_open_mem(struct trace_reader **rp, const void *buf, size_t len)
{
	struct trace_reader *r;

	if (!rp || (len && !buf))
		return -EINVAL;
	*rp = NULL;
	r = reader_new();
	if (!r)
		return -ENOMEM;
	r->mem = buf;
	r->size = len;
	*rp = r;
	return reader_start(r);
}

const struct trace_info *trace_reader_info(const struct trace_reader *r)
{
	return r ? &r->info : NULL;
}

const char *trace_reader_error(const struct trace_reader *r, uint64_t *offset)
{
	if (!r)
		return "";
	if (r->err) {
		if (offset)
			*offset = r->err_off;
		return r->msg;
	}
	/* Read on past damage: what was skipped. */
	if (offset)
		*offset = r->nr_damaged ? r->damage_off : 0;
	damage_text(r, ((struct trace_reader *)r)->msg, sizeof(r->msg));
	return r->msg;
}

int mon_trace_each_chunk(const char *path, uint32_t type,
			 int (*fn)(const struct trace_chunk *c, void *arg),
			 void *arg)
{
	struct trace_reader *r;
	struct trace_chunk c;
	int ret = trace_reader_open(&r, path);

	while (!ret && (ret = trace_reader_next(r, &c)) > 0)
		ret = c.type == type ? fn(&c, arg) : 0;
	trace_reader_close(r);
	return ret;
}

void trace_reader_close(struct trace_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	free(r->stats);
	free(r);
}
