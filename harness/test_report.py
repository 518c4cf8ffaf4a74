#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests for report.py: KTAP with kernel messages interleaved, unmet plans,
splats, skips and the leak/over-block accounting."""

import sys
import tempfile
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

    def test_not_ok_with_a_skip_directive_is_a_failure(self):
        """Review L1: 'not ok ... # SKIP' failed; it is no skip."""
        log = "KTAP version 1\n1..1\nnot ok 1 x # SKIP y\n"
        leaf = report.parse_ktap(log.splitlines(), "t")[0]
        self.assertEqual((leaf.ok, leaf.skipped), (False, False))
        self.assertEqual(report.verdict(leaf), "FAIL")
        self.assertIn("t: x: 'not ok' with '# SKIP y': a failure, not a skip", leaf.diags)
        out = []
        report.emit_ktap(leaf, 1, 0, out)
        self.assertEqual(out[-1], "not ok 1 x")


class Interleaving(unittest.TestCase):
    def test_kernel_message_inside_a_runner_line(self):
        lines = ["ok 1 a", "    KTAP version[   37.966320] kauditd_printk_skb: 5 callbacks suppressed",
                 "[   37.970000] another kernel line", " 1", "    # Subtest: s"]
        self.assertEqual(report.rejoin_interrupted(lines), [
            "ok 1 a", "[   37.966320] kauditd_printk_skb: 5 callbacks suppressed",
            "[   37.970000] another kernel line", "    KTAP version 1", "    # Subtest: s"])

    def test_cut_matrix_line_keeps_its_cell(self):
        lines = report.rejoin_interrupted([
            "    # MATRIX scenario=s model=none expected=delivered obs[    1.5] x: y",
            "erved=delivered"])
        self.assertEqual(len(report.matrix_cells(lines, "plain")), 1)

    def test_lines_without_kernel_messages_are_untouched(self):
        lines = ["c\x1b[?7l\x1b[2J[    0.000000] Linux version", "[    0.1] boot",
                 "KTAP version 1", "ok 1 a # took [1.0 s]", "    ok 2 b"]
        self.assertEqual(report.rejoin_interrupted(lines), lines)


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


    def test_hangs_fail_like_crashes(self):
        clean = "# watchlab: runner finished\n"
        for line in ["[ 30.1] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
                     "[ 21.0] rcu: INFO: rcu_sched self-detected stall on CPU",
                     "[ 120.5] INFO: task wlrun:77 blocked for more than 120 seconds.",
                     "[ 26.0] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [wlrun:70]",
                     "[ 11.0] Watchdog detected hard LOCKUP on cpu 1"]:
            node = report.host_checks("plain", clean + line + "\n", "ok 1.0")
            self.assertEqual(leaves([node])["host.console_clean"], False, line)

    def test_kmemleak_findings_reach_the_report(self):
        text = ("# watchlab: runner finished\n"
                "    # kmemleak: unreferenced object 0xffff888003a1c000 (size 64):\n")
        node = report.host_checks("plain-debug", text, "ok 1.0")
        self.assertEqual(leaves([node])["host.console_clean"], False)


class Manifest(unittest.TestCase):
    MANIFEST = """KTAP version 1
1..3
    KTAP version 1
    # Subtest: suite_boot
    1..1
    ok 1 lsm_list
ok 1 suite_boot
    KTAP version 1
    # Subtest: suite_scenarios@strict
    1..2
    ok 1 key-update-same-uid
    ok 2 key-link-other-uid
ok 2 suite_scenarios@strict
ok 3 suite_labels_smack # SKIP the smack profile only
"""

    def check(self, console):
        manifest = report.parse_ktap(self.MANIFEST.splitlines(), "m")
        suites = report.parse_ktap(console.splitlines(), "c")
        return report.manifest_checks("plain", suites, manifest)

    def test_the_full_run_passes(self):
        self.assertTrue(self.check(self.MANIFEST).ok)

    def test_a_missing_suite_fails_and_is_named(self):
        console = self.MANIFEST.replace("1..3", "1..2").split("    KTAP version 1\n    # Subtest: suite_scenarios")[0]
        console += "ok 2 suite_labels_smack # SKIP the smack profile only\n"
        node = self.check(console)
        self.assertFalse(node.ok)
        self.assertIn("missing: suite_scenarios@strict.key-update-same-uid", node.diags)

    def test_a_missing_test_or_cell_fails(self):
        console = self.MANIFEST.replace("1..2\n    ok 1 key-update-same-uid\n", "1..1\n")
        self.assertFalse(self.check(console).ok)

    def test_an_extra_test_fails(self):
        console = self.MANIFEST.replace("    ok 1 lsm_list\n", "    ok 1 lsm_list\n    ok 2 surprise\n")
        self.assertIn("not in the manifest: suite_boot.surprise", self.check(console).diags)

    def test_a_skip_the_manifest_does_not_allow_fails(self):
        console = self.MANIFEST.replace("ok 1 suite_boot", "ok 1 suite_boot # SKIP no reason")
        console = console.replace("    ok 1 lsm_list\n", "")
        self.assertFalse(self.check(console).ok)

    def test_no_manifest_fails(self):
        self.assertFalse(report.manifest_checks("plain", [], None).ok)


class Summary(unittest.TestCase):
    def test_distinct_checks_fold_models_and_boots(self):
        def boot(name):
            suites = [report.Node(f"suite_scenarios@{m}", True, [],
                                  [report.Node("key-update", True, []),
                                   report.Node("key-link", True, [])])
                      for m in ("none", "strict")]
            return report.Node(name, True, [], suites)
        self.assertEqual(report.distinct_checks([boot("plain"), boot("smack")]), 2)


class Matrix(unittest.TestCase):
    def cells(self, expected, observed):
        line = f"    # MATRIX scenario=s model=none expected={expected} observed={observed}"
        return report.matrix_cells([line], "plain")

    def test_leak_and_over_block_are_counted_apart(self):
        leak = leaves([report.matrix_checks(self.cells("blocked", "delivered"))])
        over = leaves([report.matrix_checks(self.cells("delivered", "blocked evidence=post:smack"))])
        self.assertEqual((leak["matrix.no_leaks"], leak["matrix.no_over_blocks"]), (False, True))
        self.assertEqual((over["matrix.no_leaks"], over["matrix.no_over_blocks"]), (True, False))

    def test_blocked_needs_evidence(self):
        for tail, ok in [("", False), (" evidence=unexplained", False),
                         (" evidence=post:watchpol", True), (" evidence=watch:kernel", True)]:
            got = leaves([report.matrix_checks(self.cells("blocked", "blocked" + tail))])
            self.assertEqual(got["matrix.blocked_cells_evidenced"], ok, tail)

    def test_not_posted_is_its_own_outcome(self):
        got = leaves([report.matrix_checks(self.cells("blocked", "not-posted"))])
        self.assertFalse(got["matrix.posted_as_expected"])
        got = leaves([report.matrix_checks(self.cells("not-posted", "not-posted"))])
        self.assertTrue(all(got.values()))

    def test_cell_carries_evidence_and_place(self):
        line = ("    # MATRIX scenario=s model=strict expected=blocked observed=blocked "
                "evidence=watch:selinux at=keys.scn:12")
        cell = report.matrix_cells([line], "selinux")[0]
        self.assertEqual((cell["evidence"], cell["at"]),
                         ("watch:selinux", "testcases/scenarios/keys.scn:12"))

    MISATTRIBUTED = [
        "    # MATRIX scenario=p model=strict expected=delivered observed=delivered "
        "threat=misattribution at=keys.scn:7",
        "    # p: MISATTRIBUTED: the posts carry t_uid 0, the row names uid=1001 (keys.scn:7)",
        "    # watchpol log: post key/updated T=0:_ W=1000:_",
        "    not ok 3 p",
        "    # MATRIX scenario=q model=strict expected=delivered observed=delivered "
        "threat=use at=keys.scn:20",
        "    ok 4 q"]

    def test_a_row_the_runner_failed_fails_everywhere(self):
        """Its cell came out as expected, but the runner failed the row: the
        cell must not say pass in matrix.json, kcidb.json or matrix.md."""
        cells = report.matrix_cells(self.MISATTRIBUTED, "plain")
        self.assertEqual([(c["scenario"], c["pass"]) for c in cells],
                         [("p", False), ("q", True)])
        self.assertEqual(cells[0]["row_failed"], "MISATTRIBUTED")
        with tempfile.TemporaryDirectory() as d:
            doc = report.kcidb.report(report.TOP, Path(d), [], cells, [], "x",
                                      report.verdict, report.cell_verdict)
        self.assertEqual([t["status"] for t in doc["tests"]], ["FAIL", "PASS"])
        md = report.matrix_markdown(cells)
        self.assertIn("| [p](testcases/scenarios/keys.scn#L7) | **MISATTRIBUTED** delivered |", md)
        self.assertNotIn("**LEAK**", md)
        self.assertIn("the runner failed the row", md)   # the legend says what it means
        # A green matrix keeps its legend: SECURITY.md's copy stays current.
        self.assertNotIn("the runner failed the row", report.matrix_markdown(cells[1:]))

    def test_a_blocked_cell_without_evidence_does_not_pass(self):
        cell = self.cells("blocked", "blocked")[0]
        self.assertFalse(cell["pass"])

    def test_markdown_marks_a_leak(self):
        md = report.matrix_markdown(self.cells("blocked", "delivered"))
        self.assertIn("LEAK", md)


class BringYourOwnLsm(unittest.TestCase):
    def cell(self, scenario, observed, profile="plain", model="none"):
        line = (f"    # MATRIX scenario={scenario} model={model} expected=- "
                f"observed={observed} at=keys.scn:1")
        return report.matrix_cells([line], profile)[0]

    def setUp(self):
        self.lab = [self.cell("a", "delivered"), self.cell("b", "delivered"),
                    self.cell("a", "blocked evidence=post:watchpol", model="schaufler"),
                    self.cell("b", "delivered", model="schaufler")]
        self.byo = [self.cell("a", "blocked evidence=post:mine", profile="mine"),
                    self.cell("b", "blocked evidence=watch:mine", profile="mine")]

    def test_closest_column_compares_outcome_and_step_not_who(self):
        ranking, differ, _ = report.compare("mine", self.byo, self.lab)
        self.assertEqual(ranking[0][:3], ("plain/schaufler", 1, 2))
        self.assertEqual([d[0] for d in differ], ["b"])

    def test_cells_must_run_and_carry_evidence(self):
        ok = leaves([report.byo_checks(self.byo)])
        self.assertTrue(all(ok.values()))
        bad = leaves([report.byo_checks([self.cell("a", "error", profile="mine"),
                                         self.cell("b", "blocked", profile="mine")])])
        self.assertFalse(bad["comparison_cells.cells_ran"])
        self.assertFalse(bad["comparison_cells.cells_evidenced"])
        self.assertFalse(leaves([report.byo_checks([])])["comparison_cells.cells_ran"])

    def test_known_answer(self):
        ranking, differ, _ = report.compare("mine", self.byo, self.lab)
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "expected-comparison.txt"
            for text, ok in [("closest plain/schaufler\ndiffer b\n", True),
                             ("closest plain/schaufler\n", False),
                             ("closest plain/none\ndiffer b\n", False),
                             ("closest plain/schaufler\ndiffer b\ndiffer a\n", False),
                             ("differ b\n", False), ("closest\n", False)]:
                path.write_text(text)
                self.assertEqual(report.answer_checks(path, "mine", ranking, differ).ok,
                                 ok, text)

class Emulation(unittest.TestCase):
    def cell(self, scenario, model, observed):
        line = (f"    # MATRIX scenario={scenario} model={model} expected=delivered "
                f"observed={observed}")
        return report.matrix_cells([line], "smack")[0]

    def test_models_file_names_the_smack_emulation(self):
        self.assertEqual(report.MODEL_LIKE.get("smackemu"), "none")

    def test_equal_cells_pass(self):
        cells = [self.cell("a", "none", "delivered"), self.cell("a", "smackemu", "delivered"),
                 self.cell("b", "none", "blocked"), self.cell("b", "smackemu", "blocked"),
                 self.cell("b", "strict", "delivered")]
        node = report.emulation_checks(cells, {"smackemu": "none"})
        self.assertTrue(node.ok)

    def test_every_difference_is_listed(self):
        cells = [self.cell("a", "none", "delivered"), self.cell("a", "smackemu", "blocked"),
                 self.cell("b", "none", "blocked"), self.cell("b", "smackemu", "delivered"),
                 self.cell("c", "smackemu", "delivered")]
        node = report.emulation_checks(cells, {"smackemu": "none"})
        got = leaves([node])
        self.assertFalse(got["emulation.smackemu_matches_none"])
        diags = node.children[0].diags
        self.assertEqual(len(diags), 3)
        self.assertIn("a under smack: smack/smackemu blocked, smack/none delivered", diags)
        self.assertIn("c under smack: smack/smackemu delivered, smack/none has no cell", diags)

    def shadow_cell(self, scenario, observed, pair):
        line = (f"    # MATRIX scenario={scenario} model=smackemu-shadow expected={observed} "
                f"observed={observed} threat=covert at=x.scn:1" + (f" shadow={pair}" if pair else ""))
        return report.matrix_cells([line], "smack")[0]

    def test_shadow_pairs_parse(self):
        c = self.shadow_cell("a", "blocked", "watchpol:deny,smack:deny")
        self.assertEqual(c["shadow"], "watchpol:deny,smack:deny")
        self.assertEqual(c["at"], "testcases/scenarios/x.scn:1")

    def test_shadow_equal_pairs_pass(self):
        cells = [self.shadow_cell("a", "blocked", "watchpol:deny,smack:deny"),
                 self.shadow_cell("b", "delivered", "watchpol:allow,smack:allow"),
                 self.shadow_cell("c", "blocked", "watchpol:none,smack:none")]
        self.assertTrue(report.shadow_checks(cells).ok)

    def test_shadow_watchpol_allowing_what_smack_refuses_fails(self):
        """The case the enforcing column cannot see (review M6)."""
        cells = [self.shadow_cell("a", "blocked", "watchpol:allow,smack:deny"),
                 self.shadow_cell("b", "delivered", "watchpol:deny,smack:allow"),
                 self.shadow_cell("c", "delivered", None)]
        node = report.shadow_checks(cells)
        self.assertFalse(node.ok)
        self.assertIn("a under smack: watchpol:allow,smack:deny", node.diags)
        self.assertIn("b under smack: watchpol:deny,smack:allow", node.diags)
        self.assertIn("c under smack: no pair of decisions", node.diags)


def cell(scenario, profile, model, expected, observed, evidence="", where=None):
    c = {"scenario": scenario, "profile": profile, "model": model, "expected": expected,
         "observed": observed, "evidence": evidence, "at": "x.scn:1"}
    if where:
        c["expected_where"] = where
    return c


class Refusers(unittest.TestCase):
    """Who refused a blocked cell, and where, against what the row and the
    model's rules say."""

    def verdicts(self, cells):
        node, checked = report.refuser_checks(cells, observe=lambda c: None)
        return node.ok, node.children[0].diags

    def test_matrix_line_carries_the_rows_where(self):
        line = ("# MATRIX scenario=s model=strict expected=blocked@post:watchpol+smack "
                "observed=blocked evidence=post:watchpol threat=covert at=x.scn:3")
        c = report.matrix_cells([line], "smack")[0]
        self.assertEqual((c["expected"], c["expected_where"], c["pass"]),
                         ("blocked", "post:watchpol+smack", True))

    def test_derived_from_the_model_where_the_native_cell_delivers(self):
        row = [cell("s", "selinux", "none", "delivered", "delivered"),
               cell("s", "selinux", "watcher", "blocked", "blocked", "watch:watchpol"),
               cell("s", "selinux", "schaufler", "blocked", "blocked", "post:watchpol"),
               cell("s", "selinux", "strict", "blocked", "blocked", "watch:watchpol")]
        self.assertEqual(self.verdicts(row)[0], True)
        # A watchpol that stopped judging the mount's label: SELinux refuses.
        row[1]["evidence"] = "watch:selinux"
        ok, diags = self.verdicts(row)
        self.assertFalse(ok)
        self.assertIn("s under selinux/watcher: WRONG REFUSER: stopped at watch:selinux, "
                      "the row says watch:watchpol", diags)
        # strict refuses at the post when the watcher model lets the watch be.
        row[1].update(expected="delivered", observed="delivered", evidence="")
        ok, diags = self.verdicts(row)
        self.assertIn("s under selinux/strict: WRONG REFUSER: stopped at watch:watchpol, "
                      "the row says post:watchpol", diags)

    def test_the_kernel_refuses_in_every_profile(self):
        row = [cell("k", p, m, "blocked", "blocked", "watch:kernel")
               for p in ("plain", "selinux") for m in ("none", "strict")]
        self.assertEqual(self.verdicts(row), (True, ["4 blocked cells checked"]))
        row[3]["evidence"] = "watch:watchpol"
        self.assertFalse(self.verdicts(row)[0])

    def test_a_masked_refusal_must_be_declared(self):
        row = [cell("m", "smack", "none", "blocked", "blocked", "post:smack", "post:smack"),
               cell("m", "smack", "schaufler", "blocked", "blocked", "post:watchpol")]
        ok, diags = self.verdicts(row)
        self.assertFalse(ok)    # derived: Smack's (the native cell's) refusal
        row[1]["expected_where"] = "post:watchpol"
        ok, diags = self.verdicts(row)
        self.assertIn("m under smack/schaufler: watchpol's refusal is masked: smack/none is "
                      "blocked@post:smack too; the row must say blocked@post:watchpol+smack",
                      diags)
        row[1]["expected_where"] = "post:watchpol+smack"
        self.assertTrue(self.verdicts(row)[0])
        # Declared, but the native cell does not refuse it: the claim fails.
        row[0].update(observed="delivered", expected="delivered", evidence="")
        row[0].pop("expected_where")
        ok, diags = self.verdicts(row)
        self.assertIn("m under smack/schaufler: the row says smack refuses it too "
                      "(post:watchpol+smack), but smack/none observed delivered", diags)

    def test_smack_native_step_must_be_named(self):
        ok, diags = self.verdicts([cell("n", "smack", "none", "blocked", "blocked",
                                        "post:smack")])
        self.assertFalse(ok)
        self.assertIn("the row does not say where it stops", diags[0])


class SecurityMd(unittest.TestCase):
    OLD = ("| scenario | plain/none | smack/strict |\n|---|---|---|\n"
           "| [a[ring]](x.scn#L1) | delivered | blocked@post:watchpol+smack |\n"
           "| [b](x.scn#L9) | delivered | delivered |\n")

    def test_says_which_rows_and_cells_changed(self):
        new = self.OLD.replace("blocked@post:watchpol+smack", "blocked@post:smack")
        new = new.replace("| [b](x.scn#L9) | delivered | delivered |\n", "")
        self.assertEqual(report.matrix_changes(self.OLD, new), [
            "row gone: b",
            "a[ring] smack/strict: blocked@post:watchpol+smack -> blocked@post:smack"])
        with tempfile.TemporaryDirectory() as d:
            doc = Path(d) / "SECURITY.md"
            doc.write_text(f"<!-- matrix:begin -->\n{self.OLD}<!-- matrix:end -->\n")
            node = report.doc_checks(doc, new)
            self.assertFalse(node.ok)
            self.assertIn("row gone: b", node.children[0].diags)
            self.assertTrue(report.doc_checks(doc, self.OLD).ok)

    def test_a_row_moved_to_the_kernel_properties_reads_by_its_columns(self):
        new = self.OLD.replace("| [b](x.scn#L9) | delivered | delivered |\n", "") + (
            "\n| scenario | threat | plain | smack |\n|---|---|---|---|\n"
            "| [b](x.scn#L9) | use | delivered | delivered |\n")
        self.assertEqual(report.matrix_changes(self.OLD, new), [
            "row moved to a table with other columns: b (threat use, plain delivered, "
            "smack delivered)"])


class Replayed(unittest.TestCase):
    def test_junit_marks_a_replayed_boots_results(self):
        boot = report.Node("plain", True, [], [report.Node("s", True, [], [
            report.Node("t", True, [])])])
        fresh = report.junit([boot])
        self.assertNotIn("replayed", fresh)
        xml = report.junit([boot], {"plain"})
        self.assertIn('<property name="replayed" value="true" />', xml)
        self.assertIn("replayed from build/boot-cache: not run in this run", xml)


class Sources(unittest.TestCase):
    """The manifests against the source tree: a suite compiled out, a
    scenario the parser skipped, a KUnit case that did not report."""

    def tree(self, d):
        top = Path(d)
        (top / "testcases/runner/suites").mkdir(parents=True)
        (top / "testcases/scenarios").mkdir(parents=True)
        (top / "lsm").mkdir()
        (top / "kernel-patches").mkdir()
        (top / "testcases/runner/suites/suite_a.c").write_text(
            "WL_SUITE(suite_a, tests);\n#if 0\nWL_SUITE_IF(suite_b, tests, f);\n#endif\n")
        (top / "testcases/scenarios/x.scn").write_text("scenario s1\nend\nscenario s2\nend\n")
        (top / "lsm/policy_test.c").write_text(
            "\tKUNIT_CASE(c1),\n\tKUNIT_CASE_PARAM(c2, g),\n\t.name = \"k\",\n")
        return top

    @staticmethod
    def manifest(*suites):
        return [report.Node(s, True, [], [report.Node(t, True, []) for t in tests])
                for s, tests in suites]

    def test_what_the_source_defines_must_be_listed_and_reported(self):
        with tempfile.TemporaryDirectory() as d:
            top = self.tree(d)
            man = self.manifest(("suite_a_ring", ["t"]), ("suite_b", ["t"]),
                                ("suite_scenarios@none", ["s1", "s2[ring]"]))
            boot = report.Node("plain", True, [], self.manifest(("k", ["c1", "c2"])))
            node = report.source_checks([man], [boot], top=top)
            self.assertTrue(node.ok, [c.diags for c in node.children])
            # suite_b compiled out, s2 skipped by the parser, c2 silent.
            man = self.manifest(("suite_a", ["t"]), ("suite_scenarios@none", ["s1"]))
            boot = report.Node("plain", True, [], self.manifest(("k", ["c1", "c3"])))
            node = report.source_checks([man], [boot], top=top)
            diags = [d for c in node.children for d in c.diags]
            self.assertFalse(node.ok)
            self.assertIn("suite_b (testcases/runner/suites/suite_a.c) is in no boot's manifest: "
                          "compiled out, or never registered", diags)
            self.assertIn("scenario s2 (x.scn:3) has no row in suite_scenarios's or "
                          "suite_properties's manifest", diags)
            # A property row is listed by suite_properties instead.
            man = self.manifest(("suite_a", ["t"]), ("suite_b", ["t"]),
                                ("suite_scenarios@none", ["s1"]), ("suite_properties", ["s2"]))
            node = report.source_checks([man], [], top=top, only={"suite_scenarios"})
            self.assertTrue(node.ok, [c.diags for c in node.children])
            self.assertIn("plain: KUnit k: c2 did not report", diags)
            self.assertIn("plain: KUnit k: c3 is no case of the tree's", diags)
            # The plain boot must run KUnit; the selinux boot need not.
            quiet = [report.Node(n, True, [], []) for n in ("plain", "selinux")]
            node = report.source_checks([man], quiet, top=top)
            diags = [d for c in node.children for d in c.diags]
            self.assertIn("plain: KUnit k did not report", diags)
            self.assertNotIn("selinux: KUnit k did not report", diags)

    def test_a_kselftest_suite_and_a_later_patchs_kunit_case_count(self):
        with tempfile.TemporaryDirectory() as d:
            top = self.tree(d)
            (top / "testcases/runner/suites/suite_k.c").write_text(
                'WL_KSFT_SUITE(suite_k, "k_test");\n')
            self.assertIn("suite_k", report.source_suites(top))
            # 0001 creates a KUnit file and names its suite; 0002 adds a case.
            (top / "kernel-patches/0001-a.patch").write_text(
                "diff --git a/kernel/t.c b/kernel/t.c\n+\tKUNIT_CASE(one),\n"
                "+\t.name = \"wq\",\n")
            (top / "kernel-patches/0002-b.patch").write_text(
                "diff --git a/kernel/t.c b/kernel/t.c\n \tKUNIT_CASE(one),\n"
                "+\tKUNIT_CASE(two),\n")
            self.assertEqual(report.source_kunit(top)["wq"], ["one", "two"])


class KernelProperties(unittest.TestCase):
    """Rows that state a kernel property: an XFAIL counts as a pass and is
    named apart; the matrix shows them in a table of their own."""

    def test_xfail_passes_and_is_not_a_skip(self):
        log = ("KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: suite_properties\n"
               "    1..2\n    ok 1 a # XFAIL the kernel refuses it first\n"
               "    not ok 2 b\nok 1 suite_properties\n")
        nodes = report.parse_ktap(log.splitlines(), "t")
        got = {p: (leaf.ok, leaf.xfail, leaf.skipped) for n in nodes for p, leaf in n.leaves()}
        self.assertEqual(got["suite_properties.a"], (True, True, False))
        self.assertEqual(got["suite_properties.b"], (False, False, False))
        out = []
        report.emit_ktap(nodes[0], 1, 0, out)
        self.assertIn("    ok 1 a # XFAIL the kernel refuses it first", out)

    def test_property_rows_have_a_table_of_their_own(self):
        lines = ["# MATRIX scenario=m model=none expected=delivered observed=delivered "
                 "threat=use at=keys.scn:1",
                 "# MATRIX scenario=k model=property expected=blocked@watch:kernel "
                 "observed=blocked evidence=watch:kernel threat=observation at=keys.scn:9"]
        cells = report.matrix_cells(lines, "plain") + report.matrix_cells(lines[1:], "smack")
        md = report.matrix_markdown(cells)
        self.assertIn("**Kernel properties** (1 rows", md)
        self.assertIn("| scenario | threat | plain | smack |", md)
        self.assertIn("| [k](testcases/scenarios/keys.scn#L9) | observation | blocked@watch:kernel | "
                      "blocked@watch:kernel |", md)
        self.assertNotIn("plain/property", md)
        # A property row the kernel no longer decides is marked, as any cell.
        cells[1]["observed"], cells[1]["evidence"], cells[1]["pass"] = \
            "blocked", "watch:watchpol", True
        node, _ = report.refuser_checks(cells, observe=lambda c: None)
        self.assertFalse(node.ok)
        self.assertIn("WRONG REFUSER", report.matrix_markdown(cells))


class Kcidb(unittest.TestCase):
    """results/kcidb.json: KCIDB 5.3 records that pass harness/kcidb.schema.json;
    a broken record fails it."""

    def doc(self):
        boot = report.Node("plain", False, [], [report.Node("suite_scenarios@strict", False, [], [
            report.Node("key-update-other-uid[ring]", True, []),
            report.Node("mount-x", False, ["LEAK: delivered"]),
            report.Node("y", True, [], directive="SKIP not here")])])
        cell = report.matrix_cells(["# MATRIX scenario=a[ring] model=strict expected=blocked "
                                    "observed=delivered threat=covert at=keys.scn:3"], "plain")
        with tempfile.TemporaryDirectory() as d:
            build = Path(d)
            (build / "linux.patches-key").write_text("k\n")
            return report.kcidb.report(report.TOP, build, [boot], cell, [], "linux-source-6.12 x",
                                       report.verdict, report.cell_verdict)

    def test_a_run_is_valid_kcidb(self):
        doc = self.doc()
        self.assertEqual(report.kcidb.schema_errors(doc), [])
        paths = {t["path"]: t["status"] for t in doc["tests"]}
        self.assertEqual(paths, {
            "watchlab.plain.suite_scenarios.strict.key-update-other-uid-ring": "PASS",
            "watchlab.plain.suite_scenarios.strict.mount-x": "FAIL",
            "watchlab.plain.suite_scenarios.strict.y": "SKIP",
            "watchlab.matrix.plain.strict.a-ring": "FAIL"})
        fail = [t for t in doc["tests"] if t["path"].endswith("mount-x")][0]
        self.assertEqual(fail["log_excerpt"], "LEAK: delivered")

    @staticmethod
    def kcidb(boots, cells):
        with tempfile.TemporaryDirectory() as d:
            return report.kcidb.report(report.TOP, Path(d), boots, cells, [], "x",
                                       report.verdict, report.cell_verdict)

    def test_a_not_available_cell_that_observed_not_available_passes(self):
        """Review M4: the mainline columns' not-available cells were ERROR."""
        cells = report.matrix_cells(["# MATRIX scenario=ro model=mainline expected=not-available "
                                     "observed=not-available threat=use at=sb.scn:3"], "plain")
        doc = self.kcidb([], cells)
        self.assertEqual([t["status"] for t in doc["tests"]], ["PASS"])
        self.assertTrue(report.kcidb_status_checks(doc, [], cells).ok)

    def test_lab_faults_map_as_kernelci_maps_them(self):
        """An infrastructure fault (the boot timed out, QEMU died, the runner
        never finished) is ERROR; a part that never ran (no KTAP, no
        manifest) is MISS; a failure of the kernel or the lab's checks FAIL."""
        timeout = report.host_checks("plain", "", "timeout 300")
        died = report.host_checks("smack", "x\n[ 1.0] BUG: oops\n", "qemu-exit 1")
        panic = report.host_checks("selinux", "[ 1.0] Kernel panic - not syncing\n", "ok 3.0")
        missing = report.Node("host", False, [], [
            report.Node("missing", False, ["host.ktap: no KTAP results"], fault="MISS")])
        nomanifest = report.Node("lava", False, [], [report.manifest_checks("lava", [], None)])
        boots = [report.Node(b, False, [], [n])
                 for b, n in [("plain", timeout), ("smack", died), ("selinux", panic)]]
        doc = self.kcidb(boots + [missing, nomanifest], [])
        got = {t["path"]: t["status"] for t in doc["tests"]}
        self.assertEqual(got, {
            "watchlab.plain.host.boot_finished": "ERROR",
            "watchlab.plain.host.runner_finished": "ERROR",
            "watchlab.plain.host.console_clean": "PASS",
            "watchlab.smack.host.boot_finished": "ERROR",
            "watchlab.smack.host.runner_finished": "ERROR",
            "watchlab.smack.host.console_clean": "FAIL",
            "watchlab.selinux.host.boot_finished": "PASS",
            "watchlab.selinux.host.runner_finished": "ERROR",
            "watchlab.selinux.host.console_clean": "FAIL",
            "watchlab.host.missing": "MISS",
            "watchlab.lava.manifest": "MISS"})
        self.assertEqual(report.kcidb.schema_errors(doc), [])

    def test_every_status_is_the_reports_verdict(self):
        boot = report.Node("plain", True, [], [report.Node("suite_a", True, [], [
            report.Node("t", True, []), report.Node("u", True, [], directive="SKIP n/a")])])
        cells = report.matrix_cells(["# MATRIX scenario=ro model=mainline expected=not-available "
                                     "observed=not-available threat=use at=sb.scn:3",
                                     "# MATRIX scenario=k model=strict expected=delivered "
                                     "observed=delivered threat=use at=keys.scn:1"], "plain")
        doc = self.kcidb([boot], cells)
        node = report.kcidb_status_checks(doc, [boot], cells)
        self.assertTrue(node.ok, node.diags)
        # A green run: no ERROR and no FAIL in kcidb.json.
        self.assertFalse({t["status"] for t in doc["tests"]} & {"ERROR", "FAIL"})
        # An exporter that judges on its own is caught, by path.
        doc["tests"][-1]["status"] = "ERROR"
        node = report.kcidb_status_checks(doc, [boot], cells)
        self.assertFalse(node.ok)
        self.assertIn("watchlab.matrix.plain.strict.k: kcidb.json says ERROR, "
                      "the report's verdict is PASS", node.diags)
        del doc["tests"][0]
        node = report.kcidb_status_checks(doc, [boot], cells)
        self.assertIn("watchlab.plain.suite_a.t: kcidb.json has no test, "
                      "the report's verdict is PASS", node.diags)

    def test_a_broken_record_fails_the_schema(self):
        for field, value, want in [("status", "OK", "tests/0/status"),
                                   ("path", "watchlab.plain.suite@strict", "tests/0/path"),
                                   ("colour", "blue", "tests/0"),
                                   ("build_id", None, "tests/0")]:
            doc = self.doc()
            if value is None:
                del doc["tests"][0][field]
            else:
                doc["tests"][0][field] = value
            errors = report.kcidb.schema_errors(doc)
            self.assertTrue(errors and errors[0].startswith(want), (field, errors))
        doc = self.doc()
        doc["version"]["major"] = 4
        self.assertTrue(report.kcidb.schema_errors(doc))


class RuntimeSkip(unittest.TestCase):
    """A test that skips itself at run time counts against its suite's
    budget, which the runner prints as the suite's KTAP attribute
    "# skip_budget: N" (testcases/runner/core/wl.h, .skip_budget)."""

    CONSOLE = """KTAP version 1
1..3
    KTAP version 1
    # Subtest: suite_kselftest
    # skip_budget: 2
    1..3
    ok 1 queue.pipe.ring_protocol # SKIP see the diagnostics above
    ok 2 queue.pipe.ring_bad_tail # SKIP see the diagnostics above
    ok 3 queue.pipe.basic
ok 1 suite_kselftest
    KTAP version 1
    # Subtest: suite_mount
    1..1
    ok 1 bind
ok 2 suite_mount
ok 3 suite_labels_smack # SKIP the smack profile only
"""

    def check(self, console):
        return report.skip_checks("plain", report.parse_ktap(console.splitlines(), "c"))

    def test_the_budget_is_the_suites_attribute(self):
        nodes = report.parse_ktap(self.CONSOLE.splitlines(), "c")
        self.assertEqual(nodes[0].attrs, {"skip_budget": "2"})
        self.assertEqual(nodes[0].children[0].diags, [])
        out = []
        report.emit_ktap(nodes[0], 1, 0, out)
        self.assertEqual(out[:3], ["    KTAP version 1", "    # Subtest: suite_kselftest",
                                   "    # skip_budget: 2"])

    def test_skips_within_the_budget_pass(self):
        node = self.check(self.CONSOLE)
        self.assertTrue(node.ok, node.diags)
        self.assertEqual(report.verdict(node), "PASS")

    def test_a_skip_over_the_budget_fails_naming_suite_and_test(self):
        console = self.CONSOLE.replace("    ok 3 queue.pipe.basic",
                                       "    ok 3 queue.pipe.basic # SKIP no usbfs node")
        node = self.check(console)
        self.assertFalse(node.ok)
        self.assertIn("suite_kselftest: 3 runtime skips, its budget is 2: "
                      "queue.pipe.ring_protocol, queue.pipe.ring_bad_tail, queue.pipe.basic",
                      node.diags)

    def test_a_skip_in_a_suite_that_declares_none_fails(self):
        console = self.CONSOLE.replace("    ok 1 bind", "    ok 1 bind # SKIP no mount")
        node = self.check(console)
        self.assertFalse(node.ok)
        self.assertIn("suite_mount: 1 runtime skip, its budget is 0: bind", node.diags)

    def test_a_test_that_skips_itself_is_a_skip_not_a_pass_nor_a_mismatch(self):
        log = """KTAP version 1
1..1
    KTAP version 1
    # Subtest: suite_kselftest
    1..2
    ok 1 queue.pipe.ring_protocol # SKIP see the diagnostics above
    ok 2 queue.pipe.basic
ok 1 suite_kselftest
"""
        nodes = report.parse_ktap(log.splitlines(), "t")
        leaf = nodes[0].children[0]
        self.assertTrue(leaf.skipped)
        manifest = report.parse_ktap(log.replace(" # SKIP see the diagnostics above", "")
                                     .splitlines(), "m")
        self.assertTrue(report.manifest_checks("plain", nodes, manifest).ok)
        # A whole suite skipped against a manifest that runs it still fails.
        skipped = report.parse_ktap(["KTAP version 1", "1..1",
                                     "ok 1 suite_kselftest # SKIP no"], "t")
        self.assertFalse(report.manifest_checks("plain", skipped, manifest).ok)


if __name__ == "__main__":
    unittest.main(verbosity=0)
