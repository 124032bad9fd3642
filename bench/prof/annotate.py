#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""annotate.py - one function's instructions, each with how many times it
ran per context switch in bench-profile's timed runs (as perf annotate
does with samples, but counted: tbprof's blocks are exact).

    bench/prof/annotate.py DIR CONFIG FUNCTION OBJECT

DIR is bench-profile's output (vm_switch.tsv, kallsyms, prof/window.N, the
N-th timed run being the N-th line of the tsv, as profile.sh reads it);
CONFIG one of its configurations; FUNCTION a text symbol of OBJECT, the
module or vmlinux the guest ran (build/kernel/mkm.ko for the sensor).
The guest's kallsyms gives the function's address there; objdump gives
its instructions; each block tbprof counted from an address inside the
function adds its executions to the instructions it covers. Prints every
instruction with its executions per switch (the mean over CONFIG's runs),
then the function's total.
"""
import collections
import os
import re
import subprocess
import sys


def die(msg):
    sys.exit(f"annotate: {msg}")


def runs_of(d, config):
    """{window number: switches} of @config's timed runs."""
    out, n = {}, 0
    with open(f"{d}/vm_switch.tsv") as f:
        for line in f:
            if line.startswith("#"):
                continue
            n += 1
            cols = line.split()
            if cols[1] == config and int(cols[3]):
                out[n] = int(cols[3])
    if not out:
        die(f"no timed run of {config} in {d}/vm_switch.tsv")
    return out


def address_of(d, function, obj):
    """@function's address in the guest, in @obj's module (its name in
    brackets in kallsyms) or, for vmlinux, in the kernel's own symbols:
    a module may name a function as the kernel does."""
    name = os.path.basename(obj)
    module = [f"[{name[:-3].replace('-', '_')}]"] if name.endswith(".ko") \
        else []
    with open(f"{d}/kallsyms") as f:
        for line in f:
            cols = line.split()
            if len(cols) >= 3 and cols[1] in "tTwW" and \
                    cols[2] == function and cols[3:] == module:
                return int(cols[0], 16)
    die(f"{function} of {name} is not in {d}/kallsyms")


def instructions(obj, function):
    """[(offset from the function's start, text)], in address order."""
    r = subprocess.run(["objdump", "-d", "--no-show-raw-insn",
                        f"--disassemble={function}", obj],
                       capture_output=True, text=True)
    if r.returncode:
        die(r.stderr.strip())
    start, out = None, []
    for line in r.stdout.splitlines():
        m = re.match(r"^([0-9a-f]+) <(.+)>:$", line)
        if m:
            start = int(m.group(1), 16) if m.group(2) == function else None
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(.*)$", line)
        if start is not None and m and m.group(2):
            out.append((int(m.group(1), 16) - start, m.group(2).strip()))
    if not out:
        die(f"no instructions of {function} in {obj}")
    return out


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__.split("\n\n")[1].strip())
    d, config, function, obj = sys.argv[1:]
    runs = runs_of(d, config)
    base = address_of(d, function, obj)
    insns = instructions(obj, function)
    index = {off: i for i, (off, _) in enumerate(insns)}
    last = base + insns[-1][0]  # blocks start at an instruction
    count = collections.Counter()
    for w, switches in runs.items():
        with open(f"{d}/prof/window.{w}") as f:
            for line in f:
                addr, n, execs = line.split()
                a = int(addr, 16)
                if not base <= a <= last:
                    continue
                i = index.get(a - base)
                if i is None:
                    die(f"a block at {addr} starts inside an instruction")
                # The block's instructions, as far as the function goes.
                for k in range(i, min(i + int(n), len(insns))):
                    count[k] += int(execs) / switches / len(runs)
    total = 0.0
    for k, (off, text) in enumerate(insns):
        total += count[k]
        shown = f"{count[k]:8.2f}" if count[k] >= 0.005 else " " * 8
        print(f"{shown}  +{off:<5x} {text}")
    print(f"{total:8.1f}  instructions per switch in {function} ({config},"
          f" {len(runs)} runs)")


if __name__ == "__main__":
    main()
