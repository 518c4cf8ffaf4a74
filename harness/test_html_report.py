#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests for html_report.py and page_check.py on a tiny made-up run: the
page holds every cell, its filters count what matrix.json counts, and the
browser check fails when the page drops a cell or a filter miscounts."""

import json
import random
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import html_report  # noqa: E402
import page_check  # noqa: E402

SCN = """# made up for the page's tests
scenario key-own
	threat  use
	expect  * delivered
end

scenario key-other
	threat  observation
	expect  * blocked
end
"""


def cell(scenario, profile, model, expected, observed, evidence="", threat="use", **extra):
    c = {"scenario": scenario, "profile": profile, "model": model, "expected": expected,
         "observed": observed, "evidence": evidence, "threat": threat,
         "pass": expected == observed}
    c.update(extra)
    return c


AT_OWN = "testcases/scenarios/made.scn:2"
AT_OTHER = "testcases/scenarios/made.scn:7"
CELLS = [
    cell("key-own", "plain", "none", "delivered", "delivered", at=AT_OWN),
    cell("key-own", "plain", "strict", "delivered", "delivered", at=AT_OWN),
    cell("key-own", "plain", "mainline", "delivered", "delivered", at=AT_OWN),
    cell("key-other", "plain", "none", "delivered", "delivered", threat="observation", at=AT_OTHER),
    cell("key-other", "plain", "strict", "blocked", "blocked", "watch:watchpol",
         threat="observation", at=AT_OTHER, refuser="watch:watchpol"),
    cell("key-other", "plain", "mainline", "not-available", "not-available",
         threat="observation", at=AT_OTHER),
    cell("key-own", "smack", "none", "delivered", "delivered", at=AT_OWN),
    cell("key-own", "smack", "strict", "delivered", "delivered", at=AT_OWN),
    cell("key-other", "smack", "none", "blocked", "blocked", "watch:smack",
         threat="observation", at=AT_OTHER, refuser="watch:smack"),
    # A leak: delivered where the row says blocked.
    cell("key-other", "smack", "strict", "blocked", "delivered", threat="observation",
         at=AT_OTHER),
    cell("key-other", "smack", "strict-noconsumer", "blocked", "blocked", "watch:smack",
         threat="observation", at=AT_OTHER),
    cell("mask-refused", "smack", "property", "blocked", "blocked", "watch:kernel",
         threat="observation"),
    # A C suite's row: no scenario file.
    cell("c-suite-row", "plain", "strict", "not-posted", "not-posted", threat="covert"),
    # A row the runner failed although it observed what it expects.
    cell("key-other", "plain", "watcher", "blocked", "blocked", "post:watchpol",
         threat="observation", at=AT_OTHER, row_failed="MISATTRIBUTED"),
]
CELLS[-1]["pass"] = False


def console(cells, profile):
    """A console log with the cells' MATRIX lines as the runner prints them."""
    out = ["[    0.000000] Linux version 6.12", "KTAP version 1", "1..9"]
    models = list(dict.fromkeys(c["model"] for c in cells if c["profile"] == profile))
    for k, model in enumerate(models, 1):
        mine = [c for c in cells if c["profile"] == profile and c["model"] == model]
        out += ["    KTAP version 1", f"    # Subtest: suite_scenarios@{model}",
                f"    1..{len(mine)}"]
        for n, c in enumerate(mine, 1):
            at = f" at={c['at'].rsplit('/', 1)[-1]}" if c.get("at") else ""
            ev = f" evidence={c['evidence']}" if c["evidence"] else ""
            out.append(f"    # MATRIX scenario={c['scenario']} model={model} "
                       f"expected={c['expected']} observed={c['observed']}{ev} "
                       f"threat={c['threat']}{at}")
            if c.get("row_failed"):
                out.append(f"    # {c['scenario']}: {c['row_failed']}: post records carry t_uid 0")
            elif not c["pass"]:
                out += [f"    # {c['scenario']}: LEAK: delivered, expected blocked",
                        "    # watchpol log: watch key=12 w=1000 verdict=allow model=strict",
                        "[   12.000000] audit: type=1400 audit(1.2:3): lsm=SMACK fn=smack_post"]
            out.append(f"    {'ok' if c['pass'] else 'not ok'} {n} {c['scenario']}")
        out.append(f"ok {k} suite_scenarios@{model}")
    out.append("    # BENCH profile=plain lsm=capability,watchpol config=watchpol-none "
               "watchpol=none t=x w=y clock=wall rounds=5 q1=120.5 q8=60.1 q8_p25=59.0 "
               "q8_p75=61.0 n8=1.234")
    return "\n".join(out) + "\n"


def made_up_run(where, cells=CELLS):
    """A results folder (WHERE/results/latest) and a tree (WHERE/tree)."""
    results = where / "results" / "latest"
    results.mkdir(parents=True)
    top = where / "tree"
    (top / "testcases/scenarios").mkdir(parents=True)
    (top / "testcases/scenarios/made.scn").write_text(SCN)
    (results / "matrix.json").write_text(json.dumps(cells, indent=1) + "\n")
    for p in ("plain", "smack"):
        (results / f"console-{p}.log").write_text(console(cells, p))
    (results / "comparison.md").write_text(
        "**uidpost behaves like plain/schaufler on 2 of 2 rows**.\n\n"
        "| column | alike | of |\n|---|---|---|\n| plain/schaufler | 2 | 2 |\n")
    return results, top


class Outcomes(unittest.TestCase):
    def test_classes(self):
        got = [html_report.outcome(c) for c in CELLS]
        self.assertEqual(got.count("LEAK"), 1)
        self.assertEqual(got[4], "blocked")
        self.assertEqual(got[5], "not-available")
        self.assertEqual(html_report.outcome(cell("s", "plain", "none", "delivered", "blocked",
                                                  "post:smack")), "OVER-BLOCK")
        self.assertEqual(html_report.outcome(cell("s", "plain", "none", "blocked", "blocked")),
                         "NO-EVIDENCE")
        self.assertEqual(html_report.outcome(cell("s", "plain", "none", "blocked", "error")),
                         "ERROR")
        self.assertEqual(html_report.outcome(cell("s", "plain", "none", "not-posted", "blocked",
                                                  "post:smack")), "WRONG")
        wrong = cell("s", "plain", "none", "blocked", "blocked", "post:smack", wrong_refuser=True)
        wrong["pass"] = False
        self.assertEqual(html_report.outcome(wrong), "WRONG-REFUSER")
        self.assertEqual(got[13], "ROW-FAILED")
        self.assertEqual(html_report.short(CELLS[13], "ROW-FAILED"), "MISATT")
        # A leak in a row the runner failed is a leak.
        leak = dict(CELLS[9], row_failed="ROW FAILED")
        self.assertEqual(html_report.outcome(leak), "LEAK")

    def test_fragment(self):
        f = html_report.parse_fragment("#outcome=leak,wrong_refuser&model=strict&x=1&open=3")
        self.assertEqual(f, {"outcome": {"LEAK", "WRONG-REFUSER"}, "model": {"strict"}})
        self.assertEqual(html_report.parse_fragment("outcome=fail")["outcome"],
                         set(html_report.FAILING))

    def test_short_words(self):
        c = CELLS[4]
        self.assertEqual(html_report.short(c, "blocked"), "W·wp")
        c = dict(c, refuser="post:watchpol+smack", evidence="post:watchpol")
        self.assertEqual(html_report.short(c, "blocked"), "P·wp+sm")


class Page(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.results, self.top = made_up_run(Path(self.tmp.name))
        self.page = html_report.write(self.results, self.top)
        self.url = self.page.resolve().as_uri()

    def tearDown(self):
        self.tmp.cleanup()

    def test_console_evidence(self):
        ev = html_report.console_evidence(self.results, CELLS)
        leak = ev[9]
        self.assertEqual(leak["ktap"], {"path": "smack.suite_scenarios@strict.key-other",
                                        "ok": False})
        self.assertEqual(len(leak["records"]), 2)
        self.assertIn("MATRIX scenario=key-other model=strict", leak["lines"][0])
        self.assertEqual(ev[12]["ktap"]["path"], "plain.suite_scenarios@strict.c-suite-row")
        self.assertEqual(ev[12]["records"], [])

    def test_inline_only(self):
        text = self.page.read_text()
        for needle in ("<link", " src=", "http://", "https://", "fetch(", "XMLHttpRequest",
                       "@import", "url("):
            self.assertNotIn(needle, text)

    def test_the_whole_check_passes(self):
        tests = page_check.checks(self.results, 7)
        failed = [(n, d) for n, ok, d in tests if not ok]
        self.assertEqual(failed, [])
        self.assertEqual([n for n, *_ in tests],
                         ["page_of_this_matrix", "cell_count", "cells_by_content",
                          "fragment_filter", "evidence_panel", "screenshot"])

    def test_filters_count_what_matrix_json_counts(self):
        for fragment, want in [("outcome=LEAK", 1), ("outcome=fail", 2),
                               ("model=strict&profile=plain", 3),
                               ("threat=observation&outcome=blocked", 4),
                               ("outcome=nothing", 0)]:
            dom = page_check.Dom(page_check.chromium(f"{self.url}#{fragment}"))
            ok, diags = page_check.check_filter(dom, CELLS, fragment)
            self.assertTrue(ok, diags)
            self.assertEqual(len(dom.visible()), want, fragment)

    def test_a_dropped_cell_fails(self):
        text = self.page.read_text()
        start = text.index('<button type=button class="cell o-LEAK"')
        end = text.index("</button>", start) + len("</button>")
        self.page.write_text(text[:start] + text[end:])
        dom = page_check.Dom(page_check.chromium(self.url))
        ok, diags = page_check.check_cells(dom, CELLS)
        self.assertFalse(ok)
        self.assertIn("missing: cell 9, key-other under smack/strict", diags)

    def test_a_miscounting_filter_fails(self):
        text = self.page.read_text()
        # The script's filter, broken: the outcome is never compared.
        broken = "return dim === 'outcome' ? D.classes[i] : (D.cells[i][dim] || '');"
        self.assertIn(broken, text)
        self.page.write_text(text.replace(broken, "return dim === 'outcome' ? 'LEAK' : "
                                                  "(D.cells[i][dim] || '');"))
        dom = page_check.Dom(page_check.chromium(f"{self.url}#outcome=LEAK&profile=plain"))
        ok, diags = page_check.check_filter(dom, CELLS, "outcome=LEAK&profile=plain")
        self.assertFalse(ok, diags)

    def test_a_stale_page_fails(self):
        raw = (json.dumps(CELLS[:-1]) + "\n").encode()
        self.assertTrue(page_check.check_digest(self.page, (self.results / "matrix.json")
                                                .read_bytes())[0])
        self.assertFalse(page_check.check_digest(self.page, raw)[0])
        dom = page_check.Dom(page_check.chromium(self.url))
        ok, diags = page_check.check_cells(dom, CELLS[:-1])
        self.assertFalse(ok)
        self.assertIn("no cell of matrix.json: data-i=13", diags)

    def test_sample_sees_a_moved_cell(self):
        text = self.page.read_text()
        self.page.write_text(text.replace('data-o="LEAK"', 'data-o="delivered"'))
        dom = page_check.Dom(page_check.chromium(self.url))
        ok, diags = page_check.check_sample(dom, CELLS, random.Random(1), n=len(CELLS))
        self.assertFalse(ok)
        self.assertTrue(any("class delivered, want LEAK" in d for d in diags), diags)


if __name__ == "__main__":
    unittest.main(verbosity=0)
