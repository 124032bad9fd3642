// SPDX-License-Identifier: GPL-2.0
/*
 * array.c - the exporters' arrays indexed by a CPU or thread number, grown
 * as numbers appear in the stream (a trace's header may say fewer CPUs
 * than its records use, and threads come and go).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int array_grow(void *arrp, size_t *nr, size_t index, size_t size)
{
	void **arr = arrp;
	size_t want = index + 1;
	char *p;

	if (index < *nr)
		return 0;
	/* at least doubling: numbers often come one by one */
	if (want < *nr * 2)
		want = *nr * 2;
	p = realloc(*arr, want * size);
	if (!p)
		return -ENOMEM;
	memset(p + *nr * size, 0, (want - *nr) * size);
	*arr = p;
	*nr = want;
	return 0;
}
