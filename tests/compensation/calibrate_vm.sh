#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# calibrate_vm.sh - a VM test: mkm calibrate, the calibration mkm record
# stores, and the compensated replay, end to end with the real module.
#   - every measured figure is positive; two calibrations agree within
#     their confidence intervals (widened by STABLE_SLACK, a fraction of
#     the mean: without -icount the guest's clock is the host's, noisy);
#   - the chunk round-trips: mkm calibrate -o FILE, then
#     mkm record --calibration FILE stores the same figures;
#   - mkm replay -o writes a trace marked compensated, with records no
#     later than the raw ones; compensating it again is refused; a trace
#     recorded --no-calibrate is refused with a message naming
#     --calibration; --play prints every event.
set -eu
cd /tmp
fail() { echo "calibrate_vm: $*"; exit 1; }
SLACK=${STABLE_SLACK:-0.5}

mkm calibrate -r 300 -n 5 -o cal1.mkm >cal1.txt
mkm calibrate -r 300 -n 5 >cal2.txt
cat cal1.txt cal2.txt
# Rows: CPU COST MEAN STDDEV TRIALS LO .. HI (measured ones).
awk -v slack="$SLACK" '
	$2 ~ /^(switch|wakeup|syscall|irq|mark|constant)$/ && $7 == ".." {
		key = $1 " " $2
		if (FILENAME == ARGV[1]) { m1[key] = $3; c1[key] = $3 - $6; next }
		if ($3 <= 0 || m1[key] <= 0) { print "not positive: " key; bad = 1 }
		d = $3 - m1[key]; if (d < 0) d = -d
		ci = c1[key] + ($3 - $6) + slack * m1[key]
		if (d > ci) { print "unstable: " key " " m1[key] " vs " $3; bad = 1 }
		n++
	}
	END { if (bad || n < 6) { print "checked " n; exit 1 } }' cal1.txt cal2.txt ||
	fail "calibrations not positive or not stable"

# A recording reusing the calibration stores it unchanged.
mkm record -o run.mkm --calibration cal1.mkm -- matmul -n 60 -t 2 >/dev/null 2>&1 ||
	fail "record --calibration"
mkm report run.mkm >report.txt
grep -q '^Calibration:' report.txt || fail "report shows no calibration"
awk '/^ *[0-9]+ switch /' cal1.txt >a.txt
awk '/^ *[0-9]+ switch /' report.txt >b.txt
cmp -s a.txt b.txt || fail "the stored calibration differs from the file's"

# A recording with its own short calibration, then compensated.
mkm record -o own.mkm -- matmul -n 60 -t 2 >/dev/null 2>&1 || fail "record"
mkm report --json own.mkm | grep -q '"calibration":' || fail "no calibration stored"
mkm replay own.mkm -o comp.mkm || fail "replay"
mkm report --json comp.mkm | grep -q '"compensated":true' || fail "not marked compensated"
mkm dump own.mkm >raw.txt
mkm dump comp.mkm >comp.txt
[ "$(wc -l <raw.txt)" = "$(wc -l <comp.txt)" ] || fail "replay lost or added events"
if mkm replay comp.mkm -o again.mkm 2>err.txt; then fail "compensated twice"; fi
grep -q 'compensated already' err.txt || fail "no reason given: $(cat err.txt)"
mkm report --compensated own.mkm | grep -q '^Raw and compensated' ||
	fail "report --compensated"
mkm replay --play --speed 0 own.mkm | wc -l >played.txt
[ "$(cat played.txt)" = "$(wc -l <raw.txt)" ] || fail "--play printed $(cat played.txt) lines"

mkm record --no-calibrate -o bare.mkm -- matmul -n 60 -t 2 >/dev/null 2>&1
if mkm replay bare.mkm -o x.mkm 2>err.txt; then fail "replayed without calibration"; fi
grep -q -- '--calibration FILE' err.txt || fail "no hint: $(cat err.txt)"
mkm replay --calibration cal1.mkm bare.mkm -o x.mkm || fail "replay --calibration"
echo "calibrate_vm: ok"
