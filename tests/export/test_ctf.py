#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test_ctf.py - an mkm export -f ctf, read by babeltrace2's Python
bindings (python3-bt2), against `mkm dump` of the same trace: every event's
name, fields, CPU and time, the discarded-event counts against the lost
counts, and the LTTng kernel trace's environment.

A merged trace (mkm merge) is a CTF trace per node, in a folder each: the
node's CPUs and tids, its events' clock values on its own clock (the
merged time less its offset) and its clock class's offset that offset
more than the reference's. Every event is mapped back onto the merged
trace's CPU and tid (the node's CPU base and tid prefix, from `mkm report
--json`'s nodes) and read at its time from the origin, which must be the
merged time plus one offset for all; each node's count of events must be
the merged trace's on its CPUs.

    test_ctf.py MKM TRACE.mkm CTF_FOLDER
"""
import json
import subprocess
import sys

import bt2

import expect

MARK = "mkm mark "
TID_SHIFT = 22  # a merged trace's tids: node index << 22 | the node's tid
TID_FIELDS = ("prev_tid", "next_tid", "tid", "parent_tid", "parent_pid",
              "child_tid", "child_pid", "old_tid")
CPU_FIELDS = ("target_cpu", "orig_cpu", "dest_cpu")


def read(folder, nodes):
    """(events, discarded per cpu, env, per node: events and the clock's
    offset) as babeltrace2 decodes them; with NODES (a merged trace's, by
    name), CPUs and tids as the merged trace numbers them."""
    events, discarded, env, per_node = [], {}, None, {}

    def node_of(stream):
        name = stream.trace.environment.get("mkm_node")
        if not nodes:
            if name is not None:
                raise SystemExit("ctf: node %s in a one-machine trace" % name)
            return None
        if name is None or str(name) not in nodes:
            raise SystemExit("ctf: a trace of no node (%r)" % name)
        return nodes[str(name)]

    def merged(n, f):
        if n is None:
            return f
        return {k: (n["index"] << TID_SHIFT | v if k in TID_FIELDS and v
                    else n["cpu_base"] + v if k in CPU_FIELDS else v)
                for k, v in f.items()}

    for msg in bt2.TraceCollectionMessageIterator(folder):
        if type(msg) is bt2._EventMessageConst:
            ev = msg.event
            n = node_of(ev.stream)
            cpu = int(ev.packet.context_field["cpu_id"])
            if ev.stream.id != cpu:
                raise SystemExit("stream %d holds cpu %d" % (ev.stream.id,
                                                             cpu))
            snap = msg.default_clock_snapshot
            if n is not None:
                cpu += n["cpu_base"]
                pn = per_node.setdefault(n["name"], [0, set()])
                pn[0] += 1
                pn[1].add(snap.ns_from_origin - snap.value)
            f = {k: v for k, v in ev.payload_field.items()}
            f = merged(n, {k: (str(v) if isinstance(v, bt2._StringFieldConst)
                               else int(v)) for k, v in f.items()})
            name = ev.name
            if name == "lttng_logger":
                if not f["msg"].startswith(MARK):
                    raise SystemExit("lttng_logger that is not a mark: %r" % f)
                name, f = "mark", {"value": int(f["msg"][len(MARK):])}
            elif name in ("syscall_entry_unknown", "syscall_exit_unknown"):
                name = name.replace("_unknown", "")
            events.append((snap.ns_from_origin, cpu, name, f))
            if env is None:
                env = dict(ev.stream.trace.environment.items())
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            # a stream is a CPU's: its id is the packets' cpu_id (checked
            # on the events below)
            n = node_of(msg.stream)
            cpu = msg.stream.id + (n["cpu_base"] if n else 0)
            discarded[cpu] = discarded.get(cpu, 0) + msg.count
    return events, discarded, env, per_node


def check_nodes(nodes, exp, per_node):
    """Each node's trace holds the merged trace's events of its CPUs, on
    a clock whose offset is its own: the reference's plus the node's
    offset."""
    ref = [n for n in nodes.values() if n["index"] == 0]
    base = None
    for name, n in sorted(nodes.items(), key=lambda x: x[1]["index"]):
        want = sum(1 for e in exp if n["cpu_base"] <= e[1] <
                   n["cpu_base"] + n["nr_cpus"])
        got, offsets = per_node.get(name, [0, set()])
        if got != want:
            raise SystemExit("ctf: node %s: %d events, the merged trace "
                             "has %d on its CPUs" % (name, got, want))
        if not got:
            continue
        if len(offsets) != 1:
            raise SystemExit("ctf: node %s: clock offsets %r"
                             % (name, offsets))
        off = offsets.pop()
        if base is None:
            base = off - n["offset_ns"]
        if off - base != n["offset_ns"]:
            raise SystemExit("ctf: node %s: clock offset %d, expected the "
                             "reference's %+d" % (name, off - base,
                                                  n["offset_ns"]))
        print("ctf: node %s: %d events, its clock %+d ns from the "
              "reference's" % (name, got, off - base))
    if not ref:
        raise SystemExit("ctf: no node of index 0")


def main():
    mkm, trace, folder = sys.argv[1:4]
    recs = expect.dump(mkm, trace)
    nodes = {n["name"]: n for n in json.loads(subprocess.run(
        [mkm, "report", "--json", trace], check=True, capture_output=True,
        text=True).stdout).get("nodes", [])}
    events, discarded, env, per_node = read(folder, nodes)
    # An x86 system vector is LTTng's x86_irq_vectors event of its name,
    # not an irq_handler_entry of a fake irq (Trace Compass shows those).
    # A system call with a name in the kernel's table is LTTng's
    # syscall_entry_NAME (Trace Compass shows NAME), not a number.
    exp = expect.expected(recs, vectors=True, syscalls=True)
    # LTTng's events carry no tid of the syscall's or mark's thread: the
    # CPU and time place them.
    for e in exp:
        if e[2].startswith("syscall_") or e[2] == "mark":
            e[3].pop("tid")
    n = expect.compare(exp, events, "ctf")
    if nodes:
        check_nodes(nodes, exp, per_node)
    lost = expect.lost_per_cpu(recs)
    if discarded != lost:
        raise SystemExit("ctf: discarded %r, mkm dump lost %r"
                         % (discarded, lost))
    want = {"domain": "kernel", "tracer_name": "lttng-modules"}
    for k, v in want.items():
        if env is not None and str(env.get(k)) != v:
            raise SystemExit("ctf: env %s is %r" % (k, env.get(k)))
    if env is not None and int(env["tracer_major"]) < 2:
        raise SystemExit("ctf: tracer_major %r" % env["tracer_major"])
    print("ctf: %d events and %d lost as mkm dump says (%s)"
          % (n, sum(lost.values()), folder))


main()
