# SPDX-License-Identifier: GPL-2.0
"""symbols.py - names for the addresses in tbprof's windows (tbprof.c):
the guest kernel's from its kallsyms, a binary's from nm."""
import bisect
import collections
import subprocess


def kernel_symbols(path):
    """Text symbols of a kallsyms file, a module's with its [name]."""
    syms = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 3 and p[1] in "tTwW":
                syms.append((int(p[0], 16), " ".join(p[2:4])))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def binary_symbols(path):
    out = subprocess.run(["nm", "-n", path], capture_output=True, text=True,
                         check=True).stdout
    addrs, names = [], []
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "tTwW":
            addrs.append(int(p[0], 16))
            names.append(p[2])
    return addrs, names


def lookup(addrs, names, a):
    i = bisect.bisect_right(addrs, a) - 1
    return names[i] if i >= 0 else "?"


def is_kernel(addr):
    return addr >= 1 << 63


def window(path, name):
    """Instructions executed per name(address) in one window's file."""
    c = collections.Counter()
    with open(path) as f:
        for line in f:
            addr, insns, execs = line.split()
            c[name(int(addr, 16))] += int(insns) * int(execs)
    return c
