#!/usr/bin/env python3
"""The verdicts of make mutants (harness/mutants.sh), one JSON file a mutant,
and the report made of them.

  mutants-report.py record FILE FIELD=VALUE...   write one verdict
  mutants-report.py line FILE                    its progress line
  mutants-report.py report DIR SECONDS MUTANT... report.md, report.json
  mutants-report.py ktap DIR MUTANT...           KTAP: each one killed?
  mutants-report.py kills BASE BASE -- RUN...    the checks that kill
  mutants-report.py flaky BASE BASE              the checks the two differ on
  mutants-report.py changes BASE BASE -- RUN...  the report's verdict lines
                                                 that a mutant of harness/ changed
  mutants-report.py verdict UNJUDGED KILLERS UNREPRODUCED

The judge (kills): a check kills only if it fails in every run of the
mutant's boot (the first and its re-runs: a kill must reproduce) and in
none of the baseline runs of that boot (two, MUTANT_BASELINE_RUNS); a check
the baseline runs differ on is flaky and can never kill.  Each FILE lists
checks, one a line.  Noise is bounded, not ruled out: a check that fails at
random kills with probability (1-p)^B p^R for B baseline runs and R runs of
the mutant, at most false_kill_bound(B, R) (1/16 for 2 and 2).

The score counts the mutants not argued equivalent: killed / (killed +
survived).  A mutant that is stillborn (does not build), unjudged (a boot's
report did not finish), flaky (its kill did not reproduce) or has no
verdict fails the report: it says nothing about the lab's power; so does a
mutant argued equivalent that was killed (its argument is wrong).
"""
import json
import re
import sys
from pathlib import Path

LISTS = ("boots", "suites", "killers", "unreproduced")
NUMBERS = ("build_s", "boot_s", "baseline_runs", "reproduce")
# A baseline's runs: fails, fails2, fails3... (harness/mutants.sh).
BASELINE_RUN = re.compile(r"^fails\d*$")
# The checks of a boot that the host makes whatever the code under test
# does (report.py host_checks(), and the manifest, the KTAP plan and a
# block left unfinished, which a boot cut short fails): a timeout, a runner
# that never finished, a splat.  So are those of the whole run that only
# count what reported (sources.kunit_cases: a hang before KUnit leaves its
# cases unreported; a failing case fails its own check).  A mutant killed
# by these alone is "host only"; by any other check, "semantic".
HOST_PARTS = ("host", "manifest", "plan", "unfinished")
HOST_CHECKS = ("sources.kunit_cases",)
# The verdicts that say nothing about the lab's power: each fails the report.
NO_JUDGEMENT = ("stillborn", "unjudged", "flaky")


def read_checks(path):
    """The checks a file lists, one a line (an empty or missing file: none)."""
    p = Path(path)
    return {line for line in p.read_text().splitlines() if line.strip()} if p.exists() else set()


def verdict_lines(path):
    """The verdict lines a file holds (a missing file: none)."""
    p = Path(path)
    return set(p.read_text().splitlines()) if p.exists() else set()


def kills(baselines, runs):
    """The checks that fail in every run of RUNS and in no baseline run.
    Two baseline runs of the boot are needed: one sample cannot tell a
    check that always fails there from one that flips."""
    if len(baselines) < 2:
        raise ValueError(f"{len(baselines)} baseline run(s): a check kills only against two")
    if not runs:
        raise ValueError("no run of the mutant")
    return set.intersection(*map(set, runs)) - set().union(*baselines)


def baseline_runs(base):
    """The files of a baseline's runs, in the order they ran."""
    files = [f for f in Path(base).iterdir() if BASELINE_RUN.match(f.name)]
    return sorted(files, key=lambda f: int(f.name[5:] or 1))


def false_kill_bound(baselines, runs):
    """The most a check that fails at random, with probability p in every
    run whatever the mutant, can kill a mutant: it must pass BASELINES runs
    and fail RUNS runs, (1-p)^B p^R, greatest at p = R / (B + R)."""
    b, r = baselines, runs
    return b ** b * r ** r / (b + r) ** (b + r)


def judge_line(verdicts):
    """What the verdicts' judge sampled, and the false kill it allows."""
    # Verdicts recorded before the judge said: 2 baseline runs, 1 re-run.
    samples = sorted({(v.get("baseline_runs") or 2, v.get("reproduce") or 1)
                      for v in verdicts})
    worst = max(false_kill_bound(b, r + 1) for b, r in samples)
    said = "; ".join(f"{b} baseline runs and {r} re-run of a kill" if r == 1 else
                     f"{b} baseline runs and {r} re-runs of a kill" for b, r in samples)
    return (f"Judge: {said}: a check that fails at random, whatever the mutant, "
            f"kills with probability at most {worst:.2%} (MUTANT_BASELINE_RUNS, "
            "MUTANT_REPRODUCE).")


def flaky(baselines):
    """The checks that fail in some baseline run of a boot and pass in
    another: noise, which can never kill."""
    return set().union(*baselines) - set.intersection(*map(set, baselines))


def changes(baselines, runs):
    """The verdict lines (report.py's KTAP results and closing line, on a
    recorded run) that every run of a mutant of harness/ changed: "+LINE"
    for a line no baseline printed, "-LINE" for one both printed and the
    run did not.  A line the baselines differ on is noise, never a change."""
    if len(baselines) < 2:
        raise ValueError(f"{len(baselines)} baseline run(s): a change counts only against two")
    every, some = set.intersection(*map(set, baselines)), set().union(*baselines)
    found = [{f"+{line}" for line in set(r) - some} | {f"-{line}" for line in every - set(r)}
             for r in runs]
    return set.intersection(*found) if found else set()


def decide(unjudged, killers, unreproduced):
    """A mutant's verdict: unjudged if a report did not finish, killed by
    checks that failed twice, flaky if checks failed once and not in the
    re-run (a kill that does not reproduce is no kill), else survived."""
    if unjudged:
        return "unjudged"
    if killers:
        return "killed"
    if unreproduced:
        return "flaky"
    return "survived"


def killed_by(killers):
    """ "semantic" when a check of the code under test killed it, "host only"
    when only the host's checks of a boot did (a hang, a splat)."""
    def host(check):
        parts = check.split(".")
        if check.startswith("verdict:"):
            return False
        return check in HOST_CHECKS or (len(parts) > 1 and parts[1] in HOST_PARTS)
    return "host only" if killers and all(map(host, killers)) else "semantic"


def arg_value(value):
    """An argument's value, or the text of FILE for @FILE: harness/mutants.sh
    passes its lists of kills so, as they can outgrow one argument."""
    return Path(value[1:]).read_text() if value.startswith("@") else value


def record(path, pairs):
    verdict = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        value = arg_value(value)
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
        text += f"; killed by: {killed_by(v['killers'])}"
    if v.get("unreproduced"):
        text += f"; did not reproduce: {v['unreproduced'][0]}"
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
    stillborn = [v for v in verdicts if v["verdict"] in NO_JUDGEMENT]
    # An argued-equivalent mutant that a check killed twice: the argument
    # is wrong (or the check is), and the run fails until one is fixed.
    wrong = [v for v in equivalent if v["verdict"] == "killed"]
    build = sum(v["build_s"] for v in verdicts)
    boot = sum(v["boot_s"] for v in verdicts)

    rows = ["| mutant | layer | threat | verdict | killed by | kind | build s | boots s |",
            "|---|---|---|---|---|---|---:|---:|"]
    for v in verdicts:
        verdict = v["verdict"] + (" (equivalent)" if v["equivalent"] else "")
        killers = ", ".join(f"`{k}`" for k in v["killers"][:3])
        if len(v["killers"]) > 3:
            killers += f" and {len(v['killers']) - 3} more"
        kind = killed_by(v["killers"]) if v["verdict"] == "killed" else ""
        rows.append(f"| {v['mutant']} | {v['layer']} | {v['threat']} | {verdict} | "
                    f"{killers} | {kind} | {v['build_s']} | {v['boot_s']} |")
    layers = sorted({v["layer"] for v in verdicts})
    by_layer = ", ".join(
        f"{layer}: {sum(1 for v in killed if v['layer'] == layer)} of "
        f"{sum(1 for v in scored if v['layer'] == layer)}" for layer in layers)
    host_only = [v for v in killed if killed_by(v["killers"]) == "host only"]
    score = (f"mutation score: {len(killed)} of {len(scored)} killed "
             f"({len(host_only)} by host checks only; {len(equivalent)} equivalent)")
    if wrong:
        score += (f"; FAILED: {len(wrong)} argued equivalent and killed: "
                  + ", ".join(v["mutant"] for v in wrong))
    md = ["# make mutants", "",
          f"{len(verdicts)} mutants; {score}; by layer: {by_layer}.", "",
          f"Time: {minutes(seconds)} for this run; recorded per mutant: "
          f"kernel and guest rebuild {minutes(build)}, boots {minutes(boot)}.", ""]
    if verdicts:
        md += [judge_line(verdicts), ""]
    md += rows
    for base in sorted((out / "baseline").glob("*/fails")):
        runs = [read_checks(f) for f in baseline_runs(base.parent)]
        fails = sorted(set().union(*runs))
        if fails:
            md += ["", f"Baseline {base.parent.name} fails without any mutant "
                       f"({len(fails)} checks; none of them can kill): "
                       + ", ".join(f"`{f}`" for f in fails[:5])]
        noise = sorted(flaky(runs)) if len(runs) > 1 else []
        if noise:
            md += ["", f"Baseline {base.parent.name} is flaky: {len(noise)} checks differ "
                       f"between its {len(runs)} runs (none of them can kill): "
                       + ", ".join(f"`{f}`" for f in noise[:5])]
    for v in survived + equivalent + stillborn:
        md += ["", f"## {v['mutant']}: {v['verdict']}", "", v["bug"] + "."]
        if v["equivalent"]:
            md.append(f"Equivalent: {v['equivalent']}")
        if v["verdict"] == "killed":
            md.append(f"Killed by: {killed_by(v['killers'])}: "
                      + ", ".join(f"`{k}`" for k in v["killers"][:5]))
        if v.get("detail"):
            md.append(v["detail"])
    (out / "report.md").write_text("\n".join(md) + "\n")
    (out / "report.json").write_text(json.dumps(
        {"killed": len(killed), "scored": len(scored), "equivalent": len(equivalent),
         "seconds": seconds, "mutants": verdicts}, indent=1) + "\n")

    print("\n".join(rows))
    for v in killed + wrong:
        print(f"KILLED {v['mutant']}: killed by: {killed_by(v['killers'])}")
    for v in wrong:
        print(f"EQUIVALENT KILLED {v['mutant']}: its Equivalent: claim is wrong "
              f"({v['equivalent']}): killed by {', '.join(v['killers'][:3])}")
    for v in survived:
        print(f"SURVIVED {v['mutant']}: {v['bug']}")
    for v in stillborn:
        print(f"{v['verdict'].upper()} {v['mutant']}: {v.get('detail') or 'does not build'}")
    for n in missing:
        print(f"NO VERDICT {n}")
    print(f"watchlab: mutants: report in {out}/report.md; {minutes(seconds)}")
    print(score)
    return 1 if stillborn or missing or wrong else 0


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
    if cmd == "kills":
        split = args.index("--")
        bases, runs = args[:split], args[split + 1:]
        killers = kills([read_checks(b) for b in bases], [read_checks(r) for r in runs])
        print("\n".join(sorted(killers)) if killers else "", end="\n" if killers else "")
        return 0
    if cmd == "changes":
        split = args.index("--")
        found = changes([verdict_lines(b) for b in args[:split]],
                        [verdict_lines(r) for r in args[split + 1:]])
        print("".join(f"host.recorded: {c}\n" for c in sorted(found)), end="")
        return 0
    if cmd == "flaky":
        noise = flaky([read_checks(b) for b in args])
        print("\n".join(sorted(noise)) if noise else "", end="\n" if noise else "")
        return 0
    if cmd == "verdict":
        print(decide(*(arg_value(a).strip() for a in args)))
        return 0
    if cmd == "report":
        return report(Path(args[0]), int(args[1]), args[2:])
    print(f"mutants-report.py: no command {cmd}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
