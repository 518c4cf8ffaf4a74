#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of make coverage's pure parts (harness/coverage.py): the lcov
tracefile parser, git blame's attribution of final lines to the series'
patches, the diff coverage computed from both, and the answers to the
uncovered lines (testcases/coverage-answers): their parser, their matching
by file, function and text, uncovered.md written with them, and the
checked-in answers against the last run's record of its lines
(testcases/coverage-answers.run).  No kernel: a made-up tracefile, and a
real git repository of two "patches"."""

import io
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOP = HERE.parent
sys.path.insert(0, str(HERE))
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
        # SYSCALL_DEFINE's functions share a line: the first by name, in any order.
        for order in (["__x64_sys_w", "__do_sys_w", "__se_sys_w"], ["__do_sys_w", "__x64_sys_w"]):
            self.assertEqual(coverage.function_at({n: [20, 0] for n in order}, 25), "__do_sys_w")


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

    def test_suite_credit(self):
        """A line is credited to the suites after which its count had
        grown, boot by boot, in run order; lines outside the wanted set
        and boots without copies are not."""
        def info(counts):
            return ("SF:{tree}/fs/a.c\n" + "".join(f"DA:{ln},{c}\n" for ln, c in counts)
                    + "end_of_record\n")
        with tempfile.TemporaryDirectory() as tmp:
            tree = os.path.join(tmp, "linux-cov")
            os.makedirs(os.path.join(tree, "fs"))
            data = os.path.join(tmp, "data")
            copies = {"plain.suites": [("000-boot", [(3, 1), (4, 0), (6, 0)]),
                                       ("001-suite_a@none", [(3, 1), (4, 2), (6, 0)]),
                                       ("002-suite_b", [(3, 5), (4, 2), (6, 1)])],
                      "smack.suites": [("000-boot", [(3, 0), (4, 0), (6, 0)]),
                                       ("001-suite_c", [(3, 0), (4, 7), (6, 0)])]}
            for boot, runs in copies.items():
                os.makedirs(os.path.join(data, boot))
                for name, counts in runs:
                    Path(data, boot, name + ".info").write_text(info(counts).format(tree=tree))
            os.makedirs(os.path.join(data, "plain"))
            credit = coverage.suite_credit(data, tree, {"fs/a.c": {3: 0, 4: 0}})
        self.assertEqual(credit, {"fs/a.c": {3: {"plain": ["boot", "suite_b"]},
                                             4: {"plain": ["suite_a@none"], "smack": ["suite_c"]}}})

    def test_rel_path(self):
        with tempfile.TemporaryDirectory() as tmp:
            tree = os.path.join(tmp, "linux-cov")
            os.makedirs(os.path.join(tree, "fs"))
            self.assertEqual(coverage.rel_path(os.path.join(tree, "fs", "a.c"), tree), "fs/a.c")
            self.assertIsNone(coverage.rel_path("/usr/include/stdio.h", tree))


ANSWERS = """# a comment
in: fs/a.c: alpha
line: return  -ENOMEM;
line: return -ENOMEM;
needs-fault-injection: kmalloc in alpha

in: fs/a.c: beta
line:   goto out;
unreachable: only with CONFIG_X=n
# a comment inside a block
in: fs/b.c: gamma
line: x = 1;
covered-by: suite_x.test_y
"""


class Answers(unittest.TestCase):
    def test_parse(self):
        a = coverage.read_answers(ANSWERS.replace("# a comment inside a block", ""), "ans")
        self.assertEqual([(x["path"], x["function"], x["lines"], x["kind"], x["why"], x["at"])
                          for x in a],
                         [("fs/a.c", "alpha", ["return -ENOMEM;", "return -ENOMEM;"],
                           "needs-fault-injection", "kmalloc in alpha", 2),
                          ("fs/a.c", "beta", ["goto out;"], "unreachable",
                           "only with CONFIG_X=n", 7),
                          ("fs/b.c", "gamma", ["x = 1;"], "covered-by", "suite_x.test_y", 11)])

    def malformed(self, text, where, what):
        with self.assertRaises(coverage.AnswersError) as e:
            coverage.read_answers(text, "ans")
        self.assertIn(f"ans:{where}:", str(e.exception))
        self.assertIn(what, str(e.exception))

    def test_malformed(self):
        # A comment line does not end a block: "in:" twice in the second.
        self.malformed(ANSWERS, 11, "a second \"in:\"")
        ok = "in: f.c: fn\nline: x;\nunreachable: why\n"
        self.malformed("in: f.c: fn\nline: x;\n", 1, "none of covered-by:")
        self.malformed("line: x;\nunreachable: why\n", 1, "no \"in: FILE: FUNCTION\"")
        self.malformed("in: f.c: fn\nunreachable: why\n", 1, "no \"line:\"")
        self.malformed(ok + "covered-by: t\n", 4, "a second answer")
        self.malformed(ok.replace("unreachable", "untested") + "unreachable: x\n", 4,
                       "a second answer (unreachable:) in one block, after untested:")
        self.malformed(ok + "\nin: f.c\n", 5, "want \"in: FILE: FUNCTION\"")
        self.malformed(ok + "\nlines: x;\n", 5, "not \"KEY: VALUE\"")
        self.malformed(ok + "\njust text\n", 5, "not \"KEY: VALUE\"")
        self.malformed(ok + "\nin: f.c: fn\nline:\n", 6, "has no value")
        self.assertEqual(len(coverage.read_answers(ok + "\n\n" + ok)), 2)

    def test_check_exits_2_naming_the_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = Path(tmp, "answers")
            bad.write_text("in: f.c: fn\nline: x;\nunreachable: why\nbecause: no\n")
            r = subprocess.run([sys.executable, str(HERE / "coverage.py"), "--check", str(bad)],
                               capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn(f"{bad}:4: not \"KEY: VALUE\"", r.stderr)

    def test_match(self):
        answers = coverage.read_answers(ANSWERS.replace("# a comment inside a block", ""))
        uncovered = [("fs/a.c", "alpha", 9, "\t\treturn -ENOMEM;"),
                     ("fs/a.c", "alpha", 4, "\treturn -ENOMEM;"),
                     ("fs/a.c", "alpha", 12, "return -ENOMEM;"),
                     ("fs/a.c", "beta", 20, "goto out;"),
                     ("fs/c.c", "beta", 20, "goto out;")]
        executed = [("fs/b.c", "gamma", 3, "x = 1;")]
        m = coverage.match_answers(answers, uncovered, executed)
        # Two "line:" for the text: the two closest lines (least span);
        # the other, and the same text in another file, are unanswered.
        self.assertEqual(sorted(m["answer"]), [("fs/a.c", 9), ("fs/a.c", 12), ("fs/a.c", 20)])
        self.assertEqual(m["answer"][("fs/a.c", 20)]["kind"], "unreachable")
        self.assertEqual(m["unanswered"], [uncovered[1], uncovered[4]])
        self.assertEqual([(a["path"], item) for a, item in m["confirmed"]],
                         [("fs/b.c", executed[0])])
        self.assertEqual(m["stale"] + m["contradicted"], [])
        counts = coverage.answer_counts(m, uncovered)
        self.assertIn("5 uncovered lines, 3 answered (covered-by 0, unreachable 1, "
                      "needs-fault-injection 2, untested 0), 2 unanswered; 0 stale", counts)

    def test_placed_in_source_order(self):
        """Two answers sharing texts in one function (policy_install():
        the locked branch, now executed, and the failed re-parse, not):
        each is placed on its own run of lines, so the covered-by answer
        is confirmed and the other answers its lines; a one-line answer
        takes what the longer ones left, an uncovered line first."""
        answers = coverage.read_answers(
            "in: f.c: install\nline: mutex_unlock(&m);\nline: free(p);\nline: return -EPERM;\n"
            "covered-by: suite.locked\n\n"
            "in: f.c: install\nline: return 0;\nunreachable: no policy\n\n"
            "in: f.c: install\nline: if (IS_ERR(p)) {\nline: mutex_unlock(&m);\n"
            "line: return 0;\nneeds-fault-injection: kmalloc: not in the lab kernel yet\n\n"
            "in: f.c: install\nline: free(p);\nuntested: a race\n")
        executed = [("f.c", "install", 10, "mutex_unlock(&m);"), ("f.c", "install", 11, "free(p);"),
                    ("f.c", "install", 12, "return -EPERM;"), ("f.c", "install", 14, "free(p);"),
                    ("f.c", "install", 30, "return 0;")]
        uncovered = [("f.c", "install", 20, "if (IS_ERR(p)) {"),
                     ("f.c", "install", 21, "mutex_unlock(&m);"),
                     ("f.c", "install", 22, "return 0;"), ("f.c", "install", 25, "return 0;")]
        m = coverage.match_answers(answers, uncovered, executed)
        self.assertEqual({ln: a["kind"] for (_, ln), a in m["answer"].items()},
                         {20: "needs-fault-injection", 21: "needs-fault-injection",
                          22: "needs-fault-injection", 25: "unreachable"})
        self.assertEqual([item[2] for _, item in m["confirmed"]], [10, 11, 12])
        self.assertEqual([item[2] for _, item in m["reached"]], [14])
        self.assertEqual(m["contradicted"] + m["stale"] + m["unanswered"], [])

    def test_same_text_around_an_executed_one(self):
        """Five "goto fail;" answered, an executed one among them: the
        answer takes the five uncovered, not the executed one between."""
        answers = coverage.read_answers("in: p.c: parse\n" + "line: goto fail;\n" * 3 +
                                        "needs-fault-injection: kmalloc: not in the lab kernel yet\n")
        uncovered = [("p.c", "parse", ln, "goto fail;") for ln in (10, 20, 40)]
        executed = [("p.c", "parse", ln, "goto fail;") for ln in (30, 50)]
        m = coverage.match_answers(answers, uncovered, executed)
        self.assertEqual(sorted(ln for _, ln in m["answer"]), [10, 20, 40])
        self.assertEqual(m["contradicted"] + m["unanswered"], [])

    def test_stale_and_contradicted(self):
        answers = coverage.read_answers(ANSWERS.replace("# a comment inside a block", ""))
        # alpha's line executed now: the reason is contradicted; beta's
        # text changed: stale, and the changed line unanswered.
        m = coverage.match_answers(answers, [("fs/a.c", "beta", 20, "goto out_unlock;")],
                                   [("fs/a.c", "alpha", 4, "return -ENOMEM;")])
        self.assertEqual([(a["kind"], item[2]) for a, item in m["contradicted"]],
                         [("needs-fault-injection", 4)])
        self.assertEqual([(a["function"], text) for a, text in m["stale"]],
                         [("alpha", "return -ENOMEM;"), ("beta", "goto out;"),
                          ("gamma", "x = 1;")])
        self.assertEqual(len(m["unanswered"]), 1)

    def test_keys_round_trip(self):
        answers = coverage.read_answers(ANSWERS.replace("# a comment inside a block", ""))
        uncovered = [("fs/a.c", "alpha", 4, "return -ENOMEM;"),
                     ("fs/a.c", "alpha", 9, "return -ENOMEM;"),
                     ("fs/a.c", "beta", 20, "goto   out;")]
        m = coverage.match_answers(answers, uncovered, [("fs/b.c", "gamma", 3, "x = 1;")])
        out = io.StringIO()
        coverage.write_answer_keys(out, m, uncovered)
        unc, exe = coverage.read_answer_keys(out.getvalue())
        m2 = coverage.match_answers(answers, unc, exe)
        self.assertEqual((len(m2["answer"]), len(m2["confirmed"]), m2["unanswered"], m2["stale"]),
                         (3, 1, [], []))

    def test_checked_in_answers_answer_the_last_run(self):
        """Every line the last make coverage left unexecuted has an answer
        and every answer names a line of that run: an answer dropped, or
        one whose text or function no longer matches, turns this red.
        testcases/coverage-answers.run is the run's results/coverage/answer-keys."""
        answers = coverage.read_answers((TOP / "testcases/coverage-answers").read_text(),
                                        "testcases/coverage-answers")
        unc, exe = coverage.read_answer_keys((TOP / "testcases/coverage-answers.run").read_text())
        m = coverage.match_answers(answers, unc, exe)
        self.assertEqual([u[:2] + u[3:] for u in m["unanswered"]], [], "unanswered")
        self.assertEqual([(a["at"], a["path"], a["function"], t) for a, t in m["stale"]], [],
                         "stale answers")
        self.assertEqual([(a["at"], item[3]) for a, item in m["contradicted"]], [],
                         "contradicted answers")
        for a in answers:
            self.assertTrue(a["kind"] != "needs-fault-injection" or
                            "not in the lab kernel" in a["why"] or "fail-nth" in a["why"], a)


class Report(unittest.TestCase):
    """main() end to end on a made-up run: a pristine file, one patch,
    its tracefile; uncovered.md carries each line's answer, the
    unanswered apart, and the counts are printed last."""

    def test_uncovered_md(self):
        pristine = "int a;\n"
        final = ("int a;\n"
                 "int f(void)\n"
                 "{\n"
                 "\tif (g())\n"
                 "\t\treturn -ENOMEM;\n"
                 "\tif (h())\n"
                 "\t\treturn -ENOMEM;\n"
                 "\treturn 0;\n"
                 "}\n")
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            repo, tree, out = tmp / "am", tmp / "tree", tmp / "out"
            for d in (repo / "fs", tree / "fs", tree / "security" / "watchpol"):
                d.mkdir(parents=True)
            (repo / "fs/a.c").write_text(pristine)
            git(repo, "init", "-q")
            git(repo, "add", "fs/a.c")
            git(repo, "commit", "-q", "-m", "pristine")
            (repo / "fs/a.c").write_text(final)
            git(repo, "commit", "-q", "-am", "patch")
            sha = git(repo, "rev-parse", "HEAD").strip()
            (tree / "fs/a.c").write_text(final)
            (tree / "security/watchpol/w.c").write_text("void w(void)\n{\n\tx();\n}\n")
            (tmp / "commits").write_text(f"{sha} 0001-p.patch\n")
            (tmp / "info").write_text(
                f"SF:{tree}/fs/a.c\nFN:2,f\nFNDA:1,f\nDA:2,1\nDA:4,1\nDA:5,0\nDA:6,1\n"
                "DA:7,0\nDA:8,1\nend_of_record\n"
                f"SF:{tree}/security/watchpol/w.c\nFN:1,w\nFNDA:0,w\nDA:1,0\nDA:3,0\n"
                "end_of_record\n")
            (tmp / "answers").write_text(
                "in: fs/a.c: f\nline: return -ENOMEM;\n"
                "needs-fault-injection: g()'s allocation: not in the lab kernel yet\n\n"
                "in: security/watchpol/w.c: w\nline: void w(void)\nline: x();\n"
                "covered-by: suite_w.calls_w\n\n"
                "in: fs/a.c: f\nline: return 0;\nunreachable: wrong, it runs\n")
            r = subprocess.run([sys.executable, str(HERE / "coverage.py"), str(tmp / "info"),
                                str(tree), str(repo), str(tmp / "commits"), str(out),
                                str(tmp / "answers")], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            md = (out / "uncovered.md").read_text()
            keys = (out / "answer-keys").read_text()
        self.assertIn("answers: 4 uncovered lines, 3 answered (covered-by 2, unreachable 0, "
                      "needs-fault-injection 1, untested 0), 1 unanswered; 0 stale answer lines, "
                      "1 contradicted", r.stdout.splitlines()[-1])
        self.assertIn("        5  \t\treturn -ENOMEM;\n"
                      "            > needs-fault-injection: g()'s allocation: not in the lab "
                      "kernel yet\n"
                      "        7  \t\treturn -ENOMEM;\n"
                      "            > UNANSWERED\n", md)
        self.assertIn("        1  void w(void)\n        3  \tx();\n"
                      "            > covered-by: suite_w.calls_w\n", md)
        self.assertIn("### Unanswered (1)\n\n    fs/a.c: f: 7: return -ENOMEM;\n", md)
        self.assertIn("### Needs fault injection (1)", md)
        self.assertIn("### Untested (0)", md)
        self.assertIn(f"{tmp / 'answers'}:10: fs/a.c: f: 8: return 0;: unreachable", md)
        self.assertIn("uncovered\tfs/a.c\tf\t5\treturn -ENOMEM;\n", keys)
        self.assertIn("executed\tfs/a.c\tf\t8\treturn 0;\n", keys)


if __name__ == "__main__":
    unittest.main()
