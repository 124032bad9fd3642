#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# help.sh MAKEFILE... - every target declared .PHONY in these makefiles has a
# "## NAME: what it is for" line, which make help prints.
set -eu
phony=$(awk '/^\.PHONY:/ { more = 1; sub(/^\.PHONY:/, "") }
	more { c = sub(/\\$/, ""); print; more = c }' "$@" | tr ' \t' '\n\n' | grep . | sort -u)
helped=$(sed -n 's/^## \([a-z][a-z0-9-]*\): .*/\1/p' "$@" | sort -u)
missing=$(printf '%s\n' "$phony" | grep -vxF "$helped" || true)
if [ -n "$missing" ]; then
	echo "make help: no '## NAME: ...' line for:" $missing >&2
	exit 1
fi
