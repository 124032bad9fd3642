#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-debug-kernel.sh - builds the debug kernel (tinyconfig + debug.config)
# from Debian's linux-source-6.1, in the cache, once per version of the
# fragment. Prints the build directory (bzImage at arch/x86/boot/bzImage; the
# module builds against it with make -C DIR M=...).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${MKM_CACHE:-$HOME/.cache/mkm}
fragment=$here/debug.config
key=$(sha256sum "$fragment" | cut -c1-12)
src=$cache/linux-source-6.1
out=$cache/debug-kernel-$key
log=$cache/debug-kernel-$key.log

if [ -f "$out/arch/x86/boot/bzImage" ] && [ -f "$out/.mkm-ready" ]; then
	echo "$out"
	exit 0
fi

say() { echo "debug-kernel: $*" >&2; }

if [ ! -f "$src/Makefile" ]; then
	deb=$(ls "$cache"/linux-source-6.1_*.deb 2>/dev/null | tail -n 1 || true)
	if [ -z "$deb" ]; then
		say "fetching linux-source-6.1 into $cache"
		(cd "$cache" && apt-get download -q linux-source-6.1 >/dev/null 2>&1)
		deb=$(ls "$cache"/linux-source-6.1_*.deb | tail -n 1)
	fi
	say "unpacking $(basename "$deb")"
	rm -rf "$src.tmp" && mkdir -p "$src.tmp"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO ./usr/src/linux-source-6.1.tar.xz |
		tar -xJ -C "$src.tmp" --strip-components=1
	mv "$src.tmp" "$src"
fi

say "configuring in $out (log: $log)"
mkdir -p "$out"
{
	make -C "$src" O="$out" tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$fragment"
	make -C "$src" O="$out" olddefconfig
} >"$log" 2>&1

# Every option the fragment asks for must have survived the dependency
# resolution: a silently dropped KASAN would make every test meaningless.
missing=0
while IFS= read -r line; do
	case "$line" in CONFIG_*) ;; *) continue ;; esac
	opt=${line%%=*}
	val=${line#*=}
	if [ "$val" = n ]; then
		grep -q "^$opt=" "$out/.config" && { say "$opt is set, wanted off"; missing=1; }
	elif ! grep -qx "$line" "$out/.config"; then
		say "$line did not stick (dependencies?)"
		missing=1
	fi
done <"$fragment"
[ "$missing" = 0 ] || exit 1

say "building (about 5 minutes on 2 cores)"
make -C "$src" O="$out" -j"$(nproc)" bzImage modules >>"$log" 2>&1 ||
	{ tail -n 30 "$log" >&2; exit 1; }
touch "$out/.mkm-ready"
echo "$out"
