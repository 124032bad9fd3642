# SPDX-License-Identifier: GPL-2.0
# table.awk - bench-vm's table from vm_switch's measurements (one line each:
# run config rounds switches ns events lost), run on the host.
#
# Under QEMU's -icount shift=1 a guest instruction takes 2 guest ns, so the
# guest ns per context switch halved is instructions per switch. A
# configuration's cost is its instructions per switch minus the baseline's
# mean (vm_switch measures the baseline first, before mkm.ko is ever
# loaded); mean, standard deviation, min and max are over runs, the
# baseline's own spread on its line. The last column divides each mean by
# ftrace's filtered one; -loaded is the mean minus that of mkm.ko loaded
# with no monitor, the state every other configuration starts from. The
# table of mkm against each peer adds, where the records were counted,
# the instructions per record (peers that count warm-up records, perf and
# the eBPF ones, read about 1% low).

# Busybox's awk in the guest (the smoke test) may lack sqrt().
function root(x,  r, k) {
	if (x <= 0) return 0
	for (r = x > 1 ? x : 1; k < 100; k++) r = (r + x / r) / 2
	return r
}

function describe(c) {
	if (c == "base") return "no tracing (mkm.ko not loaded)"
	if (c == "loaded") return "mkm.ko loaded, no monitor"
	if (c == "suspended") return "threads tracked, monitor suspended"
	if (c == "const") return "monitor on other threads (constant)"
	if (c == "mon") return "monitored, default classes (sensor)"
	if (c == "mon-two") return "the same, two records a switch"
	if (c == "mon-wake") return "monitored, default + wakeup"
	if (c == "mon-all") return "monitored, every class"
	if (c == "mon-flight") return "mon, flight recorder armed, overwriting"
	if (c == "ftrace-pid") return "ftrace switch+wakeup, set_event_pid"
	if (c == "ftrace-all") return "ftrace switch+wakeup, unfiltered"
	if (c == "perf-task") return "perf record -t, switch+waking+wakeup"
	if (c == "perf-other") return "perf record -t on another thread"
	if (c == "lttng-pid") return "LTTng switch+waking+wakeup, PID tracked"
	if (c == "lttng-other") return "LTTng tracking another process"
	if (c == "bpf-pid") return "eBPF tp_btf switch+wakeup, ring buffer"
	if (c == "bpf-batch") return "eBPF, reader woken at 256 KiB"
	if (c == "bpf-other") return "eBPF filtered to another thread"
	if (c == "bpftrace-pid") return "bpftrace one-liner, switch+wakeup"
	if (c == "floor-none") return "floor.ko loaded, no probe"
	if (c == "floor-nop") return "floor.ko: sched_switch probe, returns"
	if (c == "floor-count") return "floor.ko: sched_switch probe, counts"
	return c
}

/^#/ { next }
NF >= 7 {
	run = $1; c = $2
	if (!(c in seen)) { seen[c] = 1; order[++nconf] = c }
	if (run > nrun) nrun = run
	rounds = $3
	per[c, run] = $5 / $4 / 2
	ev[c] += $6; sw[c] += $4; lost[c] += $7
}

END {
	if (!nconf || !("base" in seen)) {
		print "bench-vm: no measurements" > "/dev/stderr"
		exit 1
	}
	n = 0; base = 0
	for (r = 1; r <= nrun; r++)
		if (("base", r) in per) { base += per["base", r]; n++ }
	base /= n
	for (i = 1; i <= nconf; i++) {
		c = order[i]; n = 0; sum = 0; sq = 0; bsum = 0
		for (r = 1; r <= nrun; r++) {
			if (!((c, r) in per)) continue
			d = per[c, r] - base
			add[c, ++n] = d; sum += d; bsum += per[c, r]
			if (n == 1 || d < mn[c]) mn[c] = d
			if (n == 1 || d > mx[c]) mx[c] = d
		}
		cnt[c] = n; mean[c] = n ? sum / n : 0; abs_[c] = n ? bsum / n : 0
		for (k = 1; k <= n; k++) sq += (add[c, k] - mean[c]) * (add[c, k] - mean[c])
		sd[c] = n > 1 ? root(sq / (n - 1)) : 0
	}
	# -v summary=NAME: "NAME config instructions-over-loaded" lines only,
	# for bench/kernels.sh's table of kernels.
	if (summary != "") {
		for (i = 1; i <= nconf; i++) {
			c = order[i]
			if (c == "base" || c == "loaded" || !("loaded" in seen)) continue
			printf "%s %s %.1f\n", summary, c, mean[c] - mean["loaded"]
		}
		exit
	}
	ref = ("ftrace-pid" in seen) ? mean["ftrace-pid"] : 0
	printf "bench-vm: %d runs of %d round trips per configuration, one vCPU, -icount shift=1\n", nrun, rounds
	printf "guest instructions per context switch (guest ns / 2); added = minus the baseline's mean\n\n"
	lref = ("loaded" in seen) ? mean["loaded"] : 0
	printf "%-12s %-38s %8s %8s %6s %8s %8s %8s %5s %8s\n", "config", "what", "instr/sw", "added", "sd", "min", "max", "-loaded", "ev/sw", "/ftr-pid"
	for (i = 1; i <= nconf; i++) {
		c = order[i]
		evs = sw[c] ? ev[c] / sw[c] : 0
		if (c == "base") {
			printf "%-12s %-38s %8.1f %8s %6.1f %+8.1f %+8.1f %8s %5s %8s\n", c, describe(c), abs_[c], "-", sd[c], mn[c], mx[c], "-", "-", "-"
			continue
		}
		printf "%-12s %-38s %8.1f %+8.1f %6.1f %+8.1f %+8.1f %8s %5s %8s\n", c, describe(c), abs_[c], mean[c], sd[c], mn[c], mx[c], (c == "loaded" || !lref) ? "-" : sprintf("%+.1f", mean[c] - lref), evs ? sprintf("%.2f", evs) : "-", (ref > 0) ? sprintf("%.3f", mean[c] / ref) : "-"
		if (lost[c]) printf "  %s: %d records lost (its buffers were too small): the figure is too low\n", c, lost[c]
	}
	# mkm against each peer, the same events recorded: a monitored switch
	# (switches and wakeups of the two threads), and an unmonitored one (a
	# session on another thread). Over "loaded": every peer is measured in
	# that state too, mkm.ko loaded and idle.
	if (!lref) exit
	npair = 0
	pair("monitored", "mon-wake", "ftrace-pid")
	pair("monitored", "mon-wake", "perf-task")
	pair("monitored", "mon-wake", "lttng-pid")
	pair("monitored", "mon-wake", "bpf-pid")
	pair("monitored", "mon-wake", "bpf-batch")
	pair("monitored", "mon-wake", "bpftrace-pid")
	pair("unmonitored", "const", "perf-other")
	pair("unmonitored", "const", "lttng-other")
	pair("unmonitored", "const", "bpf-other")
	if (!npair) exit
	printf "\nmkm against each peer: instructions per switch over \"loaded\"\n\n"
	printf "%-12s %-12s %8s %-9s %8s %9s %8s %8s\n", "switch", "peer", "peer", "mkm", "mkm", "mkm/peer", "peer/ev", "mkm/ev"
	for (k = 1; k <= npair; k++) {
		m = pm[k]; p = pp[k]
		printf "%-12s %-12s %+8.1f %-9s %+8.1f %9.3f %8s %8s\n", pk[k], p, mean[p] - lref, m, mean[m] - lref, (mean[p] - lref > 0) ? (mean[m] - lref) / (mean[p] - lref) : 0, perev(p, pk[k]), perev(m, pk[k])
	}
}

# Instructions per record over "loaded", where the records were counted
# (on a monitored switch only: an unmonitored one records nothing).
function perev(c, kind) {
	if (kind != "monitored" || !ev[c] || !sw[c]) return "-"
	return sprintf("%.1f", (mean[c] - lref) / (ev[c] / sw[c]))
}

function pair(kind, m, p) {
	if (!(m in seen) || !(p in seen)) return
	npair++; pk[npair] = kind; pm[npair] = m; pp[npair] = p
}
