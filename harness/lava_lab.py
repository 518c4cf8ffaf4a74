#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The lab's boots through a real LAVA server: make lava-lab, and make
test's lava part beside lava-run (harness/lava_check.py --server).

usage: lava_lab.py RESULTS_DIR BOOTS SPEC...

BOOTS is a comma-separated list of boots by log name.  Writes the jobs of
SPEC (the specs harness/boot-all.sh takes) with harness/lava-jobs.sh into
RESULTS_DIR/lava/server/, the same definitions make lava-jobs writes;
starts the LAVA lab of this machine (harness/lava-lab.sh start: PostgreSQL,
lava-server's gunicorn, its scheduler and one lava-worker with one qemu
device); submits each boot's job with `lavacli jobs submit`, waits for it,
reads its test results back through the server's API (`lavacli results`)
and compares them case by case with the lab's own run of that boot
(RESULTS_DIR/console-BOOT.log), as lava_check.py compares lava-run's; then
stops the lab (harness/lava-lab.sh stop), whatever happened.  Prints KTAP:
a block lava_lab (started, stopped, nothing left running) and one block
lava_server_BOOT per boot (job_complete, results_equal_lab).
"""

import contextlib
import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml

import lava_check

HARNESS = Path(__file__).resolve().parent
LAVA_LAB = HARNESS / "lava-lab.sh"
IDENTITY = "watchlab"
# Debian's tools first: lavacli is Debian's python3's.
PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
# One lab session (start to stop) at a time on this machine: every clone's
# make test uses the same database, port, worker and device, and a session
# stops the PostgreSQL it started.
LOCK = Path("/run/lock/watchlab-lava-lab.lock")
LOCK_WAIT_S = 30 * 60


class LabBusy(Exception):
    """Another session held the lab too long."""


@contextlib.contextmanager
def session_lock(path=LOCK, wait=LOCK_WAIT_S):
    """Hold PATH's lock for a session; yields the seconds waited for it."""
    begin = time.monotonic()
    with open(path, "a") as lock:
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() - begin >= wait:
                    raise LabBusy(f"{path}: another LAVA lab session held it for "
                                  f"{wait} s") from None
                time.sleep(2)
        try:
            yield time.monotonic() - begin
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def server_results(results, definition):
    """The test cases of DEFINITION in `lavacli results --yaml`'s list:
    (name, pass|fail|skip), the name as the monitor read it (the case's
    metadata keeps the test_case_id; the server lists extra as a list of
    one-key maps), spaces made '_' as lava_check.lava_results makes them."""
    out = []
    for case in results or []:
        if not isinstance(case, dict) or case.get("suite") != definition:
            continue
        meta = case.get("metadata") or {}
        extra = meta.get("extra") if isinstance(meta, dict) else None
        name = None
        if isinstance(extra, dict):
            name = extra.get("test_case_id")
        elif isinstance(extra, list):
            name = next((e["test_case_id"] for e in extra
                         if isinstance(e, dict) and "test_case_id" in e), None)
        name = str(name if name is not None else case.get("name"))
        out.append((name.strip().replace(" ", "_"), str(case.get("result"))))
    return out


class Lab:
    """The LAVA lab of this machine, through harness/lava-lab.sh and lavacli."""

    def __init__(self, log):
        self.log = log
        env_line = subprocess.run([str(LAVA_LAB), "env"], capture_output=True, text=True,
                                  check=True).stdout.strip()
        key, _, value = env_line.partition("=")
        self.env = dict(os.environ, PATH=PATH, **{key: value})

    def script(self, action):
        """lava-lab.sh ACTION, its output appended to the log; (ok, last lines)."""
        with open(self.log, "a") as out:
            out.write(f"$ lava-lab.sh {action}\n")
            out.flush()
            # A session of its own: what the script starts (PostgreSQL
            # too) is never in this process's group.
            rc = subprocess.run([str(LAVA_LAB), action], stdout=out, stderr=subprocess.STDOUT,
                                env=self.env, check=False, start_new_session=True).returncode
        tail = Path(self.log).read_text(errors="replace").splitlines()[-5:]
        return rc == 0, [f"lava-lab.sh {action}: exit {rc}"] + tail if rc else []

    def lavacli(self, *args, timeout=120):
        """lavacli -i watchlab ARGS: its stdout; raises on failure."""
        proc = subprocess.run(["lavacli", "-i", IDENTITY] + list(args), capture_output=True,
                              text=True, env=self.env, timeout=timeout, check=False)
        with open(self.log, "a") as out:
            out.write(f"$ lavacli {' '.join(args)}: exit {proc.returncode}\n{proc.stderr}")
        if proc.returncode:
            raise RuntimeError(f"lavacli {' '.join(args)}: exit {proc.returncode}: "
                               f"{(proc.stderr or proc.stdout).strip()[-300:]}")
        return proc.stdout


def job_minutes(job):
    """The job's own timeout, in minutes."""
    try:
        return int(yaml.safe_load(job.read_text())["timeouts"]["job"]["minutes"])
    except (OSError, KeyError, TypeError, ValueError, yaml.YAMLError):
        return 30


def round_trip(lab, results, jobs, boot):
    """BOOT's job submitted, waited for and its results read back: its tests."""
    job = jobs / f"{boot}.yaml"
    begin = time.monotonic()
    try:
        job_id = lab.lavacli("jobs", "submit", str(job)).strip()
        # The job's timeout bounds the run; the scheduler and the worker
        # poll, so give them two minutes more.
        lab.lavacli("jobs", "wait", "--polling", "2", job_id,
                    timeout=60 * job_minutes(job) + 120)
        shown = yaml.safe_load(lab.lavacli("jobs", "show", "--yaml", job_id))
        cases = yaml.safe_load(lab.lavacli("results", "--yaml", job_id))
        (jobs / f"{boot}.job-{job_id}.log").write_text(lab.lavacli("jobs", "logs", "--no-follow", "--raw",
                                                                   job_id))
    except (RuntimeError, subprocess.TimeoutExpired, yaml.YAMLError) as err:
        return [("job_complete", False, [str(err)]),
                ("results_equal_lab", False, ["no results read back from the server"])]
    took = time.monotonic() - begin
    health = shown.get("health") if isinstance(shown, dict) else None
    lava = {c.get("name"): c.get("result") for c in cases or []
            if isinstance(c, dict) and c.get("suite") == "lava"}
    ok = health == "Complete" and lava.get("job") == "pass" \
        and lava.get("lava-test-monitor") == "pass"
    tests = [("job_complete", ok,
              [f"job {job_id} on {shown.get('device') if isinstance(shown, dict) else '?'}: "
               f"health {health}, lava job {lava.get('job')}, monitor "
               f"{lava.get('lava-test-monitor')}; submitted to results read {took:.0f} s"])]
    console = results / f"console-{boot}.log"
    if not console.exists():
        tests.append(("results_equal_lab", False,
                      [f"{console.name}: no lab run of {boot} in {results}"]))
        return tests
    ok, diags = lava_check.compare(server_results(cases, f"watchlab-{boot}"),
                                   lava_check.lab_results(console))
    tests.append(("results_equal_lab", ok, [d.replace("through LAVA", "through the server")
                                            .replace("only in LAVA", "only in the server's")
                                            for d in diags]))
    return tests


def not_started(boots, why):
    """The blocks of a session that could not start."""
    return [(f"lava_server_{boot.replace('-', '_')}",
             [("job_complete", False, [why]), ("results_equal_lab", False, [why])])
            for boot in boots]


def session(lab, results, jobs, boots, waited):
    """Start the lab, each boot's round trip, stop the lab: the KTAP blocks."""
    blocks = []
    lab_tests = []
    begin = time.monotonic()
    try:
        ok, diags = lab.script("start")
        lab_tests.append(("started", ok, diags + [
            f"in {time.monotonic() - begin:.0f} s"
            + (f", after waiting {waited:.0f} s for another session" if waited >= 1 else "")]))
        for boot in boots:
            blocks += [(f"lava_server_{boot.replace('-', '_')}",
                        round_trip(lab, results, jobs, boot))] if ok else \
                not_started([boot], "the lab did not start")
    finally:
        stopping = time.monotonic()
        ok, diags = lab.script("stop")
        lab_tests.append(("stopped", ok, diags + [f"in {time.monotonic() - stopping:.0f} s"]))
        left = subprocess.run([str(LAVA_LAB), "status"], capture_output=True, text=True,
                              env=lab.env, check=False).stdout.splitlines()
        running = [line for line in left if "running" in line]
        lab_tests.append(("nothing_left_running", not running, running))
    return [("lava_lab", lab_tests)] + blocks


def run(results, boots, specs):
    """The KTAP blocks: (name, tests)."""
    jobs = results / "lava" / "server"
    jobs.mkdir(parents=True, exist_ok=True)
    log = jobs / "lava-lab.log"
    log.write_text("")
    subprocess.run([str(HARNESS / "lava-jobs.sh"), str(jobs)] + specs, check=True,
                   stdout=subprocess.DEVNULL)
    lab = Lab(log)
    try:
        with session_lock() as waited:
            return session(lab, results, jobs, boots, waited)
    except LabBusy as err:
        return [("lava_lab", [("started", False, [str(err)])])] + not_started(boots, str(err))


def ktap(blocks, first=1):
    """The blocks as KTAP lines, numbered from FIRST."""
    out = []
    for i, (name, tests) in enumerate(blocks, first):
        lines, ok = lava_check.ktap_block(name, tests)
        out += lines + [f"{'ok' if ok else 'not ok'} {i} {name}"]
    return out


def stop_on_term():
    """SIGTERM (make interrupted) unwinds like Ctrl-C, so the lab stops."""
    def raise_exit(signum, frame):
        raise SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, raise_exit)


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    stop_on_term()
    blocks = run(Path(argv[1]), [b for b in argv[2].split(",") if b], argv[3:])
    print("\n".join(["KTAP version 1", f"1..{len(blocks)}"] + ktap(blocks)))
    return 0 if all(ok for _, tests in blocks for _, ok, _ in tests) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
