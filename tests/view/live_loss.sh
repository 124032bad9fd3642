#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# live_loss.sh - the guest half of make bench-view-live: the same workload
# recorded by mkm record and by mkm view --live (under tmux), with rings
# small enough to lose events, N times each, alternating; prints the lost
# counts. The viewer must not lose more: the recording's runner thread
# writes the file whatever the screen does (docs/viewer.md).
set -eu
cd /tmp
export HOME=/tmp TERM=screen LC_ALL=C.UTF-8
runs=${1:-5} ring=${2:-16K}
t() { tmux -f /dev/null "$@"; }
lost() { mkm report "$1" 2>/dev/null | sed -n '1s/.* \([0-9]*\) lost.*/\1/p'; }

printf 'run  record-lost  view-lost  (rings of %s per CPU)\n' "$ring"
i=1 sum_r=0 sum_v=0
while [ $i -le "$runs" ]; do
	mkm record --buffer-size "$ring" -o /tmp/r.mkm -- cli_workload /tmp/r.ss 2>/dev/null
	rm -f /tmp/v.done
	t new-session -d -s v -x 100 -y 24 \
		"TERM=screen mkm view --ascii --live --buffer-size $ring -o /tmp/v.mkm -- cli_workload /tmp/v.ss 2>/dev/null; touch /tmp/v.done; sleep 30"
	n=0
	until t capture-pane -p -t v | grep -q 'recording ended'; do
		n=$((n + 1)); [ $n -lt 600 ] || { echo "live_loss: no end"; exit 1; }
		sleep 0.1
	done
	t send-keys -t v q
	until [ -e /tmp/v.done ]; do sleep 0.1; done
	t kill-server
	r=$(lost /tmp/r.mkm) v=$(lost /tmp/v.mkm)
	printf '%3d  %11s  %9s\n' "$i" "$r" "$v"
	sum_r=$((sum_r + r)) sum_v=$((sum_v + v))
	i=$((i + 1))
done
printf 'sum  %11d  %9d\n' "$sum_r" "$sum_v"
