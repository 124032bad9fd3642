#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sysroot.sh - the arm64 guest's userland, from Debian's arm64 packages:
# busybox-static for the initramfs, and the libraries the cross-built tests
# link and run with (cmocka, liburcu), unpacked with dpkg -x into
# $MKM_CACHE/arm64/sysroot. The C library is the cross toolchain's
# (libc6-dev-arm64-cross, /usr/aarch64-linux-gnu: the same glibc as
# bookworm's arm64 libc6). Downloaded through kernels.sh's private apt
# configuration naming arm64; nothing is installed on this machine.
#
#   sysroot.sh          fetch it (once; again when the package list
#                       changes) and print its path
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${MKM_CACHE:-${HOME:-/root}/.cache/mkm}
root=$cache/arm64/sysroot
PACKAGES=(busybox-static libcmocka0 libcmocka-dev liburcu8 liburcu-dev
	libncurses-dev libncursesw6 libtinfo6 libcairo2-dev libcairo2 libfontconfig1
	libfreetype6 libpixman-1-0 libpng16-16 libx11-6 libxau6 libxcb-render0
	libxcb-shm0 libxcb1 libxdmcp6 libxext6 libxrender1 libexpat1 libbrotli1
	libbsd0 libmd0 zlib1g)

want="${PACKAGES[*]}"
if [ -f "$root/.mkm-ready" ] && [ "$(cat "$root/.mkm-ready")" = "$want" ]; then
	echo "$root"
	exit 0
fi
echo "sysroot: downloading ${PACKAGES[*]} (arm64) into $root" >&2
dl=$(mktemp -d)
chmod 0777 "$dl"
trap 'rm -rf "$dl"' EXIT
(cd "$dl" && "$here/../kernel/kernels.sh" -a arm64 download bookworm "${PACKAGES[@]}")
rm -rf "$root.tmp" && mkdir -p "$root.tmp"
for deb in "$dl"/*.deb; do dpkg -x "$deb" "$root.tmp"; done
[ -x "$root.tmp/bin/busybox" ] || { echo "sysroot: busybox-static has no /bin/busybox" >&2; exit 1; }
echo "$want" >"$root.tmp/.mkm-ready"
rm -rf "$root" && mv "$root.tmp" "$root"
echo "$root"
