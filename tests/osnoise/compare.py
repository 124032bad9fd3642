#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""compare.py - rtla's rows for a CPU against mkm's view of the tracer's
thread there, from one run (tests/osnoise/guest.sh).

    compare.py osnoise RTLA_TXT MKM_NOISE_JSON CPU
    compare.py timerlat RTLA_TXT MKM_LATENCY_JSON CPU

osnoise: rtla osnoise top's row against mkm noise's row of osnoise/CPU.

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

timerlat: rtla timerlat top's row against mkm latency's row of
timerlat/CPU. timerlat's thread latency runs from the timer's expiry to
the thread's read of the clock once it runs; mkm's delay from the enqueue
(the wakeup in the timer's handler, after the expiry) to the switch-in
(before that read), so each of mkm's is shorter than timerlat's of the
same activation: mkm's longest and mean delays at most timerlat's
thread maximum and mean, with 2 us for the two clocks (rtla rounds to
whole us). Activations: rtla's COUNT is the timer's (its IRQ samples);
mkm counts a delay for each wakeup of the sleeping thread, and a timer
that fires before the thread has gone back to sleep (its latency above
the period, under TCG) wakes none: at least rtla's count less 1% and 2;
mkm sees the thread's whole life: at most 5% and 10 more.

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
    # osnoise/N's row on CPU N: each thread also has a short one on the
    # CPU it was made on, before it was bound.
    rep = json.load(open(path))
    for r in rep['osnoise']['rows']:
        if r.get('cpu') == cpu and r.get('name') == f'osnoise/{cpu}':
            return r
    sys.exit(f'compare: no row of osnoise/{cpu} on CPU {cpu} in {path}')


def timerlat(rtla_txt, mkm_json, cpu):
    row = re.compile(r'^\s*(\d+)\s+#(\d+)\s*\|\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)'
                     r'\s*\|\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$')
    r = None
    for line in open(rtla_txt, errors='replace'):
        m = row.match(re.sub(r'\x1b\[[0-9;]*m', '', line))
        if m and int(m.group(1)) == cpu:
            r = [int(m.group(i)) for i in range(1, 11)]
    if not r:
        sys.exit(f'compare: no timerlat row for CPU {cpu} in {rtla_txt}')
    count, irq_max, th_avg, th_max = r[1], r[5], r[8], r[9]
    rows = [t for t in json.load(open(mkm_json))['latency']
            if t['name'] == f'timerlat/{cpu}']
    if not rows:
        sys.exit(f'compare: no timerlat/{cpu} in {mkm_json}')
    t = rows[0]
    fails = 0
    low = count * 0.99 - 2
    ok = low <= t['delays'] <= count * 1.05 + 10
    print(f"activations: rtla {count}, mkm {t['delays']} delays (allowed "
          f"{low:.0f} to {count * 1.05 + 10:.0f}){'' if ok else '  FAIL'}")
    fails += not ok
    got = t['max_delay_ns'] / 1000
    ok = got <= th_max + 2
    print(f"longest: rtla thread {th_max} us (IRQ {irq_max} us), mkm "
          f"{got:.1f} us, at most {th_max + 2}{'' if ok else '  FAIL'}")
    fails += not ok
    got = t['avg_delay_ns'] / 1000
    ok = got <= th_avg + 2
    print(f"mean: rtla thread {th_avg} us, mkm {got:.1f} us, at most "
          f"{th_avg + 2}{'' if ok else '  FAIL'}")
    fails += not ok
    return 1 if fails else 0


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ('osnoise', 'timerlat'):
        sys.exit('usage: compare.py osnoise|timerlat RTLA_TXT MKM_JSON CPU')
    if sys.argv[1] == 'timerlat':
        return timerlat(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    r = rtla_row(sys.argv[2], int(sys.argv[4]))
    m = mkm_row(sys.argv[3], int(sys.argv[4]))
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
