#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check results/latest/index.html in a real browser: make test's page part.

usage: page_check.py RESULTS_DIR

Debian's headless Chromium loads RESULTS_DIR/index.html from file:// (no
server, no network) three times and dumps the DOM its script left: the
whole grid, the grid filtered through the URL fragment, and the grid with a
cell's evidence opened (that run also keeps a screenshot, RESULTS_DIR/index.png).
The DOMs are parsed with Python's html.parser and checked against
RESULTS_DIR/matrix.json: every cell once and visible, a sample of cells by
content (chosen with a seed the output prints; PAGE_SEED=N repeats it),
exactly the cells the filter selects in matrix.json, and the evidence
panel's fields.  Prints KTAP on stdout; report.py reads it as the part
"page" (RESULTS_DIR/page.ktap).
"""

import hashlib
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path

import html_report

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--hide-scrollbars", "--mute-audio"]
WINDOW = (1600, 1000)
SAMPLE = 40
TIMEOUT = 120


def chromium(url, screenshot=None):
    """The DOM Chromium's headless mode leaves after loading URL (its
    script has run by then), and the screenshot to SCREENSHOT if given."""
    profile = tempfile.mkdtemp(prefix="watchlab-chromium-")
    args = [CHROMIUM] + FLAGS + [f"--user-data-dir={profile}",
                                 f"--window-size={WINDOW[0]},{WINDOW[1]}"]
    if screenshot:
        args.append(f"--screenshot={screenshot}")
    # Its crash database and caches go to the profile too, not to $HOME.
    env = dict(os.environ, XDG_CONFIG_HOME=profile, XDG_CACHE_HOME=profile)
    try:
        run = subprocess.run(args + ["--dump-dom", url], capture_output=True, text=True,
                             timeout=TIMEOUT, check=False, env=env)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    if run.returncode != 0 or "<html" not in run.stdout:
        raise RuntimeError(f"chromium exit {run.returncode}: "
                           + " | ".join(run.stderr.strip().splitlines()[-3:]))
    return run.stdout


class Dom(HTMLParser):
    """What the checks read of a dumped page: the body's data-*, every grid
    cell with where it stands and whether it shows, the column heads, and
    the evidence panel's fields."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.body, self.cells, self.cols, self.fields = {}, [], {}, {}
        self.panel = None
        self._stack = []         # (tag, attrs) of the open elements
        self._cell = self._field = None
        self.feed(text)
        self.close()

    VOID = {"meta", "link", "br", "input", "img", "hr", "col", "wbr"}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = {k[5:]: v for k, v in a.items() if k.startswith("data-")}
        if tag in self.VOID:
            return
        self._stack.append((tag, a))
        classes = (a.get("class") or "").split()
        if tag == "th" and "col" in classes and "data-c" in a:
            self.cols[a["data-c"]] = {"p": a.get("data-p"), "m": a.get("data-m"),
                                      "hidden": "hidden" in a}
        if "cell" in classes and "data-i" in a and self._in_grid():
            tr = self._nearest("tr")
            td = self._nearest("td")
            self._cell = {"i": a["data-i"], "o": a.get("data-o"), "text": "",
                          "row": tr.get("data-s") if tr else None,
                          "col": td.get("data-c") if td else None,
                          "threat": (self._nearest("tbody") or {}).get("data-threat"),
                          "self_hidden": "hidden" in a,
                          "hidden": any("hidden" in x for _, x in self._stack),
                          "depth": len(self._stack)}
            self.cells.append(self._cell)
        if a.get("id") == "panel":
            self.panel = {"hidden": "hidden" in a, "open": a.get("data-open")}
        if "data-k" in a and self._in("panel"):
            self._field = (a["data-k"], len(self._stack))
            self.fields[a["data-k"]] = ""

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        while self._stack:
            t, _ = self._stack.pop()
            if self._cell and len(self._stack) < self._cell["depth"]:
                self._cell = None
            if self._field and len(self._stack) < self._field[1]:
                self._field = None
            if t == tag:
                break

    def handle_data(self, data):
        if self._cell:
            self._cell["text"] += data
        if self._field:
            self.fields[self._field[0]] += data

    def _nearest(self, tag):
        for t, a in reversed(self._stack):
            if t == tag:
                return a
        return None

    def _in(self, ident):
        return any(a.get("id") == ident for _, a in self._stack)

    def _in_grid(self):
        return self._in("grid")

    def visible(self):
        """Indexes of the cells that show: neither the cell nor its row,
        group or column hidden."""
        return [int(c["i"]) for c in self.cells
                if not c["hidden"] and not (self.cols.get(c["col"]) or {}).get("hidden")]


def page_state(dom, diags):
    """The page's script ran to its end without an error."""
    ok = dom.body.get("state") == "ready" and "error" not in dom.body
    if not ok:
        diags.append(f"script state {dom.body.get('state')!r}, error {dom.body.get('error')!r}")
    return ok


def check_cells(dom, cells):
    """Every cell of matrix.json once in the grid, and every one showing."""
    diags = [f"{len(dom.cells)} cells in the page, {len(cells)} in matrix.json"]
    ok = page_state(dom, diags)
    seen = {}
    for c in dom.cells:
        seen[c["i"]] = seen.get(c["i"], 0) + 1
    missing = [i for i in range(len(cells)) if str(i) not in seen]
    twice = [i for i, n in seen.items() if n > 1]
    foreign = [i for i in seen if not i.isdigit() or int(i) >= len(cells)]
    hidden = sorted(set(range(len(cells))) - set(dom.visible()) - set(missing))
    diags += [f"missing: cell {i}, {describe(cells[i])}" for i in missing[:10]]
    diags += [f"twice: cell {i}" for i in twice[:10]]
    diags += [f"no cell of matrix.json: data-i={i}" for i in foreign[:10]]
    diags += [f"hidden with no filter: cell {i}, {describe(cells[i])}" for i in hidden[:10]]
    ok = ok and len(dom.cells) == len(cells) and not (missing or twice or foreign or hidden)
    return ok, diags


def describe(cell):
    return f"{cell['scenario']} under {cell['profile']}/{cell['model']}"


def check_sample(dom, cells, rng, n=SAMPLE):
    """N cells drawn with RNG: each in its row and column, of its class,
    showing its glyph and words."""
    where = {c["i"]: c for c in dom.cells}
    picks = sorted(rng.sample(range(len(cells)), min(n, len(cells))))
    diags, bad = [f"cells {', '.join(map(str, picks))}"], 0
    for i in picks:
        cell, got = cells[i], where.get(str(i))
        cls = html_report.outcome(cell)
        want_text = html_report.STYLE[cls][0] + html_report.short(cell, cls)
        col = dom.cols.get(got["col"]) if got else None
        threat = html_report.report.PROPERTY if cell["model"] == html_report.report.PROPERTY \
            else cell.get("threat")
        problems = [] if got else ["not in the page"]
        if got:
            if got["row"] != cell["scenario"]:
                problems.append(f"in row {got['row']}")
            if not col or (col["p"], col["m"]) != (cell["profile"], cell["model"]):
                problems.append(f"in column {col and col['p']}/{col and col['m']}")
            if got["o"] != cls:
                problems.append(f"class {got['o']}, want {cls}")
            if got["text"].strip() != want_text:
                problems.append(f"shows {got['text'].strip()!r}, want {want_text!r}")
            if got["threat"] != threat:
                problems.append(f"in group {got['threat']}, want {threat}")
        if problems:
            bad += 1
            diags.append(f"cell {i} ({describe(cell)}): {'; '.join(problems)}")
    return not bad, diags


def check_filter(dom, cells, fragment):
    """Under FRAGMENT's filter the page shows exactly the cells of
    matrix.json the filter selects, and says how many."""
    filt = html_report.parse_fragment(fragment)
    want = {i for i, c in enumerate(cells)
            if html_report.matches(c, html_report.outcome(c), filt)}
    got = set(dom.visible())
    diags = [f"#{fragment}: {len(got)} cells show, matrix.json has {len(want)}; "
             f"the page says {dom.body.get('visible')}"]
    ok = page_state(dom, diags) and got == want and dom.body.get("visible") == str(len(want))
    diags += [f"shows, not selected: cell {i}, {describe(cells[i])}"
              for i in sorted(got - want)[:10]]
    diags += [f"selected, not shown: cell {i}, {describe(cells[i])}"
              for i in sorted(want - got)[:10]]
    return ok, diags


def check_panel(dom, cells, i):
    """Cell I's evidence panel is open and names the cell's own facts."""
    cell = cells[i]
    diags = [f"cell {i}: {describe(cell)}"]
    ok = page_state(dom, diags)
    if not dom.panel or dom.panel["hidden"] or dom.panel["open"] != str(i):
        return False, diags + [f"panel {dom.panel}: not open on cell {i}"]
    f = dom.fields
    want = {
        "title": f"{cell['scenario']} under {cell['profile']}/{cell['model']}",
        "outcome": html_report.outcome(cell),
        "expected": cell["expected"],
        "observed": html_report.report.cell_text(cell),
    }
    if cell["observed"] == "blocked":
        want["evidence"] = cell.get("evidence", "")
    if cell.get("refuser"):
        want["refuser"] = cell["refuser"]
    if cell.get("at"):
        want["at"] = cell["at"]
    for k, v in want.items():
        if v not in f.get(k, ""):
            ok = False
            diags.append(f"panel {k}: {f.get(k)!r} does not say {v!r}")
    line = f"MATRIX scenario={cell['scenario']} model={cell['model']} "
    if line not in f.get("console", ""):
        ok = False
        diags.append(f"panel console: no line '{line.strip()}': {f.get('console', '')[:200]!r}")
    return ok, diags


def check_digest(page, raw):
    """PAGE was made from this matrix.json (RAW): it names its sha256."""
    text = page.read_text(errors="replace") if page.exists() else ""
    digest = hashlib.sha256(raw).hexdigest()
    return (f'<meta name=matrix-sha256 content="{digest}">' in text,
            [f"{page.name}: {len(text)} bytes, matrix.json sha256 {digest[:12]}"
             + ("" if text else ": no page")])


def png_size(path):
    data = Path(path).read_bytes()[:24]
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", data[16:24])


def pick_filter(cells, rng):
    """A fragment that filters on all four dimensions and selects at least
    one cell: one cell's threat, profile, model and class, each with a
    second value beside it where there is one."""
    if not cells:
        return "outcome=LEAK"
    c = cells[rng.randrange(len(cells))]
    parts = []
    for dim in ("threat", "profile", "model", "outcome"):
        mine = html_report.outcome(c) if dim == "outcome" else c.get(dim, "")
        pool = sorted({html_report.outcome(x) if dim == "outcome" else x.get(dim, "")
                       for x in cells} - {mine})
        vals = [mine] + ([rng.choice(pool)] if pool and rng.random() < 0.5 else [])
        parts.append(f"{dim}={','.join(vals)}")
    return "&".join(parts)


def pick_panel(cells, rng):
    """A cell to open: a blocked one with a scenario file when there is one."""
    pool = [i for i, c in enumerate(cells) if c["observed"] == "blocked" and c.get("at")] \
        or list(range(len(cells)))
    return rng.choice(pool) if pool else None


def checks(results, seed, screenshot=True):
    """The page's checks: [(name, ok, diags)]."""
    page = results / "index.html"
    raw = (results / "matrix.json").read_bytes()
    cells = json.loads(raw)
    rng = random.Random(seed)
    url = page.resolve().as_uri()
    tests = []
    tests.append(("page_of_this_matrix",) + check_digest(page, raw))
    if not page.exists():
        return tests
    started = time.monotonic()
    try:
        whole = Dom(chromium(url))
        tests.append(("cell_count",) + check_cells(whole, cells))
        tests.append(("cells_by_content",) + check_sample(whole, cells, rng))
        fragment = pick_filter(cells, rng)
        tests.append(("fragment_filter",) + check_filter(Dom(chromium(f"{url}#{fragment}")),
                                                         cells, fragment))
        i = pick_panel(cells, rng)
        png = results / "index.png"
        if i is not None:
            tests.append(("evidence_panel",) + check_panel(
                Dom(chromium(f"{url}#open={i}", png if screenshot else None)), cells, i))
        elif screenshot:
            chromium(url, png)
        if screenshot:
            size = png_size(png) if png.exists() else None
            tests.append(("screenshot", size == WINDOW,
                          [f"{png.name}: {size and f'{size[0]}x{size[1]}'}, "
                           f"{png.stat().st_size if png.exists() else 0} bytes"]))
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
        tests.append(("chromium", False, [str(e)]))
    for name, _, diags in tests:
        if name in ("cells_by_content", "fragment_filter", "evidence_panel"):
            diags.append(f"seed {seed} (PAGE_SEED={seed} repeats it)")
    tests[0][2].append(f"chromium: {time.monotonic() - started:.1f} s for the page's loads")
    return tests


def ktap(tests, name="page"):
    lines = ["KTAP version 1", "1..1", "    KTAP version 1", f"    # Subtest: {name}",
             f"    1..{len(tests)}"]
    for n, (test, ok, diags) in enumerate(tests, 1):
        lines += [f"    # {d}" for d in diags]
        lines.append(f"    {'ok' if ok else 'not ok'} {n} {test}")
    lines.append(f"{'ok' if tests and all(t[1] for t in tests) else 'not ok'} 1 {name}")
    return "\n".join(lines)


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    results = Path(argv[1])
    seed = int(os.environ.get("PAGE_SEED") or random.SystemRandom().randrange(1 << 32))
    try:
        tests = checks(results, seed)
    except (OSError, ValueError) as e:
        tests = [("page_of_this_matrix", False, [f"{results}: {e}"])]
    print(ktap(tests))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
