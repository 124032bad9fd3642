# SPDX-License-Identifier: GPL-2.0
# help.awk - make help: the "## NAME: what it is for" lines of the makefiles
# given, in four groups: the top Makefile's, make check's tiers in the order
# it runs them (tiers="check check-unit ..."), the other tests, the
# benchmarks; the parts' other targets last.
/^## [a-z][a-z0-9-]*: / {
	sub(/^## /, "")
	i = index($0, ": ")
	t = substr($0, 1, i - 1)
	line[t] = sprintf("  %-24s %s\n", t, substr($0, i + 2))
	order[++n] = t
	from_top[t] = FILENAME == "Makefile"
}
END {
	ntiers = split(tiers, tier, " ")
	for (k = 1; k <= ntiers; k++)
		is_tier[tier[k]] = 1
	printf "Build and run:\n"
	for (k = 1; k <= n; k++)
		if (from_top[order[k]] && !is_tier[order[k]] && order[k] !~ /^check/)
			printf "%s", line[order[k]]
	printf "\nmake check, its tiers in order (tests/README.md):\n"
	for (k = 1; k <= ntiers; k++)
		printf "%s", line[tier[k]]
	printf "\nOther tests:\n"
	for (k = 1; k <= n; k++)
		if (order[k] ~ /^check/ && !is_tier[order[k]])
			printf "%s", line[order[k]]
	printf "\nBenchmarks (docs/performance.md):\n"
	for (k = 1; k <= n; k++)
		if (order[k] ~ /^bench/)
			printf "%s", line[order[k]]
	printf "\nParts:\n"
	for (k = 1; k <= n; k++)
		if (!from_top[order[k]] && order[k] !~ /^(check|bench)/)
			printf "%s", line[order[k]]
}
