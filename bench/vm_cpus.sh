#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm_cpus.sh - in the guest (make bench-cpus): stress-ng's switch stressor,
# one worker (a pair of processes ping-ponging over a pipe) per CPU,
# unmonitored and under `mkm record`, alternately.
#
#   vm_cpus [SECONDS] [RUNS]
#
# Writes one line per measurement to /out/vm_cpus.tsv:
#   cpus run config seconds switches records lost recorder_ms
# switches: the bogo ops stress-ng counted (messages its pairs passed) over
# its own run time (seconds); records and lost: what mkm record wrote and
# what its rings dropped (its closing lines); recorder_ms: the recorder's
# own CPU time. The guest runs without -icount (an SMP guest cannot), so
# the rates are compared within the boot only.
set -eu
cd /tmp
t=${1:-5}
runs=${2:-3}
cpus=$(nproc)
out=/out/vm_cpus.tsv
log=/tmp/vm_cpus.log
echo "# cpus run config seconds switches records lost recorder_ms" >$out

# "switches seconds" from stress-ng's metrics line for the switch stressor.
metrics() {
	awk '/metrc:/ && $4 == "switch" && $5 ~ /^[0-9]+$/ { print $5, $6 }' "$1"
}

r=1
while [ $r -le "$runs" ]; do
	stress-ng --switch "$cpus" -t "${t}s" --metrics-brief >$log 2>&1
	echo "$cpus $r none $(metrics $log | awk '{ print $2, $1 }') 0 0 0" >>$out
	mkm record -o /dev/shm/vm_cpus.mkm --no-calibrate -- \
		stress-ng --switch "$cpus" -t "${t}s" --metrics-brief >$log 2>&1
	sed -n '/^mkm:/p' $log
	m=$(metrics $log)
	rec=$(sed -n 's/^mkm: recorder: \([0-9.]*\) ms CPU for \([0-9]*\) events.*/\2 \1/p' $log)
	lost=$(sed -n 's/^mkm: WARNING: \([0-9]*\) events lost.*/\1/p' $log)
	echo "$cpus $r mkm $(echo "$m" | awk '{ print $2, $1 }') ${rec%% *} ${lost:-0} ${rec##* }" >>$out
	rm -f /dev/shm/vm_cpus.mkm
	r=$((r + 1))
done
cat $out
