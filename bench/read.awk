# SPDX-License-Identifier: GPL-2.0
# read.awk - bench-read's table from vm_read's measurements (one line per
# drain: run buffer_bytes records ns reads), run on the host. Under QEMU's
# -icount shift=1, guest ns / 2 = guest instructions; a guest second is
# 5e8 instructions.

/^#/ { next }
NF >= 5 {
	b = $2
	if (!(b in seen)) { seen[b] = 1; order[++nb] = b }
	k = ++cnt[b]
	rate[b, k] = $3 / ($4 / 1e9)
	ipr[b, k] = $4 / 2 / $3
	recs[b] = $3; reads[b] = $5
}
END {
	if (!nb) { print "bench-read: no measurements" > "/dev/stderr"; exit 1 }
	printf "bench-read: read() draining a full ring of %d records (32 bytes each), one vCPU, -icount shift=1\n\n", recs[order[1]]
	printf "%10s %6s %16s %14s %12s %10s %10s\n", "buffer", "reads", "records/guest-s", "MB/guest-s", "instr/record", "min", "max"
	for (i = 1; i <= nb; i++) {
		b = order[i]; n = cnt[b]; sr = 0; si = 0
		for (k = 1; k <= n; k++) {
			sr += rate[b, k]; si += ipr[b, k]
			if (k == 1 || ipr[b, k] < mn) mn = ipr[b, k]
			if (k == 1 || ipr[b, k] > mx) mx = ipr[b, k]
		}
		printf "%10d %6d %16.0f %14.1f %12.2f %10.2f %10.2f\n", b, reads[b], sr / n, sr / n * 32 / 1e6, si / n, mn, mx
	}
	printf "\n(mean over %d runs; min and max of instructions per record)\n", cnt[order[1]]
}
