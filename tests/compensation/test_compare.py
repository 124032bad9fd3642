#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""test_compare.py - bench/compensation/compare.py judges each row and the
run by one rule: the verdict its table prints on a row is the one its exit
status acts on (once, make check-compensation passed while its table
printed FAIL on two rows, the table judging 0.5% and the check 1.5%).

Synthetic figures, no VM: python3 tests/compensation/test_compare.py
(COMPARE_PY=path tests another compare.py).
"""
import contextlib
import importlib.util
import io
import os
import stat
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.environ.get("COMPARE_PY") or os.path.join(
    HERE, "..", "..", "bench", "compensation", "compare.py")
spec = importlib.util.spec_from_file_location("compare", PATH)
compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compare)

MS = 1_000_000


def side(elapsed, run_main, run_peer, runq=100 * MS):
    """One column of the ping-pong's figures (ns)."""
    return {"elapsed": elapsed, "own": None,
            "run_total": run_main + run_peer,
            "threads": [
                {"name": "pp-main", "tid": 10, "run": run_main,
                 "runq": runq, "slices": 1000},
                {"name": "pp-peer", "tid": 11, "run": run_peer,
                 "runq": runq, "slices": 1000}]}


def cols(comp_peer_pct):
    """Unmonitored 1000 ms per thread; raw +4% everywhere (mkm measures
    the monitored run exactly); compensated exact but pp-peer's run off
    by @comp_peer_pct."""
    unmon = side(2000 * MS, 1000 * MS, 1000 * MS)
    mon = side(2080 * MS, 1040 * MS, 1040 * MS)
    comp = side(2000 * MS, 1000 * MS,
                round(1000 * MS * (1 + comp_peer_pct / 100)))
    return {"unmon": unmon, "mon": mon, "raw": mon, "comp": comp}


def run_table(c, rule):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        verdicts, failures = compare.table("pingpong", c, "test", rule)
        rc = compare.conclude(verdicts, failures)
    return out.getvalue(), verdicts, rc


def row_words(text):
    """The verdict column of every row of a printed table."""
    return [line.split()[-1] for line in text.splitlines()
            if line and not line.startswith(("==", "ms ", "FAIL",
                                             "verdict"))]


class TestVerdict(unittest.TestCase):
    def test_verdict_rule_decides_the_row(self):
        v = {"unmon": 1000 * MS, "mon": 1040 * MS, "raw": 1040 * MS,
             "comp": 1010 * MS}
        self.assertEqual(compare.verdict("run pp-peer", v,
                                         compare.CHECK)[0], "ok")
        word, why = compare.verdict("run pp-peer", v, compare.CLAIM)
        self.assertEqual(word, "FAIL")
        self.assertIn("+1.00%", why)

    def test_verdict_names_the_measurement_error(self):
        v = {"unmon": 1000 * MS, "mon": 1040 * MS, "raw": 1044 * MS,
             "comp": 1007 * MS}
        word, why = compare.verdict("run pp-peer", v, compare.CLAIM)
        self.assertEqual(word, "FAIL")
        self.assertIn("of which +0.38% is mkm's measurement", why)
        v["raw"] = 1040 * MS
        self.assertNotIn("measurement", compare.verdict(
            "run pp-peer", v, compare.CLAIM)[1])

    def test_verdict_mon_limit_fails_the_row(self):
        v = {"unmon": 1000 * MS, "mon": 1040 * MS, "raw": 1045 * MS,
             "comp": 1000 * MS}
        word, why = compare.verdict("elapsed", v, compare.CHECK)
        self.assertEqual(word, "FAIL")
        self.assertIn("monitored run's kernel figure", why)


class TestTableAndExitAgree(unittest.TestCase):
    def check(self, comp_peer_pct, rule, want_rc):
        text, verdicts, rc = run_table(cols(comp_peer_pct), rule)
        words = row_words(text)
        self.assertEqual(len(words), len(verdicts), text)
        self.assertEqual(rc, want_rc, text)
        # The invariant: a FAIL in the table if and only if a failed run.
        self.assertEqual("FAIL" in words, rc == 1, text)
        self.assertIn("verdict: " + ("FAIL" if rc else "ok"), text)

    def test_table_and_exit_agree_check_within(self):
        self.check(1.0, compare.CHECK, 0)  # the 0.5% claim would fail it

    def test_table_and_exit_agree_check_beyond(self):
        self.check(2.0, compare.CHECK, 1)

    def test_table_and_exit_agree_claim(self):
        self.check(1.0, compare.CLAIM, 1)
        self.check(0.2, compare.CLAIM, 0)


def boots(unmon_elapsed_pcts, comp_pct):
    """The ping-pong in several boots: the unmonitored elapsed time off
    2000 ms by each of @unmon_elapsed_pcts, raw +4% over 2000 ms in every
    boot, compensated elapsed off 2000 ms by @comp_pct."""
    out = []
    for p in unmon_elapsed_pcts:
        c = cols(0.0)
        c["unmon"] = dict(c["unmon"],
                          elapsed=round(2000 * MS * (1 + p / 100)))
        c["comp"] = dict(c["comp"],
                         elapsed=round(2000 * MS * (1 + comp_pct / 100)))
        out.append(c)
    return out


class TestBoots(unittest.TestCase):
    def test_ci95_is_students(self):
        self.assertAlmostEqual(compare.ci95([1.0, 2.0, 3.0]),
                               4.303 / 3 ** 0.5, places=6)
        self.assertIsNone(compare.ci95([5.0]))
        self.assertAlmostEqual(compare.ci_pct([10.0, 10.0]), 0.0)

    def test_means_over_boots(self):
        rows = dict(compare.over_boots("pingpong", boots([-1.0, 1.0], 0.0)))
        self.assertEqual(rows["elapsed"]["unmon"], 2000 * MS)
        self.assertEqual(rows["elapsed"]["raw"], 2080 * MS)
        self.assertGreater(rows["elapsed"]["spread"], 1.0)
        self.assertEqual(rows["run total"]["spread"], 0.0)

    def test_unmonitored_spread_widens_the_bound(self):
        # Compensated 1% off: beyond the claim's 0.5% when the
        # unmonitored boots agree, within their spread when they do not.
        text, verdicts, rc = run_table(boots([0.0, 0.0, 0.0], 1.0),
                                       compare.CLAIM)
        self.assertEqual(rc, 1, text)
        self.assertEqual(dict((l, w) for l, w, _ in verdicts)["elapsed"],
                         "FAIL")
        text, verdicts, rc = run_table(boots([-1.5, 0.0, 1.5], 1.0),
                                       compare.CLAIM)
        self.assertEqual(rc, 0, text)
        words = row_words(text)
        self.assertEqual("FAIL" in words, rc == 1, text)
        self.assertIn("±", text)


def bounded_boot(truth_taskstats, mon_run, raw_run, comp_bounds):
    """One boot of the ping-pong whose pp-main ran 1000 ms unmonitored, its
    run's truth from taskstats or not, the monitored run's kernel figure
    @mon_run and mkm's @raw_run, compensated into @comp_bounds (ms)."""
    unmon = dict(side(2000 * MS, 1000 * MS, 1000 * MS),
                 taskstats=truth_taskstats)
    mon = side(2000 * MS, mon_run * MS, 1000 * MS)
    raw = side(2000 * MS, raw_run * MS, 1000 * MS)
    comp = side(2000 * MS, 1000 * MS, 1000 * MS)
    lo, hi = (round(x * MS) for x in comp_bounds)
    for t in comp["threads"]:
        whole = (t["run"], t["run"]) if t["name"] == "pp-peer" else (lo, hi)
        t["bounds"] = {"run": whole, "runq": (t["runq"], t["runq"])}
    comp["elapsed_bounds"] = (2000 * MS, 2000 * MS)
    return {"unmon": unmon, "mon": mon, "raw": raw, "comp": comp}


class TestCoverage(unittest.TestCase):
    def held(self, *boot):
        covered, judged = compare.coverage("pingpong",
                                           [bounded_boot(*boot)])[:2]
        return covered == judged

    def test_taskstats_truth_reaches_up_by_the_teardown(self):
        # taskstats' run is sent before exit_mm(): mkm's run of the
        # monitored task holds 4 ms more, and bounds above the truth by
        # less than that hold it; by more, or a truth of the task's own
        # last read, do not.
        self.assertTrue(self.held(True, 1000, 1004, (1002, 1003.5)))
        self.assertFalse(self.held(True, 1000, 1004, (1004.5, 1006)))
        self.assertFalse(self.held(False, 1000, 1004, (1002, 1003.5)))

    def test_taskstats_truth_is_not_moved_down(self):
        # mkm below the kernel (the switch's split, which the bounds'
        # split part covers) moves nothing.
        self.assertFalse(self.held(True, 1004, 1000, (995, 999)))
        self.assertTrue(self.held(True, 1004, 1000, (999, 1001)))


class TestReplayRefused(unittest.TestCase):
    def test_refused_calibration_is_not_fatal(self):
        # mkm replay's refusal of a calibration that is no cost is told
        # apart (the boot is left out and the run fails), any other
        # failure still ends compare.py.
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, "mkm")
            with open(fake, "w") as f:
                f.write("#!/bin/sh\necho \"mkm: x.mkm: calibration is not"
                        " a cost (noisy)\" >&2\nexit 1\n")
            os.chmod(fake, stat.S_IRWXU)
            with self.assertRaises(compare.Refused):
                compare.replay(fake, os.path.join(d, "x.mkm"))
            with open(fake, "w") as f:
                f.write("#!/bin/sh\necho \"mkm: broken\" >&2\nexit 1\n")
            with self.assertRaises(SystemExit), \
                    contextlib.redirect_stderr(io.StringIO()):
                compare.replay(fake, os.path.join(d, "x.mkm"))


class TestHasReplay(unittest.TestCase):
    def test_has_replay_reads_the_help(self):
        # Without it every comp column reads n/a and nothing is judged
        # (the help's lines became "  mkm replay ..." with mkm's table
        # of commands, and for a day make check-compensation judged no
        # row). MKM= the built mkm checks the real help too.
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, "mkm")
            for line, has in (("  mkm replay [--calibration FILE] -o OUT"
                               " FILE", True),
                              ("  replay    compensate a trace", True),
                              ("  mkm report [--json] FILE", False)):
                with open(fake, "w") as f:
                    f.write(f"#!/bin/sh\necho '{line}'\n")
                os.chmod(fake, stat.S_IRWXU)
                self.assertEqual(compare.has_replay(fake), has, line)
        if os.environ.get("MKM"):
            self.assertTrue(compare.has_replay(os.environ["MKM"]))


class TestUnsure(unittest.TestCase):
    def test_unsure_threads_are_named(self):
        # The threads mkm report --compensated leaves raw as unsure are
        # named by the report's own thread list; a run with none says
        # nothing, and the line counts the boots that had any.
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, "mkm")
            with open(fake, "w") as f:
                f.write("#!/bin/sh\n"
                        "[ \"$3\" = --compensated ] || exit 1\n"
                        "echo '{\"threads\":[{\"tid\":5,\"name\":\"a\"},"
                        "{\"tid\":6,\"name\":\"b\"}],\"doubts\":["
                        "{\"tid\":5,\"unsure\":false},"
                        "{\"tid\":6,\"unsure\":true}]}'\n")
            os.chmod(fake, stat.S_IRWXU)
            self.assertEqual(compare.unsure_of(fake, "x.mkm"), ["b"])
        self.assertIsNone(compare.unsure_line([[], []]))
        line = compare.unsure_line([["b"], [], ["b", "c"]])
        self.assertIn("up to 2 threads in 2 of 3 boots (b, c)", line)


if __name__ == "__main__":
    unittest.main()
