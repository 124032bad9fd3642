#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check.sh - mkm noise and mkm latency against the kernel's own osnoise
# and timerlat tracers: on each PREEMPT_RT kernel of tests/kernel/matrix
# (their configs build both in), boot a guest that runs `rtla osnoise
# top`, then `rtla timerlat top`, on CPU 1 while `mkm record -a` records
# the machine, a noise source planted there (guest.sh), and compare
# rtla's rows with mkm's of the tracers' threads, count by count
# (compare.py says the bounds and why).
#
#   check.sh [-n NAME[,NAME...]]     default: the matrix's -rt rows
#
# Then `perf sched timehist` on the same guest: cli_workload recorded by
# `perf sched record -a` under `mkm record -a`, perf's per-thread totals
# against the library's of the same runs and wakeups (runs.c lists them;
# compare.py timehist says which and why).
#
# rtla comes from Debian's package (bookworm's, with libtracefs1 and
# libtraceevent1), fetched with apt-get download into $MKM_CACHE/rtla and
# unpacked there with dpkg -x, never installed on this machine; the guest
# gets it in its initramfs. perf is Debian's linux-perf of the guest
# kernel's own version (the one its banner names), from the kernel's
# suite, in $MKM_CACHE/perf/VERSION the same way; a perf whose libraries
# this machine cannot give (sid's, built for a newer glibc) is left out,
# and the kernel's row says so. Each kernel's files are in
# $BUILD/osnoise/NAME: the console log, the guest's /out, compare.txt.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BUILD:-$top/build}
cache=${MKM_CACHE:-${HOME:-/root}/.cache/mkm}
export MKM_CACHE=$cache
names=

say() { printf 'osnoise: %s\n' "$*" >&2; }
die() { printf 'osnoise: %s\n' "$*" >&2; exit 1; }

while getopts "n:h" opt; do
	case $opt in
	n) names=$(echo "$OPTARG" | tr , ' ') ;;
	*) sed -n '3,/^set/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
[ -x "$build/tools/mkm" ] || die "$build/tools/mkm: not built (make)"
for f in tests/cli/cli_workload tests/osnoise/runs; do
	[ -x "$build/$f" ] || die "$build/$f: not built (make check-osnoise builds it)"
done
[ -n "$names" ] || names=$("$top/tests/kernel/kernels.sh" list |
	awk '$1 ~ /-rt$/ { print $1 }')

# rtla and its libraries, unpacked once.
rtla=$cache/rtla/root
if [ ! -x "$rtla/usr/bin/rtla" ]; then
	dl=$(mktemp -d)
	chmod 0777 "$dl"
	say "fetching rtla, libtracefs1, libtraceevent1 into $cache/rtla"
	(cd "$dl" && apt-get download -qq rtla libtracefs1 libtraceevent1) ||
		die "apt-get download rtla failed (apt-get update, as root?)"
	mkdir -p "$rtla"
	for d in "$dl"/*.deb; do dpkg -x "$d" "$rtla"; done
	mkdir -p "$cache/rtla/debs" && mv "$dl"/*.deb "$cache/rtla/debs/"
	rm -rf "$dl"
fi
libs=$rtla/usr/lib/x86_64-linux-gnu

# perf_for NAME: the path of Debian's perf of kernel NAME's version,
# fetched and unpacked once; nothing (and why, on stderr) if this
# machine's libraries cannot run it.
perf_for() {
	local img ver suite root dl
	img=$("$top/tests/kernel/kernels.sh" image "$1")
	ver=$(grep -a -m1 -o 'SMP [A-Z_ ]*Debian [0-9][^ )]*' "$img" | awk '{ print $NF }')
	suite=$(awk -v n="$1" '$1 == n { print $2 }' "$top/tests/kernel/matrix")
	[ -n "$ver" ] && [ -n "$suite" ] || { say "$1: no Debian version in $img"; return 0; }
	root=$cache/perf/$ver/root
	if [ ! -x "$root/usr/bin/perf" ]; then
		dl=$(mktemp -d)
		chmod 0777 "$dl"
		say "$1: fetching linux-perf $ver ($suite) into $cache/perf/$ver"
		if ! (cd "$dl" && "$top/tests/kernel/kernels.sh" download "$suite" "linux-perf=$ver"); then
			rm -rf "$dl"
			say "$1: linux-perf $ver not in $suite"
			return 0
		fi
		mkdir -p "$root"
		dpkg -x "$dl"/linux-perf_*.deb "$root"
		mv "$dl"/*.deb "$cache/perf/$ver/"
		rm -rf "$dl"
	fi
	if ! LD_LIBRARY_PATH=$libs ldd "$root/usr/bin/perf" >/dev/null 2>&1 ||
		LD_LIBRARY_PATH=$libs ldd "$root/usr/bin/perf" 2>&1 | grep -q 'not found'; then
		say "$1: linux-perf $ver cannot run with this machine's libraries: $(LD_LIBRARY_PATH=$libs ldd "$root/usr/bin/perf" 2>&1 | grep -m1 'not found' | sed 's/^[[:space:]]*//')"
		return 0
	fi
	echo "$root/usr/bin/perf"
}

failed=0
mkdir -p "$build"
printf '%-10s %-8s %s\n' KERNEL RESULT FILES >"$build/osnoise.table.tmp"
for name in $names; do
	dir=$build/osnoise/$name
	rm -rf "$dir/out" && mkdir -p "$dir/out"
	say "$name: building mkm.ko"
	if ! "$top/tests/kernel/kernels.sh" build "$name" "$dir/ko"; then
		printf '%-10s %-8s %s\n' "$name" build "$dir/ko/build.log" >>"$build/osnoise.table.tmp"
		failed=1
		continue
	fi
	perf=$(perf_for "$name" 2>"$dir/perf.txt")
	cat "$dir/perf.txt" >&2
	extra=()
	[ -z "$perf" ] || extra=(-f "$perf:/bin/perf"
		-f "$build/tests/cli/cli_workload:/bin/cli_workload")
	# ldd finds rtla's libraries there; the guest gets them at that path.
	LD_LIBRARY_PATH=$libs "$top/tests/vm/mkinitramfs.sh" \
		-o "$dir/initramfs.cpio.gz" -m "$dir/ko/mkm.ko" \
		-f "$build/tools/mkm:/bin/mkm" -f "$rtla/usr/bin/rtla:/bin/rtla" \
		"${extra[@]}"
	say "$name: booting"
	if ! BUILD=$build "$top/tests/vm/run.sh" -i "$dir/initramfs.cpio.gz" \
		-k "$("$top/tests/kernel/kernels.sh" image "$name")" \
		-c "$here/guest.sh" -o "$dir/out" -l "$dir/console.log" -t 900 \
		-a noirqdebug \
		>"$dir/run.txt" 2>&1; then
		printf '%-10s %-8s %s\n' "$name" boot "$dir/run.txt" >>"$build/osnoise.table.tmp"
		failed=1
		continue
	fi
	result=pass
	python3 "$here/compare.py" osnoise "$dir/out/rtla.txt" \
		"$dir/out/mkm.json" 1 >"$dir/compare.txt" 2>&1 || result=FAIL
	python3 "$here/compare.py" timerlat "$dir/out/timerlat.txt" \
		"$dir/out/tl.json" 1 >>"$dir/compare.txt" 2>&1 || result=FAIL
	if [ -n "$perf" ]; then
		"$build/tests/osnoise/runs" "$dir/out/th.mkm" cli_workload \
			>"$dir/out/runs.txt" || result=FAIL
		python3 "$here/compare.py" timehist "$dir/out/timehist.txt" \
			"$dir/out/runs.txt" >>"$dir/compare.txt" 2>&1 || result=FAIL
	else
		echo "timehist: not compared: $(tail -n 1 "$dir/perf.txt" | sed "s/^osnoise: $name: //")" >>"$dir/compare.txt"
	fi
	[ $result = pass ] || failed=1
	sed "s/^/$name: /" "$dir/compare.txt" >&2
	printf '%-10s %-8s %s\n' "$name" "$result" "$dir/compare.txt" >>"$build/osnoise.table.tmp"
done
mv "$build/osnoise.table.tmp" "$build/osnoise.table"
cat "$build/osnoise.table"
exit $failed
