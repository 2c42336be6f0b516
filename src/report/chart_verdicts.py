"""The charts of verdicts: winners, the index summary, capacity searches and the workload map (see charts.py)."""
import math

import matplotlib
import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator

from chart_style import style, first, log_axis, fmt_count, fmt_pct


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

