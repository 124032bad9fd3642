#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# checkpatch.sh DIR - runs the kernel's checkpatch.pl --no-tree over the kernel
# code in DIR. checkpatch.pl comes from Debian's linux-source-6.1, fetched once
# into the cache (not installed).
set -euo pipefail

dir=${1:?usage: checkpatch.sh DIR}
cache=${MKM_CACHE:-$HOME/.cache/mkm}
tool=$cache/checkpatch

if [ ! -x rc=0
out=$("$tool/checkpatch.pl" --no-tree --quiet --terse --show-types -f $files) || rc=$?
printf '%s\n' "$out" | grep -v '^total: 0 errors, 0 warnings' || true
exit $rc
