#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm.sh - boot the guest once under QEMU's -icount with one virtual CPU, run
# one guest benchmark, bring its measurements back and print its table.
#
#   bench/vm.sh [-A ARCH] switch|read|scale|cpus [GUEST-ARGS...]
#
# switch runs vm_switch (bench-vm), read runs vm_read (bench-read), scale
# runs vm_scale (bench-scale), cpus runs vm_cpus (bench-cpus: always
# without -icount); the arguments go to the guest program. -A arm64 boots
# an arm64 guest (tests/vm/run.sh -A arm64: qemu-system-aarch64 -M virt
# -cpu max; its kernel in BENCH_VM_ARGS' -k, its image made with
# mkinitramfs.sh -A arm64: bench/kernels.sh -a arm64). The measurements
# and the guest's lines about its clock (x86-64: the TSC's calibration;
# arm64: the architected timer's rate and sched_clock's resolution) land
# in $BUILD/bench/<what>/, the console log beside them.
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

usage() {
	echo "usage: $0 [-A amd64|arm64] switch|read|scale|cpus [GUEST-ARGS...]" >&2
	exit 2
}
arch=amd64
if [ "${1:-}" = -A ]; then
	arch=${2:-}
	shift 2 || usage
fi
# What the guest's kernel says about its clock, by architecture.
case $arch in
amd64) clock_lines='tsc: (Detected|Refined)' ;;
arm64) clock_lines='arch_timer: cp15 timer|sched_clock: [0-9]+ bits' ;;
*) usage ;;
esac
what=${1:-}
case $what in
switch) table=$top/bench/table.awk ;;
read) table=$top/bench/read.awk ;;
scale) table=$top/bench/scale.awk ;;
cpus) table=$top/bench/cpus.awk ;;
*) usage ;;
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
	echo "dmesg | grep -E '$clock_lines' >/out/clock.txt"
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
	# Its window's marks are x86-64 instructions (bench/prof/tbprof.c).
	[ "$arch" = amd64 ] || { echo "bench: BENCH_PROFILE: x86-64 guests only" >&2; exit 2; }
	mkdir -p "$dir/prof"
	plugin=(-plugin "$build/bench/prof/tbprof.so,out=$dir/prof/window")
fi
# shellcheck disable=SC2086 # BENCH_VM_ARGS is a list of options
"$top/tests/vm/run.sh" -A "$arch" -s "${BENCH_VM_CPUS:-1}" -m "$mem" -i "${BENCH_IMAGE:-$build/bench/initramfs.cpio.gz}" \
	-c "$dir.cmd" -o "$dir" -l "$dir.log" -t 7200 ${BENCH_VM_ARGS:-} \
	-- $icount "${plugin[@]}"
echo
awk -v icount=${icount:+1} -f "$table" "$dir/vm_$what.tsv"
[ ! -s "$dir/clock.txt" ] || sed 's/^\[[ 0-9.]*\] /guest: /' "$dir/clock.txt"
