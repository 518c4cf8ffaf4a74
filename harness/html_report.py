#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The matrix as one static page: RESULTS_DIR/index.html.

usage: html_report.py RESULTS_DIR

Reads what harness/report.py wrote (matrix.json, comparison.md) and what
the boots left (console-PROFILE.log: each cell's console lines, the BENCH
figures), and the scenario files of this tree (each cell's source block),
and writes one page that needs nothing else: its CSS, its script and its
data are inline, it fetches nothing and opens from file://.

The page shows every cell of matrix.json in a grid, rows grouped by threat
(the kernel properties last), columns profile x model, the mainline columns
marked; each outcome has a colour of the Okabe-Ito palette and a glyph and a
word of its own, so no reader needs the colour.  Filters by threat,
profile, model and outcome are set with the page's boxes or in the URL
fragment (index.html#outcome=LEAK&model=strict: comma-separated values; a
dimension not named is not filtered; open=N opens cell N's evidence, N its
index in matrix.json).  Clicking a cell opens its evidence.  The brought
LSM's comparison and the run's BENCH figures stand beside the grid.
harness/page_check.py loads the page in Chromium and checks it against
matrix.json.
"""

import hashlib
import html
import json
import re
import subprocess
import sys
from pathlib import Path

import report

# Each outcome's class, as the page and harness/page_check.py name it: the
# four a cell that passed may observe, then how matrix.md marks a failure.
PASSING = ("delivered", "blocked", "not-posted", "not-available")
FAILING = ("LEAK", "OVER-BLOCK", "WRONG", "WRONG-REFUSER", "ROW-FAILED", "NO-EVIDENCE", "ERROR")
OUTCOME_CLASSES = PASSING + FAILING

# class: (glyph, short word in the cell, background, text colour, meaning).
# Okabe-Ito's eight colours (Okabe and Ito, "Color Universal Design", 2008);
# the text colour is the one of black and white that contrasts most.
STYLE = {
    "delivered": ("●", "dlv", "#009E73", "#000", "the record arrived before the watcher's fence"),
    "blocked": ("■", None, "#0072B2", "#fff",
                "stopped: STEP·WHO, W the watch, P the post, R a read; wp watchpol, "
                "se SELinux, sm Smack, k the kernel's own check"),
    "not-posted": ("○", "np", "#56B4E9", "#000",
                   "no post of the event reached the LSM hook for the watch"),
    "not-available": ("–", "n/a", "#FFFFFF", "#000",
                      "mainline has no such event (mainline columns only)"),
    "LEAK": ("✖", "LEAK", "#D55E00", "#000", "delivered where the row says it must not be"),
    "OVER-BLOCK": ("▲", "OVER", "#E69F00", "#000", "not delivered where the row expects delivered"),
    "WRONG": ("◆", "WRONG", "#CC79A7", "#000",
              "blocked where not-posted was expected, or the reverse"),
    "WRONG-REFUSER": ("★", "WHO", "#F0E442", "#000",
                      "blocked at another step or by another LSM than the row says"),
    "ROW-FAILED": ("⚑", None, "#F2D7E6", "#000",
                   "observed what the row expects, but the runner failed the row: "
                   "MISATT(RIBUTED), SHADOW (MISMATCH) or ROW (FAILED)"),
    "NO-EVIDENCE": ("?", "NO-EV", "#999999", "#000", "blocked with no record of who refused it"),
    "ERROR": ("!", "ERR", "#000000", "#fff", "the scenario could not run as written"),
}
WHO = {"watchpol": "wp", "selinux": "se", "smack": "sm", "kernel": "k"}
STEP = {"watch": "W", "post": "P", "read": "R"}
# What marks a decision or audit record among a cell's console lines.
RECORD = re.compile(r"watchpol log:|\baudit[:(]|\bavc: |\bSMACK\[|MISATTRIBUTED|SHADOW MISMATCH")
RESULT_LINE = re.compile(r"^( *)(ok|not ok) \d+ (\S+)")
SUBTEST = re.compile(r"^( *)# Subtest: (\S+)")
EXCERPT_BEFORE = 30
EXCERPT_AFTER = 60
EXCERPT_CHARS = 6000
SOURCE_LINES = 60


def plural(n, one, many=None):
    return one if n == 1 else (many or one + "s")


def outcome(cell):
    """A cell's class: what it observed when it passed, else its failure
    as matrix.md marks it (report.matrix_markdown)."""
    if cell.get("pass") and not report.unevidenced(cell) and cell["observed"] in report.OUTCOMES:
        return cell["observed"]
    if cell["observed"] not in report.OUTCOMES:
        return "ERROR"
    if report.unevidenced(cell):
        return "NO-EVIDENCE"
    if cell.get("wrong_refuser"):
        return "WRONG-REFUSER"
    if cell.get("row_failed") and cell["expected"] == cell["observed"]:
        return "ROW-FAILED"
    if cell["observed"] == "delivered":
        return "LEAK"
    if cell["expected"] == "delivered":
        return "OVER-BLOCK"
    return "WRONG"


def short(cell, cls):
    """The few characters a grid cell shows after its glyph."""
    word = STYLE[cls][1]
    if cls == "ROW-FAILED":
        reason = cell.get("row_failed", "")
        return {"MISATTRIBUTED": "MISATT", "SHADOW MISMATCH": "SHADOW"}.get(reason, "ROW")
    if cls != "blocked":
        return word
    step, _, who = cell.get("evidence", "").partition(":")
    both = cell.get("refuser", "").partition("+")[2]
    text = f"{STEP.get(step, step[:1].upper())}·{WHO.get(who, who[:3])}"
    return text + (f"+{WHO.get(both, both[:3])}" if both else "")


def normalise(values, dimension):
    """A fragment's or box's values as the page compares them: outcome
    names in any case, WRONG REFUSER with a space or a dash; pass and fail
    stand for their classes."""
    if dimension != "outcome":
        return set(values)
    out = set()
    for v in values:
        v = v.strip().replace(" ", "-").replace("_", "-")
        low = v.lower()
        if low == "pass":
            out.update(PASSING)
        elif low == "fail":
            out.update(FAILING)
        else:
            hits = [c for c in OUTCOME_CLASSES if c.lower() == low]
            out.update(hits or [v])
    return out


def parse_fragment(fragment):
    """{dimension: set of values} of a fragment "threat=a,b&outcome=LEAK"."""
    filt = {}
    for part in fragment.lstrip("#").split("&"):
        key, _, value = part.partition("=")
        if key in ("threat", "profile", "model", "outcome") and value:
            filt[key] = normalise([v for v in value.split(",") if v], key)
    return filt


def matches(cell, cls, filt):
    """Whether a cell shows under a filter; the page's script decides the same."""
    return all(cell.get(k, "") in vals if k != "outcome" else cls in vals
               for k, vals in filt.items())


def columns(cells):
    """The grid's columns, in matrix.md's order: by profile, then the
    models, then the check columns and the kernel properties."""
    extra = list(report.CHECK_COLUMNS) + [report.PROPERTY]
    order = report.MODEL_ORDER + extra
    return sorted({(c["profile"], c["model"]) for c in cells},
                  key=lambda pm: (report.rank(report.PROFILE_ORDER, pm[0]), pm[0],
                                  report.rank(order, pm[1]), pm[1]))


def groups(cells):
    """The grid's row groups: each threat in SECURITY.md's order (rows where
    the configurations differ first, as in matrix.md), then the kernel
    properties; a group is (key, title, [row], rows that differ)."""
    rows, threat_of, outs, props = [], {}, {}, []
    for c in cells:
        s = c["scenario"]
        if c["model"] == report.PROPERTY:
            if s not in props:
                props.append(s)
            continue
        if s not in threat_of:
            rows.append(s)
            threat_of[s] = c.get("threat", "unsorted")
        if c["model"] not in report.CHECK_COLUMNS:
            outs.setdefault(s, set()).add(report.cell_text(c) + ("" if c.get("pass") else "!"))
    props = [s for s in props if s not in threat_of]
    out = []
    threats = sorted(set(threat_of.values()),
                     key=lambda t: (report.rank(report.THREAT_ORDER, t), t))
    for t in threats:
        mine = [s for s in rows if threat_of[s] == t]
        differ = [s for s in mine if len(outs.get(s, ())) > 1]
        out.append((t, report.THREATS.get(t, t), differ + [s for s in mine if s not in differ],
                    len(differ)))
    if props:
        out.append((report.PROPERTY, "Kernel properties: decided by the kernel before any "
                    "LSM hook, once per boot under closed (XFAIL)", props, 0))
    return out


def console_evidence(results, cells):
    """Each cell's console lines (from the lines before its MATRIX line to
    its KTAP result), its KTAP test (BOOT.SUITE.ROW, ok or not ok) and the
    decision and audit records among those lines, read from
    console-PROFILE.log: the k-th cell of a scenario and model in
    matrix.json is the k-th MATRIX line of that scenario and model in the
    profile's log, since report.py reads the cells in the log's order."""
    out = [None] * len(cells)
    by_profile = {}
    for i, c in enumerate(cells):
        by_profile.setdefault(c["profile"], []).append(i)
    for profile, idxs in by_profile.items():
        log = results / f"console-{profile}.log"
        if not log.exists():
            continue
        lines = [line.rstrip("\r") for line in report.rejoin_interrupted(
            log.read_text(errors="replace").splitlines())]
        found, subtests = {}, {}
        for n, line in enumerate(lines):
            m = SUBTEST.match(line)
            if m:
                subtests[len(m.group(1))] = m.group(2)
                continue
            m = report.MATRIX.search(line)
            if m:
                found.setdefault((m.group(1), m.group(2)), []).append((n, dict(subtests)))
        seen = {}
        for i in idxs:
            key = (cells[i]["scenario"], cells[i]["model"])
            k = seen[key] = seen.get(key, -1) + 1
            if k < len(found.get(key, ())):
                n, subs = found[key][k]
                out[i] = excerpt(lines, n, subs, profile, log.name)
    return out


def excerpt(lines, n, subtests, boot, logname):
    first = n
    while first > 0 and n - first < EXCERPT_BEFORE:
        prev = report.TIMESTAMP.sub("", lines[first - 1])
        if RESULT_LINE.match(prev) or SUBTEST.match(prev) or report.PLAN.match(prev) \
                or report.KTAP_VERSION.match(prev):
            break
        first -= 1
    last, ktap = n, None
    while last + 1 < len(lines) and last - n < EXCERPT_AFTER:
        last += 1
        m = RESULT_LINE.match(report.TIMESTAMP.sub("", lines[last]))
        if m:
            suite = subtests.get(len(m.group(1)))
            ktap = {"path": ".".join(p for p in (boot, suite, m.group(3)) if p),
                    "ok": m.group(2) == "ok"}
            break
    text = [t if len(t) <= 400 else t[:400] + " [...]" for t in lines[first:last + 1]]
    if sum(len(t) + 1 for t in text) > EXCERPT_CHARS and len(text) > 20:
        text = text[:8] + [f"[... {len(text) - 16} lines: see {logname}]"] + text[-8:]
    return {"log": logname, "lines": text, "ktap": ktap,
            "records": [t for t in text if RECORD.search(t)]}


def scenario_sources(cells, top=None):
    """Each cell's scenario block, from its file and line (at) to its end."""
    top = top or report.TOP
    out = {}
    for c in cells:
        at = c.get("at")
        if not at or at in out:
            continue
        path, _, line = at.rpartition(":")
        try:
            text = (top / path).read_text(errors="replace").splitlines()
            first = int(line)
        except (OSError, ValueError):
            out[at] = None
            continue
        block = []
        for t in text[first - 1:first - 1 + SOURCE_LINES]:
            block.append(t)
            if t.split("#", 1)[0].split() == ["end"]:
                break
        out[at] = {"path": path, "line": first, "text": block}
    return out


BENCH = re.compile(r"# BENCH (setwatch )?(profile=\S+.*)$")


def bench_figures(results):
    """The BENCH lines the boots' suite_watchpol_bench printed, as
    (boot, setwatch, {key: value})."""
    out = []
    for log in sorted(results.glob("console-*.log")):
        boot = log.name[len("console-"):-len(".log")]
        for line in log.read_text(errors="replace").splitlines():
            m = BENCH.search(line.rstrip("\r"))
            if m:
                fields = dict(w.split("=", 1) for w in m.group(2).split() if "=" in w)
                out.append((boot, bool(m.group(1)), fields))
    return out


def inline_markdown(text):
    """**bold**, `code` and [text](link) of one line of report.py's Markdown;
    a link into the tree is made relative to results/latest/."""
    out = html.escape(text, quote=False)
    out = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", out)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)

    def link(m):
        href = m.group(2)
        if not re.match(r"[a-z]+:", href):
            href = "../../" + href
        return f'<a href="{html.escape(href)}">{m.group(1)}</a>'
    return re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", link, out)


def markdown(text):
    """The Markdown report.py writes (paragraphs and pipe tables) as HTML."""
    out, table = [], None
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if all(re.fullmatch(r"-+", c) for c in cells):
                continue
            if table is None:
                table = ["<table class=md><thead><tr>" + "".join(
                    f"<th>{inline_markdown(c)}</th>" for c in cells) + "</tr></thead><tbody>"]
            else:
                table.append("<tr>" + "".join(f"<td>{inline_markdown(c)}</td>" for c in cells)
                             + "</tr>")
            continue
        if table is not None:
            out.append("".join(table) + "</tbody></table>")
            table = None
        if line.strip():
            out.append(f"<p>{inline_markdown(line)}</p>")
    return "\n".join(out)


def bench_html(results):
    figures = bench_figures(results)
    out = []
    post = [(b, f) for b, sw, f in figures if not sw]
    watch = [(b, f) for b, sw, f in figures if sw]
    if post:
        out.append("<p>Posting a key notification, per event per queue, from each boot's "
                   "<code>suite_watchpol_bench</code> (TCG wall clock unless the line says "
                   "icount: figures, not verdicts; <code>make bench</code> compares them "
                   "properly). q1: 1 queue, q8: 8 queues (p25–p75), n8: q8 in units of "
                   "the boot's getppid(). A -debug boot runs the KASAN and lockdep kernel: "
                   "its figures compare with nothing.</p>")
        out.append("<table class=bench><thead><tr><th>boot</th><th>config</th><th>q1 ns</th>"
                   "<th>q8 ns</th><th>n8</th></tr></thead><tbody>")
        for boot, f in post:
            out.append("<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in (
                boot, f.get("config", "?"), f.get("q1", ""),
                f"{f.get('q8', '')} ({f.get('q8_p25', '')}–{f.get('q8_p75', '')})",
                f.get("n8", ""))) + "</tr>")
        out.append("</tbody></table>")
    if watch:
        out.append("<p>Setting and removing a watch, ns per pair:</p>")
        out.append("<table class=bench><thead><tr><th>boot</th><th>config</th><th>key</th>"
                   "<th>mount</th><th>sb</th><th>devices</th></tr></thead><tbody>")
        for boot, f in watch:
            out.append("<tr>" + "".join(f"<td>{html.escape(f.get(k, '') if k else boot)}</td>"
                                        for k in (None, "config", "key", "mount", "sb",
                                                  "devices")) + "</tr>")
        out.append("</tbody></table>")
    table = results.parent / "bench" / "table.txt"
    if table.exists():
        out.append(f"<details><summary><code>make bench</code>'s last table "
                   f"(results/bench/table.txt: another run than this one)</summary>"
                   f"<pre>{html.escape(table.read_text(errors='replace'))}</pre></details>")
    if not out:
        out.append("<p>No BENCH line in this run's console logs.</p>")
    return "\n".join(out)


def legend_html(counts):
    items = []
    for cls in OUTCOME_CLASSES:
        glyph, word, bg, fg, meaning = STYLE[cls]
        word = word or {"blocked": "W·wp", "ROW-FAILED": "MISATT"}[cls]
        items.append(
            f'<li><span class="cell o-{cls}" aria-hidden=true><b>{glyph}</b>{html.escape(word)}'
            f'</span> <strong>{cls}</strong> <span class=n>({counts.get(cls, 0)})</span>: '
            f"{html.escape(meaning)}</li>")
    return "<ul class=legend>" + "".join(items) + "</ul>"


def grid_html(cells, classes, cols, grps):
    at_of = {}
    slots = {}
    for i, c in enumerate(cells):
        slots.setdefault((c["scenario"], c["profile"], c["model"]), []).append(i)
        if c.get("at"):
            at_of.setdefault(c["scenario"], c["at"])
    head1 = ['<tr><th class="corner" rowspan=2 scope=col>scenario</th>']
    profiles = []
    for p, _ in cols:
        if profiles and profiles[-1][0] == p:
            profiles[-1][1] += 1
        else:
            profiles.append([p, 1])
    for p, n in profiles:
        head1.append(f'<th class=prof colspan={n} data-p="{html.escape(p)}" scope=colgroup>'
                     f"{html.escape(p)}</th>")
    head2 = ["<tr>"]
    for k, (p, m) in enumerate(cols):
        kinds = []
        if m in report.MAINLINE:
            kinds.append("mainline")
        if (p, m) in report.NATIVE:
            kinds.append("native")
        if m in report.CHECK_COLUMNS or m == report.PROPERTY:
            kinds.append("check")
        mark = {"mainline": " <i class=ml>ML</i>", "native": " <i class=nat>N</i>"}
        head2.append(f'<th class="col {" ".join(kinds)}" data-c={k} data-p="{html.escape(p)}" '
                     f'data-m="{html.escape(m)}" scope=col title="{html.escape(p)}/{html.escape(m)}'
                     f'{html.escape(report.NATIVE.get((p, m), ""))}'
                     f'{" (mainline mechanisms)" if m in report.MAINLINE else ""}"><span>'
                     f'{html.escape(m)}{"".join(mark.get(x, "") for x in kinds)}</span></th>')
    out = ["<table id=grid><thead>", "".join(head1) + "</tr>", "".join(head2) + "</tr></thead>"]
    for key, title, rows, differ in grps:
        out.append(f'<tbody class=group data-threat="{html.escape(key)}">'
                   f'<tr class=gh><th colspan={len(cols) + 1} scope=rowgroup>'
                   f"{html.escape(title)} <span class=n>({len(rows)} {plural(len(rows), 'row')}"
                   f"{f', {differ} where the configurations differ' if differ else ''})"
                   f"</span> <span class=shown data-rows={len(rows)}></span></th></tr>")
        for s in rows:
            at = at_of.get(s)
            name = html.escape(s)
            label = (f'<a href="../../{html.escape(at.replace(":", "#L"))}">{name}</a>'
                     if at else name)
            tds = []
            for k, (p, m) in enumerate(cols):
                inner = []
                for i in slots.get((s, p, m), ()):
                    c, cls = cells[i], classes[i]
                    glyph = STYLE[cls][0]
                    title = f"{s} under {p}/{m}: {report.cell_text(c)}" + (
                        "" if c.get("pass") else f" (expected {c['expected']})")
                    inner.append(
                        f'<button type=button class="cell o-{cls}" data-i={i} data-o="{cls}" '
                        f'title="{html.escape(title)}"><b>{glyph}</b>'
                        f'{html.escape(short(c, cls))}</button>')
                cls_td = " class=mlc" if m in report.MAINLINE else ""
                tds.append(f"<td data-c={k}{cls_td}>{''.join(inner)}</td>")
            out.append(f'<tr data-s="{name}"><th class=rowh scope=row>{label}</th>'
                       + "".join(tds) + "</tr>")
        out.append("</tbody>")
    out.append("</table>")
    return "\n".join(out)


def filters_html(cells, classes, cols):
    order = report.MODEL_ORDER + list(report.CHECK_COLUMNS) + [report.PROPERTY]
    dims = [
        ("threat", sorted({c.get("threat", "") for c in cells},
                          key=lambda t: (report.rank(report.THREAT_ORDER, t), t)),
         lambda t: report.THREATS.get(t, t)),
        ("profile", list(dict.fromkeys(p for p, _ in cols)), None),
        ("model", sorted({m for _, m in cols}, key=lambda m: (report.rank(order, m), m)), None),
        ("outcome", list(OUTCOME_CLASSES), None),
    ]
    out = ["<form id=filters onsubmit='return false'>"]
    for dim, values, title in dims:
        count = {}
        for c, cls in zip(cells, classes):
            v = cls if dim == "outcome" else c.get(dim, "")
            count[v] = count.get(v, 0) + 1
        boxes = "".join(
            f'<label title="{html.escape(title(v) if title else v)}"><input type=checkbox '
            f'name={dim} value="{html.escape(v)}"> {html.escape(v)} '
            f'<span class=n>{count.get(v, 0)}</span></label>' for v in values)
        out.append(f"<fieldset><legend>{dim}</legend>{boxes}</fieldset>")
    out.append("<p class=status><button type=button id=clear>show all</button> "
               "<output id=count aria-live=polite></output></p></form>")
    return "\n".join(out)


def page(results, top=None):
    """index.html's text for the results folder RESULTS."""
    raw = (results / "matrix.json").read_bytes()
    cells = json.loads(raw)
    classes = [outcome(c) for c in cells]
    cols = columns(cells)
    grps = groups(cells)
    counts = {}
    for cls in classes:
        counts[cls] = counts.get(cls, 0) + 1
    comparison = results / "comparison.md"
    commit = subprocess.run(["git", "-C", str(top or report.TOP), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    data = {
        "cells": cells,
        "classes": classes,
        "texts": [report.cell_text(c) for c in cells],
        "console": console_evidence(results, cells),
        "sources": scenario_sources(cells, top),
        "threats": dict(report.THREATS, **{report.PROPERTY: "Kernel property"}),
        "mainline": list(report.MAINLINE),
        "native": {f"{p}/{m}": t.strip(" ()") for (p, m), t in report.NATIVE.items()},
        "styles": {k: [v[0], v[4]] for k, v in STYLE.items()},
        "failing": list(FAILING),
        "passing": list(PASSING),
    }
    blob = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    fails = sum(counts.get(f, 0) for f in FAILING)
    css = "".join(
        f".o-{k}{{background:{v[2]};color:{v[3]}}}" for k, v in STYLE.items())
    # Room for the longest column head, written upwards (7 px a character
    # at 13 px, and the ML or N mark).
    longest = max((len(m) for _, m in cols), default=8)
    css += f"#grid th.col{{height:{max(60, 8 * longest + 30)}px}}"
    return TEMPLATE.format(
        css=CSS + css,
        script=SCRIPT,
        data=blob,
        digest=hashlib.sha256(raw).hexdigest(),
        commit=html.escape(commit),
        ncells=len(cells),
        verdict=(f"<strong class=bad>{fails} {plural(fails, 'cell differs', 'cells differ')} "
                 "from their rows</strong>" if fails else "every cell as its row expects"),
        legend=legend_html(counts),
        filters=filters_html(cells, classes, cols),
        grid=grid_html(cells, classes, cols, grps) if cells else
        "<p>No scenario produced a matrix cell.</p>",
        comparison=markdown(comparison.read_text()) if comparison.exists() else
        "<p>No comparison in this run (comparison.md: the brought LSM's boot).</p>",
        bench=bench_html(results),
        mainline=", ".join(f"<code>*/{html.escape(m)}</code>" for m in report.MAINLINE) or "none",
    )


def write(results, top=None):
    """Write RESULTS/index.html (whole, or not at all)."""
    text = page(results, top)
    tmp = results / "index.html.tmp"
    tmp.write_text(text)
    tmp.replace(results / "index.html")
    return results / "index.html"


CSS = """
:root{font-family:"DejaVu Sans",Verdana,sans-serif;font-size:13px;color:#111;background:#fafafa}
body{margin:0}
header{padding:8px 14px;background:#fff;border-bottom:1px solid #ccc}
h1{font-size:18px;margin:0 0 4px}
h2{font-size:15px;margin:12px 0 6px}
.meta{margin:0;color:#333}
.bad{color:#a33c00}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;list-style:none;padding:0;margin:6px 0 0}
.legend li{max-width:330px}
.n,.shown{color:#555;font-weight:normal}
.layout{display:grid;grid-template-columns:minmax(0,1fr) 440px;gap:12px;padding:8px 14px}
@media (max-width:1100px){.layout{grid-template-columns:1fr}}
#filters{display:flex;flex-wrap:wrap;gap:6px;align-items:flex-start;margin-bottom:6px}
#filters fieldset{border:1px solid #bbb;border-radius:4px;padding:2px 6px;margin:0;background:#fff}
#filters legend{font-weight:bold;padding:0 3px}
#filters label{white-space:nowrap;margin-right:6px;display:inline-block}
.status{margin:4px 0;width:100%}
#count{font-weight:bold;margin-left:8px}
.wrap{overflow:auto;max-height:calc(100vh - 40px);border:1px solid #bbb;background:#fff}
#grid{border-collapse:separate;border-spacing:0}
#grid th,#grid td{border-right:1px solid #e2e2e2;border-bottom:1px solid #e2e2e2;padding:1px}
#grid thead th{position:sticky;background:#f0f0f0;z-index:2}
#grid thead tr:first-child th{top:0;height:18px}
#grid thead tr:nth-child(2) th{top:21px}
#grid th.corner{left:0;z-index:4;min-width:250px;text-align:left;vertical-align:bottom}
#grid th.prof{text-align:center;border-left:2px solid #666}
#grid th.col{writing-mode:vertical-rl;transform:rotate(180deg);text-align:left;height:110px;
 font-weight:normal;white-space:nowrap;padding:3px 1px}
#grid th.col.mainline{background:repeating-linear-gradient(45deg,#f0f0f0 0 4px,#d6d6d6 4px 8px);
 font-weight:bold}
#grid th.col.check{font-style:italic;color:#444}
#grid td.mlc{background:#f3f3f3;border-left:2px dashed #777}
i.ml,i.nat{font-style:normal;font-size:10px;border:1px solid #444;border-radius:3px;padding:0 1px}
#grid th.rowh{position:sticky;left:0;background:#fff;text-align:left;font-weight:normal;
 white-space:nowrap;z-index:1;max-width:330px;overflow:hidden;text-overflow:ellipsis}
#grid tr.gh th{text-align:left;background:#e8e8e8;position:sticky;left:0;padding:4px;
 font-weight:bold}
#grid tr:hover th.rowh{background:#eef}
.cell{display:inline-block;border:1px solid rgba(0,0,0,.35);border-radius:3px;margin:0;
 padding:0 2px;font:11px "DejaVu Sans Mono",monospace;min-width:44px;text-align:left;
 cursor:pointer;line-height:15px;white-space:nowrap}
.cell b{margin-right:2px}
button.cell:focus{outline:3px solid #000;outline-offset:1px}
.cell.sel{outline:3px solid #000;outline-offset:1px}
.o-LEAK,.o-OVER-BLOCK,.o-WRONG,.o-WRONG-REFUSER,.o-ROW-FAILED,.o-NO-EVIDENCE,.o-ERROR{
 font-weight:bold;border:2px solid #000}
.cell.o-ROW-FAILED{background:#F2D7E6;border-style:dashed}
.o-not-available{border-style:dashed}
[hidden]{display:none!important}
aside section{background:#fff;border:1px solid #bbb;border-radius:4px;padding:6px 10px;
 margin-bottom:10px}
#panel{position:sticky;top:0;max-height:calc(100vh - 20px);overflow:auto;
 border:2px solid #0072B2}
#panel dl{display:grid;grid-template-columns:110px 1fr;gap:2px 8px;margin:4px 0}
#panel dt{font-weight:bold}
#panel dd{margin:0;overflow-wrap:anywhere}
#panel pre,details pre{font:11px "DejaVu Sans Mono",monospace;background:#f4f4f4;padding:4px;
 overflow:auto;max-height:260px;white-space:pre-wrap;overflow-wrap:anywhere}
details pre{white-space:pre;overflow-wrap:normal}
#panel .hl{background:#F0E442}
#panel .close{float:right}
table.md,table.bench{border-collapse:collapse;font-size:12px;margin:4px 0}
table.md td,table.md th,table.bench td,table.bench th{border:1px solid #ccc;padding:1px 4px;
 text-align:left}
table.bench td{font-family:"DejaVu Sans Mono",monospace}
#nomatch{padding:8px;font-weight:bold}
"""

SCRIPT = r"""
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('data').textContent);
  var DIMS = ['threat', 'profile', 'model', 'outcome'];
  var body = document.body;
  var els = Array.prototype.slice.call(document.querySelectorAll('#grid .cell'));
  var form = document.getElementById('filters');

  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c];
    });
  }
  // The same rules as html_report.normalise() and parse_fragment().
  function norm(dim, values) {
    var out = Object.create(null);
    values.forEach(function (v) {
      if (dim !== 'outcome') { out[v] = true; return; }
      v = v.trim().replace(/[ _]/g, '-');
      var low = v.toLowerCase(), hit = false;
      if (low === 'pass') { D.passing.forEach(function (c) { out[c] = true; }); return; }
      if (low === 'fail') { D.failing.forEach(function (c) { out[c] = true; }); return; }
      D.passing.concat(D.failing).forEach(function (c) {
        if (c.toLowerCase() === low) { out[c] = true; hit = true; }
      });
      if (!hit) out[v] = true;
    });
    return out;
  }
  function parseHash() {
    var f = Object.create(null), open = null;
    location.hash.replace(/^#/, '').split('&').forEach(function (part) {
      var i = part.indexOf('='), k = i < 0 ? part : part.slice(0, i);
      var v = i < 0 ? '' : decodeURIComponent(part.slice(i + 1));
      if (DIMS.indexOf(k) >= 0 && v) f[k] = norm(k, v.split(',').filter(Boolean));
      if (k === 'open' && /^\d+$/.test(v)) open = +v;
    });
    return {filter: f, open: open};
  }
  function value(i, dim) {
    return dim === 'outcome' ? D.classes[i] : (D.cells[i][dim] || '');
  }
  function matches(i, f) {
    for (var k in f) if (!f[k][value(i, k)]) return false;
    return true;
  }
  function apply(f) {
    var n = 0, rowsOn = new Map(), colsOn = {}, active = Object.keys(f).length > 0;
    els.forEach(function (el) {
      var i = +el.dataset.i, on = matches(i, f), td = el.parentNode, tr = td.parentNode;
      el.hidden = !on;
      if (on) { n++; rowsOn.set(tr, true); colsOn[td.dataset.c] = true; }
      else if (!rowsOn.has(tr)) rowsOn.set(tr, false);
    });
    rowsOn.forEach(function (on, tr) { tr.hidden = !on; });
    document.querySelectorAll('#grid tbody.group').forEach(function (tb) {
      var shown = tb.querySelectorAll('tr[data-s]:not([hidden])').length;
      var span = tb.querySelector('.shown');
      tb.hidden = !shown;
      span.textContent = active ? shown + ' of ' + span.dataset.rows + ' shown' : '';
    });
    var per = {};
    document.querySelectorAll('#grid th.col').forEach(function (th) {
      var off = active && !colsOn[th.dataset.c];
      th.hidden = off;
      if (!off) per[th.dataset.p] = (per[th.dataset.p] || 0) + 1;
    });
    document.querySelectorAll('#grid td[data-c]').forEach(function (td) {
      td.hidden = active && !colsOn[td.dataset.c];
    });
    document.querySelectorAll('#grid th.prof').forEach(function (th) {
      th.hidden = !per[th.dataset.p];
      th.colSpan = per[th.dataset.p] || 1;
    });
    var visible = Object.keys(colsOn).length;
    document.querySelectorAll('#grid tr.gh th').forEach(function (th) { th.colSpan = visible + 1; });
    document.getElementById('nomatch').hidden = n > 0;
    document.querySelector('.wrap').hidden = n === 0 && els.length > 0;
    document.getElementById('count').textContent =
      n + ' of ' + D.cells.length + ' cells' + (active ? ' match the filter' : '');
    body.dataset.visible = n;
    body.dataset.filter = DIMS.filter(function (k) { return f[k]; }).map(function (k) {
      return k + '=' + Object.keys(f[k]).sort().join(',');
    }).join('&');
  }
  function syncBoxes(f) {
    form.querySelectorAll('input[type=checkbox]').forEach(function (b) {
      b.checked = !!(f[b.name] && f[b.name][b.value]);
    });
  }
  function fromBoxes() {
    var parts = [];
    DIMS.forEach(function (k) {
      var v = [];
      form.querySelectorAll('input[name=' + k + ']:checked').forEach(function (b) { v.push(b.value); });
      if (v.length) parts.push(k + '=' + v.map(encodeURIComponent).join(','));
    });
    var open = body.dataset.open;
    if (open) parts.push('open=' + open);
    return parts.join('&');
  }
  function setHash(h) {
    history.replaceState(null, '', h ? '#' + h : location.pathname + location.search);
  }

  function row(k, v, cls) {
    return '<dt>' + esc(k) + '</dt><dd' + (cls ? ' data-k="' + cls + '"' : '') + '>' + v + '</dd>';
  }
  function sayWhere(c) {
    var ev = c.evidence, p = String(ev || '').split(':'), step = p[0], who = p[1];
    if (!who) return esc(ev || 'none');
    var steps = {watch: 'setting the watch', post: 'the post', read: "reading the object's counter"};
    var whos = {kernel: "the kernel's own permission check (no LSM recorded a denial)"};
    var also = String(c.refuser || '').split('+')[1];
    return esc((whos[who] || who) + ', at ' + (steps[step] || step)) + ' <code>' + esc(ev) + '</code>' +
      (also && c.pass ? esc('; ' + also + ' refuses it too, as the row\'s native column shows') : '');
  }
  function openCell(i) {
    var panel = document.getElementById('panel'), c = D.cells[i];
    if (!c) return;
    document.querySelectorAll('#grid .cell.sel').forEach(function (e) { e.classList.remove('sel'); });
    var el = document.querySelector('#grid .cell[data-i="' + i + '"]');
    if (el) el.classList.add('sel');
    var cls = D.classes[i], st = D.styles[cls], con = D.console[i];
    var col = c.profile + '/' + c.model, tags = [];
    if (D.native[col]) tags.push(D.native[col] + ' column');
    if (D.mainline.indexOf(c.model) >= 0) tags.push("mainline's mechanisms, watchpol at none");
    var h = '<button type=button class=close id=close>close</button>';
    h += '<h2 data-k="title">' + esc(c.scenario) + ' under ' + esc(col) + '</h2>';
    if (tags.length) h += '<p>' + esc(tags.join('; ')) + '</p>';
    h += '<p><span class="cell o-' + cls + '"><b>' + esc(st[0]) + '</b>' + esc(cls) + '</span> ' +
      esc(st[1]) + '</p><dl>';
    h += row('outcome', esc(cls), 'outcome');
    h += row('expected', esc(c.expected) + (c.expected_where ? '<code>@' + esc(c.expected_where) +
      '</code> (the row names where)' : ''), 'expected');
    h += row('observed', esc(D.texts[i]), 'observed');
    h += row('refused by', c.observed === 'blocked' ? sayWhere(c) : '–', 'evidence');
    if (c.refuser) h += row('must refuse', esc(c.refuser) + (c.wrong_refuser ? ' <strong>WRONG REFUSER</strong>' :
      ' (row or rules; matches)'), 'refuser');
    h += row('threat', esc((D.threats[c.threat] || c.threat)), 'threat');
    if (c.row_failed) h += row('runner', '<strong>' + esc(c.row_failed) + '</strong>: the runner ' +
      'failed the row (its diagnostics are in the console lines below)', 'row_failed');
    if (c.shadow) h += row('shadow', esc(c.shadow) + ' (smackemu logged, Smack decided)', 'shadow');
    h += row('pass', c.pass ? 'yes' : '<strong>no</strong>', 'pass');
    if (con && con.ktap) h += row('KTAP test', esc((con.ktap.ok ? 'ok ' : 'not ok ') + con.ktap.path), 'ktap');
    h += '</dl>';
    h += '<h3>Decision and audit records</h3>';
    if (con && con.records.length) h += '<pre data-k="records">' + esc(con.records.join('\n')) + '</pre>';
    else h += '<p data-k="records">None printed: the runner prints watchpol\'s decision records and ' +
      'the audit denials under a cell only when it differs from its row; the record it matched is ' +
      '<code>' + esc(c.evidence || 'none') + '</code>.</p>';
    h += '<h3>Console</h3>';
    if (con) h += '<p><a href="' + esc(con.log) + '">' + esc(con.log) + '</a></p><pre data-k="console">' +
      esc(con.lines.join('\n')) + '</pre>';
    else h += '<p data-k="console">No console log of the ' + esc(c.profile) + ' boot in this folder.</p>';
    h += '<h3>Scenario source</h3>';
    var src = c.at && D.sources[c.at];
    if (src) {
      h += '<p><a data-k="at" href="../../' + esc(src.path) + '#L' + src.line + '">' + esc(c.at) + '</a></p><pre>';
      h += src.text.map(function (t, k) {
        var n = String(src.line + k), line = esc(('     ' + n).slice(-5) + '  ' + t);
        return k === 0 ? '<span class=hl>' + line + '</span>' : line;
      }).join('\n') + '</pre>';
    } else {
      h += '<p data-k="at">' + (c.at ? esc(c.at) + ' (not in this tree)' : 'A C suite\'s row: no scenario file.') + '</p>';
    }
    panel.innerHTML = h;
    panel.hidden = false;
    panel.dataset.open = i;
    body.dataset.open = i;
    document.getElementById('close').addEventListener('click', closePanel);
  }
  function closePanel() {
    var panel = document.getElementById('panel');
    panel.hidden = true;
    delete panel.dataset.open;
    delete body.dataset.open;
    document.querySelectorAll('#grid .cell.sel').forEach(function (e) { e.classList.remove('sel'); });
    setHash(fromBoxes());
  }

  // Scroll the grid's own box, not the page, until cell el shows beside
  // the sticky heads.
  function reveal(el) {
    var wrap = el.closest('.wrap');
    if (!wrap || el.hidden) return;
    var r = el.getBoundingClientRect(), w = wrap.getBoundingClientRect();
    var head = wrap.querySelector('thead').getBoundingClientRect().height;
    var side = wrap.querySelector('th.corner').getBoundingClientRect().width;
    if (r.top < w.top + head || r.bottom > w.bottom) wrap.scrollTop += r.top - w.top - head - 40;
    if (r.left < w.left + side || r.right > w.right) wrap.scrollLeft += r.left - w.left - side - 40;
  }
  function fromHash() {
    var h = parseHash();
    syncBoxes(h.filter);
    apply(h.filter);
    if (h.open !== null && D.cells[h.open]) {
      openCell(h.open);
      var el = document.querySelector('#grid .cell[data-i="' + h.open + '"]');
      if (el) reveal(el);
    } else if (body.dataset.open) closePanel();
  }
  document.addEventListener('keydown', function (e) {
    if (e.key === 'Escape' && body.dataset.open) closePanel();
  });
  document.getElementById('grid') && document.getElementById('grid').addEventListener('click', function (e) {
    var el = e.target.closest('.cell');
    if (!el) return;
    openCell(+el.dataset.i);
    setHash(fromBoxes());
  });
  form.addEventListener('change', function () {
    setHash(fromBoxes());
    apply(parseHash().filter);
  });
  document.getElementById('clear').addEventListener('click', function () {
    syncBoxes({});
    setHash(fromBoxes());
    apply({});
  });
  window.addEventListener('hashchange', fromHash);
  window.addEventListener('error', function (e) { body.dataset.error = e.message; });
  fromHash();
  body.dataset.state = 'ready';
})();
"""

TEMPLATE = """<!DOCTYPE html>
<html lang=en>
<head>
<meta charset=utf-8>
<meta name=viewport content="width=device-width, initial-scale=1">
<meta name=matrix-sha256 content="{digest}">
<title>watchlab: the policy matrix</title>
<style>{css}</style>
</head>
<body data-cells={ncells}>
<header>
<h1>watchlab: the policy matrix</h1>
<p class=meta>{ncells} cells of <code>matrix.json</code> (tree {commit}): {verdict}.
Rows are scenarios grouped by the SECURITY.md threat they test; columns are profile ×
watchpol model. <i class=nat>N</i> marks the native columns (watchpol at none, the LSM's own
hooks); <i class=ml>ML</i> and a hatched head mark the mainline columns ({mainline}: each row
through what mainline merged instead); italic heads are check columns. Click a cell for its
evidence. Filters also read the address: <code>index.html#outcome=LEAK&amp;model=strict</code>.</p>
{legend}
</header>
<div class=layout>
<main>
{filters}
<p id=nomatch hidden>No cell matches the filter.</p>
<div class=wrap>
{grid}
</div>
</main>
<aside>
<section id=panel hidden aria-live=polite></section>
<section id=comparison><h2>Bring your own LSM: the comparison</h2>
{comparison}
</section>
<section id=bench><h2>Bench figures</h2>
{bench}
</section>
</aside>
</div>
<script type="application/json" id=data>{data}</script>
<script>{script}</script>
</body>
</html>
"""


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    path = write(Path(argv[1]))
    print(f"watchlab: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
