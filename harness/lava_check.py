#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Run the lab's boots as LAVA jobs with Debian's lava-run: make test's lava part.

usage: lava_check.py [--server] RESULTS_DIR BOOT SPEC...

Writes a LAVA job per SPEC (the specs harness/boot-all.sh takes) into
RESULTS_DIR/lava/ with harness/lava-jobs.sh, has lava-run validate every
one of them against the local qemu device, runs BOOT's job, and compares
LAVA's test results with the lab's own run of the same boot
(RESULTS_DIR/console-BOOT.log, parsed as report.py parses it): the same
results, case by case, pass, fail or skip.  Prints RESULTS_DIR/lava.ktap's
KTAP to stdout; report.py reads it as the part "lava".

--server: BOOT's job also goes through this machine's LAVA server, submitted
with lavacli to a lab harness/lava-lab.sh starts and stops
(harness/lava_lab.py), its results compared in the same way.
"""

import collections
import os
import subprocess
import sys
from pathlib import Path

import yaml

import report

HARNESS = Path(__file__).resolve().parent
LAVA_RUN = "/usr/bin/lava-run"


def ktap_block(name, tests):
    """A subtest block: tests are (name, ok, diags)."""
    lines = ["    KTAP version 1", f"    # Subtest: {name}", f"    1..{len(tests)}"]
    for i, (test, ok, diags) in enumerate(tests, 1):
        lines += [f"    # {d}" for d in diags]
        lines.append(f"    {'ok' if ok else 'not ok'} {i} {test}")
    return lines, all(ok for _, ok, _ in tests)


def lava_run(args, log):
    """lava-run with ARGS, its log to LOG; its exit status and the log's records."""
    with open(log, "w") as out:
        rc = subprocess.run([LAVA_RUN] + args, stdout=out, stderr=subprocess.STDOUT,
                            check=False).returncode
    records = []
    for line in Path(log).read_text(errors="replace").splitlines():
        try:
            rec = yaml.safe_load(line)
        except yaml.YAMLError:
            continue
        if isinstance(rec, dict):
            records.append(rec)
    return rc, records


def errors_of(records):
    return [str(r.get("msg")) for r in records if r.get("lvl") in ("error", "exception")]


def validate_jobs(lava, device):
    """Every job validates against the device: lava-run --validate."""
    tests = []
    for job in sorted(lava.glob("*.yaml")):
        if job.name == device.name:
            continue
        rc, records = lava_run(["--validate", "--job-id", str(os.getpid()),
                                "--output-dir", str(lava / "validate"),
                                "--device", str(device), str(job)],
                               lava / f"validate-{job.stem}.log")
        diags = [] if rc == 0 else [f"lava-run --validate {job.name}: exit {rc}"] + \
            errors_of(records)[:5]
        tests.append((f"{job.stem.replace('-', '_')}_job_validates", rc == 0, diags))
    return tests


def lava_results(records, definition):
    """LAVA's test cases of the watchlab monitor: (name, pass|fail|skip),
    the name as the monitor read it with its spaces made '_', as
    report.py names a KTAP result."""
    out = []
    for rec in records:
        msg = rec.get("msg")
        if rec.get("lvl") == "results" and isinstance(msg, dict) \
                and msg.get("definition") == definition:
            name = str(msg.get("extra", {}).get("test_case_id", msg.get("case")))
            out.append((name.strip().replace(" ", "_"), msg.get("result")))
    return out


def lab_results(log):
    """The lab's own results of the boot, every KTAP line report.py parsed."""
    lines = report.rejoin_interrupted(log.read_text(errors="replace").splitlines())
    out = []

    def walk(node):
        out.append((node.name, "skip" if node.skipped else "pass" if node.ok else "fail"))
        for child in node.children:
            walk(child)

    for suite in report.parse_ktap(lines, log.name):
        walk(suite)
    return out


def compare(lava_cases, lab_cases):
    """The results both sides have, and those only one side has."""
    lava_count = collections.Counter(lava_cases)
    lab_count = collections.Counter(lab_cases)
    only_lava = list((lava_count - lab_count).elements())
    only_lab = list((lab_count - lava_count).elements())
    diags = [f"{len(lava_cases)} results through LAVA, {len(lab_cases)} in the lab's own run"]
    diags += [f"only in LAVA: {n} {r}" for n, r in only_lava[:10]]
    diags += [f"only in the lab's run: {n} {r}" for n, r in only_lab[:10]]
    return not only_lava and not only_lab and bool(lab_cases), diags


def run_boot(results, lava, device, boot):
    """BOOT's job through lava-run, and its results against the lab's own."""
    rc, records = lava_run(["--job-id", str(os.getpid()), "--output-dir",
                            str(lava / f"run-{boot}"), "--device", str(device),
                            str(lava / f"{boot}.yaml")], lava / f"{boot}.log")
    jobs = [r["msg"] for r in records if r.get("lvl") == "results"
            and isinstance(r.get("msg"), dict) and r["msg"].get("definition") == "lava"]
    job_ok = rc == 0 and any(j.get("case") == "job" and j.get("result") == "pass" for j in jobs)
    monitor_ok = any(j.get("case") == "lava-test-monitor" and j.get("result") == "pass"
                     for j in jobs)
    tests = [("job_finished", job_ok and monitor_ok,
              [] if job_ok and monitor_ok else
              [f"lava-run exit {rc}; job pass: {job_ok}; monitor reached its end: {monitor_ok}"]
              + errors_of(records)[:5])]
    console = results / f"console-{boot}.log"
    if not console.exists():
        tests.append(("results_equal_lab", False,
                      [f"{console.name}: no lab run of {boot} in {results}"]))
        return tests
    ok, diags = compare(lava_results(records, f"watchlab-{boot}"), lab_results(console))
    tests.append(("results_equal_lab", ok, diags))
    return tests


def main(argv):
    server = len(argv) > 1 and argv[1] == "--server"
    if server:
        argv = argv[:1] + argv[2:]
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    results, boot, specs = Path(argv[1]), argv[2], argv[3:]
    lava = results / "lava"
    lava.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(HARNESS / "lava-jobs.sh"), str(lava)] + specs, check=True)
    device = lava / "device-qemu.yaml"
    blocks = [("lava_jobs", validate_jobs(lava, device)),
              (f"lava_run_{boot.replace('-', '_')}", run_boot(results, lava, device, boot))]
    if server:
        import lava_lab  # pylint: disable=import-outside-toplevel (only --server needs it)
        lava_lab.stop_on_term()
        blocks += lava_lab.run(results, [boot], specs)
    out = ["KTAP version 1", f"1..{len(blocks)}"]
    for i, (name, tests) in enumerate(blocks, 1):
        lines, ok = ktap_block(name, tests)
        out += lines + [f"{'ok' if ok else 'not ok'} {i} {name}"]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
