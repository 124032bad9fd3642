/* SPDX-License-Identifier: GPL-2.0 */
/* matrix.h - the CPU x thread matrix's cell, as mkm report and its noise
 * report print it. */
#ifndef MKM_MATRIX_H
#define MKM_MATRIX_H

#include "libmonitor.h"

/* Prints a CPU x thread matrix's cell, "time run (dispatches)",
 * right-aligned in @width columns after a space. */
void print_acct_cell(const struct acct_cell *c, int width);

#endif /* MKM_MATRIX_H */
