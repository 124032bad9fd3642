#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# smoke_vm.sh - a VM test (check-vm): bench's guest programs with a tiny N,
# and their tables, made in the guest by the same awk scripts as the host's.
# Figures from a guest without -icount are noise; this checks that the
# benchmarks run, leave the module loaded, and lose no record.
set -eu
cd /tmp
vm_switch -n 20 -r 1 -o /tmp/vm_switch.tsv
awk -f /bench/table.awk /tmp/vm_switch.tsv
for c in base loaded suspended const mon mon-two mon-wake mon-all mon-flight; do
	grep -q "^1 $c 20 " /tmp/vm_switch.tsv || { echo "smoke: no $c line"; exit 1; }
done
# mon and mon-all recorded something and lost nothing.
awk '$2 ~ /^mon/ && ($6 == 0 || $7 != 0) { print "smoke: bad " $0; bad = 1 } END { exit bad }' /tmp/vm_switch.tsv
[ -e /dev/mkm ] || { echo "smoke: vm_switch left the module unloaded"; exit 1; }
cpus=1
[ "$(nproc)" -lt 2 ] || cpus=1,2
vm_read -b 65536 -r 1 -s 4096,65536 -c $cpus -o /tmp/vm_read.tsv
awk -f /bench/read.awk /tmp/vm_read.tsv
# A 64 KiB ring holds 2048 records: every drain, by read(), by
# monitor_read() on the mapping or by the visit, must return them all
# (five drains per CPU count).
awk '!/^#/ { n++; if ($5 != 2048 * $3) { print "smoke: drained " $5 " of " 2048 * $3; bad = 1 } } END { exit bad || n % 5 }' /tmp/vm_read.tsv
echo "smoke: ok"
