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
import math
import sys

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: a smaller SVG
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator  # noqa: E402

# Okabe-Ito: distinguishable with every common form of colour blindness; each arm also gets its own line style
# and marker, so no distinction rests on colour alone.
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"]
LINESTYLES = ["-", "--", "-.", ":"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
PNG_METADATA = {"Software": None}
SVG_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}


def style(data, arm):
    arms = data.get("all_arms") or []
    i = arms.index(arm) if arm in arms else len(arms)
    return {"color": PALETTE[i % len(PALETTE)], "linestyle": LINESTYLES[i % len(LINESTYLES)],
            "marker": MARKERS[i % len(MARKERS)]}


def arm_label(a):
    """The arm's name, with its scale when the run was scaled: a scaled run never reads as the scenario's."""
    return "%s at %g scale" % (a["arm"], a["scale"]) if "scale" in a else a["arm"]


def first(columns, *names):
    """The first of `names` present with any value in a column dict."""
    for n in names:
        if n in columns and len(columns[n]) > 0:
            return columns[n]
    return None


def outside_legend(ax, ncol=4):
    """A legend below the axes: never over the data."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, labels, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=ncol,
                  frameon=False)


def log_axis(ax, low=None, high=None):
    """A log y axis in milliseconds, labelled at 1-2-3-5 steps with plain numbers (no 10^x notation)."""
    ax.set_yscale("log")
    if low and high:
        ax.set_ylim(low, high)
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 3.0, 5.0)))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: fmt_ms(y)))


# --- distribution (bursts) -----------------------------------------------------------------------------------------

def inverse_tail(p):
    """x of a percentile on the HdrHistogram axis: 1/(1-p), p in 0..100."""
    return 1.0 / (1.0 - min(p, 99.999) / 100.0)


def distribution_chart(data):
    arms = [a for a in data["arms"] if a.get("spectrum")]
    fig = plt.figure(figsize=(12.0, 5.2), dpi=80)
    grid = fig.add_gridspec(2, 2, width_ratios=[2.2, 1.0], hspace=0.8, wspace=0.28)
    ax = fig.add_subplot(grid[:, 0])
    for a in arms:
        st = style(data, a["arm"])
        pts = [(inverse_tail(p), ms) for p, ms in a["spectrum"] if p < 100]
        ax.plot([x for x, _ in pts], [y for _, y in pts], color=st["color"], linestyle=st["linestyle"],
                marker=st["marker"], markersize=4,
                label="%s (max of all trials %s ms)" % (arm_label(a), fmt_ms(a["spectrum"][-1][1])))
    ax.set_xscale("log")
    ys = [ms for a in arms for p, ms in a["spectrum"] if ms > 0]
    log_axis(ax, min(ys) * 0.9 if ys else None, max(ys) * 1.15 if ys else None)
    ticks = [50, 90, 99, 99.9, 99.99]
    ax.xaxis.set_major_locator(FixedLocator([inverse_tail(p) for p in ticks]))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: "p%g" % round(100.0 * (1.0 - 1.0 / x), 2)))
    ax.set_xlim(0.95, inverse_tail(99.999))
    ax.set_xlabel("percentile (log scale of 1/(1-p), as HdrHistogram plots)")
    ax.set_ylabel("latency, ms (log)")
    ax.set_title("latency distribution, all trials merged", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    outside_legend(ax, ncol=2)

    names = [a["arm"] for a in data["arms"]]
    colors = [style(data, n)["color"] for n in names]
    hatches = ["", "//", "..", "xx", "\\\\", "++", "oo", "--"]
    # A burst's wall time is a result; a closed or open run's is its configured duration, so CPU is shown instead.
    first_bar = ("wall_millis", "wall time (median of trials), ms", fmt_ms)
    if all("server_cpu_percent_avg" in a for a in data["arms"]):
        first_bar = ("server_cpu_percent_avg", "server CPU avg (median of trials), % of one core", fmt_count)
    for row, (key, title, fmt) in enumerate((first_bar,
                                             ("requests_per_second", "requests per second", fmt_count))):
        bx = fig.add_subplot(grid[row, 1])
        values = [a.get(key, 0) for a in data["arms"]]
        bars = bx.bar(range(len(names)), values, color=colors, edgecolor="black", linewidth=0.5)
        for i, b in enumerate(bars):
            b.set_hatch(hatches[i % len(hatches)])
        bx.bar_label(bars, labels=[fmt(v) for v in values], fontsize=7, padding=2)
        bx.set_xticks(range(len(names)))
        bx.set_xticklabels(names, fontsize=8)
        bx.set_title(title, fontsize=9)
        bx.set_ylim(0, max(values + [1]) * 1.25)
        bx.grid(alpha=0.3, axis="y")
    fig.suptitle("%s: %s, so its distribution rather than a per-second timeline" % (data["title"],
                                                                                     data.get("why", "a burst")),
                 fontsize=11)
    return fig


# --- timeline ------------------------------------------------------------------------------------------------------

def x_of(columns, name):
    """The seconds a column's values belong to: its own when it has values in only some seconds."""
    return columns.get(name + "@second") or columns.get("second") or []


def whole_seconds(columns, full):
    """The rows of whole seconds only: the last, partial second would draw as a collapse in every rate."""
    out = {}
    for name, values in columns.items():
        if name.endswith("@second"):
            continue
        xs = x_of(columns, name)
        keep = [i for i, sec in enumerate(xs) if i < len(values) and (full is None or sec + 1 <= full + 1e-6)]
        out[name] = [values[i] for i in keep]
        if name + "@second" in columns:
            out[name + "@second"] = [xs[i] for i in keep]
    return out


# A reference series (the schedule's target) is drawn once for all arms, in black: it is not an arm's measurement.
REFERENCE = {"color": "black", "linestyle": (0, (4, 3)), "marker": None}
# Where the arms' targets differ (a rate that is a multiple of each arm's capacity), each is drawn in its arm's
# colour, dashed like the reference.
ARM_REFERENCE = {"linestyle": (0, (4, 3)), "marker": None, "linewidth": 1.0}
# The generator's own series beside the server's: the arm's colour, hollow markers and a thinner line.
SECONDARY = {"markerfacecolor": "none", "linewidth": 1.0, "alpha": 0.8}


def users_of(a):
    """(seconds, users, label) of an arm's offered load: the users it recorded, else the ramp schedule of its
    scenario; None for shapes without users."""
    s = a["series"]
    for name, label in (("users", "users (recorded)"), ("users_target", "users (ramp target)")):
        if s.get(name):
            return x_of(s, name), list(s[name]), label
    sched = a.get("schedule")
    if sched and sched.get("users"):
        return list(sched["second"]), list(sched["users"]), "users (scenario schedule)"
    return None


def timeline_chart(data):
    arms = data["arms"]
    for a in arms:
        a["series_all"] = a["series"]
        a["series"] = whole_seconds(a["series"], a.get("full_seconds"))
        a["server"] = whole_seconds(a.get("server", {}), a.get("full_seconds"))
    # (title, unit, [(arm or None for a reference, x, y, label, extra style)])
    panels = []
    # One latency range for every arm's panel, so the panels compare at a glance.
    latency_max, latency_min = 0.0, None
    for a in arms:
        s = a["series"]
        for k in ("latency_millis_p50", "latency_millis_p90", "latency_millis_p99", "latency_millis_max"):
            ys = [v for v in s.get(k) or [] if v > 0]
            if ys:
                latency_max = max(latency_max, max(ys))
                latency_min = min(ys) if latency_min is None else min(latency_min, min(ys))
        latency_max = max(latency_max, a.get("latency_max", 0))

    def column(a, source, name):
        """(x, y) of a per-second column of one arm, or None when the results do not hold it."""
        cols = a.get(source, {})
        y = cols.get(name)
        x = x_of(cols, name)
        return (x, y) if y and len(x) == len(y) else None

    def panel(title, unit, measured, reference=None, secondary=(), title_alone=None):
        """Per arm the `measured` columns ((source, column, label suffix)); the `secondary` ones in the generator's
        style; a `reference` column drawn once (the first arm holding it), in black. `title_alone` is the title
        when no secondary series has data (a legend entry for a series that is not drawn would mislead)."""
        lines = []
        for a in arms:
            for source, name, label in measured:
                xy = column(a, source, name)
                if xy:
                    lines.append((a["arm"], xy[0], xy[1], label, SECONDARY if (source, name) in secondary else {}))
        if reference:
            source, name, label = reference
            targets = [(a["arm"], column(a, source, name)) for a in arms]
            targets = [(arm, xy) for arm, xy in targets if xy]
            if len({tuple(xy[1]) for _, xy in targets}) > 1:
                lines.extend((arm, xy[0], xy[1], " " + label, ARM_REFERENCE) for arm, xy in targets)
            elif targets:
                lines.append((None, targets[0][1][0], targets[0][1][1], label, REFERENCE))
        if any(arm is not None for arm, *_ in lines):
            if title_alone and not any(extra is SECONDARY for *_, extra in lines):
                title = title_alone
            panels.append((title, unit, lines))

    panel("requests ok per second", "req/s", [("series", "requests_ok", "")],
          reference=("series", "target_rate", "target rate"))
    panel("ramp users", "users", [("series", "users", " active")],
          reference=("series", "users_target", "ramp target"))

    def failures(a):
        out = []
        for k, lbl, extra in (("requests_error", " errors", {}), ("requests_unsent", " unsent", SECONDARY)):
            y = a["series_all"].get(k)
            if y and any(v > 0 for v in y):
                out.append((a["arm"], x_of(a["series_all"], k), y, lbl, extra))
        return out
    lines = [line for a in arms for line in failures(a)]
    if lines:
        # The last second is kept here: a timeout at the end of a trial would otherwise be hidden.
        panels.append(("errors (filled), unsent by second due (hollow)", "requests per second", lines))

    generator = {("series", "loadgen_cpu_percent"), ("series", "connections_open")}
    panel("CPU: server (filled), load generator (hollow)", "% of one core",
          [("server", "server_cpu_percent", " server"), ("series", "loadgen_cpu_percent", " generator")],
          secondary=generator, title_alone="server CPU")
    panel("requests in flight (issued, not yet answered)", "requests", [("series", "requests_in_flight", "")])
    panel("server resident memory", "MiB", [("server", "server_rss_mb", "")])
    panel("server threads", "threads", [("server", "server_threads", "")])
    panel("open sockets: server (filled), load generator (hollow)", "sockets",
          [("server", "server_sockets", " server"), ("series", "connections_open", " generator")],
          secondary=generator, title_alone="server open sockets")

    ncols = max(len(arms), 3)
    nrows = 1 + math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.4 * ncols, 3.6 * nrows), dpi=80, squeeze=False)
    fig.suptitle(data["title"] + " (median trial by p99; the partial last second left out)", fontsize=11)
    for i, a in enumerate(arms):
        ax = axes[0][i]
        s = a["series"]
        st = style(data, a["arm"])
        x = s.get("second", [])
        for key, ls, mk in (("latency_millis_p50", "-", "o"), ("latency_millis_p90", "--", "s"),
                            ("latency_millis_p99", ":", "^"), ("latency_millis_max", "-.", "x")):
            y = s.get(key)
            if not y:
                continue
            # Seconds without a successful request have no latency: left out rather than drawn as 0 on a log axis.
            pts = [(xx, yy) for xx, yy in zip(x, y) if yy > 0]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], color=st["color"], linestyle=ls, marker=mk,
                        markersize=3, label=key.replace("latency_millis_", ""))
        if not s.get("latency_millis_max") and a.get("latency_max", 0) > 0 and x:
            ax.plot([x[0], x[-1]], [a["latency_max"]] * 2, color="black", linestyle=(0, (1, 2)), marker="|",
                    label="max of the run %s ms" % fmt_ms(a["latency_max"]))
        if ax.lines:
            log_axis(ax, (latency_min or latency_max) * 0.7, latency_max * 1.6)
            ax.set_title("%s: latency per second (trial %s)" % (arm_label(a), a.get("trial", "?")), fontsize=9)
            ax.set_ylabel("ms (log)")
        else:
            # No successful request in the whole trial: its errors per second instead of an empty frame.
            x = a["series_all"].get("second", [])
            errors = a["series_all"].get("requests_error") or [0] * len(x)
            ax.plot(x, errors, color=st["color"], linestyle=st["linestyle"], marker=st["marker"], markersize=3,
                    label="errors / s")
            # Two lines: on one, the title runs into the next panel's.
            failed = format(int(a.get("requests_error", 0)), ",")
            ax.set_title("%s: no successful request,\nso no latency (%s errors)" % (arm_label(a), failed), fontsize=9)
            ax.set_ylabel("errors per second")
            ax.set_ylim(bottom=0)
        ax.set_xlabel("second")
        ax.grid(alpha=0.3, which="both")
        users = users_of(a)
        if users and ax.lines:
            # The offered load behind the latency, on its own axis: a collapse at the peak reads against its cause.
            ux = ax.twinx()
            ux.fill_between(users[0], users[1], color="#888888", alpha=0.13, linewidth=0)
            ux.plot(users[0], users[1], color="#666666", linewidth=1.0, linestyle=(0, (2, 2)), label=users[2])
            ux.set_ylim(0, max(users[1] + [1]) * 1.1)
            ux.set_ylabel("users", fontsize=8, color="#555555")
            ux.tick_params(labelsize=7, colors="#555555")
            # The latency in front of the shaded load.
            ax.set_zorder(ux.get_zorder() + 1)
            ax.patch.set_visible(False)
            handles, labels = ax.get_legend_handles_labels()
            more, more_labels = ux.get_legend_handles_labels()
            ax.legend(handles + more, labels + more_labels, fontsize=7, loc="upper center",
                      bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)
        else:
            outside_legend(ax)
    for i in range(len(arms), ncols):
        fig.delaxes(axes[0][i])  # removed, not hidden: every axes left on the chart holds data
    for j, (title, unit, lines) in enumerate(panels):
        ax = axes[1 + j // ncols][j % ncols]
        for arm, x, y, label, extra in lines:
            st = dict(style(data, arm)) if arm is not None else {}
            st.update(extra)
            ax.plot(x, y, markersize=3, label=(arm or "") + label, **st)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("second")
        ax.set_ylabel(unit)
        # Headroom above the highest point, so a flat series at its maximum is not hidden by the frame.
        top = max(max(y) for _, _, y, _, _ in lines)
        ax.set_ylim(0, top * 1.12 if top > 0 else 1)
        ax.grid(alpha=0.3)
        outside_legend(ax, ncol=2)
    for j in range(len(panels), ncols * (nrows - 1)):
        fig.delaxes(axes[1 + j // ncols][j % ncols])
    # Room for the users axis on the right of a latency panel when there is one: its tick labels and title sit
    # between that panel and the next one's "ms (log)".
    with_users = any(users_of(a) for a in arms)
    fig.subplots_adjust(hspace=0.9 if with_users else 0.75, wspace=0.65 if with_users else 0.3)
    return fig


# --- winners -------------------------------------------------------------------------------------------------------

def winners_chart(data):
    scenarios, metrics, cells = data["scenarios"], data["metrics"], data["cells"]
    fig, ax = plt.subplots(figsize=(2.6 + 1.45 * len(scenarios), 1.6 + 0.36 * len(metrics)), dpi=80)
    leads = [c["lead_percent"] for row in cells for c in row if c.get("lead_percent") is not None]
    top = max(leads + [1.0])
    for r, row in enumerate(cells):
        for c_i, c in enumerate(row):
            if c["state"] == "won":
                st = style(data, c["winner"])
                # Shade by the lead on a log scale: a 1 % lead is pale, the largest lead full colour.
                lead = c.get("lead_percent") or 0.0
                alpha = 0.15 + 0.85 * (math.log1p(lead) / math.log1p(top))
                ax.add_patch(plt.Rectangle((c_i, r), 1, 1, facecolor=st["color"], alpha=alpha, edgecolor="white"))
                text = "%s\n+%s vs %s" % (c["winner"], fmt_pct(lead), c["runner_up"])
                ax.text(c_i + 0.5, r + 0.5, text, ha="center", va="center", fontsize=6.5)
            elif c["state"] == "won_by_failures":
                # No measured lead: the others failed. Pale, cross-hatched and without a number.
                st = style(data, c["winner"])
                ax.add_patch(plt.Rectangle((c_i, r), 1, 1, facecolor=st["color"], alpha=0.25, edgecolor="white"))
                ax.add_patch(plt.Rectangle((c_i, r), 1, 1, facecolor="none", edgecolor="#555555", hatch="xx",
                                           linewidth=0))
                text = "%s\n%s failed" % (c["winner"], ", ".join(c.get("failed") or ["others"]))
                ax.text(c_i + 0.5, r + 0.5, text, ha="center", va="center", fontsize=6.5,
                        bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none", "pad": 1})
            elif c["state"] == "shared":
                # Arms that tie with each other but each beat the rest: a stripe of each leader's colour.
                leaders = c["leaders"]
                for k, a in enumerate(leaders):
                    ax.add_patch(plt.Rectangle((c_i + k / len(leaders), r), 1 / len(leaders), 1,
                                               facecolor=style(data, a)["color"], alpha=0.45, edgecolor="white"))
                ax.text(c_i + 0.5, r + 0.5, " = ".join(leaders), ha="center", va="center", fontsize=6.5)
            elif c["state"] == "tie":
                ax.add_patch(plt.Rectangle((c_i, r), 1, 1, facecolor="#dddddd", edgecolor="white", hatch="//"))
                ax.text(c_i + 0.5, r + 0.5, "tie", ha="center", va="center", fontsize=7)
            else:
                ax.add_patch(plt.Rectangle((c_i, r), 1, 1, facecolor="#f5f5f5", edgecolor="white"))
                ax.text(c_i + 0.5, r + 0.5, "–", ha="center", va="center", fontsize=7, color="#888888")
    ax.set_xlim(0, len(scenarios))
    ax.set_ylim(len(metrics), 0)
    ax.set_xticks([i + 0.5 for i in range(len(scenarios))])
    ax.set_xticklabels(scenarios, rotation=30, ha="right", fontsize=8)
    ax.set_yticks([i + 0.5 for i in range(len(metrics))])
    ax.set_yticklabels(metrics, fontsize=8)
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    handles = [plt.Rectangle((0, 0), 1, 1, facecolor=style(data, a)["color"]) for a in data["all_arms"]]
    handles.append(plt.Rectangle((0, 0), 1, 1, facecolor="#dddddd", hatch="//"))
    labels = list(data["all_arms"]) + ["tie"]
    if any(c["state"] == "won_by_failures" for row in cells for c in row):
        handles.append(plt.Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="#555555", hatch="xx"))
        labels.append("won because the others failed\n(no measured lead)")
    # Right of the grid: clear of the cells and of the rotated scenario names below it.
    ax.legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              frameon=False)
    ax.set_title(data["title"] + "\ncell: winner, its lead over the runner-up (colour: the bigger the lead, the "
                 "stronger); a = b: a and b tie with each other and lead the rest", fontsize=9)
    return fig


# --- summary (the index page) -------------------------------------------------------------------------------------

def summary_chart(data):
    """Small multiples: one panel per suite, a group of bars per scenario (one per arm), p99 on a log axis. A bar
    whose arm failed beyond the tolerance is hatched and labelled; an arm with no figure gets an "x" at the floor."""
    suites = data["suites"]
    widest = max(len(s["scenarios"]) for s in suites)
    fig, axes = plt.subplots(len(suites), 1, figsize=(max(9.0, 2.5 + 0.75 * widest), 3.6 * len(suites)), dpi=80,
                             squeeze=False)
    for ax, s in zip((row[0] for row in axes), suites):
        arms, scenarios = s["arms"], s["scenarios"]
        width = 0.8 / max(1, len(arms))
        values = [v for a in arms for v in s["p99"][a] if v is not None and v > 0]
        floor = min(values) / 3 if values else 0.1
        for k, a in enumerate(arms):
            st = style(data, a)
            for i, v in enumerate(s["p99"][a]):
                x = i - 0.4 + width * (k + 0.5)
                failed = s["failed"][a][i]
                if v is None or v <= 0:
                    ax.plot([x], [floor * 1.2], marker="x", color=st["color"], markersize=5)
                    continue
                ax.bar([x], [v - floor], bottom=floor, width=width * 0.92, color="white" if failed else st["color"],
                       edgecolor=st["color"], linewidth=1.0, hatch="xxx" if failed else None,
                       label=a if i == 0 else None)
        # One legend entry per arm even when its first bar is hatched or missing.
        handles = [plt.Rectangle((0, 0), 1, 1, facecolor=style(data, a)["color"]) for a in arms]
        labels = list(arms)
        handles.append(plt.Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="#444444", hatch="xxx"))
        labels.append("failures over %g %% of requests" % data["failure_tolerance_percent"])
        handles.append(plt.Line2D([], [], marker="x", color="#444444", linestyle="none"))
        labels.append("no result: none succeeded, not run,\ngenerator-bound or awaiting re-measurement")
        ax.legend(handles, labels, fontsize=7, loc="upper left", bbox_to_anchor=(1.005, 1.0), frameon=False)
        top = (max(values) if values else 1) * 2.2
        log_axis(ax, floor, top)
        if top / floor > 300:  # over several decades 1-2-3-5 labels crowd: powers of ten only
            ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0,)))
        ax.set_axisbelow(True)  # the grid behind the bars
        ax.set_ylabel("p99, ms (log)", fontsize=8)
        ax.set_xticks(range(len(scenarios)))
        ax.set_xticklabels(scenarios, rotation=25, ha="right", fontsize=7)
        ax.set_xlim(-0.6, len(scenarios) - 0.4)
        ax.set_title("%s suite" % s["name"], fontsize=9, loc="left")
        ax.grid(alpha=0.3, axis="y", which="both")
    fig.suptitle(data["title"], fontsize=11, y=1 - 0.15 / (3.6 * len(suites)))
    fig.subplots_adjust(hspace=1.25, top=1 - 0.9 / (3.6 * len(suites)))
    return fig


# --- capacity (latency against the offered rate) ----------------------------------------------------------------------

def capacity_chart(data):
    arms = data["arms"]
    capacities = [a["capacity_rps"] for a in arms if a["capacity_rps"] > 0]
    # A second panel, linear, around the capacities: on the full log axis the bisections' rates crowd into a sliver.
    zoom = None
    if capacities:
        lo, hi = 0.75 * min(capacities), 1.25 * max(capacities)
        if any(lo <= r <= hi for a in arms for r in a["offered_rps"]):
            zoom = (lo, hi)
    fig, axes = plt.subplots(1, 2 if zoom else 1, figsize=(12.5 if zoom else 9.5, 5.4), dpi=80, squeeze=False)
    for k, ax in enumerate(axes[0]):
        for a in arms:
            capacity_arm(ax, data, a, legend=k == 0)
        for b in data["bounds"]:
            ax.axhline(b["millis"], color="#444444", linestyle="--", linewidth=1,
                       label="SLO %s" % b["label"] if k == 0 else None)
        log_axis(ax)
        ax.set_ylabel("latency, ms (log; from the intended send time)", fontsize=8)
        ax.tick_params(labelsize=8)
        ax.grid(True, which="major", color="#eeeeee", linewidth=0.6)
        if k == 0:
            ax.set_xscale("log")
            lo, hi = ax.get_xlim()
            # Past a decade and a half, the 3s' labels run into the 2s' at this width.
            ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 3.0, 5.0) if hi < 30 * lo else (1.0, 2.0, 5.0)))
            ax.xaxis.set_minor_locator(NullLocator())
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel("offered requests per second (log)", fontsize=8)
            ax.set_title("every rate searched", fontsize=9)
        else:
            ax.set_xlim(*zoom)
            ax.set_xlabel("offered requests per second, around the capacities", fontsize=8)
            ax.set_title("near the capacities", fontsize=9)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt_count(v)))
    fig.suptitle(data["title"] + "\none point per offered rate, in rate order: solid p99, dotted p50, the median of "
                 "the steps at that rate;\nbars: their range where the search repeated it; a ring: a step there "
                 "missed the SLO", fontsize=9)
    fig.subplots_adjust(top=0.84, bottom=0.3, wspace=0.18)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="lower center", ncol=3, frameon=False)
    return fig


def capacity_arm(ax, data, a, legend):
    """One arm's search on one capacity panel: p99 and p50 per offered rate, the repeats' range, the rates where a
    step missed the SLO or was generator-bound, and the capacity with its interval."""
    st = style(data, a["arm"])
    x = a["offered_rps"]
    label = (lambda text: text) if legend else (lambda text: None)
    ax.plot(x, a["p99"], color=st["color"], linestyle=st["linestyle"], marker=st["marker"], markersize=4,
            linewidth=1.4, label=label("%s p99" % a["arm"]))
    repeated = [i for i, n in enumerate(a["steps"]) if n > 1]
    if repeated:
        ax.errorbar([x[i] for i in repeated], [a["p99"][i] for i in repeated],
                    yerr=[[a["p99"][i] - a["p99_range"][i][0] for i in repeated],
                          [a["p99_range"][i][1] - a["p99"][i] for i in repeated]],
                    fmt="none", ecolor=st["color"], elinewidth=0.9, capsize=2.5, alpha=0.7)
    ax.plot(x, a["p50"], color=st["color"], linestyle=":", marker=st["marker"], markersize=3.5,
            fillstyle="none", linewidth=1, alpha=0.8, label=label("%s p50" % a["arm"]))
    missed = [(xi, yi) for xi, yi, ok in zip(x, a["p99"], a["met_slo"]) if not ok]
    if missed:
        ax.scatter([m[0] for m in missed], [m[1] for m in missed], s=60, facecolors="none",
                   edgecolors=st["color"], linewidths=1.2, zorder=3)
    bound = [(xi, yi) for xi, yi, g in zip(x, a["p99"], a["generator_bound"]) if g]
    if bound:
        ax.scatter([b[0] for b in bound], [b[1] for b in bound], s=70, marker="x", color="#000000", zorder=4,
                   label=label("%s: generator-bound step" % a["arm"]))
    if a["capacity_rps"] > 0:
        # A lower bound is dotted and never shaded: it is not where the arm breaks.
        ax.axvline(a["capacity_rps"], color=st["color"], linewidth=1.2,
                   linestyle=":" if a["lower_bound"] else "-", label=label("%s capacity: %s" % (a["arm"], a["label"])))
        if "low_rps" in a:
            ax.axvspan(a["low_rps"], a["high_rps"], color=st["color"], alpha=0.12, linewidth=0)


# --- the workload map ---------------------------------------------------------------------------------------------------

def map_chart(data):
    cpus, waits = data["cpus"], data["waits"]
    fig, ax = plt.subplots(figsize=(2.0 * len(waits) + 1.6, 1.25 * len(cpus) + 1.7), dpi=80)
    for c in data["cells"]:
        x, y = waits.index(c["wait"]), cpus.index(c["cpu"])
        undecided = c.get("undecided", False)
        leaders = [] if c["tie"] or undecided else c["leaders"]
        if not leaders:
            ax.add_patch(plt.Rectangle((x - 0.5, y - 0.5), 1, 1, facecolor="#f2f2f2" if undecided else "#dddddd",
                                       hatch="//" if undecided else None,
                                       edgecolor="#bbbbbb" if undecided else "white", linewidth=0.6 if undecided else 2))
        for k, arm in enumerate(leaders):  # a shared lead: one vertical stripe per leader
            w = 1.0 / len(leaders)
            ax.add_patch(plt.Rectangle((x - 0.5 + k * w, y - 0.5), w, 1, facecolor=style(data, arm)["color"],
                                       alpha=0.55, edgecolor="white", linewidth=2 if k == 0 else 0))
        head = "undecided" if undecided else "tie" if c["tie"] else " = ".join(c["leaders"])
        lines = [head] + ["%s %s" % (a["arm"], a["label"]) for a in c["arms"]]
        ax.text(x, y, "\n".join(lines), ha="center", va="center", fontsize=7,
                fontweight="normal", linespacing=1.25,
                bbox=dict(boxstyle="round,pad=0.2", facecolor="white", alpha=0.75, linewidth=0))

    def x_of(wait):
        # Wait positions are categories; the boundary falls between them on a log scale (and linearly from 0).
        if wait <= waits[0]:
            return -0.5
        for i in range(1, len(waits)):
            lo, hi = waits[i - 1], waits[i]
            if wait <= hi:
                if lo <= 0:
                    return i - 1 + (wait - lo) / (hi - lo)
                return i - 1 + math.log(wait / lo) / math.log(hi / lo)
        return len(waits) - 0.5
    xs, ys = [], []
    for b in data["boundary"]:
        y = cpus.index(b["cpu"])
        x = min(x_of(b["wait"]), len(waits) - 0.5)
        xs += [x, x]
        ys += [y - 0.5, y + 0.5]
    from matplotlib.patches import Patch
    arms = sorted({a for c in data["cells"] if not c["tie"] and not c.get("undecided") for a in c["leaders"]}, key=lambda a: (data.get("all_arms") or []).index(a)
                  if a in (data.get("all_arms") or []) else 99)
    handles = [Patch(facecolor=style(data, a)["color"], alpha=0.55, label="%s leads" % a) for a in arms]
    handles.append(Patch(facecolor="#dddddd", label="tie"))
    if any(c.get("undecided") for c in data["cells"]):
        handles.append(Patch(facecolor="#f2f2f2", hatch="//", edgecolor="#999999",
                             label="undecided: a lower bound hides where an arm stops"))
    if xs:
        line, = ax.plot(xs, ys, color="#000000", linewidth=2, linestyle="--",
                label="predicted: the pool (%d workers on %d core%s) keeps up left of this line, W < %g C"
                % (data["workers"], data["cores"], "" if data["cores"] == 1 else "s",
                   data["workers"] / data["cores"] - 1))
        handles.append(line)
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize=8, frameon=False,
              ncol=min(3, len(handles)))
    ax.set_xlim(-0.5, len(waits) - 0.5)
    ax.set_ylim(-0.5, len(cpus) - 0.5)
    ax.set_xticks(range(len(waits)))
    ax.set_xticklabels(["%g ms" % w for w in waits], fontsize=8)
    ax.set_yticks(range(len(cpus)))
    ax.set_yticklabels([("%g ms" % (c / 1000)) if c >= 1000 else ("%g µs" % c) for c in cpus], fontsize=8)
    ax.set_xlabel("wait per request (then the CPU)", fontsize=8)
    ax.set_ylabel("CPU per request", fontsize=8)
    ax.set_title("coloured by the lead: its 95 % interval above every other arm's; stripes share it, grey is a tie; "
                 "≥ a lower bound (the generator or the search's ceiling)", fontsize=8)
    fig.suptitle(data["title"], fontsize=10)
    return fig


# --- numbers -------------------------------------------------------------------------------------------------------

def fmt_ms(v):
    if v >= 1000:
        return "{:,.0f}".format(v)
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    if v >= 1:
        return "%.2f" % v
    return "%.3g" % v


def fmt_count(v):
    return "{:,.0f}".format(v)


def fmt_pct(v):
    return ("%.0f %%" % v) if v >= 10 else ("%.1f %%" % v)


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
