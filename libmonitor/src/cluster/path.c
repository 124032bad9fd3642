// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * path.c - a node's trace path from a template (srun --mkm-output's):
 * %j job, %s step, %N node name, %n node index, %% a %.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

int mon_node_path(char *buf, size_t len, const char *tmpl, uint32_t job_id,
		  uint32_t step_id, const char *node, uint32_t node_id)
{
	size_t n = 0;
	const char *p;

	if (!buf || !len || !tmpl || !node || strchr(node, '/'))
		return -EINVAL;
	for (p = tmpl; *p; p++) {
		char piece[24];
		const char *add = piece;
		size_t k;

		if (*p != '%') {
			piece[0] = *p;
			piece[1] = 0;
		} else {
			switch (*++p) {
			case 'j':
				snprintf(piece, sizeof(piece), "%" PRIu32,
					 job_id);
				break;
			case 's':
				snprintf(piece, sizeof(piece), "%" PRIu32,
					 step_id);
				break;
			case 'n':
				snprintf(piece, sizeof(piece), "%" PRIu32,
					 node_id);
				break;
			case 'N':
				add = node;
				break;
			case '%':
				strcpy(piece, "%");
				break;
			default: /* an unknown one, or a % at the end */
				return -EINVAL;
			}
		}
		k = strlen(add);
		if (n + k >= len)
			return -ENAMETOOLONG;
		memcpy(buf + n, add, k);
		n += k;
	}
	buf[n] = 0;
	return 0;
}
