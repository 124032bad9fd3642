#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# recorder.sh - where mkm record's own instructions go, per function, kernel
# and user space: the recorder's CPU a recorded event, which its goal of 2%
# of the CPU at 100,000 events/s bounds.
#
#   bench/prof/recorder.sh [ROUNDS]
#
# One boot of bench-compensation's image (one vCPU, -icount) with tbprof:
# cb_pingpong -r ROUNDS (default 20000) unmonitored, then under mkm record
# writing to the guest's tmpfs, then writing to /dev/null (the kernel's
# write of the trace apart), then to an ext4 file system on a virtio disk,
# with direct I/O (as bench-compensation records). Address space layout
# randomisation is off in the guest, so mkm's addresses are its file's:
# recorder.py names them with the host's binary (the same file) and
# prints, per recorded event, what each recording added over the
# unmonitored run. Its calibration is left out (--no-calibrate): mkm
# record's report counts from the resume on.
# Environment: BUILD, CB_IMAGE, and CB_BUFFER (mkm record --buffer-size).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
case $build in /*) ;; *) build=$top/$build ;; esac
rounds=${1:-20000}
dir=$build/bench/prof/recorder
rm -rf "$dir"
mkdir -p "$dir/out"

rec="mkm record --no-calibrate --buffer-size ${CB_BUFFER:-64M}"
# Each run twice, at ROUNDS and at twice as many: the difference is what
# the extra rounds cost, the recording's setup (its rings, the command's
# start) cancelling out.
{
	echo "set -e"
	echo "echo 0 >/proc/sys/kernel/randomize_va_space"
	echo "cd /tmp"
	echo "cb_pingpong -r 2000 -o /tmp/warm >/dev/null"
	for r in $rounds $((2 * rounds)); do
		echo "mark open; cb_pingpong -r $r -o /tmp/t >/dev/null; mark close"
	done
	for out in tmpfs null disk; do
		case $out in
		tmpfs) file=/tmp/p.mkm ;;
		null) file=/dev/null ;;
		disk) file=/disk/p.mkm; echo ". /bench/disk.sh; mount_disk /disk" ;;
		esac
		for r in $rounds $((2 * rounds)); do
			echo "mark open"
			echo "$rec -o $file -- sh -c 'cat /proc/\$PPID/maps >/out/maps; exec cb_pingpong -r $r -o /tmp/t' >/dev/null 2>>/out/$out.txt"
			echo "mark close"
			[ $out = null ] || echo "rm -f $file"
		done
	done
	echo "cat /proc/kallsyms >/out/kallsyms"
} >"$dir/guest.sh"
mke2fs -q -F -t ext4 "$dir/disk" 1G
BUILD=$build "$top/bench/prof/windows.sh" "$dir" \
	-drive "file=$dir/disk,if=virtio,format=raw,cache=unsafe"
rm -f "$dir/disk"
python3 "$top/bench/prof/recorder.py" --mkm "$build/tools/mkm" "$dir/out"
