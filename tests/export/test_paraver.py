#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test_paraver.py - an mkm export -f paraver: every line of the .prv
against the format's grammar (header, state, event and communication
records, their objects within the header's counts, times within the
trace, sorted by time), the .pcf's states against the names mkm uses,
and the per-thread time in each state and the threads' processes (the
.row's tasks) against `mkm report --json` of the same trace. For a
merged trace (mkm merge), the nodes too: the header's nodes and their
CPUs, the .row's NODE and CPU levels, each task on the node its threads
come from (tasks and threads are named by their node's own tids), as
`mkm report --json` lists the nodes.

    test_paraver.py MKM TRACE.mkm OUT.prv
"""
import json
import re
import subprocess
import sys

import expect

HEADER = re.compile(r"^#Paraver \((\d\d)/(\d\d)/(\d\d) at (\d\d):(\d\d)\):"
                    r"(\d+)_ns:(\d+)\((\d+(?:,\d+)*)\):1:(\d+)"
                    r"\((\d+:\d+(?:,\d+:\d+)*)\)$")
TID_SHIFT = 22  # a merged trace's tids: node index << 22 | the node's tid
N = r"(\d+)"
STATE = re.compile("^1:" + ":".join([N] * 7) + "$")
EVENT = re.compile("^2:" + ":".join([N] * 7) + "(?::\\d+:\\d+)*$")
COMM = re.compile("^3:" + ":".join([N] * 14) + "$")


def fail(msg):
    raise SystemExit("paraver: " + msg)


def check_nodes(mkm, trace, row, nnode, node_cpus, task_node):
    """The header's and the .row's nodes against mkm report's"""
    rep = json.loads(subprocess.run([mkm, "report", "--json", trace],
                                    check=True, capture_output=True,
                                    text=True).stdout)
    nodes = sorted(rep.get("nodes", []), key=lambda n: n["cpu_base"])
    names = row.split("LEVEL NODE SIZE ")[1].split("\n\n")[0].split("\n")
    if int(names[0]) != nnode or len(names) != nnode + 1:
        fail(".row's NODE level does not name the header's %d nodes" % nnode)
    cpus = row.split("LEVEL CPU SIZE ")[1].split("\n\n")[0].split("\n")
    if int(cpus[0]) != sum(node_cpus) or len(cpus) != sum(node_cpus) + 1:
        fail(".row's CPU level does not name the header's CPUs")
    if not nodes:
        if nnode != 1:
            fail("%d nodes for a one-machine trace" % nnode)
        return
    if [n["name"] for n in nodes] != names[1:]:
        fail(".row's nodes %r, mkm report's %r" %
             (names[1:], [n["name"] for n in nodes]))
    if [n["nr_cpus"] for n in nodes] != node_cpus:
        fail("header's CPUs per node %r, mkm report's %r" %
             (node_cpus, [n["nr_cpus"] for n in nodes]))
    for n in nodes:
        for c in range(n["nr_cpus"]):
            if cpus[1 + n["cpu_base"] + c] != "%s CPU %d" % (n["name"], c):
                fail(".row's CPU %d is %r" % (n["cpu_base"] + c,
                                            cpus[1 + n["cpu_base"] + c]))
    # the nodes' index (the tids' prefix) in the header's order
    if [n["index"] for n in nodes] != list(range(nnode)):
        fail("nodes not in the order of their tid prefixes: %r" % nodes)
    print("paraver: %d nodes (%s) with %s CPUs, %d tasks on them" %
          (nnode, ",".join(names[1:]), node_cpus, len(task_node)))


def main():
    mkm, trace, prv = sys.argv[1:4]
    base = prv[:-4]
    with open(base + ".pcf") as f:
        pcf = f.read()
    states = dict((int(v), n) for v, n in re.findall(
        r"^(\d+)\s+(\S+) \(", pcf.split("STATES\n")[1].split("\n\n")[0],
        re.M))
    with open(base + ".row") as f:
        row = f.read()
    tids = [int(t) for t in re.findall(r"\[(\d+)\]$",
                                       row.split("LEVEL THREAD")[1], re.M)]
    # tasks (processes) "comm [pid]", their threads listed task by task
    pids = [int(t) for t in re.findall(
        r"\[(\d+)\]$", row.split("LEVEL TASK")[1].split("LEVEL THREAD")[0],
        re.M)]
    totals = {}
    last = 0
    with open(prv) as f:
        head = f.readline().rstrip("\n")
        m = HEADER.match(head)
        if not m:
            fail("bad header: %r" % head)
        dur, nnode, ntask = int(m[6]), int(m[7]), int(m[9])
        node_cpus = [int(x) for x in m[8].split(",")]
        ncpu = sum(node_cpus)
        per_task = [int(x.split(":")[0]) for x in m[10].split(",")]
        task_node = [int(x.split(":")[1]) for x in m[10].split(",")]
        nth = sum(per_task)
        if nnode != len(node_cpus):
            fail("header says %d nodes, lists %d" % (nnode, len(node_cpus)))
        if not all(1 <= n <= nnode for n in task_node):
            fail("a task on no node: %r" % head)
        if ntask != len(per_task):
            fail("header says %d tasks, lists %d" % (ntask, len(per_task)))
        if nth != len(tids):
            fail("header says %d threads, .row names %d" % (nth, len(tids)))
        if nth and len(pids) != ntask:
            fail("header says %d tasks, .row names %d" % (ntask, len(pids)))
        first = [sum(per_task[:k]) for k in range(ntask)]
        check_nodes(mkm, trace, row, nnode, node_cpus, task_node)
        if nnode > 1:
            # the merged trace's tids, from the node's own and the node
            task_of = [k for k in range(ntask) for i in range(per_task[k])]
            tids = [(task_node[task_of[i]] - 1) << TID_SHIFT | t
                    for i, t in enumerate(tids)]
            pids = [(task_node[k] - 1) << TID_SHIFT | p
                    for k, p in enumerate(pids)]

        def thread(task, th, no):
            """the .row's index of thread TH of task TASK"""
            if not 1 <= task <= ntask or not 1 <= th <= per_task[task - 1]:
                fail("line %d: no thread %d:%d" % (no, task, th))
            return first[task - 1] + th - 1
        for no, line in enumerate(f, 2):
            line = line.rstrip("\n")
            for rx, kind in ((STATE, 1), (EVENT, 2), (COMM, 3)):
                m = rx.match(line)
                if m:
                    break
            else:
                fail("line %d: not a record: %r" % (no, line))
            v = [int(x) for x in m.groups()]
            if v[1] != 1:
                fail("line %d: application not 1" % no)
            th = thread(v[2], v[3], no)
            if not 0 <= v[0] <= ncpu:
                fail("line %d: cpu out of range: %r" % (no, line))
            t = v[4]
            if t < last:
                fail("line %d: not sorted by time" % no)
            last = t
            if kind == 1:
                b, e, s = v[4], v[5], v[6]
                if not b < e <= dur or s not in states or s == 0:
                    fail("line %d: bad state record %r" % (no, line))
                key = (tids[th], states[s])
                totals[key] = totals.get(key, 0) + e - b
            elif kind == 3:
                # sender cpu:1:task:thread:send:send, receiver likewise
                thread(v[8], v[9], no)
                if v[7] != 1 or \
                        not v[4] == v[5] <= v[10] == v[11] <= dur or \
                        not 1 <= v[6] <= ncpu:
                    fail("line %d: bad communication %r" % (no, line))
            elif not t <= dur:
                fail("line %d: event after the end" % no)
    rep = json.loads(subprocess.run([mkm, "report", "--json", trace],
                                    check=True, capture_output=True,
                                    text=True).stdout)
    want = {}
    for th in rep["threads"]:
        for s, ns in th["states"].items():
            key = (th["tid"], s)
            want[key] = want.get(key, 0) + ns
    want = {k: v for k, v in want.items() if v}
    if totals != want:
        diff = {k: (totals.get(k), want.get(k))
                for k in set(totals) | set(want)
                if totals.get(k) != want.get(k)}
        fail("state totals (prv, report) differ: %r" % diff)
    # each thread in the task of its process, as mkm report says
    procs = expect.same_processes(
        mkm, trace, {tids[first[k] + i]: pids[k]
                     for k in range(len(pids)) for i in range(per_task[k])},
        "paraver")
    print("paraver: %d lines, %d threads in %d processes, state totals as "
          "mkm report says (%s)" % (no if nth else 1, nth, procs, prv))


main()
