#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# snapshot_vm.sh - make bench-flight-snapshot: a flight recorder's snapshot
# latency on a loaded 2-vCPU guest whose time follows its instructions:
# Debian's arm64 kernel NAME in qemu-system-aarch64 under -icount (an
# x86-64 guest of two vCPUs does not come up under -icount here; arm64's
# does), bench/flight/snapshot.sh in it. Prints, for the writer at the
# caller's policy and at SCHED_FIFO 1, the snapshots, the least, median
# and most time to a complete file, how many took over 10 ms (the goal),
# the latest wakeup of the writer (ms from the trigger) and LOST records.
#
#   snapshot_vm.sh [-n NAME] [-r ROUNDS]   (default 6.12, 3)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
case $build in /*) ;; *) build=$top/$build ;; esac
name=6.12 rounds=3
while getopts "n:r:" opt; do
	case $opt in
	n) name=$OPTARG ;;
	r) rounds=$OPTARG ;;
	*) echo "usage: $0 [-n NAME] [-r ROUNDS]" >&2; exit 2 ;;
	esac
done
kernels=("$top/tests/kernel/kernels.sh" -a arm64)
release=$("${kernels[@]}" list | awk -v n="$name" '$1 == n { print $2 }')
[ -n "$release" ] || { echo "bench: no kernel '$name' in tests/kernel/matrix-arm64" >&2; exit 1; }
dir=$build/bench/flight-snapshot/$release
mkdir -p "$dir"
"${kernels[@]}" fetch -n "$name"
"${kernels[@]}" build "$name" "$dir/mkm" || { cat "$dir/mkm/build.log" >&2; exit 1; }
"$top/tests/vm/mkinitramfs.sh" -A arm64 -o "$dir/initramfs.cpio.gz" -m "$dir/mkm/mkm.ko" \
	-f "$build/arm64/tools/mkm:/bin/mkm" -f "$build/arm64/examples/flight:/bin/flight" \
	-f "$build/arm64/bench/flight_wakelat:/bin/wakelat" \
	-f "$top/bench/flight/snapshot.sh:/bin/flight_snapshot"
echo "sh /bin/flight_snapshot $rounds" >"$dir/cmd.sh"
BUILD=$build "$top/tests/vm/run.sh" -A arm64 -k "$("${kernels[@]}" image "$name")" \
	-i "$dir/initramfs.cpio.gz" -c "$dir/cmd.sh" -s 2 -l "$dir/run.log" -t 1800 \
	-- -icount shift=1,sleep=on >"$dir/run.report" || { cat "$dir/run.report" >&2; exit 1; }
echo "== flight snapshots, arm64 $release, 2 vCPUs, -icount shift=1, a spinner on each CPU"
grep -a '^ *SNAPSHOT ' "$dir/run.log" | tr -d '\r' | sort -k2,2 -k3,3n | awk '
function stat(a, n) { return sprintf("%.1f / %.1f / %.1f", a[1], a[int((n + 1) / 2)], a[n]) }
function flush() {
	if (!n) return
	printf "%-9s %9d %26s %10d %12.1f %6d\n", mode, n, stat(c, n), late, woken, lost
}
$2 != mode { flush(); mode = $2; n = 0; late = 0; lost = 0; woken = 0 }
{ c[++n] = $3; late += $3 > 10; lost += $7; if ($4 > woken) woken = $4 }
END {
	flush()
}' | { printf "%-9s %9s %26s %10s %12s %6s\n" writer snapshots "complete ms (min/med/max)" "over 10 ms" "woken max ms" LOST; cat; }
echo "== the floor: a thread woken from the other CPU by a pipe, no monitor, the same spinners"
grep -a '^ *WAKELAT ' "$dir/run.log" | tr -d '\r' | awk '
{ printf "%-9s %9d %26s %10d\n", $2 ? "fifo " $2 : "default", $3, sprintf("%.1f / %.1f / %.1f", $4, $5, $6), $7 }' |
	{ printf "%-9s %9s %26s %10s\n" waiter wakeups "woken ms (min/med/max)" "over 10 ms"; cat; }
