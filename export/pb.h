/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pb.h - protocol buffers' wire format, written by hand (Perfetto's
 * exporter): varints, tags, length-delimited fields into a growable buffer.
 *
 * A nested message reserves four bytes for its length (pb_begin()) and
 * pb_end() writes the length in as few bytes as it needs, moving the
 * content back: the output is the canonical encoding protoc would write.
 * Four bytes hold lengths below 2^28: messages are kept far smaller.
 */
#ifndef MKM_EXPORT_PB_H
#define MKM_EXPORT_PB_H

#include <stddef.h>
#include <stdint.h>

enum pb_wire { PB_VARINT = 0, PB_LEN = 2 };

struct pb {
	uint8_t *buf;
	size_t len, cap;
	int err; /* -ENOMEM once an append failed; later ones do nothing */
};

void pb_varint(struct pb *b, uint64_t v);
void pb_tag(struct pb *b, unsigned int field, enum pb_wire wire);
/* uint32/uint64/int32 >= 0/bool/enum fields: one varint */
void pb_uint(struct pb *b, unsigned int field, uint64_t v);
/* int32/int64 fields (not sint): negative values take ten bytes */
void pb_int(struct pb *b, unsigned int field, int64_t v);
void pb_bytes(struct pb *b, unsigned int field, const void *p, size_t n);
void pb_string(struct pb *b, unsigned int field, const char *s);
/* Opens a nested message; returns the mark pb_end() takes. */
size_t pb_begin(struct pb *b, unsigned int field);
void pb_end(struct pb *b, size_t mark);
/* Bytes a varint of @v takes. */
size_t pb_varint_len(uint64_t v);
void pb_free(struct pb *b);

#endif /* MKM_EXPORT_PB_H */
