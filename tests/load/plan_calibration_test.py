#!/usr/bin/env python3
"""bench-suite --plan against what the committed study took: every step of studies/full.json whose folder under
results/ ended is planned again from its files alone (an empty folder, no journal to learn from), and the plan of its
fixed-rate runs must land within 10 % of the seconds its journal records for them. Capacity searches are left out:
where a search ends depends on where each arm's limit lies (docs/suites.md, "The time budget"). Nor are the scenarios
whose file or overrides changed since the journal's runs (its done lines record both): today's files plan another run.

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


def file_digest(path):
    """A scenario file's digest as a journal records it (load/suite/reuse.cpp, digest_of: FNV-1a, 64 bits)."""
    h = 0xcbf29ce484222325
    for byte in path.read_bytes():
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def overrides_of(args):
    """The overrides a step's arguments give, as a journal's done line records them."""
    out = {"duration": "", "warmup": "", "trials": 0, "pause": "", "timeout": ""}
    for name in out:
        if f"--{name}" in args:
            value = args[args.index(f"--{name}") + 1]
            out[name] = int(value) if name == "trials" else value
    return out


def journal_seconds(folder, suite, overrides):
    """The seconds of the fixed-rate pieces that ran in the folder (not copied from another) by scenario, whether it
    ended, and the scenarios whose file or overrides changed since."""
    path = folder / f"{suite}-journal.jsonl"
    if not path.exists():
        return {}, False, set()
    took, ended, changed = {}, False, set()
    for line in path.read_text().splitlines():
        e = json.loads(line)
        if e.get("event") == "end":
            ended = True
        elif e.get("event") == "done" and e.get("kind") == "run" and not e.get("reused_from"):
            took[e["scenario"]] = took.get(e["scenario"], 0.0) + e["seconds"]
            settings = e.get("settings", {})
            file = source / settings.get("scenario", {}).get("file", "")
            if (not file.is_file() or settings.get("scenario_file") != file_digest(file)
                    or settings.get("overrides") != overrides):
                changed.add(e["scenario"])
    return took, ended, changed


study = json.loads((source / "studies" / "full.json").read_text())
compared = []
with tempfile.TemporaryDirectory() as tmp:
    for step in study["suites"]:
        suite = step["suite"]
        folder = step.get("folder", suite)
        args = [a.replace("{results}", str(results)) for a in step.get("args", [])]
        took_by_scenario, ended, changed = journal_seconds(results / folder, suite, overrides_of(args))
        took = sum(t for name, t in took_by_scenario.items() if name not in changed)
        # A step that copies pieces from earlier folders plans them as copies only when the sources are this build's.
        if not ended or not took or step.get("reuse"):
            continue
        plan = subprocess.run([bench_suite, "--suite", suite, "--plan", "--out", str(Path(tmp) / folder)] + args,
                              cwd=source, capture_output=True, text=True, timeout=60)
        if plan.returncode != 0:
            failures.append(f"{folder}: --plan failed: {plan.stderr.strip()[-300:]}")
            continue
        planned = 0.0
        for line in plan.stdout.splitlines():
            # scenario, arms, rounds (or "search"), runs, estimate, basis
            m = re.match(r"^(\S+)\s+(\d+)\s+(\d+|search)\s+(\d+)\s+(.+?)\s+files", line)
            if m and m.group(3) != "search" and m.group(1) not in changed:
                planned += length(m.group(5))
        off = (planned - took) / took
        compared.append(folder)
        left_out = f" ({len(changed)} scenario(s) left out: changed since)" if changed else ""
        print(f"{folder:28} planned {planned / 60:6.1f} min, took {took / 60:6.1f} min, {off * 100:+4.0f} %{left_out}")
        if abs(off) > 0.10:
            failures.append(f"{folder}: the plan from its files is {off * 100:+.0f} % off what it took")

# The committed study holds at least its first steps; a test that compared nothing would prove nothing.
if len(compared) < 5:
    failures.append(f"only {len(compared)} finished step(s) under results/ to compare: {compared}")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
