// SPDX-License-Identifier: GPL-2.0
/* pb.c - protocol buffers' wire format into a growable buffer (pb.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pb.h"

#define PB_LEN_RESERVE 4

static uint8_t *room(struct pb *b, size_t n)
{
	if (b->err)
		return NULL;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->buf, cap);
		if (!p) {
			b->err = -ENOMEM;
			return NULL;
		}
		b->buf = p;
		b->cap = cap;
	}
	return b->buf + b->len;
}

size_t pb_varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

void pb_varint(struct pb *b, uint64_t v)
{
	uint8_t *p = room(b, 10);

	if (p)
		b->len += put_varint(p, v);
}

void pb_tag(struct pb *b, unsigned int field, enum pb_wire wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

void pb_uint(struct pb *b, unsigned int field, uint64_t v)
{
	pb_tag(b, field, PB_VARINT);
	pb_varint(b, v);
}

void pb_int(struct pb *b, unsigned int field, int64_t v)
{
	pb_tag(b, field, PB_VARINT);
	pb_varint(b, (uint64_t)v);
}

void pb_bytes(struct pb *b, unsigned int field, const void *s, size_t n)
{
	uint8_t *p;

	pb_tag(b, field, PB_LEN);
	pb_varint(b, n);
	p = room(b, n);
	if (p && n) {
		memcpy(p, s, n);
		b->len += n;
	}
}

void pb_string(struct pb *b, unsigned int field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

size_t pb_begin(struct pb *b, unsigned int field)
{
	uint8_t *p;

	pb_tag(b, field, PB_LEN);
	p = room(b, PB_LEN_RESERVE);
	if (p)
		b->len += PB_LEN_RESERVE;
	return b->len;
}

void pb_end(struct pb *b, size_t mark)
{
	size_t n, k;
	uint8_t *len;

	if (b->err)
		return;
	n = b->len - mark;
	if (n >> 28) {
		b->err = -EMSGSIZE;
		return;
	}
	len = b->buf + mark - PB_LEN_RESERVE;
	k = put_varint(len, n);
	if (k < PB_LEN_RESERVE) {
		memmove(len + k, b->buf + mark, n);
		b->len -= PB_LEN_RESERVE - k;
	}
}

void pb_free(struct pb *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}
