#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-debug-kernel.sh [NAME] - builds a debug kernel (tinyconfig plus
# debug.config: KASAN, lockdep, PROVE_RCU, DEBUG_ATOMIC_SLEEP, ...) from
# Debian's linux-source, in the cache, once per version of its fragments.
# Prints the build directory (bzImage at arch/x86/boot/bzImage; the module
# builds against it with make -C DIR M=..., in NAME's build environment:
# tests/kernel/kernels.sh run NAME).
#
# NAME is a kernel of tests/kernel/matrix that has a debug twin here, where
# the risk is:
#   6.1      (default) the reference, Debian 12's, from linux-source-6.1,
#            which checks module signatures (signed.config)
#   6.12-rt  PREEMPT_RT (rt.config), from bookworm-backports' linux-source-6.12:
#            sleeping locks in atomic context show there
#   7.2      sid's linux-source-7.2, built in the sid chroot with its gcc-16:
#            tracepoints that call probes preemptible (SRCU-fast) show there
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${MKM_CACHE:-$HOME/.cache/mkm}
name=${1:-6.1}

say() { echo "debug-kernel: $*" >&2; }
die() { echo "debug-kernel: $*" >&2; exit 1; }

# name: source package, its version (empty: the suite's), suite, fragments.
# cc: make's compilers, where the build environment has no plain gcc.
cc=()
case $name in
6.1) pkg=linux-source-6.1 version= suite=bookworm fragments=(debug.config signed.config) ;;
6.12-rt) pkg=linux-source-6.12 version=6.12.95-1~bpo12+1 suite=bookworm-backports
	fragments=(debug.config rt.config) ;;
7.2) pkg=linux-source-7.2 version=7.2.13-1 suite=sid fragments=(debug.config)
	cc=(CC=gcc-16 HOSTCC=gcc-16) ;;
*) die "no debug kernel for '$name' (6.1, 6.12-rt, 7.2)" ;;
esac
builds=$("$here/kernels.sh" list | awk -v n="$name" '$1 == n { print $3 }')
[ -n "$builds" ] || die "'$name' is not in tests/kernel/matrix"

# One folder per kernel, which a chroot build sees at the same path.
base=$cache/debug-$name
[ "$name" = 6.1 ] && base=$cache # where 6.1's always was
key=$( (echo "$pkg $version"; cd "$here" && cat "${fragments[@]}") | sha256sum | cut -c1-12)
src=$base/$pkg
out=$base/debug-kernel-$key
log=$base/debug-kernel-$key.log
[ "$name" = 6.1 ] || { out=$base/kernel-$key; log=$base/kernel-$key.log; }

if [ -f "$out/arch/x86/boot/bzImage" ] && [ -f "$out/.mkm-ready" ]; then
	echo "$out"
	exit 0
fi
mkdir -p "$base"

if [ ! -f "$src/Makefile" ]; then
	deb=$(ls "$base"/"$pkg"_*.deb 2>/dev/null | tail -n 1 || true)
	if [ -z "$deb" ]; then
		say "fetching $pkg${version:+=$version} ($suite) into $base"
		dl=$(mktemp -d) && chmod 0777 "$dl"
		(cd "$dl" && "$here/kernels.sh" download "$suite" "$pkg${version:+=$version}")
		mv "$dl"/*.deb "$base/" && rm -rf "$dl"
		deb=$(ls "$base"/"$pkg"_*.deb | tail -n 1)
	fi
	say "unpacking $(basename "$deb")"
	rm -rf "$src.tmp" && mkdir -p "$src.tmp"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO "./usr/src/$pkg.tar.xz" |
		tar -xJ -C "$src.tmp" --strip-components=1
	mv "$src.tmp" "$src"
fi

# The fragments, in order (a later one's value wins), and the value each
# option ends with.
mkdir -p "$out"
(cd "$here" && cat "${fragments[@]}") >"$out/mkm.config"
wanted=$(sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)/\1 \2/p' "$out/mkm.config" |
	awk '{ v[$1] = $2; if (!($1 in o)) o[$1] = n++ } END { for (k in v) print o[k], k "=" v[k] }' |
	sort -n | cut -d' ' -f2)

# make in NAME's build environment (the sid chroot for 7.2).
kmake() { "$here/kernels.sh" run "$name" "$base" -- make -C "$src" O="$out" "${cc[@]}" "$@"; }

say "configuring $name in $out (log: $log)"
{
	kmake tinyconfig
	"$here/kernels.sh" run "$name" "$base" -- env "${cc[@]}" \
		"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$out/mkm.config"
	kmake olddefconfig
} >"$log" 2>&1 || { tail -n 20 "$log" >&2; exit 1; }

# Every option the fragments ask for must have survived the dependency
# resolution: a silently dropped KASAN would make every test meaningless.
missing=0
for line in $wanted; do
	opt=${line%%=*}
	val=${line#*=}
	if [ "$val" = n ]; then
		grep -q "^$opt=" "$out/.config" && { say "$opt is set, wanted off"; missing=1; }
	elif ! grep -qx "$line" "$out/.config"; then
		say "$line did not stick (dependencies?)"
		missing=1
	fi
done
[ "$missing" = 0 ] || exit 1

say "building $name (5 to 15 minutes on 2 cores)"
kmake -j"$(nproc)" bzImage modules >>"$log" 2>&1 || { tail -n 30 "$log" >&2; exit 1; }
touch "$out/.mkm-ready"
echo "$out"
