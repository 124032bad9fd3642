#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memory.sh - the guest half of make bench-flight-memory: a flight
# recorder left on for SECONDS over examples/flight's worker woken every
# PERIOD_US (with the wakeup class: three records a wakeup), a snapshot
# asked for every EVERY seconds with mkm trigger and removed once written.
# Prints, every EVERY seconds, the records a second the monitor counted,
# the recorder's RSS and the guest's vmalloc and slab: flat after the
# first snapshot if nothing leaks (docs/performance.md, "A flight recorder").
set -eu
cd /tmp
secs=${1:-600} period=${2:-15} every=${3:-30}
kb() { sed -n "s/^$1:[[:space:]]*\([0-9]*\) kB/\1/p" "$2"; }
mkm record --no-calibrate --flight 16M --events default,wakeup \
	-o /tmp/m.mkm -- flight -t "$secs" -p "$period" -s 1 >/tmp/m.out 2>/tmp/m.err &
rec=$!
sleep 2
printf '%6s %10s %16s %16s %10s %10s\n' s records/s "recorder RSS kB" "VmallocUsed kB" "Slab kB" snapshots
t=0
while kill -0 $rec 2>/dev/null && [ $t -lt "$secs" ]; do
	before=$(grep -c '^mkm: wrote /tmp/m.mkm' /tmp/m.err || true)
	mkm trigger /tmp/m.mkm 2>/dev/null || true
	# Until the snapshot is written (its line), 20 s at most.
	w=0 n=$before
	while [ "$n" = "$before" ] && [ $w -lt 20 ]; do
		sleep 1
		w=$((w + 1))
		n=$(grep -c '^mkm: wrote /tmp/m.mkm' /tmp/m.err || true)
	done
	# Its rate: its records over the time they span (mkm report's
	# first line: "FILE: 812.3 ms, ..., 81234 events, ...").
	last=/tmp/m.mkm.$n
	rate=$([ -s "$last" ] && mkm report "$last" 2>/dev/null | head -n1 |
		awk -F', ' '{ split($1, d, ": "); ms = d[2] + 0; ev = $4 + 0; if (ms > 0) printf "%d", ev / (ms / 1000) }')
	rm -f "$last"
	printf '%6d %10s %16s %16s %10s %10d\n' $t "${rate:-0}" \
		"$(kb VmRSS /proc/$rec/status)" "$(kb VmallocUsed /proc/meminfo)" \
		"$(kb Slab /proc/meminfo)" "$n"
	[ $w -lt "$every" ] && sleep $((every - w))
	t=$((t + every))
done
wait $rec || true
tail -n 2 /tmp/m.err
