#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh: boot the test guest in QEMU, report each test, fail on any splat.
#
# The guest's console (ttyS0; ttyAMA0 on arm64) is saved to the log; tests/vm/init describes
# the MKM-* lines it prints. A run fails on a failed or timed-out test, an
# insmod or rmmod failure, a missing MKM-VM-DONE (hang, crash, panic), a
# kernel splat in the log, or a kernel tainted by a warning, an oops or a
# lockup.
#
# Environment: MKM_VM_KERNEL, MKM_CACHE, BUILD, and MKM_VM_ACCEL, QEMU's
# -accel: kvm where it works (nested KVM hangs on our machines); by default
# tcg,thread=single, one host thread for all virtual CPUs. Multi-threaded TCG
# (MKM_VM_ACCEL=tcg) hangs the guest when tracepoints are switched on and off
# while other CPUs run (QEMU 7.2, live kernel text patching): seen with a
# module doing nothing but tracepoint_probe_register/unregister in a loop.
# MKM_VM_ARCH (or -A): the guest's architecture, amd64 (the default) or
# arm64: qemu-system-aarch64 -M virt -cpu max, its PL011 console.
set -euo pipefail

usage() {
	cat <<EOF
usage: $0 [options] [-- QEMU-ARGS...]
  -i INITRAMFS   the image (default \$BUILD/vm/initramfs.cpio.gz)
  -k KERNEL      the kernel, a bzImage or an ELF vmlinux with a PVH note
                 (default \$MKM_VM_KERNEL, else the Debian kernel matching
                 linux-headers-amd64 that make deps put in \$MKM_CACHE);
                 on arm64 an Image (kernels.sh -a arm64 image NAME)
  -A ARCH        the guest's architecture: amd64 (default \$MKM_VM_ARCH,
                 else amd64) or arm64
  -s CPUS        virtual CPUs (default 2)
  -m MEM         memory (default 1G)
  -c SCRIPT      run SCRIPT in the guest (sh, cwd /tmp) instead of the tests;
                 its output is printed after the run
  -f SRC[:DEST]  add a file or folder to the guest (DEST default /bin/NAME)
  -o DIR         copy the files the guest wrote under /out into DIR
  -l LOG         the console log (default \$BUILD/vm/run.log)
  -r REPORT      also write this report (what run.sh prints) to REPORT, which
                 kernels.sh check -r reads as the reference kernel's row
  -t SECONDS     timeout of the whole run (default 1200)
  -T SECONDS     timeout of each test binary (default 300)
  -I SECONDS     stop when the console is silent that long (default: -T
                 plus 60 when running tests, never for a command; 0: never)
  -a ARGS        more kernel command line
  -e TESTS       then boot again on one vCPU under -icount, running only
                 these tests (comma-separated), with mkm_clock=icount
  -v             show the console as it goes
  -x             an interactive shell in the guest (Ctrl-A X quits QEMU)
  QEMU-ARGS      more QEMU arguments, e.g. -- -icount shift=1,sleep=on
EOF
	exit 2
}
die() { printf 'vm: %s\n' "$*" >&2; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$here/../../build}
initramfs=$build/vm/initramfs.cpio.gz
kernel=${MKM_VM_KERNEL:-}
cpus=2 mem=1G script= outdir= log=$build/vm/run.log
timeout=1200 test_timeout=300 idle= append= verbose= shell= exact= report=
files=()
arch=${MKM_VM_ARCH:-amd64}
while getopts "i:k:s:m:c:f:o:l:r:t:T:I:a:e:A:vxh" opt; do
	case $opt in
	A) arch=$OPTARG ;;
	i) initramfs=$OPTARG ;;
	k) kernel=$OPTARG ;;
	s) cpus=$OPTARG ;;
	m) mem=$OPTARG ;;
	c) script=$OPTARG ;;
	f) files+=(-f "$OPTARG") ;;
	o) outdir=$OPTARG ;;
	l) log=$OPTARG ;;
	r) report=$OPTARG ;;
	t) timeout=$OPTARG ;;
	T) test_timeout=$OPTARG ;;
	I) idle=$OPTARG ;;
	a) append=$OPTARG ;;
	e) exact=$OPTARG ;;
	v) verbose=1 ;;
	x) shell=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
if [ -n "$report" ]; then
	mkdir -p "$(dirname "$report")"
	exec > >(tee "$report") 2>&1
fi

case $arch in amd64 | arm64) ;; *) die "no architecture '$arch' (amd64, arm64)" ;; esac
if [ -z "$kernel" ] && [ "$arch" = arm64 ]; then
	die "an arm64 guest needs its kernel: -k \$(tests/kernel/kernels.sh -a arm64 image 6.1)"
elif [ -z "$kernel" ]; then
	kver=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
		sed -n 's/.*linux-headers-\([^ ,]*\).*/\1/p')
	boot=${MKM_CACHE:-$HOME/.cache/mkm}/linux-image-$kver/boot
	# The ELF vmlinux boots twice as fast as the vmlinuz (see deps.sh).
	kernel=$boot/vmlinux-$kver
	[ -f "$kernel" ] || kernel=$boot/vmlinuz-$kver
fi
[ -f "$kernel" ] || die "no guest kernel at $kernel: run make deps"
[ -f "$initramfs" ] || die "no initramfs at $initramfs: run make $initramfs"
mkdir -p "$(dirname "$log")"
base=${log%.log}

# A command script or extra files go in an overlay appended to the image.
if [ -n "$script" ] || [ ${#files[@]} -gt 0 ]; then
	"$here/mkinitramfs.sh" -O -o "$base.overlay.gz" ${script:+-c "$script"} "${files[@]}"
	cat "$initramfs" "$base.overlay.gz" >"$base.initramfs.gz"
	initramfs=$base.initramfs.gz
fi

accel=${MKM_VM_ACCEL:-tcg,thread=single}
# la57=off: with 5-level paging, 6.1's identify_cpu() clears the boot CPU's
# feature words (LA57 among them) with interrupts on, and KASAN, which asks
# that word how wide addresses are, calls an interrupt handler's access to a
# 5-level direct-map address wild (BUG: KASAN: wild-memory-access in
# do_raw_spin_lock, at 0.01 s, now and then). A kernel bug, not ours; the
# guest gets 4-level paging, like most machines mkm will run on.
# cpu_opts: the CPU model under TCG (arm64: every feature QEMU has).
cpu_opts=max,la57=off
[ "$arch" = amd64 ] || cpu_opts=max
case $accel in
kvm*) accel=(-accel "$accel" -cpu host) ;;
*) accel=(-accel "$accel" -cpu "$cpu_opts") ;;
esac
mode=tests
[ -z "$script" ] || mode=cmd
[ -z "$shell" ] || mode=shell
if [ -z "$idle" ]; then
	[ $mode = tests ] && idle=$((test_timeout + 60)) || idle=0
fi
# tsc=reliable: under TCG the guest would mark its TSC unstable, and then its
# sched_clock (schedstat, ftrace) and CLOCK_MONOTONIC (mkm) drift apart
# whenever the host deschedules a virtual CPU; on the TSC, both agree.
# printk.time=1: the splat patterns match timestamped kernel lines, and the
# debug kernel (tinyconfig) does not stamp them by default.
# qemu_for CPUS [MORE-APPEND]: the QEMU command line of a boot, in qemu.
# arm64: QEMU's virt board with a GICv3 (the servers' interrupt
# controller), one PL011 UART (so /out goes out on a virtio serial port,
# given only to a run with -o) and the architected timer, which needs no
# tsc=reliable.
qemu_for() {
	case $arch in
	amd64)
		qemu=(qemu-system-x86_64 "${accel[@]}" -smp "$1" -m "$mem"
			-nodefaults -no-user-config -nographic -no-reboot
			-kernel "$kernel" -initrd "$initramfs"
			-append "console=ttyS0 panic=-1 tsc=reliable printk.time=1 mkm_mode=$mode mkm_test_timeout=$test_timeout $append ${2:-}")
		;;
	arm64)
		qemu=(qemu-system-aarch64 -M virt,gic-version=3 "${accel[@]}" -smp "$1" -m "$mem"
			-nodefaults -no-user-config -nographic -no-reboot
			-kernel "$kernel" -initrd "$initramfs"
			-append "console=ttyAMA0 panic=-1 printk.time=1 mkm_mode=$mode mkm_test_timeout=$test_timeout $append ${2:-}")
		;;
	esac
}
# The port for /out, into $1 (file:PATH, or null): amd64's serial port
# after the console (ttyS1); on arm64 a virtio serial port (the guest's
# /dev/vport0p1; Debian's arm64 6.12 builds virtio_console and virtio_pci
# in), given only when -o asks for /out, so that the tests' guests keep
# the board as it is.
out_serial() {
	out_port=()
	case $arch in
	amd64) out_port=(-serial "$1") ;;
	arm64)
		[ -n "$outdir" ] && [ "$1" != null ] || return 0
		out_port=(-chardev "file,id=out,path=${1#file:}" -device virtio-serial-pci
			-device virtserialport,chardev=out)
		;;
	esac
}
qemu_for "$cpus"

if [ -n "$shell" ]; then
	out_serial null
	exec "${qemu[@]}" -serial mon:stdio "${out_port[@]}" "$@"
fi

# One boot: run the guest, bring /out back, read the log. Returns 0 if all
# passed, 3 if the only failures are splats printed before init started
# (report.awk: the kernel's own boot, before mkm.ko could be loaded), else 1.
boot() {
	data=$base.out.tar.gz
	rm -f "$data"
	echo "vm: booting $(basename "$kernel") (${accel[1]}, $cpus cpus), log in $log"
	# Stop the guest when the whole run takes too long, or when the console
	# stays silent longer than a test may take: a kernel hung hard prints nothing.
	: >"$log"
	out_serial "file:$data"
	"${qemu[@]}" -serial "file:$log" "${out_port[@]}" "$@" </dev/null &
	qpid=$!
	trap 'kill $qpid 2>/dev/null; exit 130' INT TERM
	[ -z "$verbose" ] || tail -n +1 -F --pid=$qpid "$log" 2>/dev/null &
	start=$(date +%s) stopped=
	while kill -0 $qpid 2>/dev/null; do
		sleep 1
		now=$(date +%s)
		if [ $((now - start)) -ge "$timeout" ]; then
			stopped="the run took $timeout s (-t)"
		elif [ "$idle" -gt 0 ] && [ $((now - $(stat -c %Y "$log"))) -ge "$idle" ]; then
			stopped="the console was silent for $idle s (-I)"
		else
			continue
		fi
		kill $qpid
		break
	done
	qemu_status=0
	wait $qpid 2>/dev/null || qemu_status=$?
	took=$(($(date +%s) - start))
	if [ -n "$stopped" ]; then
		echo "vm: stopped the guest: $stopped"
	elif [ $qemu_status -ne 0 ]; then
		echo "vm: QEMU failed (exit status $qemu_status), see its message above"
	fi

	local out_bad=0
	if [ -n "$outdir" ]; then
		mkdir -p "$outdir"
		if [ ! -s "$data" ]; then
			echo "vm: the guest wrote nothing under /out"
		elif tar -xz -f "$data" -C "$outdir"; then
			echo "vm: the guest's /out is in $outdir"
		else
			echo "vm: cannot unpack the guest's /out from $data"
			out_bad=1
		fi
	fi

	# Read the log: report tests, find splats, decide.
	local rc=0
	awk -v logfile="$log" -v took="$took" -f "$here/report.awk" "$log" || rc=$?
	[ $out_bad = 0 ] || rc=1
	return $rc
}

# A splat while the kernel boots, before init and the module, is not ours:
# boot again (MKM_VM_BOOT_RETRIES times, default 1) so that an intermittent
# kernel bug cannot fail a run at random; if it comes back, the run fails.
# Anything printed after init started always fails the run.
boots() {
	local attempt status
	for ((attempt = 0; ; attempt++)); do
		status=0
		boot "$@" || status=$?
		[ $status = 3 ] && [ $attempt -lt "${MKM_VM_BOOT_RETRIES:-1}" ] || break
		echo "vm: the kernel splatted while booting, before init and mkm.ko: not ours; booting again"
	done
	return $status
}
status=0
boots "$@" || status=$?

# -e: tests that hold mkm's times against the kernel's own accounting. On a
# loaded host QEMU's thread can be descheduled for milliseconds between two
# guest instructions, and the guest's clock, which follows the host's, puts
# that stall inside whatever the guest was doing: a switch's few
# microseconds between the kernel's clock read and mkm's became 15 ms. On
# one vCPU under -icount the guest's time follows the instructions it
# executes, so a stall takes none of it. -icount needs single-threaded TCG,
# which is always there, whatever MKM_VM_ACCEL chose for the first boot.
if [ -n "$exact" ] && [ $mode = tests ]; then
	accel=(-accel tcg,thread=single -cpu "$cpu_opts")
	log=$base.icount.log base=$base.icount cpus=1
	qemu_for "$cpus" "mkm_tests=$exact mkm_clock=icount"
	boots "$@" -icount shift=1,sleep=on || status=$?
fi
[ $status = 0 ]
