#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# deps.sh: install what mkm's build and tests need (Debian bookworm, as root),
# and fetch the guest kernels the VM tests boot. Idempotent; fast when all is there.
#
# The reference guest kernel is Debian's linux-image matching
# linux-headers-amd64 (so mkm.ko built against those headers loads in it);
# the others are those of tests/kernel/matrix, with their headers. All are
# downloaded and unpacked into the cache by tests/kernel/kernels.sh, never
# installed on this machine.
#
#   deps.sh            everything make check needs
#   deps.sh --demo     what make demo needs: the packages and the reference
#                      kernel (not the matrix's others, their sid chroot, or
#                      the benches' LTTng)
#
# Environment: MKM_CACHE (default $HOME/.cache/mkm) is where the kernel goes.
set -euo pipefail
demo=
case ${1:-} in
'') ;;
--demo) demo=1 ;;
*) echo "usage: deps.sh [--demo]" >&2; exit 2 ;;
esac

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
	rt-tests stress-ng sqlite3   # hackbench, stress-ng, sqlite3 (and xz): workloads nobody here wrote (bench/compensation)
	mmdebstrap dwarves zstd   # the kernel matrix (tests/kernel: sid chroot, BTF, 6.12's images)
	crossbuild-essential-arm64 qemu-system-arm   # the arm64 matrix (tests/kernel/matrix-arm64)
	debhelper dh-dkms dkms lintian   # make deb, tests/pkg (check-install)
	linux-perf libglib2.0-dev   # bench-vm's perf record, bench-profile's QEMU plugin
	libpopt0 liblttng-ctl0 liblttng-ust-ctl5 liblttng-ust-common1   # lttng-tools' libraries
	libbpf-dev bpftool bpftrace   # bench-vm's eBPF peers (clang's BPF target is above)
	libslurm-dev   # the SPANK plugin (slurm/: srun --mkm)
	slurmctld slurmd slurm-client munge   # check-cluster's guests (copied into their image)
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

# 2. The guest kernels: the reference and the matrix's others, with their
# headers (tests/kernel/kernels.sh; a sid chroot for those sid's gcc builds).
if [ -n "$demo" ]; then
	reference=$(awk '$3 == "reference" { print $1 }' "$(dirname "$0")/../kernel/matrix")
	MKM_CACHE=$CACHE "$(dirname "$0")/../kernel/kernels.sh" fetch -n "$reference"
	exit 0
fi
MKM_CACHE=$CACHE "$(dirname "$0")/../kernel/kernels.sh" fetch

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
