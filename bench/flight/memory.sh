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
kb() { sed -n "s/^$1: *\([0-9]*\) kB/\1/p" "$2"; }
mkm record --no-calibrate --flight 16M --events default,wakeup \
	-o /tmp/m.mkm -- flight -t "$secs" -p "$period" -s 1 >/tmp/m.out 2>/tmp/m.err &
rec=$!
sleep 2
printf '%6s %10s %16s %16s %10s %10s\n' s records/s "recorder RSS kB" "VmallocUsed kB" "Slab kB" snapshots
t=0
while kill -0 $rec 2>/dev/null && [ $t -lt "$secs" ]; do
	mkm trigger /tmp/m.mkm 2>/dev/null || true
	sleep 1
	n=$(grep -c '^mkm: wrote /tmp/m.mkm' /tmp/m.err || true)
	rm -f /tmp/m.mkm.[0-9]*
	# The last snapshot's rate: its records over the time they span.
	rate=$(sed -n 's/^mkm: wrote [^:]*: \([0-9]*\) records, \([0-9.]*\) ms before the trigger and \([0-9.]*\) ms after.*/\1 \2 \3/p' /tmp/m.err |
		tail -n1 | awk '{ if ($2 + $3 > 0) printf "%d", $1 / (($2 + $3) / 1000); else print 0 }')
	printf '%6d %10s %16s %16s %10s %10d\n' $t "${rate:-0}" \
		"$(kb VmRSS /proc/$rec/status)" "$(kb VmallocUsed /proc/meminfo)" \
		"$(kb Slab /proc/meminfo)" "$n"
	sleep $((every - 1))
	t=$((t + every))
done
wait $rec || true
tail -n 2 /tmp/m.err
