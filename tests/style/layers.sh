#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# layers.sh - the parts include only what is below them (design.md: kernel
# (its ring.h, built in both) -> libmonitor -> viewer, export -> tools): a quoted #include must name a
# header of the file's own folder or of a folder below. A flat -I list
# would let anything in; this says which include went up, and where.
set -eu
cd "$(dirname "$0")/../.."

# The folders of headers each part may include, its own first.
below() {
	case $1 in
	libmonitor/*) echo "libmonitor/src libmonitor/src/* libmonitor/include kernel/uapi kernel" ;;
	export/*) echo "export libmonitor/include kernel/uapi" ;;
	viewer/bench/*) echo "viewer tools/mkm libmonitor/include kernel/uapi" ;;
	viewer/*) echo "viewer libmonitor/include kernel/uapi" ;;
	esac
}

bad=0
for f in $(git ls-files 'libmonitor/*.[ch]' 'export/*.[ch]' 'viewer/*.[ch]'); do
	dirs="$(dirname "$f") $(below "$f")"
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		found=
		for d in $dirs; do
			if [ -f "$d/$h" ]; then
				found=$d
				break
			fi
		done
		if [ -z "$found" ]; then
			where=$(git ls-files "*/$h" | head -1)
			echo "layers: $f includes \"$h\" (${where:-not found}), not below it (allowed: $dirs)"
			bad=1
		fi
	done
done
exit $bad
