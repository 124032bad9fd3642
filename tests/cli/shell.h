/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shell.h - what the command-line tests share: a command line's exit
 * status, and a file's text, whole.
 */
#ifndef MKM_TESTS_SHELL_H
#define MKM_TESTS_SHELL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

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

/* Runs a shell command line (printf-style); returns its exit status, or
 * 128 + the signal that ended it. Its output goes where it redirects. */
static inline int __attribute__((format(printf, 1, 2))) sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#endif /* MKM_TESTS_SHELL_H */
