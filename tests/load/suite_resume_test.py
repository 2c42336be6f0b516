#!/usr/bin/env python3
"""ctest `suite_resume`: a suite killed at random points, resumed, ends with what an uninterrupted run writes.

Usage: suite_resume_test.py BENCH_SUITE BENCH_SERVER SCENARIOS_DIR [--seed N]

A small suite (two scenarios x two models x two interleaved trials) runs once without interruption. Then the same
command runs into a second folder and is killed (SIGKILL, or SIGINT then a wait) at random moments, and run again
after each kill, until it ends by itself. The second folder must then hold exactly the rows of the first: one
ledger line per scenario x arm, the same number of trials for each, every result row joined to a ledger line, no
run twice, no line cut in half. Also checked: a finished folder is not run again; a folder of results without a
journal is refused with a way out; --fresh starts over; a folder started by other sources is refused unless
--allow-mixed.

Prints one PASS/FAIL line per check and `N passed, M failed` last; exits 0 when all passed, 1 otherwise.
"""
import argparse
import csv
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

SUITE_DEADLINE = 120  # seconds one invocation may take; the suite alone takes ~8 s here
MAX_KILLS = 3

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'}: {name}{'' if ok or not detail else ': ' + detail}", flush=True)


def descendants(pid):
    """The process ids below `pid`, from /proc (the servers bench-suite started)."""
    children = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def kill_tree(proc, sig):
    """Sends `sig` to bench-suite; after SIGKILL also to the servers it started (they outlive it otherwise)."""
    below = descendants(proc.pid)
    proc.send_signal(sig)
    if sig == signal.SIGKILL:
        for pid in below:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def suite(args, out, *extra):
    return [args.bench_suite, "--scenarios", "hot-path-30k,io-600", "--models", "loop,coro", "--trials", "2",
            "--duration", "1s", "--warmup", "0", "--seed", "7", "--server-bin", args.bench_server,
            "--scenarios-dir", args.scenarios_dir, "--out", str(out),
            "--quiet", *extra]


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=SUITE_DEADLINE)


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def folder_rows(folder):
    """What a folder holds, as the comparison needs it: ledger lines, and trials per scenario x arm."""
    ledger = rows(folder / "adhoc-runs.csv")
    trials = rows(folder / "adhoc-trials.csv")
    by_run = {r["run_id"]: (r["scenario"], r["arm"]) for r in ledger}
    return ledger, trials, by_run


def whole_lines(folder):
    """Every CSV of the folder has as many fields on each line as in its header."""
    bad = []
    for path in sorted(folder.glob("*.csv")):
        with open(path, newline="") as f:
            lines = list(csv.reader(f))
        bad += [f"{path.name}:{i + 1}" for i, line in enumerate(lines) if len(line) != len(lines[0])]
        if path.read_bytes()[-1:] != b"\n":
            bad.append(f"{path.name}: no line end at the end")
    for line in (folder / "adhoc-context.jsonl").read_text().splitlines():
        try:
            json.loads(line)
        except ValueError:
            bad.append("adhoc-context.jsonl: a line is not JSON")
    return bad


def study_checks(args, tmp):
    """bench-suite --study: a two-step study planned, run, and found finished; a study whose overload rows come
    before the capacity they read, and a step that sets its own folder, refused before anything runs; {results}."""
    quick = ["--trials", "1", "--duration", "1s", "--warmup", "0", "--seed", "3"]
    study = {"about": "two quick steps", "suites": [
        {"suite": "hot-path", "args": ["--models", "loop", *quick]},
        {"suite": "control", "folder": "aa", "args": ["--scenarios", "io-600", "--arm", "a=loop", "--arm", "b=loop",
                                                       "--trials", "1", "--seed", "3"]}]}
    study_file = tmp / "quick.json"
    study_file.write_text(json.dumps(study))
    root = tmp / "study"
    common = [args.bench_suite, "--study", str(study_file), "--results-dir", str(root), "--server-bin",
              args.bench_server, "--scenarios-dir", args.scenarios_dir, "--quiet"]
    plan = run(common + ["--plan"])
    check("--study --plan lists every step and runs nothing",
          plan.returncode == 0 and "hot-path" in plan.stdout and "aa " in plan.stdout and not root.exists(),
          plan.stdout[-400:] + plan.stderr[-400:])
    ran = run(common)
    ends = [json.loads(p.read_text().splitlines()[-1])["event"] if p.exists() else "missing"
            for p in (root / "hot-path" / "hot-path-journal.jsonl", root / "aa" / "control-journal.jsonl")]
    check("--study runs each step into its folder to its end", ran.returncode == 0 and ends == ["end", "end"],
          f"{ends} {ran.stdout[-300:]} {ran.stderr[-300:]}")
    journals = [root / "hot-path" / "hot-path-journal.jsonl", root / "aa" / "control-journal.jsonl"]
    before = [p.read_bytes() if p.exists() else b"" for p in journals]
    again = run(common)
    check("--study run again finds every step finished", again.returncode == 0 and
          again.stdout.count("nothing left to run") == 2, again.stdout[-400:])
    check("--study run again leaves finished steps' journals as they were (no start and end lines added)",
          [p.read_bytes() if p.exists() else b"" for p in journals] == before)
    # A study stopped with Ctrl-C says so: its suite's time is not compared with the plan as if it had ended.
    # The signal comes a second into a 4 s trial, after the journal's start line.
    cut_file, cut = tmp / "cut.json", tmp / "study-cut"
    cut_file.write_text(json.dumps({"about": "a study to stop", "suites": [
        {"suite": "hot-path", "args": ["--models", "loop", "--trials", "1", "--duration", "4s", "--warmup", "0",
                                       "--seed", "3"]}]}))
    swap = {str(root): str(cut), str(study_file): str(cut_file)}
    proc = subprocess.Popen([swap.get(a, a) for a in common], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    journal = cut / "hot-path" / "hot-path-journal.jsonl"
    deadline = time.monotonic() + SUITE_DEADLINE
    while time.monotonic() < deadline and proc.poll() is None and not journal.exists():
        time.sleep(0.1)
    time.sleep(1)
    proc.send_signal(signal.SIGINT)
    try:
        said, _ = proc.communicate(timeout=SUITE_DEADLINE)
    except subprocess.TimeoutExpired:
        kill_tree(proc, signal.SIGKILL)
        said = ""
    check("a study stopped by SIGINT says its suite stopped, with no time against the plan",
          proc.returncode != 0 and "hot-path stopped after" in said and " took " not in said, said[-400:])

    study["suites"] = [{"suite": "failure-modes", "args": ["--scenarios", "failure-overload-cpu-2x"]},
                       {"suite": "capacity", "args": ["--scenarios", "capacity-cpu"]}]
    study_file.write_text(json.dumps(study))
    order = run([str(tmp / "empty") if a == str(root) else a for a in common] + ["--plan"])
    check("a study reading capacities before it searches them is refused",
          order.returncode == 2 and "put the capacity suite first" in order.stderr, order.stderr[-300:])
    # "{results}" is the study's results root: a step reads an earlier step's folder wherever the root is.
    study["suites"] = [{"suite": "capacity", "args": ["--scenarios", "capacity-cpu"]},
                       {"suite": "failure-modes", "folder": "over", "args": [
                           "--scenarios", "failure-overload-cpu-2x", "--capacity-from", "{results}/capacity/capacity.csv"]}]
    study_file.write_text(json.dumps(study))
    placed = run([str(tmp / "elsewhere") if a == str(root) else a for a in common] + ["--plan"])
    check("{results} in a step's argument is the study's results root",
          placed.returncode == 0 and "over " in placed.stdout, placed.stdout[-300:] + placed.stderr[-300:])
    study["suites"] = [{"suite": "hot-path", "args": ["--out", "/tmp/x"]}]
    study_file.write_text(json.dumps(study))
    out = run(common + ["--plan"])
    check("a study step may not set its own --out", out.returncode == 2 and "folder" in out.stderr,
          out.stderr[-300:])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("bench_suite")
    p.add_argument("bench_server")
    p.add_argument("scenarios_dir")
    p.add_argument("--seed", type=int, default=int(time.time()))
    args = p.parse_args()
    rng = random.Random(args.seed)
    print(f"seed {args.seed} (--seed reproduces the kill times)")

    with tempfile.TemporaryDirectory(prefix="suite-resume-") as tmp:
        tmp = Path(tmp)
        whole, cut = tmp / "whole", tmp / "cut"
        started = time.monotonic()
        first = run(suite(args, whole))
        length = time.monotonic() - started
        check("the uninterrupted suite ends by itself", first.returncode == 0, first.stderr[-500:])

        kills, invocations = 0, 0
        while invocations < MAX_KILLS + 3:
            invocations += 1
            proc = subprocess.Popen(suite(args, cut), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if kills < MAX_KILLS:
                time.sleep(rng.uniform(0.2, max(0.3, length * 0.8)))
                if proc.poll() is None:
                    sig = rng.choice([signal.SIGKILL, signal.SIGKILL, signal.SIGINT])
                    kill_tree(proc, sig)
                    kills += 1
                    print(f"  invocation {invocations}: {sig.name} after the sleep")
                    continue
            try:
                _, err = proc.communicate(timeout=SUITE_DEADLINE)
            except subprocess.TimeoutExpired:
                kill_tree(proc, signal.SIGKILL)
                check("a resumed suite ends within its deadline", False)
                break
            journal = (cut / "adhoc-journal.jsonl").read_text().splitlines()
            if proc.returncode == 0 and json.loads(journal[-1])["event"] == "end":
                break
        check(f"the cut-off suite reached its end after {kills} kill(s) and {invocations} invocation(s)",
              json.loads((cut / "adhoc-journal.jsonl").read_text().splitlines()[-1])["event"] == "end")

        w_ledger, w_trials, _ = folder_rows(whole)
        c_ledger, c_trials, c_by_run = folder_rows(cut)
        pieces = lambda ledger: sorted((r["scenario"], r["arm"], r["status"] != "failed") for r in ledger)
        check("the same ledger lines, none twice, none lost", pieces(w_ledger) == pieces(c_ledger),
              f"{pieces(w_ledger)} vs {pieces(c_ledger)}")
        count = lambda trials, by_run: Counter(by_run.get(t["run_id"], ("?", "?")) for t in trials)
        _, _, w_by_run = folder_rows(whole)
        check("the same trials for every scenario x arm", count(w_trials, w_by_run) == count(c_trials, c_by_run),
              f"{count(w_trials, w_by_run)} vs {count(c_trials, c_by_run)}")
        orphans = [t["run_id"] for t in c_trials if t["run_id"] not in c_by_run]
        check("every result row belongs to a ledger line", not orphans, str(orphans[:3]))
        summary_ids = Counter(r["run_id"] for r in rows(cut / "adhoc.csv"))
        check("no run's summary twice", all(n == 1 for n in summary_ids.values()) and set(summary_ids) <= set(c_by_run),
              str(summary_ids))
        bad = whole_lines(cut)
        check("no line cut in half", not bad, str(bad[:3]))

        again = run(suite(args, cut))
        check("a finished folder is not run again", again.returncode == 0 and "nothing left to run" in again.stdout,
              again.stdout[-300:] + again.stderr[-300:])

        legacy = tmp / "legacy"
        legacy.mkdir()
        (legacy / "adhoc.csv").write_text("scenario\nx\n")
        refused = run(suite(args, legacy))
        check("a folder of results without a journal is refused, naming --fresh",
              refused.returncode == 2 and "--fresh" in refused.stderr, refused.stderr[-300:])

        # As if other sources had made every row: each invocation's start line names its sources.
        lines = [json.loads(line) for line in (cut / "adhoc-journal.jsonl").read_text().splitlines()]
        for line in lines:
            if line["event"] == "start":
                line["source_digest"] = "0000000000000000"
        (cut / "adhoc-journal.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines[:-1]))
        mixed = run(suite(args, cut))
        check("a folder started by other sources is refused", mixed.returncode == 2 and "--allow-mixed" in mixed.stderr,
              mixed.stderr[-300:])
        allowed = run(suite(args, cut, "--allow-mixed"))
        check("--allow-mixed goes on and says so", allowed.returncode == 0 and "--allow-mixed" in allowed.stderr,
              allowed.stderr[-300:])

        # As if another machine had started the folder: resuming would compare two machines' rows in one suite.
        lines = [json.loads(line) for line in (cut / "adhoc-journal.jsonl").read_text().splitlines()]
        for line in lines:
            if line["event"] == "start":
                line["machine"] = "Another CPU at 1 MHz, Linux 0"
        (cut / "adhoc-journal.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines[:-1]))
        moved = run(suite(args, cut))
        check("a folder started on another machine is refused, naming it and --allow-mixed",
              moved.returncode == 2 and "started on Another CPU" in moved.stderr and "--allow-mixed" in moved.stderr,
              moved.stderr[-300:])
        allowed = run(suite(args, cut, "--allow-mixed"))
        check("--allow-mixed resumes it and names both machines",
              allowed.returncode == 0 and "Another CPU" in allowed.stderr and "--allow-mixed" in allowed.stderr,
              allowed.stderr[-300:])

        fresh = run(suite(args, cut, "--fresh"))
        f_ledger, _, _ = folder_rows(cut)
        check("--fresh starts the folder over", fresh.returncode == 0 and pieces(f_ledger) == pieces(w_ledger),
              fresh.stderr[-300:])

        study_checks(args, tmp)

    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
