#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# snapshot.sh - the guest half of make bench-flight-snapshot: how soon
# after its trigger a flight recorder's snapshot is complete, with both
# CPUs loaded by a spinner each (SCHED_OTHER) and examples/flight's worker
# stalled by them, ROUNDS times each with the writer at the caller's
# policy and at SCHED_FIFO 1 (--realtime 1). Prints a line per snapshot,
# "SNAPSHOT MODE COMPLETE WOKEN READ WRITTEN LOST" in ms; then, under the
# same spinners and no monitor, wakelat's line for a thread woken from the
# other CPU at each policy (the floor: "WAKELAT PRIO N MIN MEDIAN MAX
# OVER10").
set -u
cd /tmp || exit 1
rounds=${1:-3}

# A spinner on each CPU, until unspin.
spin() {
	for c in 0 1; do
		taskset -c $c sh -c 'while :; do :; done' &
		echo $! >>/tmp/s.spin
	done
}
unspin() {
	# shellcheck disable=SC2046 # one pid a word
	kill $(cat /tmp/s.spin)
	rm -f /tmp/s.spin
}

for mode in default realtime; do
	rt=
	[ $mode = realtime ] && rt="--realtime 1"
	i=0
	while [ $i -lt "$rounds" ]; do
		i=$((i + 1))
		rm -f /tmp/s.mkm*
		spin
		# shellcheck disable=SC2086 # $rt: no option or two words
		mkm record --no-calibrate $rt --flight 4M --events default,wakeup \
			--trigger 'runq>25ms' -o /tmp/s.mkm -- flight -t 1.5 -s 50 \
			>/dev/null 2>/tmp/s.err
		unspin
		sed -n 's/^mkm: wrote \(\/tmp\/s.mkm.[0-9]*\): .* complete \([0-9.]*\) ms after it.* (woken after \([0-9.]*\) ms, read in \([0-9.]*\), written in \([0-9.]*\)).*/\1 \2 \3 \4 \5/p' /tmp/s.err |
			while read -r f complete woken read written; do
				lost=$(mkm dump "$f" | grep -c LOST)
				echo "SNAPSHOT $mode $complete $woken $read $written $lost"
			done
	done
done
spin
for prio in 0 1; do
	wakelat -n 200 -p 20 -r $prio
done
unspin
