#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh - the main job, end to end: boot Debian's kernel in QEMU with
# mkm.ko, record the MKM paper's matrix multiplication with mkm record, bring
# the trace back to out/matmul.mkm, and show where each thread's time went.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
case $build in /*) ;; *) build=$top/$build ;; esac
export BUILD=$build
out=${OUT:-$top/out}
mkm=$build/tools/mkm
mkdir -p "$out" "$build/vm"

# What the guest runs, as root, with the module loaded.
cat >"$build/vm/demo.sh" <<'GUEST'
mkm record -o /out/matmul.mkm -- matmul -n 160 -t 4
GUEST

echo "demo: booting the VM (Debian's 6.1 kernel under QEMU) and recording matmul"
"$top/tests/vm/run.sh" -c "$build/vm/demo.sh" -o "$out" \
	-f "$mkm" -f "$build/examples/matmul" -l "$build/vm/demo.log" -t 600
if [ ! -s "$out/matmul.mkm" ]; then
	echo "demo: no trace came back (see $build/vm/demo.log)" >&2
	exit 1
fi

echo
"$mkm" report "$out/matmul.mkm"
echo
"$mkm" timeline -w 100 "$out/matmul.mkm"
echo
echo "The trace is $out/matmul.mkm. Explore it further:"
echo "  $mkm view $out/matmul.mkm             the timeline, interactive (? lists the keys)"
echo "  $mkm report --json $out/matmul.mkm    every figure, per thread and state"
echo "  $mkm timeline -w 200 $out/matmul.mkm  a wider timeline"
echo "  examples/matmul/README.md  what to look for"
