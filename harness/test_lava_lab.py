#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of the LAVA server round trip (harness/lava_lab.py): the results
read back through the server's API, and their comparison with the lab's
own run, on recorded `lavacli` answers (no server runs here)."""

import sys
import tempfile
import unittest
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lava_lab  # noqa: E402

# What `lavacli results --yaml` gave for job 1 of the selinux-early boot
# (2026-12-07), cut to the fields read, with a skip and a name with spaces
# added as the server lists them.
SERVER_RESULTS = """
- {suite: lava, name: job, result: pass, metadata: {case: job, definition: lava, result: pass}}
- {suite: lava, name: lava-test-monitor, result: pass,
   metadata: {case: lava-test-monitor, definition: lava, extra: [{status: passed}]}}
- {suite: watchlab-selinux-early, name: bad_boot_model_fails_safe, result: pass,
   metadata: {case: bad_boot_model_fails_safe, definition: watchlab-selinux-early,
              extra: [{test_case_id: bad_boot_model_fails_safe}]}}
- {suite: watchlab-selinux-early, name: rules_sorted_duplicates_dropped, result: skip,
   metadata: {case: rules_sorted_duplicates_dropped, definition: watchlab-selinux-early,
              extra: [{test_case_id: 'rules sorted, duplicates dropped'}]}}
- {suite: watchlab-selinux-early, name: suite_early, result: pass,
   metadata: {case: suite_early, definition: watchlab-selinux-early,
              extra: [{test_case_id: suite_early}]}}
- {suite: watchlab-other, name: suite_early, result: fail, metadata: {}}
"""

LAB_CONSOLE = """KTAP version 1
1..1
    KTAP version 1
    # Subtest: suite_early
    1..2
    ok 1 bad_boot_model_fails_safe
    ok 2 rules sorted, duplicates dropped # SKIP not here
ok 1 suite_early
watchlab: runner finished
"""

JOB = """
timeouts:
  job: {minutes: 10}
"""


class FakeLab:
    """lava_lab.Lab's lavacli, answering from recorded output."""

    def __init__(self, results, health="Complete"):
        self.answers = {
            "submit": "7\n",
            "wait": "",
            "show": yaml.safe_dump({"id": 7, "health": health, "device": "watchlab-qemu-01"}),
            "results": results,
            "logs": "a log\n",
        }
        self.calls = []

    def lavacli(self, *args, timeout=120):
        self.calls.append((args, timeout))
        return self.answers[args[1] if args[0] == "jobs" else args[0]]


class ServerResults(unittest.TestCase):
    def test_the_boots_definition_only(self):
        cases = lava_lab.server_results(yaml.safe_load(SERVER_RESULTS), "watchlab-selinux-early")
        self.assertEqual(cases, [("bad_boot_model_fails_safe", "pass"),
                                 ("rules_sorted,_duplicates_dropped", "skip"),
                                 ("suite_early", "pass")])

    def test_extra_as_a_map_and_no_extra(self):
        cases = [{"suite": "s", "name": "n_1", "result": "fail",
                  "metadata": {"extra": {"test_case_id": "n.1"}}},
                 {"suite": "s", "name": "plain", "result": "pass", "metadata": None}]
        self.assertEqual(lava_lab.server_results(cases, "s"), [("n.1", "fail"), ("plain", "pass")])

    def test_nothing(self):
        self.assertEqual(lava_lab.server_results(None, "s"), [])


class RoundTrip(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.results = Path(self.tmp.name)
        self.jobs = self.results / "lava" / "server"
        self.jobs.mkdir(parents=True)
        (self.jobs / "selinux-early.yaml").write_text(JOB)
        (self.results / "console-selinux-early.log").write_text(LAB_CONSOLE)

    def tearDown(self):
        self.tmp.cleanup()

    def trip(self, results, health="Complete"):
        lab = FakeLab(results, health)
        tests = lava_lab.round_trip(lab, self.results, self.jobs, "selinux-early")
        return {name: (ok, diags) for name, ok, diags in tests}, lab

    def test_equal(self):
        tests, lab = self.trip(SERVER_RESULTS)
        self.assertTrue(tests["job_complete"][0], tests["job_complete"][1])
        self.assertTrue(tests["results_equal_lab"][0], tests["results_equal_lab"][1])
        # The wait is bounded by the job's own timeout.
        wait = [c for c in lab.calls if c[0][:2] == ("jobs", "wait")]
        self.assertEqual(wait[0][1], 10 * 60 + 120)
        self.assertEqual((self.jobs / "selinux-early.job-7.log").read_text(), "a log\n")

    def test_a_result_that_differs_is_named(self):
        tests, _ = self.trip(SERVER_RESULTS.replace(
            "name: bad_boot_model_fails_safe, result: pass",
            "name: bad_boot_model_fails_safe, result: fail"))
        ok, diags = tests["results_equal_lab"]
        self.assertFalse(ok)
        self.assertIn("only in the server's: bad_boot_model_fails_safe fail", diags)
        self.assertIn("only in the lab's run: bad_boot_model_fails_safe pass", diags)

    def test_a_result_the_server_lost(self):
        lost = yaml.safe_dump([c for c in yaml.safe_load(SERVER_RESULTS)
                               if (c["suite"], c["name"]) != ("watchlab-selinux-early",
                                                              "suite_early")])
        ok, diags = self.trip(lost)[0]["results_equal_lab"]
        self.assertFalse(ok)
        self.assertIn("only in the lab's run: suite_early pass", diags)

    def test_a_job_that_did_not_complete(self):
        ok, diags = self.trip(SERVER_RESULTS, health="Incomplete")[0]["job_complete"]
        self.assertFalse(ok)
        self.assertIn("health Incomplete", diags[0])

    def test_a_monitor_that_did_not_pass(self):
        ok, _ = self.trip(SERVER_RESULTS.replace("name: lava-test-monitor, result: pass",
                                                 "name: lava-test-monitor, result: fail")
                          )[0]["job_complete"]
        self.assertFalse(ok)

    def test_no_lab_run(self):
        (self.results / "console-selinux-early.log").unlink()
        ok, diags = self.trip(SERVER_RESULTS)[0]["results_equal_lab"]
        self.assertFalse(ok)
        self.assertIn("no lab run", diags[0])

    def test_lavacli_failing(self):
        class Failing(FakeLab):
            def lavacli(self, *args, timeout=120):
                raise RuntimeError("lavacli jobs submit: exit 1: refused")
        tests = lava_lab.round_trip(Failing(""), self.results, self.jobs, "selinux-early")
        self.assertEqual([ok for _, ok, _ in tests], [False, False])
        self.assertIn("refused", tests[0][2][0])


class Lock(unittest.TestCase):
    def test_one_session_at_a_time(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "lock"
            with lava_lab.session_lock(path, wait=0) as waited:
                self.assertLess(waited, 1)
                with self.assertRaises(lava_lab.LabBusy):
                    with lava_lab.session_lock(path, wait=0):
                        pass
            with lava_lab.session_lock(path, wait=0):
                pass

    def test_not_started_fails_every_boot(self):
        blocks = lava_lab.not_started(["selinux-early", "plain"], "busy")
        self.assertEqual([b for b, _ in blocks], ["lava_server_selinux_early", "lava_server_plain"])
        self.assertFalse(any(ok for _, tests in blocks for _, ok, _ in tests))


class Ktap(unittest.TestCase):
    def test_blocks_numbered(self):
        lines = lava_lab.ktap([("a", [("t", True, [])]), ("b", [("u", False, ["why"])])], 3)
        self.assertIn("ok 3 a", lines)
        self.assertIn("not ok 4 b", lines)
        self.assertIn("    # why", lines)


if __name__ == "__main__":
    unittest.main(verbosity=0)
