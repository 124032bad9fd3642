#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cluster.sh: make check-cluster. A real Slurm cluster of QEMU guests runs
# srun --mkm and sbatch --mkm with mkm.so loaded by the real slurmstepd;
# the host merges the node traces and checks them.
#
# Each guest boots the VM harness's image (tests/vm: Debian's kernel,
# busybox, mkm.ko loaded by init) with an overlay holding Debian's Slurm
# 22.05 (slurmctld, slurmd, slurmstepd, srun, sbatch, sinfo and the plugins
# whose libraries are installed), munged, mkm.so, the job (cluster_job),
# e1000.ko, the configuration generated here (a fresh munge key,
# slurm.conf, plugstack.conf) and tests/slurm/cluster_node.sh as the
# command. The guests are networked only with each other: QEMU's socket
# network, node 0 listening on 127.0.0.1, the others connecting to it (no
# tap, bridge or user-mode network). Node 0 is the controller and runs the
# jobs; each guest's /out (traces, logs) comes back through the harness.
#
# usage: cluster.sh BUILD INITRAMFS MKM SPANK_SO CLUSTER_JOB
# Environment: NODES (default 2; node 0 accepts one link, so 2 for now),
# MKM_VM_KERNEL, MKM_CACHE as tests/vm/run.sh.
set -euo pipefail

[ $# -eq 5 ] || { echo "usage: $0 BUILD INITRAMFS MKM SPANK_SO CLUSTER_JOB" >&2; exit 2; }
build=$1 base=$2 mkm=$3 spank=$4 job=$5
here=$(cd "$(dirname "$0")" && pwd)
vm=$here/../vm
nodes=${NODES:-2}
[ "$nodes" -eq 2 ] || { echo "cluster: NODES=$nodes: only 2 (one socket link)" >&2; exit 2; }
work=$build/cluster
fails=0
say() { printf 'cluster: %s\n' "$*"; }
pass() { printf 'PASS  %s\n' "$*"; }
fail() { printf 'FAIL  %s\n' "$*"; fails=$((fails + 1)); }
die() { printf 'cluster: %s\n' "$*" >&2; exit 1; }

for p in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/slurmstepd /usr/bin/srun \
	/usr/bin/sbatch /usr/bin/sinfo /usr/sbin/munged; do
	[ -x $p ] || die "$p missing: make deps (slurmctld slurmd slurm-client munge)"
done
rm -rf "$work"
mkdir -p "$work/etc" "$work/out"

# The guest kernel's e1000 driver (the Debian kernel has it as a module).
kver=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 | sed -n 's/.*linux-headers-\([^ ,]*\).*/\1/p')
e1000=${MKM_CACHE:-$HOME/.cache/mkm}/linux-image-$kver/lib/modules/$kver/kernel/drivers/net/ethernet/intel/e1000/e1000.ko
[ -n "${MKM_VM_KERNEL:-}" ] && die "MKM_VM_KERNEL: the cluster needs the Debian kernel (its e1000.ko)"
[ -f "$e1000" ] || die "$e1000 missing: make deps"

# The cluster's configuration, fresh for every run.
dd if=/dev/urandom of="$work/etc/munge.key" bs=1024 count=1 status=none
cat >"$work/etc/slurm.conf" <<CONF
ClusterName=mkm
SlurmctldHost=n0
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
SlurmdTimeout=300
SlurmctldTimeout=300
MessageTimeout=60
InactiveLimit=0
KillWait=5
MinJobAge=30
PlugStackConfig=/etc/slurm/plugstack.conf
CONF
for ((i = 0; i < nodes; i++)); do
	echo "NodeName=n$i NodeAddr=10.0.0.$((10 + i)) CPUs=1 State=UNKNOWN" >>"$work/etc/slurm.conf"
done
echo "PartitionName=all Nodes=n[0-$((nodes - 1))] Default=YES MaxTime=30 State=UP" >>"$work/etc/slurm.conf"
# slurmd needs a cgroup plugin even with proctrack/linuxproc; v2 without
# systemd (the guest's init is busybox) creates its scope itself.
printf '%s\n' CgroupPlugin=cgroup/v2 IgnoreSystemd=yes >"$work/etc/cgroup.conf"
# required: a plugin that fails to load fails every step.
echo "required /usr/lib/mkm/mkm.so" >"$work/etc/plugstack.conf"

# What the guests run: Slurm's programs (resolved: Debian's are
# alternatives' symlinks) and every plugin whose libraries are here.
files=(-f "$e1000:/lib/e1000.ko" -f "$spank:/usr/lib/mkm/mkm.so" -f "$job:/bin/cluster_job"
	-f "$work/etc/munge.key:/etc/munge/munge.key"
	-f "$work/etc/slurm.conf:/etc/slurm/slurm.conf"
	-f "$work/etc/plugstack.conf:/etc/slurm/plugstack.conf"
	-f "$work/etc/cgroup.conf:/etc/slurm/cgroup.conf")
for p in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/slurmstepd /usr/bin/srun \
	/usr/bin/sbatch /usr/bin/sinfo /usr/bin/scontrol /usr/sbin/munged; do
	files+=(-f "$(readlink -f $p):$p")
done
plugins=0
for p in /usr/lib/x86_64-linux-gnu/slurm-wlm/*.so; do
	if ! ldd "$p" 2>/dev/null | grep -q 'not found'; then
		files+=(-f "$p:$p")
		plugins=$((plugins + 1))
	fi
done
say "image: $plugins Slurm plugins, mkm.so, munged, cluster_job"
"$vm/mkinitramfs.sh" -O -o "$work/overlay.gz" "${files[@]}"
cat "$base" "$work/overlay.gz" >"$work/initramfs.gz"

# Boot node 0 (listening), then the others (connecting), 1 vCPU each.
port=$((30000 + $$ % 20000))
boot() {
	local i=$1 net=$2
	MKM_VM_BOOT_RETRIES=0 BUILD=$build nice -n 5 "$vm/run.sh" -i "$work/initramfs.gz" \
		-c "$here/cluster_node.sh" -s 1 -m 768M -t 1500 -l "$work/n$i.log" -o "$work/out/n$i" \
		-a "mkm_node=$i mkm_nodes=$nodes" -- \
		-netdev "socket,id=net0,$net" \
		-device "e1000,netdev=net0,mac=52:54:00:4d:4b:$(printf %02x $i)" \
		>"$work/n$i.vm" 2>&1
}
start=$(date +%s)
boot 0 "listen=127.0.0.1:$port" &
pid0=$!
for ((t = 0; t < 60; t++)); do
	ss -Hltn "sport = :$port" | grep -q . && break
	sleep 1
done
boot 1 "connect=127.0.0.1:$port" &
pid1=$!
say "booted n0 (QEMU listening on 127.0.0.1:$port) and n1; logs in $work/n*.log"
st0=0 st1=0
wait $pid0 || st0=$?
wait $pid1 || st1=$?
say "guests done after $(($(date +%s) - start)) s"
for i in 0 1; do
	st=st$i
	if [ "${!st}" = 0 ]; then
		pass "n$i: booted, mkm.ko in and out, its command ran, no splat"
	else
		fail "n$i: the guest failed (tests/vm/run.sh):"
		sed 's/^/  | /' "$work/n$i.vm"
	fi
done
logs=$work/out/n0/logs
grep -h '^  cluster:' "$work/n0.vm" "$work/n1.vm" | sed 's/^  //' || true

# A job's record: its exit status, then its output.
ran() { [ -f "$logs/$1.rc" ] && [ "$(cat "$logs/$1.rc")" = "$2" ]; }
show() { for f in "$logs/$1.out" "$logs/$1.err"; do [ -s "$f" ] && sed "s|^|  $(basename "$f"): |" "$f"; done; true; }

# The traces of one job: both nodes, merged, each node's tasks tracked.
check_job() {
	local name=$1 out=$2 id dir merged
	id=$(sed -n 's/^cluster_job on n0: job \([0-9]*\)\..*/\1/p' "$out" | head -n1)
	[ -n "$id" ] || { fail "$name: no cluster_job output from n0"; show "$name"; return; }
	for ((i = 0; i < nodes; i++)); do
		grep -q "^cluster_job on n$i: job $id\." "$out" || fail "$name: no cluster_job output from n$i"
	done
	dir=$work/job$id
	mkdir -p "$dir"
	for ((i = 0; i < nodes; i++)); do
		local trace=$work/out/n$i/$id/n$i.mkm
		if [ ! -s "$trace" ]; then
			fail "$name: job $id: n$i wrote no trace at /out/$id/n$i.mkm"
			continue
		fi
		cp "$trace" "$dir/"
		"$mkm" report "$trace" >"$dir/n$i.report" 2>&1 || fail "$name: mkm report n$i.mkm failed"
		# The task, its thread and its forked children: ROUNDS * 2 + 1.
		local tracked
		tracked=$(grep -c 'cluster_job' "$dir/n$i.report" || true)
		if [ "$tracked" -ge 3 ]; then
			pass "$name: job $id: n$i's trace tracks the task ($tracked cluster_job threads)"
		else
			fail "$name: job $id: n$i's trace has $tracked cluster_job thread(s), not the task, its thread and children"
			sed 's/^/  | /' "$dir/n$i.report" | head -40
		fi
	done
	merged=$work/job$id.mkm
	if "$mkm" merge "$dir" -o "$merged" >"$dir/merge.out" 2>&1; then
		pass "$name: job $id: mkm merge of the node traces"
	else
		fail "$name: job $id: mkm merge failed (exit $?)"
	fi
	sed 's/^/  /' "$dir/merge.out"
	grep -q "$nodes nodes of $nodes merged" "$dir/merge.out" || fail "$name: job $id: not every node merged"
	# Every node but the reference aligned by its exchanges, with a bound.
	for ((i = 1; i < nodes; i++)); do
		if grep -Eq "^ *n$i .*bound \+-[0-9.]+ [mun]?s \(([2-9]|[1-9][0-9]+) exchanges\)" "$dir/merge.out"; then
			pass "$name: job $id: n$i aligned on its start and end exchanges, bound stored"
		else
			fail "$name: job $id: n$i has no start and end exchanges with a bound"
		fi
	done
	"$mkm" report "$merged" >"$dir/merged.report" 2>&1 || fail "$name: mkm report of the merged trace failed"
	awk '/^Per node/ { p = 1 } p && NF == 0 { exit } p' "$dir/merged.report" | sed 's/^/  /'
	for ((i = 0; i < nodes; i++)); do
		if awk -v n="n$i" '/^Per node/ { p = 1; next } p && NF == 0 { exit } p && $1 == n && $7 == 0 { f = 1 } END { exit !f }' \
			"$dir/merged.report"; then
			pass "$name: job $id: n$i in the merged trace, 0 lost"
		else
			fail "$name: job $id: n$i missing from the merged trace's nodes, or records lost"
		fi
	done
}

if ran srun-mkm 0; then
	pass "srun -N$nodes --mkm: exit 0"
	check_job srun-mkm "$logs/srun-mkm.out"
else
	fail "srun -N$nodes --mkm failed"
	show srun-mkm
fi

if ran sbatch-mkm 0 && [ -s "$logs/sbatch-job.out" ]; then
	pass "sbatch -W -N$nodes --mkm --wrap 'srun cluster_job': exit 0"
	check_job sbatch-mkm "$logs/sbatch-job.out"
else
	fail "sbatch --mkm failed"
	show sbatch-mkm
	[ ! -f "$logs/sbatch-job.out" ] || sed 's/^/  sbatch-job.out: /' "$logs/sbatch-job.out"
fi

# The errors: the step fails, and its stderr names the node and the cause.
if ! ran srun-nomod 0 && [ -f "$logs/srun-nomod.rc" ] &&
	grep -q "mkm: node n$((nodes - 1)): /dev/mkm: .*load the module" "$logs/srun-nomod.err"; then
	pass "srun --mkm with mkm.ko unloaded on n$((nodes - 1)): the step fails, stderr says so"
else
	fail "srun --mkm with mkm.ko unloaded on n$((nodes - 1)): no failure naming the node and the module"
fi
show srun-nomod
if ! ran srun-unwritable 0 && [ -f "$logs/srun-unwritable.rc" ] &&
	grep -q "mkm: node n[0-9]*: --mkm-output /proc/mkm" "$logs/srun-unwritable.err"; then
	pass "srun --mkm-output=/proc/mkm/...: the step fails, stderr says so"
else
	fail "srun --mkm-output=/proc/mkm/...: no failure naming the output"
fi
show srun-unwritable

if [ $fails -gt 0 ]; then
	say "$fails check(s) failed; guests' logs in $work/n*.log, their /out in $work/out"
	exit 1
fi
say "all passed in $(($(date +%s) - start)) s"
