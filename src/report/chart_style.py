"""What every execbench chart shares: the Agg backend and its settings, the arms' colours, line styles and markers,
the axes' helpers and the number formats. charts.py and its chart modules import it first."""
import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: a smaller SVG
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator  # noqa: E402

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

