#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""compare.py - rtla osnoise top's row for a CPU against mkm noise's row of
the osnoise tracer's thread there, from one run (tests/osnoise/guest.sh).

    compare.py RTLA_TXT MKM_JSON CPU

mkm follows the spinner over its whole life, rtla reports only the
periods it completed, so mkm's run time holds rtla's and up to about a
period more (its start, and the period rtla's -d cut: the spinner runs on
into it until rtla stops the tracer; 1.5 periods and 50 ms allowed):
every count of mkm's must be at
least rtla's, less 2 for the edges, and above it by no more than rtla's
rate of that count over the extra run time, with half again and 2 to
spare. Noise: mkm sees no HW or NMI noise, nor the entry paths, so its
noise is at most rtla's (with the same allowance for the extra time).
Softirq: on PREEMPT_RT osnoise hooks no softirq events, so rtla's is 0.
Prints a line per column, and FAIL lines; the exit status is 1 on a
failure.
"""
import json
import re
import sys


def rtla_row(path, cpu):
    row = re.compile(r'^\s*(\d+)\s+#(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)'
                     r'\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$')
    for line in open(path, errors='replace'):
        m = row.match(re.sub(r'\x1b\[[0-9;]*m', '', line))
        if m and int(m.group(1)) == cpu:
            g = [m.group(i) for i in range(1, 13)]
            keys = ('cpu', 'periods', 'runtime', 'noise', 'avail', 'max_noise',
                    'max_single', 'hw', 'nmi', 'irq', 'softirq', 'thread')
            return {k: (float(v) if k == 'avail' else int(v))
                    for k, v in zip(keys, g)}
    sys.exit(f'compare: no row for CPU {cpu} in {path}')


def mkm_row(path, cpu):
    rep = json.load(open(path))
    for r in rep['osnoise']['rows']:
        if r.get('cpu') == cpu and r.get('name', '').startswith('osnoise/'):
            return r
    sys.exit(f'compare: no osnoise thread row for CPU {cpu} in {path}')


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    r = rtla_row(sys.argv[1], int(sys.argv[3]))
    m = mkm_row(sys.argv[2], int(sys.argv[3]))
    rt_us = m['runtime_ns'] / 1000
    fails = 0
    extra = rt_us - r['runtime']
    print(f"runtime: rtla {r['runtime']} us over {r['periods']} periods, "
          f"mkm {rt_us:.0f} us (+{extra:.0f} us)")
    period = r['runtime'] / r['periods']
    if extra < -1000 or extra > 1.5 * period + 50000:
        print(f'FAIL runtime: mkm must hold rtla\'s run time and at most '
              f'1.5 periods ({1.5 * period:.0f} us) and 50 ms more')
        fails += 1
    extra = max(extra, 0)
    for col in ('irq', 'thread'):
        want, got = r[col], m[col]
        slack = 2 + 1.5 * want / r['runtime'] * extra
        ok = want - 2 <= got <= want + slack
        print(f"{col}: rtla {want}, mkm {got} (allowed {want - 2} to "
              f"{want + slack:.0f}){'' if ok else '  FAIL'}")
        fails += not ok
    noise_us = m['noise_ns'] / 1000
    limit = r['noise'] * (1 + 1.5 * extra / r['runtime']) + 1000
    ok = noise_us <= limit
    print(f"noise: rtla {r['noise']} us ({r['hw']} HW samples), mkm "
          f"{noise_us:.0f} us, at most {limit:.0f}{'' if ok else '  FAIL'}")
    fails += not ok
    print(f"max single: rtla {r['max_single']} us, mkm "
          f"{m['max_single_ns'] / 1000:.0f} us")
    print(f"softirq: rtla {r['softirq']}, mkm {m['softirq']} "
          f"(net {m['softirq_ns'] / 1000:.0f} us, run in threads on PREEMPT_RT)")
    if r['softirq'] != 0:
        print('FAIL softirq: osnoise counts none on PREEMPT_RT')
        fails += 1
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
