#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gen-syscalls.sh - writes syscalls_MACHINE.h, one machine's system call
# names by number, from the kernel's own UAPI header as Debian's
# linux-libc-dev ships it: x86_64's asm/unistd_64.h (generated from
# syscall_64.tbl), aarch64's asm/unistd.h (asm-generic's table, read through
# the cross compiler's preprocessor: its __NR3264_ names resolve to numbers
# only there; linux-libc-dev-arm64-cross). make syscalls runs it for each;
# the results are committed, so a build needs neither header.
#
#   libmonitor/src/gen-syscalls.sh x86_64|aarch64 >libmonitor/src/syscalls_MACHINE.h
set -eu
machine=${1:?usage: gen-syscalls.sh x86_64|aarch64}
case $machine in
x86_64)
	hdr=/usr/include/x86_64-linux-gnu/asm/unistd_64.h
	[ -r "$hdr" ] || { echo "gen-syscalls: $hdr: not found (linux-libc-dev)" >&2; exit 1; }
	defines() { cat "$hdr"; } ;;
aarch64)
	hdr=asm/unistd.h
	command -v aarch64-linux-gnu-gcc >/dev/null ||
		{ echo "gen-syscalls: no aarch64-linux-gnu-gcc (crossbuild-essential-arm64)" >&2; exit 1; }
	defines() { echo "#include <$hdr>" | aarch64-linux-gnu-gcc -E -dM -; } ;;
*) echo "gen-syscalls: no table for '$machine' (x86_64, aarch64)" >&2; exit 1 ;;
esac
echo "/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */"
echo "/* syscalls_$machine.h - $machine system call names by number, written by"
echo " * gen-syscalls.sh from $hdr (linux-libc-dev). */"
echo "static const char *const syscalls_$machine[] = {"
# "#define __NR_name VALUE", VALUE a number or another define's name
# (asm-generic's __NR3264_*); the table's bound (__NR_syscalls) left out.
defines | sed -n 's/^#define \(__NR[0-9]*_[a-z0-9_]*\)[ \t]\+\([A-Za-z0-9_]\+\)$/\1 \2/p' |
	awk '{ v[$1] = $2 }
	END {
		for (d in v) {
			if (d !~ /^__NR_/ || d == "__NR_syscalls" || d == "__NR_arch_specific_syscall")
				continue
			x = v[d]
			while (x in v) x = v[x]
			if (x ~ /^[0-9]+$/)
				print x, substr(d, 6)
		}
	}' | sort -n | awk '{ printf "\t[%d] = \"%s\",\n", $1, $2 }'
echo "};"
