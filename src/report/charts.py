#!/usr/bin/env python3
"""Draws execbench report charts with matplotlib (Agg), reading a JSON list of jobs written by bench-report.

Each job is {"svg": path, "name": chart name, "data": {...}} (and "png": path for a PNG as well, which bench-report
does not ask for: each chart is committed once, as SVG) where data["kind"] is
  "distribution"  bursts: the latency percentile spectrum of every arm (all trials merged) on a log 1/(1-p) axis,
                  plus wall time and req/s as labelled bars;
  "timeline"      longer runs: per-second latency (log axis: p50/p90/p99, max), requests, errors/unsent, target
                  rate or users when recorded, server CPU (and the generator's), memory, threads and sockets;
  "summary"       the index page: p99 per scenario and arm, one panel per suite, log axis, failures hatched;
  "winners"       best and runner-up per metric and scenario, shaded by the size of the lead; ties shown; a cell
                  won because the other arms failed is cross-hatched and names them, with no lead;
  "capacity"      a capacity search per arm: p50 and p99 against the offered rate (log-log, and a linear panel
                  around the capacities), one point per rate in rate order (the median of the steps repeated there,
                  bars spanning their range), the SLO's latency bound, each arm's capacity (a line, its 95 % interval
                  shaded; a lower bound dotted);
  "map"           the workload map: a grid of CPU per request x wait per request, each cell coloured by the arm
                  whose capacity interval lies above every other's (stripes for a shared lead, grey for a tie), each
                  arm's capacity written in it, and the pool's predicted break-even wait as a staircase line.
Output is deterministic for the same input: no timestamps or software version in the metadata, a fixed size, DPI
and SVG id salt. `--manifest FILE` writes, per chart and panel, how many data points were drawn, so a test can
check that no panel is empty.
"""
import json
import sys

import matplotlib

from chart_style import PNG_METADATA, SVG_METADATA  # first: it sets the Agg backend
from chart_runs import distribution_chart, timeline_chart
from chart_verdicts import capacity_chart, map_chart, summary_chart, winners_chart

import matplotlib.pyplot as plt  # noqa: E402


# --- driver --------------------------------------------------------------------------------------------------------

def data_artists(ax):
    """What an axes drew from the data: lines, bars and cells, collections (not the frame, ticks or legend)."""
    return list(ax.lines) + [p for p in ax.patches if p.get_visible()] + list(ax.collections)


def panel_points(fig):
    """Data points drawn per panel (lines, bars, patches with a face)."""
    out = []
    for ax in fig.axes:
        n = sum(len(line.get_xdata()) for line in ax.lines)
        n += sum(1 for p in ax.patches if p.get_visible())
        n += sum(len(c.get_offsets()) for c in ax.collections)
        out.append({"title": ax.get_title(), "points": n})
    return out


def tag_data(fig, name):
    """Gives every data artist an SVG id "<chart>-data-<n>", so a browser check can tell drawn data from an
    empty frame in each panel (matplotlib writes an artist's gid as its group id)."""
    n = 0
    for ax in fig.axes:
        for artist in data_artists(ax):
            n += 1
            artist.set_gid("%s-data-%d" % (name, n))


def main():
    args = sys.argv[1:]
    manifest_file = None
    if len(args) == 3 and args[1] == "--manifest":
        manifest_file = args[2]
        args = args[:1]
    if len(args) != 1:
        sys.exit("usage: charts.py JOBS.json [--manifest OUT.json]")
    with open(args[0], encoding="utf-8") as f:
        jobs = json.load(f)
    draw = {"distribution": distribution_chart, "timeline": timeline_chart, "winners": winners_chart,
            "summary": summary_chart, "capacity": capacity_chart, "map": map_chart}
    manifest = []
    for job in jobs:
        kind = job["data"]["kind"]
        if kind not in draw:
            sys.exit("charts.py: unknown chart kind %r" % kind)
        matplotlib.rcParams["svg.hashsalt"] = job.get("name", kind)  # fixed per chart: the same data, the same bytes
        fig = draw[kind](job["data"])
        tag_data(fig, job.get("name", kind))
        panels = panel_points(fig)
        empty = [p["title"] or "(untitled)" for p in panels if p["points"] == 0]
        if empty:
            sys.exit("charts.py: %s: panel(s) without data: %s" % (job["svg"], ", ".join(empty)))
        fig.savefig(job["svg"], metadata=SVG_METADATA, bbox_inches="tight")
        if job.get("png"):
            fig.savefig(job["png"], metadata=PNG_METADATA, bbox_inches="tight")
        plt.close(fig)
        manifest.append({"svg": job["svg"], "kind": kind, "panels": panels})
    if manifest_file:
        with open(manifest_file, "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
