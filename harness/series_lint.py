#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make series-check's step 6: the maintainers' checks, new findings only.

usage: series_lint.py WORK PATCH...

WORK is build/series-check after steps 1-5: WORK/linux holds the whole
series (and watchpol grafted in) configured in WORK/obj, WORK/am the `git am`
repository (tag "pristine", then one commit per patch), WORK/lab/linux the
lab kernel's tree, which this step turns back into pristine 6.12 (every file
the series touches restored from the tag, the files it creates and
security/watchpol/ removed) and WORK/lab/kbuild-lab its objects.

Over the files the series touches (outside tools/, samples/ and
Documentation/) and security/watchpol/:

  sparse and W=1   make C=2 W=1 of every such .c file the lab kernel builds
                   (sparse's and gcc's W=1 warnings in those files,
                   headers included), in WORK/obj and, at the same
                   .config, in WORK/pristine-obj;
  coccinelle       scripts/coccicheck, MODE=report, on every such .c file
                   (the per-file form of `make coccicheck M=DIR`: a whole
                   directory such as fs/ would be some 1500 files); spatch's
                   output is cached by the file's, its directory's headers'
                   and the semantic patches' contents in
                   build/series-check-cache (outside WORK, which each run
                   removes);
  kernel-doc       scripts/kernel-doc -Wall -none on every such .c and .h.

A finding is (file, message); one is new when the whole series has it more
often than pristine 6.12 has it in the same file (line numbers move, so they
are not compared).  A file the series creates has no pristine counterpart:
all its findings are new.  Each new finding is put on the patch that wrote
its line (git blame in WORK/am; watchpol's files on the patch that makes the
kernel build them), and is answered when a paragraph of that patch's
changelog names the tool ("sparse", "W=1", "coccinelle" or "coccicheck",
"kernel-doc") and quotes the message (whitespace and line breaks free; a
gcc message without its [-W...] flag; in double quotes, * stands for any
text), as a changelog answers a checkpatch finding today.  A finding on a line pristine 6.12 already had (a function
whose lock balance a patch changed, a hook's static key that a new LSM
adds) may be answered by any patch of the series.  Exits 1 when a new finding is unanswered.
"""

import concurrent.futures
import hashlib
import os
import re
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

SKIP = ("tools/", "samples/", "Documentation/")
TOOLS = {
    "sparse": ("sparse",),
    "W=1": ("W=1",),
    "coccinelle": ("coccinelle", "coccicheck"),
    "kernel-doc": ("kernel-doc",),
}
JOBS = "2"
# path:line:col: warning|error: message  (gcc and sparse; kernel-doc, run by
# W=1 builds too, gives no column and is left to the kernel-doc check)
BUILD_RE = re.compile(r"^(\S+?):(\d+):(?:(\d+):)? (warning|error): (.*)$")
KDOC_RE = re.compile(r"^(\S+?):(\d+): (?:warning|error): (.*)$")
COCCI_RE = re.compile(r"^(?:\./)?(\S+?):(\d+):\d+-\d+: (.*)$")
FLAG_RE = re.compile(r"\s*\[-W[^\]]*\]$")
LINE_RE = re.compile(r"\bline \d+")


def log(msg):
    print(f"  {msg}", flush=True)


def touched(patch):
    out = set()
    for line in Path(patch).read_text(errors="replace").splitlines():
        m = re.match(r"^diff --git a/(\S+) b/(\S+)$", line)
        if m:
            out.update(m.groups())
    return out


def norm(text):
    """A message as compared and quoted: plain quotes, single spaces, and
    coccinelle's "at line 593" as "at line N" (line numbers move)."""
    text = text.replace("\u2018", "'").replace("\u2019", "'")
    return LINE_RE.sub("line N", " ".join(text.split()))


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True,
                          capture_output=True, text=True).stdout


def kmake(tree, obj, top, *args):
    env = dict(os.environ, LC_ALL="C")
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        env.pop(k, None)
    cmd = ["make", "-C", str(tree), f"O={obj}",
           f"CC={top}/harness/kernel-cc.sh", "HOSTCC=ccache gcc", f"-j{JOBS}", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True)


class Run:
    """The findings of one tree: a list of (tool, file, line, message)."""

    def __init__(self, tree):
        self.tree = Path(tree)
        self.found = []

    def rel(self, path):
        path = path.removeprefix(str(self.tree) + "/").removeprefix("./")
        return path

    def build(self, obj, top, objs, logfile, series_files):
        if not objs:
            return
        for o in objs:
            (obj / o).unlink(missing_ok=True)
        # sparse stops at 100 warnings a file by default: fewer than
        # security.c has in pristine 6.12 already.
        r = kmake(self.tree, obj, top, "-k", "C=2", "W=1", "CF=-fmax-warnings=unlimited", *objs)
        Path(logfile).write_text(r.stdout + r.stderr)
        if r.returncode != 0:
            log(f"make C=2 W=1 failed in {self.tree} (see {logfile})")
        seen = set()
        for line in (r.stdout + r.stderr).splitlines():
            m = BUILD_RE.match(line)
            if not m:
                continue
            path, lno, col, _sev, msg = m.groups()
            path = self.rel(path)
            if path not in series_files or col is None:
                continue
            tool = "W=1" if FLAG_RE.search(msg) else "sparse"
            # A header's warning comes once per file that includes it.
            key = (tool, path, int(lno), msg)
            if key in seen:
                continue
            seen.add(key)
            self.found.append(key)

    def kerneldoc(self, files, logfile):
        out = []
        for f in files:
            r = subprocess.run(["perl", "scripts/kernel-doc", "-Wall", "-none", f],
                               cwd=self.tree, capture_output=True, text=True)
            out.append(r.stdout + r.stderr)
            for line in (r.stdout + r.stderr).splitlines():
                m = KDOC_RE.match(line)
                if m and self.rel(m.group(1)) == f:
                    self.found.append(("kernel-doc", f, int(m.group(2)), m.group(3)))
        Path(logfile).write_text("".join(out))

    def cocci(self, files, cache, logfile):
        scripts = sorted((self.tree / "scripts/coccinelle").rglob("*.cocci"))
        base = hashlib.sha256()
        base.update(subprocess.run(["spatch", "--version"], capture_output=True,
                                   text=True).stdout.encode())
        base.update((self.tree / "scripts/coccicheck").read_bytes())
        for s in scripts:
            base.update(s.read_bytes())

        def one(f):
            h = base.copy()
            h.update(f.encode())
            h.update((self.tree / f).read_bytes())
            for hdr in sorted((self.tree / f).parent.glob("*.h")):
                h.update(hdr.name.encode() + hdr.read_bytes())
            hit = cache / (h.hexdigest() + ".txt")
            if hit.exists():
                return f, hit.read_text(), True
            env = dict(os.environ, C="2", MODE="report", srctree=".", LC_ALL="C",
                       LINUXINCLUDE="-I./arch/x86/include -I./arch/x86/include/uapi "
                       "-I./include -I./include/uapi")
            env.pop("COCCI", None)
            r = subprocess.run(["bash", "scripts/coccicheck", f],
                               cwd=self.tree, env=env, capture_output=True, text=True)
            text = r.stdout + r.stderr
            if r.returncode == 0:
                cache.mkdir(parents=True, exist_ok=True)
                tmp = hit.with_suffix(".tmp")
                tmp.write_text(text)
                tmp.rename(hit)
            else:
                log(f"coccicheck failed on {f} in {self.tree}")
            return f, text, False

        out = []
        hits = 0
        with concurrent.futures.ThreadPoolExecutor(int(JOBS)) as ex:
            for f, text, cached in ex.map(one, files):
                hits += cached
                out.append(f"=== {f}\n{text}")
                for line in text.splitlines():
                    m = COCCI_RE.match(line)
                    if m and self.rel(m.group(1)) == f:
                        self.found.append(("coccinelle", f, int(m.group(2)), m.group(3)))
        Path(logfile).write_text("".join(out))
        return hits


def restore_pristine(am, lab_tree, series_files):
    """Turn the lab's patched tree back into pristine 6.12.  Its
    kernel-tree.sh key goes until repatch() puts the series back."""
    Path(str(lab_tree) + ".patches-key").rename(str(lab_tree) + ".patches-key.lint")
    in_pristine = set(git(am, "ls-tree", "-r", "--name-only", "pristine").split("\n"))
    for f in series_files:
        p = lab_tree / f
        if p.is_file():
            p.unlink()
        if f in in_pristine:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(subprocess.run(["git", "-C", str(am), "show", f"pristine:{f}"],
                                         check=True, capture_output=True).stdout)
    shutil.rmtree(lab_tree / "security/watchpol", ignore_errors=True)
    return in_pristine


def repatch(tree, lab_tree, series_files):
    """Put the whole series back in the lab's tree, as step 2 left TREE, so
    that the next run's kernel-tree.sh finds it patched."""
    for f in series_files:
        src, dst = tree / f, lab_tree / f
        dst.unlink(missing_ok=True)
        if src.is_file():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    shutil.rmtree(lab_tree / "security/watchpol", ignore_errors=True)
    shutil.copytree(tree / "security/watchpol", lab_tree / "security/watchpol")
    Path(str(lab_tree) + ".patches-key.lint").rename(str(lab_tree) + ".patches-key")


def changelog(patch):
    lines = []
    body = False
    for line in Path(patch).read_text(errors="replace").splitlines():
        if line == "---":
            break
        if body:
            lines.append(line)
        elif line == "":
            body = True
    paras, cur = [], []
    for line in lines:
        if line.strip():
            cur.append(line)
        elif cur:
            paras.append(norm(" ".join(cur)))
            cur = []
    if cur:
        paras.append(norm(" ".join(cur)))
    return paras


def answered(paras, tool, msg):
    """Whether a paragraph names the tool and quotes the message: verbatim,
    or as a double-quoted pattern in which * stands for any text (one
    sentence for the four "security_hook_active_*" keys of each new hook)."""
    want = norm(FLAG_RE.sub("", msg))
    for p in paras:
        if not any(t in p for t in TOOLS[tool]):
            continue
        if want in p:
            return True
        for q in re.findall(r'"([^"]*\*[^"]*)"', p):
            if re.fullmatch(".*".join(map(re.escape, q.split("*"))), want):
                return True
    return False


def main():
    work = Path(sys.argv[1]).resolve()
    patches = [Path(p) for p in sys.argv[2:]]
    top = Path(__file__).resolve().parent.parent
    tree, obj, am = work / "linux", work / "obj", work / "am"
    lab_tree, lab_obj = work / "lab/linux", work / "lab/kbuild-lab"
    pobj = work / "pristine-obj"
    out = work / "lint"
    cache = Path(os.environ.get("LINT_CACHE", work.parent / "series-check-cache")) / "cocci"
    out.mkdir(parents=True, exist_ok=True)

    per_patch = [touched(p) for p in patches]
    series_files = set().union(*per_patch)
    graft = next((i for i, p in enumerate(patches)
                  if re.search(r"^\+obj-.*watchpol/", p.read_text(errors="replace"), re.M)), None)
    watchpol = sorted(str(p.relative_to(tree)) for p in (tree / "security/watchpol").glob("*.[ch]"))
    checked = sorted(f for f in series_files if not f.startswith(SKIP)) + watchpol
    all_files = series_files | set(watchpol)
    cfiles = [f for f in checked if f.endswith(".c") and (tree / f).is_file()]
    hfiles = [f for f in checked if f.endswith(".h") and (tree / f).is_file()]
    objs = [f[:-2] + ".o" for f in cfiles if (lab_obj / (f[:-2] + ".o")).is_file()]

    final, prist = Run(tree), Run(lab_tree)
    log(f"sparse and W=1: make C=2 W=1 of {len(objs)} objects, the whole series")
    final.build(obj, top, objs, out / "build-series.log", all_files)
    log(f"kernel-doc -Wall: {len(cfiles) + len(hfiles)} files")
    final.kerneldoc(cfiles + hfiles, out / "kernel-doc-series.log")
    log(f"coccinelle (coccicheck MODE=report): {len(cfiles)} files")
    hits = final.cocci(cfiles, cache, out / "cocci-series.log")
    log(f"  {hits} of {len(cfiles)} from the cache")

    in_pristine = restore_pristine(am, lab_tree, all_files)
    pobjs = [o for o in objs if o[:-2] + ".c" in in_pristine]
    if any(t in ("sparse", "W=1") for t, *_ in final.found) and pobjs:
        log(f"pristine 6.12 at the same .config: make C=2 W=1 of {len(pobjs)} objects")
        shutil.rmtree(pobj, ignore_errors=True)
        pobj.mkdir(parents=True)
        shutil.copy(obj / ".config", pobj / ".config")
        kmake(lab_tree, pobj, top, "olddefconfig")
        prist.build(pobj, top, pobjs, out / "build-pristine.log", all_files)
    kd = sorted({f for t, f, *_ in final.found if t == "kernel-doc" and f in in_pristine})
    prist.kerneldoc(kd, out / "kernel-doc-pristine.log")
    cf = sorted({f for t, f, *_ in final.found if t == "coccinelle" and f in in_pristine})
    prist.cocci(cf, cache, out / "cocci-pristine.log")
    repatch(tree, lab_tree, all_files)

    # New: the excess of each (tool, file, message) over pristine's count.
    base = Counter((t, f, norm(m)) for t, f, _, m in prist.found)
    groups = defaultdict(list)
    for t, f, lno, m in final.found:
        groups[(t, f, norm(m))].append((lno, m))
    # Attribution: git blame in the git am repository.
    commits = git(am, "rev-list", "--reverse", "pristine..HEAD").split()
    pristine_sha = git(am, "rev-parse", "pristine^{commit}").strip()
    paras = [changelog(p) for p in patches]

    def blame(f, lno):
        if f.startswith("security/watchpol/") and f not in series_files:
            return graft
        r = subprocess.run(["git", "-C", str(am), "blame", "--porcelain", "-L", f"{lno},{lno}",
                            "HEAD", "--", f], capture_output=True, text=True)
        if r.returncode != 0 or not r.stdout:
            return None
        sha = r.stdout.split()[0]
        if sha == pristine_sha or sha not in commits:
            return None
        return commits.index(sha)

    # The excess of a group: its findings on the series' lines when there
    # are enough of those, else all of them.
    new = []
    for (t, f, k), found in groups.items():
        excess = len(found) - base[(t, f, k)]
        if excess <= 0:
            continue
        found = [(t, f, m, lno, blame(f, lno)) for lno, m in found]
        mine = [n for n in found if n[4] is not None]
        new += mine if len(mine) >= excess else found

    bad = 0
    counts = defaultdict(Counter)
    for t, f, msg, lno, i in sorted(new, key=lambda n: (n[1], n[3], n[0])):
        if i is not None:
            ok = answered(paras[i], t, msg)
            who = patches[i].name
        else:
            # What changed it is elsewhere (a macro, the LSM count): any
            # patch may answer it.
            cands = [j for j, tf in enumerate(per_patch) if f in tf]
            ok = any(answered(p, t, msg) for p in paras)
            who = "a line pristine 6.12 has; patches touching it: " + ", ".join(
                patches[j].name[:4] for j in cands)
        counts[patches[i].name[:4] if i is not None else f][f"{t} {'answered' if ok else 'NEW'}"] += 1
        if not ok:
            bad += 1
            print(f"  NEW {t}: {f}:{lno}: {msg} ({who})")
        else:
            print(f"  answered {t}: {f}:{lno}: {msg} ({who})")
    for key in sorted(counts):
        print(f"  {key}: " + ", ".join(f"{v} {k}" for k, v in sorted(counts[key].items())))
    tools = Counter(t for t, *_ in new)
    print(f"  series: {len(final.found)} findings in its files, pristine {len(prist.found)}; "
          f"new {len(new)} ({', '.join(f'{k} {v}' for k, v in sorted(tools.items())) or 'none'}), "
          f"{len(new) - bad} answered in a changelog, {bad} not")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
