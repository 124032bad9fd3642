// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * clocksync.c - clock exchanges between a node and the reference node
 * (mon_cluster.h): Score-P's ping-pong, shortest of N round trips, with
 * the bound causality gives, over any connected stream socket.
 *
 * A message is 32 bytes, little-endian:
 *   u32 magic "MKMC", u32 type (1 request, 2 end, 3 reply), u32 seq,
 *   u32 0, u64 a, u64 b
 * a request carries t1 in a (for a reader of a capture: the reference
 * does not use it); a reply carries t2 (request received) and t3 (reply
 * sent), both on the reference's clock. Sockets get TCP_NODELAY: Nagle's
 * algorithm would hold a request back and lengthen every round trip.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/timex.h>
#include <unistd.h>

#include "internal.h"

#define MSG_MAGIC 0x434d4b4du /* "MKMC" */
#define MSG_SIZE 32
#define MSG_REQUEST 1u
#define MSG_END 2u
#define MSG_REPLY 3u
#define MAX_ROUNDS 65536u

struct msg {
	uint32_t magic, type, seq, zero;
	uint64_t a, b;
};

_Static_assert(sizeof(struct msg) == MSG_SIZE, "clock message size");

static uint64_t mono(void *arg)
{
	(void)arg;
	return now_ns(CLOCK_MONOTONIC);
}

/* Whole messages only: 0 at a clean end of stream between messages. */
static int read_msg(int fd, struct msg *m)
{
	size_t done = 0;

	while (done < MSG_SIZE) {
		ssize_t n = read(fd, (char *)m + done, MSG_SIZE - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return done ? -EPROTO : 0;
		done += (size_t)n;
	}
	return 1;
}

static int write_msg(int fd, const struct msg *m)
{
	size_t done = 0;

	while (done < MSG_SIZE) {
		ssize_t n = send(fd, (const char *)m + done, MSG_SIZE - done,
				 MSG_NOSIGNAL);

		if (n < 0 && errno == ENOTSOCK)
			n = write(fd, (const char *)m + done, MSG_SIZE - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EPIPE ? -ECONNRESET : -errno;
		done += (size_t)n;
	}
	return 0;
}

/* TCP_NODELAY where it means something (not on a socketpair or pipe). */
static void no_delay(int fd)
{
	int one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

long mon_clock_serve(int fd, mon_clock_fn clock, void *arg)
{
	long served = 0;

	if (fd < 0)
		return -EINVAL;
	if (!clock)
		clock = mono;
	no_delay(fd);
	for (;;) {
		struct msg m, r = { .magic = MSG_MAGIC, .type = MSG_REPLY };
		int ret = read_msg(fd, &m);
		uint64_t t2 = clock(arg);

		if (ret <= 0)
			return ret < 0 ? ret : served;
		if (m.magic != MSG_MAGIC ||
		    (m.type != MSG_REQUEST && m.type != MSG_END))
			return -EPROTO;
		if (m.type == MSG_END)
			return served;
		r.seq = m.seq;
		r.a = t2;
		r.b = clock(arg);
		ret = write_msg(fd, &r);
		if (ret)
			return ret;
		served++;
	}
}

int mon_clock_ntp_state(struct trace_clock_sample *s)
{
	struct timex tx = { .modes = 0 };
	int state;

	if (!s)
		return -EINVAL;
	state = adjtimex(&tx);
	if (state < 0)
		return -errno;
	s->flags |= TRACE_CLOCK_NTP_KNOWN;
	if (state != TIME_ERROR && !(tx.status & STA_UNSYNC))
		s->flags |= TRACE_CLOCK_NTP_SYNCED;
	s->ntp_status = (uint32_t)tx.status;
	s->ntp_freq = tx.freq;
	s->ntp_maxerror_us = tx.maxerror > UINT32_MAX ? UINT32_MAX :
							(uint32_t)tx.maxerror;
	s->ntp_esterror_us = tx.esterror > UINT32_MAX ? UINT32_MAX :
							(uint32_t)tx.esterror;
	return 0;
}

int mon_clock_exchange(int fd, unsigned int rounds, uint32_t kind,
		       mon_clock_fn clock, void *arg,
		       struct trace_clock_sample *out)
{
	uint64_t best = UINT64_MAX;
	unsigned int i;

	if (fd < 0 || !out || rounds > MAX_ROUNDS)
		return -EINVAL;
	if (!rounds)
		rounds = MON_CLOCK_ROUNDS;
	if (!clock)
		clock = mono;
	memset(out, 0, sizeof(*out));
	no_delay(fd);
	for (i = 0; i < rounds; i++) {
		struct msg q = { .magic = MSG_MAGIC,
				 .type = MSG_REQUEST,
				 .seq = i },
			   r;
		uint64_t t1, t4, rtt;
		int ret;

		t1 = clock(arg);
		q.a = t1;
		ret = write_msg(fd, &q);
		if (!ret)
			ret = read_msg(fd, &r);
		t4 = clock(arg);
		if (ret == 0)
			return -ECONNRESET;
		if (ret < 0)
			return ret;
		if (r.magic != MSG_MAGIC || r.type != MSG_REPLY || r.seq != i ||
		    r.b < r.a || t4 < t1)
			return -EPROTO;
		/* The reference's own time between receiving and replying
		 * is no part of the network's round trip. */
		rtt = (t4 - t1) - (r.b - r.a);
		if (rtt > t4 - t1)
			return -EPROTO;
		if (rtt < best) {
			best = rtt;
			out->local_ns = t1 + (t4 - t1) / 2;
			out->offset_ns =
				((int64_t)(r.a - t1) + (int64_t)(r.b - t4)) / 2;
			out->rtt_ns = rtt;
		}
	}
	/* theta lies in [t3 - t4, t2 - t1], rtt wide; +1 ns for the
	 * clocks' resolution and the halving's rounding. */
	out->error_ns = (out->rtt_ns + 1) / 2 + 1;
	out->taken_real_ns = now_ns(CLOCK_REALTIME);
	out->kind = kind;
	out->rounds = rounds;
	mon_clock_ntp_state(out);
	return 0;
}

int mon_clock_end(int fd)
{
	struct msg m = { .magic = MSG_MAGIC, .type = MSG_END };

	return fd < 0 ? -EINVAL : write_msg(fd, &m);
}

int mon_clock_listen(uint16_t *port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6,
				  .sin6_addr = IN6ADDR_ANY_INIT };
	socklen_t len = sizeof(a);
	int fd, one = 1, zero = 0;

	if (!port)
		return -EINVAL;
	a.sin6_port = htons(*port);
	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Both IPv4 and IPv6 peers; a restarted job may reuse the port. */
	(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1024) ||
	    getsockname(fd, (struct sockaddr *)&a, &len)) {
		int err = -errno;

		close(fd);
		return err;
	}
	*port = ntohs(a.sin6_port);
	return fd;
}

static int try_connect(const struct addrinfo *ai)
{
	int fd;

	for (; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0)
			continue;
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen)) {
			no_delay(fd);
			return fd;
		}
		close(fd);
	}
	return -errno;
}

int mon_clock_connect(const char *host, uint16_t port, unsigned int timeout_ms)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV },
			*ai;
	uint64_t until = now_ns(CLOCK_MONOTONIC) + timeout_ms * 1000000ull;
	char service[8];
	int fd;

	if (!host || !port)
		return -EINVAL;
	snprintf(service, sizeof(service), "%u", port);
	if (getaddrinfo(host, service, &hints, &ai))
		return -EHOSTUNREACH;
	for (;;) {
		fd = try_connect(ai);
		if (fd >= 0 || (fd != -ECONNREFUSED && fd != -ENETUNREACH) ||
		    now_ns(CLOCK_MONOTONIC) >= until)
			break;
		poll(NULL, 0, 50); /* the reference may not listen yet */
	}
	freeaddrinfo(ai);
	if (fd == -ECONNREFUSED && timeout_ms)
		fd = -ETIMEDOUT;
	return fd;
}
