#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels.sh - bench-vm on several kernels of tests/kernel/matrix: for each,
# mkm.ko and the floor's module built for it, an image with vm_switch and
# perf, one -icount boot of its Debian image (bench/vm.sh switch), its
# table; then one table kernel x configuration, instructions per switch
# over "loaded" (mkm.ko loaded, no monitor).
#
#   bench/kernels.sh [-a ARCH] [-n ROUNDS] [-r RUNS] [-c CONFIGS] NAME...
#
# LTTng's configurations run where an lttng-modules of Debian's builds for
# the kernel (lttng_modules_deb below) with bookworm's lttng-tools 2.13,
# and CONFIGS, if given, names one of them; vm_switch skips them where the
# image has no lttng-sessiond.
#
# -a arm64: the kernels of tests/kernel/matrix-arm64, mkm.ko and floor.ko
# cross-built (tests/kernel/kernels.sh -a arm64), vm_switch cross-built
# into $BUILD/arm64/bench (make bench-vm-arm64), booted in
# qemu-system-aarch64 (bench/vm.sh -A arm64); no perf, LTTng or eBPF peer
# (this machine's are x86-64 programs), ftrace and the floor as on x86-64.
# Its table is $BUILD/bench/kernels-arm64.tsv. Each
# guest first sleeps BENCH_SETTLE seconds (default 60; free under -icount's
# sleep=on): a fresh 7.2 guest's own work made its first runs cost up to
# 12,000 instructions more per switch.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
case $build in /*) ;; *) build=$top/$build ;; esac
rounds=20000 runs=5 configs= arch=amd64
while getopts "a:n:r:c:" opt; do
	case $opt in
	a) arch=$OPTARG ;;
	n) rounds=$OPTARG ;;
	r) runs=$OPTARG ;;
	c) configs=$OPTARG ;;
	*) echo "usage: $0 [-a ARCH] [-n ROUNDS] [-r RUNS] [-c CONFIGS] NAME..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- 6.1 6.12 7.2
# kernels.sh and its matrix for the architecture; the guest program built
# for it; the summary's file.
kernels=$top/tests/kernel/kernels.sh
arch_kernels=("$kernels" -a "$arch")
vm_switch=$build/bench/vm_switch summary=$build/bench/kernels.tsv
case $arch in
amd64) ;;
arm64) vm_switch=$build/arm64/bench/vm_switch summary=$build/bench/kernels-arm64.tsv ;;
*) echo "bench: no architecture '$arch' (amd64, arm64)" >&2; exit 2 ;;
esac
[ -x "$vm_switch" ] || { echo "bench: no $vm_switch: make bench-kernels or bench-vm-arm64 builds it" >&2; exit 1; }

cache=${MKM_CACHE:-$HOME/.cache/mkm}

# The lttng-modules-dkms to build for kernel $1, or nothing: bookworm's
# 2.13.9 (make deps put it in the cache) for 6.1; trixie's 2.13 for 6.12
# and sid's 2.16 for 7.2, each fetched once into the cache
# (bookworm-backports has none; trixie's does not build for 7.2). All run
# with bookworm's lttng-tools 2.13: the modules' ABI is 2.x in both. A
# PREEMPT_RT twin takes its kernel's.
lttng_modules_deb() {
	local suite
	case ${1%-rt} in
	6.1) compgen -G "$cache/peers/lttng-modules-dkms_*.deb" | sort | tail -n 1; return ;;
	6.12) suite=trixie ;;
	7.2) suite=sid ;;
	*) return ;;
	esac
	local d=$cache/peers/$suite
	if ! compgen -G "$d/lttng-modules-dkms_*.deb" >/dev/null; then
		mkdir -p "$d" && chmod 777 "$d"
		(cd "$d" && "$kernels" download "$suite" lttng-modules-dkms)
	fi
	compgen -G "$d/lttng-modules-dkms_*.deb" | sort | tail -n 1
}

# What building lttng-modules for kernel $1 adds to make's arguments: its
# build environment (sid's chroot, for the kernels sid's gcc builds) and
# compiler, and no local patch for sid's 2.16 (the one patch is 2.13's).
lttng_build_args() {
	local peers=$build/bench/kernels/$2/bench/peers/lttng-modules
	echo "LTTNG_RUN=$kernels run $1 $peers --"
	if [ "$("$kernels" list | awk -v n="$1" '$1 == n { print $3 }')" = sid ]; then
		echo "LTTNG_KBUILD_ARGS=CC=gcc-16 HOSTCC=gcc-16"
		echo "LTTNG_PATCHES="
	fi
}

mkdir -p "$build/bench"
: >"$summary"
for name in "$@"; do
	release=$("${arch_kernels[@]}" list | awk -v n="$name" '$1 == n { print $2 }')
	[ -n "$release" ] || { echo "bench: no kernel '$name' in the $arch matrix (tests/kernel/)" >&2; exit 1; }
	dir=$build/bench/kernels/$release
	echo "== $name ($release)"
	"${arch_kernels[@]}" build "$name" "$dir/mkm" ||
		{ cat "$dir/mkm/build.log" >&2; exit 1; }
	"${arch_kernels[@]}" build "$name" "$dir/floor" "$top/bench/floor" ||
		{ cat "$dir/floor/build.log" >&2; exit 1; }
	lttng=() peers=() deb=
	if [ "$arch" != amd64 ]; then
		echo "bench: $arch: no perf, LTTng or eBPF peer"
	elif [ -n "$configs" ] && [[ $configs != *lttng* ]]; then
		echo "bench: no LTTng configuration asked for: LTTng left out"
	else
		deb=$(lttng_modules_deb "$name")
		[ -n "$deb" ] || echo "bench: no lttng-modules for $name: LTTng left out"
	fi
	[ "$arch" != amd64 ] || peers=(-f "${PERF:-/usr/bin/perf}:/usr/bin/perf")
	if [ -n "$deb" ]; then
		mapfile -t args < <(lttng_build_args "$name" "$release")
		make -s --no-print-directory -C "$top" BUILD="$dir" \
			KDIR="$("$kernels" kdir "$name")" KVER="$release" \
			LTTNG_MODULES_DEB="$deb" "${args[@]}" peers-lttng
		mapfile -t lttng < <(make -s --no-print-directory -C "$top" \
			BUILD="$dir" lttng-image-files)
	fi
	"$top/tests/vm/mkinitramfs.sh" -A "$arch" -o "$dir/initramfs.cpio.gz" \
		-f "$vm_switch" -f "$dir/mkm/mkm.ko:/bench/mkm.ko" \
		-f "$dir/floor/floor.ko:/bench/floor.ko" "${peers[@]}" "${lttng[@]}"
	BUILD=$dir BENCH_IMAGE=$dir/initramfs.cpio.gz BENCH_SETTLE=${BENCH_SETTLE:-60} \
		BENCH_VM_ARGS="-k $("${arch_kernels[@]}" image "$name")" \
		"$top/bench/vm.sh" -A "$arch" switch -n "$rounds" -r "$runs" ${configs:+-c "$configs"}
	awk -v summary="$name" -f "$top/bench/table.awk" "$dir/bench/switch/vm_switch.tsv" >>"$summary"
	echo
done

# The table: a row per configuration, a column per kernel.
awk -v arch="$arch" '
{ k[$1] = 1; if (!($2 in c)) { c[$2] = 1; order[++n] = $2 } v[$1, $2] = $3
  if (!($1 in col)) { col[$1] = ++m; name[m] = $1 } }
END {
	printf "bench-vm on each %s kernel: guest instructions per switch over \"loaded\"\n\n%-12s", arch, "config"
	for (j = 1; j <= m; j++) printf " %10s", name[j]
	printf "\n"
	for (i = 1; i <= n; i++) {
		printf "%-12s", order[i]
		for (j = 1; j <= m; j++)
			printf " %10s", ((name[j], order[i]) in v) ? sprintf("%+.1f", v[name[j], order[i]]) : "-"
		printf "\n"
	}
}' "$summary"
