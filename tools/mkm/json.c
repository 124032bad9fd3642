// SPDX-License-Identifier: GPL-2.0
/* json.c - what the commands' JSON output shares. */

#include <stdio.h>

#include "json.h"

void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}
