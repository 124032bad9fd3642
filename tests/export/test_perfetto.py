#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test_perfetto.py - an mkm export -f perfetto, decoded by protoc (Debian's
protobuf-compiler) with tests/export/perfetto.proto, against `mkm dump` of
the same trace: every ftrace event's time, CPU, tid and fields, the marks
(instant track events), the lost-event bundles and counts, the thread
names; the threads' processes (process trees' tgid) against `mkm report
--json`'s; and protoc --decode_raw must agree on the wire structure (as many
packets). A merged trace's nodes are machines: each packet's machine_id
is its node's, its CPUs and tids the node's own; the test puts the node's
CPU base and tid prefix back (from `mkm report --json`'s nodes) before
comparing, so a packet on the wrong machine shows as a wrong CPU or tid.

    test_perfetto.py MKM TRACE.mkm EXPORT.perfetto-trace
"""
import os
import re
import subprocess
import sys

import expect

TID_SHIFT = 22  # a merged trace's tids: node index << 22 | the node's tid
# the fields that hold a tid, or a CPU, in the events and process trees
TID_FIELDS = ("tid", "prev_tid", "next_tid", "parent_tid", "child_tid",
              "old_tid", "tgid")
CPU_FIELDS = ("target_cpu", "orig_cpu", "dest_cpu")

HERE = os.path.dirname(os.path.abspath(__file__))
# ftrace's field names where LTTng's (which expect.py uses) differ
RENAME = {"pid": "tid", "prev_pid": "prev_tid", "next_pid": "next_tid",
          "parent_pid": "parent_tid", "child_pid": "child_tid",
          "old_pid": "old_tid"}
FTRACE_NAMES = {"sys_enter": "syscall_entry", "sys_exit": "syscall_exit"}
TOKEN = re.compile(r'\s*(?:(\w+) \{|(\w+): ("(?:[^"\\]|\\.)*"|\S+)|(\}))')


def parse(text):
    """protoc's text format as nested lists of (name, value) pairs."""
    stack = [[]]
    pos = 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            if text[pos:].strip():
                raise SystemExit("cannot parse protoc output at %r"
                                 % text[pos:pos + 40])
            break
        pos = m.end()
        if m[1]:
            node = []
            stack[-1].append((m[1], node))
            stack.append(node)
        elif m[4]:
            stack.pop()
        else:
            v = m[3]
            if v.startswith('"'):
                v = bytes(v[1:-1], "utf-8").decode("unicode_escape")
            elif re.fullmatch(r"-?\d+", v):
                v = int(v)
            stack[-1].append((m[2], v))
    return stack[0]


def fields(node):
    return {k: v for k, v in node if not isinstance(v, list)}


def child(node, name):
    for k, v in node:
        if k == name:
            return v
    return None


def main():
    mkm, trace, path = sys.argv[1:4]
    with open(path, "rb") as f:
        data = f.read()
    text = subprocess.run(
        ["protoc", "--decode=perfetto.protos.Trace", "-I" + HERE,
         os.path.join(HERE, "perfetto.proto")], input=data, check=True,
        capture_output=True).stdout.decode()
    raw = subprocess.run(["protoc", "--decode_raw"], input=data, check=True,
                         capture_output=True).stdout.decode()
    packets = [v for k, v in parse(text) if k == "packet"]
    raw_packets = [v for k, v in parse(raw) if k == "1"]
    if len(packets) != len(raw_packets):
        raise SystemExit("perfetto: %d packets decoded, --decode_raw sees %d"
                         % (len(packets), len(raw_packets)))

    import json
    nodes = json.loads(subprocess.run(
        [mkm, "report", "--json", trace], check=True, capture_output=True,
        text=True).stdout).get("nodes", [])
    cpu_base = {n["index"]: n["cpu_base"] for n in nodes}
    machines = set()

    def merged(machine, f):
        """F's tids and CPUs as the merged trace numbers them"""
        if machine not in cpu_base:
            if machine or nodes:
                raise SystemExit("perfetto: machine %d is no node" % machine)
            return f
        return {k: (machine << TID_SHIFT | v if k in TID_FIELDS and v
                    else cpu_base[machine] + v if k in CPU_FIELDS else v)
                for k, v in f.items()}

    events, names, tracks, lost_bundles, lost_marks = [], {}, {}, {}, 0
    tgid = {}
    for p in packets:
        if fields(p).get("trusted_packet_sequence_id") != 1:
            raise SystemExit("perfetto: a packet without its sequence id")
        machine = fields(p).get("machine_id", 0)
        machines.add(machine)
        b = child(p, "ftrace_events")
        if b is not None:
            cpu = merged(machine, {"target_cpu": fields(b)["cpu"]})[
                "target_cpu"]
            if fields(b).get("lost_events") == "true":
                lost_bundles[cpu] = lost_bundles.get(cpu, 0) + 1
            for k, e in b:
                if k != "event":
                    continue
                ts = fields(e)["timestamp"]
                (name, body), = [(k2, v2) for k2, v2 in e
                                 if isinstance(v2, list)]
                f = merged(machine, {RENAME.get(k2, k2): v2
                                     for k2, v2 in fields(body).items()})
                events.append((ts, cpu, FTRACE_NAMES.get(name, name), f,
                               fields(e)["pid"]))
        t = child(p, "process_tree")
        if t is not None:
            for k, th in t:
                if k == "threads":
                    f = merged(machine, fields(th))
                    names[f["tid"]] = f["name"]
                    tgid[f["tid"]] = f["tgid"]
        d = child(p, "track_descriptor")
        if d is not None:
            th = child(d, "thread")
            tracks[fields(d)["uuid"]] = \
                merged(machine, fields(th))["tid"] if th else None
        te = child(p, "track_event")
        if te is not None:
            ft = fields(te)
            if ft["type"] != "TYPE_INSTANT":
                raise SystemExit("perfetto: track event %r" % ft)
            ann = fields(child(te, "debug_annotations"))
            tid = tracks[ft["track_uuid"]]
            if tid is None:
                lost_marks += ann["uint_value"]
                continue
            events.append((fields(p)["timestamp"], None, "mark",
                           {"tid": tid, "value": ann["uint_value"]}, tid))

    recs = expect.dump(mkm, trace)
    exp = expect.expected(recs)
    # Marks have no CPU in Perfetto (a thread's track): they are matched
    # by thread, on a CPU of their own.
    exp = [(t, None if n == "mark" else c, n, f) for t, c, n, f in exp]
    for e in exp:
        if e[2] in ("syscall_entry", "syscall_exit"):
            e[3].pop("tid")
    got = [e[:4] for e in events]
    n = expect.compare(exp, got, "perfetto")

    lost = expect.lost_per_cpu(recs)
    if sum(lost.values()) != lost_marks:
        raise SystemExit("perfetto: LOST track says %d, mkm dump %d"
                         % (lost_marks, sum(lost.values())))
    if set(lost_bundles) != set(lost):
        raise SystemExit("perfetto: lost_events on cpus %r, losses on %r"
                         % (sorted(lost_bundles), sorted(lost)))
    # every thread the dump names is named in a process tree
    want = {}
    for e in expect.expected(recs):
        for k in ("comm", "prev_comm", "next_comm"):
            tid = e[3].get({"comm": "tid", "prev_comm": "prev_tid",
                            "next_comm": "next_tid"}[k])
            if tid and e[3].get(k):
                want[tid] = e[3][k]
    for tid, name in want.items():
        if names.get(tid) != name:
            raise SystemExit("perfetto: thread %d named %r, not %r"
                             % (tid, names.get(tid), name))
    # the threads' processes (tgid) as mkm report says
    procs = expect.same_processes(mkm, trace, tgid, "perfetto")
    if nodes and machines != set(cpu_base):
        raise SystemExit("perfetto: machines %r, nodes %r"
                         % (sorted(machines), sorted(cpu_base)))
    if nodes:
        print("perfetto: %d machines, one per node" % len(machines))
    print("perfetto: %d events, %d lost, %d thread names as mkm dump says, "
          "in %d processes as mkm report (%s)"
          % (n, lost_marks, len(names), procs, path))


main()
