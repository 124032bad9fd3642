#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot-loop.sh - boot a guest kernel N times in a row, without the module,
# and count the boots whose console shows a splat: proof that the kernel
# boots clean in the harness, so a splat in a test run is the module's.
#
#   tests/kernel/boot-loop.sh [-n N] [-k KERNEL] [-- QEMU-ARGS...]
#
# Default: 50 boots of the debug kernel (built once into the cache). QEMU
# arguments go after the harness's own, and QEMU takes the last -cpu: e.g.
# "-- -cpu max" boots with LA57, as the harness did before it turned it off.
# No retry: every boot counts (MKM_VM_BOOT_RETRIES=0). Exit status 1 if any
# boot splatted or failed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$here/../../build}
n=50 kernel=
while getopts "n:k:h" opt; do
	case $opt in
	n) n=$OPTARG ;;
	k) kernel=$OPTARG ;;
	*) sed -n '3,14p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -n "$kernel" ] || kernel=$("$here/build-debug-kernel.sh")/arch/x86/boot/bzImage

dir=$build/boot-loop
mkdir -p "$dir"
# The bare image: busybox and init, no module, no test: init boots, finds
# nothing to do, and powers off.
"$here/../vm/mkinitramfs.sh" -o "$dir/initramfs.cpio.gz"
printf 'true\n' >"$dir/cmd"

bad=0
for ((i = 1; i <= n; i++)); do
	log=$dir/boot-$i.log
	if MKM_VM_BOOT_RETRIES=0 BUILD=$build "$here/../vm/run.sh" -k "$kernel" \
		-i "$dir/initramfs.cpio.gz" -c "$dir/cmd" -l "$log" -t 120 \
		-- "$@" >"$dir/boot-$i.out" 2>&1; then
		printf 'boot %d/%d: clean\n' "$i" "$n"
	else
		bad=$((bad + 1))
		printf 'boot %d/%d: FAILED, see %s\n' "$i" "$n" "$log"
		grep -m 3 -E 'BUG:|WARNING:|KASAN|FAIL' "$dir/boot-$i.out" | sed 's/^/  /' || true
	fi
done
printf 'boot-loop: %d boots of %s, %d clean, %d with a splat or failure\n' \
	"$n" "$(basename "$kernel")" $((n - bad)) "$bad"
[ "$bad" = 0 ]
