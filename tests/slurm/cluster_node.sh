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
# /tmp/cluster-done on each, and a page the others fetch over HTTP, which
# needs no Slurm). Every node keeps its daemons' logs in /out/logs (slurmd's
# holds slurmstepd's too) and, when it ends, what its processes were doing
# (ps-NODE.txt: each Slurm and munge thread's state, wait channel and
# kernel stack); the traces are written by mkm.so under /out.
#
# Every job runs under a timeout (mkm_job_timeout, default 240 s), and
# every node ends by itself by mkm_deadline (default 1200 s after it
# started): a job that stalls is killed, its state saved (stalled-NAME.txt:
# the queue, the jobs, the nodes), and the run goes on, so that each
# guest's /out, which the host gets only from a guest that ends by itself,
# comes back. The host checks all of it: this script only runs things and
# records what they did.

node=n${mkm_node:?}
nodes=${mkm_nodes:?}
job_timeout=${mkm_job_timeout:-240}
deadline=$(($(cut -d. -f1 /proc/uptime) + ${mkm_deadline:-1200}))
done_port=38888
log=/out/logs
mkdir -p $log
chmod 1777 /out $log
say() { echo "cluster: $node: $*"; }
left() { echo $((deadline - $(cut -d. -f1 /proc/uptime))); }

# What every process is doing, and each Slurm or munge thread's kernel
# stack: where a stalled daemon waits.
snapshot() {
	{
		echo "== $node at $(cut -d' ' -f1 /proc/uptime) s: $1"
		ps -o pid,ppid,user,stat,rss,args
		for p in /proc/[0-9]*; do
			case $(cat $p/comm 2>/dev/null) in
			slurm* | munged | srun | sbatch | cluster_* | noised) ;;
			*) continue ;;
			esac
			for t in $p/task/*; do
				echo "-- ${p#/proc/}/${t##*/} $(cat $t/comm 2>/dev/null)" \
					"$(grep '^State' $t/status 2>/dev/null)" \
					"wchan=$(cat $t/wchan 2>/dev/null)"
				cat $t/stack 2>/dev/null | sed 's/^/     /'
			done
		done
	} >>$log/ps-$node.txt 2>&1
}

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

# Run a command as user mkm, its output and status saved as $log/NAME.*;
# killed after the job timeout (or at the deadline), what Slurm knew of it
# saved first.
as_user() {
	name=$1
	shift
	t=$(left)
	[ "$t" -gt "$job_timeout" ] && t=$job_timeout
	if [ "$t" -le 0 ]; then
		echo 124 >$log/$name.rc
		say "$name: not run: the deadline passed"
		return
	fi
	timeout -s KILL "$t" su -s /bin/sh -c "cd /tmp && $*" mkm \
		>$log/$name.out 2>$log/$name.err
	echo $? >$log/$name.rc
	if [ "$(cat $log/$name.rc)" = 137 ]; then
		say "$name: killed after $t s"
		{
			squeue -a -l
			scontrol show job
			scontrol show step
			sinfo -N -l
		} >$log/stalled-$name.txt 2>&1
		snapshot "$name stalled"
		# The killed srun's job, pending or running, would hold the
		# queue (sched/builtin) or its nodes for every job after it.
		scancel -u mkm
		sleep 5
	fi
	say "$name: exit $(cat $log/$name.rc)"
}

# Run a command as root, with the same timeout: $log/NAME.out (stdout
# and stderr) and NAME.rc.
as_root() {
	name=$1
	shift
	timeout -s KILL "$job_timeout" "$@" >$log/$name.out 2>&1
	echo $? >$log/$name.rc
	say "$name: exit $(cat $log/$name.rc)"
}

# srun-flight's task: n1 runs examples/flight's planted stall (its hog
# takes SCHED_FIFO: the job runs as root), every other node cluster_job.
cat >/tmp/flight_task.sh <<'EOF'
#!/bin/sh
if [ "$SLURM_NODEID" = 1 ]; then exec flight -t 1.5 -s 150; fi
exec cluster_job
EOF
chmod 755 /tmp/flight_task.sh

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
	as_root rmmod srun -N1 -w n$((nodes - 1)) rmmod mkm
	as_user srun-nomod "srun -N$nodes --mkm --mkm-output=/out/nomod/%j/%N.mkm cluster_job"
	as_root insmod srun -N1 -w n$((nodes - 1)) insmod /mkm.ko
	# 5. An output no one can write: the same.
	as_user srun-unwritable "srun -N$nodes --mkm --mkm-output=/proc/mkm/%j/%N.mkm cluster_job"
	# 6. A flight recorder on every node: n1's stall (150 ms) writes its
	# snapshot, and each node writes one at the end (exit). The threshold
	# is well above the waits of a loaded one-vCPU guest (26 ms seen).
	as_root srun-flight srun -N$nodes --mkm-flight=4M \
		'--mkm-trigger=runq>80ms,exit' --mkm-output=/out/%j.%s/%N.mkm \
		/tmp/flight_task.sh
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
	# The word to stop, through Slurm and, for a node Slurm no longer
	# reaches, over HTTP.
	mkdir -p /tmp/www
	: >/tmp/www/done
	httpd -p $done_port -h /tmp/www
	as_root done srun -N$nodes touch /tmp/cluster-done
	# A node Slurm drained (a batch step that failed) takes no job.
	sinfo -N -h -o '%N %t %E' >$log/sinfo-end.out 2>&1
	sleep 3
else
	until [ -e /tmp/cluster-done ] ||
		wget -q -O /dev/null http://n0:$done_port/done 2>/dev/null; do
		if [ "$(left)" -le 0 ]; then
			say "no word from node 0 by the deadline"
			break
		fi
		sleep 2
	done
fi
snapshot "the end"

# Stop the daemons so that nothing holds mkm.ko when init unloads it.
sleep 2
for pidfile in /run/slurmd.pid /run/slurmctld.pid /run/munge/munged.pid; do
	[ -f $pidfile ] && kill "$(cat $pidfile)" 2>/dev/null
done
sleep 2
dmesg >$log/dmesg-$node.txt
say "done"
