#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test_redecide.py - bench/compensation/redecide.py's walk of a pair's
wakeups, on synthetic rounds: it gives the runs on that the leads make,
and the compensated gap moves them.

No VM: python3 tests/compensation/test_redecide.py
"""
import importlib.util
import os
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "redecide",
    os.path.join(HERE, "..", "..", "bench", "compensation", "redecide.py"))
redecide = importlib.util.module_from_spec(spec)
spec.loader.exec_module(redecide)

US = 1000
GRAN, FLOOR = 1000 * US, 3000 * US


def kernel_rounds(n, loss, gap_per_round=0):
    """n wakeups as 6.1's CFS makes them: placed at the floor, the lead
    falling by loss a round, the waker run on at the granularity and the
    woken placed again; compensation's gap growing by gap_per_round.
    Rows as one_trace() keeps them: (unplaced lead, lead, gap, placed,
    preempted)."""
    rows, lead, placed = [], FLOOR, True
    for i in range(n):
        took = lead > GRAN
        unplaced = lead + (4000 * US if placed and i else 0)
        rows.append((unplaced, lead, i * gap_per_round, placed, took))
        if took:
            lead, placed = lead - loss, False
        else:
            lead, placed = FLOOR, True
    return rows


class Walk(unittest.TestCase):
    def test_recorded_leads_give_the_kernels_runs_on(self):
        rows = kernel_rounds(20000, 4 * US)
        kernel = sum(1 for r in rows if not r[4])
        got, median = redecide.simulate(rows, GRAN, FLOOR, False)
        self.assertEqual(median, -4 * US)
        self.assertLessEqual(abs(got - kernel), 1)
        self.assertGreater(kernel, 30)

    def test_a_gap_that_takes_the_loss_away_leaves_no_run_on(self):
        rows = kernel_rounds(20000, 4 * US, gap_per_round=-4 * US)
        got, median = redecide.simulate(rows, GRAN, FLOOR, True)
        self.assertEqual(median, 0)
        self.assertEqual(got, 0)

    def test_a_gap_that_doubles_the_loss_doubles_the_runs_on(self):
        rows = kernel_rounds(20000, 4 * US, gap_per_round=4 * US)
        raw, _ = redecide.simulate(rows, GRAN, FLOOR, False)
        comp, median = redecide.simulate(rows, GRAN, FLOOR, True)
        self.assertEqual(median, -8 * US)
        self.assertAlmostEqual(comp / raw, 2, delta=0.1)

    def test_lead_differences_wrap_as_32_bit(self):
        self.assertEqual(redecide.s32(0x10 - 0xfffffff0), 32)
        self.assertEqual(redecide.s32(0xfffffff0 - 0x10), -32)


if __name__ == "__main__":
    unittest.main()
