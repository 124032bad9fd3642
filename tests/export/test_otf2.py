#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test_otf2.py - an mkm export -f otf2, read by otf2-print and otf2-marker
(Debian's otf2-tools): the archive validates with warnings as errors;
every location's Enter/Leave pairs nest and go forward in time; the time
each location spends in each region (a microstate) equals `mkm report
--json`'s per-thread state totals; the marks are `mkm dump`'s (time, with
one offset for all, thread and value) and the lost-event markers add up
to the dump's lost counts per CPU; each location's group (a process) is
its thread's process as `mkm report --json` says.

    test_otf2.py MKM TRACE.mkm OUT_FOLDER
"""
import json
import re
import subprocess
import sys

import expect

TID_SHIFT = 22  # a merged trace's tids: node index << 22 | the node's tid


def fail(msg):
    raise SystemExit("otf2: " + msg)


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True,
                          text=True).stdout


def check_tree(mkm, trace, defs):
    """A merged trace's system tree (the job, its nodes, each node's CPUs)
    against mkm report's nodes; returns {location group: its node's tid
    prefix} (locations and groups are named by their node's own tids),
    empty for a one-machine trace."""
    nodes = json.loads(run(mkm, "report", "--json", trace)).get("nodes", [])
    tree = {int(i): (name, cls, None if p == "UNDEFINED" else int(p))
            for i, name, cls, p in re.findall(
                r'^SYSTEM_TREE_NODE\s+(\d+)\s+Name: "([^"]*)" <\d+>, '
                r'Class: "([^"]*)" <\d+>, Parent: (?:"[^"]*" <)?'
                r'(\d+|UNDEFINED)', defs, re.M)}
    if not nodes:
        if len(tree) != 1:
            fail("a one-machine trace with %d system tree nodes" % len(tree))
        return {}
    by_name = {n["name"]: n for n in nodes}
    got = {i: name for i, (name, cls, p) in tree.items()
           if cls == "node" and p == 0 and tree[0][2] is None}
    if sorted(got.values()) != sorted(by_name):
        fail("system tree nodes %r, mkm report's %r"
             % (sorted(got.values()), sorted(by_name)))
    for i, name in got.items():
        cpus = [c for c, (_, cls, p) in tree.items() if cls == "cpu" and p == i]
        if len(cpus) != by_name[name]["nr_cpus"]:
            fail("node %s: %d CPUs in the system tree, mkm report says %d"
                 % (name, len(cpus), by_name[name]["nr_cpus"]))
    prefix = {}
    for g, p in re.findall(r'^LOCATION_GROUP\s+(\d+)\s+.*Type: PROCESS, '
                           r'Parent: "[^"]*" <(\d+)>', defs, re.M):
        if int(p) not in got:
            fail("location group %s on no node" % g)
        prefix[int(g)] = by_name[got[int(p)]]["index"] << TID_SHIFT
    print("otf2: system tree: %s, %d nodes (%s), their CPUs; %d processes on "
          "them" % (tree[0][0], len(got), ",".join(sorted(got.values())),
                    len(prefix)))
    return prefix


def main():
    mkm, trace, folder = sys.argv[1:4]
    anchor = folder + "/traces.otf2"
    defs = run("otf2-print", "-G", "-Werror", anchor)
    out = run("otf2-print", "-Werror", anchor)
    regions = dict((int(i), n) for i, n in re.findall(
        r'^REGION\s+(\d+)\s+Name: "([^"]*)"', defs, re.M))
    prefix = check_tree(mkm, trace, defs)
    loc_group = {int(i): int(g) for i, g in re.findall(
        r'^LOCATION\s+(\d+)\s+Name: .*Group: "[^"]*" <(\d+)>', defs, re.M)}
    locs = {int(i): (int(t) | prefix.get(loc_group[int(i)], 0), int(n))
            for i, t, n in re.findall(
                r'^LOCATION\s+(\d+)\s+Name: "[^"]*\[(\d+)\]".*'
                r'# Events: (\d+)', defs, re.M)}
    # each location in the group (a process, "comm [pid]") of its thread's
    # process, as mkm report says
    groups = {int(g): int(pid) | prefix.get(int(g), 0) for g, pid in re.findall(
        r'^LOCATION_GROUP\s+(\d+)\s+Name: "[^"]*\[(\d+)\]" <\d+>, '
        r'Type: PROCESS', defs, re.M)}
    procs = expect.same_processes(mkm, trace, {
        int(t) | prefix.get(int(g), 0): groups.get(int(g)) for t, g in re.findall(
            r'^LOCATION\s+\d+\s+Name: "[^"]*\[(\d+)\]".*'
            r'Group: "[^"]*" <(\d+)>', defs, re.M)}, "otf2")
    open_, last, count, totals = {}, {}, {}, {}
    for kind, loc, t, reg in re.findall(
            r'^(ENTER|LEAVE)\s+(\d+)\s+(\d+)\s+Region: "[^"]*" <(\d+)>',
            out, re.M):
        loc, t, reg = int(loc), int(t), int(reg)
        if t < last.get(loc, 0):
            fail("location %d goes back in time at %d" % (loc, t))
        last[loc] = t
        count[loc] = count.get(loc, 0) + 1
        if kind == "ENTER":
            if loc in open_:
                fail("location %d enters %d inside %d" % (loc, reg,
                                                          open_[loc][0]))
            open_[loc] = (reg, t)
        else:
            r, t0 = open_.pop(loc, (None, 0))
            if r != reg:
                fail("location %d leaves %d, entered %r" % (loc, reg, r))
            key = (locs[loc][0], regions[reg])
            totals[key] = totals.get(key, 0) + t - t0
    if open_:
        fail("regions never left: %r" % open_)
    for loc, (tid, n) in locs.items():
        if count.get(loc, 0) != n:
            fail("location %d: %d events, its definition says %d"
                 % (loc, count.get(loc, 0), n))

    rep = json.loads(run(mkm, "report", "--json", trace))
    want = {}
    for th in rep["threads"]:
        for s, ns in th["states"].items():
            want[(th["tid"], s)] = want.get((th["tid"], s), 0) + ns
    want = {k: v for k, v in want.items() if v}
    if totals != want:
        fail("region totals (otf2, report) differ: %r" % {
            k: (totals.get(k), want.get(k)) for k in set(totals) | set(want)
            if totals.get(k) != want.get(k)})

    marks, lost = [], {}
    for line in run("otf2-marker", anchor).splitlines():
        m = re.match(r'MARKER\s+Time: (\d+), Duration (\d+), Scope: '
                     r'(\w+)(?::(\d+))?, Text: "(.*)"$', line)
        if not m:
            continue
        if m[5].startswith("mark "):
            tid = locs[int(m[4])][0]
            marks.append((int(m[1]), None, "mark",
                          {"tid": tid, "value": int(m[5][5:])}))
        else:
            n, cpu = re.match(r"(\d+) events lost on cpu (\d+)", m[5]).groups()
            lost[int(cpu)] = lost.get(int(cpu), 0) + int(n)
    recs = expect.dump(mkm, trace)
    exp = [(t, None, n, f) for t, c, n, f in expect.expected(recs)
           if n == "mark"]
    expect.compare(exp, sorted(marks, key=lambda e: e[0]), "otf2 marks")
    if lost != expect.lost_per_cpu(recs):
        fail("lost markers %r, mkm dump lost %r"
             % (lost, expect.lost_per_cpu(recs)))
    print("otf2: %d locations in %d processes, region totals as mkm report "
          "says, %d marks, %d lost (%s)" % (len(locs), procs, len(marks),
                                            sum(lost.values()), folder))


main()
