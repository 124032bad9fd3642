#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""workloads.py - bench/prof/workloads.sh's windows: the instructions the
monitor adds per context switch, per function, in each workload.

Per workload, four windows in order: unmonitored at R and 2R operations,
then under mkm record at R and 2R. What the monitored run's extra R
operations added over the unmonitored run's extra R, divided by the
workload's extra switches (cb_taskstats' slices of its tasks, mkm's own
apart): the monitor's whole cost a switch, the sensor's and the
recorder's, the command's start and the recording's setup cancelled out.
Compensation assumes the sensor's part is the same in every program.
"""
import argparse
import sys

from symbols import is_kernel, kernel_symbols, lookup, window

# The scheduler clock that every record reads.
CLOCK = ("native_sched_clock", "sched_clock_cpu", "sched_clock", "local_clock")


def switches(path):
    """Times the workload's tasks were switched in: cb_taskstats' SLICES,
    the recorder's threads (comm mkm) and the listener apart."""
    n = 0
    with open(path) as f:
        for line in f:
            p = line.split()
            if p and p[0] == "task" and p[4] not in ("mkm", "cb_taskstats"):
                n += int(p[7])
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("dir")
    ap.add_argument("workloads", nargs="+")
    a = ap.parse_args()
    d = a.dir
    kaddr, kname = kernel_symbols(d + "/kallsyms")

    def name(addr):
        return lookup(kaddr, kname, addr) if is_kernel(addr) else "[user space]"

    per, extra = {}, {}
    for i, w in enumerate(a.workloads):
        n = [4 * i + k for k in (1, 2, 3, 4)]
        win = [window("%s/window.%d" % (d, k), name) for k in n]
        sw = [switches("%s/%d.tasks" % (d, k)) for k in n]
        unmon, mon = sw[1] - sw[0], sw[3] - sw[2]
        if unmon <= 0 or mon <= 0:
            sys.exit("workloads.py: %s: no extra switches (%s)" % (w, sw))
        c = win[3].copy()
        c.subtract(win[2])
        # Unmonitored, per switch, scaled to the monitored run's count.
        for k, v in win[1].items():
            c[k] -= v * mon / unmon
        for k, v in win[0].items():
            c[k] += v * mon / unmon
        per[w] = {k: v / mon for k, v in c.items()}
        extra[w] = (unmon, mon)

    ws = a.workloads
    head = "%-34s" + " %10s" * len(ws)
    row = "%-34s" + " %10.1f" * len(ws)
    print("Instructions the monitor added per context switch, monitored less "
          "unmonitored")
    print(head % (("",) + tuple(ws)))
    print(head % (("extra switches, unmon/mon",) +
                  tuple("%d/%d" % extra[w] for w in ws)))

    def total(w, pred):
        return sum(v for k, v in per[w].items() if pred(k))

    def sensor(k):
        return k.endswith("[mkm]")

    def rest(k):
        return not sensor(k) and k not in CLOCK and k != "[user space]"

    print(row % (("total",) + tuple(total(w, lambda k: True) for w in ws)))
    print(row % (("mkm.ko (the sensor)",) + tuple(total(w, sensor)
                                                    for w in ws)))
    keys = sorted({k for w in ws for k, v in per[w].items()
                   if sensor(k) and abs(v) >= 0.5},
                  key=lambda k: -abs(per[ws[0]].get(k, 0)))
    for k in keys:
        print(row % (("  " + k,) + tuple(per[w].get(k, 0) for w in ws)))
    print(row % (("the clock (sched_clock)",) +
                 tuple(total(w, lambda k: k in CLOCK) for w in ws)))
    print(row % (("user space (mkm record)",) +
                 tuple(per[w].get("[user space]", 0) for w in ws)))
    print(row % (("the rest of the kernel",) + tuple(total(w, rest)
                                                       for w in ws)))
    keys = set()
    for w in ws:
        keys |= set(sorted((k for k in per[w] if rest(k)),
                           key=lambda k: -abs(per[w][k]))[:a.top])
    for k in sorted(keys, key=lambda k: -max(abs(per[w].get(k, 0))
                                              for w in ws)):
        print(row % (("  " + k,) + tuple(per[w].get(k, 0) for w in ws)))


if __name__ == "__main__":
    main()
