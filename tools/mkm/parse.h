/* SPDX-License-Identifier: GPL-2.0 */
/* parse.h - the values the options of mkm's commands take: thread ids,
 * times, speeds (sizes: mon_parse_size()). Each dies (usage) naming the
 * option when its argument is malformed. */
#ifndef MKM_PARSE_H
#define MKM_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* The most tids a --tid/--threads list takes. */
#define MAX_TIDS 4096

/* A comma-separated list of thread ids (option @opt's argument @s) into
 * @tids (room for @max). Return: how many. */
size_t parse_tid_list(const char *opt, const char *s, uint32_t *tids,
		      size_t max);

/* mon_parse_time() of option @opt's argument @s; the message names the
 * units when it is not a time. */
int64_t parse_time_arg(const char *opt, const char *s);

/* A playing speed: a factor > 0, or 0 for no waiting. */
double parse_speed(const char *s);

#endif /* MKM_PARSE_H */
