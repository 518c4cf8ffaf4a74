#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of make coverage's pure parts (harness/coverage.py): the lcov
tracefile parser, git blame's attribution of final lines to the series'
patches, and the diff coverage computed from both.  No kernel: a made-up
tracefile, and a real git repository of two "patches"."""

import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import coverage  # noqa: E402

INFO = """TN:plain
SF:/t/linux-cov/fs/a.c
FN:3,alpha
FN:10,beta
FNDA:2,alpha
FNDA:0,beta
FNF:2
FNH:1
BRDA:4,0,0,1
BRDA:4,0,1,0
BRDA:11,0,0,-
BRDA:11,0,1,-
BRF:4
BRH:1
DA:3,2
DA:4,2
DA:5,0
DA:10,0
DA:11,0
LF:5
LH:2
end_of_record
TN:smack
SF:/t/linux-cov/fs/a.c
FN:3,alpha
FN:10,beta
FNDA:0,alpha
FNDA:1,beta
BRDA:11,0,0,3
BRDA:11,0,1,-
DA:3,0
DA:5,4
DA:10,1
DA:11,1
end_of_record
"""


class Info(unittest.TestCase):
    def test_records_of_one_file_are_summed(self):
        files = coverage.parse_info(INFO)
        self.assertEqual(list(files), ["/t/linux-cov/fs/a.c"])
        rec = files["/t/linux-cov/fs/a.c"]
        self.assertEqual(rec["lines"], {3: 2, 4: 2, 5: 4, 10: 1, 11: 1})
        self.assertEqual(rec["functions"], {"alpha": [3, 2], "beta": [10, 1]})
        self.assertEqual(rec["branches"][(4, 0, 1)], 0)
        self.assertEqual(rec["branches"][(11, 0, 0)], 3)
        self.assertIsNone(rec["branches"][(11, 0, 1)])
        # lines 5/5, functions 2/2, branches: (4,0,0) and (11,0,0) taken.
        self.assertEqual(coverage.counts(rec), (5, 5, 2, 2, 2, 4))

    def test_function_at(self):
        fns = {"alpha": [3, 1], "beta": [10, 0]}
        self.assertEqual(coverage.function_at(fns, 2), "(file scope)")
        self.assertEqual(coverage.function_at(fns, 3), "alpha")
        self.assertEqual(coverage.function_at(fns, 9), "alpha")
        self.assertEqual(coverage.function_at(fns, 12), "beta")


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c",
                           "user.email=t@localhost", *args], check=True,
                          capture_output=True, text=True).stdout


class Blame(unittest.TestCase):
    """A pristine file and two commits standing for two patches: the
    final lines each commit added are attributed to its patch, the
    pristine lines to none."""

    def test_attribution(self):
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp)
            git(repo, "init", "-q")
            f = repo / "a.c"
            f.write_text("int a;\nint b;\n")
            git(repo, "add", "a.c")
            git(repo, "commit", "-q", "-m", "pristine")
            f.write_text("int a;\nint p1;\nint b;\n")
            git(repo, "commit", "-q", "-am", "patch 1")
            c1 = git(repo, "rev-parse", "HEAD").strip()
            f.write_text("int p2;\nint a;\nint p1;\nint b;\nint p2b;\n")
            git(repo, "commit", "-q", "-am", "patch 2")
            c2 = git(repo, "rev-parse", "HEAD").strip()
            porcelain = git(repo, "blame", "-l", "--line-porcelain", "HEAD", "--", "a.c")
        owner = coverage.parse_blame(porcelain)
        self.assertEqual(sorted(owner), [1, 2, 3, 4, 5])
        lines = coverage.attribute(owner, {c1: "0001-one.patch", c2: "0002-two.patch"})
        self.assertEqual(lines, {1: "0002-two.patch", 3: "0001-one.patch",
                                 5: "0002-two.patch"})

    def test_diff_coverage(self):
        info = {"fs/a.c": coverage.parse_info(INFO)["/t/linux-cov/fs/a.c"]}
        rec = info["fs/a.c"]
        rec["lines"][4] = 0  # an added line no boot ran
        added = {"fs/a.c": {3: "p1", 4: "p1", 6: "p1", 11: "p2"},
                 "fs/b.c": {1: "p2", 2: "p2"}}
        stats = coverage.diff_coverage(added, {"fs/a.c": rec, "fs/b.c": None}, ["p1", "p2"])
        self.assertEqual({k: stats["p1"][k] for k in ("added", "executable", "executed",
                                                      "unprofiled")},
                         {"added": 3, "executable": 2, "executed": 1, "unprofiled": 0})
        self.assertEqual(stats["p1"]["uncovered"], [("fs/a.c", "alpha", 4)])
        self.assertEqual({k: stats["p2"][k] for k in ("added", "executable", "executed",
                                                      "unprofiled")},
                         {"added": 3, "executable": 1, "executed": 1, "unprofiled": 2})

    def test_line_data(self):
        """lines.json (make mutants-sample's input): the added executable
        lines with their counts and patch, the file's text; watchpol's .c
        lines whole, its headers not."""
        rec = coverage.parse_info(INFO)["/t/linux-cov/fs/a.c"]
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "fs"))
            os.makedirs(os.path.join(tmp, "security", "watchpol"))
            for name in ("fs/a.c", "security/watchpol/w.c"):
                Path(tmp, name).write_text("".join(f"line {i}\n" for i in range(1, 12)))
            data = coverage.line_data({"fs/a.c": {3: "p1", 4: "p1", 6: "p1"}}, {"fs/a.c": rec},
                                      {"security/watchpol/w.c": rec,
                                       "security/watchpol/w.h": rec}, tmp)
        self.assertEqual(data["files"]["fs/a.c"]["lines"], {"3": [2, "p1"], "4": [2, "p1"]})
        self.assertTrue(data["files"]["fs/a.c"]["source"].startswith("line 1\nline 2\n"))
        self.assertEqual(data["files"]["security/watchpol/w.c"]["lines"]["5"], [4, "watchpol"])
        self.assertNotIn("security/watchpol/w.h", data["files"])

    def test_rel_path(self):
        with tempfile.TemporaryDirectory() as tmp:
            tree = os.path.join(tmp, "linux-cov")
            os.makedirs(os.path.join(tree, "fs"))
            self.assertEqual(coverage.rel_path(os.path.join(tree, "fs", "a.c"), tree), "fs/a.c")
            self.assertIsNone(coverage.rel_path("/usr/include/stdio.h", tree))


if __name__ == "__main__":
    unittest.main()
