#!/usr/bin/env python3
"""The verdicts of make mutants (harness/mutants.sh), one JSON file a mutant,
and the report made of them.

  mutants-report.py record FILE FIELD=VALUE...   write one verdict
  mutants-report.py line FILE                    its progress line
  mutants-report.py report DIR SECONDS MUTANT... report.md, report.json
  mutants-report.py ktap DIR MUTANT...           KTAP: each one killed?

The score counts the mutants not argued equivalent: killed / (killed +
survived).  A mutant that is stillborn (does not build), unjudged (a boot's
report did not finish) or has no verdict fails the report: it says nothing
about the lab's power.
"""
import json
import sys
from pathlib import Path

LISTS = ("boots", "suites", "killers")
NUMBERS = ("build_s", "boot_s")


def record(path, pairs):
    verdict = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        if name in LISTS:
            verdict[name] = value.split("\n") if name == "killers" else value.split()
            verdict[name] = [v for v in verdict[name] if v]
        elif name in NUMBERS:
            verdict[name] = int(value)
        else:
            verdict[name] = value or None
    Path(path).write_text(json.dumps(verdict, indent=1) + "\n")


def line(path):
    v = json.loads(Path(path).read_text())
    text = f"build {v['build_s']} s, boots {v['boot_s']} s"
    if v["killers"]:
        more = len(v["killers"]) - 1
        text += f", by {v['killers'][0]}" + (f" (+{more})" if more else "")
    return text


def minutes(s):
    return f"{s // 60} min {s % 60:02d} s"


def report(out, seconds, names):
    verdicts, missing = [], []
    for n in names:
        p = out / "verdicts" / f"{n}.json"
        if p.exists():
            verdicts.append(json.loads(p.read_text()))
        else:
            missing.append(n)
    equivalent = [v for v in verdicts if v["equivalent"]]
    scored = [v for v in verdicts if not v["equivalent"]]
    killed = [v for v in scored if v["verdict"] == "killed"]
    survived = [v for v in scored if v["verdict"] == "survived"]
    stillborn = [v for v in verdicts if v["verdict"] in ("stillborn", "unjudged")]
    build = sum(v["build_s"] for v in verdicts)
    boot = sum(v["boot_s"] for v in verdicts)

    rows = ["| mutant | layer | threat | verdict | killed by | build s | boots s |",
            "|---|---|---|---|---|---:|---:|"]
    for v in verdicts:
        verdict = v["verdict"] + (" (equivalent)" if v["equivalent"] else "")
        killers = ", ".join(f"`{k}`" for k in v["killers"][:3])
        if len(v["killers"]) > 3:
            killers += f" and {len(v['killers']) - 3} more"
        rows.append(f"| {v['mutant']} | {v['layer']} | {v['threat']} | {verdict} | "
                    f"{killers} | {v['build_s']} | {v['boot_s']} |")
    layers = sorted({v["layer"] for v in verdicts})
    by_layer = ", ".join(
        f"{layer}: {sum(1 for v in killed if v['layer'] == layer)} of "
        f"{sum(1 for v in scored if v['layer'] == layer)}" for layer in layers)
    score = (f"mutation score: {len(killed)} of {len(scored)} killed "
             f"({len(equivalent)} equivalent)")
    md = ["# make mutants", "",
          f"{len(verdicts)} mutants; {score}; by layer: {by_layer}.", "",
          f"Time: {minutes(seconds)} for this run; recorded per mutant: "
          f"kernel and guest rebuild {minutes(build)}, boots {minutes(boot)}.", ""]
    md += rows
    for base in sorted((out / "baseline").glob("*/fails")):
        fails = base.read_text().split()
        if fails:
            md += ["", f"Baseline {base.parent.name} fails without any mutant "
                       f"({len(fails)} checks; none of them can kill): "
                       + ", ".join(f"`{f}`" for f in fails[:5])]
    for v in survived + equivalent + stillborn:
        md += ["", f"## {v['mutant']}: {v['verdict']}", "", v["bug"] + "."]
        if v["equivalent"]:
            md.append(f"Equivalent: {v['equivalent']}")
        if v.get("detail"):
            md.append(v["detail"])
    (out / "report.md").write_text("\n".join(md) + "\n")
    (out / "report.json").write_text(json.dumps(
        {"killed": len(killed), "scored": len(scored), "equivalent": len(equivalent),
         "seconds": seconds, "mutants": verdicts}, indent=1) + "\n")

    print("\n".join(rows))
    for v in survived:
        print(f"SURVIVED {v['mutant']}: {v['bug']}")
    for v in stillborn:
        print(f"{v['verdict'].upper()} {v['mutant']}: {v.get('detail') or 'does not build'}")
    for n in missing:
        print(f"NO VERDICT {n}")
    print(f"watchlab: mutants: report in {out}/report.md; {minutes(seconds)}")
    print(score)
    return 1 if stillborn or missing else 0


def ktap(out, names):
    """make test's check: each mutant named is killed, by which tests."""
    lines = ["KTAP version 1", "1..1", "    KTAP version 1", "    # Subtest: mutants",
             f"    1..{len(names)}"]
    for i, n in enumerate(names, 1):
        p = out / "verdicts" / f"{n}.json"
        v = json.loads(p.read_text()) if p.exists() else {"verdict": "missing", "killers": []}
        for k in v["killers"]:
            lines.append(f"    # {n}: killed by {k}")
        if v["verdict"] != "killed":
            lines.append(f"    # {n}: {v['verdict']}, not killed: the lab no longer catches it")
        lines.append(f"    {'ok' if v['verdict'] == 'killed' else 'not ok'} {i} {n}")
    ok = all(not line.startswith("    not ok") for line in lines)
    lines.append(f"{'ok' if ok else 'not ok'} 1 mutants")
    return "\n".join(lines)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "record":
        record(args[0], args[1:])
        return 0
    if cmd == "line":
        print(line(args[0]))
        return 0
    if cmd == "ktap":
        print(ktap(Path(args[0]), args[1:]))
        return 0
    if cmd == "report":
        return report(Path(args[0]), int(args[1]), args[2:])
    print(f"mutants-report.py: no command {cmd}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
