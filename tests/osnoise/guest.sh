# SPDX-License-Identifier: GPL-2.0
# guest.sh - run in the guest by tests/osnoise/check.sh (tests/vm/run.sh -c):
# rtla osnoise top measures CPU 1 with the osnoise tracer's spinner while
# mkm records the whole machine; a noise source planted on CPU 1, a shell
# loop that wakes every 20 ms, competes with the spinner. Periods of 100
# ms, all of each sampled (-r as -p), so that the part of a period rtla's
# -d cuts off is small. Then rtla timerlat top the same way (a timer
# every 1 ms waking the timerlat thread of CPU 1). Then, where check.sh
# gave the guest Debian's perf of this kernel, cli_workload under perf
# sched record -a under mkm record -a, and perf sched timehist of it. The
# results go to /out for the host to compare.
echo "kernel $(uname -r)"
taskset -c 1 sh -c 'i=0; while [ $i -lt 300 ]; do usleep 20000; j=0; while [ $j -lt 200 ]; do j=$((j+1)); done; i=$((i+1)); done' &
mkm record -a -o /tmp/os.mkm -- rtla osnoise top -c 1 -d 5 -q -T 1 -p 100000 -r 100000 \
	>/out/rtla.txt 2>/out/rtla.err
echo "record rc=$?"
wait
cat /out/rtla.txt /out/rtla.err
# rtla's -T 1: samples from 1 us, as mkm's --threshold.
mkm noise --comm 'osnoise/*' --threshold 1us --json /tmp/os.mkm >/out/mkm.json
echo "noise rc=$?"
mkm noise --comm 'osnoise/*' --threshold 1us /tmp/os.mkm | sed -n '/osnoise.s table/,/^$/p'
# timerlat: the thread's latency from the timer's expiry, against mkm's
# delays of the thread from its enqueue (in the timer's handler).
mkm record -a -o /tmp/tl.mkm -- rtla timerlat top -c 1 -d 5 -q -p 1000 \
	>/out/timerlat.txt 2>/out/timerlat.err
echo "record rc=$?"
cat /out/timerlat.txt /out/timerlat.err
mkm latency --comm timerlat/1 --json /tmp/tl.mkm >/out/tl.json
echo "latency rc=$?"
mkm latency --comm timerlat/1 --why --top 3 /tmp/tl.mkm
# perf sched timehist: the same run seen by both; perf's rows with the
# state each run left in, and mkm's trace (the host reads it).
if [ -x /bin/perf ]; then
	mkm record -a -o /tmp/th.mkm -- perf sched record -a -o /tmp/perf.data \
		-- cli_workload /tmp/th.ss >/out/perf-record.txt 2>&1
	echo "record rc=$?"
	perf sched timehist -i /tmp/perf.data --state >/out/timehist.txt \
		2>/out/timehist.err
	echo "timehist rc=$?"
	head -20 /out/timehist.txt
	cp /tmp/th.mkm /out/th.mkm
fi
