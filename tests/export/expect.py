# SPDX-License-Identifier: GPL-2.0
"""expect.py - what an export of a trace must hold, computed from `mkm dump`
of the same trace (not from the exporters' code): the tests of each format
decode the export with a reader nobody here wrote and compare.

Each expected event is (time_ns, cpu, name, fields) with LTTng's event and
field names; the Perfetto test renames ftrace's (pid -> tid) to match.
Times in the dump are relative to the recording's start; the tests check that
one offset maps every dump time onto every exported time.
"""
import re
import subprocess

# (A merged trace's times may be negative: a node started before the
# first node's start, its origin.)
# A comm's two NAME records are one line, seq=FIRST,LAST.
LINE = re.compile(r"^\s*(-?)(\d+)\.(\d{6}) ms cpu(\d+)\s+(\d+) (\S+)\s*(.*?)\s+seq=(\d+)(?:,(\d+))?$")
# Linux's TASK_* bits for ps(1)'s letters, as sched_switch reports them.
STATE_BITS = {"R": 0, "S": 1, "D": 2, "T": 4, "t": 8, "X": 16, "Z": 32, "P": 64}


def dump(mkm, trace):
    """The dump's records: dicts of t (ns from the start), cpu, tid, type,
    rest (the type's text), seq (and seq_last, the last record's a line
    stands for)."""
    out = subprocess.run([mkm, "dump", trace], check=True, capture_output=True,
                         text=True).stdout
    recs = []
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            raise SystemExit("cannot parse dump line: " + line)
        t = int(m[2]) * 1000000 + int(m[3])
        recs.append(dict(t=-t if m[1] else t, cpu=int(m[4]),
                         tid=int(m[5]), type=m[6], rest=m[7], seq=int(m[8]),
                         seq_last=int(m[9] or m[8])))
    return recs


def same_processes(mkm, trace, got, what):
    """GOT, an export's {tid: pid}, must group the threads as `mkm report
    --json` does (the timeline's processes: the FORK that made a thread,
    else the trace's PROCESSES chunk, else a process of its own), for
    every thread both name; returns how many processes."""
    import json
    rep = json.loads(subprocess.run([mkm, "report", "--json", trace],
                                    check=True, capture_output=True,
                                    text=True).stdout)
    want = {th["tid"]: th["pid"] for th in rep["threads"]}
    bad = {tid: (pid, want[tid]) for tid, pid in got.items()
           if tid in want and want[tid] != pid}
    if bad:
        raise SystemExit("%s: processes (export, report) differ by tid: %r"
                         % (what, bad))
    return len(set(got.values()))


def lost_per_cpu(recs):
    """Events lost per CPU: LOST counts and unannounced seq holes."""
    nxt, lost = {}, {}
    for r in recs:
        c = r["cpu"]
        gap = r["seq"] - nxt[c] if c in nxt else 0
        if r["type"] == "LOST":
            n = int(r["rest"].split()[0])
            nxt[c] = r["seq"] + n
            gap += n
        else:
            nxt[c] = r["seq_last"] + 1
        if gap > 0:
            lost[c] = lost.get(c, 0) + gap
    return lost


def field(rest, name):
    """The number after NAME= in a dump line's arguments."""
    return int(re.search(r"\b" + name + r"=(-?\d+)", rest)[1])


# The x86 system vectors as mkm dump names them, and as LTTng-modules'
# x86_irq_vectors_<name>_entry/_exit events do.
LTTNG_VECTORS = {"local_timer": "local_timer", "reschedule_ipi": "reschedule",
                 "call_function_ipi": "call_function",
                 "call_func1_ipi": "call_function_single",
                 "irq_work": "irq_work"}


def expected(recs, vectors=False, syscalls=False):
    """The events an export must contain, in the dump's order; with
    VECTORS, an x86 system vector's handler as LTTng's x86_irq_vectors
    event of its name (vector), else as irq_handler_entry/exit (irq); with
    SYSCALLS, a system call the dump names as LTTng's syscall_entry_NAME
    and syscall_exit_NAME (ret), else as syscall_entry/exit (id)."""
    comm = {0: "swapper"}
    tgid = {}
    last_out = {}  # cpu -> (t, prev, next): the switch a SWITCH_IN completes
    # cpu -> (tid, index in out) of an exec whose new name may follow
    # (the kernel's NAME records come right after EXEC)
    exec_name = {}
    out = []

    def name(tid):
        return comm.get(tid, "")

    def ev(r, n, **f):
        out.append((r["t"], r["cpu"], n, f))

    for r in recs:
        t, c, tid, typ, rest = r["t"], r["cpu"], r["tid"], r["type"], r["rest"]
        words = rest.split()
        if c in exec_name and (typ != "name" or exec_name[c][0] != tid):
            del exec_name[c]
        if typ == "name":
            # the dump joins a comm's two records in one line; a half
            # alone says so, and names no one
            s = re.match(r'comm "(.*)"( \(its (first|second) half only\))?$',
                         rest)
            if not s[2]:
                comm[tid] = s[1]
                if c in exec_name:
                    out[exec_name.pop(c)[1]][3]["filename"] = comm[tid]
            continue
        if typ == "switch_out":
            nxt = int(re.search(r"next=(\d+)", rest)[1])
            ev(r, "sched_switch", prev_tid=tid, prev_comm=name(tid),
               prev_state=STATE_BITS[words[0]], next_tid=nxt,
               next_comm=name(nxt))
            last_out[c] = (t, tid, nxt)
        elif typ == "switch":
            # MKM_EV_SWITCH: a switch_out and the switch_in at its instant
            nxt = int(re.search(r"next=(\d+)", rest)[1])
            state = re.search(r"state=(\S+)", rest)[1]
            ev(r, "sched_switch", prev_tid=tid, prev_comm=name(tid),
               prev_state=STATE_BITS[state], next_tid=nxt,
               next_comm=name(nxt))
            last_out[c] = (t, tid, nxt)
        elif typ == "switch_in":
            prev = int(re.search(r"prev=(\d+)", rest)[1])
            if last_out.get(c) == (t, prev, tid):
                continue
            ev(r, "sched_switch", prev_tid=prev, prev_comm=name(prev),
               prev_state=0, next_tid=tid, next_comm=name(tid))
        elif typ in ("waking", "wakeup", "wakeup_new"):
            target = int(re.search(r"cpu=(-?\d+)", rest)[1])
            ev(r, "sched_" + typ, tid=tid, comm=name(tid),
               target_cpu=c if typ == "waking" else target)
        elif typ == "migrate":
            o, d = re.match(r"cpu(\d+)->cpu(\d+)", rest).groups()
            ev(r, "sched_migrate_task", tid=tid, comm=name(tid),
               orig_cpu=int(o), dest_cpu=int(d))
        elif typ == "fork":
            child = int(re.search(r"child=(\d+)", rest)[1])
            tgid[child] = tgid.get(tid, tid) if " thread" in rest else child
            if not name(child):
                comm[child] = name(tid)
            ev(r, "sched_process_fork", parent_tid=tid,
               parent_comm=name(tid), child_tid=child,
               child_comm=name(child))
        elif typ == "exec":
            ev(r, "sched_process_exec", tid=tid,
               old_tid=field(rest, "old_tid"),
               filename=name(tid))
            exec_name[c] = (tid, len(out) - 1)
        elif typ == "exit":
            ev(r, "sched_process_exit", tid=tid, comm=name(tid))
        elif typ == "reap":
            ev(r, "sched_process_free", tid=tid, comm=name(tid))
        elif typ in ("irq_entry", "irq_exit") and vectors \
                and "vector=" in rest:
            ev(r, "x86_irq_vectors_%s_%s" % (LTTNG_VECTORS[words[1]],
                                             typ[4:]),
               vector=field(rest, "vector"))
        elif typ == "irq_entry":
            ev(r, "irq_handler_entry", irq=field(rest, "(?:irq|vector)"))
        elif typ == "irq_exit":
            ev(r, "irq_handler_exit", irq=field(rest, "(?:irq|vector)"),
               ret=field(rest, "handled"))
        elif typ in ("softirq_entry", "softirq_exit"):
            ev(r, typ, vec=field(rest, "vec"))
        elif typ in ("syscall_entry", "syscall_exit") and syscalls \
                and len(words) > 1 and "=" not in words[1]:
            f = {"ret": field(rest, "ret")} if typ == "syscall_exit" else {}
            ev(r, "%s_%s" % (typ, words[1]), tid=tid, **f)
        elif typ == "syscall_entry":
            ev(r, "syscall_entry", tid=tid, id=field(rest, "nr"))
        elif typ == "syscall_exit":
            ev(r, "syscall_exit", tid=tid, id=field(rest, "nr"),
               ret=field(rest, "ret"))
        elif typ == "mark":
            ev(r, "mark", tid=tid, value=field(rest, "value"))
        elif typ in ("attach", "detach", "LOST"):
            continue
        else:
            raise SystemExit("the test does not know event type " + typ)
    return out


def compare(exp, got, what):
    """Every expected event is exported once and nothing else: matched by
    CPU, name and fields in order per CPU, with one time offset for all.
    Returns the number matched; raises SystemExit on the first mismatch."""
    if len(exp) != len(got):
        raise SystemExit("%s: %d events exported, %d expected from mkm dump"
                         % (what, len(got), len(exp)))
    per_cpu = {}
    for e in got:
        per_cpu.setdefault(e[1], []).append(e)
    offset = None
    idx = {}
    for e in exp:
        t, c, n, f = e
        lst = per_cpu.get(c, [])
        i = idx.get(c, 0)
        if i >= len(lst):
            raise SystemExit("%s: missing on cpu %d: %r" % (what, c, e))
        g = lst[i]
        idx[c] = i + 1
        if offset is None:
            offset = g[0] - t
        if g[0] - t != offset:
            raise SystemExit("%s: time of %r is %d, expected %d"
                             % (what, e, g[0], t + offset))
        if g[2] != n:
            raise SystemExit("%s: %r exported as %r" % (what, e, g))
        for k, v in f.items():
            if g[3].get(k) != v:
                raise SystemExit("%s: field %s of %r is %r, expected %r"
                                 % (what, k, e, g[3].get(k), v))
    return len(exp)
