#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm.sh - boot the guest once under QEMU's -icount with one virtual CPU, run
# one guest benchmark, bring its measurements back and print its table.
#
#   bench/vm.sh switch|read|scale|cpus [GUEST-ARGS...]
#
# switch runs vm_switch (bench-vm), read runs vm_read (bench-read), scale
# runs vm_scale (bench-scale), cpus runs vm_cpus (bench-cpus: always
# without -icount); the arguments go to the guest program. The measurements and the guest's TSC
# calibration land in $BUILD/bench/<what>/, the console log beside them.
# Environment: BUILD; BENCH_IMAGE, the initramfs (default
# $BUILD/bench/initramfs.cpio.gz); BENCH_VM_CPUS, virtual CPUs (default 1;
# with more the guest runs without -icount, which hangs QEMU 7.2's guest at
# SMP bring-up, so its figures are times, to compare within the run);
# BENCH_VM_ARGS, more tests/vm/run.sh
# options (-k KERNEL, -t SECONDS, -v); BENCH_PROFILE=1, a profile of each
# timed run by the QEMU plugin bench/prof/tbprof.so (make bench-profile),
# with the guest's kernel symbols, into $BUILD/bench/<what>/prof/.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
case $build in /*) ;; *) build=$top/$build ;; esac
export BUILD=$build

what=${1:-}
case $what in
switch) table=$top/bench/table.awk ;;
read) table=$top/bench/read.awk ;;
scale) table=$top/bench/scale.awk ;;
cpus) table=$top/bench/cpus.awk ;;
*) echo "usage: $0 switch|read|scale|cpus [GUEST-ARGS...]" >&2; exit 2 ;;
esac
shift
dir=$build/bench/$what
[ "${BENCH_VM_CPUS:-1}" = 1 ] && [ "$what" != cpus ] ||
	dir=$dir-smp${BENCH_VM_CPUS:-1}
rm -rf "$dir"
mkdir -p "$dir"

# Guest time is instructions only if nothing else ran: one vCPU, -icount.
# The image keeps the module at /bench/mkm.ko, away from the guest's init:
# vm_switch measures its baseline before loading it.
{
	echo "set -e"
	# A fresh guest's own work (its clocksource switch, deferred
	# initcalls) would be counted in the first runs: let it settle.
	echo "sleep ${BENCH_SETTLE:-0}"
	echo "dmesg | grep -E 'tsc: (Detected|Refined)' >/out/tsc.txt"
	if [ "$what" = scale ]; then
		# 60,000 threads: past the defaults sized for a 1 GiB guest.
		echo "echo 4194304 >/proc/sys/kernel/pid_max"
		echo "echo 200000 >/proc/sys/kernel/threads-max"
	fi
	[ "$what" = switch ] || echo "insmod /bench/mkm.ko"
	printf 'vm_%s' "$what"
	[ "$what" != switch ] || printf " -m /bench/mkm.ko"
	printf " '%s'" "$@"
	echo
	[ -z "${BENCH_PROFILE:-}" ] || echo "cat /proc/kallsyms >/out/kallsyms"
	echo "rmmod mkm"
} >"$dir.cmd"
icount="-icount shift=1,sleep=on"
[ "${BENCH_VM_CPUS:-1}" = 1 ] && [ "$what" != cpus ] || icount=
mem=1G
[ "$what" != scale ] || mem=4G
plugin=()
if [ -n "${BENCH_PROFILE:-}" ]; then
	mkdir -p "$dir/prof"
	plugin=(-plugin "$build/bench/prof/tbprof.so,out=$dir/prof/window")
fi
# shellcheck disable=SC2086 # BENCH_VM_ARGS is a list of options
"$top/tests/vm/run.sh" -s "${BENCH_VM_CPUS:-1}" -m "$mem" -i "${BENCH_IMAGE:-$build/bench/initramfs.cpio.gz}" \
	-c "$dir.cmd" -o "$dir" -l "$dir.log" -t 7200 ${BENCH_VM_ARGS:-} \
	-- $icount "${plugin[@]}"
echo
awk -v icount=${icount:+1} -f "$table" "$dir/vm_$what.tsv"
[ ! -s "$dir/tsc.txt" ] || sed 's/^\[[ 0-9.]*\] /guest: /' "$dir/tsc.txt"
