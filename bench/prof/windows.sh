#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# windows.sh - one boot of bench-compensation's image (one vCPU, -icount)
# with tbprof (tbprof.c) and mark (mark.c), running DIR/guest.sh: the
# windows it marks land in DIR/out/window.N, the rest of its /out beside
# them, the boot's log in DIR/log. recorder.sh and workloads.sh write the
# guest script.
#
#   bench/prof/windows.sh DIR [QEMU-ARG...]
#
# Environment: BUILD, CB_IMAGE.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
case $build in /*) ;; *) build=$top/$build ;; esac
dir=${1:?usage: $0 DIR [QEMU-ARG...]}
shift

flock /tmp/mkm-vm.lock "$top/tests/vm/run.sh" -s 1 \
	-i "${CB_IMAGE:-$build/bench/compensation/initramfs.cpio.gz}" \
	-f "$build/bench/prof/mark:/bin/mark" -c "$dir/guest.sh" \
	-o "$dir/out" -l "$dir/log" -t 1200 \
	-- -icount shift=1,sleep=on \
	-plugin "$build/bench/prof/tbprof.so,out=$dir/out/window" "$@"
