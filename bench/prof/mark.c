// SPDX-License-Identifier: GPL-2.0
/*
 * mark.c - opens or closes a window of tbprof's profile (tbprof.c) from a
 * guest shell script: "mark open", then the commands to profile, then
 * "mark close".
 */
#include <string.h>

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "open"))
		__asm__ volatile("xchg %%rbx,%%rbx" ::: "memory");
	else if (argc == 2 && !strcmp(argv[1], "close"))
		__asm__ volatile("xchg %%rcx,%%rcx" ::: "memory");
	else
		return 2;
	return 0;
}
