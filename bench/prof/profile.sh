#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# profile.sh - where the guest's instructions went in bench-profile's timed
# runs, per kernel function, from tbprof's windows (tbprof.c).
#
#   bench/prof/profile.sh DIR [CONFIG-A CONFIG-B]
#
# DIR holds vm_switch.tsv, kallsyms and prof/window.N, the N-th timed run
# being the N-th line of the tsv. Prints, per configuration, the functions
# with the most instructions per context switch (the mean over its runs);
# given two configurations, the functions whose instructions per switch
# differ between them the most, and the total of the difference.
set -euo pipefail

dir=${1:?usage: $0 DIR [CONFIG-A CONFIG-B]}
a=${2:-} b=${3:-}
if [ ! -f "$dir/kallsyms" ] || [ ! -f "$dir/vm_switch.tsv" ]; then
	echo "profile: no kallsyms or vm_switch.tsv in $dir" >&2
	exit 1
fi

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# Text symbols only, sorted by address, then every window's blocks.
{
	awk '$2 ~ /^[tTwW]$/ { print "S", $1, $3 $4 }' "$dir/kallsyms" | sort -k2,2
	awk '!/^#/ { print "W", ++n, $2, $4 }' "$dir/vm_switch.tsv"
	for f in "$dir"/prof/window.*; do
		awk -v w="${f##*.}" '{ print "B", w, $1, $2 * $3 }' "$f"
	done
} >"$tmp"
awk -v A="$a" -v B="$b" '
function hex(s,  i, v, c) {
	v = 0; s = tolower(s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		v = v * 16 + c
	}
	return v
}
# The low 40 bits of a kernel address: awk numbers are doubles, exact to
# 2^53 only, and every kernel address (text, modules) starts ffffff.
function low(s) {
	return hex(substr(s, length(s) - 9))
}
# The symbol at or below kernel address x (its low bits); user space is
# one, its addresses shorter than 16 digits.
function sym(s,  x, lo, hi, mid) {
	if (length(s) < 16) return "[user]"
	x = low(s)
	lo = 1; hi = ns
	if (x < sa[1]) return "[?]"
	while (lo < hi) {
		mid = int((lo + hi + 1) / 2)
		if (sa[mid] <= x) lo = mid; else hi = mid - 1
	}
	return sn[lo]
}
$1 == "S" { ns++; sa[ns] = low($2); sn[ns] = $3; next }
$1 == "W" { conf[$2] = $3; sw[$2] = $4; if (!(($3) in runs)) order[++nc] = $3; runs[$3]++; next }
$1 == "B" {
	c = conf[$2]
	if (c == "" || !sw[$2]) next
	s = sym($3)
	per[c, s] += $4 / sw[$2] / runs[c]
	tot[c] += $4 / sw[$2] / runs[c]
	seen[s] = 1
}
END {
	for (i = 1; i <= nc; i++) {
		c = order[i]
		printf "%s: %.1f instructions per switch\n", c, tot[c]
		n = 0
		for (s in seen) if ((c, s) in per) { k[++n] = s }
		# The top 15, by selection: n is a few thousand.
		for (j = 1; j <= 15 && j <= n; j++) {
			m = j
			for (l = j + 1; l <= n; l++) if (per[c, k[l]] > per[c, k[m]]) m = l
			t = k[j]; k[j] = k[m]; k[m] = t
			printf "  %9.1f  %s\n", per[c, k[j]], k[j]
		}
		delete k
	}
	if (A == "" || B == "") exit
	printf "\n%s minus %s: %+.1f instructions per switch; by function:\n", B, A, tot[B] - tot[A]
	n = 0
	for (s in seen) {
		d = per[B, s] - per[A, s]
		if (d > 0.5 || d < -0.5) { k[++n] = s; dd[s] = d }
	}
	for (j = 1; j <= n; j++) {
		m = j
		for (l = j + 1; l <= n; l++) if ((dd[k[l]] < 0 ? -dd[k[l]] : dd[k[l]]) > (dd[k[m]] < 0 ? -dd[k[m]] : dd[k[m]])) m = l
		t = k[j]; k[j] = k[m]; k[m] = t
		printf "  %+9.1f  %9.1f %9.1f  %s\n", dd[k[j]], per[A, k[j]], per[B, k[j]], k[j]
	}
}' "$tmp"
