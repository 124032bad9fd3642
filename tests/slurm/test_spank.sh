#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_spank.sh - mkm.so's options and errors on a host without Slurm or
# the module, through fake_stepd: what a user of srun --mkm sees when the
# module is missing or an option is wrong (check-host, check-spank).
#
#   test_spank.sh FAKE_STEPD PLUGIN WORKDIR
set -u
fails=0
rm -rf "$3" && mkdir -p "$3" || exit 1
# Absolute: fake_stepd runs in WORKDIR, where the default output goes.
stepd=$(realpath "$1") so=$(realpath "$2") w=$(realpath "$3")

# expect STATUS PATTERN ARGS...: fake_stepd's exit status, and a line of
# its stderr matching PATTERN (grep -F; "" for an empty stderr).
expect() {
	want=$1 pat=$2
	shift 2
	(cd "$w" && exec "$stepd" "$so" "$@") >"$w/stdout" 2>"$w/err"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "FAIL: $*: exit $got, not $want: $(cat "$w/err")"
		fails=$((fails + 1))
	elif [ -z "$pat" ] && [ -s "$w/err" ]; then
		echo "FAIL: $*: said: $(cat "$w/err")"
		fails=$((fails + 1))
	elif [ -n "$pat" ] && ! grep -qF -- "$pat" "$w/err"; then
		echo "FAIL: $*: no '$pat' in: $(cat "$w/err")"
		fails=$((fails + 1))
	else
		echo "ok: $* -> $got"
	fi
}

# Without --mkm the plugin does nothing at all.
expect 0 "" --
# The module is never loaded on this host: the step fails, saying which
# node and what to do.
if [ -e /dev/mkm ]; then
	echo "skip: /dev/mkm exists here"
else
	expect 1 "error: mkm: node n3: /dev/mkm: " -- --mkm \
		--mkm-output="$w/out/%j/%N.mkm"
	expect 1 "load the module on this node (sudo modprobe mkm)" -- --mkm
	[ -d "$w/mkm-1234" ] || { echo "FAIL: the default output's mkm-1234/ not made"; fails=$((fails + 1)); }
	# The output's directory was made first, as the job's user.
	[ -d "$w/out/1234" ] || { echo "FAIL: $w/out/1234 not made"; fails=$((fails + 1)); }
fi
expect 1 "error: mkm: --mkm=bogus: unknown event class 'bogus'" -- --mkm=bogus
expect 1 "error: mkm: --mkm-output=x/%q: a path with %j" -- --mkm-output=x/%q
expect 1 "error: mkm: --mkm-port=0: a TCP port" -- --mkm-port=0
expect 1 "error: mkm: --mkm-sync=0: the seconds between periodic clock exchanges" -- --mkm-sync=0
expect 1 "error: mkm: --mkm-sync=2x: the seconds" -- --mkm-sync=2x
expect 1 "error: mkm: --mkm-sync=0.01: the seconds between periodic clock exchanges, 0.1 to 86400" -- --mkm-sync=0.01
expect 1 "error: mkm: plugstack.conf: unknown argument 'bogus=1'" bogus=1 --
expect 1 "error: mkm: --mkm-sync=-1: the seconds" sync=-1 --
expect 0 "" "output=$w/o/%N.mkm" port=4242 sync=0.5 buffered-io -- --mkm-output="$w/p/%j.mkm" --mkm-sync=10 --mkm-buffered-io
expect 1 "error: mkm: plugstack.conf: unknown argument 'buffered-io=1' (output=TEMPLATE, port=N, sync=S, buffered-io, no-calibrate, calibration=FILE, flight=SIZE, trigger=LIST, post=T)" buffered-io=1 --
# The calibration stored in each trace: measured by default, skipped, or
# a site's file (read only once a monitor exists: no module here).
expect 0 "" no-calibrate -- --mkm-no-calibrate
expect 0 "" "calibration=$w/cal.mkm" -- --mkm-calibration="$w/cal.mkm"
expect 1 "error: mkm: --mkm-calibration=: a calibration file" calibration= --
expect 1 "error: mkm: --mkm-calibration=: a calibration file" -- --mkm-calibration=
# A flight recorder's options: checked as given; srun's --mkm-flight
# records (here: no module), plugstack.conf's flight= alone does not.
expect 1 "error: mkm: --mkm-flight=1k: the rings' size over all CPUs, at least 4K" -- --mkm-flight=1k
expect 1 "error: mkm: --mkm-trigger=foo>1ms: give 'runq>T'" -- --mkm-trigger='foo>1ms'
expect 1 "error: mkm: --mkm-trigger=runq>5: give" trigger='runq>5' --
expect 1 "error: mkm: --mkm-post=5: a time (ns, us, ms, s)" -- --mkm-post=5
expect 1 "error: mkm: --mkm-trigger and --mkm-post go with --mkm-flight=SIZE" \
	-- --mkm --mkm-trigger='runq>1ms'
expect 0 "" flight=4M trigger='runq>1ms,exit' post=10ms --
if [ ! -e /dev/mkm ]; then
	expect 1 "load the module on this node (sudo modprobe mkm)" \
		-- --mkm-flight=4M --mkm-trigger='runq>1ms,exit' --mkm-post=50ms
fi
# An output under a file cannot be made: said, before any monitor.
: >"$w/file"
expect 1 "error: mkm: node n3: --mkm-output $w/file/%N.mkm: Not a directory" \
	-- --mkm --mkm-output="$w/file/%N.mkm"

[ "$fails" = 0 ] && echo "test_spank: all passed" || echo "test_spank: $fails failed"
[ "$fails" = 0 ]
