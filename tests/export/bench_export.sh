#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench_export.sh - mkm export's throughput per format (records/s, peak
# memory), side by side with mkm report on the same .mkm file, and
# babeltrace2 reading the CTF export against mkm report (the same events:
# the comparison with a peer reader), on mktrace's generated trace.
#
#   tests/export/bench_export.sh MKM MKTRACE WORKDIR [EVENTS] [THREADS]
set -euo pipefail

mkm=$(realpath "$1") mktrace=$(realpath "$2") dir=$3
events=${4:-10000000} threads=${5:-100}
mkdir -p "$dir"
trace=$dir/bench.mkm
"$mktrace" big "$trace" "$events" "$threads"

# run NAME CMD...: the best of three runs' wall time, and its peak RSS
declare -A secs
run() {
	local name=$1 best= kb= t m i
	shift
	for i in 1 2 3; do
		# wall time to the ns (time(1)'s is to 10 ms), its peak RSS
		t=$(date +%s.%N)
		/usr/bin/time -o "$dir/time" -f '%M' "$@" >/dev/null 2>&1
		t=$(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
		read -r m <"$dir/time"
		if [ -z "$best" ] || awk "BEGIN { exit !($t < $best) }"; then
			best=$t kb=$m
		fi
	done
	secs[$name]=$best
	awk -v n="$name" -v t="$best" -v m="$kb" -v e="$events" \
		'BEGIN { r = t > 0 ? e / t : 0
			printf "  %-26s %7.2f s %9.0f records/s %7.1f MiB peak\n", n, t, r, m / 1024 }'
}

echo "bench-export: $events records, $threads threads, 8 CPUs ($(du -h "$trace" | cut -f1) .mkm)"
run "mkm report" "$mkm" report "$trace"
run "mkm dump" "$mkm" dump "$trace"
for f in perfetto ctf paraver otf2; do
	run "mkm export -f $f" "$mkm" export -f "$f" "$trace" -o "$dir/bench.$f"
done
run "babeltrace2 (CTF export)" babeltrace2 -o dummy "$dir/bench.ctf"
awk -v r="${secs[mkm report]}" -v b="${secs[babeltrace2 (CTF export)]}" \
	'BEGIN { printf "  babeltrace2 / mkm report on the same events: %.1fx\n", b / r }'
for f in perfetto ctf paraver otf2; do
	awk -v r="${secs[mkm report]}" -v x="${secs[mkm export -f $f]}" -v f="$f" \
		'BEGIN { printf "  export -f %s / mkm report: %.2fx the time\n", f, x / r }'
done
