#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests for report.py: KTAP with kernel messages interleaved, unmet plans,
splats, skips and the leak/over-block accounting."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import report  # noqa: E402


def leaves(nodes):
    return {path: leaf.ok for n in nodes for path, leaf in n.leaves()}


class ParseKtap(unittest.TestCase):
    def test_interleaved_kernel_messages(self):
        log = """[    0.100000] Linux version 6.12
KTAP version 1
1..1
    KTAP version 1
[    1.000000] random: crng init done
    # Subtest: keys
    1..2
    # watching
    ok 1 first
[    1.100000] some driver message
    not ok 2 second
ok 1 keys
"""
        got = leaves(report.parse_ktap(log.splitlines(), "t"))
        self.assertEqual(got, {"keys.first": True, "keys.second": False})

    def test_kunit_lines_with_timestamps(self):
        log = """[    0.5] KTAP version 1
[    0.5] 1..1
[    0.5]     KTAP version 1
[    0.5]     # Subtest: watchpol
[    0.5]     1..1
[    0.5]     ok 1 parser
[    0.5] ok 1 watchpol
"""
        got = leaves(report.parse_ktap(log.splitlines(), "t"))
        self.assertEqual(got, {"watchpol.parser": True})

    def test_unmet_plan_fails(self):
        log = "KTAP version 1\n1..1\n    KTAP version 1\n    1..3\n    ok 1 a\nok 1 s\n"
        got = leaves(report.parse_ktap(log.splitlines(), "t"))
        self.assertFalse(got["s.plan"])

    def test_suite_cut_short_fails(self):
        log = "KTAP version 1\n1..1\n    KTAP version 1\n    1..2\n    ok 1 a\n"
        got = leaves(report.parse_ktap(log.splitlines(), "t"))
        self.assertIn(False, got.values())

    def test_skip_is_counted_apart(self):
        log = "KTAP version 1\n1..2\nok 1 a # SKIP no hardware\nok 2 b\n"
        nodes = report.parse_ktap(log.splitlines(), "t")
        self.assertEqual([n.skipped for n in nodes], [True, False])
        self.assertEqual(nodes[0].directive, "SKIP no hardware")


class HostChecks(unittest.TestCase):
    def test_splat_fails(self):
        text = "# watchlab: runner finished\n[ 1.0] WARNING: CPU: 0 PID: 1 at x\n"
        node = report.host_checks("plain", text, "ok 1.0")
        self.assertEqual(leaves([node])["host.console_clean"], False)

    def test_clean_boot_passes(self):
        node = report.host_checks("plain", "# watchlab: runner finished\n", "ok 1.0")
        self.assertTrue(node.ok)

    def test_timeout_fails(self):
        node = report.host_checks("plain", "", "timeout 300")
        self.assertFalse(leaves([node])["host.boot_finished"])

    def test_replayed_boot_is_checked_like_a_fresh_one(self):
        clean = "# watchlab: runner finished\n"
        self.assertTrue(report.host_checks("plain", clean, "ok 1.0 cached").ok)
        splat = clean + "[ 1.0] BUG: KASAN: use-after-free in x\n"
        node = report.host_checks("plain", splat, "ok 1.0 cached")
        self.assertEqual(leaves([node])["host.console_clean"], False)


class Matrix(unittest.TestCase):
    def cells(self, expected, observed):
        line = f"    # MATRIX scenario=s model=none expected={expected} observed={observed}"
        return report.matrix_cells([line], "plain")

    def test_leak_and_over_block_are_counted_apart(self):
        leak = leaves([report.matrix_checks(self.cells("blocked", "delivered"))])
        over = leaves([report.matrix_checks(self.cells("delivered", "blocked"))])
        self.assertEqual(leak, {"matrix.no_leaks": False, "matrix.no_over_blocks": True})
        self.assertEqual(over, {"matrix.no_leaks": True, "matrix.no_over_blocks": False})

    def test_markdown_marks_a_leak(self):
        md = report.matrix_markdown(self.cells("blocked", "delivered"))
        self.assertIn("LEAK", md)


if __name__ == "__main__":
    unittest.main(verbosity=0)
