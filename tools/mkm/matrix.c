// SPDX-License-Identifier: GPL-2.0
/* matrix.c - the CPU x thread matrix's cell, as mkm report and its noise
 * report print it. */

#include <stdio.h>

#include "matrix.h"

void print_acct_cell(const struct acct_cell *c, int width)
{
	char buf[32], cell[48];

	snprintf(cell, sizeof(cell), "%s (%llu)",
		 mon_fmt_ns(buf, sizeof(buf), c->run_ns),
		 (unsigned long long)c->dispatches);
	printf(" %*s", width, cell);
}
