#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# budget.sh DIR - make check's time, tier by tier, from a fresh clone: the
# figures of tests/README.md's budget. Clones this repository's HEAD into
# DIR (which must not exist), then runs make deps and each tier of make
# check in its order, as .ci/run does (WERROR=1), and prints each one's
# time, exit status and the load beside it. Goes on past a failed tier,
# so that every tier's time is known; exits 1 if any failed. The kernel
# cache is $MKM_CACHE (default ~/.cache/mkm): empty it, or point it at an
# empty folder, for the figure without the cache.
set -uo pipefail

dir=${1:?usage: budget.sh DIR}
top=$(cd "$(dirname "$0")/.." && pwd)
[ ! -e "$dir" ] || { echo "budget: $dir exists" >&2; exit 2; }
git clone -q "$top" "$dir" || exit 2
cd "$dir" || exit 2
tiers=$(make --no-print-directory -pn help 2>/dev/null |
	sed -n 's/^MAKE_CHECK_TIERS := //p')
echo "budget: $(git log -1 --format='%h %s' | cut -c1-72)"
bad=0 start=$(date +%s)
for t in deps $tiers; do
	s=$(date +%s)
	WERROR=1 make "$t" KERNELS_REFERENCE_REPORT=build/vm/report.txt \
		>"tier-$t.log" 2>&1
	rc=$?
	[ $rc = 0 ] || bad=1
	printf '%-20s %s %6d s  load %s\n' "$t" "$([ $rc = 0 ] && echo ok || echo FAILED)" \
		$(($(date +%s) - s)) "$(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "total $(($(date +%s) - start)) s (logs: $dir/tier-*.log)"
exit $bad
