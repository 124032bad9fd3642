#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# deps.sh: install what mkm's build and tests need (Debian bookworm, as root),
# and fetch the guest kernel the VM tests boot. Idempotent; fast when all is there.
#
# The guest kernel is Debian's linux-image matching linux-headers-amd64 (so
# mkm.ko built against those headers loads in it). It is downloaded and
# unpacked with dpkg -x into the cache, never installed on this machine.
# Its vmlinux is then taken out of the compressed vmlinuz: QEMU boots that
# ELF file directly (PVH), which under TCG halves the boot time (no BIOS
# path, no decompression).
#
# Environment: MKM_CACHE (default $HOME/.cache/mkm) is where the kernel goes.
set -euo pipefail

PACKAGES=(
	build-essential linux-headers-amd64 kmod sparse   # the module
	pkg-config libcmocka-dev liburcu-dev libncurses-dev   # userland, unit tests
	clang llvm libclang-rt-14-dev valgrind clang-format   # sanitizers, fuzzing, style
	qemu-system-x86 busybox-static cpio gzip xz-utils   # the VM harness
	flex bison bc libelf-dev libssl-dev   # the debug kernel (tests/kernel)
	tmux git ca-certificates   # viewer tests, CI
	protobuf-compiler babeltrace2 python3-bt2   # exporters' readers (tests/export)
	otf2-tools libopen-trace-format2-dev
	libcairo2-dev fonts-dejavu-core   # pictures (mkm timeline --svg/--png)
	rt-tests   # hackbench, a workload nobody here wrote (bench/compensation)
	debhelper dh-dkms dkms lintian   # make deb, tests/pkg (check-install)
	linux-perf libglib2.0-dev   # bench-vm's perf record, bench-profile's QEMU plugin
	libpopt0 liblttng-ctl0 liblttng-ust-ctl5 liblttng-ust-common1   # lttng-tools' libraries
)
# Fetched as .deb files, never installed here (see step 3).
PEER_DEBS=(lttng-modules-dkms lttng-tools)
CACHE=${MKM_CACHE:-${HOME:-/root}/.cache/mkm}

say() { printf 'deps: %s\n' "$*"; }
die() { printf 'deps: %s\n' "$*" >&2; exit 1; }

if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
	command -v sudo >/dev/null || die "not root and no sudo: run as root"
else
	SUDO=
fi

# 1. Debian packages: ask dpkg which are missing; update and install only those.
missing=()
for p in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	say "packages: all ${#PACKAGES[@]} installed"
else
	say "packages: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	say "packages: installed"
fi

# 2. The guest kernel: the linux-image that linux-headers-amd64 points at.
KVER=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 |
	sed -n 's/.*linux-headers-\([^ ,]*\).*/\1/p')
[ -n "$KVER" ] || die "cannot tell the kernel version from linux-headers-amd64"
KDIR=$CACHE/linux-image-$KVER
VMLINUZ=$KDIR/boot/vmlinuz-$KVER
if [ -f "$VMLINUZ" ]; then
	say "guest kernel: $VMLINUZ"
else
	say "guest kernel: downloading linux-image-$KVER into $CACHE"
	mkdir -p "$CACHE"
	# apt-get download runs as _apt: give it a folder it can write to.
	deb=$(mktemp -d)
	unpack=$(mktemp -d "$CACHE/unpack.XXXXXX")
	trap 'rm -rf "$deb" "$unpack"' EXIT
	chmod 0777 "$deb"
	if ! (cd "$deb" && apt-get download -qq "linux-image-$KVER" 2>/dev/null); then
		say "guest kernel: not in the package lists, running apt-get update"
		$SUDO apt-get update -qq
		(cd "$deb" && apt-get download -qq "linux-image-$KVER")
	fi
	chmod 0755 "$unpack"
	dpkg -x "$deb"/linux-image-"$KVER"_*.deb "$unpack"
	[ -f "$unpack/boot/vmlinuz-$KVER" ] || die "no boot/vmlinuz-$KVER in linux-image-$KVER"
	rm -rf "$KDIR"
	mv "$unpack" "$KDIR"
	say "guest kernel: $VMLINUZ"
fi

VMLINUX=$KDIR/boot/vmlinux-$KVER
if [ -f "$VMLINUX" ]; then
	say "guest vmlinux: $VMLINUX"
else
	# Debian compresses it with xz: try each xz header in the bzImage.
	for off in $(LC_ALL=C grep -abo $'\xfd7zXZ' "$VMLINUZ" | cut -d: -f1); do
		tail -c +$((off + 1)) "$VMLINUZ" | xz -dcq >"$VMLINUX.tmp" 2>/dev/null || true
		[ "$(head -c 4 "$VMLINUX.tmp")" = $'\x7fELF' ] && break
	done
	if [ "$(head -c 4 "$VMLINUX.tmp" 2>/dev/null)" = $'\x7fELF' ]; then
		mv "$VMLINUX.tmp" "$VMLINUX"
		say "guest vmlinux: $VMLINUX"
	else
		rm -f "$VMLINUX.tmp"
		say "guest vmlinux: cannot take it out of $VMLINUZ; the VM boots the slower vmlinuz"
	fi
fi

# 3. bench-vm's LTTng, for the guest only. Installing lttng-modules-dkms would
# have DKMS build it for every kernel under /lib/modules, and 2.13.9 does not
# build on 6.1.192 without a fix (bench/peers/), which fails the install;
# lttng-tools would start a root session daemon on this machine. So both are
# downloaded into the cache, and bench/peers/build.mk unpacks them into the
# build tree (their libraries are ordinary packages, above).
mkdir -p "$CACHE/peers"
for p in "${PEER_DEBS[@]}"; do
	if compgen -G "$CACHE/peers/${p}_*.deb" >/dev/null; then
		continue
	fi
	say "bench peers: downloading $p into $CACHE/peers"
	dl=$(mktemp -d)
	chmod 0777 "$dl"
	if ! (cd "$dl" && apt-get download -qq "$p" 2>/dev/null); then
		say "bench peers: $p not in the package lists, running apt-get update"
		$SUDO apt-get update -qq
		(cd "$dl" && apt-get download -qq "$p")
	fi
	mv "$dl"/"${p}"_*.deb "$CACHE/peers/"
	rm -rf "$dl"
done
say "bench peers: $(cd "$CACHE/peers" && echo *.deb)"
