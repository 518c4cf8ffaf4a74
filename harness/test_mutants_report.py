#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests for mutants-report.py, the judge of make mutants: a kill must
reproduce, a check that flips between the two baseline runs can never kill,
host-only kills are named, and an argued-equivalent mutant that is killed
fails the report.  Recorded pairs of runs, no boot."""

import contextlib
import importlib.util
import io
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "mutants-report.py"
spec = importlib.util.spec_from_file_location("mutants_report", SCRIPT)
mr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mr)

# A recorded pair of baseline runs of plain (suite_mount_race flipped: it
# failed in the second run only) and the runs of a mutant of that boot.
BASE1 = ["plain.suite_audit.audit_denials_limited_per_subject"]
BASE2 = BASE1 + ["plain.suite_mount_race.race_umount", "plain.host.console_clean"]
SEMANTIC = "plain.suite_watchpol.watchpol_test_load_after_end"


def cli(*args):
    """mutants-report.py ARGS, as mutants.sh runs it: (exit status, stdout)."""
    p = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)
    return p.returncode, p.stdout


class Judge(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.tmp = Path(self.dir.name)

    def tearDown(self):
        self.dir.cleanup()

    def checks(self, name, lines):
        p = self.tmp / name
        p.write_text("".join(f"{line}\n" for line in lines))
        return str(p)

    def test_kills_longer_than_one_argument_pass_as_a_file(self):
        """A mutant that fails every check of a boot has more kills than
        one argument may hold (128 KiB; seed 3's g091 stopped mutants.sh
        with E2BIG): verdict and record take the list as @FILE."""
        kills = [f"plain.suite_scenarios@watcher.row-{i:05d}[fput-on]" for i in range(4000)]
        self.assertGreater(len("\n".join(kills)), 128 * 1024)
        killers = self.checks("killers", kills)
        none = self.checks("unreproduced", [])
        rc, out = cli("verdict", "", f"@{killers}", f"@{none}")
        self.assertEqual((rc, out.strip()), (0, "killed"))
        v = self.tmp / "v.json"
        rc, _ = cli("record", str(v), "mutant=x", f"killers=@{killers}",
                    f"unreproduced=@{none}", "build_s=1")
        self.assertEqual(rc, 0)
        doc = json.loads(v.read_text())
        self.assertEqual((doc["killers"], doc["unreproduced"]), (kills, []))

    def test_check_that_flips_between_baselines_cannot_kill(self):
        """The old judge (comm -23 RUN BASE, one baseline) counted the race
        the first baseline run happened to pass as a kill."""
        b1, b2 = self.checks("b1", BASE1), self.checks("b2", BASE2)
        run = ["plain.suite_mount_race.race_umount", "plain.host.console_clean"]
        r1, r2 = self.checks("r1", run), self.checks("r2", run)
        rc, out = cli("kills", b1, b2, "--", r1, r2)
        self.assertEqual((rc, out), (0, ""))
        rc, out = cli("flaky", b1, b2)
        self.assertEqual(out.split(), ["plain.host.console_clean",
                                       "plain.suite_mount_race.race_umount"])

    def test_one_baseline_run_cannot_judge(self):
        with self.assertRaises(ValueError):
            mr.kills([set(BASE1)], [{SEMANTIC}, {SEMANTIC}])

    def test_kill_that_does_not_reproduce_is_not_a_kill(self):
        """A timeout in the mutant's first boot only: the old judge said
        killed by host.boot_finished."""
        b1, b2 = self.checks("b1", BASE1), self.checks("b2", BASE1)
        r1 = self.checks("r1", ["plain.host.boot_finished", SEMANTIC])
        r2 = self.checks("r2", [SEMANTIC])
        self.assertEqual(cli("kills", b1, b2, "--", r1)[1].split(),
                         ["plain.host.boot_finished", SEMANTIC])
        self.assertEqual(cli("kills", b1, b2, "--", r1, r2)[1].split(), [SEMANTIC])
        r2 = self.checks("r2", [])
        self.assertEqual(cli("kills", b1, b2, "--", r1, r2)[1], "")
        self.assertEqual(cli("verdict", "", "", "plain.host.boot_finished")[1].strip(), "flaky")
        self.assertEqual(cli("verdict", "", SEMANTIC, "")[1].strip(), "killed")
        self.assertEqual(cli("verdict", "plain ", SEMANTIC, "")[1].strip(), "unjudged")
        self.assertEqual(cli("verdict", "", "", "")[1].strip(), "survived")

    def test_harness_mutant_judged_by_its_report_on_a_recorded_run(self):
        """The old judge ran only harness/test_report.py: a mutant of
        report.py its unit tests miss survived whatever it printed."""
        base = ["ok 1 plain", "    not ok 3 no_leaks", "3356 passed, 17 failed"]
        b1, b2 = self.checks("b1", base), self.checks("b2", base)
        same = self.checks("same", base)
        self.assertEqual(cli("changes", b1, b2, "--", same, same)[1], "")
        mutant = self.checks("m", ["ok 1 plain", "    ok 3 no_leaks", "3357 passed, 16 failed"])
        self.assertEqual(cli("changes", b1, b2, "--", mutant, mutant)[1].splitlines(), [
            "host.recorded: +    ok 3 no_leaks", "host.recorded: +3357 passed, 16 failed",
            "host.recorded: -    not ok 3 no_leaks", "host.recorded: -3356 passed, 17 failed"])
        # The closing line flips between the baselines: noise, never a change.
        b2 = self.checks("b2", base[:2] + ["3357 passed, 16 failed"])
        self.assertEqual(cli("changes", b1, b2, "--", mutant, mutant)[1].splitlines(), [
            "host.recorded: +    ok 3 no_leaks", "host.recorded: -    not ok 3 no_leaks"])

    def test_check_at_random_kills_only_if_no_run_catches_it(self):
        """A check that fails one run in two (the throwaway suite_coinflip
        of docs/mutants-and-coverage.md) passes both baseline runs and fails
        both runs of the mutant one time in sixteen, and then kills: the
        judge bounds noise, it cannot rule it out.  Each further sample that
        catches it (a baseline run it fails, a re-run it passes) stops it."""
        coin = "plain.suite_coinflip.heads"
        b1, b2 = self.checks("b1", BASE1), self.checks("b2", BASE1)
        r1, r2 = self.checks("r1", [coin, SEMANTIC]), self.checks("r2", [coin, SEMANTIC])
        self.assertEqual(cli("kills", b1, b2, "--", r1, r2)[1].split(), [coin, SEMANTIC])
        b3 = self.checks("fails3", BASE1 + [coin])
        self.assertEqual(cli("kills", b1, b2, b3, "--", r1, r2)[1].split(), [SEMANTIC])
        self.assertEqual(cli("flaky", b1, b2, b3)[1].split(), [coin])
        r3 = self.checks("r3", [SEMANTIC])
        self.assertEqual(cli("kills", b1, b2, "--", r1, r2, r3)[1].split(), [SEMANTIC])

    def test_false_kill_bound(self):
        """(1-p)^B p^R, greatest over p at p = R / (B + R)."""
        self.assertEqual(mr.false_kill_bound(2, 2), 1 / 16)
        self.assertAlmostEqual(mr.false_kill_bound(2, 1), 4 / 27)
        for b, r in ((2, 2), (2, 3), (4, 2), (4, 3), (6, 3)):
            grid = max((1 - p / 1000) ** b * (p / 1000) ** r for p in range(1001))
            self.assertAlmostEqual(mr.false_kill_bound(b, r), grid, places=6)
            self.assertGreaterEqual(mr.false_kill_bound(b, r), 0.5 ** (b + r))
        self.assertLess(mr.false_kill_bound(4, 3), mr.false_kill_bound(2, 2) / 7)

    def test_killed_by_host_only_or_semantic(self):
        self.assertEqual(mr.killed_by(["plain.host.boot_finished", "plain.manifest",
                                       "plain.host.console_clean"]), "host only")
        self.assertEqual(mr.killed_by(["plain.host.console_clean", SEMANTIC]), "semantic")
        self.assertEqual(mr.killed_by(["host.report.test_leak"]), "semantic")
        self.assertEqual(mr.killed_by(["verdict: x under plain/strict: LEAK"]), "semantic")
        # A hang: the boot's plan and an unfinished block, and KUnit's cases
        # unreported (mutants-sample's seed 2, policy_parser.c:114).
        self.assertEqual(mr.killed_by(["plain.unfinished.plan", "plain.plan",
                                       "plain.host.boot_finished", "sources.kunit_cases"]),
                         "host only")
        self.assertEqual(mr.killed_by(["sources.kunit_cases", "plain.kunit.watch_queue.x"]),
                         "semantic")


class Report(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.out = Path(self.dir.name)
        (self.out / "verdicts").mkdir()
        (self.out / "baseline" / "plain-abc").mkdir(parents=True)
        (self.out / "baseline" / "plain-abc" / "fails").write_text("\n".join(BASE1) + "\n")
        (self.out / "baseline" / "plain-abc" / "fails2").write_text("\n".join(BASE2) + "\n")

    def tearDown(self):
        self.dir.cleanup()

    def verdict(self, name, verdict, killers=(), equivalent="", unreproduced=()):
        mr.record(self.out / "verdicts" / f"{name}.json", [
            f"mutant={name}", "key=k", "bug=a bug", "layer=lsm", "threat=T1 observation",
            f"equivalent={equivalent}", f"verdict={verdict}", "scope=narrow", "boots=plain",
            "suites=", "killers=" + "\n".join(killers),
            "unreproduced=" + "\n".join(unreproduced), "detail=", "build_s=1", "boot_s=2"])

    def report(self, *names):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = mr.report(self.out, 60, list(names))
        return rc, buf.getvalue()

    def test_equivalent_mutant_killed_fails_the_report(self):
        """The old report counted it apart and passed."""
        self.verdict("98-lsm-equivalent-comment", "killed", ["plain.host.boot_finished"],
                     equivalent="comment only")
        self.verdict("99-lsm-statement-after-end", "killed", [SEMANTIC])
        rc, out = self.report("98-lsm-equivalent-comment", "99-lsm-statement-after-end")
        self.assertEqual(rc, 1)
        self.assertIn("EQUIVALENT KILLED 98-lsm-equivalent-comment", out)
        closing = out.strip().splitlines()[-1]
        self.assertIn("FAILED: 1 argued equivalent and killed: 98-lsm-equivalent-comment",
                      closing)

    def test_flaky_mutant_fails_the_report_and_is_never_killed(self):
        self.verdict("50-lsm-x", "flaky", unreproduced=["plain.host.boot_finished"])
        rc, out = self.report("50-lsm-x")
        self.assertEqual(rc, 1)
        self.assertIn("FLAKY 50-lsm-x", out)
        self.assertIn("mutation score: 0 of 1 killed", out)
        self.assertIn("not ok 1 50-lsm-x", mr.ktap(self.out, ["50-lsm-x"]))

    def test_each_kill_says_semantic_or_host_only(self):
        self.verdict("70-kernel-a", "killed", ["plain.host.console_clean", "plain.manifest"])
        self.verdict("71-kernel-b", "killed", [SEMANTIC, "plain.host.console_clean"])
        rc, out = self.report("70-kernel-a", "71-kernel-b")
        self.assertEqual(rc, 0)
        self.assertIn("KILLED 70-kernel-a: killed by: host only", out)
        self.assertIn("KILLED 71-kernel-b: killed by: semantic", out)
        self.assertIn("(1 by host checks only; 0 equivalent)", out.strip().splitlines()[-1])
        self.assertIn("killed by: host only",
                      mr.line(self.out / "verdicts" / "70-kernel-a.json"))
        doc = json.loads((self.out / "report.json").read_text())
        self.assertEqual(doc["killed"], 2)

    def test_flaky_baseline_is_named(self):
        self.verdict("99-lsm-statement-after-end", "killed", [SEMANTIC])
        self.report("99-lsm-statement-after-end")
        md = (self.out / "report.md").read_text()
        self.assertIn("Baseline plain-abc is flaky: 2 checks differ between its 2 runs", md)
        # Verdicts that do not say how the judge sampled: two baseline runs
        # and one re-run.
        self.assertIn("Judge: 2 baseline runs and 1 re-run of a kill: a check that fails "
                      "at random, whatever the mutant, kills with probability at most "
                      "6.25%", md)

    def test_every_baseline_run_is_read(self):
        """MUTANT_BASELINE_RUNS=4: fails, fails2, fails3, fails4."""
        base = self.out / "baseline" / "plain-abc"
        (base / "fails3").write_text("")
        (base / "fails4").write_text("plain.suite_coinflip.heads\n")
        (base / "fails10").write_text("")
        self.assertEqual([f.name for f in mr.baseline_runs(base)],
                         ["fails", "fails2", "fails3", "fails4", "fails10"])
        self.verdict("99-lsm-statement-after-end", "killed", [SEMANTIC])
        v = self.out / "verdicts" / "99-lsm-statement-after-end.json"
        doc = json.loads(v.read_text())
        doc.update(baseline_runs=4, reproduce=2)
        v.write_text(json.dumps(doc))
        self.report("99-lsm-statement-after-end")
        md = (self.out / "report.md").read_text()
        self.assertIn("Baseline plain-abc is flaky: 4 checks differ between its 5 runs", md)
        self.assertIn("`plain.suite_coinflip.heads`", md)
        self.assertIn("Judge: 4 baseline runs and 2 re-runs of a kill: ", md)
        self.assertIn(f"at most {mr.false_kill_bound(4, 3):.2%}", md)

    def test_judge_samples_are_recorded_as_numbers(self):
        v = self.out / "verdicts" / "x.json"
        mr.record(v, ["mutant=x", "baseline_runs=4", "reproduce=2", "build_s=1"])
        doc = json.loads(v.read_text())
        self.assertEqual((doc["baseline_runs"], doc["reproduce"]), (4, 2))


if __name__ == "__main__":
    unittest.main()
