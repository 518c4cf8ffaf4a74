#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of the LAVA jobs (harness/lava-jobs.sh) and of their check
(harness/lava_check.py), on jobs written for a stand-in kernel build."""

import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lava_check  # noqa: E402

HARNESS = Path(__file__).resolve().parent


class Jobs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        top = Path(cls.tmp.name)
        obj = top / "kbuild-lab"
        obj.mkdir()
        (obj / ".config").write_text("CONFIG_SECURITY=y\nCONFIG_SECURITY_WATCHPOL=y\n"
                                     "CONFIG_SECURITY_SELINUX=y\n")
        out = top / "lava"
        subprocess.run([str(HARNESS / "lava-jobs.sh"), str(out), f"{obj}:plain:plain:900",
                        f"{obj}:selinux:selinux-early:300::watchpol.model=bogus+watchlab.early=1"],
                       check=True, env={"PATH": "/usr/bin:/bin", "BUILD": str(top)})
        cls.obj = obj
        cls.plain = yaml.safe_load((out / "plain.yaml").read_text())
        cls.early = yaml.safe_load((out / "selinux-early.yaml").read_text())
        cls.device = yaml.safe_load((out / "device-qemu.yaml").read_text())
        monitor = cls.plain["actions"][2]["test"]["monitors"][0]
        cls.pattern = re.compile(monitor["pattern"])
        cls.fixup = monitor["fixupdict"]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def seen(self, line):
        """What LAVA's monitor records for a console line: pexpect searches
        the stream, and the monitor maps the result through fixupdict."""
        m = self.pattern.search(line + "\r\n")
        if not m:
            return None
        d = m.groupdict()
        return d["test_case_id"], self.fixup.get(d["result"], d["result"])

    def test_results(self):
        self.assertEqual(self.seen("ok 1 suite_boot"), ("suite_boot", "pass"))
        self.assertEqual(self.seen("    not ok 3 mntns.own_userns.bind"),
                         ("mntns.own_userns.bind", "fail"))
        self.assertEqual(self.seen("    ok 2 ring_rules # SKIP no ring"), ("ring_rules", "skip"))
        self.assertEqual(self.seen("    ok 4 row@closed # XFAIL decided first"),
                         ("row@closed", "pass"))
        self.assertEqual(self.seen("[   12.5] ok 5 after_a_timestamp"),
                         ("after_a_timestamp", "pass"))

    def test_names_with_spaces(self):
        self.assertEqual(self.seen("    ok 3 rules sorted, duplicates dropped"),
                         ("rules sorted, duplicates dropped", "pass"))
        self.assertEqual(self.seen("    ok 4 labels with punctuation # SKIP none"),
                         ("labels with punctuation", "skip"))

    def test_not_results(self):
        self.assertIsNone(self.seen("    # suite_boot took 0.1 s"))
        self.assertIsNone(self.seen("    1..20"))

    def test_the_ptys_doubled_cr(self):
        m = self.pattern.search("    not ok 7 after_a_pty\r\r\n")
        self.assertEqual(m.group("test_case_id"), "after_a_pty")

    def test_a_line_still_arriving_is_not_read(self):
        self.assertIsNone(self.pattern.search("    ok 3 rules sorted, dupl"))

    def test_command_line_is_the_boots(self):
        append = self.early["actions"][0]["deploy"]["images"]["kernel"]["image_arg"]
        self.assertIn("console=ttyS0 panic=-1", append)
        self.assertIn("lsm=capability,watchpol,selinux watchlab.profile=selinux", append)
        self.assertIn("kunit.enable=0 watchpol.model=bogus watchlab.early=1\"", append)
        plain = self.plain["actions"][0]["deploy"]["images"]["kernel"]["image_arg"]
        self.assertNotIn("kunit.enable=0", plain)

    def test_artifacts_are_this_build(self):
        images = self.plain["actions"][0]["deploy"]["images"]
        self.assertEqual(images["kernel"]["url"],
                         f"file://{self.obj}/arch/x86/boot/bzImage")
        self.assertTrue(images["initrd"]["url"].endswith("/initramfs.cpio"))

    def test_device_is_the_labs_machine(self):
        options = self.device["actions"]["boot"]["methods"]["qemu"]["parameters"]["options"]
        self.assertIn("-smp 2,sockets=2,cores=1,threads=1", options)
        self.assertIn("-device qemu-xhci,id=xhci", options)
        self.assertEqual(options[-1], "-serial stdio")
        self.assertEqual(self.plain["context"]["arch"], "amd64")


class Compare(unittest.TestCase):
    def test_equal(self):
        ok, _ = lava_check.compare([("a", "pass"), ("b", "skip")], [("b", "skip"), ("a", "pass")])
        self.assertTrue(ok)

    def test_a_result_that_differs(self):
        ok, diags = lava_check.compare([("a", "pass")], [("a", "fail")])
        self.assertFalse(ok)
        self.assertIn("only in LAVA: a pass", diags)
        self.assertIn("only in the lab's run: a fail", diags)

    def test_a_result_lava_lost(self):
        ok, _ = lava_check.compare([("a", "pass")], [("a", "pass"), ("a", "pass")])
        self.assertFalse(ok)

    def test_nothing_is_not_equal(self):
        ok, _ = lava_check.compare([], [])
        self.assertFalse(ok)

    def test_lava_results_of_the_monitor_only(self):
        records = [{"lvl": "results", "msg": {"definition": "lava", "case": "job",
                                              "result": "pass"}},
                   {"lvl": "results", "msg": {"definition": "watchlab-x", "case": "a_b",
                                              "extra": {"test_case_id": "a.b"},
                                              "result": "fail"}},
                   {"lvl": "results", "msg": {"definition": "watchlab-x", "case": "c_d",
                                              "extra": {"test_case_id": "c d"},
                                              "result": "pass"}}]
        self.assertEqual(lava_check.lava_results(records, "watchlab-x"),
                         [("a.b", "fail"), ("c_d", "pass")])

    def test_lab_results_every_line(self):
        with tempfile.NamedTemporaryFile("w", suffix=".log") as f:
            f.write("KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: s\n    1..2\n"
                    "    ok 1 t # SKIP why\n    not ok 2 u\nnot ok 1 s\n")
            f.flush()
            self.assertEqual(sorted(lava_check.lab_results(Path(f.name))),
                             [("s", "fail"), ("t", "skip"), ("u", "fail")])


if __name__ == "__main__":
    unittest.main(verbosity=0)
