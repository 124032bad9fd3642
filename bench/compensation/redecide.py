#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""redecide.py - the fair class's wakeup decisions of a trace, decided again
on its compensated timeline.

A trace recorded with `mkm record --events default,sched-state` holds, at
each wakeup of a monitored thread, the vruntime of the woken thread and of
the thread running on its CPU, and whether the kernel then rescheduled the
running one (MKM_EV_SCHED_STATE). On 6.1 (CFS) the rule is
check_preempt_wakeup()'s: the woken preempts when the running thread's
vruntime leads its own by more than the wakeup granularity (1 ms times
1 + log2(CPUs), for a nice-0 thread). The monitor's cost is in every
vruntime, as the kernel charged it: compensation takes it out of each
thread's run time, so a thread's compensated vruntime is its recorded one
less what compensation took from its runs since the trace began (since its
placement, where a wakeup raised its vruntime to the run queue's floor:
from there it is the running thread's). Each pair of threads' wakeups is
walked again (simulate()): the lead moves by each round's change, less,
compensated, the gap compensation opened between the two.

Prints, per trace: how often the rule as written gives the kernel's
decision on the recorded leads (it must, for the experiment to mean
anything); the wakeups the kernel let the waker run on past; as many
again from the walk on the recorded leads (it must give the kernel's
count) and on the compensated ones; the time the woken threads waited in
the kernel's runs on; and the lead the busiest pair's waker loses in a
round, recorded and compensated. docs/compensation.md, "Re-deciding the
wakeups", has what it showed.

usage: redecide.py [--mkm MKM] [--granularity NS] [--json] TRACE...
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def dump(mkm, path):
    out = subprocess.run([mkm, "dump", "--json", path], check=True,
                         capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line]


def s32(x):
    x &= 0xffffffff
    return x - (1 << 32) if x & 0x80000000 else x


class Runs:
    """Each thread's time on a CPU up to a record, as a trace's switches
    give it, and the thread running on each CPU."""

    def __init__(self):
        self.acc = {}
        self.since = {}
        self.on = {}

    def cum(self, tid, t):
        if tid is None:
            return None
        c = self.acc.get(tid, 0)
        if tid in self.since:
            c += t - self.since[tid]
        return c

    def switch(self, cpu, prev, nxt, t):
        if prev in self.since:
            self.acc[prev] = self.acc.get(prev, 0) + t - self.since.pop(prev)
        if prev is not None and self.on.get(cpu) == prev:
            del self.on[cpu]
        if nxt:
            self.since[nxt] = t
            self.on[cpu] = nxt

    def feed(self, e):
        """Takes record e; returns the tid of the thread that was running
        on its CPU (the peer of a wakeup's state)."""
        t, cpu, ty = e["time_ns"], e["cpu"], e["type"]
        if ty == "switch_out":
            self.switch(cpu, e["tid"], None, t)
        elif ty == "switch_in":
            self.switch(cpu, None, e["tid"], t)
        elif ty == "switch":
            self.switch(cpu, e["prev_tid"], e["next_tid"], t)
        return self.on.get(cpu)


def state_points(events):
    """For each SCHED_STATE record of the vruntimes, by (cpu, seq): the
    cumulative run time of its thread and of its peer, at its time."""
    runs = Runs()
    last_next = {}
    points = {}
    for e in events:
        ty = e["type"]
        if ty in ("switch_out", "switch"):
            last_next[e["cpu"]] = e.get("next_tid")
        running = runs.on.get(e["cpu"])
        runs.feed(e)
        if ty != "sched_state" or e.get("what") != "vruntime":
            continue
        t = e["time_ns"]
        peer = last_next.get(e["cpu"]) if e["at"] == "switch" else running
        points[(e["cpu"], e["seq"])] = (runs.cum(e["tid"], t),
                                         runs.cum(peer, t), peer)
    return points


def simulate(rounds, gran, floor, compensated):
    """The pair's wakeups decided again: the lead, from its first, moves
    by each round's change (less the gap compensation opened, if
    compensated), never above the floor a placement puts it at; a lead
    at the granularity or under it lets the waker run on, after which the
    woken is placed again. A round that a placement or a run-on began
    moves it by the pair's median round instead. Returns the run-ons and
    that median, or None for a pair with no round of its own."""
    steps = []
    for i in range(1, len(rounds)):
        prev, cur = rounds[i - 1], rounds[i]
        d = cur[0] - prev[1]
        if compensated:
            d -= cur[2] - prev[2]
        steps.append((d, cur[3] or not prev[4]))
    normal = sorted(d for d, odd in steps if not odd)
    if not normal:
        return 0, None
    median = normal[len(normal) // 2]
    lead = rounds[0][1]
    runs_on = 0 if lead > gran else 1
    for d, odd in steps:
        lead = min(lead + (median if odd else d), floor)
        if lead <= gran:
            runs_on += 1
            lead = floor
    return runs_on, median


def one_trace(mkm, path, gran):
    with tempfile.TemporaryDirectory() as tmp:
        comp_path = os.path.join(tmp, "comp.mkm")
        subprocess.run([mkm, "replay", "-o", comp_path, path], check=True,
                       capture_output=True)
        raw = dump(mkm, path)
        comp = dump(mkm, comp_path)
    raw_pts = state_points(raw)
    comp_pts = state_points(comp)

    # Per pair (woken, running thread), each wakeup's lead and the gap
    # compensation opens between the two (what it took from the running
    # thread's runs less what it took from the woken's); a wakeup that
    # raised the woken's vruntime (placed it at the queue's floor) and
    # the first after the kernel let the waker run on are marked, their
    # change in lead not a round's.
    last_out = {}
    rounds = {}
    n = agree = no_peer = unknown = ran_on = 0
    stake = 0
    open_run = {}  # waker tid -> time of a wakeup it ran on past
    floor = 0
    for e in raw:
        ty = e["type"]
        if ty in ("switch_out", "switch") and e["tid"] in open_run:
            stake += e["time_ns"] - open_run.pop(e["tid"])
        if ty != "sched_state" or e.get("what") != "vruntime":
            continue
        key = (e["cpu"], e["seq"])
        tid = e["tid"]
        if key not in raw_pts or key not in comp_pts:
            unknown += 1
            continue
        own_raw, peer_raw, peer = raw_pts[key]
        own_comp, peer_comp, _ = comp_pts[key]
        if e["at"] == "switch":
            last_out[tid] = e["own"]
            continue
        if "peer" not in e or None in (own_comp, peer_raw, peer_comp):
            no_peer += 1
            continue
        lead = e["lead_ns"]
        placed = tid in last_out and s32(e["own"] - last_out[tid]) > 0
        unplaced = s32(e["peer"] - last_out[tid]) if placed else lead
        if placed:
            floor = max(floor, lead)
        gap = (peer_raw - peer_comp) - (own_raw - own_comp)
        took = bool(e.get("resched"))
        n += 1
        agree += (lead > gran) == took
        r = rounds.setdefault((tid, peer), [])
        r.append((unplaced, lead, gap, placed, took))
        if not took:
            ran_on += 1
            open_run[peer] = e["time_ns"]
    sim_raw = sim_comp = 0
    drift = (None, None)
    for r in sorted(rounds.values(), key=len):
        got_raw, d_raw = simulate(r, gran, floor, compensated=False)
        got_comp, d_comp = simulate(r, gran, floor, compensated=True)
        sim_raw += got_raw
        sim_comp += got_comp
        drift = (d_raw, d_comp)  # the busiest pair's, last
    return {
        "trace": path,
        "wakeups": n,
        "no_peer": no_peer,
        "unknown": unknown,
        "rule_agrees": agree,
        "kernel_ran_on": ran_on,
        "floor_ns": floor,
        "simulated_ran_on": sim_raw,
        "compensated_ran_on": sim_comp,
        "stake_ns": stake,
        "round_ns": drift[0],
        "comp_round_ns": drift[1],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mkm", default="mkm")
    ap.add_argument("--granularity", type=int, default=1000000,
                    help="the wakeup granularity, ns (6.1 on 1 CPU: 1 ms)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    rows = [one_trace(a.mkm, p, a.granularity) for p in a.traces]
    if a.json:
        json.dump(rows, sys.stdout, indent=1)
        print()
        return 0
    print("%-32s %7s %8s %6s %9s %8s %8s %9s %9s" %
          ("trace", "wakeups", "rule=krn", "ran on", "simulated",
           "comp sim", "stake ms", "round ns", "comp ns"))
    for r in rows:
        print("%-32s %7d %7.1f%% %6d %9d %8d %8.1f %9s %9s" %
              (r["trace"][-32:], r["wakeups"],
               100.0 * r["rule_agrees"] / max(r["wakeups"], 1),
               r["kernel_ran_on"], r["simulated_ran_on"],
               r["compensated_ran_on"], r["stake_ns"] / 1e6,
               r["round_ns"], r["comp_round_ns"]))
        if r["no_peer"] or r["unknown"]:
            print("    %d wakeups without the running thread's vruntime, %d"
                  " records not found in the compensated trace" %
                  (r["no_peer"], r["unknown"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
