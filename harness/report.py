#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the lab's console logs into KTAP, JUnit XML and the policy matrix.

usage: report.py RESULTS_DIR SOURCE...

A SOURCE is NAME:PROFILE:KIND.  KIND 1 or 0 is a boot whose matrix cells do
(1) or do not (0) go into the matrix: its console log is
RESULTS_DIR/console-NAME.log with the QEMU outcome in console-NAME.log.status.
KIND ktap is a host-side KTAP document, RESULTS_DIR/NAME.ktap.  KTAP documents in the log (the kernel's
KUnit output and the in-guest runner's) are parsed with kernel messages
interleaved; a test whose plan is not met, a kernel splat, a boot that did
not finish, a leak and an over-block are all failures.  The last line
printed is always "N passed, N failed".
"""

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import kcidb

# The native columns: watchpol at model none, the major LSM's own hooks.
NATIVE = {("selinux", "none"): " (SELinux-native)", ("smack", "none"): " (Smack-native)"}
TIMESTAMP = re.compile(r"^\[\s*\d+\.\d+\] ?")
KMSG_INSIDE = re.compile(r"\[\s*\d+\.\d+\] ")
# How the runner's KTAP lines begin (firmware escapes before the kernel's
# first line do not).
RUNNER_START = re.compile(r"^( +$| *(#|ok\b|not ok\b|KTAP|1\.\.))")
KTAP_VERSION = re.compile(r"^( *)KTAP version \d+\s*$")
PLAN = re.compile(r"^( *)1\.\.(\d+)\s*$")
RESULT = re.compile(r"^( *)(ok|not ok) (\d+)(?: -)?(?: ([^#]*?))?\s*(?:#\s*(.*))?$")
DIAG = re.compile(r"^( *)# ?(.*)$")
MATRIX = re.compile(r"MATRIX scenario=(\S+) model=(\S+) expected=(\S+) observed=(\S+)"
                    r"(?: evidence=(\S+))?(?: threat=(\S+))?(?: at=(\S+))?(?: shadow=(\S+))?\s*$")

# Kernel reports that fail a run wherever they appear in a console log.
SPLATS = [
    "BUG:",
    "WARNING:",
    "KASAN",
    "possible circular locking",
    "inconsistent lock state",
    "Kernel panic",
    "unreferenced object",
    "UBSAN:",
    "Oops:",
    # A boot that hangs instead of crashing: RCU stalls, hung tasks, soft
    # and hard lockups (the soft lockup also says "BUG:").
    "rcu: INFO:",
    "detected stall",
    "detected stalls",
    "blocked for more than",
    "soft lockup",
    "hard LOCKUP",
    "Watchdog detected hard LOCKUP",
]


class Node:
    """A KTAP result.  FAULT, on a check that failed because the lab did
    and not the code under test: "ERROR" for an infrastructure fault (the
    boot timed out, QEMU died, the runner never finished), "MISS" for a
    part that never ran (no KTAP, no manifest), as KernelCI maps a LAVA
    job's errors.  ATTRS: a suite's KTAP attributes, the "# NAME: VALUE"
    lines of its header (before its plan), e.g. the runner's skip_budget."""

    def __init__(self, name, ok, diags, children=None, directive=None, fault=None,
                 attrs=None):
        self.name = name
        self.ok = ok
        self.diags = diags
        self.children = children or []
        self.directive = directive
        self.fault = fault
        self.attrs = attrs or {}

    @property
    def skipped(self):
        """An 'ok N name # SKIP reason': neither a pass nor a failure, counted
        apart.  A 'not ok' line with a SKIP directive failed: no skip."""
        return self.ok and bool(self.directive) and self.directive.upper().startswith("SKIP")

    @property
    def xfail(self):
        """An 'ok N name # XFAIL reason' (kselftest's expected failure): a
        pass whose check is a known limit of what the lab can test there
        (a row the kernel decides before any LSM), counted as a pass and
        named apart."""
        return self.ok and bool(self.directive) and self.directive.upper().startswith("XFAIL")

    def leaves(self, prefix=""):
        path = f"{prefix}.{self.name}" if prefix else self.name
        if not self.children:
            yield path, self
        for child in self.children:
            yield from child.leaves(path)


class Frame:
    def __init__(self, indent):
        self.indent = indent
        self.plan = None
        self.results = []
        self.diags = []
        self.attrs = {}


# A suite's attribute in its KTAP header, as KUnit prints "# module: NAME".
ATTRIBUTE = re.compile(r"^([a-z_]+): (\S.*)$")


def close_frame(frame, where):
    """Check a finished block against its plan; a shortfall is a failure."""
    if frame.plan is not None and frame.plan != len(frame.results):
        frame.results.append(Node(
            "plan", False,
            [f"{where}: planned {frame.plan} tests, got {len(frame.results)}"]))
    return frame.results


def finish_document(stack, where):
    """Close every open block of a document; a suite cut short is a failure."""
    while len(stack) > 1:
        attrs = stack[-1].attrs
        children = close_frame(stack.pop(), where)
        stack[-1].results.append(Node("unfinished", False,
                                      [f"{where}: a suite stopped before its result line"],
                                      children, attrs=attrs))
    return close_frame(stack.pop(), where) if stack else []


def rejoin_interrupted(lines):
    """Put back together the runner's lines a kernel message cut in two.

    The runner writes each line with one write(2), but the kernel prints to
    the serial console directly, so a message can land inside a line:
    '    KTAP version[   37.96] kauditd_printk_skb: ...' and ' 1' on the next
    line (after any further kernel lines).  The kernel's lines are kept as
    lines of their own, the runner's line is rejoined after them."""
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        m = KMSG_INSIDE.search(line)
        if m and m.start() > 0 and RUNNER_START.match(line[:m.start()]):
            j = i + 1
            while j < len(lines) and TIMESTAMP.match(lines[j]):
                j += 1
            if j < len(lines):
                out.append(line[m.start():])
                out.extend(lines[i + 1:j])
                out.append(line[:m.start()] + lines[j])
                i = j + 1
                continue
        out.append(line)
        i += 1
    return out


def parse_ktap(lines, where):
    """Parse every KTAP document in a console log into top-level nodes."""
    top = []
    stack = []
    for raw in lines:
        line = TIMESTAMP.sub("", raw.rstrip("\r\n"))
        m = KTAP_VERSION.match(line)
        if m:
            indent = len(m.group(1))
            if indent == 0:
                top.extend(finish_document(stack, where))
                stack = [Frame(0)]
            elif stack:
                stack.append(Frame(indent))
            continue
        if not stack:
            continue
        m = PLAN.match(line)
        if m and len(m.group(1)) == stack[-1].indent:
            stack[-1].plan = int(m.group(2))
            continue
        m = RESULT.match(line)
        if m:
            indent = len(m.group(1))
            children, attrs = [], {}
            while len(stack) > 1 and stack[-1].indent > indent:
                attrs = stack[-1].attrs
                children = close_frame(stack.pop(), where)
            frame = stack[-1]
            if frame.indent != indent:
                continue
            directive = m.group(5)
            ok = m.group(2) == "ok"
            name = (m.group(4) or f"test{m.group(3)}").strip().replace(" ", "_")
            if not ok and directive and directive.upper().startswith("SKIP"):
                frame.diags.append(f"{where}: {name}: 'not ok' with '# {directive}': "
                                   "a failure, not a skip")
            frame.results.append(Node(name, ok, frame.diags, children, directive, attrs=attrs))
            frame.diags = []
            continue
        m = DIAG.match(line)
        if m and not m.group(2).startswith("Subtest:"):
            indent = len(m.group(1))
            for frame in reversed(stack):
                if frame.indent == indent:
                    attr = ATTRIBUTE.match(m.group(2))
                    if attr and indent and frame.plan is None and not frame.results:
                        frame.attrs[attr.group(1)] = attr.group(2)
                    else:
                        frame.diags.append(m.group(2))
                    break
    top.extend(finish_document(stack, where))
    return top


def host_checks(name, log_text, status):
    """Checks the host makes on a boot: it finished, the runner finished, no splat."""
    checks = []
    last = "\n".join(log_text.splitlines()[-15:])
    state = status.split()
    ok = bool(state) and state[0] == "ok"
    # No status at all: the boot never ran (a job that was not set up).
    fault = "ERROR" if state else "MISS"
    checks.append(Node("boot_finished", ok,
                       [] if ok else [f"console-{name}.log: QEMU {status or 'no status'}", last],
                       fault=fault))
    ok = "# watchlab: runner finished" in log_text
    checks.append(Node("runner_finished", ok,
                       [] if ok else [f"console-{name}.log: the runner never finished", last],
                       fault=fault))
    found = [line for line in log_text.splitlines()
             if any(s in line for s in SPLATS)]
    checks.append(Node("console_clean", not found,
                       [f"console-{name}.log: {line.strip()}" for line in found[:20]]))
    return Node("host", all(c.ok for c in checks), [], checks)


# What a cell may observe.  A blocked cell names where the event stopped
# (its evidence: watch:WHO or post:WHO); not-posted means no post of the
# event reached the LSM hook for the scenario's watch; not-available (the
# mainline columns only) that mainline has no such event.
OUTCOMES = ("delivered", "blocked", "not-posted", "not-available")
SCENARIO_DIR = "testcases/scenarios"


# ---- the verdicts, as KCIDB names them: kcidb.json takes them from here ----

def verdict(leaf):
    """A KTAP result's verdict: PASS (an XFAIL too), SKIP, or for a failure
    FAIL, or ERROR or MISS where the lab, not the code under test, failed
    (Node.fault)."""
    if leaf.skipped:
        return "SKIP"
    if leaf.ok:
        return "PASS"
    return leaf.fault or "FAIL"


def cell_verdict(cell):
    """A matrix cell's verdict: ERROR when it observed no outcome (the
    scenario could not run as written), else PASS or FAIL as its "pass"."""
    if cell["observed"] not in OUTCOMES:
        return "ERROR"
    return "PASS" if cell["pass"] else "FAIL"


# Why the runner failed a row, from its diagnostics: "ROW: MISATTRIBUTED: ..."
# (testcases/runner/suites/suite_scenarios.c, judge_row()).
ROW_TAG = re.compile(r"^\S+: ([A-Z][A-Z -]*[A-Z]): ")


def matrix_cells(lines, profile):
    """The cells the MATRIX lines record.  A cell passes when it observed
    what its row expects, with a record of who refused it if blocked, and
    the runner passed the row it belongs to (the KTAP result after its
    MATRIX line, at the same depth): a row the runner failed (MISATTRIBUTED,
    SHADOW MISMATCH, ...) fails its cells, which say why in row_failed."""
    cells, pending, diags = [], [], []
    for raw in lines:
        line = TIMESTAMP.sub("", raw.rstrip("\r\n"))
        m = MATRIX.search(line)
        if m:
            scenario, model, expected, observed, evidence, threat, at, shadow = m.groups()
            # "blocked@post:watchpol": the row names where the event stops.
            expected, _, where = expected.partition("@")
            cell = {"scenario": scenario, "profile": profile, "model": model,
                    "expected": expected, "observed": observed,
                    "evidence": evidence or "", "threat": threat or "unsorted"}
            cell["pass"] = expected == observed and observed in OUTCOMES and not unevidenced(cell)
            if where:
                cell["expected_where"] = where
            if at:
                cell["at"] = f"{SCENARIO_DIR}/{at}"
            if shadow:
                cell["shadow"] = shadow
            cells.append(cell)
            pending.append((len(line) - len(line.lstrip(" ")), cell))
            continue
        d = DIAG.match(line)
        if d:
            diags.append(d.group(2))
            continue
        r = RESULT.match(line)
        if not r:
            continue
        indent, ok = len(r.group(1)), r.group(2) == "ok"
        tags = [t.group(1) for t in map(ROW_TAG.match, diags) if t]
        for depth, cell in pending:
            if depth == indent and not ok:
                cell["pass"] = False
                cell["row_failed"] = tags[0] if tags else "ROW FAILED"
        pending = [(depth, cell) for depth, cell in pending if depth < indent]
        diags = []
    return cells


def unevidenced(cell):
    """A blocked cell whose record of who refused it is missing."""
    ev = cell["evidence"]
    return cell["observed"] == "blocked" and not re.fullmatch(r"(watch|post|read):[a-z]+", ev)


def matrix_checks(cells):
    leaks = [c for c in cells if c["observed"] == "delivered" and c["expected"] != "delivered"]
    over = [c for c in cells if c["expected"] == "delivered" and c["observed"] != "delivered"]
    wrong = [c for c in cells if c["expected"] != "delivered" and c["observed"] != "delivered"
             and c["expected"] != c["observed"]]
    bare = [c for c in cells if unevidenced(c)]
    fmt = "{scenario} under {profile}/{model}: expected {expected}, observed {observed}"
    return Node("matrix", not (leaks or over or wrong or bare), [], [
        Node("no_leaks", not leaks, [fmt.format(**c) for c in leaks]),
        Node("no_over_blocks", not over, [fmt.format(**c) for c in over]),
        Node("posted_as_expected", not wrong, [fmt.format(**c) for c in wrong]),
        Node("blocked_cells_evidenced", not bare,
             [f"{c['scenario']} under {c['profile']}/{c['model']}: blocked, "
              f"evidence '{c['evidence'] or 'none'}'" for c in bare]),
    ])


# ---- who refused, and where: derived from the model and the row ----

# What each watchpol model judges: the watch, the post, or both (strict and
# the models built on it, policy/watchpol/models).
WATCH_ONLY = {"watcher"}
POST_ONLY = {"schaufler", "smackemu"}
_BLOCKS = {}


def scenario_keyword(at, keyword, top=None):
    """The value of KEYWORD in the scenario block that begins at FILE:LINE,
    read from the source tree, or None."""
    path, _, line = at.rpartition(":")
    key = (path, int(line))
    if key not in _BLOCKS:
        words = {}
        lines = ((top or TOP) / path).read_text().splitlines()[int(line) - 1:]
        for text in lines:
            w = text.split("#", 1)[0].split()
            if w == ["end"]:
                break
            if len(w) >= 2:
                words.setdefault(w[0], w[1])
        _BLOCKS[key] = words
    return _BLOCKS[key].get(keyword)


def scenario_at(cell):
    """Whether the cell's FILE:LINE is where its scenario begins in the
    source tree (a boot of another tree's scenario files is not)."""
    return scenario_keyword(cell["at"], "scenario") == cell["scenario"].split("[", 1)[0]


def native_where(cell, idx, wstep):
    """Where the row's native cell (this profile, model none) stops the
    event: its outcome when not blocked, STEP:WHO when blocked, None when
    the row must say and does not."""
    native = idx.get((cell["scenario"], cell["profile"], "none"))
    if native is None or native["expected"] != "blocked":
        return native["expected"] if native else None
    if native.get("expected_where"):
        return native["expected_where"]
    plain = idx.get((cell["scenario"], "plain", "none"))
    if plain is not None and plain["expected"] == "blocked":
        # Refused with no LSM that judges labels: the kernel's own check,
        # which runs before every hook, whatever the profile.
        return plain.get("expected_where") or f"{wstep}:kernel"
    if cell["profile"] == "plain":
        return f"{wstep}:kernel"
    if cell["profile"] == "selinux":
        return f"{wstep}:selinux"    # SELinux has no post hook
    return None                       # Smack judges watches and posts: say which


def expected_where(cell, idx, observe=None):
    """Where a cell expected blocked must stop, as STEP:WHO[+WHO], or None
    when neither the row nor the rules decide it.

    A row's own "blocked@STEP:WHO" wins.  Otherwise: the native cell
    (model none) is refused by the kernel (plain/none blocked), SELinux (at
    the watch: it has no post hook) or Smack (the row must say at which
    step).  A watchpol model refuses where the native cell delivers (or
    never sees a post): at the watch for watcher, at the post for
    schaufler and smackemu, and for strict and the models built on it at
    the watch when the row's watcher cell is blocked, else at the post.
    Where the native cell is refused too, the native refuser is expected:
    a row where watchpol refuses as well says so, "STEP:watchpol+LSM"."""
    if cell["expected"] != "blocked":
        return None
    if cell.get("expected_where"):
        return cell["expected_where"]
    how = (observe or (lambda c: scenario_keyword(c["at"], "observe")))(cell)
    wstep = "read" if how in ("read", "count") else "watch"
    native = native_where(cell, idx, wstep)
    # A no-consumer column refuses where its model does.
    model = NOCONSUMER_COLUMNS.get(cell["model"], cell["model"])
    if model in ("none", "off", SHADOW) + MAINLINE or native is None:
        return native if native not in ("delivered", "not-posted") else None
    if native not in ("delivered", "not-posted"):
        return native
    if model in WATCH_ONLY or native == "not-posted":
        step = "watch"
    elif model in POST_ONLY:
        step = "post"
    else:
        watcher = idx.get((cell["scenario"], cell["profile"], "watcher"))
        step = "watch" if watcher is not None and watcher["expected"] == "blocked" else "post"
    return f"{step}:watchpol"


def refuser_verdict(cell, idx, observe=None):
    """None if the blocked cell stopped where and by whom its row says;
    else why not."""
    where = f"{cell['profile']}/{cell['model']}"
    if observe is None and not scenario_at(cell):
        return (f"{cell['scenario']} under {where}: {cell['at']} is not where the scenario "
                "begins in this tree: the boot ran other scenario files")
    want = expected_where(cell, idx, observe)
    if want is None:
        return (f"{cell['scenario']} under {where}: the row does not say where it stops; "
                f"name it: expect {where} blocked@STEP:WHO (observed {cell['evidence']})")
    step, _, whos = want.partition(":")
    first, _, second = whos.partition("+")
    if cell["evidence"] != f"{step}:{first}":
        return (f"{cell['scenario']} under {where}: WRONG REFUSER: stopped at "
                f"{cell['evidence']}, the row says {want}")
    native = idx.get((cell["scenario"], cell["profile"], "none"))
    native_ev = native["evidence"] if native and native["observed"] == "blocked" else None
    if second and native_ev != f"{step}:{second}":
        return (f"{cell['scenario']} under {where}: the row says {second} refuses it too "
                f"({want}), but {cell['profile']}/none observed "
                f"{native_ev and 'blocked@' + native_ev or (native or {}).get('observed')}")
    if not second and first == "watchpol" and native_ev and native_ev.split(":")[0] == step:
        return (f"{cell['scenario']} under {where}: watchpol's refusal is masked: "
                f"{cell['profile']}/none is blocked@{native_ev} too; the row must say "
                f"blocked@{step}:watchpol+{native_ev.split(':')[-1]}")
    return None


def refuser_checks(cells, observe=None):
    """Every blocked cell of a scenario row (cells with no scenario file,
    the C suites', are left out) stopped at the step and by the LSM its
    row says, or that the rules derive; a cell where two LSMs refuse is
    named so in its row and its native cell shows the second."""
    idx = {}
    for c in cells:
        idx.setdefault((c["scenario"], c["profile"], c["model"]), c)
    checked = [c for c in cells if "at" in c and c["expected"] == "blocked"
               and c["observed"] == "blocked"]
    bad = []
    for c in checked:
        c["refuser"] = expected_where(c, idx, observe) or "unnamed"
        verdict = refuser_verdict(c, idx, observe)
        if verdict:
            c["pass"] = False
            c["wrong_refuser"] = True
            bad.append(verdict)
    return Node("refusers", not bad, [], [
        Node("refused_where_expected", not bad,
             bad[:40] + ([f"{len(bad)} cells in all"] if len(bad) > 40 else []) +
             [f"{len(checked)} blocked cells checked"]),
    ]), len(checked)


def emulation_checks(cells, likes=None):
    """A model that emulates another (like=) must observe, in every profile
    it runs in, what the other observes in the same row: each difference is
    listed, whether or not the scenario expected it."""
    likes = MODEL_LIKE if likes is None else likes
    observed = {(c["scenario"], c["profile"], c["model"]): c["observed"] for c in cells}
    nodes = []
    for model, like in likes.items():
        diffs = []
        for (scenario, profile, m), got in observed.items():
            if m != model:
                continue
            ref = observed.get((scenario, profile, like))
            if ref != got:
                diffs.append(f"{scenario} under {profile}: {profile}/{model} {got}, "
                             f"{profile}/{like} {ref or 'has no cell'}")
        nodes.append(Node(f"{model}_matches_{like}", not diffs, diffs))
    return Node("emulation", all(n.ok for n in nodes), [], nodes)


def shadow_checks(cells):
    """Every cell of the shadow column pairs two decisions on the same
    posts, watchpol's logged verdict and Smack's own, and they are equal:
    "watchpol:V,smack:V" with the same V (allow, deny, or none when the
    event was never posted)."""
    diffs, n = [], 0
    for c in cells:
        if c["model"] != SHADOW:
            continue
        n += 1
        pair = dict(p.split(":", 1) for p in c.get("shadow", "").split(",") if ":" in p)
        if set(pair) != {"watchpol", "smack"} or pair["watchpol"] != pair["smack"]:
            diffs.append(f"{c['scenario']} under {c['profile']}: "
                         f"{c.get('shadow') or 'no pair of decisions'}")
    return Node("smackemu_decides_as_smack", not diffs,
                diffs + [f"{n} cells: smackemu's verdict beside Smack's decision"])


def emit_ktap(node, number, depth, out):
    pad = "    " * depth
    if node.children:
        out.append(f"{pad}    KTAP version 1")
        out.append(f"{pad}    # Subtest: {node.name}")
        out.extend(f"{pad}    # {k}: {v}" for k, v in node.attrs.items())
        out.append(f"{pad}    1..{len(node.children)}")
        for i, child in enumerate(node.children, 1):
            emit_ktap(child, i, depth + 1, out)
    for d in node.diags:
        out.append(f"{pad}# {d}")
    skip = f" # {node.directive}" if node.skipped or node.xfail else ""
    out.append(f"{pad}{'ok' if node.ok else 'not ok'} {number} {node.name}{skip}")


def junit(boots, replayed=()):
    """JUnit XML; a replayed boot's suites carry the property replayed=true
    and each of their cases says so: the result is an earlier boot's."""
    root = ET.Element("testsuites", name="watchlab")
    for boot in boots:
        for suite in boot.children:
            ts = ET.SubElement(root, "testsuite", name=f"{boot.name}.{suite.name}")
            if boot.name in replayed:
                props = ET.SubElement(ts, "properties")
                ET.SubElement(props, "property", name="replayed", value="true")
            count = fails = 0
            for path, leaf in suite.leaves():
                count += 1
                tc = ET.SubElement(ts, "testcase", classname=f"{boot.name}.{suite.name}",
                                   name=path.split(".", 1)[-1])
                if leaf.skipped:
                    ET.SubElement(tc, "skipped", message=leaf.directive)
                elif not leaf.ok:
                    fails += 1
                    f = ET.SubElement(tc, "failure",
                                      message=leaf.diags[-1] if leaf.diags else "failed")
                    f.text = "\n".join(leaf.diags)
                elif leaf.diags or leaf.xfail or boot.name in replayed:
                    ET.SubElement(tc, "system-out").text = "\n".join(
                        (["replayed from build/boot-cache: not run in this run"]
                         if boot.name in replayed else []) +
                        ([f"# {leaf.directive}"] if leaf.xfail else []) + leaf.diags)
            ts.set("tests", str(count))
            ts.set("failures", str(fails))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def names(path):
    """The first word of each line of a list file that is not blank or a comment."""
    lines = (line.split("#", 1)[0].split() for line in path.read_text().splitlines())
    return [words[0] for words in lines if words]


# The lab's two lists, which the runner and the scenario parser read too.
TOP = Path(__file__).resolve().parent.parent
PROFILE_ORDER = names(TOP / "images/profiles")
MODEL_ORDER = ["off"] + names(TOP / "policy/watchpol/models")


def model_likes(path):
    """Models whose cells must equal another model's: "NAME ... like=OTHER"
    in policy/watchpol/models, as {NAME: OTHER}."""
    likes = {}
    for line in path.read_text().splitlines():
        words = line.split("#", 1)[0].split()
        for w in words[1:]:
            if w.startswith("like="):
                likes[words[0]] = w[len("like="):]
    return likes


MODEL_LIKE = model_likes(TOP / "policy/watchpol/models")


def model_mechanisms(path):
    """Models whose cells observe through mainline's mechanisms:
    "NAME mechanism=mainline" in policy/watchpol/models."""
    return tuple(line.split()[0] for line in path.read_text().splitlines()
                 if "mechanism=mainline" in line.split("#", 1)[0].split()[1:])


# The mainline columns: watchpol at none, each event through what mainline
# merged instead (testcases/runner/scenario/scenario_mainline.c).  Their
# blocked cells stop where the kernel or the LSM's own check does, as the
# native columns' do.
MAINLINE = model_mechanisms(TOP / "policy/watchpol/models")
# suite_scenarios_noconsumer's columns: each model watchpol decides, with
# nobody reading watchpol's log (its no-consumer post path); MODEL-noconsumer
# must equal MODEL, and they are left out of matrix.md, whose columns are the
# models.
NOCONSUMER_SUFFIX = "-noconsumer"
NOCONSUMER_COLUMNS = {m + NOCONSUMER_SUFFIX: m for m in MODEL_ORDER if m not in MAINLINE}
NOCONSUMER = "strict" + NOCONSUMER_SUFFIX
# suite_scenarios_smackemu_shadow's column: smackemu's verdicts logged, not
# enforced, so Smack alone decides; each cell pairs the two decisions
# (shadow=watchpol:V,smack:V), which must be equal.  Its outcomes are
# Smack's own, so it must equal smack/none; left out of matrix.md too.
SHADOW = "smackemu-shadow"
# Columns that repeat a model's rows for a check of their own.
CHECK_COLUMNS = tuple(NOCONSUMER_COLUMNS) + (SHADOW,)
# suite_properties's column: the rows that state a kernel property ("property"
# in the scenario file), once per boot under closed; matrix.md shows them
# in a table of their own, one column per profile.
PROPERTY = "property"


# SECURITY.md's threats, in its order, then the events the series exists for.
THREATS = {
    "observation": "Threat 1, observation beyond one's rights",
    "covert": "Threat 2, covert channels",
    "misattribution": "Threat 3, misattribution of who posts",
    "dos": "Threat 4, denial of service against the queue",
    "use": "Legitimate use: the events the series exists to deliver",
}
THREAT_ORDER = list(THREATS)


def rank(order, name):
    return order.index(name) if name in order else len(order)


def cell_text(cell):
    """A cell as matrix.md shows it: the outcome and, when blocked, where."""
    if cell["observed"] == "blocked" and cell["evidence"]:
        # A refusal two LSMs make, checked against the row's native cell.
        both = cell.get("refuser", "").partition("+")[2]
        return f"blocked@{cell['evidence']}" + (f"+{both}" if both and cell["pass"] else "")
    return cell["observed"]


def matrix_markdown(cells):
    """Rows where the configurations differ first, then those alike in every
    column; each row links to its scenario's file and line (C-suite rows have
    none).  matrix.json keeps every cell with its evidence."""
    quiet = [c for c in cells if c["model"] in NOCONSUMER_COLUMNS]
    shadow = [c for c in cells if c["model"] == SHADOW]
    props = [c for c in cells if c["model"] == PROPERTY]
    cells = [c for c in cells if c["model"] not in CHECK_COLUMNS + (PROPERTY,)]
    if not cells:
        return "No scenario produced a matrix cell.\n"
    configs = sorted({(c["profile"], c["model"]) for c in cells},
                     key=lambda pm: (rank(PROFILE_ORDER, pm[0]), rank(MODEL_ORDER, pm[1]), pm))
    scenarios = list(dict.fromkeys(c["scenario"] for c in cells))  # run order
    by_key, at = {}, {}
    for c in cells:
        by_key.setdefault((c["scenario"], c["profile"], c["model"]), []).append(c)
        if "at" in c:
            at[c["scenario"]] = c["at"]
    head = "| scenario | " + " | ".join(
        f"{p}/{m}" + NATIVE.get((p, m), "")
        for p, m in configs) + " |"
    rule = "|---" * (len(configs) + 1) + "|"

    for c in props:
        by_key.setdefault((c["scenario"], c["profile"], c["model"]), []).append(c)
        if "at" in c:
            at[c["scenario"]] = c["at"]

    def row(s, columns=configs):
        out = [f"[{s}]({at[s].replace(':', '#L')})" if s in at else s]
        for p, m in columns:
            got = by_key.get((s, p, m))
            if not got:
                out.append("–")
                continue
            # The cell the column shows: the last, or the first that failed.
            cell = next((c for c in got if not c["pass"] or unevidenced(c)), got[-1])
            text = cell_text(cell)
            if all(c["pass"] and not unevidenced(c) for c in got):
                out.append(text)
            elif cell["observed"] not in OUTCOMES:
                out.append(f"**ERROR** {cell['observed']} (expected {cell['expected']})")
            elif unevidenced(cell):
                out.append(f"**NO EVIDENCE** {text}")
            elif cell.get("wrong_refuser"):
                out.append(f"**WRONG REFUSER** {text} (expected blocked@{cell['refuser']})")
            elif cell.get("row_failed") and cell["expected"] == cell["observed"]:
                out.append(f"**{cell['row_failed']}** {text}")
            elif cell["observed"] == "delivered":
                out.append(f"**LEAK** delivered (expected {cell['expected']})")
            elif cell["expected"] == "delivered":
                out.append(f"**OVER-BLOCK** {text} (expected delivered)")
            else:
                out.append(f"**WRONG** {text} (expected {cell['expected']})")
        return out

    threat_of = {}
    for c in cells:
        threat_of.setdefault(c["scenario"], c.get("threat", "unsorted"))
    table = []
    for threat in sorted(set(threat_of.values()), key=lambda t: rank(THREAT_ORDER, t)):
        rows = [row(s) for s in scenarios if threat_of[s] == threat]
        differ = [r for r in rows if len(set(r[1:])) > 1]
        alike = [r for r in rows if len(set(r[1:])) <= 1]
        table += ["", f"**{THREATS.get(threat, threat)}** ({len(rows)} rows, "
                  f"{len(differ)} where the configurations differ)", "", head, rule]
        table += ["| " + " | ".join(r) + " |" for r in differ]
        table += [f"| *alike in every configuration:* |" + " |" * len(configs)] if alike else []
        table += ["| " + " | ".join(r) + " |" for r in alike]
    table = table[1:] + property_table(props, row)
    legend = ("\nRows are grouped by the SECURITY.md threat they test; in each group "
              "the rows where the configurations differ come first. "
              "Each cell is what the scenario observed under profile/model: "
              "`delivered`; `blocked@watch:WHO` (the watch was refused by WHO: "
              "watchpol, selinux, smack, or the kernel's own permission check when "
              "no LSM recorded a denial); `blocked@post:WHO` (the event was posted "
              "and WHO refused it); or `not-posted` (no post of the event reached "
              "the LSM hook for the watch); `blocked@STEP:watchpol+LSM`: watchpol "
              "refused it first and LSM refuses it too, as the row's native cell shows. "
              "The evidence comes from watchpol's "
              "decision log and the audit records SELinux and Smack emit, each record "
              "matched to the scenario's watcher and watch. A cell that differs "
              "from the scenario's expectation is marked LEAK (delivered, not "
              "expected), OVER-BLOCK (not delivered, expected delivered) or WRONG "
              "(blocked where not-posted was expected, or the reverse) or WRONG REFUSER "
              "(blocked at another step or by another LSM than the row says, or than "
              "the model's rules derive); a blocked "
              "cell without a record of who refused it is NO EVIDENCE; any of "
              "these fails `make test`. ERROR: the scenario could not run as "
              "written. selinux/none and smack/none are the native columns: "
              "watchpol at model none, SELinux's or Smack's own hooks only "
              "(their watch_key, watch_mount, watch_sb, watch_devices and "
              "post_notification rules). The mainline columns (" +
              ", ".join(f"`*/{m}`" for m in MAINLINE) + ") run each row through what mainline merged "
              "instead of the 2019 series, with watchpol at none: keys through "
              "watch_queue, mount attach, detach and move through a fanotify "
              "mount-namespace mark, ext4 errors through FAN_FS_ERROR, USB add and "
              "remove through kobject uevents; `not-available`: mainline has no such "
              "event (SECURITY.md, \"What mainline chose instead\").\n")
    failed_rows = sorted({c["row_failed"] for c in cells + props if c.get("row_failed")})
    if failed_rows:
        legend += (f"\n{', '.join(failed_rows)}: the cell observed what its row expects, but "
                   "the runner failed the row for that reason (its diagnostics in ktap.txt "
                   "say more); it fails `make test` like the marks above.\n")
    if quiet:
        legend += (f"\n{len(quiet)} cells ran again under each model watchpol decides with "
                   "nobody reading watchpol's decision log (its no-consumer path; "
                   f"`MODEL{NOCONSUMER_SUFFIX}` in matrix.json), and must equal the model's.\n")
    if props:
        legend += (f"\nThe kernel properties are rows the kernel decides before any LSM hook "
                   "runs: no model or LSM can change them, so each runs once per boot, "
                   "under closed (the model that refuses most, so a cell the kernel "
                   "stopped deciding would name watchpol), and passes as an XFAIL with "
                   "its property as the reason (`" + PROPERTY + "` in matrix.json).\n")
    if shadow:
        legend += (f"\n{len(shadow)} cells ran again in the smack profile with smackemu's "
                   "verdicts logged but not enforced (`" + SHADOW + "` in matrix.json): "
                   "Smack alone decides, and in each cell smackemu's verdict must equal "
                   "Smack's decision.\n")
    return "\n".join(table) + "\n" + legend


def property_table(cells, row):
    """The rows that state a kernel property, one column per profile, each
    with its threat; ROW renders a scenario's cells over [(profile, model)]."""
    if not cells:
        return []
    profiles = sorted({c["profile"] for c in cells}, key=lambda p: (rank(PROFILE_ORDER, p), p))
    threat_of = {c["scenario"]: c.get("threat", "unsorted") for c in cells}
    scenarios = sorted(dict.fromkeys(c["scenario"] for c in cells),
                       key=lambda s: rank(THREAT_ORDER, threat_of[s]))
    cols = [(p, PROPERTY) for p in profiles]
    out = ["", f"**Kernel properties** ({len(scenarios)} rows, decided by the kernel before "
           "any LSM hook, whatever the model: once per boot, XFAIL)", "",
           "| scenario | threat | " + " | ".join(profiles) + " |",
           "|---" * (len(profiles) + 2) + "|"]
    for s in scenarios:
        r = row(s, cols)
        out.append("| " + " | ".join([r[0], threat_of[s]] + r[1:]) + " |")
    return out


def table_rows(markdown):
    """The matrix's rows by scenario name, each as {column head: cell},
    read under the head of the table the row is in (the kernel
    properties' table has columns of its own)."""
    rows, heads = {}, []
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| scenario |"):
            heads = cells[1:]
            continue
        m = re.match(r"\[(.+?)\]\(|([a-z0-9][a-z0-9\[\],-]*)$", cells[0]) if cells else None
        if m and len(cells) > 1 and not line.startswith("|---"):
            rows[m.group(1) or m.group(2)] = dict(zip(heads, cells[1:]))
    return rows


def matrix_changes(old, new):
    """What differs between two matrices, for a reader: rows gone, rows
    added, and each changed cell as ROW COLUMN: OLD -> NEW (a column one
    of them lacks: OLD or NEW is "none")."""
    was, now = table_rows(old), table_rows(new)
    out = [f"row gone: {r}" for r in was if r not in now]
    out += [f"row added: {r}" for r in now if r not in was]
    cells = 0
    for r in now:
        if r not in was or was[r] == now[r]:
            continue
        if not set(was[r]) & set(now[r]):
            cells += 1
            out.append(f"row moved to a table with other columns: {r} ("
                       + ", ".join(f"{c} {v}" for c, v in now[r].items()) + ")")
            continue
        for col in list(dict.fromkeys(list(was[r]) + list(now[r]))):
            a, b = was[r].get(col, "none"), now[r].get(col, "none")
            if a != b:
                cells += 1
                if cells <= 20:
                    out.append(f"{r} {col}: {a} -> {b}")
    if cells > 20:
        out.append(f"... {cells} cells changed in all")
    return out


def doc_checks(path, matrix):
    """SECURITY.md must carry this run's matrix between its markers; when
    it does not, say what changed (rows, cells) before how to update it."""
    text = path.read_text() if path.exists() else ""
    m = re.search(r"<!-- matrix:begin -->\n(.*?)<!-- matrix:end -->", text, re.S)
    current = bool(m) and m.group(1).strip() == matrix.strip()
    if current:
        diags = []
    elif not m:
        diags = [f"{path.name} has no <!-- matrix:begin/end --> section"]
    else:
        changes = matrix_changes(m.group(1), matrix) or ["no row or cell changed: "
                                                         "the headings or the legend did"]
        diags = [f"{path.name}'s measured matrix differs from this run's matrix.md:"] + \
            changes + ["if each change is meant, `make matrix` and commit it with the "
                       "reason in the message"]
    return Node("security_md", current, [], [Node("matrix_current", current, diags)])


def distinct_checks(boots):
    """Checks that differ in what they test: a leaf path less its boot and
    any @MODEL suffix, so one test run under four models in four boots
    counts once."""
    seen = set()
    for boot in boots:
        for path, _leaf in boot.leaves():
            parts = path.split(".")[1:]
            seen.add(".".join(p.split("@", 1)[0] for p in parts))
    return len(seen)


def runner_leaves(nodes):
    """The runner's results of a boot, as path -> skipped: its suites are
    the suite_* documents (the kernel's KUnit suites report on their own)."""
    return {path: leaf.skipped
            for n in nodes if n.name.startswith("suite_")
            for path, leaf in n.leaves()}


def manifest_checks(name, suites, manifest):
    """What the boot reported against what its manifest says it must: the
    runner's own list of suites, tests and scenario rows x models for this
    boot's command line, written before the boot (harness/run-profile.sh)."""
    if manifest is None:
        return Node("manifest", False, [f"{name}: no manifest-{name}.ktap to check against"],
                    fault="MISS")
    want, got = runner_leaves(manifest), runner_leaves(suites)
    missing = sorted(p for p in want if p not in got)
    extra = sorted(p for p in got if p not in want)
    # A suite's skip follows from the command line, so the manifest knows
    # it; a test that skips itself at run time (a kselftest SKIP), which the
    # manifest cannot foresee, counts against its suite's budget instead
    # (skip_checks).
    skips = sorted(p for p in want if p in got and want[p] != got[p]
                   and not ("." in p and got[p] and not want[p]))
    diags = ([f"missing: {p}" for p in missing[:20]] +
             [f"not in the manifest: {p}" for p in extra[:20]] +
             [f"{'skipped' if got[p] else 'ran'}, the manifest says "
              f"{'skip' if want[p] else 'run'}: {p}" for p in skips[:20]])
    if len(missing) > 20 or len(extra) > 20 or len(skips) > 20:
        diags.append(f"{len(missing)} missing, {len(extra)} extra, {len(skips)} skip mismatches")
    ok = not (missing or extra or skips) and bool(want)
    if not want:
        diags.append(f"{name}: the manifest lists no runner suite")
    return Node("manifest", ok, diags)


def skip_checks(name, suites):
    """A test that skips itself at run time is one of its suite's budget,
    which the suite declares and the runner prints as the KTAP attribute
    "# skip_budget: N" (testcases/runner/core/wl.h, .skip_budget; none: 0).
    A skip past it, or in a suite that declares none, fails, naming the
    suite and its skipped tests.  A whole suite skipped is the manifest's to
    judge: the command line decides it."""
    bad, total = [], 0
    for suite in suites:
        skipped = [path.split(".", 1)[1] for path, leaf in suite.leaves()
                   if leaf is not suite and leaf.skipped]
        budget = suite.attrs.get("skip_budget", "0")
        budget = int(budget) if budget.isdigit() else 0
        total += len(skipped)
        if len(skipped) > budget:
            bad.append(f"{suite.name}: {len(skipped)} runtime skip"
                       f"{'' if len(skipped) == 1 else 's'}, its budget is {budget}: "
                       + ", ".join(skipped))
    return Node("skips", not bad, bad or ([f"{name}: {total} runtime skips, each within "
                                          "its suite's budget"] if total else []))


# ---- the manifests against the source tree, which the runner did not write ----

SUITE_MACRO = re.compile(r"^\s*WL_(?:SUITE|SUITE_IF|SUITE_DEFINE|SCENARIO_SUITE|KSFT_SUITE)\(\s*(suite_\w+)",
                         re.M)
KUNIT_CASE = re.compile(r"^\+?\s*KUNIT_CASE(?:_PARAM)?\((\w+)", re.M)
KUNIT_NAME = re.compile(r"^\+?\s*\.name\s*=\s*\"(\w+)\"", re.M)


def source_suites(top=None):
    """Every runner suite a source file registers: {suite: file}."""
    out = {}
    for path in sorted(((top or TOP) / "testcases/runner").rglob("*.c")):
        for name in SUITE_MACRO.findall(path.read_text(errors="replace")):
            out[name] = str(path.relative_to(top or TOP))
    return out


def source_scenarios(top=None):
    """Every scenario the .scn files define: {name: FILE:LINE}."""
    out = {}
    for path in sorted(((top or TOP) / SCENARIO_DIR).glob("*.scn")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            w = line.split("#", 1)[0].split()
            if len(w) == 2 and w[0] == "scenario":
                out[w[1]] = f"{path.name}:{n}"
    return out


def source_kunit(top=None):
    """The KUnit suites the tree's tests define and their cases, from
    lsm/policy_test.c and the series' patches: {suite: [cases]}."""
    top = top or TOP
    out, suite_of = {}, {}
    text = (top / "lsm/policy_test.c").read_text(errors="replace")
    out[KUNIT_NAME.findall(text)[-1]] = KUNIT_CASE.findall(text)
    # A patch's sections, file by file: a later patch that adds a case to a
    # test file an earlier one created names no suite; the file does.
    for path in sorted((top / "kernel-patches").glob("*.patch")):
        sections = re.split(r"^diff --git a/\S+ b/(\S+)$", path.read_text(errors="replace"),
                            flags=re.M)
        for target, body in zip(sections[1::2], sections[2::2]):
            names = KUNIT_NAME.findall(body)
            if names and KUNIT_CASE.search(body):
                suite_of[target] = names[-1]
            suite = suite_of.get(target)
            if suite:
                cases = out.setdefault(suite, [])
                cases += [c for c in KUNIT_CASE.findall(body) if c not in cases]
    return out


def source_checks(manifests, boots, only=None, top=None):
    """What the source tree defines, against what the runner listed and the
    boots reported: every registered suite is in some boot's manifest
    (run or skipped), every scenario has a row in suite_scenarios, and
    every KUnit suite of the tree reported exactly its cases in each boot
    that ran KUnit."""
    listed = set()
    rows = set()
    for nodes in manifests:
        for n in nodes:
            base = n.name.split("@", 1)[0]
            listed |= {n.name, base, base[:-len("_ring")] if base.endswith("_ring") else base}
            if base in ("suite_scenarios", "suite_properties"):
                rows |= {leaf.name.split("[", 1)[0] for _, leaf in n.leaves()}
    suites = source_suites(top)
    lost = [f"{s} ({f}) is in no boot's manifest: compiled out, or never registered"
            for s, f in sorted(suites.items()) if s not in listed and (not only or s in only)]
    scen = [] if only and "suite_scenarios" not in only else [
        f"scenario {s} ({at}) has no row in suite_scenarios's or suite_properties's manifest"
        for s, at in sorted(source_scenarios(top).items()) if s not in rows]
    kunit, ran = [], 0
    for suite, cases in sorted(source_kunit(top).items()):
        for boot in boots:
            got = [n for n in boot.children if n.name == suite]
            if not got:
                # harness/run-profile.sh: KUnit runs in the plain profile's
                # boot of each kernel.
                if boot.name in ("plain", "plain-debug"):
                    kunit.append(f"{boot.name}: KUnit {suite} did not report")
                continue
            ran += 1
            have = [c.name for c in got[0].children]
            missing = [c for c in cases if c not in have]
            extra = [c for c in have if c not in cases]
            kunit += [f"{boot.name}: KUnit {suite}: {c} did not report" for c in missing]
            kunit += [f"{boot.name}: KUnit {suite}: {c} is no case of the tree's" for c in extra]
    if not only and not ran:
        kunit.append("no boot reported the tree's KUnit suites")
    return Node("sources", not (lost or scen or kunit), [], [
        Node("suites_listed", not lost, lost or [f"{len(suites)} suites in the source tree"]),
        Node("scenarios_listed", not scen, scen[:20]),
        Node("kunit_cases", not kunit, kunit[:20]),
    ])


# ---- bring your own LSM: a foreign LSM's column against every other ----

def outcome_key(cell):
    """What a comparison compares: the outcome, and for a blocked cell the
    step it stopped at (watch, post, read), not who: a foreign LSM and a
    watchpol model that refuse the same post agree."""
    if cell["observed"] == "blocked":
        return "blocked@" + cell["evidence"].split(":", 1)[0]
    return cell["observed"]


def byo_checks(cells):
    """A foreign LSM has no expectations: its boot fails only if a scenario
    could not run or a blocked cell has no record of where it stopped."""
    broken = [c for c in cells if c["observed"] not in OUTCOMES]
    bare = [c for c in cells if unevidenced(c)]
    return Node("comparison_cells", bool(cells) and not (broken or bare), [], [
        Node("cells_ran", bool(cells) and not broken,
             [f"{c['scenario']}: {c['observed']}" for c in broken] or
             ([] if cells else ["the boot produced no scenario cell"])),
        Node("cells_evidenced", not bare,
             [f"{c['scenario']}: blocked, evidence '{c['evidence'] or 'none'}'"
              for c in bare]),
    ])


def compare(lsm, byo, cells):
    """The foreign LSM's rows against each profile/model column of this
    run: (ranking [(config, agreeing rows)], rows, differing rows of the
    closest column [(row, theirs, ours)])."""
    mine = {c["scenario"]: c for c in byo}
    at = {c["scenario"]: c.get("at", "") for c in byo}
    configs = sorted({(c["profile"], c["model"]) for c in cells if c["model"] != PROPERTY},
                     key=lambda pm: (rank(PROFILE_ORDER, pm[0]), rank(MODEL_ORDER, pm[1]), pm))
    ref = {(c["scenario"], c["profile"], c["model"]): c for c in cells}
    ranking = []
    for p, m in configs:
        rows = [s for s in mine if (s, p, m) in ref]
        same = [s for s in rows if outcome_key(mine[s]) == outcome_key(ref[(s, p, m)])]
        ranking.append((f"{p}/{m}", len(same), len(rows)))
    # Most rows alike first; a tie goes to the earlier column (plain first).
    order = sorted(range(len(ranking)), key=lambda i: (-ranking[i][1], i))
    ranking = [ranking[i] for i in order]
    if not ranking:
        return [], [], at
    best = ranking[0][0]
    p, m = best.split("/", 1)
    differ = [(s, cell_text(mine[s]), cell_text(ref[(s, p, m)]))
              for s in mine if (s, p, m) in ref
              and outcome_key(mine[s]) != outcome_key(ref[(s, p, m)])]
    return ranking, differ, at


def comparison_markdown(lsm, ranking, differ, at):
    if not ranking:
        return f"No column to compare {lsm} with: the run produced no other matrix cell.\n"
    best, same, rows = ranking[0]
    out = [f"**{lsm} behaves like {best} on {same} of {rows} rows**"
           + (f"; differs on {len(differ)}:" if differ else "."), ""]
    if differ:
        out += [f"| row | {lsm} | {best} |", "|---|---|---|"]
        out += [f"| [{s}]({at[s].replace(':', '#L')}) | {mine} | {theirs} |" if at.get(s)
                else f"| {s} | {mine} | {theirs} |" for s, mine, theirs in differ]
        out.append("")
    out += ["Every column, rows alike out of rows compared:", "",
            "| column | alike | of |", "|---|---|---|"]
    out += [f"| {c} | {n} | {r} |" for c, n, r in ranking]
    out += ["", f"Rows compare by outcome and, for a blocked cell, the step where it "
            f"stopped (watch, post, read): a {lsm} refusal and a watchpol refusal of "
            f"the same post agree. {lsm} ran after watchpol at model none, which logs "
            f"every decision; a watch or post watchpol allowed that still failed is "
            f"{lsm}'s (blocked@watch:{lsm}, blocked@post:{lsm}). The lab's own columns "
            "label their parties in the selinux and smack profiles; the "
            f"{lsm} boot is unlabelled, like the plain profile."]
    return "\n".join(out) + "\n"


def answer_checks(path, lsm, ranking, differ):
    """A patch folder's expected-comparison.txt: 'closest COLUMN' and one
    'differ ROW' per row that differs from it; the run must match it."""
    want_best, want_rows, diags = None, set(), []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) == 2 and words[0] == "closest":
            want_best = words[1]
        elif len(words) == 2 and words[0] == "differ":
            want_rows.add(words[1])
        else:
            diags.append(f"{path.name}:{n}: want 'closest COLUMN' or 'differ ROW'")
    best = ranking[0][0] if ranking else None
    got_rows = {s for s, _, _ in differ}
    if want_best is None:
        diags.append(f"{path.name}: no 'closest' line")
    elif best != want_best:
        diags.append(f"{lsm} behaves most like {best}, {path.name} says {want_best}")
    diags += [f"differs on {s}, which {path.name} does not list" for s in sorted(got_rows - want_rows)]
    diags += [f"{path.name} lists {s}, which does not differ" for s in sorted(want_rows - got_rows)]
    return Node("known_answer", not diags, diags)


def kcidb_status_checks(doc, boots, cells):
    """Every test of the KCIDB document has the status the report's verdict
    gives the result or cell of the same path (verdict(), cell_verdict()),
    and every result and cell has its test."""
    want, got = {}, {}
    for boot in boots:
        for path, leaf in boot.leaves():
            want.setdefault(kcidb.kcidb_path(path.split(".")), []).append(verdict(leaf))
    for c in cells:
        want.setdefault(kcidb.cell_path(c), []).append(cell_verdict(c))
    for t in doc["tests"]:
        got.setdefault(t.get("path", ""), []).append(t.get("status", "none"))
    bad = []
    for path in list(dict.fromkeys(list(want) + list(got))):
        mine, theirs = sorted(want.get(path, [])), sorted(got.get(path, []))
        if mine == theirs:
            continue
        if not theirs:
            bad.append(f"{path}: kcidb.json has no test, the report's verdict is "
                       f"{', '.join(mine)}")
        elif not mine:
            bad.append(f"{path}: kcidb.json says {', '.join(theirs)}, the report judged "
                       "no such result")
        else:
            bad.append(f"{path}: kcidb.json says {', '.join(theirs)}, the report's verdict "
                       f"is {', '.join(mine)}")
    return Node("statuses_are_verdicts", not bad, bad[:40] + (
        [f"{len(bad)} paths in all"] if len(bad) > 40 else []) or
        [f"{len(doc['tests'])} tests, each with the report's verdict"])


def kcidb_checks(results, boots, cells):
    """Write results/kcidb.json (harness/kcidb.py), check it against
    harness/kcidb.schema.json, and check that each test's status is the
    report's own verdict on it."""
    build = Path(os.environ.get("BUILD", TOP / "build"))
    version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "linux-source-6.12"],
                             capture_output=True, text=True).stdout.strip() or "unknown"
    patches = [TOP / "kernel-patches" / n for n in names(TOP / "kernel-patches/series")]
    try:
        doc = kcidb.report(TOP, build, boots, cells, patches,
                           f"linux-source-6.12 {version} with watchlab's series "
                           f"({len(patches)} patches)", verdict, cell_verdict)
        (results / "kcidb.json").write_text(json.dumps(doc, indent=1) + "\n")
        errors = kcidb.schema_errors(doc)
        diags = errors or [f"kcidb.json: {len(doc['tests'])} tests, {len(doc['builds'])} "
                           f"builds, schema {doc['version']['major']}.{doc['version']['minor']}"]
        statuses = kcidb_status_checks(json.loads((results / "kcidb.json").read_text()),
                                       boots, cells)
    except (OSError, ImportError, subprocess.CalledProcessError) as e:
        errors = diags = [f"kcidb.json not written: {e}"]
        statuses = Node("statuses_are_verdicts", False, ["no kcidb.json to check"])
    checks = [Node("schema_valid", not errors, diags), statuses]
    return Node("kcidb", all(c.ok for c in checks), [], checks)


def main():
    # --shard: a run of some of the boots (make test BOOTS=...): each boot's
    # own checks only; the checks across boots (the sources, who refused,
    # SECURITY.md, the comparison) wait for the merge (make report RESULTS=).
    args = sys.argv[1:]
    shard = bool(args) and args[0] == "--shard"
    args = args[1:] if shard else args
    results = Path(args[0])
    boots, cells, docs, replayed, closing, manifests = [], [], [], [], [], []
    byo, byo_lsm, answers = [], None, []
    for spec in args[1:]:
        name, profile, kind = spec.rsplit(":", 2)
        if kind == "doc":
            docs.append(Path(name))
            continue
        if kind == "answer":
            answers.append(Path(name))
            continue
        if kind == "ktap":
            doc = results / f"{name}.ktap"
            lines = doc.read_text().splitlines() if doc.exists() else []
            suites = parse_ktap(lines, doc.name) or [
                Node("missing", False, [f"{doc.name}: no KTAP results"], fault="MISS")]
            boots.append(Node(name, all(s.ok for s in suites), [], suites))
            continue
        log = results / f"console-{name}.log"
        text = log.read_text(errors="replace") if log.exists() else ""
        status_file = Path(f"{log}.status")
        status = status_file.read_text().strip() if status_file.exists() else ""
        if status.endswith(" cached"):
            replayed.append(name)
        lines = rejoin_interrupted(text.splitlines())
        suites = parse_ktap(lines, log.name)
        boot_cells = matrix_cells(lines, profile) if kind in ("1", "byo") else []
        mfile = results / f"manifest-{name}.ktap"
        manifest = parse_ktap(mfile.read_text().splitlines(), mfile.name) \
            if mfile.exists() else None
        # A SUITES run's manifest already lists only those suites
        # (harness/run-profile.sh asks wlrun --list for them): filtering it
        # again by name dropped their variants (suite_mount_ring).
        suites.append(skip_checks(name, suites))
        suites.append(manifest_checks(name, suites, manifest))
        if manifest is not None:
            manifests.append(manifest)
        suites.append(host_checks(name, text, status))
        only = os.environ.get("SUITES", "").split()
        if kind == "byo" and only and "suite_scenarios" not in only:
            # A SUITES run without the scenarios has no column to compare.
            pass
        elif kind == "byo" and shard:
            boot_cells = [c for c in boot_cells if c["model"] == "none"]
            suites.append(byo_checks(boot_cells))
        elif kind == "byo":
            # A foreign LSM's column: compared with the others, not checked.
            byo_lsm = profile
            # Its column: watchpol at none, the module deciding (a suite
            # SUITES names runs there too, under its own model: not the column).
            boot_cells = [c for c in boot_cells if c["model"] == "none"]
            suites.append(byo_checks(boot_cells))
            byo.extend(boot_cells)
        else:
            if boot_cells:
                suites.append(matrix_checks(boot_cells))
            cells.extend(boot_cells)
        boots.append(Node(name, all(s.ok for s in suites), [], suites))

    if manifests and not shard:
        boots.append(source_checks(manifests, boots, set(os.environ.get("SUITES", "").split())))
    likes = dict(MODEL_LIKE, **NOCONSUMER_COLUMNS, **{SHADOW: "none"})
    if any(c["model"] in likes for c in cells):
        emulation = emulation_checks(cells, {m: like for m, like in likes.items()
                                             if any(c["model"] == m for c in cells)})
        if any(c["model"] == SHADOW for c in cells):
            emulation.children.append(shadow_checks(cells))
            emulation.ok = all(n.ok for n in emulation.children)
        boots.append(emulation)
    if any("at" in c for c in cells) and not shard:
        node, checked = refuser_checks(cells)
        boots.append(node)
        closing.append(f"refusers: {checked} blocked cells checked for who refused and where")
    for path in docs:
        boots.append(doc_checks(path, matrix_markdown(cells)))
    if byo_lsm:
        ranking, differ, at = compare(byo_lsm, byo, cells)
        (results / "comparison.md").write_text(
            comparison_markdown(byo_lsm, ranking, differ, at))
        if ranking:
            closing.append(f"{byo_lsm} behaves like {ranking[0][0]} on {ranking[0][1]} of "
                           f"{ranking[0][2]} rows" + (f"; differs on: {', '.join(s for s, _, _ in differ)}"
                                                     if differ else ""))
        if answers:
            checks = [answer_checks(p, byo_lsm, ranking, differ) for p in answers]
            boots.append(Node("comparison", all(c.ok for c in checks), [], checks))

    boots.append(kcidb_checks(results, boots, cells))
    out = ["KTAP version 1", f"1..{len(boots)}"]
    for i, boot in enumerate(boots, 1):
        emit_ktap(boot, i, 0, out)
    (results / "ktap.txt").write_text("\n".join(out) + "\n")
    (results / "junit.xml").write_text(junit(boots, replayed))
    (results / "matrix.json").write_text(json.dumps(cells, indent=1) + "\n")
    (results / "matrix.md").write_text(matrix_markdown(cells))

    passed = failed = fresh = 0
    skipped, xfails = [], []
    for boot in boots:
        for path, leaf in boot.leaves():
            if leaf.skipped:
                skipped.append(f"{path} ({leaf.directive[4:].strip() or 'no reason'})")
            elif leaf.ok:
                passed += 1
                fresh += boot.name not in replayed
                if leaf.xfail:
                    xfails.append(path.rsplit(".", 1)[-1])
            else:
                failed += 1
                print(f"FAIL {path}")
                for d in leaf.diags[-6:]:
                    print(f"     {d}")
    # A skip is neither a pass nor a failure: counted and named apart.
    if skipped:
        print(f"{len(skipped)} skipped: {', '.join(skipped)}")
    if xfails:
        print(f"{len(xfails)} of the passes are XFAIL, rows that state a kernel property "
              f"(once per boot, no model tested): {', '.join(sorted(set(xfails)))}")
    if replayed:
        print(f"replayed from build/boot-cache (inputs unchanged since a passing run; "
              f"FRESH=1 boots again): {', '.join(replayed)}")
        print(f"fresh: {fresh} passed; replayed: {passed - fresh} passed")
    for line in closing:
        print(line)
    print(f"distinct checks: {distinct_checks(boots)} of {passed + failed} results "
          "(the rest repeat a check under another model or in another boot)")
    reduced = os.environ.get("SUITES", "").split()
    if shard:
        print("shard: each boot's own checks; the checks across boots (sources, "
              "refusers, SECURITY.md, the comparison) run when the shards are merged "
              "(make report RESULTS=\"DIR...\")")
    if reduced:
        print(f"reduced run: only the suites SUITES names ({' '.join(reduced)}); "
              "`make test` always runs every suite")
        print(f"reduced: {passed} passed, {failed} failed")
    else:
        print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
