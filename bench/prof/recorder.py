#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""recorder.py - bench/prof/recorder.sh's windows, per function and per
recorded event.

Windows 1 and 2 are the unmonitored ping-pong at R and 2R rounds, 3 and 4
the same under mkm record to the tmpfs, 5 and 6 to /dev/null, 7 and 8 to
an ext4 file system on a virtio disk (with direct I/O). For each
recording, what its extra R rounds added over the unmonitored run's extra
R rounds, divided by the extra events it recorded: the monitor's whole
cost a recorded event (the sensor's and the recorder's), its setup
cancelled out. Kernel addresses are named from the guest's kallsyms, mkm's
from the host's binary (the guest runs that file, without address space
randomisation), a shared library's by the library's name.
"""
import argparse
import re
import sys

from symbols import binary_symbols, is_kernel, kernel_symbols, lookup, window


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mkm", required=True, help="the host's mkm binary")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("dir")
    a = ap.parse_args()
    d = a.dir
    kaddr, kname = kernel_symbols(d + "/kallsyms")
    maddr, mname = binary_symbols(a.mkm)
    maps = []
    with open(d + "/maps") as f:
        for line in f:
            p = line.split()
            lo, hi = (int(x, 16) for x in p[0].split("-"))
            maps.append((lo, hi, p[5] if len(p) > 5 else ""))
    mkm_base = min(lo for lo, _, path in maps if path.endswith("/mkm"))

    def name(addr):
        if is_kernel(addr):
            return lookup(kaddr, kname, addr)
        for lo, hi, path in maps:
            if lo <= addr < hi:
                if path.endswith("/mkm"):
                    return "mkm:" + lookup(maddr, mname, addr - mkm_base)
                return "[" + (path.rsplit("/", 1)[-1] or "anon") + "]"
        return "[other user]"

    w = {n: window("%s/window.%d" % (d, n), name) for n in range(1, 9)}
    unmon = w[2].copy()
    unmon.subtract(w[1])
    for first, what in ((3, "tmpfs"), (5, "null"), (7, "disk")):
        with open("%s/%s.txt" % (d, what)) as f:
            reports = f.read()
        ev = [int(x) for x in re.findall(r"recorder: [0-9.]+ ms CPU for "
                                         r"([0-9]+) events", reports)]
        if len(ev) != 2 or ev[1] <= ev[0]:
            sys.exit("recorder.py: no two recorder reports in %s.txt"
                     % what)
        per = w[first + 1].copy()
        per.subtract(w[first])
        per.subtract(unmon)
        events = ev[1] - ev[0]
        where = {"tmpfs": "the guest's tmpfs", "null": "/dev/null",
                 "disk": "an ext4 virtio disk"}[what]
        print("mkm record to %s: %d more events; its reports:" %
              (where, events))
        for line in reports.splitlines():
            if "recorder:" in line:
                print("   " + line.strip())
        total = sum(per.values()) / events
        print("instructions a recorded event over the unmonitored run: "
              "%.1f (%.1f ns at -icount shift=1)" % (total, 2 * total))
        user = sum(v for k, v in per.items()
                   if k.startswith(("mkm:", "["))) / events
        print("  of which in user space (mkm and its libraries): %.1f"
              % user)
        for k, v in sorted(per.items(), key=lambda kv: -abs(kv[1]))[
                :a.top]:
            print("  %8.1f  %s" % (v / events, k))
        print()


if __name__ == "__main__":
    main()
