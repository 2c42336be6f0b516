#!/usr/bin/env python3
"""bench-suite --plan against what the committed study took: every step of studies/full.json whose folder under
results/ ended is planned again from its files alone (an empty folder, no journal to learn from), and the plan of its
fixed-rate runs must land within 10 % of the seconds its journal records for them. Capacity searches are left out:
where a search ends depends on where each arm's limit lies (docs/suites.md, "The time budget").

Usage: plan_calibration_test.py BENCH_SUITE SOURCE_DIR
"""
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

bench_suite, source = sys.argv[1], Path(sys.argv[2])
results = source / "results"
failures = []


def length(text):
    """A plan's length as format_length prints it: "48 s", "2.3 min", "1 h 12 min"."""
    m = re.fullmatch(r"(\d+) h (\d+) min", text)
    if m:
        return int(m.group(1)) * 3600 + int(m.group(2)) * 60
    m = re.fullmatch(r"([\d.]+) (s|min)", text)
    if not m:
        raise ValueError(f"not a plan length: {text!r}")
    return float(m.group(1)) * (60 if m.group(2) == "min" else 1)


def journal_seconds(folder, suite):
    """The seconds of the fixed-rate pieces that ran in the folder (not copied from another), and whether it ended."""
    path = folder / f"{suite}-journal.jsonl"
    if not path.exists():
        return None, False
    took, ended = 0.0, False
    for line in path.read_text().splitlines():
        e = json.loads(line)
        if e.get("event") == "end":
            ended = True
        elif e.get("event") == "done" and e.get("kind") == "run" and not e.get("reused_from"):
            took += e["seconds"]
    return took, ended


study = json.loads((source / "studies" / "full.json").read_text())
compared = []
with tempfile.TemporaryDirectory() as tmp:
    for step in study["suites"]:
        suite = step["suite"]
        folder = step.get("folder", suite)
        took, ended = journal_seconds(results / folder, suite)
        # A step that copies pieces from earlier folders plans them as copies only when the sources are this build's.
        if not ended or not took or step.get("reuse"):
            continue
        args = [a.replace("{results}", str(results)) for a in step.get("args", [])]
        plan = subprocess.run([bench_suite, "--suite", suite, "--plan", "--out", str(Path(tmp) / folder)] + args,
                              cwd=source, capture_output=True, text=True, timeout=60)
        if plan.returncode != 0:
            failures.append(f"{folder}: --plan failed: {plan.stderr.strip()[-300:]}")
            continue
        planned = 0.0
        for line in plan.stdout.splitlines():
            # scenario, arms, rounds (or "search"), runs, estimate, basis
            m = re.match(r"^(\S+)\s+(\d+)\s+(\d+|search)\s+(\d+)\s+(.+?)\s+files", line)
            if m and m.group(3) != "search":
                planned += length(m.group(5))
        off = (planned - took) / took
        compared.append(folder)
        print(f"{folder:28} planned {planned / 60:6.1f} min, took {took / 60:6.1f} min, {off * 100:+4.0f} %")
        if abs(off) > 0.10:
            failures.append(f"{folder}: the plan from its files is {off * 100:+.0f} % off what it took")

# The committed study holds at least its first steps; a test that compared nothing would prove nothing.
if len(compared) < 5:
    failures.append(f"only {len(compared)} finished step(s) under results/ to compare: {compared}")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
