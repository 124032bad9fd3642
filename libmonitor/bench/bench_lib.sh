#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench_lib.sh - make bench-lib: the timeline rebuild (bench_tl) with
# two-record and one-record switches; the analyses on the same trace, whole
# commands (mkm noise: the ranking and osnoise's table; mkm latency --why:
# every wakeup taken apart); then babeltrace2 reading the same events (mkm
# export -f ctf of the stream bench_tl rebuilt), and the ratio of the
# rebuild's speed to it, all in one run.
#
#   libmonitor/bench/bench_lib.sh BENCH_TL MKM WORKDIR [EVENTS]
#
# Times on a shared machine are noise: the ratio is taken on CPU time (the
# rebuild's median, babeltrace2's one run), which the time other jobs had
# the core does not inflate.
set -euo pipefail

bench_tl=$1 mkm=$2 dir=$3 events=${4:-12000000}
mkdir -p "$dir"
trace=$dir/bench_tl.mkm

"$bench_tl" -w "$trace" "$events" | tee "$dir/two.txt"
"$bench_tl" -1 "$events"

# Each analysis as a user runs it: the trace loaded, then the tables.
records=$(awk '/^bench-lib:/ { print $5 }' "$dir/two.txt")
for cmd in noise "latency --why"; do
	# shellcheck disable=SC2086 # the command's words
	/usr/bin/time -o "$dir/an.time" -f '%e %U %S %M' \
		"$mkm" $cmd "$trace" >"$dir/an.out"
	read -r wall user sys rss <"$dir/an.time"
	awk -v c="mkm $cmd:" -v n="$records" -v w="$wall" -v u="$user" \
		-v s="$sys" -v m="$rss" 'BEGIN {
		printf "  %-20s%.2f s CPU (%.2f s wall, %.0f MiB) over these " \
			"%d records: %.2f M records/s\n", c, u + s, w, m / 1024,
			n, n / (u + s) / 1e6 }'
done

if ! command -v babeltrace2 >/dev/null; then
	echo "  babeltrace2:      not installed (make deps): no comparison"
	exit 0
fi
rm -rf "$dir/bench_tl.ctf"
if ! "$mkm" export -f ctf "$trace" -o "$dir/bench_tl.ctf" 2>"$dir/export.log"; then
	cat "$dir/export.log" >&2
	exit 1
fi
/usr/bin/time -o "$dir/bt2.time" -f '%e %U %S' \
	babeltrace2 -o dummy "$dir/bench_tl.ctf"
read -r wall user sys <"$dir/bt2.time"
# bench_tl's line: "on CPU time: R M events/s median of 5, ..."
rate=$(awk '/on CPU time:/ { print $4 }' "$dir/two.txt")
awk -v n="$records" -v r="$rate" -v w="$wall" -v u="$user" -v s="$sys" \
	'BEGIN {
		cpu = u + s
		printf "  babeltrace2:      %.2f s CPU (%.2f s wall) reading the CTF " \
			"export of these %d records: %.2f M records/s\n",
			cpu, w, n, n / cpu / 1e6
		printf "  vs babeltrace2:   the rebuild %.1f x as fast on CPU time " \
			"(goal >= 10)\n", r * 1e6 / (n / cpu)
	}'
