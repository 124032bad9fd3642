// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * crc32c.c - the Castagnoli CRC that guards every trace chunk (the one
 * iSCSI, ext4 and btrfs use), slicing by 8.
 */
#include <pthread.h>

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
