#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test_export.sh - mkm export, checked by readers nobody here wrote: each
# format of each test trace is decoded by its own tools and compared with
# mkm dump or mkm report of the same trace: test_perfetto.py (protoc),
# test_ctf.py (babeltrace2's Python bindings), test_paraver.py (the .prv's
# grammar, state totals against mkm report), test_otf2.py (otf2-print,
# otf2-marker). A merged trace of three nodes (mktrace job, mkm merge)
# too: Paraver's and OTF2's node hierarchies checked against mkm report's
# nodes (test_paraver.py, test_otf2.py). Then the cuts (--threads, --from/--to) and bad input: a
# cut, corrupt or empty trace, an unknown format, an output that cannot be
# written (nothing left behind).
#
#   tests/export/test_export.sh MKM MKTRACE WORKDIR
set -euo pipefail

mkm=$(realpath "$1") mktrace=$(realpath "$2") dir=$3
here=$(cd "$(dirname "$0")" && pwd)
# Debian's python: python3-bt2 is installed for it, not for another one.
py=/usr/bin/python3
fail=0 n=0
mkdir -p "$dir"
dir=$(realpath "$dir")
rm -rf "${dir:?}"/*

ok() { n=$((n + 1)); echo "ok $n - $*"; }
bad() { n=$((n + 1)); echo "not ok $n - $*"; fail=1; }

# mkm is built without OTF2 where libotf2 is missing (make deps installs it)
otf2=$("$mkm" export -h | grep -ow otf2 || true)
[ -n "$otf2" ] || echo "# otf2: not built into mkm (no libotf2): its tests are skipped"

"$mktrace" small "$dir/small.mkm"
"$mktrace" events "$dir/events.mkm"
# The same run with one SWITCH record per switch between its threads
"$mktrace" events-one "$dir/events-one.mkm"
# `mkm record -p 700 -p 800`: threads 701 and 702 attached, their process
# (700) known from the PROCESSES chunk only; each format's test checks
# that its export groups them as mkm report does, and report must say 700
"$mktrace" procs "$dir/procs.mkm"
"$mktrace" big "$dir/big.mkm" 200000 50
# mkm merge of job 77's three node traces (their clocks apart by seconds)
mkdir "$dir/job"
"$mktrace" job "$dir/job"
"$mkm" merge "$dir/job" -o "$dir/job.mkm" >/dev/null
# A trace cut inside its last chunks, and one with a byte flipped in a
# chunk in its middle: what precedes the cut, and all but the damaged
# chunk, are exported.
head -c $(($(stat -c %s "$dir/small.mkm") - 100)) "$dir/small.mkm" >"$dir/cut.mkm"
cp "$dir/big.mkm" "$dir/corrupt.mkm"
printf '\xff' | dd of="$dir/corrupt.mkm" bs=1 seek=100000 conv=notrunc status=none

if "$mkm" report --json "$dir/procs.mkm" | $py -c '
import json, sys
pid = {t["tid"]: t["pid"] for t in json.load(sys.stdin)["threads"]}
sys.exit(not (pid[701] == pid[702] == 700 and pid[801] == 800))'; then
	ok "procs: mkm report puts the attached threads in their process"
else
	bad "procs: mkm report puts the attached threads in their process"
fi

for t in small events events-one big cut corrupt procs job; do
	if "$mkm" export -f perfetto "$dir/$t.mkm" -o "$dir/$t.perfetto-trace" 2>"$dir/$t.err" &&
		$py "$here/test_perfetto.py" "$mkm" "$dir/$t.mkm" "$dir/$t.perfetto-trace"; then
		ok "perfetto: $t"
	else
		bad "perfetto: $t"
	fi
	if "$mkm" export -f ctf "$dir/$t.mkm" -o "$dir/$t.ctf" 2>"$dir/$t.err" &&
		$py "$here/test_ctf.py" "$mkm" "$dir/$t.mkm" "$dir/$t.ctf"; then
		ok "ctf: $t"
	else
		bad "ctf: $t"
	fi
	if "$mkm" export -f paraver "$dir/$t.mkm" -o "$dir/$t.prv" 2>"$dir/$t.err" &&
		$py "$here/test_paraver.py" "$mkm" "$dir/$t.mkm" "$dir/$t.prv"; then
		ok "paraver: $t"
	else
		bad "paraver: $t"
	fi
	[ -n "$otf2" ] || continue
	if "$mkm" export -f otf2 "$dir/$t.mkm" -o "$dir/$t.otf2" 2>"$dir/$t.err" &&
		$py "$here/test_otf2.py" "$mkm" "$dir/$t.mkm" "$dir/$t.otf2"; then
		ok "otf2: $t"
	else
		bad "otf2: $t"
	fi
done

# SWITCH records (MKM_CONFIG_ONE_SWITCH) export exactly as the SWITCH_OUT
# and SWITCH_IN they stand for: the same bytes (CTF: but its random
# UUID; OTF2: as otf2-print reads it), from fewer records.
if [ "$(grep -c ' switch ' <("$mkm" dump "$dir/events-one.mkm"))" -eq 2 ] &&
	cmp -s "$dir/events.perfetto-trace" "$dir/events-one.perfetto-trace" &&
	cmp -s "$dir/events.prv" "$dir/events-one.prv" &&
	cmp -s "$dir/events.pcf" "$dir/events-one.pcf" &&
	diff -q <(babeltrace2 "$dir/events.ctf" 2>/dev/null) \
		<(babeltrace2 "$dir/events-one.ctf" 2>/dev/null) >/dev/null &&
	diff -q <(grep -v uuid "$dir/events.ctf/metadata") \
		<(grep -v uuid "$dir/events-one.ctf/metadata") >/dev/null &&
	{ [ -z "$otf2" ] || diff -q <(otf2-print "$dir/events.otf2/traces.otf2") \
		<(otf2-print "$dir/events-one.otf2/traces.otf2") >/dev/null; }; then
	ok "SWITCH records: every format the same as from SWITCH_OUT + SWITCH_IN"
else
	bad "SWITCH records: a format differs from SWITCH_OUT + SWITCH_IN's"
fi

# Damaged input: a cut says where it stopped, and keeps what came before;
# a flipped byte costs its chunk only, and says what was skipped.
if grep -q "cut.mkm: .*offset.*showing what precedes it" "$dir/cut.err"; then
	ok "a cut trace: the warning names the offset"
else
	bad "a cut trace: no warning naming the offset: $(cat "$dir/cut.err")"
fi
if grep -q "corrupt.mkm: offset .*skipped .* bytes (1 chunk) .*read on from there" "$dir/corrupt.err"; then
	ok "a corrupt trace: the warning names the offset and what was skipped"
else
	bad "a corrupt trace: no warning naming what was skipped: $(cat "$dir/corrupt.err")"
fi

# A trace with no valid record: an empty Perfetto, CTF and Paraver trace
# that their readers open; OTF2 cannot hold one (its readers refuse an
# archive without a location): a clear failure, nothing left behind.
head -c 300 "$dir/small.mkm" >"$dir/empty.mkm"
if "$mkm" export -f perfetto "$dir/empty.mkm" -o "$dir/empty.pf" 2>/dev/null &&
	protoc --decode_raw <"$dir/empty.pf" >/dev/null &&
	"$mkm" export -f ctf "$dir/empty.mkm" -o "$dir/empty.ctf" 2>/dev/null &&
	babeltrace2 "$dir/empty.ctf" >/dev/null &&
	"$mkm" export -f paraver "$dir/empty.mkm" -o "$dir/empty.prv" 2>/dev/null &&
	head -1 "$dir/empty.prv" | grep -q '^#Paraver .*:1:1(0:1)$'; then
	ok "empty trace: Perfetto, CTF and Paraver exports their readers open"
else
	bad "empty trace: Perfetto, CTF and Paraver exports their readers open"
fi
if [ -n "$otf2" ]; then
	set +e
	"$mkm" export -f otf2 "$dir/empty.mkm" -o "$dir/empty.otf2" 2>"$dir/empty.err"
	st=$?
	set -e
	if [ $st -eq 1 ] && grep -q "sink otf2: .*nothing written" "$dir/empty.err" &&
		! compgen -G "$dir/empty.otf2*" >/dev/null; then
		ok "empty trace: otf2 fails (after the damage warning), nothing left"
	else
		bad "empty trace: otf2: exit $st, $(cat "$dir/empty.err")"
	fi
fi

# Many threads: each OTF2 location's definitions writer once had a 4 MiB
# chunk, cleared at close (hackbench's 161 threads took 10.6 s
# where CTF took 0.1 s). Page faults count the memory touched, whatever
# the load: 172,930 before the fix, 11,136 after, CTF 554.
if [ -n "$otf2" ]; then
	"$mktrace" big "$dir/threads.mkm" 220000 161
	faults=$($py -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt)' \
		"$mkm" export -f otf2 "$dir/threads.mkm" -o "$dir/threads.otf2")
	if [ "$faults" -lt 40000 ]; then
		ok "otf2: 161 threads, $faults page faults (under 40,000)"
	else
		bad "otf2: 161 threads, $faults page faults (40,000 at most)"
	fi
fi

# The default output name: FILE without .mkm, and the format's extension.
(cd "$dir" && "$mkm" export -f ctf small.mkm 2>/dev/null)
if [ -f "$dir/small.ctf/metadata" ] && [ ! -e "$dir/small.ctf.tmp" ]; then
	ok "default output name"
else
	bad "default output name"
fi

# Cuts: only the threads asked for, only the window asked for.
"$mkm" export -f ctf --threads 1002 "$dir/small.mkm" -o "$dir/t1002.ctf" 2>/dev/null
# (IRQ events name no thread: they are the ones that ran on its CPU.)
if babeltrace2 "$dir/t1002.ctf" 2>/dev/null | grep 'tid = ' | grep -v 'tid = 1002' | grep -q . ||
	! babeltrace2 "$dir/t1002.ctf" 2>/dev/null | grep -q 'tid = 1002'; then
	bad "--threads 1002 exports that thread's events only"
else
	ok "--threads 1002 exports that thread's events only"
fi
"$mkm" export -f ctf --from 2ms --to 6ms "$dir/small.mkm" -o "$dir/win.ctf" 2>/dev/null
times=$(babeltrace2 --clock-cycles "$dir/win.ctf" 2>/dev/null | sed -n 's/^\[\([0-9]*\)\].*/\1/p')
if [ -n "$times" ] && awk '$1 < 1002000000 || $1 >= 1006000000 { exit 1 }' <<<"$times"; then
	ok "--from 2ms --to 6ms keeps [2 ms, 6 ms) of the recording"
else
	bad "--from 2ms --to 6ms keeps [2 ms, 6 ms) of the recording: $times"
fi

# An unknown format: exit 2, and the known ones listed.
set +e
"$mkm" export -f nosuch "$dir/small.mkm" -o "$dir/x" 2>"$dir/unknown.err"
st=$?
set -e
if [ $st -eq 2 ] && grep -q perfetto "$dir/unknown.err" && grep -q ctf "$dir/unknown.err"; then
	ok "unknown format: exit 2, formats listed"
else
	bad "unknown format: exit $st: $(cat "$dir/unknown.err")"
fi

# Unwritable outputs: one line saying so, exit 1, nothing left behind.
unwritable() { # WHAT FORMAT OUT [env...]
	local what=$1 fmt=$2 out=$3 st
	set +e
	(trap '' XFSZ; ulimit -f "${LIMIT:-unlimited}"
		"$mkm" export -f "$fmt" "$dir/big.mkm" -o "$out") 2>"$dir/unwritable.err"
	st=$?
	set -e
	if [ $st -eq 1 ] && [ "$(wc -l <"$dir/unwritable.err")" -eq 1 ] &&
		grep -q "^mkm: .*$(basename "$out")" "$dir/unwritable.err" &&
		! compgen -G "$out*" >/dev/null; then
		ok "$what ($fmt): $(cat "$dir/unwritable.err")"
	else
		bad "$what ($fmt): exit $st, $(cat "$dir/unwritable.err"); left: $(ls -d "$out"* 2>/dev/null)"
	fi
}
for fmt in perfetto ctf paraver $otf2; do
	unwritable "no such folder" $fmt "$dir/nosuch/out"
	unwritable "under a file" $fmt "$dir/small.mkm/out"
	# a disk that fills up half way (the file size limit: EFBIG)
	LIMIT=64 unwritable "disk full half way" $fmt "$dir/full.$fmt"
done

[ $fail -eq 0 ] && echo "export: all $n passed" || echo "export: FAILED"
exit $fail
