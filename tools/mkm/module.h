/* SPDX-License-Identifier: GPL-2.0 */
/* module.h - why there is no /dev/mkm, said in one line. */
#ifndef MKM_MODULE_H
#define MKM_MODULE_H

#include <stddef.h>

/*
 * What a kernel that loads only signed modules says of itself, into buf
 * ("lockdown: integrity", "module.sig_enforce"): 1 if it does, 0 if not
 * (or it cannot tell).
 */
int kernel_signed_modules_only(char *buf, size_t len);

/* "mkm: /dev/mkm: no such device: ..." with what to do, then exit 1. */
void die_no_module(void) __attribute__((noreturn));

#endif /* MKM_MODULE_H */
