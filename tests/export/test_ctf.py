#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test_ctf.py - an mkm export -f ctf, read by babeltrace2's Python
bindings (python3-bt2), against `mkm dump` of the same trace: every event's
name, fields, CPU and time, the discarded-event counts against the lost
counts, and the LTTng kernel trace's environment.

    test_ctf.py MKM TRACE.mkm CTF_FOLDER
"""
import sys

import bt2

import expect

MARK = "mkm mark "


def read(folder):
    """(events, discarded per cpu, env) as babeltrace2 decodes them."""
    events, discarded, env = [], {}, None
    for msg in bt2.TraceCollectionMessageIterator(folder):
        if type(msg) is bt2._EventMessageConst:
            ev = msg.event
            cpu = int(ev.packet.context_field["cpu_id"])
            if ev.stream.id != cpu:
                raise SystemExit("stream %d holds cpu %d" % (ev.stream.id,
                                                             cpu))
            f = {k: v for k, v in ev.payload_field.items()}
            f = {k: (str(v) if isinstance(v, bt2._StringFieldConst)
                     else int(v)) for k, v in f.items()}
            name = ev.name
            if name == "lttng_logger":
                if not f["msg"].startswith(MARK):
                    raise SystemExit("lttng_logger that is not a mark: %r" % f)
                name, f = "mark", {"value": int(f["msg"][len(MARK):])}
            elif name in ("syscall_entry_unknown", "syscall_exit_unknown"):
                name = name.replace("_unknown", "")
            events.append((msg.default_clock_snapshot.value, cpu, name, f))
            if env is None:
                env = dict(ev.stream.trace.environment.items())
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            # a stream is a CPU's: its id is the packets' cpu_id (checked
            # on the events below)
            cpu = msg.stream.id
            discarded[cpu] = discarded.get(cpu, 0) + msg.count
    return events, discarded, env


def main():
    mkm, trace, folder = sys.argv[1:4]
    recs = expect.dump(mkm, trace)
    events, discarded, env = read(folder)
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
