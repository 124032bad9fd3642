/* SPDX-License-Identifier: GPL-2.0 */
/* messages.h - what mkm says on stderr: one line, "mkm: " first. */
#ifndef MKM_MESSAGES_H
#define MKM_MESSAGES_H

/* Prints "mkm: ..." and a newline on stderr. */
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same, then exits with status 1 (2 for usage errors: die_usage,
 * which adds " (mkm --help)"). */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void die_usage(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

#endif /* MKM_MESSAGES_H */
