#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh - boot the guest CB_BOOTS times (one virtual CPU, QEMU -icount),
# each time run the workloads unmonitored and monitored (guest.sh), bring
# the traces and the kernel's ground truth back, and print the comparison
# over the boots (compare.py).
#
#   bench/compensation/run.sh bench|check
#
# bench: every workload at full size, 5 boots (make bench-compensation);
# check: the ping-pong and the mixed workload, small, 2 boots, and
# compare.py --check fails the run when mkm is off by more than the
# tolerances (make check-compensation).
# Environment: BUILD, CB_IMAGE, MKM (the host's mkm command), CB_VM_ARGS
# (more tests/vm/run.sh options), the sizes below, and CB_DISK: 1 (the
# default), each boot's traces go to an ext4 file system on a virtio
# disk, as a user's would, written with O_DIRECT (the trace writer's
# TRACE_WRITE_DIRECT), which needs the reference kernel's modules; 0, to
# the guest's tmpfs, through the page cache.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
case $build in /*) ;; *) build=$top/$build ;; esac
export BUILD=$build
mkm=${MKM:-$build/tools/mkm}
case $mkm in /*) ;; *) mkm=$top/$mkm ;; esac

mode=${1:-}
case $mode in
bench)
	: "${CB_WORKLOADS:=matmul pingpong mixed hackbench hackbench-threads switch futex pipe hdd cpu xz sqlite}"
	: "${CB_PP_ROUNDS:=100000}" "${CB_MX_ITER:=1000}"
	: "${CB_MM_SIZE:=300}" "${CB_MM_THREADS:=4}"
	: "${CB_HB_GROUPS:=4}" "${CB_HB_LOOPS:=110}"
	: "${CB_SNG_OPS:=switch=40000 futex=20000 pipe=100000 hdd=2000 cpu=300}"
	: "${CB_BOOTS:=5}" "${CB_DISK:=1}"
	timeout=3600 check=
	;;
check)
	: "${CB_WORKLOADS:=pingpong mixed}"
	: "${CB_PP_ROUNDS:=20000}" "${CB_MX_ITER:=200}"
	: "${CB_MM_SIZE:=100}" "${CB_MM_THREADS:=4}"
	: "${CB_HB_GROUPS:=4}" "${CB_HB_LOOPS:=10}"
	: "${CB_SNG_OPS:=switch=10000 futex=5000 pipe=20000 hdd=500 cpu=60}"
	: "${CB_BOOTS:=2}" "${CB_DISK:=1}"
	timeout=600 check=--check
	;;
*) echo "usage: $0 bench|check" >&2; exit 2 ;;
esac
: "${CB_BUFFER:=64M}" "${CB_EVENTS:=}"
# xz's input (bytes of stress-ng's binary) and sqlite's inserts.
: "${CB_XZ_BYTES:=1000000}" "${CB_SQL_ROWS:=300}"

dir=$build/bench/compensation/$mode
rm -rf "$dir"
mkdir -p "$dir"

# One virtual CPU and -icount: guest time is guest instructions, so both
# runs of a workload are timed by the same rule whatever the host does.
# delayacct: taskstats' run-queue delay (hackbench's ground truth).
# Only one VM at a time on these machines: the lock is shared with the
# other engineers' boots. Each boot runs every workload once unmeasured,
# then unmonitored, then monitored (guest.sh); the boots' spread is the unmonitored runs' own
# noise, which the verdicts take into account (compare.py).
dirs=()
for boot in $(seq 1 "$CB_BOOTS"); do
	out=$dir/boot.$boot
	mkdir -p "$out"
	{
		echo "set -e"
		for v in CB_WORKLOADS CB_PP_ROUNDS CB_MX_ITER CB_MM_SIZE \
			CB_MM_THREADS CB_HB_GROUPS CB_HB_LOOPS CB_SNG_OPS \
			CB_XZ_BYTES CB_SQL_ROWS CB_BUFFER CB_EVENTS CB_DISK; do
			echo "export $v='${!v}'"
		done
		echo "sh /bench/guest.sh"
		# The check also runs the calibration's own test (stable
		# figures need -icount): mkm calibrate, record, replay, end
		# to end; once.
		[ -z "$check" ] || [ "$boot" != 1 ] ||
			echo "sh /bench/calibrate_vm.sh"
	} >"$out.cmd"
	disk=()
	if [ "$CB_DISK" = 1 ]; then
		# A fresh, sparse file system each boot; QEMU's DMA into it is
		# not the guest's instructions, as a disk's is not a CPU's.
		mke2fs -q -F -t ext4 -L cbtrace "$out.disk" 1G
		disk=(-drive "file=$out.disk,if=virtio,format=raw,cache=unsafe")
	fi
	start=$(date +%s)
	# shellcheck disable=SC2086 # CB_VM_ARGS is a list of options
	flock /tmp/mkm-vm.lock "$top/tests/vm/run.sh" -s 1 \
		-i "${CB_IMAGE:-$build/bench/compensation/initramfs.cpio.gz}" \
		-c "$out.cmd" -o "$out" -l "$out.log" -t $timeout -a delayacct \
		${CB_VM_ARGS:-} -- -icount shift=1,sleep=on "${disk[@]}"
	rm -f "$out.disk"
	echo "cb: boot $boot of $CB_BOOTS took $(($(date +%s) - start)) s on the host (lock wait included)"
	dirs+=("$out")
done
echo
python3 "$top/bench/compensation/compare.py" --mkm "$mkm" $check \
	--workloads "$CB_WORKLOADS" "${dirs[@]}"
