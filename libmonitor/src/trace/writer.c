// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * writer.c - writes a .mkm trace. Every chunk goes out with one writev(),
 * so a crash leaves at most one partial chunk at the end and loses at most
 * the records still buffered. Records come in batches: they are written
 * from the caller's memory, and only a batch too small to complete a
 * chunk is buffered.
 *
 * With TRACE_WRITE_DIRECT, where the file system takes O_DIRECT, the file
 * bypasses the page cache: the kernel neither copies the records nor
 * clears pages for them, which was most of a recorder's CPU per record.
 * Every write then starts and ends on the file system's direct
 * I/O alignment: chunks are assembled in an aligned buffer (out), PAD
 * chunks fill each write to the boundary, and a batch in aligned memory
 * goes out from there, its EVENTS header ending the aligned buffer's part.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "trace/format.h"

struct trace_writer {
	int fd;
	int err; /* first error; sticky */
	uint32_t index; /* of the next chunk */
	uint64_t events; /* records written */
	struct mkm_event *buf; /* buffered records (direct: at out's end) */
	size_t nbuf;
	uint64_t horizon; /* to write after the buffered records */
	uint64_t horizon_written;
	/* Direct I/O: offsets and lengths in multiples of align (0:
	 * buffered), memory aligned to mem_align; out holds nout bytes of
	 * whole chunks for the file, then the buffered records' chunk. */
	size_t align, mem_align;
	uint8_t *out;
	size_t nout, out_cap;
};

/* The aligned buffer's size (whole pages, as aligned_alloc() asks): a
 * few EVENTS chunks, so that records from unaligned memory go out in
 * large writes. */
#define OUT_BYTES (5 * WRITER_BATCH * sizeof(struct mkm_event))
/* Memory alignment of out and the most a file system may ask for. */
#define DIRECT_MAX_ALIGN 4096u

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

static void chunk_hdr(uint8_t *hdr, uint32_t type, uint32_t index,
		      const void *a, size_t alen, const void *b, size_t blen)
{
	put32(hdr, type);
	put32(hdr + 4, (uint32_t)(alen + blen));
	put32(hdr + 8, index);
	put32(hdr + 12, mon_crc32c(chunk_crc(hdr, a, alen), b, blen));
}

/* Direct I/O refused after all (a short write, a file system that takes
 * the flag but not these writes): what is left goes out buffered. */
static void direct_off(struct trace_writer *w)
{
	int fl = fcntl(w->fd, F_GETFL);

	if (fl >= 0)
		fcntl(w->fd, F_SETFL, fl & ~O_DIRECT);
	w->align = 0;
}

/* Writes out's bytes and @b (@blen bytes, aligned like out, or none);
 * out is then empty. */
static int out_write(struct trace_writer *w, const void *b, size_t blen)
{
	struct iovec iov[2] = { { .iov_base = w->out, .iov_len = w->nout },
				{ .iov_base = (void *)b, .iov_len = blen } };
	int n = blen ? 2 : 1;
	ssize_t r;

	if (w->align) {
		do
			r = writev(w->fd, iov, n);
		while (r < 0 && errno == EINTR);
		if (r == (ssize_t)(w->nout + blen))
			goto done;
		if (r < 0 && errno != EINVAL)
			return w->err = -errno;
		direct_off(w);
		if (r > 0) { /* short: the rest, buffered */
			size_t skip = (size_t)r < w->nout ? (size_t)r : w->nout;

			iov[0].iov_base = w->out + skip;
			iov[0].iov_len -= skip;
			iov[1].iov_base = (char *)b + ((size_t)r - skip);
			iov[1].iov_len -= (size_t)r - skip;
		}
	}
	r = write_all(w->fd, iov, n);
	if (r)
		return w->err = (int)r;
done:
	w->nout = 0;
	return 0;
}

/*
 * A PAD chunk in out, so that out's bytes and @tail more end on the
 * alignment (a PAD is at least its header: 16 to align + 15 bytes).
 */
static void out_pad(struct trace_writer *w, size_t tail)
{
	size_t end = w->nout + tail, len;

	if (!w->align || !(end % w->align))
		return;
	len = w->align - end % w->align;
	if (len < CHUNK_HDR_SIZE)
		len += w->align;
	memset(w->out + w->nout + CHUNK_HDR_SIZE, 0, len - CHUNK_HDR_SIZE);
	chunk_hdr(w->out + w->nout, TRACE_CHUNK_PAD, w->index++,
		  w->out + w->nout + CHUNK_HDR_SIZE, len - CHUNK_HDR_SIZE, NULL,
		  0);
	w->nout += len;
}

/* Writes out's chunks, padded to the alignment. */
static int out_flush(struct trace_writer *w)
{
	if (!w->nout)
		return 0;
	out_pad(w, 0);
	return out_write(w, NULL, 0);
}

/* Room in out for @len more bytes and a PAD after them: out's chunks are
 * written first if they would not fit; out grows for a larger chunk. */
static int out_room(struct trace_writer *w, size_t len)
{
	size_t need = len + w->align + CHUNK_HDR_SIZE, cap;
	uint8_t *p;
	int err;

	if (w->nout + need <= w->out_cap)
		return 0;
	err = out_flush(w);
	if (err || need <= w->out_cap)
		return err;
	cap = (need + DIRECT_MAX_ALIGN - 1) / DIRECT_MAX_ALIGN *
	      DIRECT_MAX_ALIGN;
	p = aligned_alloc(DIRECT_MAX_ALIGN, cap);
	if (!p)
		return -ENOMEM;
	free(w->out);
	w->out = p;
	w->out_cap = cap;
	return 0;
}

/* A chunk whose payload is @a then @b (either may be empty). */
static int write_chunk2(struct trace_writer *w, uint32_t type, const void *a,
			size_t alen, const void *b, size_t blen)
{
	uint8_t hdr[CHUNK_HDR_SIZE];
	struct iovec iov[3] = { { .iov_base = hdr, .iov_len = sizeof(hdr) } };
	int n = 1;

	if (w->err)
		return w->err;
	if (alen + blen > CHUNK_MAX)
		return -EINVAL;
	if (w->align) { /* into out, written by the caller's out_flush() */
		uint8_t *p;

		w->err = out_room(w, CHUNK_HDR_SIZE + alen + blen);
		if (w->err)
			return w->err;
		p = w->out + w->nout;
		if (alen)
			memcpy(p + CHUNK_HDR_SIZE, a, alen);
		if (blen)
			memcpy(p + CHUNK_HDR_SIZE + alen, b, blen);
		chunk_hdr(p, type, w->index++, p + CHUNK_HDR_SIZE, alen + blen,
			  NULL, 0);
		w->nout += CHUNK_HDR_SIZE + alen + blen;
		return 0;
	}
	if (alen)
		iov[n++] = (struct iovec){ .iov_base = (void *)a,
					   .iov_len = alen };
	if (blen)
		iov[n++] = (struct iovec){ .iov_base = (void *)b,
					   .iov_len = blen };
	chunk_hdr(hdr, type, w->index, a, alen, b, blen);
	w->err = write_all(w->fd, iov, n);
	if (!w->err)
		w->index++;
	return w->err;
}

static int write_chunk(struct trace_writer *w, uint32_t type,
		       const void *payload, size_t len)
{
	return write_chunk2(w, type, payload, len, NULL, 0);
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

/*
 * Direct I/O where asked for and where the file system says how to align
 * it (statx's STATX_DIOALIGN, since Linux 6.1; tmpfs, /dev/null, pipes
 * and older kernels say nothing, and stay buffered).
 */
static void direct_on(struct trace_writer *w)
{
	struct statx st;
	int fl;

	if (statx(w->fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &st) ||
	    !(st.stx_mask & STATX_DIOALIGN) || !S_ISREG(st.stx_mode) ||
	    !st.stx_dio_offset_align ||
	    st.stx_dio_offset_align > DIRECT_MAX_ALIGN ||
	    st.stx_dio_offset_align % sizeof(struct mkm_event) ||
	    st.stx_dio_mem_align > DIRECT_MAX_ALIGN)
		return;
	w->out = aligned_alloc(DIRECT_MAX_ALIGN, OUT_BYTES);
	fl = fcntl(w->fd, F_GETFL);
	if (!w->out || fl < 0 || fcntl(w->fd, F_SETFL, fl | O_DIRECT) < 0) {
		free(w->out);
		w->out = NULL;
		return;
	}
	w->out_cap = OUT_BYTES;
	w->align = st.stx_dio_offset_align;
	w->mem_align = st.stx_dio_mem_align ? st.stx_dio_mem_align : 1;
}

int trace_writer_open(struct trace_writer **wp, const char *path,
		      const struct trace_info *info)
{
	return trace_writer_open_flags(wp, path, info, 0);
}

int trace_writer_open_flags(struct trace_writer **wp, const char *path,
			    const struct trace_info *info, unsigned int flags)
{
	uint8_t hdr[TRACE_HDR_SIZE] = { 0 }, payload[1024];
	struct iovec iov = { .iov_base = hdr, .iov_len = sizeof(hdr) };
	struct trace_writer *w;
	uint32_t abi[3], clock;
	size_t n = 0;
	int err;

	if (!wp || !path || !info || (flags & ~TRACE_WRITE_DIRECT))
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
	if (flags & TRACE_WRITE_DIRECT)
		direct_on(w);
	memcpy(hdr, TRACE_MAGIC, 8);
	put16(hdr + 8, info->flags & MKM_CONFIG_ONE_SWITCH ?
			       TRACE_MAJOR_SWITCH :
			       TRACE_MAJOR);
	put16(hdr + 10, TRACE_MINOR);
	put32(hdr + 12, TRACE_HDR_SIZE);
	put32(hdr + 28, mon_crc32c(0, hdr, 28));
	if (w->align) { /* goes out with INFO */
		memcpy(w->out, hdr, sizeof(hdr));
		w->nout = sizeof(hdr);
	} else {
		err = write_all(w->fd, &iov, 1);
		if (err)
			goto err_close;
	}

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
	if (info->trace_flags)
		n += tlv(payload + n, TAG_TRACE_FLAGS, &info->trace_flags, 4);
	n += tlv(payload + n, TAG_RING_BYTES, &info->ring_bytes, 8);
	n += tlv(payload + n, TAG_START_MONO, &info->start_mono_ns, 8);
	n += tlv(payload + n, TAG_START_REAL, &info->start_real_ns, 8);
	n += tlv_str(payload + n, TAG_HOSTNAME, info->hostname);
	n += tlv_str(payload + n, TAG_KERNEL, info->kernel);
	n += tlv_str(payload + n, TAG_MACHINE, info->machine);
	if (info->clock_res_ps)
		n += tlv(payload + n, TAG_CLOCK_RES, &info->clock_res_ps, 4);
	/* Readers before 1.6 take at most 8, and skip the other tag. */
	if (info->nr_monitor_tids &&
	    info->nr_monitor_tids <= TRACE_MAX_MONITOR_TIDS)
		n += tlv(payload + n,
			 info->nr_monitor_tids <= 8 ? TAG_MONITOR_TIDS :
						      TAG_MONITOR_TIDS_ALL,
			 info->monitor_tids, info->nr_monitor_tids * 4);
	if (info->node[0]) {
		uint32_t job[4] = { info->job_id, info->step_id, info->node_id,
				    info->nr_nodes };

		n += tlv_str(payload + n, TAG_NODE, info->node);
		n += tlv(payload + n, TAG_JOB, job, sizeof(job));
	}
	err = write_chunk(w, TRACE_CHUNK_INFO, payload, n);
	if (!err)
		err = out_flush(w);
	if (err)
		goto err_close;
	*wp = w;
	return 0;

err_close:
	close(w->fd);
	unlink(path);
err_free:
	free(w->out);
	free(w->buf);
	free(w);
	return err;
}

/* Direct: the chunk of the records buffered at out's end, closed there. */
static void direct_close(struct trace_writer *w)
{
	uint8_t *p = w->out + w->nout;
	size_t len = w->nbuf * sizeof(struct mkm_event);

	chunk_hdr(p, TRACE_CHUNK_EVENTS, w->index++, p + CHUNK_HDR_SIZE, len,
		  NULL, 0);
	w->nout += CHUNK_HDR_SIZE + len;
	w->events += w->nbuf;
	w->nbuf = 0;
}

bool trace_writer_direct(const struct trace_writer *w)
{
	return w && w->align;
}

/* An EVENTS chunk of the buffered records and @n more at @ev (none when
 * direct), then the horizon if it moved; the buffer is then empty. */
static int write_events(struct trace_writer *w, const struct mkm_event *ev,
			size_t n)
{
	int err;

	if (w->err)
		return w->err;
	if (w->align && w->nbuf) {
		direct_close(w);
	} else if (w->nbuf + n) {
		err = write_chunk2(w, TRACE_CHUNK_EVENTS, w->buf,
				   w->nbuf * sizeof(*ev), ev, n * sizeof(*ev));
		if (err)
			return err;
		w->events += w->nbuf + n;
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

static int flush_events(struct trace_writer *w)
{
	return write_events(w, NULL, 0);
}

static int buffered_events(struct trace_writer *w, const struct mkm_event *ev,
			   size_t n)
{
	int err;

	/* Only a batch too small to complete a chunk is buffered: the
	 * recorder's batches go out from where they are, the buffered
	 * records ahead of them in the first chunk and the rest of the
	 * batch in chunks of its own (copying every record was as much work
	 * as writing it out, in the recorder's CPU per record). */
	for (bool wrote = false; n; wrote = true) {
		size_t k = WRITER_BATCH - w->nbuf;

		if (!wrote && k > n) {
			memcpy(w->buf + w->nbuf, ev, n * sizeof(*ev));
			w->nbuf += n;
			break;
		}
		if (k > n)
			k = n;
		err = write_events(w, ev, k);
		if (err)
			return err;
		ev += k;
		n -= k;
	}
	return 0;
}

/*
 * Direct: the whole blocks of a batch in aligned memory go out from it,
 * in one chunk, behind out's chunks and its header; what is left, or a
 * batch elsewhere, is buffered at out's end.
 */
static int direct_events(struct trace_writer *w, const struct mkm_event *ev,
			 size_t n)
{
	const size_t per_block = w->align / sizeof(*ev),
		     most = CHUNK_MAX / sizeof(*ev) / per_block * per_block;
	size_t k;
	int err;

	while (n && w->align) {
		if (n >= per_block && !((uintptr_t)ev % w->mem_align)) {
			k = n / per_block * per_block;
			if (k > most)
				k = most;
			err = flush_events(w);
			if (!err)
				err = out_room(w, CHUNK_HDR_SIZE);
			if (err)
				return w->err = err;
			if (!w->align)
				break; /* the flush turned it off */
			out_pad(w, CHUNK_HDR_SIZE);
			chunk_hdr(w->out + w->nout, TRACE_CHUNK_EVENTS,
				  w->index++, ev, k * sizeof(*ev), NULL, 0);
			w->nout += CHUNK_HDR_SIZE;
			err = out_write(w, ev, k * sizeof(*ev));
			if (err)
				return err;
			w->events += k;
		} else {
			if (!w->nbuf) {
				err = out_room(w, CHUNK_HDR_SIZE +
							  WRITER_BATCH *
								  sizeof(*ev));
				if (err)
					return w->err = err;
				if (!w->align)
					break;
			}
			k = WRITER_BATCH - w->nbuf;
			if (k > n)
				k = n;
			memcpy(w->out + w->nout + CHUNK_HDR_SIZE +
				       w->nbuf * sizeof(*ev),
			       ev, k * sizeof(*ev));
			w->nbuf += k;
			if (w->nbuf == WRITER_BATCH)
				direct_close(w);
		}
		ev += k;
		n -= k;
	}
	return n ? buffered_events(w, ev, n) : 0;
}

int trace_writer_events(struct trace_writer *w, const struct mkm_event *ev,
			size_t n)
{
	if (!w || (n && !ev))
		return -EINVAL;
	if (w->err)
		return w->err;
	return w->align ? direct_events(w, ev, n) : buffered_events(w, ev, n);
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
	return err ? err : out_flush(w);
}

int trace_writer_threads(struct trace_writer *w, const struct trace_thread *t,
			 size_t n)
{
	return write_array(w, TRACE_CHUNK_THREADS, NULL, 0, t, sizeof(*t), n,
			   1u << 20);
}

int trace_writer_processes(struct trace_writer *w,
			   const struct trace_process *p, size_t n)
{
	return write_array(w, TRACE_CHUNK_PROCESSES, NULL, 0, p, sizeof(*p), n,
			   1u << 22);
}

int trace_writer_stats(struct trace_writer *w, const struct mkm_cpu_stats *s,
		       size_t nr_cpus)
{
	/*
	 * Each entry's first 32 bytes, as every reader of format 1 reads
	 * them (0 in the header); a flight recorder's counters stay out, its
	 * trace tells them in-band (LOST records of what was overwritten).
	 */
	uint32_t hdr[2] = { (uint32_t)nr_cpus, 0 };
	uint8_t *a;
	int err;

	if (!w || (nr_cpus && !s) || nr_cpus > 65536)
		return -EINVAL;
	a = malloc(nr_cpus * TRACE_STATS_SIZE_1_0 + 1);
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < nr_cpus; i++)
		memcpy(a + i * TRACE_STATS_SIZE_1_0, &s[i],
		       TRACE_STATS_SIZE_1_0);
	err = write_array(w, TRACE_CHUNK_STATS, hdr, sizeof(hdr), a,
			  TRACE_STATS_SIZE_1_0, nr_cpus, 65536);
	free(a);
	return err;
}

int trace_writer_calibration(struct trace_writer *w,
			     const struct trace_calibration_hdr *hdr,
			     const struct trace_calibration *c, size_t n)
{
	struct trace_calibration_hdr h;

	if (!hdr)
		return -EINVAL;
	h = *hdr;
	h.version = 1;
	h.nr_cpus = (uint32_t)n;
	return write_array(w, TRACE_CHUNK_CALIBRATION, &h, sizeof(h), c,
			   sizeof(*c), n, 65536);
}

int trace_writer_clock_sync(struct trace_writer *w,
			    const struct trace_clock_sync_hdr *hdr,
			    const struct trace_clock_sample *s, size_t n)
{
	struct trace_clock_sync_hdr h;

	if (!hdr || !n || !hdr->node[0])
		return -EINVAL;
	h = *hdr;
	h.version = 1;
	h.nr_samples = (uint32_t)n;
	h.node[sizeof(h.node) - 1] = 0;
	h.reference[sizeof(h.reference) - 1] = 0;
	return write_array(w, TRACE_CHUNK_CLOCK_SYNC, &h, sizeof(h), s,
			   sizeof(*s), n, 65536);
}

int trace_writer_nodes(struct trace_writer *w,
		       const struct trace_nodes_hdr *hdr,
		       const struct trace_node *nodes, size_t n)
{
	struct trace_nodes_hdr h;

	if (!hdr || !n)
		return -EINVAL;
	h = *hdr;
	h.version = 1;
	h.nr_nodes = (uint32_t)n;
	h.tid_shift = TRACE_NODE_TID_SHIFT;
	return write_array(w, TRACE_CHUNK_NODES, &h, sizeof(h), nodes,
			   sizeof(*nodes), n, TRACE_MAX_NODES);
}

int trace_writer_bounds(struct trace_writer *w, const struct trace_bounds *b,
			size_t n)
{
	struct trace_bounds_hdr h = {
		.version = 1,
		.nr_threads = (uint32_t)n,
		.nr_figures = TRACE_BOUND_FIGURES,
		.nr_parts = TRACE_BOUND_PARTS,
	};

	if (!b || !n)
		return -EINVAL;
	return write_array(w, TRACE_CHUNK_BOUNDS, &h, sizeof(h), b, sizeof(*b),
			   n, TRACE_MAX_BOUNDS);
}

int trace_writer_flush(struct trace_writer *w, int sync)
{
	int err;

	if (!w)
		return -EINVAL;
	err = flush_events(w);
	if (!err)
		err = out_flush(w);
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
	if (!err && w->align) { /* END last: the PAD before it */
		err = out_room(w, CHUNK_HDR_SIZE + sizeof(end));
		if (!err)
			out_pad(w, CHUNK_HDR_SIZE + sizeof(end));
	}
	if (!err) {
		end[0] = w->events;
		end[1] = w->index; /* chunks before END */
		err = write_chunk(w, TRACE_CHUNK_END, end, sizeof(end));
	}
	if (!err)
		err = out_flush(w);
	if (close(w->fd) < 0 && !err)
		err = -errno;
	free(w->out);
	free(w->buf);
	free(w);
	return err;
}
