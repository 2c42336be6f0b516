#!/usr/bin/env python3
"""Draws execbench report charts with matplotlib (Agg), reading a JSON list of jobs written by bench-report.

Each job is {"png": path, "data": {...}} where data["kind"] is "scenario" (per-second latency, errors, requests,
server CPU and memory per model) or "winners" (wins per scenario and model). Output is deterministic for the same
input: no timestamps or software version in the PNG metadata, a fixed size and DPI.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"pool": "#1f77b4", "fiber": "#2ca02c", "loop": "#d62728"}
METADATA = {"Software": None}


def color(model, i):
    return COLORS.get(model, "C%d" % (i + 3))


def scenario_chart(data, png):
    models = data["models"]
    n = max(len(models), 1)
    fig, axes = plt.subplots(2, max(n, 3), figsize=(4.2 * max(n, 3), 7.0), dpi=80, squeeze=False)
    fig.suptitle(data["title"] + " (median trial by p99)", fontsize=11)
    top_max = 0.0
    for m in models:
        for key in ("p99", "p90", "p50"):
            if m[key]:
                top_max = max(top_max, max(m[key]))
    for i, m in enumerate(models):
        ax = axes[0][i]
        x = m["second"]
        for key, style in (("p50", "-"), ("p90", "--"), ("p99", ":")):
            ax.plot(x, m[key], style, color=color(m["model"], i), label=key)
        scaled = " at %g scale" % m["scale"] if "scale" in m else ""
        ax.set_title("%s%s: latency per second (trial %s)" % (m["model"], scaled, m["trial"]), fontsize=9)
        ax.set_xlabel("second")
        ax.set_ylabel("ms")
        if top_max > 0:
            ax.set_ylim(0, top_max * 1.1)
        ax.grid(alpha=0.3)
        err = ax.twinx()
        err.bar(x, m["errors"], color="black", alpha=0.25, width=0.8, label="errors")
        err.set_ylabel("errors / s")
        err.set_ylim(0, max([1] + list(m["errors"])) * 1.1)
        lines, labels = ax.get_legend_handles_labels()
        l2, lab2 = err.get_legend_handles_labels()
        ax.legend(lines + l2, labels + lab2, fontsize=7, loc="upper left")
    for i in range(len(models), axes.shape[1]):
        axes[0][i].axis("off")
    panels = (("ok", "second", "requests ok per second", "req/s"),
              ("cpu", "server_second", "server CPU", "% of one core"),
              ("rss", "server_second", "server resident memory", "MiB"))
    for j, (key, xkey, title, unit) in enumerate(panels):
        ax = axes[1][j]
        for i, m in enumerate(models):
            ax.plot(m[xkey], m[key], "-", color=color(m["model"], i), label=m["model"])
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("second")
        ax.set_ylabel(unit)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        if models:
            ax.legend(fontsize=7)
    for j in range(len(panels), axes.shape[1]):
        axes[1][j].axis("off")
    fig.tight_layout()
    fig.savefig(png, metadata=METADATA)
    plt.close(fig)


def winners_chart(data, png):
    scenarios = data["scenarios"]
    models = data["models"]
    fig, ax = plt.subplots(figsize=(max(6.0, 0.6 * len(scenarios) + 3), 4.5), dpi=80)
    bottom = [0] * len(scenarios)
    xs = list(range(len(scenarios)))
    for i, m in enumerate(models):
        wins = data["wins"][m]
        ax.bar(xs, wins, bottom=bottom, color=color(m, i), label="%s (%d)" % (m, sum(wins)))
        bottom = [b + w for b, w in zip(bottom, wins)]
    ax.bar(xs, data["undecided"], bottom=bottom, color="#bbbbbb", label="undecided (%d)" % sum(data["undecided"]))
    ax.set_xticks(xs)
    ax.set_xticklabels(scenarios, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel("metrics won")
    ax.set_title(data["title"], fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, metadata=METADATA)
    plt.close(fig)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: charts.py JOBS.json")
    with open(sys.argv[1], encoding="utf-8") as f:
        jobs = json.load(f)
    for job in jobs:
        kind = job["data"]["kind"]
        if kind == "scenario":
            scenario_chart(job["data"], job["png"])
        elif kind == "winners":
            winners_chart(job["data"], job["png"])
        else:
            sys.exit("charts.py: unknown chart kind %r" % kind)


if __name__ == "__main__":
    main()
