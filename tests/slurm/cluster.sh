#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cluster.sh: make check-cluster. A real Slurm cluster of QEMU guests runs
# srun --mkm and sbatch --mkm with mkm.so loaded by the real slurmstepd;
# the host merges the node traces and checks them.
#
# Each guest boots the VM harness's image (tests/vm: Debian's kernel,
# busybox, mkm.ko loaded by init) with an overlay holding Debian's Slurm
# 22.05 (slurmctld, slurmd, slurmstepd, srun, sbatch, sinfo, scontrol,
# squeue, scancel and the plugins whose libraries are installed), munged,
# mkm.so, the jobs (cluster_job, and cluster_barrier: ranks meeting at
# barriers, a daemon on n1), e1000.ko, the configuration generated here (a
# fresh munge key,
# slurm.conf, plugstack.conf) and tests/slurm/cluster_node.sh as the
# command. The guests are networked only with each other: QEMU's socket
# network, a link from node 0 to each other node (node 0's QEMU listening
# on 127.0.0.1, one port per link, the other's connecting; node 0 routes
# between them; no tap, bridge or user-mode network). Node 0 is the
# controller and runs the jobs; each guest's /out (traces, logs) comes
# back through the harness.
#
# usage: cluster.sh BUILD INITRAMFS MKM SPANK_SO CLUSTER_JOB CLUSTER_BARRIER
# Environment: NODES (2 or 3, default 2: the machine is shared), MKM_CACHE
# as tests/vm/run.sh, JOB_TIMEOUT (seconds a job may take in the guests,
# default 240) and DEADLINE (seconds after which every guest ends by
# itself, default 1200; the host stops them 300 s later).
set -euo pipefail

[ $# -eq 6 ] || { echo "usage: $0 BUILD INITRAMFS MKM SPANK_SO CLUSTER_JOB CLUSTER_BARRIER" >&2; exit 2; }
build=$1 base=$2 mkm=$3 spank=$4 job=$5 barrier=$6
here=$(cd "$(dirname "$0")" && pwd)
vm=$here/../vm
nodes=${NODES:-2}
job_timeout=${JOB_TIMEOUT:-240}
deadline=${DEADLINE:-1200}
case $nodes in 2 | 3) ;; *) echo "cluster: NODES=$nodes: 2 or 3" >&2; exit 2 ;; esac
work=$build/cluster
fails=0
say() { printf 'cluster: %s\n' "$*"; }
pass() { printf 'PASS  %s\n' "$*"; }
fail() { printf 'FAIL  %s\n' "$*"; fails=$((fails + 1)); }
die() { printf 'cluster: %s\n' "$*" >&2; exit 1; }

for p in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/slurmstepd /usr/bin/srun \
	/usr/bin/sbatch /usr/bin/sinfo /usr/bin/scontrol /usr/bin/squeue /usr/bin/scancel \
	/usr/sbin/munged; do
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
# debug: each RPC a daemon handles, and slurmstepd's steps (in slurmd's
# log), for the run that stalls.
SlurmctldDebug=debug
SlurmdDebug=debug
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
	# No NodeAddr: each node's /etc/hosts names n0 by its address on the
	# link between them (cluster_node.sh).
	echo "NodeName=n$i CPUs=1 State=UNKNOWN" >>"$work/etc/slurm.conf"
done
echo "PartitionName=all Nodes=n[0-$((nodes - 1))] Default=YES MaxTime=30 State=UP" >>"$work/etc/slurm.conf"
# slurmd needs a cgroup plugin even with proctrack/linuxproc; v2 without
# systemd (the guest's init is busybox) creates its scope itself.
printf '%s\n' CgroupPlugin=cgroup/v2 IgnoreSystemd=yes >"$work/etc/cgroup.conf"
# required: a plugin that fails to load fails every step.
echo "required /usr/lib/mkm/mkm.so" >"$work/etc/plugstack.conf"

# What the guests run: Slurm's programs (resolved: Debian's are
# alternatives' symlinks), every plugin whose libraries are here, mkm.so,
# the job. That overlay takes minutes to build (ldd on each of 110
# plugins), so it is kept in $image and rebuilt when an input is newer.
image=$build/cluster-image
progs=(/usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/slurmstepd /usr/bin/srun
	/usr/bin/sbatch /usr/bin/sinfo /usr/bin/scontrol /usr/bin/squeue /usr/bin/scancel
	/usr/sbin/munged)
inputs=("$e1000" "$spank" "$job" "$barrier" "$0" /usr/lib/x86_64-linux-gnu/slurm-wlm/*.so
	$(readlink -f "${progs[@]}"))
if [ ! -s "$image/programs.gz" ] ||
	[ -n "$(find "${inputs[@]}" -newer "$image/programs.gz" | head -n1)" ]; then
	files=(-f "$e1000:/lib/e1000.ko" -f "$spank:/usr/lib/mkm/mkm.so" -f "$job:/bin/cluster_job"
		-f "$barrier:/bin/cluster_barrier")
	for p in "${progs[@]}"; do
		files+=(-f "$(readlink -f $p):$p")
	done
	plugins=0
	for p in /usr/lib/x86_64-linux-gnu/slurm-wlm/*.so; do
		if ! ldd "$p" 2>/dev/null | grep -q 'not found'; then
			files+=(-f "$p:$p")
			plugins=$((plugins + 1))
		fi
	done
	say "image: Slurm's programs, $plugins of its plugins, munged, mkm.so, cluster_job, cluster_barrier"
	mkdir -p "$image"
	"$vm/mkinitramfs.sh" -O -o "$image/programs.gz" "${files[@]}"
fi
"$vm/mkinitramfs.sh" -O -o "$work/config.gz" \
	-f "$work/etc/munge.key:/etc/munge/munge.key" \
	-f "$work/etc/slurm.conf:/etc/slurm/slurm.conf" \
	-f "$work/etc/plugstack.conf:/etc/slurm/plugstack.conf" \
	-f "$work/etc/cgroup.conf:/etc/slurm/cgroup.conf"
cat "$base" "$image/programs.gz" "$work/config.gz" >"$work/initramfs.gz"

# Boot node 0 (listening, a link per other node), then the others
# (connecting), 1 vCPU each.
port=$((30000 + $$ % 20000))
boot() {
	local i=$1
	shift
	MKM_VM_BOOT_RETRIES=0 BUILD=$build nice -n 5 "$vm/run.sh" -i "$work/initramfs.gz" \
		-c "$here/cluster_node.sh" -s 1 -m 768M -t $((deadline + 300)) -l "$work/n$i.log" \
		-o "$work/out/n$i" -a "mkm_node=$i mkm_nodes=$nodes mkm_job_timeout=$job_timeout mkm_deadline=$deadline" \
		-- "$@" >"$work/n$i.vm" 2>&1
}
# A link: node 0's end (net$i), node i's end (net0).
nic() { echo -netdev "socket,id=net$1,$2" -device "e1000,netdev=net$1,mac=52:54:00:4d:4b:$3"; }
links=()
for ((i = 1; i < nodes; i++)); do
	links+=($(nic $i listen=127.0.0.1:$((port + i)) 0$i))
done
start=$(date +%s)
pids=()
boot 0 "${links[@]}" &
pids+=($!)
for ((t = 0; t < 60; t++)); do
	[ "$(ss -Hltn "sport >= :$((port + 1)) and sport < :$((port + nodes))" | wc -l)" = $((nodes - 1)) ] && break
	sleep 1
done
for ((i = 1; i < nodes; i++)); do
	boot $i $(nic 0 connect=127.0.0.1:$((port + i)) 1$i) &
	pids+=($!)
done
say "booted n0 (QEMU listening on 127.0.0.1:$((port + 1))-$((port + nodes - 1))) and $((nodes - 1)) more; logs in $work/n*.log"
st=()
for ((i = 0; i < nodes; i++)); do
	st[i]=0
	wait ${pids[i]} || st[i]=$?
done
say "guests done after $(($(date +%s) - start)) s"
for ((i = 0; i < nodes; i++)); do
	if [ "${st[i]}" = 0 ]; then
		pass "n$i: booted, mkm.ko in and out, its command ran, no splat"
	else
		fail "n$i: the guest failed (tests/vm/run.sh):"
		sed 's/^/  | /' "$work/n$i.vm"
	fi
done
logs=$work/out/n0/logs
cat "$work"/n*.vm | grep '^  cluster:' | sed 's/^  //' || true
# A node drained by the end: a step failed in a way Slurm blames the
# node for (a batch step's failure drains its node), and every job after
# it waited for that node.
if [ -s "$logs/sinfo-end.out" ]; then
	while read -r n state reason; do
		case $state in drain* | drng* | down*) fail "$n was $state at the end: ${reason:-no reason}" ;; esac
	done <"$logs/sinfo-end.out"
fi
for f in "$logs"/stalled-*.txt; do
	[ -f "$f" ] || continue
	f=${f##*/stalled-}
	fail "${f%.txt}: killed after $job_timeout s in the guest; Slurm's view in $logs/stalled-$f, each node's processes in $work/out/n*/logs/ps-n*.txt"
done

# A job's record: its exit status, then its output.
ran() { [ -f "$logs/$1.rc" ] && [ "$(cat "$logs/$1.rc")" = "$2" ]; }
show() { for f in "$logs/$1.out" "$logs/$1.err"; do [ -s "$f" ] && sed "s|^|  $(basename "$f"): |" "$f"; done; true; }

# check_wrote NAME ID I HOW: n$I's slurmd log says the plugin wrote job
# ID's trace, none lost, HOW (an extended regex).
check_wrote() {
	local line
	line=$(grep -E "mkm: node n$3: wrote /out/$2/n$3.mkm \([0-9]+ events, 0 lost, $4\)" \
		"$work/out/n$3/logs/slurmd-n$3.log" | head -n1)
	if [ -n "$line" ]; then
		pass "$1: job $2: n$3's slurmd log: ${line##*: node n$3: }"
	else
		fail "$1: job $2: n$3's slurmd log has no 'wrote /out/$2/n$3.mkm (..., 0 lost, $4)'"
	fi
}

# Compensation on many nodes: every node's trace carries its calibration
# (the recording session's), and compensating the merged trace gives each
# node's threads what compensating the node's own trace gives
# (merged_comp.py: each node's costs on its CPUs, its recorder's threads).
# Forced: calibrations under TCG without -icount are often noise, which
# compensation refuses unless told.
check_compensated() {
	local name=$1 id=$2 dir=$3 merged=$4 i ok=1
	for ((i = 0; i < nodes; i++)); do
		"$mkm" report --json --compensated --force-calibration "$dir/n$i.mkm" \
			>"$dir/n$i-comp.json" 2>"$dir/n$i-comp.err" || ok=
	done
	if [ -z "$ok" ]; then
		fail "$name: job $id: a node's trace could not be compensated (no calibration?)"
		sed 's/^/  /' "$dir"/n*-comp.err
		return
	fi
	pass "$name: job $id: every node's trace carries a calibration"
	if "$mkm" report --json --compensated --force-calibration "$merged" \
		>"$dir/merged-comp.json" 2>"$dir/merged-comp.err" &&
		python3 "$here/merged_comp.py" "$dir/merged-comp.json" "$dir"/n*-comp.json \
			>"$dir/merged-comp.out" 2>&1; then
		pass "$name: job $id: the merged trace compensated, each node with its own calibration and recorder"
	else
		fail "$name: job $id: the merged trace compensated unlike its nodes' own traces"
		sed 's/^/  /' "$dir/merged-comp.err"
	fi
	sed 's/^/  /' "$dir/merged-comp.out"
}

# The traces of one job: every node's, merged, each node's tasks tracked.
# check_job NAME OUTPUT MIN: MIN exchanges at least per node (2: the
# start and end; more with --mkm-sync's periodic ones).
check_job() {
	local name=$1 out=$2 min=${3:-2} id dir merged
	id=$(sed -n 's/^cluster_job on n0: job \([0-9]*\.[0-9]*\):.*/\1/p' "$out" | head -n1)
	[ -n "$id" ] || {
		fail "$name: no cluster_job output from n0"
		show "$name"
		[ "$out" = "$logs/$name.out" ] || sed "s|^|  $(basename "$out"): |" "$out"
		return
	}
	for ((i = 0; i < nodes; i++)); do
		grep -q "^cluster_job on n$i: job $id:" "$out" || fail "$name: no cluster_job output from n$i"
	done
	dir=$work/job$id
	rm -rf "$dir"
	mkdir -p "$dir"
	for ((i = 0; i < nodes; i++)); do
		local trace=$work/out/n$i/$id/n$i.mkm
		if [ ! -s "$trace" ]; then
			fail "$name: job $id: n$i wrote no trace at --mkm-output=/out/%j.%s/%N.mkm"
			continue
		fi
		cp "$trace" "$dir/"
		"$mkm" report "$trace" >"$dir/n$i.report" 2>&1 || fail "$name: mkm report n$i.mkm failed"
		check_wrote "$name" "$id" "$i" "(with O_DIRECT|through the page cache)"
		# The task, its 5 threads and 5 children (cluster_job.c's ROUNDS).
		local tracked
		tracked=$(awk '/^Microstates per thread/ { p = 1; next } p && NF == 0 { exit }
			p && / cluster_job / { n++ } END { print n + 0 }' "$dir/n$i.report")
		if [ "$tracked" = 11 ]; then
			pass "$name: job $id: n$i's trace tracks the task, its 5 threads and 5 children"
		else
			fail "$name: job $id: n$i's trace has $tracked cluster_job thread(s), not 11 (the task, its threads and children)"
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
		local got
		got=$(sed -En "s/^ *n$i .*bound \+-[0-9.]+ [mun]?s \(([0-9]+) exchanges\).*/\1/p" "$dir/merge.out")
		if [ -n "$got" ] && [ "$got" -ge "$min" ]; then
			pass "$name: job $id: n$i aligned on $got exchanges (at least $min), bound stored"
		else
			fail "$name: job $id: n$i has not $min exchanges with a bound (${got:-none})"
		fi
	done
	# Every exchange message received after it was sent, merged: two
	# per exchange, at least the start and end exchanges of each node.
	local want=$((2 * min * (nodes - 1)))
	if grep -Eq "^ *causality: 0 of ([0-9]+) exchange messages received before they were sent on the merged clock .*bounds \+-[0-9.]+ [mun]?s to \+-[0-9.]+ [mun]?s\)" "$dir/merge.out" &&
		[ "$(sed -n 's/^ *causality: 0 of \([0-9]*\) .*/\1/p' "$dir/merge.out")" -ge "$want" ]; then
		pass "$name: job $id: 0 causality violations among the exchanges' messages, bounds printed"
	else
		fail "$name: job $id: exchange messages received before they were sent on the merged clock, or fewer than $want checked"
	fi
	"$mkm" report "$merged" >"$dir/merged.report" 2>&1 || fail "$name: mkm report of the merged trace failed"
	awk '/^Per node/ { p = 1 } p && NF == 0 { exit } p' "$dir/merged.report" | sed 's/^/  /'
	check_compensated "$name" "$id" "$dir" "$merged"
	for ((i = 0; i < nodes; i++)); do
		if awk -v n="n$i" '/^Per node/ { p = 1; next } p && NF == 0 { exit } p && $1 == n && $10 == 0 { f = 1 } END { exit !f }' \
			"$dir/merged.report"; then
			pass "$name: job $id: n$i in the merged trace, 0 lost"
		else
			fail "$name: job $id: n$i missing from the merged trace's nodes, or records lost"
		fi
	done
}

if ran srun-mkm 0; then
	pass "srun -N$nodes --mkm: exit 0"
	# --mkm-sync=0.1 on a task of about half a second: periodic
	# exchanges between the start and end ones.
	check_job srun-mkm "$logs/srun-mkm.out" 3
else
	fail "srun -N$nodes --mkm failed"
	show srun-mkm
fi

if ran sbatch-mkm 0 && [ -s "$logs/sbatch-job.out" ]; then
	pass "sbatch -W -N$nodes --mkm --wrap 'srun cluster_job': exit 0"
	check_job sbatch-mkm "$logs/sbatch-job.out"
	# The batch step (Slurm's SLURM_BATCH_SCRIPT) records too, on the
	# batch node alone.
	batch=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$logs/sbatch-mkm.out")
	check_wrote sbatch-mkm "${batch:-?}.4294967291" 0 "(with O_DIRECT|through the page cache)"
else
	fail "sbatch --mkm failed"
	show sbatch-mkm
	[ ! -f "$logs/sbatch-job.out" ] || sed 's/^/  sbatch-job.out: /' "$logs/sbatch-job.out"
fi

# The barrier study across nodes: ranks that compute and meet at a TCP
# barrier, a daemon beside n1's rank; mkm report --noise --barriers on the
# merged trace must name n1 and the daemon for long barriers. Host noise
# (the guests' vCPUs waiting for a host core) delays other rounds with
# nothing recorded; the daemon's are what is asserted.
check_barrier() {
	local out=$logs/srun-barrier.out id dir merged n
	id=$(sed -n 's/^cluster_barrier on n0: job \([0-9]*\.[0-9]*\):.*/\1/p' "$out" | head -n1)
	[ -n "$id" ] || { fail "srun-barrier: no cluster_barrier output from n0"; show srun-barrier; return; }
	grep -q "^cluster_barrier on n1: job $id: .*noised beside it" "$out" ||
		fail "srun-barrier: n1's rank did not run beside its daemon"
	dir=$work/job$id
	rm -rf "$dir"
	mkdir -p "$dir"
	for ((i = 0; i < nodes; i++)); do
		cp "$work/out/n$i/$id/n$i.mkm" "$dir/" || fail "srun-barrier: job $id: n$i wrote no trace"
		check_wrote srun-barrier "$id" "$i" "through the page cache" # --mkm-buffered-io
	done
	merged=$work/job$id.mkm
	"$mkm" merge "$dir" -o "$merged" >"$dir/merge.out" 2>&1 ||
		fail "srun-barrier: job $id: mkm merge failed (exit $?)"
	sed 's/^/  /' "$dir/merge.out"
	if ! "$mkm" report --noise --barriers --comm rank "$merged" >"$dir/barriers.report" 2>&1; then
		fail "srun-barrier: job $id: mkm report --noise --barriers failed"
		sed 's/^/  | /' "$dir/barriers.report"
		return
	fi
	awk '/^CPU x thread/ { exit } { print "  " $0 }' "$dir/barriers.report" | head -40
	n=$(awk '/by node and main cause/ { p = 1; next } p && NF == 0 { exit }
		p && $1 == "n1" && $2 == "noised" && $4 == "thread" { print $5 }' "$dir/barriers.report")
	if [ -n "$n" ] && [ "$n" -ge 3 ]; then
		pass "srun-barrier: job $id: $n long barriers caused by the daemon, on n1, as the barrier analysis names them"
	else
		fail "srun-barrier: job $id: the barrier analysis does not name n1's daemon for 3 long barriers (${n:-none})"
	fi
	if awk '/by node and main cause/ { p = 1; next } p && NF == 0 { exit }
		p && $2 == "noised" && $1 != "n1" { f = 1 } END { exit !f }' "$dir/barriers.report"; then
		fail "srun-barrier: job $id: a daemon named on a node other than n1"
	fi
}

if ran srun-barrier 0; then
	pass "srun -N$nodes --mkm cluster_barrier: exit 0"
	check_barrier
else
	fail "srun -N$nodes --mkm cluster_barrier failed"
	show srun-barrier
fi

# The errors: the node's task is not started, and the job's stderr names
# the node and the cause. (srun 22.05 exits 0 when a task fails to
# launch: the status is shown, not checked.)
bad=n$((nodes - 1))
if grep -q "mkm: node $bad: /dev/mkm: .*load the module" "$logs/srun-nomod.err" &&
	grep -q "task $((nodes - 1)) launch failed" "$logs/srun-nomod.err" &&
	! grep -q "^cluster_job on $bad:" "$logs/srun-nomod.out"; then
	pass "srun --mkm with mkm.ko unloaded on $bad: its task not started, stderr says why (srun exit $(cat "$logs/srun-nomod.rc"))"
else
	fail "srun --mkm with mkm.ko unloaded on $bad: no failure naming the node and the module"
fi
show srun-nomod
if grep -q "mkm: node n0: --mkm-output /proc/mkm/%j/%N.mkm: " "$logs/srun-unwritable.err" &&
	! grep -q "^cluster_job on" "$logs/srun-unwritable.out"; then
	pass "srun --mkm-output=/proc/mkm/...: no task started, stderr says why (srun exit $(cat "$logs/srun-unwritable.rc"))"
else
	fail "srun --mkm-output=/proc/mkm/...: no failure naming the output"
fi
show srun-unwritable

# srun --mkm-flight: n1's stall is caught there alone, every node writes
# its end snapshot, and n1's stall snapshot merges with n0's.
check_flight() {
	local out=$logs/srun-flight.out id dir i
	id=$(sed -n 's/^cluster_job on n0: job \([0-9]*\.[0-9]*\):.*/\1/p' "$out" | head -n1)
	[ -n "$id" ] || { fail "srun-flight: no cluster_job output from n0"; show srun-flight; return; }
	if grep -q "mkm: node n1: wrote /out/$id/n1.mkm.1: .*trigger: a run-queue wait of" \
		"$work/out/n1/logs/slurmd-n1.log"; then
		pass "srun-flight: job $id: n1's stall wrote its snapshot n1.mkm.1"
	else
		fail "srun-flight: job $id: n1's slurmd log has no snapshot of its stall"
	fi
	for ((i = 0; i < nodes; i++)); do
		local want=$((i == 1 ? 2 : 1))
		if grep -q "mkm: node n$i: $want snapshot(s) of /out/$id/n$i.mkm written (0 held off, 0 past the limit, 0 failed)" \
			"$work/out/n$i/logs/slurmd-n$i.log" &&
			[ -s "$work/out/n$i/$id/n$i.mkm.$want" ] && [ ! -e "$work/out/n$i/$id/n$i.mkm" ]; then
			pass "srun-flight: job $id: n$i wrote $want snapshot(s) and no whole trace"
		else
			fail "srun-flight: job $id: n$i did not write exactly $want snapshot(s)"
		fi
	done
	"$mkm" dump "$work/out/n1/$id/n1.mkm.1" >"$work/flight-n1.dump" 2>&1
	grep -q ' trigger ' "$work/flight-n1.dump" ||
		fail "srun-flight: job $id: n1.mkm.1 holds no trigger record"
	dir=$work/flight$id
	rm -rf "$dir" && mkdir -p "$dir"
	cp "$work/out/n0/$id/n0.mkm.1" "$dir/n0.mkm"
	cp "$work/out/n1/$id/n1.mkm.1" "$dir/n1.mkm"
	if "$mkm" merge "$dir" -o "$dir.mkm" >"$dir/merge.out" 2>&1 &&
		grep -q "2 nodes of 2 merged" "$dir/merge.out" &&
		grep -Eq "^ *n1 .*bound \+-[0-9.]+ [mun]?s \(([2-9]|[1-9][0-9]+) exchanges\)" "$dir/merge.out"; then
		pass "srun-flight: job $id: n1's stall snapshot merged with n0's snapshot, aligned on its own exchanges"
	else
		fail "srun-flight: job $id: the snapshots did not merge, aligned"
	fi
	sed 's/^/  /' "$dir/merge.out"
}
if ran srun-flight 0; then
	check_flight
else
	fail "srun -N$nodes --mkm-flight failed"
	show srun-flight
fi

if [ $fails -gt 0 ]; then
	say "$fails check(s) failed; guests' logs in $work/n*.log, their /out in $work/out"
	exit 1
fi
say "all passed in $(($(date +%s) - start)) s"
