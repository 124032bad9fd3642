# SPDX-License-Identifier: GPL-2.0
# boots.awk: tests/vm/run.sh's report of one run, its boots added up:
# "PASSED FAILED SPLATS". run.sh -e boots twice; a boot that splatted
# before init is booted again, and only the boot that replaced it counts.
/^vm: booting/ { p += bp; f += bf; s += bs; bp = bf = bs = 0 }
/^vm: [0-9]+ passed, [0-9]+ failed/ { bp = $2; bf = $4 }
/^FAIL  kernel log \([0-9]+ splat/ { n = $4; sub(/^\(/, "", n); bs = n }
/booting again/ { bp = bf = bs = 0 }
END { p += bp; f += bf; s += bs; if (NR) print p, f, s }
