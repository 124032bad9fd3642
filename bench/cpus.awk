# SPDX-License-Identifier: GPL-2.0
# cpus.awk - bench-cpus' table from vm_cpus' measurements (one line each:
# cpus run config seconds switches records lost recorder_ms), one file per
# boot. Every figure is within one boot: stress-ng's rate of bogo ops (the
# messages its pairs pass, each a switch to the other process and back)
# under mkm record over the same boot's unmonitored rate (the run before it), the
# records per second per CPU, the share dropped, and the recorder's CPU.

/^#/ { next }
NF >= 8 {
	c = $1; r = $2
	if (!(c in seen)) { seen[c] = 1; order[++n] = c }
	if ($3 == "none") { base[c, r] = $5 / $4; next }
	if (!((c, r) in base) || !$4) next
	k = ++runs[c]
	ratio[c, k] = ($5 / $4) / base[c, r]
	sum[c] += ratio[c, k]
	rate[c] += $6 / $4 / c
	perswitch[c] += $5 ? $6 / $5 : 0
	lost[c] += $7; records[c] += $6
	ns[c] += $6 ? $8 * 1e6 / $6 : 0
	share[c] += $8 / 1000 / $4 / c
	unmon[c] += base[c, r] / c
}

END {
	if (!n) { print "bench-cpus: no measurements" > "/dev/stderr"; exit 1 }
	printf "bench-cpus: stress-ng --switch (one pair per CPU) unmonitored, then under mkm record; no -icount\n"
	printf "mon/unmon: the median ratio over runs (min, max), each to the same boot's unmonitored run just before;\nthe other columns: means over runs\n\n"
	printf "%4s %4s %14s %9s %6s %6s %14s %8s %8s %9s %9s\n", "cpus", "runs", "ops/s/CPU", "mon/unmon", "min", "max", "records/s/CPU", "rec/op", "lost", "recorder", "rec CPU"
	for (i = 1; i <= n; i++) {
		c = order[i]; k = runs[c]
		if (!k) continue
		# Sorted, for the median: the host's load moves single runs.
		for (j = 1; j <= k; j++) v[j] = ratio[c, j]
		for (j = 2; j <= k; j++)
			for (m = j; m > 1 && v[m - 1] > v[m]; m--) { t = v[m]; v[m] = v[m - 1]; v[m - 1] = t }
		med = k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
		printf "%4d %4d %14.0f %9.3f %6.3f %6.3f %14.0f %8.2f %7.2f%% %6.0f ns %8.2f%%\n", c, k, unmon[c] / k, med, v[1], v[k], rate[c] / k, perswitch[c] / k, records[c] + lost[c] ? 100 * lost[c] / (records[c] + lost[c]) : 0, ns[c] / k, 100 * share[c] / k
	}
	printf "\nops/s/CPU: stress-ng's bogo ops (messages the pairs passed) unmonitored; records/s/CPU: what mkm\n"
	printf "record wrote; rec/op: records per bogo op;\n"
	printf "lost: of the records produced; recorder: its CPU per record; rec CPU: its CPU over the machine's\n"
}
