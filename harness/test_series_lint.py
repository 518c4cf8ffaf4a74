#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of series_lint.py's parsing and of what answers a finding."""

import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import series_lint as L  # noqa: E402

PATCH = """From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: watchlab <watchlab@localhost>
Subject: [PATCH] x: y

First paragraph.

sparse reports "symbol 'security_hook_active_watch_*' was not declared.
Should it be static?" for the new hooks.

kernel-doc -Wall says "No description found for return value of
'foo'", which is kept.

Signed-off-by: watchlab <watchlab@localhost>
[watchlab: coccinelle's "second lock on line 12" is a false positive]
---
 a.c | 1 +
diff --git a/fs/a.c b/fs/a.c
sparse "symbol 'x' was not declared. Should it be static?" in the diff
"""


class SeriesLint(unittest.TestCase):
    def setUp(self):
        d = tempfile.mkdtemp()
        self.patch = Path(d) / "0001-x.patch"
        self.patch.write_text(PATCH)
        self.paras = L.changelog(self.patch)

    def test_touched(self):
        self.assertEqual(L.touched(self.patch), {"fs/a.c"})

    def test_changelog_stops_at_the_diffstat(self):
        self.assertFalse(any("in the diff" in p for p in self.paras))
        self.assertEqual(self.paras[0], "First paragraph.")

    def test_pattern(self):
        msg = "symbol 'security_hook_active_watch_mount_0' was not declared. Should it be static?"
        self.assertTrue(L.answered(self.paras, "sparse", msg))
        other = "symbol 'security_hook_active_capget_0' was not declared. Should it be static?"
        self.assertFalse(L.answered(self.paras, "sparse", other))

    def test_tool_must_be_named(self):
        msg = "symbol 'security_hook_active_watch_sb_1' was not declared. Should it be static?"
        self.assertFalse(L.answered(self.paras, "W=1", msg))

    def test_verbatim_across_lines(self):
        self.assertTrue(L.answered(self.paras, "kernel-doc",
                                   "No description found for return value of 'foo'"))
        self.assertFalse(L.answered(self.paras, "kernel-doc",
                                    "No description found for return value of 'bar'"))

    def test_line_numbers_in_messages(self):
        self.assertTrue(L.answered(self.paras, "coccinelle", "second lock on line 40"))
        self.assertEqual(L.norm("free at  line 593."), "free at line N.")

    def test_gcc_flag_dropped(self):
        paras = [L.norm("W=1 says \"no previous prototype for 'f'\"")]
        self.assertTrue(L.answered(paras, "W=1", "no previous prototype for 'f' [-Wmissing-prototypes]"))

    def test_parsers(self):
        m = L.BUILD_RE.match("/t/fs/a.c:12:5: warning: context imbalance in 'f' - unexpected unlock")
        self.assertEqual(m.group(1, 2, 3), ("/t/fs/a.c", "12", "5"))
        self.assertIsNone(L.BUILD_RE.match("/t/fs/a.c:12:5:    expected int"))
        self.assertIsNone(L.BUILD_RE.match("fs/a.c:30: warning: Function parameter 'x' not described")
                          .group(3))
        m = L.COCCI_RE.match("./fs/file_table.c:589:5-29: WARNING: atomic_dec_and_test variation")
        self.assertEqual(m.group(1, 2), ("fs/file_table.c", "589"))


if __name__ == "__main__":
    unittest.main()
