#!/usr/bin/env python3
"""ctest `suite_reuse`: bench-suite --reuse-from copies what another folder ran, exactly, and runs only the rest.

Usage: suite_reuse_test.py BENCH_SUITE BENCH_SERVER SCENARIOS_DIR

A `hot-path` folder runs hot-path-30k under loop and coro. A `peers` folder then runs the same scenario under loop,
coro and fiber with --reuse-from the first: loop and coro must be copied, byte for byte (each of its files starts
with the source's file), and only fiber run; the journal names the source, the plan counts the copies as no time.
A setting that differs (--trials) is not reused, nor is a piece another machine ran (or one whose journal names none). A copy into files that exist leaves the source's header out. A kill after a copy but before its journal line (and one in the
middle of a copy), made by cutting the files and the journal as the kill would leave them, resumes to the same rows:
none twice, none lost. A study's "reuse" is planned from an earlier step's folder, and one naming no earlier step is
refused.

Prints one PASS/FAIL line per check and `N passed, M failed` last; exits 0 when all passed, 1 otherwise.
"""
import argparse
import csv
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DEADLINE = 120  # seconds one invocation may take; each takes a few here
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'}: {name}{'' if ok or not detail else ': ' + detail}", flush=True)


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=DEADLINE)


def quick(args, *extra, trials="1"):
    return ["--scenarios", "hot-path-30k", "--trials", trials, "--duration", "1s", "--warmup", "0", "--seed", "5",
            "--server-bin", args.bench_server, "--scenarios-dir", args.scenarios_dir, "--quiet", *extra]


def suite(args, name, out, models, *extra, trials="1"):
    return [args.bench_suite, "--suite", name, "--out", str(out), "--models", models,
            *quick(args, *extra, trials=trials)]


def ledger(folder, stem):
    with open(folder / f"{stem}-runs.csv", newline="") as f:
        return [(r["scenario"], r["arm"], r["run_id"]) for r in csv.DictReader(f)]


def journal(folder, stem):
    return [json.loads(line) for line in (folder / f"{stem}-journal.jsonl").read_text().splitlines()]


def source_files(src):
    """The source's result files (not its journal), by the name after its stem."""
    return {p.name[len("hot-path"):]: p.read_bytes() for p in src.iterdir() if not p.name.endswith("journal.jsonl")}


def holds_source_first(src, dest):
    """Each of the source's files is the start of the destination's, byte for byte: the copies came first."""
    bad = []
    for tail, data in source_files(src).items():
        mine = dest / f"peers{tail}"
        if not mine.exists() or not mine.read_bytes().startswith(data):
            bad.append(mine.name)
    return bad


def no_row_twice(dest):
    """No data line of any CSV or JSON lines file appears twice (a copy made twice would repeat them all)."""
    twice = []
    for p in dest.iterdir():
        if p.suffix in (".csv", ".jsonl") and "journal" not in p.name:
            lines = p.read_text().splitlines()[1 if p.suffix == ".csv" else 0:]
            twice += [p.name for line in set(lines) if lines.count(line) > 1]
    return twice


def cut_as_killed(folder, keep_lines, sizes):
    """Leaves `folder` as a kill would: the journal's first `keep_lines` lines, every file at `sizes` (absent: 0)."""
    lines = (folder / "peers-journal.jsonl").read_text().splitlines(keepends=True)
    (folder / "peers-journal.jsonl").write_text("".join(lines[:keep_lines]))
    for p in folder.iterdir():
        if p.name == "peers-journal.jsonl":
            continue
        size = sizes.get(p.name, 0)
        if size == 0:
            p.unlink()
        else:
            with open(p, "r+b") as f:
                f.truncate(size)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("bench_suite")
    p.add_argument("bench_server")
    p.add_argument("scenarios_dir")
    args = p.parse_args()

    with tempfile.TemporaryDirectory(prefix="suite-reuse-") as tmp:
        tmp = Path(tmp)
        src, dest = tmp / "hot-path", tmp / "peers"
        first = run(suite(args, "hot-path", src, "loop,coro"))
        check("the source suite runs", first.returncode == 0, first.stderr[-400:])
        src_ledger = ledger(src, "hot-path")

        plan = run(suite(args, "peers", dest, "loop,coro,fiber", "--reuse-from", str(src), "--plan"))
        check("--plan counts the source's pieces as reused, no time",
              plan.returncode == 0 and "2 piece(s) reused from hot-path" in plan.stdout and
              "1 server run(s) left" in plan.stdout, plan.stdout[-400:] + plan.stderr[-300:])

        reused = run(suite(args, "peers", dest, "loop,coro,fiber", "--reuse-from", str(src)))
        check("the suite with --reuse-from runs", reused.returncode == 0, reused.stderr[-400:])
        check("loop and coro are copied, not run",
              reused.stderr.count("copied from hot-path") == 2, reused.stderr[-400:])
        bad = holds_source_first(src, dest)
        check("every file starts with the source's bytes, exactly", not bad, str(bad))
        rows = ledger(dest, "peers")
        check("the ledger: the source's two runs, then fiber's alone",
              rows[:2] == src_ledger and [r[1] for r in rows[2:]] == ["fiber"], str(rows))
        done = [line for line in journal(dest, "peers") if line["event"] == "done"]
        check("the journal names the source of each copy",
              [(d["arm"], d.get("reused_from")) for d in done] ==
              [("loop", "hot-path"), ("coro", "hot-path"), ("fiber", None)], str(done)[:400])
        notes = [json.loads(line) for line in (dest / "peers-reused.jsonl").read_text().splitlines()]
        check("peers-reused.jsonl lists the copies", [(n["arm"], n["from"]) for n in notes] ==
              [("loop", "hot-path"), ("coro", "hot-path")], str(notes))
        whole = {p.name: p.read_bytes() for p in dest.iterdir() if p.name != "peers-journal.jsonl"}

        other = run(suite(args, "peers", tmp / "other", "loop", "--reuse-from", str(src), trials="2"))
        other_rows = ledger(tmp / "other", "peers")
        check("a different setting (--trials 2) is not reused: the piece runs",
              other.returncode == 0 and "copied from" not in other.stderr and
              "not copied (hot-path: it ran there under other settings)" in other.stderr and len(other_rows) == 1 and
              other_rows[0][2] not in {r[2] for r in src_ledger}, other.stderr[-300:] + str(other_rows))

        # A source that ran on another machine: its journal's start lines say so, and its pieces run here instead,
        # since a suite's verdicts compare its arms with each other. A journal naming no machine is not trusted.
        for n, (label, machine, why) in enumerate([("another machine", "Another CPU at 1 MHz, Linux 0", "on another machine (Another CPU"),
                                    ("no machine recorded", None, "does not say which machine ran it")]):
            moved = tmp / "moved"
            shutil.rmtree(moved, ignore_errors=True)
            shutil.copytree(src, moved)
            lines = journal(moved, "hot-path")
            for line in lines:
                if line["event"] == "start":
                    line.pop("machine", None)
                    if machine:
                        line["machine"] = machine
            (moved / "hot-path-journal.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
            there = tmp / f"there-{n}"
            ran = run(suite(args, "peers", there, "loop", "--reuse-from", str(moved)))
            check(f"a source piece from {label} is not reused: it runs here",
                  ran.returncode == 0 and "copied from" not in ran.stderr and why in ran.stderr and
                  len(ledger(there, "peers")) == 1 and ledger(there, "peers")[0][2] not in {r[2] for r in src_ledger},
                  ran.stderr[-400:])

        # A folder with rows already: the source's first piece (its header line included) goes in without its header.
        third = tmp / "third"
        fiber = run(suite(args, "peers", third, "fiber"))
        had = {p.name: p.read_bytes() for p in third.iterdir() if p.suffix == ".csv"}
        loop = run(suite(args, "peers", third, "loop", "--reuse-from", str(src)))
        loop_line = next(line for line in journal(src, "hot-path") if line.get("arm") == "loop")
        bad = []
        for name, before in had.items():
            tail = name[len("peers"):]
            source = (src / f"hot-path{tail}").read_bytes()
            start = loop_line["files_before"].get(f"hot-path{tail}", 0)
            rows = source[start:loop_line["files"][f"hot-path{tail}"]]
            if start == 0:
                rows = rows[rows.index(b"\n") + 1:]
            if (third / name).read_bytes() != before + rows:
                bad.append(name)
        check("a copy into files that exist leaves out the source's header line",
              fiber.returncode == 0 and loop.returncode == 0 and "copied from hot-path" in loop.stderr and not bad,
              str(bad) + loop.stderr[-300:])

        # A kill after coro's copy but before its journal line, and one in the middle of that copy.
        lines = journal(dest, "peers")
        coro = next(i for i, line in enumerate(lines) if line.get("arm") == "coro")
        after, before = lines[coro]["files"], lines[coro]["files_before"]
        for name, sizes in [("between the copy and its journal line", after),
                            ("in the middle of a copy", {k: (before.get(k, 0) + v) // 2 for k, v in after.items()})]:
            cut = tmp / "cut"
            shutil.rmtree(cut, ignore_errors=True)
            shutil.copytree(dest, cut)
            cut_as_killed(cut, coro, sizes)
            again = run(suite(args, "peers", cut, "loop,coro,fiber", "--reuse-from", str(src)))
            rows = ledger(cut, "peers")
            check(f"a kill {name} resumes: the copy made once, fiber run once",
                  again.returncode == 0 and rows[:2] == src_ledger and [r[1] for r in rows[2:]] == ["fiber"] and
                  not holds_source_first(src, cut) and not no_row_twice(cut),
                  again.stderr[-300:] + str(rows) + str(no_row_twice(cut)))
            check(f"a kill {name}: the copies' notes are as without it",
                  (cut / "peers-reused.jsonl").read_bytes() == whole["peers-reused.jsonl"])

        # A study: the later step's pieces the earlier one will run count as reused before either ran.
        step = quick(args)
        study = {"about": "reuse", "suites": [
            {"suite": "hot-path", "args": ["--models", "loop,coro", *step[2:]]},
            {"suite": "peers", "args": ["--models", "loop,coro,fiber", *step[2:]], "reuse": ["hot-path"]}]}
        study_file = tmp / "reuse.json"
        study_file.write_text(json.dumps(study))
        root = tmp / "study"
        planned = run([args.bench_suite, "--study", str(study_file), "--results-dir", str(root), "--plan"])
        check("a study plans a step's reuse of an earlier step that has not run yet",
              planned.returncode == 0 and "2 piece(s) from hot-path" in planned.stdout and not root.exists(),
              planned.stdout[-500:] + planned.stderr[-300:])
        study["suites"].reverse()
        study_file.write_text(json.dumps(study))
        refused = run([args.bench_suite, "--study", str(study_file), "--results-dir", str(root), "--plan"])
        check("a study reusing a folder no earlier step writes is refused",
              refused.returncode == 2 and "no earlier step writes" in refused.stderr, refused.stderr[-300:])

    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
