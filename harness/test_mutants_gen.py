#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of make mutants-sample's generator (harness/mutants-gen.py): the
operators, placed by spatch on a made-up file, make the edits they name,
each distinct and each compiling; only covered lines take a mutant; a
seed draws the same sample from the same list, whatever order the
matches came in; no coverage data, no sample.  With a built lab kernel
(build/kbuild-lab), a few of watchpol's real candidates compile with
their object's own command."""

import importlib.util
import io
import os
import random
import shutil
import subprocess
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("mutants_gen", HERE / "mutants-gen.py")
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)

# Stubs first, so that every mutant of the function compiles with gcc
# alone; the function uses each operator's pattern once or more.
STUBS = """#include <stdbool.h>
#define EPERM 1
#define EACCES 13
#define CAP_SYS_ADMIN 21
struct cred { int uid; };
struct lock { int l; };
struct list { struct list *next; };
struct file { const struct cred *f_cred; struct lock lock; struct list list; const struct cred *w; };
static const struct cred init_cred;
const struct cred *current_cred(void);
const struct cred *get_cred(const struct cred *c);
void put_cred(const struct cred *c);
void spin_lock(struct lock *l);
void spin_unlock(struct lock *l);
void list_del_init(struct list *l);
int security_watch_mount(struct file *f, int a);
bool capable(int cap);
void do_it(const struct cred *a, const struct cred *b, const struct cred *c);
"""
BODY = """int f(struct file *file, int a, int b)
{
	const struct cred *cred = current_cred();
	int ret;

	if (a < b &&
	    b >= 3)
		return -EPERM;
	ret = security_watch_mount(file, a);
	if (ret)
		return ret;
	if (!capable(CAP_SYS_ADMIN))
		return -EACCES;
	spin_lock(&file->lock);
	if (a)
		put_cred(cred);
	if (b) {
		spin_unlock(&file->lock);
		return 0;
	}
	list_del_init(&file->list);
	spin_unlock(&file->lock);
	do_it(file->f_cred, cred, &init_cred);
	security_watch_mount(file, b);
	file->w = get_cred(cred);
	return 0;
}
"""
SOURCE = STUBS + BODY
FIRST = STUBS.count("\n")  # the line before the function


def line_of(text):
    """The line number of the function's line holding TEXT."""
    for i, ln in enumerate(SOURCE.split("\n"), 1):
        if i > FIRST and text in ln:
            return i
    raise KeyError(text)


def candidates(covered=None):
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp, "t.c")
        src.write_text(SOURCE)
        cocci = Path(tmp, "g.cocci")
        cocci.write_text(gen.cocci_text())
        matches = gen.spatch(src, str(cocci))
    lines = SOURCE.splitlines(True)
    if covered is None:
        covered = set(range(FIRST + 1, len(lines) + 1))
    return gen.sort_unique(gen.candidates_of("t.c", "t.c", lines, matches, covered))


@unittest.skipUnless(shutil.which("spatch"), "no spatch (Debian's coccinelle)")
class Operators(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cands = candidates()
        cls.by_op = {}
        for c in cls.cands:
            cls.by_op.setdefault(c["op"], []).append(c)

    def mutated_line(self, c, line):
        return gen.apply_edits(SOURCE, c["edits"]).split("\n")[line - 1]

    def find(self, op, what):
        found = [c for c in self.by_op.get(op, []) if c["what"] == what]
        self.assertEqual(len(found), 1, f"{op} {what}: {[c['what'] for c in self.by_op.get(op, [])]}")
        return found[0]

    def test_every_operator_places(self):
        self.assertEqual(sorted(self.by_op), sorted(gen.OPERATORS))

    def test_negate(self):
        ifs = {c["line"] for c in self.by_op["negate-cond"]}
        self.assertEqual(ifs, {line_of("if (a < b"), line_of("if (ret)"), line_of("!capable"),
                               line_of("if (a)"), line_of("if (b) {")})
        c = self.find("negate-cond", "if (ret) -> if (!(ret))")
        self.assertEqual(self.mutated_line(c, c["line"]), "\tif (!(ret))")
        # A condition over two lines is negated whole.
        c = next(c for c in self.by_op["negate-cond"] if c["line"] == line_of("if (a < b"))
        self.assertIn("if (!(a < b &&\n\t    b >= 3))", gen.apply_edits(SOURCE, c["edits"]))

    def test_relational_boundary(self):
        c = self.find("rel-boundary", "< -> <=")
        self.assertEqual(self.mutated_line(c, c["line"]), "\tif (a <= b &&")
        c = self.find("rel-boundary", ">= -> >")
        self.assertEqual(self.mutated_line(c, c["line"]), "\t    b > 3)")

    def test_drop_check(self):
        c = self.find("drop-check", "security_watch_mount(...) -> 0")
        self.assertEqual(self.mutated_line(c, c["line"]), "\tret = 0;")
        c = self.find("drop-check", "capable(...) -> true")
        self.assertEqual(self.mutated_line(c, c["line"]), "\tif (!true)")
        # A call whose value nobody reads is no check.
        self.assertNotIn(line_of("security_watch_mount(file, b)"),
                         [c["line"] for c in self.by_op["drop-check"]])

    def test_return_0(self):
        self.assertEqual(sorted(c["what"] for c in self.by_op["return-0"]),
                         ["return -EACCES -> return 0", "return -EPERM -> return 0"])
        c = self.find("return-0", "return -EPERM -> return 0")
        self.assertEqual(self.mutated_line(c, c["line"]), "\t\treturn 0;")

    def test_drop_ref(self):
        # The put in an if's body leaves an empty block; list_del_init on a
        # line of its own goes with its line; a get whose value is used
        # leaves its argument.
        c = self.find("drop-ref", "put_cred(...); dropped")
        self.assertEqual(self.mutated_line(c, c["line"]), "\t\t{ }")
        c = self.find("drop-ref", "list_del_init(...); dropped")
        self.assertNotIn("list_del_init", gen.apply_edits(SOURCE, c["edits"]).split(STUBS)[1])
        self.assertEqual(len(gen.apply_edits(SOURCE, c["edits"]).split("\n")),
                         len(SOURCE.split("\n")) - 1)
        c = self.find("drop-ref", "get_cred(cred) -> cred")
        self.assertEqual(self.mutated_line(c, c["line"]), "\tfile->w = cred;")

    def test_skip_lock(self):
        (c,) = self.by_op["skip-lock"]
        self.assertEqual(c["line"], line_of("spin_lock("))
        after = gen.apply_edits(SOURCE, c["edits"])
        self.assertNotIn("spin_lock(&file", after.split(STUBS)[1])
        self.assertNotIn("spin_unlock(&file", after.split(STUBS)[1])
        self.assertIn("if (b) {\n\t\treturn 0;", after)

    def test_swap_cred(self):
        swaps = {c["what"] for c in self.by_op["swap-cred"]}
        self.assertIn("file->f_cred -> cred", swaps)
        self.assertIn("cred -> &init_cred", swaps)
        self.assertIn("&init_cred -> current_cred()", swaps)
        # Not the declared variable, nor a get or put's argument.
        for c in self.by_op["swap-cred"]:
            self.assertNotIn(c["line"], (line_of("put_cred("), line_of("get_cred(")))
        lhs = [c for c in self.by_op["swap-cred"] if c["line"] == line_of("*cred = current")]
        self.assertTrue(all(c["what"].startswith("current_cred() -> ") for c in lhs))

    def test_distinct_and_compiling(self):
        """Every candidate changes the text, no two the same way, and each
        compiles (gcc -fsyntax-only on the stubs and the function)."""
        if not shutil.which("gcc"):
            self.skipTest("no gcc")
        texts = [gen.apply_edits(SOURCE, c["edits"]) for c in self.cands]
        self.assertNotIn(SOURCE, texts)
        self.assertEqual(len(set(texts)), len(texts))
        with tempfile.TemporaryDirectory() as tmp:
            for c, text in zip(self.cands, texts):
                f = Path(tmp, "m.c")
                f.write_text(text)
                r = subprocess.run(["gcc", "-fsyntax-only", "-Werror=implicit-function-declaration",
                                    str(f)], capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, f"{c['id']} ({c['what']}): {r.stderr}")

    def test_patch_form(self):
        """A mutant is the catalogue's form: a header harness/mutants.sh
        reads, then a -p1 diff that patch applies with fuzz 0."""
        c = self.find("rel-boundary", "< -> <=")
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "fs").mkdir()
            Path(tmp, "fs", "t.c").write_text(SOURCE)
            c = dict(c, path="fs/t.c", fn="f")
            text = gen.mutant_text(c, tmp, 7, 1, 9, "Suites: suite_mount\nRescope: plain\n")
            head = text.split("\n--- ")[0]
            for field in ("Bug: generated: rel-boundary at fs/t.c:", "Layer: kernel", "Threat:",
                          "Boots: plain\nSuites: suite_mount\nRescope: plain\n",
                          "Operator: rel-boundary", "Site: fs/t.c:", "Generated: seed 7"):
                self.assertIn(field, head)
            Path(tmp, "m.patch").write_text(text)
            r = subprocess.run(["patch", "-d", tmp, "-p1", "--batch", "--fuzz=0", "-s", "-i",
                                str(Path(tmp, "m.patch"))], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("if (a <= b &&", Path(tmp, "fs", "t.c").read_text())
            self.assertNotIn("Equivalent:", head)
            argued = {gen.equivalence_key(text): "the same, argued"}
            Path(tmp, "fs", "t.c").write_text(SOURCE)
            head = gen.mutant_text(c, tmp, 7, 1, 9, "", argued).split("\n--- ")[0]
            self.assertIn("Threat: unclassified (generated by harness/mutants-gen.py)\n"
                          "Equivalent: the same, argued\n", head)

    def test_only_covered_lines(self):
        only = {line_of("if (ret)")}
        cands = candidates(only)
        self.assertEqual({c["line"] for c in cands}, only)
        self.assertEqual([c["op"] for c in cands], ["negate-cond"])


class Coverage(unittest.TestCase):
    def test_no_data_refuses(self):
        with tempfile.TemporaryDirectory() as tmp:
            err = io.StringIO()
            with self.assertRaises(SystemExit) as e, redirect_stderr(err):
                gen.load_coverage(Path(tmp, "lines.json"))
            self.assertIn("no coverage data at", str(e.exception.code))
            self.assertIn("make coverage", str(e.exception.code))

    def test_lines_carried_across_edits(self):
        """A line executed in the coverage run keeps its count where the
        file changed elsewhere (a line inserted above it), and loses it
        where the line itself changed."""
        old = ["a", "int x;", "x = 1;", "y = 2;", "z"]
        new = ["a", "#include <new>", "int x;", "x = 1;", "y = 3;", "z"]
        ran = {"plain": ["suite_a"]}
        cov = {"f.c": ({2: [1, "p"], 3: [5, "p"], 4: [2, "p"], 5: [0, "p"]}, "\n".join(old),
                       {3: ran, 4: {"plain": ["suite_b"]}})}
        covered, moved, credit = gen.covered_lines(cov, lambda p: new)
        self.assertEqual(covered, {"f.c": {3, 4}})
        self.assertEqual(moved, 1)
        # The suites move with the line; the changed line's are gone.
        self.assertEqual(credit, {"f.c": {4: ran}})

    def test_test_code_is_no_target(self):
        cov = {p: ({1: [1, "p"]}, "x", {}) for p in gen.EXCLUDED}
        cov["fs/x.h"] = ({1: [1, "p"]}, "x", {})
        self.assertEqual(gen.covered_lines(cov, lambda p: ["x"]), ({}, 0, {}))


class Scope(unittest.TestCase):
    """The suites and profiles a generated mutant is judged in first, from
    the suites that ran its line."""
    KNOWN = {"suite_keys", "suite_mount", "suite_boot", "suite_ring"}
    PROFILES = ["plain", "selinux", "smack"]

    def scope(self, path, ran):
        return gen.scope_of({"path": path, "suites": ran}, self.KNOWN, self.PROFILES)

    def test_suites_of_its_boot_and_the_profiles_that_ran_it(self):
        ran = {"smack": ["suite_keys@none"], "byo-uidpost": ["suite_keys@none"],
               "plain": ["boot", "suite_mount_ring", "suite_keys@strict", "suite_keys@none"]}
        self.assertEqual(self.scope("fs/namespace.c", ran),
                         "Suites: suite_keys suite_mount\nRescope: plain smack\n")
        # A real suite that ends in _ring is itself.
        self.assertEqual(self.scope("fs/x.c", {"plain": ["suite_ring"]}),
                         "Suites: suite_ring\nRescope: plain\n")

    def test_a_line_run_only_while_the_boot_comes_up(self):
        self.assertEqual(self.scope("lsm/hooks.c", {"plain": ["boot"]}),
                         "Suites: suite_boot\nRescope: plain\n")

    def test_selinux_files_are_judged_in_selinux(self):
        ran = {"plain": ["suite_keys@none"], "selinux": ["suite_mount"]}
        self.assertEqual(self.scope("security/selinux/hooks.c", ran),
                         "Suites: suite_mount\nRescope: plain selinux\n")

    def test_a_suite_the_lab_boot_skips_is_dropped(self):
        ran = {"plain": ["suite_keys@none", "suite_ring"]}
        scope = gen.scope_of({"path": "fs/x.c", "suites": ran}, self.KNOWN, self.PROFILES,
                             {"plain": {"suite_keys", "suite_mount"}})
        self.assertEqual(scope, "Suites: suite_keys\nRescope: plain\n")
        scope = gen.scope_of({"path": "fs/x.c", "suites": {"plain": ["suite_ring"]}},
                             self.KNOWN, self.PROFILES, {"plain": {"suite_keys"}})
        self.assertEqual(scope, "Suites: suite_boot\nRescope: plain\n")

    def test_no_narrowing_when_it_saves_little(self):
        """Suites that took more than half the boot's suite time: no
        Suites: line (the whole boot, its baseline shared)."""
        seconds = {"plain": {"suite_keys@none": 30.0, "suite_keys@strict": 30.0,
                             "suite_mount": 30.0, "suite_boot": 0.0, "suite_ring": 10.0}}
        wide = {"plain": ["suite_keys@none", "suite_keys@strict"]}
        narrow = {"plain": ["suite_mount"]}
        self.assertEqual(gen.scope_of({"path": "fs/x.c", "suites": wide}, self.KNOWN,
                                      self.PROFILES, None, seconds), "Rescope: plain\n")
        self.assertEqual(gen.scope_of({"path": "fs/x.c", "suites": narrow}, self.KNOWN,
                                      self.PROFILES, None, seconds),
                         "Suites: suite_mount\nRescope: plain\n")

    def test_plan_suites(self):
        plan = ("KTAP version 1\n1..3\n    KTAP version 1\n    # Subtest: suite_keys@none\n"
                "    ok 1 t\nok 1 suite_keys@none\n"
                "ok 2 suite_failnth # SKIP the plain boots of a kernel with fault injection\n"
                "ok 3 suite_mount_ring\n")
        self.assertEqual(gen.plan_suites(plan), {"suite_keys@none", "suite_mount_ring"})

    def test_no_data_or_unknown_suite_is_every_suite(self):
        self.assertEqual(self.scope("fs/x.c", {}), "")
        self.assertEqual(self.scope("fs/x.c", {"plain": ["suite_gone"]}), "Rescope: plain\n")
        # Run only outside the lab profiles: no Rescope:, every profile.
        self.assertEqual(self.scope("fs/x.c", {"selinux-early": ["suite_early"]}), "")

    def test_selinux_early_is_rescoped_too(self):
        ran = {"plain": ["suite_mount"], "selinux-early": ["boot", "suite_early"]}
        self.assertEqual(self.scope("lsm/fs.c", ran),
                         "Suites: suite_mount\nRescope: plain selinux-early\n")

    def test_the_debug_boot_last_when_its_profile_ran_it(self):
        ran = {"plain": ["suite_mount"], "smack": ["suite_keys@none"]}
        scope = gen.scope_of({"path": "fs/x.c", "suites": ran}, self.KNOWN, self.PROFILES,
                             debug_profile="plain")
        self.assertEqual(scope, "Suites: suite_mount\nRescope: plain smack plain-debug\n")
        scope = gen.scope_of({"path": "fs/x.c", "suites": {"smack": ["suite_keys@none"]}},
                             self.KNOWN, self.PROFILES, debug_profile="plain")
        self.assertEqual(scope, "Rescope: smack\n")
        self.assertEqual(gen.makefile_value("DEBUG_PROFILE"), "plain")

    def test_registered_suites_are_the_runners(self):
        known = gen.registered_suites()
        self.assertIn("suite_failnth", known)
        self.assertIn("suite_scenarios", known)
        self.assertEqual(gen.lab_profiles(), self.PROFILES)


class Sampling(unittest.TestCase):
    def cands(self):
        return [{"op": op, "path": p, "line": ln, "edits": [[ln * 10, ln * 10 + 1, "x"]],
                 "what": "", "fn": ""}
                for p in ("a.c", "b.c") for ln in range(1, 40) for op in ("negate-cond",)]

    def test_same_seed_same_sample(self):
        c = gen.sort_unique(self.cands())
        self.assertEqual([x["id"] for x in gen.draw(c, 1)], [x["id"] for x in gen.draw(c, 1)])
        self.assertNotEqual([x["id"] for x in gen.draw(c, 1)][:5],
                            [x["id"] for x in gen.draw(c, 2)][:5])

    def test_order_of_matches_does_not_matter(self):
        raw = self.cands()
        shuffled = list(raw)
        random.Random(5).shuffle(shuffled)
        a = [x["id"] for x in gen.draw(gen.sort_unique(raw), 3)]
        b = [x["id"] for x in gen.draw(gen.sort_unique(shuffled), 3)]
        self.assertEqual(a, b)

    def test_one_edit_once(self):
        raw = self.cands()
        twice = raw + [dict(raw[0], op="rel-boundary")]
        self.assertEqual(len(gen.sort_unique(twice)), len(raw))


BUILD = Path(os.environ.get("BUILD", HERE.parent / "build"))


DIFF = """--- a/lsm/x.c
+++ b/lsm/x.c
@@ -1,4 +1,4 @@
 int f(void)
-\tif (a < b)
+\tif (a <= b)
 \t\treturn 1;
"""


def run_summary(out, res, mutants, equivalents, since=None):
    """Write @out's sample.json for @mutants and run summary on it: its
    return code and what it printed."""
    (out / "sample.json").write_text(gen.json.dumps(
        {"seed": 1, "n": len(mutants), "candidates": 9, "drawn": len(mutants),
         "discarded": 0, "mutants": mutants}))
    printed = io.StringIO()
    with redirect_stdout(printed):
        rc = gen.summary(out, res, 0, equivalents, since)
    return rc, printed.getvalue()


class Equivalents(unittest.TestCase):
    """testcases/mutants-equivalent: arguments that find their mutant by its
    diff, and a summary that counts them only while the mutant survives."""

    def test_key_is_the_hunk_without_its_numbers(self):
        key = gen.equivalence_key("Bug: b\nLayer: lsm\n\n" + DIFF)
        self.assertRegex(key, r"^lsm/x\.c [0-9a-f]{12}$")
        self.assertEqual(gen.equivalence_line(DIFF), f"{key}: if (a < b) => if (a <= b)")
        moved = DIFF.replace("@@ -1,4 +1,4 @@", "@@ -90,4 +90,4 @@")
        self.assertEqual(gen.equivalence_key(moved), key)
        # The same edit elsewhere (other lines around it) is another mutant.
        self.assertNotEqual(gen.equivalence_key(DIFF.replace("int f(void)", "int g(void)")), key)
        dropped = DIFF.replace("+\tif (a <= b)\n", "")
        self.assertTrue(gen.equivalence_line(dropped).endswith(": if (a < b) => "))
        with self.assertRaises(ValueError):
            gen.equivalence_key("no diff")

    def parse(self, text):
        with tempfile.TemporaryDirectory() as tmp:
            p = Path(tmp, "eq")
            p.write_text(text)
            return gen.load_equivalents(p)

    def test_file_form(self):
        self.assertEqual(self.parse("# c\n\nlsm/x.c 0123456789ab: a => b\n\tone\n  two\n"
                                    "fs/y.c ba9876543210: c => \n\tthree\n"),
                         {"lsm/x.c 0123456789ab": "one two", "fs/y.c ba9876543210": "three"})
        for bad in ("lsm/x.c 0123456789ab: a => b\n", "\targument first\n",
                    "lsm/x.c: a => b\n\tx\n",
                    "k 0123456789ab: a\n\tx\nk 0123456789ab: b\n\ty\n"):
            with self.assertRaises(ValueError, msg=bad):
                self.parse(bad)

    def test_the_lab_file_parses(self):
        """Every entry of the lab's own file has an argument."""
        self.assertTrue(all(gen.load_equivalents().values()))

    def test_summary_counts_equivalents_only_while_they_survive(self):
        key = gen.equivalence_key(DIFF)
        with tempfile.TemporaryDirectory() as tmp:
            out, res = Path(tmp, "cat"), Path(tmp, "res")
            (res / "verdicts").mkdir(parents=True)
            out.mkdir()
            cases = {"g1": ("killed", DIFF.replace("a <= b", "a != b")),
                     "g2": ("survived", DIFF),
                     "g3": ("killed", DIFF),
                     "g4": ("survived", DIFF.replace("a <= b", "a == b"))}
            mutants = []
            for name, (verdict, diff) in cases.items():
                (out / f"{name}.patch").write_text("Bug: b\n\n" + diff)
                (res / "verdicts" / f"{name}.json").write_text(gen.json.dumps(
                    {"verdict": verdict, "equivalent": None, "build_s": 1, "boot_s": 2}))
                mutants.append({"name": name, "id": name, "op": "rel-boundary",
                                "site": "lsm/x.c:2", "what": "< -> <="})
            rc, text = run_summary(out, res, mutants, {key: "argued"})
        self.assertEqual(rc, 0)
        self.assertIn("generated mutation score: 2 of 3 killed (1 equivalent)", text)
        self.assertIn("EQUIVALENT lsm/x.c:2 rel-boundary: < -> <= (g2): argued", text)
        self.assertIn("ARGUED EQUIVALENT, KILLED lsm/x.c:2 rel-boundary: < -> <= (g3)", text)
        self.assertIn("SURVIVED lsm/x.c:2 rel-boundary: < -> <= (g4)", text)

    def test_summary_since_counts_later_kills_of_the_same_draw(self):
        """A draw that survived, or was not judged, at the sample's tree
        counts as killed since when a later judgement of a copy of it
        (gNNN-*) killed it; a later survival, an argued equivalent and a
        draw with no later kill change nothing, and a draw judged nowhere
        still fails the summary."""
        with tempfile.TemporaryDirectory() as tmp:
            out, res, later = Path(tmp, "cat"), Path(tmp, "res"), Path(tmp, "later")
            for d in (res / "verdicts", later / "verdicts", out):
                d.mkdir(parents=True)
            cases = {"g001-a": ("killed", None, None),
                     "g002-b": ("survived", None, "killed"),
                     "g003-c": (None, None, "killed"),
                     "g004-d": ("survived", None, "survived"),
                     "g005-e": ("survived", "argued", "killed"),
                     "g006-f": (None, None, None)}
            mutants = []
            for name, (verdict, equiv, again) in cases.items():
                (out / f"{name}.patch").write_text("Bug: b\n\n" + DIFF)
                if verdict:
                    (res / "verdicts" / f"{name}.json").write_text(gen.json.dumps(
                        {"verdict": verdict, "equivalent": equiv, "build_s": 1, "boot_s": 2}))
                if again:
                    (later / "verdicts" / f"{name[:4]}-hand.json").write_text(gen.json.dumps(
                        {"verdict": again, "killers": ["plain.suite_x.t"]}))
                mutants.append({"name": name, "id": name, "op": "negate-cond",
                                "site": "lsm/x.c:2", "what": "c -> !(c)"})
            rc, text = run_summary(out, res, mutants, {}, [later])
            self.assertEqual(rc, 1)
            self.assertIn("generated mutation score: 1 of 3 killed (1 equivalent)", text)
            self.assertIn("KILLED SINCE lsm/x.c:2 negate-cond: by plain.suite_x.t (g002-b)", text)
            self.assertIn("KILLED SINCE lsm/x.c:2 negate-cond: by plain.suite_x.t (g003-c)", text)
            self.assertNotIn("(g004-d)\n", text.split("generated mutation score")[1])
            self.assertNotIn("KILLED SINCE lsm/x.c:2 negate-cond: by plain.suite_x.t (g005-e)", text)
            self.assertIn("with the tests since: 3 of 4 killed (1 equivalent)", text)
            (res / "verdicts" / "g006-f.json").write_text(gen.json.dumps(
                {"verdict": "killed", "equivalent": None, "build_s": 1, "boot_s": 2}))
            self.assertEqual(run_summary(out, res, mutants, {}, [later])[0], 0)


@unittest.skipUnless(shutil.which("spatch") and (BUILD / "kbuild-lab/security/watchpol/.hooks.o.cmd").is_file(),
                     "no lab kernel built (build/kbuild-lab) or no spatch")
class KernelObject(unittest.TestCase):
    def test_watchpol_candidates_compile(self):
        """One candidate of each operator that watchpol's hooks.c and fs.c
        place compiles with the object's own kbuild command; a broken
        edit does not."""
        tree = BUILD / "linux"
        obj = BUILD / "kbuild-lab"
        cands = []
        with tempfile.TemporaryDirectory() as tmp:
            cocci = Path(tmp, "g.cocci")
            cocci.write_text(gen.cocci_text())
            for name in ("hooks.c", "fs.c"):
                src = HERE.parent / "lsm" / name
                lines = src.read_text().splitlines(True)
                cands += gen.candidates_of("security/watchpol/" + name, "lsm/" + name, lines,
                                           gen.spatch(src, str(cocci)), set(range(1, len(lines) + 1)))
        cands = gen.sort_unique(cands)
        one = {}
        for c in cands:
            one.setdefault(c["op"], c)
        self.assertGreaterEqual(len(one), 5, sorted(one))
        for c in one.values():
            ok, err = gen.compile_check(c, tree, obj)
            self.assertTrue(ok, f"{c['id']}: {err}")
        broken = dict(c, edits=[[0, 0, "int broken = undeclared;\n"]])
        self.assertFalse(gen.compile_check(broken, tree, obj)[0])


if __name__ == "__main__":
    unittest.main()
