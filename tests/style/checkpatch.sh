#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.sh DIR - runs the kernel's checkpatch.pl --no-tree over the kernel
# code in DIR. checkpatch.pl comes from Debian's linux-source-6.1, fetched once
# into the cache (not installed).
set -euo pipefail

dir=${1:?usage: checkpatch.sh DIR}
cache=${MKM_CACHE:-$HOME/.cache/mkm}
tool=$cache/checkpatch

if [ ! -x "$tool/checkpatch.pl" ]; then
	mkdir -p "$tool"
	deb=$(ls "$cache"/linux-source-6.1_*.deb 2>/dev/null | tail -n 1 || true)
	if [ -z "$deb" ]; then
		echo "checkpatch: fetching linux-source-6.1 into $cache" >&2
		(cd "$cache" && apt-get download -q linux-source-6.1 >/dev/null 2>&1)
		deb=$(ls "$cache"/linux-source-6.1_*.deb | tail -n 1)
	fi
	# checkpatch looks for its data files next to itself.
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO ./usr/src/linux-source-6.1.tar.xz |
		tar -xJ -C "$tool" --strip-components=2 \
			linux-source-6.1/scripts/checkpatch.pl \
			linux-source-6.1/scripts/spelling.txt \
			linux-source-6.1/scripts/const_structs.checkpatch
	chmod +x "$tool/checkpatch.pl"
fi

# ring_user.h is userspace glue, not kernel code.
files=$(find "$dir" -name '*.[ch]' ! -name ring_user.h | sort)
rc=0
# An out-of-tree module builds against every kernel DKMS gives it, so it
# tests LINUX_VERSION_CODE (written as the kernel's own code writes it).
# sensor.c lists its probes once as an X-macro (expanded into the table
# and the prototype check), which checkpatch takes for a complex value.
out=$("$tool/checkpatch.pl" --no-tree --quiet --terse --show-types \
	--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON,COMPLEX_MACRO,TRAILING_SEMICOLON \
	-f $files) || rc=$?
printf '%s\n' "$out" | grep -v '^total: 0 errors, 0 warnings' || true
exit $rc
