#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make coverage's report: line, function and branch coverage of the
objects the series touches and of watchpol, and the diff coverage of each
patch of kernel-patches/series (harness/coverage.sh runs this).

usage: coverage.py INFO TREE AM_REPO COMMITS OUT
  INFO     the lcov tracefile of every boot, merged
  TREE     the tree the gcov kernel was built from (build/linux-cov)
  AM_REPO  a git repository of the pristine copies of the files the series
           touches with the series applied by git am, one commit a patch
  COMMITS  "SHA PATCH" a line: the commit git am made of each patch
  OUT      the folder for summary.md, uncovered.md, diff-coverage.json and
           lines.json

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
built, so a reader can tell a line that moved since the run.
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
    """The function whose first line is the last at or before LINE."""
    best, best_ln = None, -1
    for name, (first, _) in functions.items():
        if best_ln < first <= line:
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


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                          text=True).stdout


def rel_path(sf, tree):
    """An lcov SF: path as a path of the kernel tree, or None outside it."""
    real = os.path.realpath(sf)
    root = os.path.realpath(tree) + os.sep
    return real[len(root):] if real.startswith(root) else None


def main(argv):
    info_path, tree, repo, commits_path, out = argv[1:6]
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

    with open(os.path.join(out, "uncovered.md"), "w") as f:
        f.write("# Added lines no boot executes\n\n")
        f.write("Grouped by patch, file and function; line numbers are the final tree's "
                "(build/linux-cov).\n")
        for patch in patches:
            write_uncovered(f, patch, stats[patch]["uncovered"], tree)
        write_uncovered(f, "watchpol (lsm/, as security/watchpol/)", lsm_uncovered, tree)

    with open(os.path.join(out, "diff-coverage.json"), "w") as f:
        json.dump({"patches": {p: {k: v for k, v in s.items() if k != "uncovered"}
                               for p, s in stats.items()},
                   "lsm": lsm_totals(lsm), "stale": stale}, f, indent=1)

    with open(os.path.join(out, "lines.json"), "w") as f:
        json.dump(line_data(added, info, lsm, tree), f, indent=0, sort_keys=True)

    print(diff_table(stats, patches, lsm), end="")
    return 0


def line_data(added, info, lsm, tree):
    """{"tree": TREE, "files": {path: {"lines": {line: [count, patch]},
    "source": text}}}: the series' added executable lines and watchpol's
    executable lines of .c files, each with its execution count over
    every boot, and the file's text as the run built it (so that a reader
    can carry a line across later edits, or tell that it moved)."""
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
    out = {}
    for path, lines in sorted(files.items()):
        if not lines:
            continue
        try:
            with open(os.path.join(tree, path), errors="replace") as src:
                text = src.read()
        except OSError:
            text = ""
        out[path] = {"lines": {str(ln): v for ln, v in sorted(lines.items())}, "source": text}
    return {"tree": os.path.realpath(tree), "files": out}


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


def write_uncovered(f, title, items, tree):
    if not items:
        return
    f.write(f"\n## {title}\n\n{len(items)} executable lines not executed\n")
    cache = {}
    last = None
    for path, fn, ln in items:
        if (path, fn) != last:
            f.write(f"\n### {path}: {fn}\n\n")
            last = (path, fn)
        if path not in cache:
            try:
                with open(os.path.join(tree, path), errors="replace") as src:
                    cache[path] = src.read().split("\n")
            except OSError:
                cache[path] = []
        text = cache[path][ln - 1].rstrip() if ln <= len(cache[path]) else ""
        f.write(f"    {ln:5d}  {text}\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
