#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""merged_comp.py - compensation on many nodes, checked (check-cluster).

    merged_comp.py MERGED.json NODE.json...

Each file is `mkm report --json --compensated` of a trace: MERGED.json of
the merged trace, each NODE.json of one node's own (named NODE-...). The
merged trace must carry every node's calibration, each on the node's CPUs
(one entry per CPU of the merge), and compensating it must give each
node's threads the time in each state that compensating the node's own
trace gives:
only then were each node's costs and its recorder's threads applied to
it. The times differ by the clock alignment's rate alone (ppm) and by
the split of a switch's ends: 0.1% or 20 us, whichever is larger.
Prints each node's comparison; exits 1 on any difference.
"""
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    merged = load(sys.argv[1])
    bad = 0
    cal = merged.get("calibration")
    cpus = sorted(c["cpu"] for c in cal["cpus"]) if cal else []
    if cpus != list(range(merged["nr_cpus"])):
        print(f"merged: calibration of CPUs {cpus}, the merge has "
              f"{merged['nr_cpus']}")
        bad += 1
    else:
        print(f"merged: a calibration entry for each of its "
              f"{merged['nr_cpus']} CPUs")
    by_node = {}
    for t in merged["threads"]:
        if "node" in t:
            by_node[(t["node"], t["node_tid"])] = t
    for path in sys.argv[2:]:
        node = load(path)
        name = path.rsplit("/", 1)[-1].split("-")[0]
        compared = worst = 0
        for t in node["threads"]:
            m = by_node.get((name, t["tid"]))
            if m is None:
                print(f"{name}: thread {t['tid']} not in the merge")
                bad += 1
                continue
            for state in sorted(set(t["states"]) | set(m["states"])):
                a = t["states"].get(state, 0)
                b = m["states"].get(state, 0)
                allowed = max(a / 1000, 20000)
                worst = max(worst, abs(a - b) - allowed)
                compared += 1
                if abs(a - b) > allowed:
                    print(f"{name}: tid {t['tid']} {state}: its own "
                          f"trace {a} ns compensated, the merge {b} ns")
                    bad += 1
        print(f"{name}: {compared} compensated figures of "
              f"{len(node['threads'])} threads as in its own trace"
              + ("" if worst <= 0 else " (some not)"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
