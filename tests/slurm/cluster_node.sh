#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# cluster_node.sh: a node of check-cluster's Slurm cluster (the guest's /cmd,
# run by tests/vm/init with mkm.ko loaded). tests/slurm/cluster.sh boots
# one guest per node with the same image; the kernel command line says
# which node this is (mkm_node=0, 1...) and how many there are (mkm_nodes).
#
# Every node brings up its network (e1000 cards on QEMU's socket network:
# a link 10.0.i.0/24 between node 0, .1, and node i, .2; node 0 routes
# between the links), munged and slurmd; node 0 runs slurmctld too, waits
# for all nodes to be idle, runs the jobs (cluster_jobs, below) as user
# mkm and saves their exit status, output and errors in /out/logs, then
# tells the other nodes to stop through Slurm itself (a job touching
# /tmp/cluster-done on each). Every node keeps its daemons' logs in
# /out/logs; the traces are written by mkm.so under /out. The host checks
# all of it: this script only runs things and records what they did.

node=n${mkm_node:?}
nodes=${mkm_nodes:?}
log=/out/logs
mkdir -p $log
chmod 1777 /out $log
say() { echo "cluster: $node: $*"; }

# The network: only the socket links between the guests.
insmod /lib/e1000.ko || { say "insmod e1000.ko failed"; exit 1; }
ip link set lo up
if [ $node = n0 ]; then
	i=1
	while [ $i -lt "$nodes" ]; do
		ip link set eth$((i - 1)) up
		ip addr add 10.0.$i.1/24 dev eth$((i - 1))
		i=$((i + 1))
	done
	echo 1 >/proc/sys/net/ipv4/ip_forward
else
	ip link set eth0 up
	ip addr add 10.0.$mkm_node.2/24 dev eth0
	ip route add default via 10.0.$mkm_node.1
fi
hostname $node
# n0 by its address on this node's link, the others by theirs.
{
	echo "127.0.0.1 localhost"
	echo "10.0.$((mkm_node > 0 ? mkm_node : 1)).1 n0"
	i=1
	while [ $i -lt "$nodes" ]; do
		echo "10.0.$i.2 n$i"
		i=$((i + 1))
	done
} >/etc/hosts
printf '%s\n' 'passwd: files' 'group: files' 'hosts: files' >/etc/nsswitch.conf

# munge: the key the host generated, as munged wants it (owner only).
mkdir -p /run/munge /var/lib/munge /var/log/munge
chmod 0700 /etc/munge /var/lib/munge /var/log/munge
chmod 0755 /run/munge
chmod 0400 /etc/munge/munge.key
munged --force || { say "munged failed"; exit 1; }

mkdir -p /var/spool/slurmd /var/spool/slurmctld /var/log/slurm /sys/fs/cgroup
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mkdir -p /sys/fs/cgroup/system.slice
if [ $node = n0 ]; then
	slurmctld -L $log/slurmctld-$node.log || { say "slurmctld failed"; exit 1; }
fi
slurmd -N $node -L $log/slurmd-$node.log || { say "slurmd failed"; exit 1; }

# Wait for FILE or SECONDS.
wait_for() {
	t=0
	while [ ! -e "$1" ] && [ $t -lt "$2" ]; do
		sleep 1
		t=$((t + 1))
	done
	[ -e "$1" ]
}

# Run a command as user mkm, its output and status saved as $log/NAME.*
as_user() {
	name=$1
	shift
	su -s /bin/sh -c "cd /tmp && $*" mkm >$log/$name.out 2>$log/$name.err
	echo $? >$log/$name.rc
	say "$name: exit $(cat $log/$name.rc)"
}

cluster_jobs() {
	# 1. srun --mkm across all nodes: a trace per node under the template,
	# clocks exchanged every 100 ms too.
	as_user srun-mkm "srun -N$nodes --mkm --mkm-output=/out/%j.%s/%N.mkm --mkm-sync=0.1 cluster_job"
	# 2. sbatch --mkm: the batch step records too, and its srun inherits
	# the options (the step in the path keeps their traces apart).
	as_user sbatch-mkm "sbatch -W -N$nodes -o /out/logs/sbatch-job.out --mkm --mkm-output=/out/%j.%s/%N.mkm --wrap 'srun cluster_job'"
	# 3. Ranks meeting at barriers across the nodes, a daemon beside n1's
	# (examples/cluster_barrier): 60 rounds of 20 ms and a TCP barrier.
	as_user srun-barrier "srun -N$nodes --mkm --mkm-buffered-io --mkm-output=/out/%j.%s/%N.mkm cluster_barrier 60 20 1"
	# 4. A node without the module: the step must fail and say why.
	srun -N1 -w n$((nodes - 1)) rmmod mkm >$log/rmmod.out 2>&1
	as_user srun-nomod "srun -N$nodes --mkm --mkm-output=/out/nomod/%j/%N.mkm cluster_job"
	srun -N1 -w n$((nodes - 1)) insmod /mkm.ko >$log/insmod.out 2>&1
	# 5. An output no one can write: the same.
	as_user srun-unwritable "srun -N$nodes --mkm --mkm-output=/proc/mkm/%j/%N.mkm cluster_job"
}

if [ $node = n0 ]; then
	# Every node registered and idle (slurmd's first registration is slow
	# under TCG), then the jobs, then the others told to stop.
	t=0
	until [ "$(sinfo -h -o '%t' -N 2>/dev/null | grep -c '^idle$')" = "$nodes" ]; do
		if [ $t -ge 300 ]; then
			say "the nodes did not come up: $(sinfo -N 2>&1 | tr '\n' ';')"
			break
		fi
		sleep 2
		t=$((t + 2))
	done
	sinfo -N >$log/sinfo.out 2>&1
	say "nodes up after ${t} s"
	cluster_jobs
	srun -N$nodes touch /tmp/cluster-done >$log/done.out 2>&1
	say "told the others to stop: exit $?"
else
	wait_for /tmp/cluster-done 1200 || say "no word from node 0"
fi

# Stop the daemons so that nothing holds mkm.ko when init unloads it.
sleep 2
for pidfile in /run/slurmd.pid /run/slurmctld.pid /run/munge/munged.pid; do
	[ -f $pidfile ] && kill "$(cat $pidfile)" 2>/dev/null
done
sleep 2
dmesg >$log/dmesg-$node.txt
say "done"
