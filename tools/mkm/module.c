// SPDX-License-Identifier: GPL-2.0
/*
 * module.c - why there is no /dev/mkm, said in one line: the module is not
 * loaded, or this kernel loads only signed modules and refused an unsigned
 * one. Under Secure Boot, Debian's kernel locks itself down (integrity),
 * and then, as with module.sig_enforce=1, modprobe of a module signed by
 * no key the kernel trusts fails ("Key was rejected by service",
 * EKEYREJECTED; "Operation not permitted" under lockdown): the fix is
 * to enroll the key DKMS signs the module with, not to load it again.
 */
#include <stdio.h>
#include <string.h>

#include "libmonitor.h"

#include "messages.h"
#include "module.h"

/* The first line of path into buf, without its newline; 0 or -1. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

int kernel_signed_modules_only(char *buf, size_t len)
{
	char line[128];
	char *open, *close;

	/* "none [integrity] confidentiality": the mode in brackets. */
	if (read_line("/sys/kernel/security/lockdown", line, sizeof(line)) ==
	    0) {
		open = strchr(line, '[');
		close = open ? strchr(open, ']') : NULL;
		if (open && close && strncmp(open + 1, "none", 4)) {
			*close = '\0';
			snprintf(buf, len, "lockdown: %s", open + 1);
			return 1;
		}
	}
	if (read_line("/sys/module/module/parameters/sig_enforce", line,
		      sizeof(line)) == 0 &&
	    line[0] == 'Y') {
		snprintf(buf, len, "module.sig_enforce");
		return 1;
	}
	return 0;
}

void die_no_module(void)
{
	char why[64];

	if (kernel_signed_modules_only(why, sizeof(why)))
		die("%s: no such device: this kernel loads only signed modules (%s): if sudo modprobe mkm says \"Key was rejected by service\" or \"Operation not permitted\", enroll the key DKMS signed mkm.ko with (sudo mokutil --import /var/lib/dkms/mok.pub, confirmed at the next boot: README, \"Secure Boot\"), then sudo modprobe mkm",
		    MKM_DEVICE, why);
	die("%s: no such device: load the module: sudo modprobe mkm",
	    MKM_DEVICE);
}
