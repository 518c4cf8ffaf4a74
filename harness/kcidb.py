# SPDX-License-Identifier: GPL-2.0
"""A run's results as KCIDB I/O data (schema 5.3): one checkout (Debian's
linux-source-6.12 with the series), one build per kernel the run booted,
and one test per KTAP result and per matrix cell, with paths a KCIDB
dashboard groups: watchlab.BOOT.SUITE[.MODEL].TEST and
watchlab.matrix.PROFILE.MODEL.ROW.  Each test's status is the report's
own verdict on the result or cell (report.py's verdict() and
cell_verdict(), passed in): this module judges nothing.  Nothing is sent
anywhere: report.py writes results/latest/kcidb.json and checks it against
harness/kcidb.schema.json (Debian's python3-jsonschema) and against its
own verdicts."""

import hashlib
import json
import re
import subprocess
from datetime import datetime, timezone
from pathlib import Path

ORIGIN = "watchlab"
VERSION = {"major": 5, "minor": 3}
SCHEMA = Path(__file__).resolve().parent / "kcidb.schema.json"
EXCERPT_MAX = 16384


def path_segment(name):
    """A KTAP name as KCIDB path segments ([a-zA-Z0-9_-], dot-separated):
    SUITE@MODEL is two levels, a [variant] a suffix, anything else '_'."""
    name = name.replace("@", ".").replace("[", "-").replace("]", "")
    parts = [re.sub(r"[^a-zA-Z0-9_-]", "_", p) for p in name.split(".")]
    return ".".join(p or "_" for p in parts)


def patchset_hash(patches):
    """KCIDB's patchset hash: sha256 over the newline-terminated sha256 of
    each patch file, in the order applied."""
    sums = "".join(hashlib.sha256(p.read_bytes()).hexdigest() + "\n" for p in patches)
    return hashlib.sha256(sums.encode()).hexdigest()


def tree_id(top):
    """The tree line harness/shard-id.sh writes: COMMIT[+CHANGES]."""
    out = subprocess.run([str(top / "harness" / "shard-id.sh"), "--tree"], check=True,
                         capture_output=True, text=True).stdout
    return out.split()[1]


def config_value(config, key):
    m = re.search(rf'^{key}="?(.*?)"?$', config, re.M)
    return m.group(1) if m else ""


def build_record(checkout_id, obj, name, config_name):
    """A build of a kernel the run booted, from its .config."""
    config = (obj / ".config").read_text() if (obj / ".config").exists() else ""
    build = {"id": f"{checkout_id}:{name}", "checkout_id": checkout_id, "origin": ORIGIN,
             "architecture": "x86_64", "config_name": config_name,
             "status": "PASS" if (obj / "arch/x86/boot/bzImage").exists() else "MISS",
             "misc": {"config_sha256": hashlib.sha256(config.encode()).hexdigest()}}
    compiler = config_value(config, "CONFIG_CC_VERSION_TEXT")
    if compiler:
        build["compiler"] = compiler
    return build


def excerpt(lines):
    text = "\n".join(lines)
    return text[-EXCERPT_MAX:]


def kcidb_path(names):
    return "watchlab." + ".".join(path_segment(n) for n in names)


def cell_names(cell):
    return ["matrix", cell["profile"], cell["model"], cell["scenario"]]


def cell_path(cell):
    return kcidb_path(cell_names(cell))


def test_records(boots, build_of, run_id, status):
    """One test per KTAP result of each boot and host part (a report path
    is BOOT.SUITE.TEST; no name holds a dot of its own), STATUS(result)
    its status."""
    tests = []
    for boot in boots:
        for path, leaf in boot.leaves():
            test = {"id": f"{run_id}:{path}", "build_id": build_of(boot.name),
                    "origin": ORIGIN, "path": kcidb_path(path.split(".")),
                    "status": status(leaf)}
            if leaf.directive:
                test["misc"] = {"directive": leaf.directive}
            if leaf.diags and not leaf.ok:
                test["log_excerpt"] = excerpt(leaf.diags)
            tests.append(test)
    return tests


def cell_records(cells, build_id, run_id, status):
    """One test per matrix cell, STATUS(cell) its status (the cells come
    from the lab kernel's boots)."""
    tests = []
    for c in cells:
        names = cell_names(c)
        tests.append({"id": f"{run_id}:{'.'.join(names)}", "build_id": build_id,
                      "origin": ORIGIN, "path": kcidb_path(names), "status": status(c),
                      "misc": {k: c[k] for k in ("expected", "observed", "evidence", "threat",
                                                 "at", "row_failed") if c.get(k)}})
    return tests


def report(top, build, boots, cells, patches, series_comment, status, cell_status):
    """The KCIDB document of a run: BOOTS (report.py's nodes, one per boot
    or host part), CELLS (its matrix cells) and PATCHES (the series' files,
    in order); STATUS and CELL_STATUS give a result's and a cell's status
    (report.py's verdict() and cell_verdict())."""
    tree = tree_id(top)
    checkout_id = f"{ORIGIN}:{tree}"
    key = (build / "linux.patches-key")
    checkout = {"id": checkout_id, "origin": ORIGIN, "tree_name": "debian-linux-source-6.12",
                "patchset_hash": patchset_hash(patches), "comment": series_comment,
                "valid": True,
                "misc": {"watchlab_tree": tree,
                         "patched_source_key": key.read_text().strip() if key.exists() else ""}}
    if re.fullmatch(r"[0-9a-f]{40}", tree):
        checkout["git_commit_name"] = tree
    kernels = {"lab": (build / "kbuild-lab", "tinyconfig+kvm_guest+lab"),
               "debug": (build / "kbuild-debug", "tinyconfig+kvm_guest+lab+debug")}
    debug_used = any(b.name.endswith("-debug") for b in boots)
    builds = [build_record(checkout_id, obj, f"kbuild-{kind}", name)
              for kind, (obj, name) in kernels.items() if kind == "lab" or debug_used]

    def build_of(boot):
        # The debug boots ran the debug kernel; the others, and the host
        # parts (the tree and its series), the lab kernel.
        kind = "debug" if boot.endswith("-debug") else "lab"
        return f"{checkout_id}:kbuild-{kind}"

    # The checkout and builds are the tree's; the tests are this run's.
    run_id = f"{checkout_id}:{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%SZ')}"
    tests = test_records(boots, build_of, run_id, status) + \
        cell_records(cells, build_of("lab"), run_id, cell_status)
    # Ids are unique per object kind: a name reported twice gets #2, #3...
    seen = {}
    for t in tests:
        n = seen[t["id"]] = seen.get(t["id"], 0) + 1
        if n > 1:
            t["id"] += f"#{n}"
    return {"version": dict(VERSION), "checkouts": [checkout], "builds": builds, "tests": tests}


def schema_errors(doc, limit=20):
    """What in DOC breaks harness/kcidb.schema.json, as readable lines."""
    import jsonschema  # Debian's python3-jsonschema

    schema = json.loads(SCHEMA.read_text())
    validator = jsonschema.Draft202012Validator(schema,
                                                format_checker=jsonschema.FormatChecker())
    out = []
    for err in validator.iter_errors(doc):
        where = "/".join(str(p) for p in err.absolute_path) or "(top)"
        out.append(f"{where}: {err.message[:200]}")
        if len(out) >= limit:
            break
    return out
