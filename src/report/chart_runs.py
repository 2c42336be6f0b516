"""The charts of runs: a burst's latency distribution and a longer run's timeline (see charts.py)."""
import math

import matplotlib.pyplot as plt
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from chart_style import style, arm_label, first, outside_legend, log_axis, fmt_ms, fmt_count


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
