"""A sweep directory (trainsim sweep): the Pareto front of time and energy, and time and
energy along each swept axis."""

from plotlib.common import *  # noqa: F401,F403 (the shared readers, scales and constants)


SWEEP_FILE = "sweep.csv"
SWEEP_FIXED = ["id", "status", "seconds", "cycles", "energy", "energy_unit", "dram_bytes",
               "utilization", "test_accuracy", "speedup", "pareto", "error"]


class SweepData:
    """A sweep directory: the finished points of sweep.csv and the axis columns."""

    def __init__(self, directory):
        path = os.path.join(directory, SWEEP_FILE)
        rows = read_csv(path, ["id", "status", "seconds", "energy", "pareto"])
        if not rows:
            raise PlotError(f"{_rel(path)}: no finished points")
        self.axes = [k for k in rows[0].keys() if k not in SWEEP_FIXED and not k.startswith("_")]
        if not self.axes:
            raise PlotError(f"{_rel(path)}: no axis columns")
        self.done = [r for r in rows if r["status"] == "done"]
        if not self.done:
            raise PlotError(f"{_rel(path)}: every point failed")
        for r in self.done:
            r["_s"] = num(r, "seconds", path)
            r["_e"] = num(r, "energy", path)
            acc = r.get("test_accuracy", "")
            r["_a"] = float(acc) if acc not in ("", None) else None
        self.unit = self.done[0].get("energy_unit", "")
        self.failed = [r for r in rows if r["status"] != "done"]
        self.front = [r for r in self.done if r["pareto"] == "1"]
        self.front.sort(key=lambda r: r["_s"])


def _axis_values(rows, key):
    vals = []
    for r in rows:
        if r[key] not in vals:
            vals.append(r[key])
    return vals


def plot_pareto(sw):
    has_acc = any(r["_a"] is not None for r in sw.done)
    fig, axes = plt.subplots(1, 2 if has_acc else 1, figsize=(11 if has_acc else 7, 4.5))
    ax = axes[0] if has_acc else axes
    first = sw.axes[0]
    values = _axis_values(sw.done, first)
    colors = variant_colors(len(values))
    tdiv, tunit = time_scale(max(r["_s"] for r in sw.done))
    # Energies in a readable unit (pJ sums reach 1e16), never as an axis offset.
    ediv, eunit = energy_scale(max(r["_e"] for r in sw.done), sw.unit)
    for v, c in zip(values, colors):
        pts = [r for r in sw.done if r[first] == v]
        ax.scatter([r["_s"] / tdiv for r in pts], [r["_e"] / ediv for r in pts], color=c, s=18,
                   label=f"{first}={v}")
    ax.plot([r["_s"] / tdiv for r in sw.front], [r["_e"] / ediv for r in sw.front],
            color="black", linewidth=0.8, zorder=0)
    ax.scatter([r["_s"] / tdiv for r in sw.front], [r["_e"] / ediv for r in sw.front], s=80,
               facecolors="none", edgecolors="black", label="Pareto front")
    ax.ticklabel_format(useOffset=False)
    ax.set_xlabel(f"training time ({tunit})")
    ax.set_ylabel(f"energy ({eunit})" if eunit else "energy")
    title = f"time and energy of the sweep's {len(sw.done)} finished points"
    if sw.failed:
        # Failed points have no figures to draw; they are named, not dropped silently.
        ids = ", ".join(r["id"] for r in sw.failed[:8]) + (", ..." if len(sw.failed) > 8 else "")
        title += f"\n{len(sw.failed)} failed (not drawn): {ids}; see their error.txt"
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    if has_acc:
        ax2 = axes[1]
        for v, c in zip(values, colors):
            pts = [r for r in sw.done if r[first] == v and r["_a"] is not None]
            ax2.scatter([r["_s"] / tdiv for r in pts], [100 * r["_a"] for r in pts], color=c,
                        s=18, label=f"{first}={v}")
        ax2.set_xlabel(f"training time ({tunit})")
        ax2.set_ylabel("test accuracy (%)")
        ax2.set_title("accuracy and time")
    fig.tight_layout()
    return fig


def _numeric(values):
    try:
        return [float(v) for v in values]
    except ValueError:
        return None


def plot_sweep_axes(sw):
    numeric = [k for k in sw.axes if _numeric(_axis_values(sw.done, k)) is not None]
    keys = numeric or sw.axes[:1]
    fig, axes = plt.subplots(len(keys), 2, figsize=(10, 3.2 * len(keys)), squeeze=False)
    first = sw.axes[0]
    groups = _axis_values(sw.done, first) if first not in keys or len(sw.axes) == 1 else [None]
    if first in keys and len(sw.axes) > 1:
        groups = [None]
    colors = variant_colors(len(groups))
    tdiv, tunit = time_scale(max(r["_s"] for r in sw.done))
    for row, key in enumerate(keys):
        xs_all = _axis_values(sw.done, key)
        xnum = _numeric(xs_all)
        for g, c in zip(groups, colors):
            pts = [r for r in sw.done if g is None or r[first] == g]
            for col, (metric, label) in enumerate((("_s", f"training time ({tunit})"),
                                                   ("_e", f"energy ({sw.unit})"))):
                # The best value at each x over the other axes: what the axis buys at most.
                best = {}
                for r in pts:
                    v = r[metric] / (tdiv if metric == "_s" else 1.0)
                    best[r[key]] = min(best.get(r[key], v), v)
                xs = [x for x in xs_all if x in best]
                xv = [float(x) for x in xs] if xnum is not None else list(range(len(xs)))
                axes[row][col].plot(xv, [best[x] for x in xs], marker="o", color=c,
                                    label=None if g is None else f"{first}={g}")
                axes[row][col].set_xlabel(key)
                axes[row][col].set_ylabel(label)
                if xnum is None:
                    axes[row][col].set_xticks(range(len(xs)))
                    axes[row][col].set_xticklabels(xs)
        if groups != [None]:
            axes[row][0].legend(fontsize=7)
    fig.suptitle("best point per axis value (over the other axes)")
    fig.tight_layout()
    return fig
