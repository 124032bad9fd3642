# SPDX-License-Identifier: GPL-2.0
# scale.awk - bench-scale's table from vm_scale's measurements (one line
# each: run series count config rounds switches ns), run on the host.
#
# Guest ns / 2 per context switch are instructions (-icount shift=1). Each
# figure is the mean over runs minus the mean of "none" (mkm.ko loaded, no
# monitor), with the spread (max - min) over runs beside it: flat means the
# same figure in every row of a series.

/^#/ { next }
NF >= 7 {
	key = $2 SUBSEP $3 SUBSEP $4
	v = $7 / $6 / 2
	sum[key] += v; n[key]++
	if (!(key in mn) || v < mn[key]) mn[key] = v
	if (!(key in mx) || v > mx[key]) mx[key] = v
	if ($2 != "none" && !(($2, $3) in seen)) {
		seen[$2, $3] = 1; rows[++nrows] = $2 SUBSEP $3
	}
}

function cell(key) {
	if (!(key in n)) return sprintf("%16s", "-")
	return sprintf("%+9.1f (%4.1f)", sum[key] / n[key] - base,
		       mx[key] - mn[key])
}

END {
	if (!(("none", 0, "none") in n)) {
		print "bench-scale: no measurements" > "/dev/stderr"
		exit 1
	}
	base = sum["none", 0, "none"] / n["none", 0, "none"]
	printf "instructions per context switch over mkm.ko loaded, no monitor (%.1f)\n", base
	printf "(spread over runs in parentheses)\n\n"
	printf "%-9s %7s  %-16s  %-16s\n", "series", "count", "unmonitored", "monitored"
	for (i = 1; i <= nrows; i++) {
		split(rows[i], f, SUBSEP)
		printf "%-9s %7d  %s  %s\n", f[1], f[2],
		       cell(rows[i] SUBSEP "unmon"), cell(rows[i] SUBSEP "mon")
	}
	print ""
	print "threads: one monitor tracking that many sleeping threads;"
	print "monitors: that many monitors, each tracking one sleeping thread;"
	print "monitored: the ping-pong's two threads tracked too (2 records per switch)"
}
