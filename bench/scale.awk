# SPDX-License-Identifier: GPL-2.0
# scale.awk - bench-scale's table from vm_scale's measurements (one line
# each: run series count config rounds switches ns), run on the host.
#
# Guest ns / 2 per context switch are instructions (-icount shift=1). Each
# cell is the median over runs (each run a fresh pair of threads) minus the
# median of "none" (mkm.ko loaded, no monitor), and in parentheses the
# lowest and highest run: flat means the same figure down a column.

/^#/ { next }
NF >= 7 {
	key = $2 SUBSEP $3 SUBSEP $4
	val[key, ++n[key]] = $7 / $6 / 2
	if ($2 != "none" && !(($2, $3) in seen)) {
		seen[$2, $3] = 1; rows[++nrows] = $2 SUBSEP $3
	}
}

# Sorts key's values into s[1..n[key]] (insertion sort: a handful of runs).
function sorted(key,  i, j, v) {
	for (i = 1; i <= n[key]; i++) {
		v = val[key, i]
		for (j = i - 1; j >= 1 && s[j] > v; j--) s[j + 1] = s[j]
		s[j + 1] = v
	}
	return n[key]
}

function median(key,  k) {
	k = sorted(key)
	return k % 2 ? s[(k + 1) / 2] : (s[k / 2] + s[k / 2 + 1]) / 2
}

function cell(key,  m, k) {
	if (!(key in n)) return sprintf("%-24s", "-")
	m = median(key) - base
	k = sorted(key)
	return sprintf("%+7.1f (%+6.1f..%+6.1f)", m, s[1] - base, s[k] - base)
}

END {
	if (!(("none", 0, "none") in n)) {
		print "bench-scale: no measurements" > "/dev/stderr"
		exit 1
	}
	base = median("none" SUBSEP 0 SUBSEP "none")
	printf "instructions per context switch over mkm.ko loaded, no monitor (%.1f);\n", base
	printf "median over runs, each run a fresh pair of threads (lowest..highest)\n\n"
	printf "%-9s %7s  %-24s  %-24s\n", "series", "count", "unmonitored", "monitored"
	for (i = 1; i <= nrows; i++) {
		split(rows[i], f, SUBSEP)
		printf "%-9s %7d  %s  %s\n", f[1], f[2],
		       cell(rows[i] SUBSEP "unmon"), cell(rows[i] SUBSEP "mon")
	}
	print ""
	print "threads: one monitor tracking that many sleeping threads;"
	print "monitors: that many monitors, each tracking one sleeping thread;"
	print "monitored: the pair tracked too (2 records per switch)"
}
