#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# guest.sh - in the guest: run each workload once unmeasured, then
# unmonitored, then under mkm record, with the kernel's ground truth of
# both measured runs, into /out.
#
# Environment (run.sh sets it): CB_WORKLOADS (pingpong mixed matmul
# hackbench hackbench-threads, the stress-ng stressors switch futex pipe
# hdd cpu mq eventfd poll, xz, sqlite), CB_XZ_BYTES, CB_SQL_ROWS,
# CB_PP_ROUNDS, CB_MX_ITER, CB_MM_SIZE, CB_MM_THREADS,
# CB_HB_GROUPS, CB_HB_LOOPS, CB_SNG_OPS (stressor=ops ...), CB_BUFFER
# (mkm record --buffer-size), CB_EVENTS (mkm record --events; empty: its
# default), CB_DISK (1: the traces are written to the virtio disk's ext4,
# then moved to /out after each run).
#
# Per workload W and run R (unmon, mon), in /out:
#   W.R.time    cb_time: the workload process's fork-to-reap CLOCK_MONOTONIC
#   W.R.tasks   cb_taskstats: every task that exited during the run
#   W.R.truth   cb_pingpong, cb_mixed: each thread's own schedstat
#   W.R.stdout  the workload's output (hackbench prints its own Time:)
#   W.mkm       the monitored run's trace
set -eu

# listen RUN, unlisten: the taskstats listener for run RUN.
. /bench/listen.sh

# mount_disk DIR: the virtio disk's ext4 on DIR.
. /bench/disk.sh

# The same work in both runs. Which of a program's pages are huge (THP
# "always", Debian's default) depends on its layout and on what memory is
# free: matmul -n 100 took 26 to 45 ms from run to run under -icount, 26.6
# to 27.0 with THP off, 25.8 to 26.0 with ASLR off. Both off, and
# stress-ng's random numbers seeded alike (--seed, below: they are seeded
# with the time otherwise; its cpu stressor took 586 to 593 ms, 586.3 to
# 586.5 with its seed and the layout fixed). The bounds are of the
# monitor, not of a program's own variation.
echo 0 >/proc/sys/kernel/randomize_va_space
echo never >/sys/kernel/mm/transparent_hugepage/enabled

# Where mkm record writes: the disk (run.sh made its file system), or
# /out on the guest's tmpfs.
traces=/out
if [ "${CB_DISK:-0}" = 1 ]; then
	mount_disk /disk
	traces=/disk
fi

# The operation count of stress-ng stressor $1 (CB_SNG_OPS, a list of
# stressor=count).
sng_ops() {
	for kv in $CB_SNG_OPS; do
		[ "${kv%%=*}" != "$1" ] || { echo "${kv#*=}"; return; }
	done
	echo "guest.sh: no count for stressor $1 in CB_SNG_OPS" >&2
	exit 1
}

# sqlite's input, the same in both runs: a table filled by one statement,
# indexed, then CB_SQL_ROWS inserts, each its own transaction (a journal
# written, synced and deleted each time), a query, an update, a join, a
# delete and a VACUUM. No random numbers.
sqlite_script() {
	echo "CREATE TABLE t(id INTEGER PRIMARY KEY, k TEXT, v REAL);"
	echo "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)"
	echo "INSERT INTO t SELECT i, printf('%08x', (i * 2654435761) % 4294967296), i * 0.5 FROM n;"
	echo "CREATE INDEX t_k ON t(k);"
	i=0
	while [ $i -lt "$CB_SQL_ROWS" ]; do
		i=$((i + 1))
		echo "INSERT INTO t(k, v) VALUES ('r$i', $i);"
	done
	echo "SELECT substr(k, 1, 2), count(*), sum(v) FROM t GROUP BY 1 ORDER BY 2 DESC LIMIT 3;"
	echo "UPDATE t SET v = v * 2 WHERE k < '80000000';"
	echo "SELECT count(*) FROM t a JOIN t b ON a.k = b.k WHERE a.id % 7 = 0;"
	echo "DELETE FROM t WHERE id % 3 = 0;"
	echo "VACUUM;"
}

# The command of workload $1, run $2.
command_of() {
	case $1 in
	pingpong) echo "cb_pingpong -r $CB_PP_ROUNDS -o /out/$1.$2.truth" ;;
	mixed) echo "cb_mixed -n $CB_MX_ITER -o /out/$1.$2.truth" ;;
	matmul) echo "matmul -n $CB_MM_SIZE -t $CB_MM_THREADS" ;;
	hackbench) echo "hackbench -g $CB_HB_GROUPS -l $CB_HB_LOOPS" ;;
	hackbench-threads) echo "hackbench -T -g $CB_HB_GROUPS -l $CB_HB_LOOPS" ;;
	# stress-ng's stressors by a count of operations, not a time: the
	# run's length is what the monitor changes. One worker each.
	switch | futex | pipe | cpu | mq | eventfd | poll)
		echo "stress-ng -q --seed 1 --$1 1 --$1-ops $(sng_ops "$1")" ;;
	hdd) echo "stress-ng -q --seed 1 --temp-path /tmp --hdd 1 --hdd-bytes 1M --hdd-ops $(sng_ops hdd)" ;;
	# Two compressing threads (blocks of 256 KiB, so that both have
	# work) and the main one reading; the input is part of stress-ng's
	# binary, written once below, compressed to /tmp/cb.xz.in.xz. Debian's
	# xz, not busybox's (which only decompresses), in /opt/bin.
	xz) echo "/opt/bin/xz -T2 -3 --block-size=256KiB -k -f /tmp/cb.xz.in" ;;
	# The database on the guest's tmpfs, new each run (below).
	sqlite) echo "/opt/bin/sqlite3 /tmp/cb.db" ;;
	*) echo "guest.sh: unknown workload $1" >&2; exit 1 ;;
	esac
}

# What xz and sqlite read.
head -c "$CB_XZ_BYTES" /bin/stress-ng >/tmp/cb.xz.in
sqlite_script >/tmp/cb.sql

# Standard input of workload $1.
stdin_of() {
	case $1 in
	sqlite) echo /tmp/cb.sql ;;
	*) echo /dev/null ;;
	esac
}

for w in $CB_WORKLOADS; do
	# A program's first run in a boot pays for what the kernel then
	# keeps (which caches was not looked into): 2.1 to 2.8 ms more of
	# stress-ng's run time. Run once, unmeasured, so that the
	# unmonitored run is not always the first.
	sleep 0.2
	in=$(stdin_of "$w")
	rm -f /tmp/cb.db
	cmd=$(command_of "$w" warm)
	$cmd <"$in" >/dev/null
	rm -f "/out/$w.warm.truth"
	for run in unmon mon; do
		cmd=$(command_of "$w" "$run")
		echo "cb: $w $run: $cmd"
		# Let the previous run's deferred work settle, alike for both.
		sleep 0.2
		rm -f /tmp/cb.db
		listen "$w.$run"
		if [ $run = unmon ]; then
			cb_time -o "/out/$w.$run.time" -- $cmd <"$in" \
				>"/out/$w.$run.stdout"
		else
			mkm record --buffer-size "$CB_BUFFER" \
				${CB_EVENTS:+--events "$CB_EVENTS"} -o "$traces/$w.mkm" -- \
				cb_time -o "/out/$w.$run.time" -- $cmd <"$in" \
				>"/out/$w.$run.stdout" \
				2>"/out/$w.$run.stderr" || { cat "/out/$w.$run.stderr" >&2; exit 1; }
			cat "/out/$w.$run.stderr" >&2
		fi
		unlisten
	done
	[ $traces = /out ] || mv "$traces/$w.mkm" /out/
done
echo "cb: done"
