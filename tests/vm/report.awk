# SPDX-License-Identifier: GPL-2.0
# report.awk: read a guest console log (the MKM-* lines of tests/vm/init and
# cmocka's output), print each test as PASS, FAIL or SKIP, print the kernel
# splats, and exit 1 on any failure. Variables: logfile (its name), took (seconds).
#
# A test binary that prints cmocka results counts once per test case, as
# binary/case; any other binary counts once, by its exit status. Loading and
# unloading the module count as tests too. Splats are searched only in kernel
# lines (those with printk's "[ seconds.micro] " stamp), so a test that prints
# "WARNING:" does not fail the run. A kernel's notice that mkm uses an API it
# deprecates (7.2's workqueue warning) is a splat too: it will break a build.
# Exit status: 0 all passed, 1 a failure,
# 3 the only failures are splats from before init started (the kernel's boot).

BEGIN {
	splat_re = "BUG:|WARNING:|Oops|general protection fault|Kernel panic|" \
		"kernel BUG|possible recursive locking|circular locking dependency|" \
		"inconsistent lock state|KASAN|UBSAN|scheduling while atomic|" \
		"sleeping function called from invalid context|self-detected stall|" \
		"rcu: INFO:|detected stalls on CPU|list_add corruption|" \
		"list_del corruption|hung_task|blocked for more than|hard LOCKUP|" \
		"soft lockup|suspected memory leak|Call Trace:|" \
		"enqueued on deprecated workqueue"
	kline_re = "\\[ *[0-9]+\\.[0-9]+\\] .*(" splat_re ")"
	passed = failed = skipped = nsplat = 0
}

function result(verdict, name, why) {
	printf "%-5s %s%s\n", verdict, name, why == "" ? "" : " (" why ")"
	if (verdict == "PASS") passed++
	else if (verdict == "SKIP") skipped++
	else failed++
}

# The output since the last test or case began, printed under a failure.
function tail_show(   i) {
	for (i = (nout > 20 ? nout - 19 : 1); i <= nout; i++)
		if (out[i] !~ /^MKM-|^\[  FAILED  \] /)
			print "      | " out[i]
}

# cmocka's name for a result line: "[  FAILED  ] name" -> "name".
function cm_name(s) {
	sub(/^\[[ A-Z]+\] /, "", s)
	return s
}

{
	gsub(/\r/, "")
	line[NR] = $0
	if ($0 ~ kline_re) {
		splat[++nsplat] = NR
	}
	out[++nout] = $0
}

/^MKM-VM-BOOT / { booted = NR; nout = 0; print "vm: " substr($0, 13) }

/^MKM-INSMOD ok/ { loaded = 1; result("PASS", "insmod mkm.ko", "") }
/^MKM-INSMOD-FAILED/ { result("FAIL", "insmod mkm.ko", $2); tail_show() }
/^MKM-RMMOD ok/ { result("PASS", "rmmod mkm", "") }
/^MKM-RMMOD-FAILED/ { result("FAIL", "rmmod mkm", $2); tail_show() }

/^MKM-TEST-BEGIN / {
	test = $2; cases = cfail = 0; timed_out = ""; nout = 0
	split("", seen)
	next
}
test != "" && /^\[ RUN +\] / { nout = 0; next }
# A case counts once: cmocka's summary lists failures and skips again, and
# a forked child that returns into cmocka reports the cases after it again.
test != "" && /^\[ +(OK|FAILED|SKIPPED) +\] / {
	name = cm_name($0)
	tag = substr($0, 1, index($0, "]"))
	if (name ~ /^[0-9]+ test\(s\)/ || seen[name] == "FAIL") next
	if (seen[name] != "" && tag !~ /FAILED/) next
	cases++
	if (tag ~ /OK/) {
		seen[name] = "PASS"; result("PASS", test "/" name, "")
	} else if (tag ~ /SKIPPED/) {
		seen[name] = "SKIP"; result("SKIP", test "/" name, "")
	} else {
		seen[name] = "FAIL"; cfail++
		result("FAIL", test "/" name, ""); tail_show()
	}
	nout = 0; next
}
/^MKM-TEST-TIMEOUT / { timed_out = $3; sub(/after=/, "", timed_out) }
/^MKM-TEST-END / {
	rc = $3; sub(/rc=/, "", rc)
	if (timed_out != "") {
		result("FAIL", test, "timed out after " timed_out " s"); tail_show()
	} else if (rc != 0 && cfail == 0) {
		result("FAIL", test, "exit status " rc); tail_show()
	} else if (cases == 0) {
		result("PASS", test, "")
	}
	test = ""; next
}

/^MKM-CMD-BEGIN/ { incmd = 1; print "vm: command output:"; next }
/^MKM-CMD-END / {
	incmd = 0; rc = $2; sub(/rc=/, "", rc)
	result(rc == 0 ? "PASS" : "FAIL", "command", rc == 0 ? "" : "exit status " rc)
	next
}
incmd { print "  " $0 }

/^MKM-VM-DONE / { done = 1; tainted = $2; sub(/tainted=/, "", tainted) }

END {
	if (test != "")
		result("FAIL", test, "unfinished")
	if (!done) {
		result("FAIL", "guest", "no MKM-VM-DONE: it hung, panicked or timed out")
		print "vm: the guest's last lines:"
		for (i = (NR > 30 ? NR - 29 : 1); i <= NR; i++) print "  | " line[i]
	}
	if (nsplat > 0) {
		result("FAIL", "kernel log", nsplat " splat line(s)")
		for (i = 1; i <= nsplat; i++) print "  " line[splat[i]]
		print "vm: the first one in context:"
		for (i = splat[1]; i <= NR && i < splat[1] + 40; i++) {
			print "  | " line[i]
			if (line[i] ~ /end trace/) break
		}
	}
	# Taint flags that mean trouble: B bad page, D oops, W warning, L lockup.
	t = tainted + 0
	flags = (int(t / 32) % 2 ? "B" : "") (int(t / 128) % 2 ? "D" : "") \
		(int(t / 512) % 2 ? "W" : "") (int(t / 16384) % 2 ? "L" : "")
	if (flags != "")
		result("FAIL", "kernel taint", flags ": B bad page, D oops, W warning, L lockup")
	if (done && passed + failed + skipped == 0)
		result("FAIL", "guest", "nothing was tested: no module, no test, no command")
	printf "vm: ran in %d s, log in %s\n", took, logfile
	printf "vm: %d passed, %d failed, %d skipped\n", passed, failed, skipped
	# Splats all printed before init started, and nothing else wrong: the
	# kernel's own boot, before the module could be loaded (exit 3: run.sh
	# may boot again). A splat after that is always a failure.
	if (nsplat > 0 && booted && splat[nsplat] < booted &&
	    failed == 1 + (flags != "")) {
		print "vm: every splat came before init started: the kernel's, not mkm's"
		exit 3
	}
	exit failed > 0
}
