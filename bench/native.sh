#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# native.sh - bench-native: the sensor's hot path in userspace, timed (median
# ns per event over 7 runs) and counted by callgrind (instructions per event,
# a figure that does not depend on the machine's load).
#
#   bench/native.sh NATIVE-BINARY EVENTS
set -euo pipefail

bin=${1:?usage: native.sh NATIVE-BINARY EVENTS}
n=${2:-20000000}
# callgrind runs some 50 times slower; its count is exact on fewer events.
cg_n=$((n / 20 > 200000 ? 200000 : (n / 20 > 1000 ? n / 20 : 1000)))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bin" -n "$n" -r 7 >"$tmp/times"
{
	head -1 "$tmp/times" | sed 's/$/    instr\/event/'
	tail -n +2 "$tmp/times" | while read -r name rest; do
		ir=-
		if command -v valgrind >/dev/null &&
			valgrind --tool=callgrind --toggle-collect="bench_$name" \
				--callgrind-out-file="$tmp/cg.$name" \
				"$bin" -c "$name" -n "$cg_n" -r 1 >/dev/null 2>&1; then
			# Events collected: the warm-up (n / 10) and one run (n).
			ir=$(awk -v n="$cg_n" '/^(summary|totals):/ { printf "%.1f", $2 / (n + int(n / 10)); exit }' "$tmp/cg.$name")
		fi
		printf '%-8s %s %14s\n' "$name" "$rest" "$ir"
	done
} | sed '1s/^/\n/' >"$tmp/table"
echo "bench-native: $n events per run, median of 7 runs; instructions per event from callgrind ($cg_n events)"
cat "$tmp/table"
command -v valgrind >/dev/null || echo "(no valgrind: make deps installs it)"
