#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_view.sh - mkm view through a real terminal: tmux runs it at a known
# size, keys go in with send-keys, and each screen (capture-pane) must
# equal the expected one in tests/view/screens/. UPDATE=1 writes them
# instead (then read every one before committing it).
#
#   tests/view/test_view.sh MKM MKTRACE WORKDIR
set -euo pipefail

mkm=$(realpath "$1") mktrace=$(realpath "$2") dir=$3
here=$(cd "$(dirname "$0")" && pwd)
screens=$here/screens
sock=
mkdir -p "$dir"
dir=$(realpath "$dir")
"$mktrace" small "$dir/small.mkm"
# The same compensated by mkm replay: its bounds in a BOUNDS chunk.
"$mkm" replay "$dir/small.mkm" -o "$dir/replayed.mkm" >/dev/null
# The same, recorded 50 ms after its recording's start: times count from
# the start, in the viewer as in mkm dump and export.
"$mktrace" late "$dir/late.mkm"
# A system-wide trace of a remote wakeup that waited: the wakeup pane.
"$mktrace" why "$dir/why.mkm"
# The same compensated with small's calibration: the bounds of a
# system-wide trace, whose CPUs' idle tasks have none.
"$mkm" replay --calibration "$dir/small.mkm" "$dir/why.mkm" \
	-o "$dir/why_comp.mkm" >/dev/null
# The same with records of CPU 0 lost in waker's run: its bounds not known.
"$mktrace" why-lost "$dir/why_lost.mkm"
"$mkm" replay --calibration "$dir/small.mkm" "$dir/why_lost.mkm" \
	-o "$dir/why_lost_comp.mkm" >/dev/null
# Two processes attached (-p), one forking a thread and a process.
"$mktrace" procs "$dir/procs.mkm"
# More threads than rows on screen: where the user's place can be lost.
"$mktrace" big "$dir/many.mkm" 20000 40
# A trace cut inside its last chunks: what precedes the cut is shown.
head -c $(($(stat -c %s "$dir/small.mkm") - 100)) "$dir/small.mkm" >"$dir/cut.mkm"
# mkm merge of job 77's three node traces, each CPU's two threads taking
# turns: threads grouped by node.
rm -rf "$dir/job"
mkdir "$dir/job"
"$mktrace" job "$dir/job" busy
"$mkm" merge "$dir/job" -o "$dir/job.mkm" >/dev/null

tmux_() { tmux -L "$sock" -f /dev/null "$@"; }
trap '[ -z "$sock" ] || tmux_ kill-server 2>/dev/null || true' EXIT

# The screen once it stops changing (the viewer redraws after each key).
settle() {
	local a b i
	a=$(tmux_ capture-pane -p $CAPTURE -t t)
	for ((i = 0; i < 50; i++)); do
		sleep 0.1
		b=$(tmux_ capture-pane -p $CAPTURE -t t)
		[ "$a" = "$b" ] && [ -n "$(tr -d ' \n' <<<"$b")" ] && break
		a=$b
	done
	printf '%s\n' "$b"
}

fail=0 n=0
# check NAME COLSxLINES FILE [KEYS...]: each KEYS argument is sent, then
# the screen settles; a "resize:COLSxLINES" argument resizes the window.
# CAPTURE=-e keeps the attributes and colours (as escape sequences).
check() {
	local name=$1 size=$2 file=$3 got
	shift 3
	# A server of its own: nothing left over from the screen before.
	[ -z "$sock" ] || tmux_ kill-server 2>/dev/null || true
	sock=mkm-view-test-$$-$n
	tmux_ new-session -d -s t -x "${size%x*}" -y "${size#*x}" \
		"env LANG=C.UTF-8 TERM=screen $VIEW_ENV $mkm view $file; echo \"exit status \$?\"; sleep 30"
	settle >/dev/null
	for k in "$@"; do
		case $k in
		resize:*) k=${k#resize:}
			tmux_ resize-window -t t -x "${k%x*}" -y "${k#*x}" ;;
		*) tmux_ send-keys -t t "$k" ;;
		esac
		settle >/dev/null
	done
	got=$(settle | sed 's/[[:space:]]*$//')
	n=$((n + 1))
	if [ -n "${UPDATE:-}" ]; then
		printf '%s\n' "$got" >"$screens/$name.txt"
		echo "test_view: wrote $name"
	elif ! diff -u "$screens/$name.txt" - <<<"$got" >"$dir/$name.diff"; then
		echo "FAIL  view/$name (expected vs got: $dir/$name.diff)"
		cat "$dir/$name.diff"
		fail=$((fail + 1))
	else
		echo "PASS  view/$name"
	fi
}

mkdir -p "$screens"
cd "$dir"
VIEW_ENV= CAPTURE=
check open 100x24 small.mkm
# K: the compensated timeline with its figures' bounds. main's runq and
# run and worker-a's are wide (the kernel's split of the switches), their
# rows marked; worker-b's within 1%, not marked. The selected thread's
# figures, bounds, widths and parts above the detail lines, and what is
# not in them (the split of its switches from idle, no WAKEUP records).
check compensated 100x24 small.mkm K
check bounds_narrow 100x24 small.mkm K j
# K again: the raw timeline, no bounds. --ascii marks a wide row with +.
check bounds_raw 100x24 small.mkm K K
check bounds_ascii 100x24 "--ascii small.mkm" K
# A short screen: the pane in half of the rows' place, cut.
check bounds_short 100x16 small.mkm K
# A replayed trace: its BOUNDS chunk's, the same; K says it is compensated.
check bounds_replayed 100x24 replayed.mkm j j K
# Under the wakeup pane, in the rest of half of the rows' place; a CPU's
# idle task, with no bounds, unmarked and said so.
check bounds_why 100x30 why_comp.mkm j '>' . . .
check bounds_idle 100x24 why_comp.mkm j j j j
# Records lost in waker's life: narrow as its bounds are, they are not
# known, marked ? (--ascii too) and said so in its pane.
check bounds_unknown 100x24 why_lost_comp.mkm
check bounds_unknown_ascii 100x24 "--ascii why_lost_comp.mkm"
# The play, at once: the end is the compensated view, said ended.
check play 100x24 "--play --speed 0 small.mkm"
check zoom_in 100x24 small.mkm + +
check pan 100x24 small.mkm + + d d
check fit 100x24 small.mkm + + d 0
check cursor_detail 100x24 small.mkm '>' '>' '>' '>'
check metering 100x24 small.mkm '>' '>' A '>' '>' '>' B
check metering_pane 100x24 small.mkm '>' '>' A '>' '>' '>' B m
check zoom_to_meter 100x24 small.mkm '>' '>' A '>' '>' '>' B z
check search 100x24 small.mkm / worker-b Enter
check search_none 100x24 small.mkm / nobody Enter
check next_switch 100x24 small.mkm j n n
check prev_switch 100x24 small.mkm j G N
check next_lost 100x24 small.mkm L
check next_mark 100x24 small.mkm M
check next_flutter 100x24 small.mkm ]
check events 100x24 small.mkm j j '>' '>' '>' '>' '>' '>' e
check late_origin 100x24 late.mkm j j '>' '>' '>' '>' '>' '>' e
check noise 100x24 small.mkm j i
# Threads that took time are named by tid too: comms alone repeat.
check noise_tids 100x24 many.mkm i
# Follow the waker: worker-b, woken at 2 ms by main; main, at 5 ms by
# worker-a (^L shows the detail line: the waker selected at the wakeup);
# worker-a's last wake is in a LOST gap; b goes back.
check waker 100x24 small.mkm j '>' '>' '>' '>' W
check waker_chain 100x24 small.mkm '>' '>' '>' '>' '>' W C-l
check waker_lost 100x24 small.mkm j j G W
check waker_back 100x24 small.mkm j '>' '>' '>' '>' W '>' b
check waker_none 100x24 small.mkm b
# The critical path of main at the end: its run and wait after worker-a
# woke it at 5 ms, and before that worker-a's run, interrupt and wait;
# underlined in the rows (the escape sequences of CAPTURE=-e show it).
check path 100x24 small.mkm G P
CAPTURE=-e check path_underlined 100x24 small.mkm G P
check path_closed 100x24 small.mkm G P P
# Inside worker-a's disk wait, whose end is still to come: the wait so far.
check path_asleep 100x24 small.mkm j j '>' '>' '>' '>' '>' P
check path_cpus 100x24 small.mkm Tab P
check longer_than 100x24 small.mkm j T 1.5ms Enter
# Why a wakeup waited: with the cursor in wakee's wait after waker woke it
# from CPU 0, the pane above the detail lines takes it apart (the IPI's
# way to CPU 1, holder that ran to the tick, overtaker that went first,
# the handlers); on its switch-in (n) the same; in the events pane, with
# its SWITCH_IN at >; on a shorter screen the parts it cannot show are
# counted; none in a run, nor in a wait after a preemption (holder's).
check why 100x24 why.mkm j '>' . . .
check why_switch_in 100x24 why.mkm j n
check why_events 100x24 why.mkm j n e
check why_short 100x16 why.mkm j '>' . . .
check why_none 100x24 why.mkm j n '>' '>'
check why_preempted 100x24 why.mkm j j G N N N
check hide_sort 100x24 small.mkm H o o
check collapse 100x24 small.mkm + + + + d d d d d d c
check cpus 100x24 small.mkm Tab
# The CPUs view first selects the selected thread's CPU; Tab back keeps
# the thread selected, and the rows scrolled as they were.
check cpus_of_thread 100x24 small.mkm j j Tab
check tab_back 100x24 many.mkm PgDn j j j Tab j Tab
# After a sort the first rows are shown (by run queue: the longest waits).
check sort_top 100x24 many.mkm PgDn PgDn o o o o
# By process: a process's threads together (700's 701 and 702 before 800).
check sort_process 100x24 procs.mkm o o o o o
check cpu_gap 100x24 small.mkm Tab j '>' '>' '>' '>' '>' '>'
check cpu_events 100x24 small.mkm Tab j '>' '>' '>' '>' '>' '>' '>' '>' '>' '>' '>' e
check help 100x45 small.mkm '?'
# A merged trace: a header row per node (name, threads, CPUs; selected,
# the detail line says more), its threads under it by their own tid.
# Space folds the selected row's node to its header, and unfolds it; a
# sort (by name) orders each node's threads; the CPUs view groups each
# node's CPUs (their own numbers) under its header, and Space folds there.
check nodes 100x24 job.mkm
check nodes_fold 100x24 job.mkm j Space
check nodes_fold_two 100x24 job.mkm Space j Space
check nodes_unfold 100x24 job.mkm j Space Space
check nodes_sort 100x24 job.mkm j j j j j Space o
check nodes_cpus 100x24 job.mkm Tab
check nodes_cpus_detail 100x24 job.mkm Tab j j j j '>'
check nodes_cpus_fold 100x24 job.mkm Tab Space
check resize 100x24 small.mkm resize:72x16
check too_small 20x5 small.mkm
check cut_trace 100x24 cut.mkm
check ascii 100x24 "--ascii small.mkm"
VIEW_ENV=TERM=dumb check dumb 100x24 small.mkm
check quit 100x24 small.mkm q

echo "test_view: $((n - fail)) of $n screens as expected"
[ "$fail" -eq 0 ]
