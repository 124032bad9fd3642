# SPDX-License-Identifier: GPL-2.0
# listen.sh - sourced in the guest (guest.sh, bench/prof/workloads.sh):
# cb_taskstats' records of every task that exits between listen NAME and
# unlisten, into /out/NAME.tasks.

# Starts the listener and waits until it listens.
listen() {
	rm -f /tmp/ready
	cb_taskstats -o "/out/$1.tasks" >/tmp/ready &
	listener=$!
	while ! grep -q ready /tmp/ready 2>/dev/null; do
		sleep 0.01
	done
}

unlisten() {
	kill -TERM "$listener"
	wait "$listener"
}
