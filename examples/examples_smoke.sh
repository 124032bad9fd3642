#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# examples_smoke.sh - a VM test (check-vm): the examples that drain a monitor
# through libmonitor's live source (ftq, sensor_cost, noise, idle, barrier)
# and const_overhead, with tiny sizes. Their figures are noise without -icount; this checks that
# they run, print their tables, and that the timeline they rebuild through
# the pipeline has the thread in it.
set -eu
cd /tmp
# osnoise's table after an example's own (rtla osnoise top's columns): a
# row per CPU the thread ran on, some run time, at most 100% available.
osnoise_table() {
	awk '/^osnoise.s table/ { t = 1; next } t && /^$/ { t = 0 }
	     t && /^ *[0-9]+ #[0-9]+ / { rows++; if ($3 + 0 <= 0 || $5 + 0 > 100) bad = 1 }
	     END { if (!rows || bad) exit 1 }' "$1" ||
		{ echo "smoke: $1: no osnoise table, or a row out of range"; exit 1; }
}
ftq -n 200 -w 20000 >ftq.out
cat ftq.out
# ftq exits 1 if the pipeline's timeline lacks its thread.
grep -q '^FTQ: 200 samples' ftq.out || { echo "smoke: ftq printed no summary"; exit 1; }
osnoise_table ftq.out
sensor_cost -r 200 -n 2 >sensor.out
cat sensor.out
# Every monitored switch is recorded (one SWITCH record, or its SWITCH_OUT
# and SWITCH_IN on an ABI 2.3 module: counted once either way).
awk '/switches recorded per switch/ { if ($5 + 0 < 0.9) bad = 1; seen = 1 }
     END { if (!seen || bad) { print "smoke: sensor_cost drained too few events"; exit 1 } }' sensor.out
const_overhead -r 200 -n 2 | grep -q T_const-overhead || { echo "smoke: const_overhead"; exit 1; }
# The papers' studies (noise, idle CPUs, barriers), system-wide: their
# tables have their rows.
noise -n 300 -w 20000 -r 200 >noise.out
cat noise.out
grep -q '^FTQ under a system-wide monitor: 300 quanta' noise.out || { echo "smoke: noise printed no summary"; exit 1; }
awk '/^The noise law/ { law = 1; next } /^osnoise/ { law = 0 } law && $1 ~ /^[0-9]+$/ { rows++ }
     END { if (rows != 5) { print "smoke: noise law table has " rows " rows"; exit 1 } }' noise.out
osnoise_table noise.out
idle -s 2 >idle.out
cat idle.out
awk '/^ *[0-9]+: +[0-9]+ / && !causes { cpus++ } /^What woke/ { causes = 1 }
     END { if (cpus != 2) { print "smoke: idle table has " cpus " CPUs"; exit 1 } }' idle.out
barrier -i 200 -w 20000 -D 5 >barrier.out
cat barrier.out
grep -q '^2 threads x 200 iterations' barrier.out || { echo "smoke: barrier printed no summary"; exit 1; }
grep -q '^CPU x thread' barrier.out || { echo "smoke: barrier printed no matrix"; exit 1; }
echo "smoke: ok"
