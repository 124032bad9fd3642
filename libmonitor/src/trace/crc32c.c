// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * crc32c.c - the Castagnoli CRC that guards every trace chunk (the one
 * iSCSI, ext4 and btrfs use): the CPU's own crc32 instruction where it has
 * one (x86-64 with SSE4.2, as the kernel's crc32c-intel), else slicing by 8.
 *
 * The recorder checksums every record it writes, so this is on its hot
 * path: slicing by 8 takes about 100 instructions a 32-byte record, the
 * instruction 4, and that difference was a large share of the recorder's
 * CPU per record. Both give the same value; the unit tests compare them
 * on every length and alignment.
 */
#include <pthread.h>
#include <stdbool.h>

#include "trace/format.h"

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

/* crc32c slicing by 8, on the inverted crc. */
static uint32_t crc_soft(uint32_t crc, const uint8_t *p, size_t len)
{
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
	return crc;
}

#if defined(__x86_64__)
/* The SSE4.2 crc32 instruction computes exactly this polynomial
 * (reflected 0x1EDC6F41), on the inverted crc as well. */
__attribute__((target("sse4.2"))) static uint32_t
crc_hard(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t c = crc;

	/* Four words a turn: a record (32 bytes) is then four crc32q with
	 * their loads folded in and one loop test, not four (the recorder
	 * checksums every record it writes, on its hot path). */
	while (len >= 32) {
		uint64_t v0, v1, v2, v3;

		__builtin_memcpy(&v0, p, 8);
		__builtin_memcpy(&v1, p + 8, 8);
		__builtin_memcpy(&v2, p + 16, 8);
		__builtin_memcpy(&v3, p + 24, 8);
		c = __builtin_ia32_crc32di(c, v0);
		c = __builtin_ia32_crc32di(c, v1);
		c = __builtin_ia32_crc32di(c, v2);
		c = __builtin_ia32_crc32di(c, v3);
		p += 32;
		len -= 32;
	}
	while (len >= 8) {
		uint64_t v;

		__builtin_memcpy(&v, p, 8); /* little-endian, any alignment */
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		len -= 8;
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return (uint32_t)c;
}

static bool have_hard;

static void crc_setup(void)
{
	crc_init();
	__builtin_cpu_init();
	have_hard = __builtin_cpu_supports("sse4.2");
}
#else
static const bool have_hard;

static uint32_t crc_hard(uint32_t crc, const uint8_t *p, size_t len)
{
	return crc_soft(crc, p, len);
}

static void crc_setup(void)
{
	crc_init();
}
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;

/* crc32c; crc is the value returned for earlier bytes. */
uint32_t mon_crc32c(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&once, crc_setup);
	return ~(have_hard ? crc_hard(~crc, buf, len) :
			     crc_soft(~crc, buf, len));
}

/* The table's result whatever the CPU has (the unit tests compare). */
uint32_t mon_crc32c_soft(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&once, crc_setup);
	return ~crc_soft(~crc, buf, len);
}

bool mon_crc32c_hard(void)
{
	pthread_once(&once, crc_setup);
	return have_hard;
}
