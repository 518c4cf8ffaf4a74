#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make coverage's report: line, function and branch coverage of the
objects the series touches and of watchpol, and the diff coverage of each
patch of kernel-patches/series (harness/coverage.sh runs this).

usage: coverage.py [--suites DATA] INFO TREE AM_REPO COMMITS OUT [ANSWERS]
       coverage.py --check ANSWERS
  DATA     harness/coverage.sh's work folder: BOOT.suites/NNN-SUITE.info
           are the runner's counters before the first suite and after each
           (lines.json then says which suites ran each line)
  INFO     the lcov tracefile of every boot, merged
  TREE     the tree the gcov kernel was built from (build/linux-cov)
  AM_REPO  a git repository of the pristine copies of the files the series
           touches with the series applied by git am, one commit a patch
  COMMITS  "SHA PATCH" a line: the commit git am made of each patch
  OUT      the folder for summary.md, uncovered.md, diff-coverage.json,
           lines.json and answer-keys
  ANSWERS  the answers to the uncovered lines (testcases/coverage-answers):
           uncovered.md gives each uncovered line its answer, lists the
           unanswered ones apart, and the answers that match no line (stale)
           or a line a boot did execute (contradicted); the counts are
           printed last.  --check only parses ANSWERS (exit 2 when malformed).

A line a patch adds is the line of the final tree `git blame` attributes
to that patch's commit.  It counts when lcov has a DA record for it (gcc
made it executable, in an object the kernel built and profiled): executed
when any boot ran it.  Added lines in a file with no gcov data at all
(built into no profiled object) are counted apart, as unprofiled.
watchpol (security/watchpol/, the lab's lsm/) is counted whole.

lines.json is the per-line input of make mutants-sample
(harness/mutants-gen.py): every executable line a patch adds and every
executable line of watchpol's .c files, with its execution count and the
patch that added it ("watchpol" for lsm/), and each such file's text as
built, so a reader can tell a line that moved since the run.  With
--suites, each executed line also names, per boot, the suites during which
its count grew ("boot": before the first suite, the boot and KUnit): a
generated mutant of the line runs those first.

An answer names its lines by file, function and text, never by number
(see read_answers()), so it survives edits that move the line.
answer-keys is the run's record of what the answers were matched with:
every uncovered line and every executed line an answer named, keyed the
same way; testcases/coverage-answers.run is its checked-in copy, against
which the host suite checks the answers file without a kernel.
"""

import json
import os
import re
import subprocess
import sys

LSM_DIR = "security/watchpol/"
# Where a patch can add kernel code gcov can see.
SOURCE_RE = re.compile(r"\.(c|h)$")
NOT_KERNEL = ("tools/", "samples/", "Documentation/", "scripts/")


def parse_info(text):
    """An lcov tracefile: {source path: record}, a record being
    {"lines": {line: count}, "functions": {name: [first line, count]},
    "branches": {(line, block, branch): taken count or None}}.  Records
    of the same file (several tests) are summed."""
    files = {}
    cur = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("SF:"):
            cur = files.setdefault(line[3:], {"lines": {}, "functions": {}, "branches": {}})
        elif cur is None or line == "end_of_record":
            cur = None if line == "end_of_record" else cur
        elif line.startswith("DA:"):
            fields = line[3:].split(",")
            ln, count = int(fields[0]), int(fields[1])
            cur["lines"][ln] = cur["lines"].get(ln, 0) + count
        elif line.startswith("FN:"):
            ln, name = line[3:].split(",", 1)
            cur["functions"].setdefault(name, [int(ln), 0])
        elif line.startswith("FNDA:"):
            count, name = line[5:].split(",", 1)
            fn = cur["functions"].setdefault(name, [0, 0])
            fn[1] += int(count)
        elif line.startswith("BRDA:"):
            ln, block, branch, taken = line[5:].split(",")
            key = (int(ln), int(block), int(branch))
            old = cur["branches"].get(key)
            if taken == "-":
                cur["branches"][key] = old
            else:
                cur["branches"][key] = (old or 0) + int(taken)
    return files


def counts(rec):
    """(lines hit, lines, functions hit, functions, branches hit, branches)."""
    lines = rec["lines"]
    fns = rec["functions"]
    brs = rec["branches"]
    return (sum(1 for c in lines.values() if c > 0), len(lines),
            sum(1 for f in fns.values() if f[1] > 0), len(fns),
            sum(1 for t in brs.values() if t), len(brs))


def parse_blame(text):
    """`git blame -l --line-porcelain` output: {final line: commit}."""
    owner = {}
    head = re.compile(r"^([0-9a-f]{40}) \d+ (\d+)(?: \d+)?$")
    for line in text.splitlines():
        if line.startswith("\t"):
            continue
        m = head.match(line)
        if m:
            owner[int(m.group(2))] = m.group(1)
    return owner


def attribute(owner, patch_of):
    """{final line: patch} for the lines a patch of the series added (the
    commits patch_of names); lines of the pristine tree are left out."""
    return {ln: patch_of[c] for ln, c in owner.items() if c in patch_of}


def function_at(functions, line):
    """The function whose first line is the last at or before LINE; of
    several there (SYSCALL_DEFINE's __do_sys_X, __se_sys_X, __x64_sys_X),
    the first by name, whatever order the tracefile gave them in."""
    best, best_ln = None, -1
    for name, (first, _) in functions.items():
        if best_ln < first <= line or (first == best_ln and name < best):
            best, best_ln = name, first
    return best or "(file scope)"


def pct(hit, total):
    return f"{100.0 * hit / total:.1f}%" if total else "-"


def diff_coverage(added, info_of, patches):
    """Per patch: added lines, executable, executed, unprofiled, and the
    list of added executable lines no boot ran.
    added: {path: {line: patch}}; info_of: {path: record or None}."""
    stats = {p: {"added": 0, "executable": 0, "executed": 0, "unprofiled": 0,
                 "uncovered": []} for p in patches}
    for path in sorted(added):
        rec = info_of.get(path)
        for ln, patch in sorted(added[path].items()):
            st = stats[patch]
            st["added"] += 1
            if rec is None:
                st["unprofiled"] += 1
                continue
            if ln not in rec["lines"]:
                continue
            st["executable"] += 1
            if rec["lines"][ln] > 0:
                st["executed"] += 1
            else:
                st["uncovered"].append((path, function_at(rec["functions"], ln), ln))
    return stats


# The kinds of answer an uncovered line can have, in the order
# uncovered.md counts them.  The last two are gaps, not reasons, counted
# and listed apart: needs-fault-injection, an allocation (or other
# injected) failure no boot can make happen yet; untested, a line a guest
# could reach that no test reaches yet (what it would take).
KINDS = ("covered-by", "unreachable", "needs-fault-injection", "untested")
GAPS = {"needs-fault-injection": "Needs fault injection", "untested": "Untested"}


class AnswersError(Exception):
    """A malformed answers file: the message names the file and line."""


def norm(text):
    """A source line as an answer names it: whitespace trimmed and collapsed."""
    return " ".join(text.split())


def read_answers(text, name="answers"):
    """The answers file: blocks separated by blank lines, # comments.

        in: FILE: FUNCTION       as uncovered.md's heading "### FILE: FUNCTION"
        line: TEXT               the line's text, whitespace trimmed; once for
                                 each line answered (a text twice in the
                                 function, and both answered: two line: fields)
        KIND: WHY                exactly one: covered-by: SUITE.TEST or
                                 boot NAME, unreachable: one line why,
                                 needs-fault-injection: which failure, or
                                 untested: what a test would take

    Returns [{"at": line number, "path", "function", "lines": [text],
    "kind", "why"}]; raises AnswersError naming NAME:LINE."""
    answers = []
    cur = None

    def close():
        if cur is None:
            return
        where = f"{name}:{cur['at']}"
        if "path" not in cur:
            raise AnswersError(f"{where}: the answer has no \"in: FILE: FUNCTION\"")
        if not cur["lines"]:
            raise AnswersError(f"{where}: the answer names no \"line:\"")
        if "kind" not in cur:
            raise AnswersError(f"{where}: the answer has none of " +
                               ", ".join(k + ":" for k in KINDS))
        cur["file"] = name
        answers.append(cur)

    for n, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if line.startswith("#"):
            continue
        if not line:
            close()
            cur = None
            continue
        key, sep, value = line.partition(":")
        value = value.strip()
        if not sep or key not in ("in", "line") + KINDS:
            raise AnswersError(f"{name}:{n}: not \"KEY: VALUE\" with KEY one of in, line, " +
                               ", ".join(KINDS) + f": {line}")
        if not value:
            raise AnswersError(f"{name}:{n}: {key}: has no value")
        if cur is None:
            cur = {"at": n, "lines": []}
        if key == "in":
            path, sep, fn = value.partition(": ")
            if "path" in cur or not sep or not path or not fn.strip():
                raise AnswersError(f"{name}:{n}: " + ("a second \"in:\" in one answer"
                                                      if "path" in cur else
                                                      "want \"in: FILE: FUNCTION\""))
            cur["path"], cur["function"] = path.strip(), fn.strip()
        elif key == "line":
            cur["lines"].append(norm(value))
        else:
            if "kind" in cur:
                raise AnswersError(f"{name}:{n}: a second answer ({key}:) in one block, "
                                   f"after {cur['kind']}:")
            cur["kind"], cur["why"] = key, value
    close()
    return answers


def match_answers(answers, uncovered, executed):
    """Place each answer on lines of its file and function with its
    texts, in source order (its "line:" fields are in the source's order),
    on lines no other answer took: the placement with the most uncovered
    lines, then the least span, then the first.  Answers of several lines are
    placed before those of one, which then take an uncovered line before
    an executed one.  A "line:" of an answer that cannot be placed whole
    takes the first free line of its text, uncovered first, or is stale.
    uncovered, executed: [(path, function, line number, text)].
    Returns {"answer": {(path, line number): answer} for the uncovered
    lines answered, "unanswered": [the uncovered lines left],
    "confirmed": [(answer, line)] covered-by answers whose line a boot
    executed, "reached": [(answer, line)] the same for untested ones,
    "contradicted": [(answer, line)] unreachable or needs-fault-injection
    answers whose line a boot executed, "stale": [(answer, text)]
    matching no line}."""
    cands = {}
    for status, items in (("u", uncovered), ("e", executed)):
        for item in items:
            cands.setdefault((item[0], item[1], norm(item[3])), []).append((item[2], status, item))
    for v in cands.values():
        v.sort(key=lambda c: c[0])
    used = set()

    def free(a, text):
        return [c for c in cands.get((a["path"], a["function"], text), [])
                if (a["path"], c[0]) not in used]

    def place(a):
        lists = [free(a, text) for text in a["lines"]]
        memo = {}

        def rest(i, prev):
            """The best placement of lines i.. after line prev: most
            uncovered, then the lowest last line; None if there is none."""
            if i == len(lists):
                return (0, 0, ())
            if (i, prev) not in memo:
                best = None
                for c in lists[i]:
                    if c[0] <= prev:
                        continue
                    tail = rest(i + 1, c[0])
                    if tail is None:
                        continue
                    seq = (c,) + tail[2]
                    cand = (tail[0] + (c[1] == "u"), -seq[-1][0], seq)
                    if best is None or cand[:2] > best[:2]:
                        best = cand
                memo[(i, prev)] = best
            return memo[(i, prev)]

        best = None
        for first in lists[0]:
            tail = rest(1, first[0])
            if tail is None:
                continue
            seq = (first,) + tail[2]
            score = (-sum(c[1] == "u" for c in seq), seq[-1][0] - seq[0][0], seq[0][0])
            if best is None or score < best[0]:
                best = (score, list(seq))
        return best[1] if best else None

    got = {}
    out = {"confirmed": [], "reached": [], "contradicted": [], "stale": []}
    for a in sorted(answers, key=lambda a: len(a["lines"]) == 1):
        seq = place(a)
        if seq is None:
            seq = []
            for text in a["lines"]:
                c = next(iter(sorted(free(a, text), key=lambda c: (c[1] != "u", c[0]))), None)
                if c is None:
                    out["stale"].append((a, text))
                else:
                    used.add((a["path"], c[0]))
                    seq.append(c)
        for ln, status, item in seq:
            used.add((a["path"], ln))
            if status == "u":
                got[(item[0], ln)] = a
            else:
                out[{"covered-by": "confirmed", "untested": "reached"}.get(
                    a["kind"], "contradicted")].append((a, item))
    unanswered = [u for u in sorted(uncovered, key=lambda i: (i[0], i[2]))
                  if (u[0], u[2]) not in got]
    return dict(out, answer=got, unanswered=unanswered)


def answer_counts(m, uncovered):
    """The line printed last: answered by kind, unanswered, and the
    answers' own problems."""
    kinds = {k: 0 for k in KINDS}
    for a in m["answer"].values():
        kinds[a["kind"]] += 1
    text = (f"answers: {len(uncovered)} uncovered lines, {len(m['answer'])} answered ("
            + ", ".join(f"{k} {v}" for k, v in kinds.items()) + f"), "
            f"{len(m['unanswered'])} unanswered; {len(m['stale'])} stale answer lines, "
            f"{len(m['contradicted'])} contradicted (the line was executed), "
            f"{len(m['confirmed'])} covered-by confirmed by this run, "
            f"{len(m['reached'])} untested reached by this run\n")
    return text


def write_answer_keys(f, m, uncovered):
    """answer-keys: what the answers were matched with, one line each,
    tab-separated: "uncovered" or "executed", file, function, line
    number (for the order only), text."""
    f.write("# make coverage's lines the answers are matched with "
            "(harness/coverage.py); testcases/coverage-answers.run is a copy\n")
    for path, fn, ln, text in sorted(uncovered, key=lambda i: (i[0], i[2])):
        f.write(f"uncovered\t{path}\t{fn}\t{ln}\t{norm(text)}\n")
    for _, (path, fn, ln, text) in sorted(m["confirmed"] + m["reached"] + m["contradicted"],
                                          key=lambda x: (x[1][0], x[1][2])):
        f.write(f"executed\t{path}\t{fn}\t{ln}\t{norm(text)}\n")


def read_answer_keys(text):
    """answer-keys back: (uncovered, executed)."""
    got = {"uncovered": [], "executed": []}
    for line in text.split("\n"):
        if not line or line.startswith("#"):
            continue
        kind, path, fn, ln, src = line.split("\t", 4)
        got[kind].append((path, fn, int(ln), src))
    return got["uncovered"], got["executed"]


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                          text=True).stdout


def rel_path(sf, tree):
    """An lcov SF: path as a path of the kernel tree, or None outside it."""
    real = os.path.realpath(sf)
    root = os.path.realpath(tree) + os.sep
    return real[len(root):] if real.startswith(root) else None


def load_answers(path):
    """The answers file, or exit 2 with the parser's message."""
    try:
        with open(path) as f:
            return read_answers(f.read(), path)
    except (OSError, AnswersError) as e:
        print(f"watchlab: coverage: {e}", file=sys.stderr)
        sys.exit(2)


def main(argv):
    if len(argv) == 3 and argv[1] == "--check":
        answers = load_answers(argv[2])
        print(f"watchlab: coverage: {argv[2]}: {len(answers)} answers, "
              f"{sum(len(a['lines']) for a in answers)} lines")
        return 0
    suites_data = None
    if len(argv) > 2 and argv[1] == "--suites":
        suites_data = argv[2]
        argv = argv[:1] + argv[3:]
    if len(argv) not in (6, 7):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    info_path, tree, repo, commits_path, out = argv[1:6]
    answers = load_answers(argv[6]) if len(argv) == 7 else []
    with open(info_path) as f:
        raw = parse_info(f.read())
    info = {}
    for sf, rec in raw.items():
        rel = rel_path(sf, tree)
        if rel is not None:
            info[rel] = rec

    patches = []
    patch_of = {}
    with open(commits_path) as f:
        for line in f:
            sha, name = line.split()
            patches.append(name)
            patch_of[sha] = name

    # The files the series touches, as git am left them; each must be the
    # gcov kernel's (a patch edited since the kernel was built would shift
    # its lines).
    files = [p for p in git(repo, "ls-files").split()
             if SOURCE_RE.search(p) and not p.startswith(NOT_KERNEL)]
    added = {}
    stale = []
    for path in files:
        built = os.path.join(tree, path)
        with open(os.path.join(repo, path), "rb") as a:
            mine = a.read()
        if not os.path.exists(built):
            continue
        with open(built, "rb") as b:
            if b.read() != mine:
                stale.append(path)
                continue
        owner = parse_blame(git(repo, "blame", "-l", "--line-porcelain", "HEAD", "--", path))
        lines = attribute(owner, patch_of)
        if lines:
            added[path] = lines
    if stale:
        print("watchlab: coverage: the series changed since the gcov kernel was built; "
              "not attributed: " + " ".join(stale), file=sys.stderr)

    stats = diff_coverage(added, {p: info.get(p) for p in added}, patches)

    # watchpol, whole.
    lsm = {p: r for p, r in info.items() if p.startswith(LSM_DIR)}
    lsm_uncovered = [(p, function_at(r["functions"], ln), ln)
                     for p, r in sorted(lsm.items()) for ln, c in sorted(r["lines"].items())
                     if c == 0]

    os.makedirs(out, exist_ok=True)
    shown = sorted(p for p in info if p.startswith(LSM_DIR) or p in added
                   or (SOURCE_RE.search(p) and p.endswith(".c")))
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("# Coverage of the series' objects and watchpol\n\n")
        f.write("The boots of harness/coverage.sh (make test's, on the gcov kernels: "
                "boots.txt), merged.  Files: the profiled objects' sources and the "
                "series' headers with data.\n\n")
        f.write("| file | lines | % | functions | % | branches | % |\n|---|---:|---:|---:|---:|---:|---:|\n")
        tot = [0] * 6
        for p in shown:
            c = counts(info[p])
            tot = [a + b for a, b in zip(tot, c)]
            f.write(f"| {p} | {c[0]}/{c[1]} | {pct(c[0], c[1])} | {c[2]}/{c[3]} | {pct(c[2], c[3])} "
                    f"| {c[4]}/{c[5]} | {pct(c[4], c[5])} |\n")
        f.write(f"| **total** | {tot[0]}/{tot[1]} | {pct(tot[0], tot[1])} | {tot[2]}/{tot[3]} "
                f"| {pct(tot[2], tot[3])} | {tot[4]}/{tot[5]} | {pct(tot[4], tot[5])} |\n\n")
        f.write("## Diff coverage: the lines each patch adds\n\n")
        f.write(diff_table(stats, patches, lsm))

    # The answers: matched by file, function and text with the uncovered
    # lines, and with the executed ones they might name.
    src = Sources(tree)
    uncovered = [(p, fn, ln, src.line(p, ln)) for patch in patches
                 for p, fn, ln in stats[patch]["uncovered"]]
    uncovered += [(p, fn, ln, src.line(p, ln)) for p, fn, ln in lsm_uncovered]
    executed = [(p, function_at(info[p]["functions"], ln), ln, src.line(p, ln))
                for p, lines in added.items() if info.get(p)
                for ln in lines if info[p]["lines"].get(ln, 0) > 0]
    executed += [(p, function_at(r["functions"], ln), ln, src.line(p, ln))
                 for p, r in lsm.items() for ln, c in r["lines"].items() if c > 0]
    matched = match_answers(answers, uncovered, executed)

    with open(os.path.join(out, "uncovered.md"), "w") as f:
        f.write("# Added lines no boot executes\n\n")
        f.write("Grouped by patch, file and function; line numbers are the final tree's "
                "(build/linux-cov).  Under each line or run of lines, its answer "
                "(testcases/coverage-answers): the test that covers it now, why no guest "
                "can reach it, or the fault injection it needs.\n")
        for patch in patches:
            write_uncovered(f, patch, stats[patch]["uncovered"], src, matched["answer"])
        write_uncovered(f, "watchpol (lsm/, as security/watchpol/)", lsm_uncovered, src,
                        matched["answer"])
        write_answer_sections(f, matched, uncovered)

    with open(os.path.join(out, "answer-keys"), "w") as f:
        write_answer_keys(f, matched, uncovered)

    with open(os.path.join(out, "diff-coverage.json"), "w") as f:
        json.dump({"patches": {p: {k: v for k, v in s.items() if k != "uncovered"}
                               for p, s in stats.items()},
                   "lsm": lsm_totals(lsm), "stale": stale}, f, indent=1)

    with open(os.path.join(out, "lines.json"), "w") as f:
        json.dump(line_data(added, info, lsm, tree, suites_data), f, indent=0, sort_keys=True)

    print(diff_table(stats, patches, lsm), end="")
    print(answer_counts(matched, uncovered), end="")
    return 0


def suite_credit(data, tree, wanted):
    """{path: {line: {boot: [suite, ...]}}} for the lines of WANTED
    ({path: lines}): in each boot's copies of the counters
    (DATA/BOOT.suites/NNN-SUITE.info, in run order, cumulative), the
    suites after which a line's count was higher than after the one
    before.  A boot without copies names no suite."""
    out = {}
    for d in sorted(os.listdir(data)):
        if not d.endswith(".suites"):
            continue
        boot = d[:-len(".suites")]
        before = {}
        for name in sorted(os.listdir(os.path.join(data, d))):
            if not name.endswith(".info") or "-" not in name:
                continue
            suite = name[:-len(".info")].split("-", 1)[1]
            with open(os.path.join(data, d, name)) as f:
                raw = parse_info(f.read())
            for sf, rec in raw.items():
                path = rel_path(sf, tree)
                if path not in wanted:
                    continue
                prev = before.setdefault(path, {})
                for ln, c in rec["lines"].items():
                    if ln in wanted[path] and c > prev.get(ln, 0):
                        out.setdefault(path, {}).setdefault(ln, {}) \
                           .setdefault(boot, []).append(suite)
                    prev[ln] = c
    return out


def suite_seconds(data):
    """{boot: {KTAP suite name: seconds}}: how long each suite took in
    each boot with copies of the counters (DATA/BOOT.suites/seconds,
    written by harness/coverage.sh from the runner's "took" lines)."""
    out = {}
    for d in sorted(os.listdir(data)):
        path = os.path.join(data, d, "seconds")
        if d.endswith(".suites") and os.path.isfile(path):
            with open(path) as f:
                out[d[:-len(".suites")]] = {name: float(secs) for name, secs in
                                            (ln.split() for ln in f if len(ln.split()) == 2)}
    return out


def line_data(added, info, lsm, tree, suites_data=None):
    """{"tree": TREE, "files": {path: {"lines": {line: [count, patch]},
    "source": text, "suites": {line: {boot: [suite, ...]}}}}}: the series'
    added executable lines and watchpol's executable lines of .c files,
    each with its execution count over every boot, the file's text as the
    run built it (so that a reader can carry a line across later edits, or
    tell that it moved) and, with SUITES_DATA, the suites that ran it
    (suite_credit())."""
    files = {}
    for path, lines in added.items():
        rec = info.get(path)
        if rec is None:
            continue
        files[path] = {ln: [rec["lines"][ln], patch] for ln, patch in lines.items()
                       if ln in rec["lines"]}
    for path, rec in lsm.items():
        if path.endswith(".c"):
            files[path] = {ln: [c, "watchpol"] for ln, c in rec["lines"].items()}
    credit = suite_credit(suites_data, tree, files) if suites_data else {}
    out = {}
    for path, lines in sorted(files.items()):
        if not lines:
            continue
        try:
            with open(os.path.join(tree, path), errors="replace") as src:
                text = src.read()
        except OSError:
            text = ""
        out[path] = {"lines": {str(ln): v for ln, v in sorted(lines.items())}, "source": text,
                     "suites": {str(ln): v for ln, v in sorted(credit.get(path, {}).items())}}
    return {"tree": os.path.realpath(tree), "files": out,
            "suite_seconds": suite_seconds(suites_data) if suites_data else {}}


def lsm_totals(lsm):
    c = [0] * 6
    for r in lsm.values():
        c = [a + b for a, b in zip(c, counts(r))]
    return {"lines_hit": c[0], "lines": c[1], "functions_hit": c[2], "functions": c[3],
            "branches_hit": c[4], "branches": c[5]}


def diff_table(stats, patches, lsm):
    rows = ["| patch | added | executable | executed | % | unprofiled |",
            "|---|---:|---:|---:|---:|---:|"]
    tot = {"added": 0, "executable": 0, "executed": 0, "unprofiled": 0}
    for p in patches:
        s = stats[p]
        for k in tot:
            tot[k] += s[k]
        rows.append(f"| {p[:60]} | {s['added']} | {s['executable']} | {s['executed']} "
                    f"| {pct(s['executed'], s['executable'])} | {s['unprofiled']} |")
    rows.append(f"| **series** | {tot['added']} | {tot['executable']} | {tot['executed']} "
                f"| {pct(tot['executed'], tot['executable'])} | {tot['unprofiled']} |")
    t = lsm_totals(lsm)
    rows.append(f"| **watchpol (lsm/)** | - | {t['lines']} | {t['lines_hit']} "
                f"| {pct(t['lines_hit'], t['lines'])} | - |")
    worst = sorted((p for p in patches if stats[p]["executable"]),
                   key=lambda p: (stats[p]["executed"] / stats[p]["executable"], p))[:5]
    text = "\n".join(rows) + "\n\n"
    text += (f"series' added lines: {tot['executed']}/{tot['executable']} executable lines "
             f"executed ({pct(tot['executed'], tot['executable'])}); "
             f"{tot['unprofiled']} added lines in files no profiled object builds\n")
    text += (f"watchpol (lsm/): lines {t['lines_hit']}/{t['lines']} ({pct(t['lines_hit'], t['lines'])}), "
             f"functions {t['functions_hit']}/{t['functions']} ({pct(t['functions_hit'], t['functions'])}), "
             f"branches {t['branches_hit']}/{t['branches']} ({pct(t['branches_hit'], t['branches'])})\n")
    text += "worst patches: " + ", ".join(
        f"{p.split('-')[0]} {pct(stats[p]['executed'], stats[p]['executable'])}" for p in worst) + "\n"
    return text


class Sources:
    """The tree's source lines, read once a file."""

    def __init__(self, tree):
        self.tree = tree
        self.cache = {}

    def line(self, path, ln):
        if path not in self.cache:
            try:
                with open(os.path.join(self.tree, path), errors="replace") as f:
                    self.cache[path] = f.read().split("\n")
            except OSError:
                self.cache[path] = []
        lines = self.cache[path]
        return lines[ln - 1].rstrip() if ln <= len(lines) else ""


def answer_text(a):
    return f"{a['kind']}: {a['why']}" if a else "UNANSWERED"


def write_uncovered(f, title, items, src, answer_of=None):
    """One section of uncovered.md: the lines by file and function, each
    run of lines with one answer followed by that answer."""
    if not items:
        return
    answer_of = answer_of or {}
    f.write(f"\n## {title}\n\n{len(items)} executable lines not executed\n")
    last = None
    pending = None
    for path, fn, ln in items:
        a = answer_of.get((path, ln))
        if (path, fn) != last or (pending is not None and a is not pending[0]):
            if pending is not None:
                f.write(f"            > {answer_text(pending[0])}\n")
            pending = None
        if (path, fn) != last:
            f.write(f"\n### {path}: {fn}\n\n")
            last = (path, fn)
        pending = (a,)
        f.write(f"    {ln:5d}  {src.line(path, ln)}\n")
    if pending is not None:
        f.write(f"            > {answer_text(pending[0])}\n")


def write_answer_sections(f, m, uncovered):
    """uncovered.md's last sections: the counts, the unanswered lines, the
    fault injection the lab lacks, and the answers that need mending."""
    f.write("\n## Answers\n\n" + answer_counts(m, uncovered))
    f.write(f"\n### Unanswered ({len(m['unanswered'])})\n\n")
    for path, fn, ln, text in m["unanswered"]:
        f.write(f"    {path}: {fn}: {ln}: {norm(text)}\n")
    for kind, title in GAPS.items():
        gap = sorted(((k, a) for k, a in m["answer"].items() if a["kind"] == kind),
                     key=lambda x: x[0])
        f.write(f"\n### {title} ({len(gap)}): the lab's gap, not a reason\n\n")
        for (path, ln), a in gap:
            f.write(f"    {path}: {a['function']}: {ln}: {a['why']}\n")
    f.write(f"\n### Stale answer lines: no line of that file, function and text "
            f"({len(m['stale'])})\n\n")
    for a, text in m["stale"]:
        f.write(f"    {a['file']}:{a['at']}: {a['path']}: {a['function']}: {text}\n")
    f.write(f"\n### Contradicted: a boot executed the line the answer calls unreached "
            f"({len(m['contradicted'])})\n\n")
    for a, (path, fn, ln, text) in m["contradicted"]:
        f.write(f"    {a['file']}:{a['at']}: {path}: {fn}: {ln}: {norm(text)}: {a['kind']}\n")
    f.write(f"\n### covered-by confirmed: this run executed the line ({len(m['confirmed'])})\n\n")
    for a, (path, fn, ln, text) in m["confirmed"]:
        f.write(f"    {path}: {fn}: {ln}: {norm(text)}: {a['why']}\n")
    f.write(f"\n### untested, but this run executed the line ({len(m['reached'])})\n\n")
    for a, (path, fn, ln, text) in m["reached"]:
        f.write(f"    {a['file']}:{a['at']}: {path}: {fn}: {ln}: {norm(text)}\n")

if __name__ == "__main__":
    sys.exit(main(sys.argv))
