# SPDX-License-Identifier: GPL-2.0
# read.awk - bench-read's table from vm_read's measurements (one line per
# drain: run method cpus buffer_bytes records ns calls), run on the host.
# With -v icount=1 (QEMU's -icount shift=1), guest ns / 2 = guest
# instructions, a guest second 5e8 of them; without, the figures are ns.

/^#/ { next }
NF >= 7 {
	key = $2 SUBSEP $3 SUBSEP $4
	if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
	k = ++cnt[key]
	rate[key, k] = $5 / ($6 / 1e9)
	ipr[key, k] = $6 / (icount ? 2 : 1) / $5
	recs[key] = $5; calls[key] = $7
}
END {
	if (!nk) { print "bench-read: no measurements" > "/dev/stderr"; exit 1 }
	unit = icount ? "instr/record" : "ns/record"
	printf "bench-read: draining full rings (32-byte records), %s\n", icount ? "-icount shift=1: guest instructions" : "no -icount: guest ns, to compare within the run"
	print "read: read(2); mmap: monitor_read() on the mapped rings; visit: the mapped records read where they lie\n"
	printf "%-6s %4s %10s %8s %8s %16s %12s %10s %10s\n", "method", "cpus", "buffer", "records", "calls", "records/guest-s", unit, "min", "max"
	for (i = 1; i <= nk; i++) {
		key = order[i]; split(key, f, SUBSEP); n = cnt[key]; sr = 0; si = 0
		for (k = 1; k <= n; k++) {
			sr += rate[key, k]; si += ipr[key, k]
			if (k == 1 || ipr[key, k] < mn) mn = ipr[key, k]
			if (k == 1 || ipr[key, k] > mx) mx = ipr[key, k]
		}
		printf "%-6s %4d %10s %8d %8d %16.0f %12.2f %10.2f %10.2f\n", f[1], f[2], f[3] ? f[3] : "-", recs[key], calls[key], sr / n, si / n, mn, mx
	}
	printf "\n(mean over %d runs; min and max of %s)\n", cnt[order[1]], unit
}
