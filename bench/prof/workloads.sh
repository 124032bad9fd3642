#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# workloads.sh - does a monitored switch cost the same instructions in
# every program? Compensation takes one calibrated cost per record kind
# out of every workload (docs/compensation.md): this checks that
# assumption, function by function, on bench-compensation's workloads.
#
#   bench/prof/workloads.sh [ROUNDS [WORKLOAD...]]
#
# One boot of bench-compensation's image (one vCPU, -icount) with tbprof
# (windows.sh). Each workload (pingpong, and stress-ng's switch, pipe and
# futex stressors by default; hackbench too) runs unmonitored, then under mkm record
# writing to /dev/null (the kernel's write of the trace is
# bench-profile-recorder's), each at ROUNDS (default 10000) and twice as
# many operations, so that the command's start and the recording's setup
# cancel out. cb_taskstats counts the workload's switches. workloads.py
# prints, per workload, the instructions the monitor added per extra
# context switch, per function.
# Environment: BUILD, CB_IMAGE.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
case $build in /*) ;; *) build=$top/$build ;; esac
rounds=${1:-10000}
shift || true
workloads=${*:-pingpong switch pipe futex}
dir=$build/bench/prof/workloads
rm -rf "$dir"
mkdir -p "$dir/out"

command_of() {
	case $1 in
	pingpong) echo "cb_pingpong -r $2 -o /tmp/truth" ;;
	switch | pipe | futex) echo "stress-ng -q --$1 1 --$1-ops $2" ;;
	# 160 processes: ROUNDS/250 loops, 40 at the default.
	hackbench) echo "hackbench -g 4 -l $(($2 / 250))" ;;
	*) echo "workloads.sh: unknown workload $1" >&2; exit 1 ;;
	esac
}

# The windows are numbered in the order they run: per workload,
# unmonitored at ROUNDS and 2 x ROUNDS, then monitored at both.
{
	echo "set -e"
	# A huge page's clearing, 2 MB at once where a mapping happens to
	# line up, would weigh hundreds of instructions a switch in one
	# window and none in the next.
	echo "echo never >/sys/kernel/mm/transparent_hugepage/enabled"
	echo "cd /tmp"
	echo ". /bench/listen.sh"
	n=0
	for w in $workloads; do
		echo "$(command_of "$w" 1000) >/dev/null"
		for run in unmon mon; do
			rec=
			[ $run = unmon ] || rec="mkm record --no-calibrate -o /dev/null --"
			for r in $rounds $((2 * rounds)); do
				n=$((n + 1))
				echo "sleep 0.2; listen $n"
				echo "mark open; $rec $(command_of "$w" "$r") >/dev/null 2>>/out/$w.txt; mark close"
				echo "unlisten"
			done
		done
	done
	echo "cat /proc/kallsyms >/out/kallsyms"
} >"$dir/guest.sh"
BUILD=$build "$top/bench/prof/windows.sh" "$dir"
# shellcheck disable=SC2086 # the workloads are a list
python3 "$top/bench/prof/workloads.py" "$dir/out" $workloads
