// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trace.c - the .mkm trace file: writer and reader (docs/trace-format.md).
 *
 * A file is a 32-byte header followed by chunks, each a 16-byte header
 * (type, length, index, crc32c) and a payload. The writer emits every chunk
 * with one writev(), so a crash leaves at most one partial chunk at the end
 * and loses at most the records still buffered. The reader checks each
 * chunk's length against the file, its checksum and its index before
 * decoding it; the first bad chunk stops reading with an error naming its
 * offset, and everything before it has already been returned.
 *
 * Payload bytes are copied into the reader's own buffer, so decoded arrays
 * are aligned whatever the source (the fuzzer hands in any buffer).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

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
};

_Static_assert(sizeof(struct mkm_event) == 32, "record size");
_Static_assert(sizeof(struct trace_thread) == 24, "thread entry size");
_Static_assert(sizeof(struct trace_calibration) == 24, "calibration size");
_Static_assert(sizeof(struct mkm_cpu_stats) == 32, "stats entry size");

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* ---- crc32c ----------------------------------------------------------- */

static uint32_t crc_table[8][256];

static void crc_init(void)
{
	uint32_t i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		crc_table[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (j = 1; j < 8; j++)
			crc_table[j][i] =
				(crc_table[j - 1][i] >> 8) ^
				crc_table[0][crc_table[j - 1][i] & 0xff];
}

/* crc32c, slicing by 8; crc is the value returned for earlier bytes. */
uint32_t mon_crc32c(uint32_t crc, const void *buf, size_t len)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const uint8_t *p = buf;

	pthread_once(&once, crc_init);
	crc = ~crc;
	while (len >= 8) {
		uint32_t lo = get32(p) ^ crc, hi = get32(p + 4);

		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		      crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
		      crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static uint32_t chunk_crc(const uint8_t *hdr, const void *payload, size_t len)
{
	return mon_crc32c(mon_crc32c(0, hdr, 12), payload, len);
}

/* ---- writer ----------------------------------------------------------- */

struct trace_writer {
	int fd;
	int err; /* first error; sticky */
	uint32_t index; /* of the next chunk */
	uint64_t events; /* records written */
	struct mkm_event *buf;
	size_t nbuf;
	uint64_t horizon; /* to write after the buffered records */
	uint64_t horizon_written;
};

static int write_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t r = writev(fd, iov, n);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		while (n > 0 && (size_t)r >= iov->iov_len) {
			r -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + r;
			iov->iov_len -= (size_t)r;
		}
	}
	return 0;
}

static int write_chunk(struct trace_writer *w, uint32_t type,
		       const void *payload, size_t len)
{
	uint8_t hdr[CHUNK_HDR_SIZE];
	struct iovec iov[2] = {
		{ .iov_base = hdr, .iov_len = sizeof(hdr) },
		{ .iov_base = (void *)payload, .iov_len = len },
	};

	if (w->err)
		return w->err;
	if (len > CHUNK_MAX)
		return -EINVAL;
	put32(hdr, type);
	put32(hdr + 4, (uint32_t)len);
	put32(hdr + 8, w->index);
	put32(hdr + 12, chunk_crc(hdr, payload, len));
	w->err = write_all(w->fd, iov, len ? 2 : 1);
	if (!w->err)
		w->index++;
	return w->err;
}

static size_t tlv(uint8_t *p, uint16_t tag, const void *v, size_t len)
{
	put16(p, tag);
	put16(p + 2, (uint16_t)len);
	memcpy(p + 4, v, len);
	return 4 + len;
}

static size_t tlv_str(uint8_t *p, uint16_t tag, const char *s)
{
	return tlv(p, tag, s, strnlen(s, 64));
}

int trace_writer_open(struct trace_writer **wp, const char *path,
		      const struct trace_info *info)
{
	uint8_t hdr[TRACE_HDR_SIZE] = { 0 }, payload[512];
	struct iovec iov = { .iov_base = hdr, .iov_len = sizeof(hdr) };
	struct trace_writer *w;
	uint32_t abi[3], clock;
	size_t n = 0;
	int err;

	if (!wp || !path || !info)
		return -EINVAL;
	*wp = NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->buf = malloc(WRITER_BATCH * sizeof(*w->buf));
	if (!w->buf) {
		free(w);
		return -ENOMEM;
	}
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		err = -errno;
		goto err_free;
	}
	memcpy(hdr, TRACE_MAGIC, 8);
	put16(hdr + 8, TRACE_MAJOR);
	put16(hdr + 10, TRACE_MINOR);
	put32(hdr + 12, TRACE_HDR_SIZE);
	put32(hdr + 28, mon_crc32c(0, hdr, 28));
	err = write_all(w->fd, &iov, 1);
	if (err)
		goto err_close;

	clock = info->clock ? info->clock : CLOCK_MONOTONIC;
	abi[0] = info->abi_major ? info->abi_major : MKM_ABI_MAJOR;
	abi[1] = info->abi_major ? info->abi_minor : MKM_ABI_MINOR;
	abi[2] = info->event_size ? info->event_size :
				    (uint32_t)sizeof(struct mkm_event);
	n += tlv(payload + n, TAG_CLOCK, &clock, 4);
	n += tlv(payload + n, TAG_ABI, abi, sizeof(abi));
	n += tlv(payload + n, TAG_NR_CPUS, &info->nr_cpus, 4);
	n += tlv(payload + n, TAG_CLASSES, &info->classes, 4);
	n += tlv(payload + n, TAG_FLAGS, &info->flags, 4);
	n += tlv(payload + n, TAG_RING_BYTES, &info->ring_bytes, 8);
	n += tlv(payload + n, TAG_START_MONO, &info->start_mono_ns, 8);
	n += tlv(payload + n, TAG_START_REAL, &info->start_real_ns, 8);
	n += tlv_str(payload + n, TAG_HOSTNAME, info->hostname);
	n += tlv_str(payload + n, TAG_KERNEL, info->kernel);
	n += tlv_str(payload + n, TAG_MACHINE, info->machine);
	err = write_chunk(w, TRACE_CHUNK_INFO, payload, n);
	if (err)
		goto err_close;
	*wp = w;
	return 0;

err_close:
	close(w->fd);
	unlink(path);
err_free:
	free(w->buf);
	free(w);
	return err;
}

static int flush_events(struct trace_writer *w)
{
	int err;

	if (w->err)
		return w->err;
	if (w->nbuf) {
		err = write_chunk(w, TRACE_CHUNK_EVENTS, w->buf,
				  w->nbuf * sizeof(*w->buf));
		if (err)
			return err;
		w->events += w->nbuf;
		w->nbuf = 0;
	}
	if (w->horizon > w->horizon_written) {
		err = write_chunk(w, TRACE_CHUNK_HORIZON, &w->horizon,
				  sizeof(w->horizon));
		if (err)
			return err;
		w->horizon_written = w->horizon;
	}
	return 0;
}

int trace_writer_events(struct trace_writer *w, const struct mkm_event *ev,
			size_t n)
{
	int err;

	if (!w || (n && !ev))
		return -EINVAL;
	if (w->err)
		return w->err;
	while (n) {
		size_t k = WRITER_BATCH - w->nbuf;

		if (k > n)
			k = n;
		memcpy(w->buf + w->nbuf, ev, k * sizeof(*ev));
		w->nbuf += k;
		ev += k;
		n -= k;
		if (w->nbuf == WRITER_BATCH) {
			err = flush_events(w);
			if (err)
				return err;
		}
	}
	return 0;
}

int trace_writer_horizon(struct trace_writer *w, uint64_t t)
{
	if (!w)
		return -EINVAL;
	if (t > w->horizon)
		w->horizon = t;
	return w->err;
}

static int write_array(struct trace_writer *w, uint32_t type,
		       const void *prefix, size_t plen, const void *a,
		       size_t size, size_t n, size_t max)
{
	uint8_t *p;
	int err;

	if (!w || (n && !a) || n > max)
		return -EINVAL;
	err = flush_events(w);
	if (err)
		return err;
	p = malloc(plen + n * size + 1);
	if (!p)
		return -ENOMEM;
	if (plen)
		memcpy(p, prefix, plen);
	if (n)
		memcpy(p + plen, a, n * size);
	err = write_chunk(w, type, p, plen + n * size);
	free(p);
	return err;
}

int trace_writer_threads(struct trace_writer *w, const struct trace_thread *t,
			 size_t n)
{
	return write_array(w, TRACE_CHUNK_THREADS, NULL, 0, t, sizeof(*t), n,
			   1u << 20);
}

int trace_writer_stats(struct trace_writer *w, const struct mkm_cpu_stats *s,
		       size_t nr_cpus)
{
	uint32_t hdr[2] = { (uint32_t)nr_cpus, 0 };

	return write_array(w, TRACE_CHUNK_STATS, hdr, sizeof(hdr), s,
			   sizeof(*s), nr_cpus, 65536);
}

int trace_writer_calibration(struct trace_writer *w,
			     const struct trace_calibration *c, size_t n)
{
	return write_array(w, TRACE_CHUNK_CALIBRATION, NULL, 0, c, sizeof(*c),
			   n, 65536);
}

int trace_writer_flush(struct trace_writer *w, int sync)
{
	int err;

	if (!w)
		return -EINVAL;
	err = flush_events(w);
	if (!err && sync && fdatasync(w->fd) < 0)
		err = w->err = -errno;
	return err;
}

int trace_writer_close(struct trace_writer *w)
{
	uint64_t end[2];
	int err;

	if (!w)
		return 0;
	err = flush_events(w);
	if (!err) {
		end[0] = w->events;
		end[1] = w->index; /* chunks before END */
		err = write_chunk(w, TRACE_CHUNK_END, end, sizeof(end));
	}
	if (close(w->fd) < 0 && !err)
		err = -errno;
	free(w->buf);
	free(w);
	return err;
}

/* ---- reader ----------------------------------------------------------- */

struct trace_reader {
	int fd; /* -1: memory */
	const uint8_t *mem;
	uint64_t size;
	uint64_t off; /* of the next chunk */
	uint32_t index; /* expected next chunk index */
	uint64_t events; /* records returned */
	int err;
	bool ended;
	uint8_t *buf;
	size_t cap;
	struct trace_info info;
	uint64_t err_off;
	char msg[256];
};

static int fail(struct trace_reader *r, int err, uint64_t off, const char *fmt,
		...) __attribute__((format(printf, 4, 5)));

static int fail(struct trace_reader *r, int err, uint64_t off, const char *fmt,
		...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(r->msg, sizeof(r->msg),
		 "offset %" PRIu64 ": %s; the %" PRIu32 " chunks (%" PRIu64
		 " events) before it are valid",
		 off, what, r->index, r->events);
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
			if (n != 4)
				goto bad_size;
			*(tag == TAG_CLOCK   ? &in->clock :
			  tag == TAG_NR_CPUS ? &in->nr_cpus :
			  tag == TAG_CLASSES ? &in->classes :
					       &in->flags) = get32(v);
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
};

static const char *chunk_name(uint32_t type)
{
	return type < ARRAY_SIZE(chunk_names) && chunk_names[type] ?
		       chunk_names[type] :
		       "unknown";
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
	case TRACE_CHUNK_STATS:
		if (len < 8)
			goto bad_len;
		nr = get32(p);
		if ((len - 8) / sizeof(struct mkm_cpu_stats) != nr ||
		    (len - 8) % sizeof(struct mkm_cpu_stats))
			goto bad_len;
		c->stats = (const struct mkm_cpu_stats *)(p + 8);
		c->nr_stats = nr;
		return 0;
	case TRACE_CHUNK_CALIBRATION:
		if (len % sizeof(struct trace_calibration))
			goto bad_len;
		c->calibration = (const struct trace_calibration *)p;
		c->nr_calibration = len / sizeof(struct trace_calibration);
		return 0;
	case TRACE_CHUNK_END:
		if (len != 16)
			goto bad_len;
		if (get64(p) != r->events || get64(p + 8) != c->index)
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

int trace_reader_next(struct trace_reader *r, struct trace_chunk *c)
{
	uint8_t hdr[CHUNK_HDR_SIZE];
	uint32_t len, crc, got;
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
	if (len > CHUNK_MAX)
		return fail(r, -EBADMSG, off,
			    "chunk %u: impossible length %" PRIu32
			    " (corrupt header)",
			    r->index, len);
	if (len > r->size - off - CHUNK_HDR_SIZE)
		return fail(r, -ENODATA, off,
			    "chunk %u (%s) needs %" PRIu32
			    " bytes, the file has %" PRIu64
			    " (truncated, or a corrupt length)",
			    r->index, chunk_name(c->type), len,
			    r->size - off - CHUNK_HDR_SIZE);
	if (len + 1 > r->cap) {
		uint8_t *b = realloc(r->buf, len + 1);

		if (!b)
			return fail(r, -ENOMEM, off, "out of memory");
		r->buf = b;
		r->cap = len + 1;
	}
	err = src_read(r, off + CHUNK_HDR_SIZE, r->buf, len);
	if (err)
		return fail(r, err, off, "read error");
	got = chunk_crc(hdr, r->buf, len);
	if (got != crc && CRC_CHECKED)
		return fail(r, -EBADMSG, off,
			    "chunk %u: checksum mismatch (stored %08" PRIx32
			    ", computed %08" PRIx32 "): corrupt data",
			    r->index, crc, got);
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
	if (get16(hdr + 8) != TRACE_MAJOR)
		return fail(r, -EPROTO, 0,
			    "trace format %u.%u, this library reads %u.x",
			    get16(hdr + 8), get16(hdr + 10), TRACE_MAJOR);
	hsize = get32(hdr + 12);
	if (hsize < TRACE_HDR_SIZE || hsize > r->size)
		return fail(r, -EBADMSG, 0, "header size %" PRIu32, hsize);
	r->off = hsize;
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
	if (r->fd < 0 || fstat(r->fd, &st) < 0) {
		int err = -errno;

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
	if (offset)
		*offset = r->err_off;
	return r->err ? r->msg : "";
}

int trace_reader_replay(struct trace_reader *r, struct tl *tl)
{
	struct trace_chunk c;
	int err;

	if (!r || !tl)
		return -EINVAL;
	while ((err = trace_reader_next(r, &c)) > 0) {
		if (c.type == TRACE_CHUNK_EVENTS)
			err = tl_feed(tl, c.events, c.nr_events);
		else if (c.type == TRACE_CHUNK_HORIZON)
			err = tl_advance(tl, c.horizon_ns);
		if (err < 0)
			break;
	}
	tl_flush(tl);
	return err;
}

void trace_reader_close(struct trace_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	free(r);
}
