#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# live_vm.sh - a VM test (check-vm): mkm view --live under tmux while a
# workload runs. The screen must update as the workload runs, say when the
# recording ended, and the trace on disk must be whole: every event the
# recorder counted, and an END chunk (mkm report reads it without a
# warning). Then a flight recorder's live view: examples/flight's stall
# shown once its snapshot is written, the cursor on its trigger.
set -eu
cd /tmp
# tmux insists on a UTF-8 locale (the image carries C.UTF-8).
export HOME=/tmp TERM=screen LC_ALL=C.UTF-8
t() { tmux -f /dev/null "$@"; }
screen() { t capture-pane -p -t live; }
shows() { screen | grep -q "$1"; }
# Until "$@" succeeds, for at most $1 seconds: counted by the clock, not
# by tries, which take seconds each on the debug kernel under emulation.
within() {
	end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# 150 short sleeps, each a new process: switches, forks, exits, reaps.
t new-session -d -s live -x 100 -y 24 \
	"TERM=screen mkm view --ascii --live -o /tmp/live.mkm -- sh -c 'i=0; while [ \$i -lt 150 ]; do sleep 0.02; i=\$((i+1)); done' 2>/tmp/live.err; echo \"exit \$?\" >/tmp/live.exit; sleep 60"
within 120 shows '^mkm view  /tmp/live.mkm' ||
	{ screen; cat /tmp/live.err /tmp/live.exit; echo "live: no viewer"; exit 1; }
first=$(screen | head -1)
sleep 1
second=$(screen | head -1)
echo "live: $first"
echo "live: $second"
# The header's duration and thread count grow while it records.
[ "$first" != "$second" ] || { screen; echo "live: the screen did not update"; exit 1; }
within 180 shows 'recording ended' ||
	{ screen; echo "live: the recording never ended"; exit 1; }
screen
t send-keys -t live q
within 30 test -s /tmp/live.exit || { echo "live: q did not quit"; exit 1; }
t kill-server
cat /tmp/live.err
grep -q '^exit 0' /tmp/live.exit || { echo "live: mkm view failed"; exit 1; }
events=$(sed -n 's/^mkm: wrote .*: \([0-9]*\) events.*/\1/p' /tmp/live.err)
dumped=$(mkm dump /tmp/live.mkm 2>/tmp/dump.err | grep -o 'seq=[0-9,]*' | tr , '\n' | grep -c .)
echo "live: recorder counted $events events, the file holds $dumped"
[ -s /tmp/dump.err ] && { cat /tmp/dump.err; echo "live: the trace is damaged"; exit 1; }
[ "$events" = "$dumped" ] || { echo "live: events missing from the file"; exit 1; }
mkm report /tmp/live.mkm >/tmp/report.out 2>&1
grep -q 'showing what precedes it' /tmp/report.out && { cat /tmp/report.out; exit 1; }
head -3 /tmp/report.out

t new-session -d -s live -x 100 -y 24 \
	"TERM=screen mkm view --ascii --live --flight 4M --trigger 'runq>25ms' --no-calibrate -o /tmp/lf.mkm -- sh -c 'exec flight -t 1.5 -s 50 >/tmp/lf.out 2>&1' 2>/tmp/lf.err; echo \"exit \$?\" >/tmp/lf.exit; sleep 60"
within 120 shows '^mkm view  /tmp/lf.mkm' ||
	{ screen; cat /tmp/lf.err /tmp/lf.exit; echo "live flight: no viewer"; exit 1; }
# The snapshot's rows, the stall's hog among them.
within 120 shows '^[0-9]* hog ' ||
	{ screen; cat /tmp/lf.err; echo "live flight: no snapshot shown"; exit 1; }
screen
within 180 shows 'recording ended' ||
	{ screen; echo "live flight: the recording never ended"; exit 1; }
t send-keys -t live q
within 30 test -s /tmp/lf.exit || { echo "live flight: q did not quit"; exit 1; }
t kill-server
cat /tmp/lf.err
grep -q '^exit 0' /tmp/lf.exit || { echo "live flight: mkm view failed"; exit 1; }
grep -q 'snapshots\{0,1\} written' /tmp/lf.err || { echo "live flight: no snapshot counted"; exit 1; }
[ ! -e /tmp/lf.mkm ] && [ -s /tmp/lf.mkm.1 ] || { echo "live flight: no lf.mkm.1, or lf.mkm written"; exit 1; }
echo "live: ok"
