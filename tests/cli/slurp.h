/* SPDX-License-Identifier: GPL-2.0 */
/* slurp.h - what the command-line tests share: a file's text, whole. */
#ifndef MKM_TESTS_SLURP_H
#define MKM_TESTS_SLURP_H

#include <stdio.h>

/* The file at @path (up to 1 MiB; "" if it cannot be read), in a static
 * buffer that the next call reuses. */
static inline char *slurp(const char *path)
{
	static char buf[1 << 20];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	buf[0] = 0;
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	return buf;
}

#endif /* MKM_TESTS_SLURP_H */
