"""Timelines and devices: a system (pipeline) run, a hype run and a one-device run's
timeline.json: the Gantt chart, per-device time, power over an iteration."""

from plotlib.common import *  # noqa: F401,F403 (the shared readers, scales and constants)


PASS_COLORS = {"F": "#4c72b0", "B": "#dd8452", "Bd": "#dd8452", "W": "#c44e52",
               "U": "#55a868", "G": "#8172b3", "transfer": "#937860",
               # hype runs colour ops by their training role
               "fw": "#4c72b0", "bwd-data": "#dd8452", "bwd-weight": "#c44e52",
               "update": "#55a868", "act-grad": "#8172b3"}


def read_timeline(directory):
    """The Chrome-trace timeline.json of a system or hype run: (track names by tid, bars
    (tid, start s, duration s, category))."""
    path = os.path.join(directory, TIMELINE_FILE)
    trace = read_json(path)
    events = trace.get("traceEvents") if isinstance(trace, dict) else None
    if not isinstance(events, list):
        raise PlotError(f"{_rel(path)}: no traceEvents list")
    names, bars = {}, []
    for i, e in enumerate(events):
        if not isinstance(e, dict) or "ph" not in e or "tid" not in e:
            raise PlotError(f"{_rel(path)}: traceEvents[{i}] is not a trace event")
        if e["ph"] == "M":
            names[e["tid"]] = str(e.get("args", {}).get("name", e["tid"]))
        elif e["ph"] == "X":
            try:
                ts, dur = float(e["ts"]), float(e["dur"])
            except (KeyError, TypeError, ValueError):
                raise PlotError(f"{_rel(path)}: traceEvents[{i}] has no numeric ts/dur")
            if not (math.isfinite(ts) and math.isfinite(dur)) or dur < 0:
                raise PlotError(f"{_rel(path)}: traceEvents[{i}] has a bad ts/dur")
            bars.append((e["tid"], ts * 1e-6, dur * 1e-6, str(e.get("cat", ""))))
    if not bars:
        raise PlotError(f"{_rel(path)}: the timeline has no tasks")
    return names, bars


class SystemData:
    """A system run directory: the Chrome-trace timeline and the per-device table."""

    def __init__(self, directory):
        self.names, self.bars = read_timeline(directory)
        dpath = os.path.join(directory, DEVICES_FILE)
        rows = read_csv(dpath, ["device", "busy_seconds", "idle_seconds"])
        self.devices = [(r["device"], num(r, "busy_seconds", dpath), num(r, "idle_seconds", dpath))
                        for r in rows]
        # What the titles name: the experiment and its schedule (stats.json, when there).
        self.label = ""
        spath = os.path.join(directory, "stats.json")
        if os.path.isfile(spath):
            stats = read_json(spath)
            pipeline = stats.get("pipeline") if isinstance(stats.get("pipeline"), dict) else {}
            self.label = str(stats.get("experiment", ""))
            if pipeline.get("schedule"):
                self.label += f" · {pipeline['schedule']} on {len(self.devices)} devices"


class RunTimeline:
    """timeline.json of a run on one accelerator: its first flushes, one track per unit."""

    def __init__(self, directory, experiment):
        self.names, self.bars = read_timeline(directory)
        self.label = f"{experiment} · first batches" if experiment else "first batches"


class HypeData:
    """A run on a hype: system: its timeline, the system's power over one iteration (the
    policy's and gpu-only's) and its cap."""

    def __init__(self, directory):
        self.names, self.bars = read_timeline(directory)
        ppath = os.path.join(directory, POWER_FILE)
        rows = read_csv(ppath, ["run", "t_s", "avg_w", "peak_w"])
        self.power = {}
        for r in rows:
            self.power.setdefault(r["run"], []).append(
                (num(r, "t_s", ppath), num(r, "avg_w", ppath), num(r, "peak_w", ppath)))
        if "policy" not in self.power:
            raise PlotError(f"{_rel(ppath)}: no rows of run 'policy'")
        stats = read_json(os.path.join(directory, "stats.json"))
        system = stats.get("system", {}) if isinstance(stats, dict) else {}
        self.cap = system.get("power_cap_w")
        self.policy = str(stats.get("policy", "policy")) if isinstance(stats, dict) else "policy"
        self.experiment = str(stats.get("experiment", "")) if isinstance(stats, dict) else ""
        self.label = f"{self.experiment} · policy {self.policy}" if self.experiment else ""


def plot_power(hd):
    fig, ax = plt.subplots(figsize=(9, 3.8))
    end = max(t for series in hd.power.values() for t, _, _ in series)
    div, unit = time_scale(end or 1.0)
    styles = {"policy": ("#c44e52", hd.policy), "gpu-only": ("#4c72b0", "gpu-only")}
    for run, series in hd.power.items():
        color, label = styles.get(run, ("#999999", run))
        ts = [t / div for t, _, _ in series]
        ax.step(ts, [a for _, a, _ in series], where="post", color=color, label=f"{label} average")
        ax.step(ts, [p for _, _, p in series], where="post", color=color, linestyle=":",
                linewidth=0.8, label=f"{label} peak")
    if isinstance(hd.cap, (int, float)):
        ax.axhline(hd.cap, color="black", linestyle="--", linewidth=1, label=f"cap {hd.cap:g} W")
    ax.set_xlabel(f"time in one iteration ({unit})")
    ax.set_ylabel("system power (W)")
    ax.set_title(f"{hd.experiment}: power over one iteration (power.csv)")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def plot_gantt(sysd):
    tids = sorted(set(t for t, _, _, _ in sysd.bars) | set(sysd.names))
    row = {t: i for i, t in enumerate(tids)}
    end = max(ts + dur for _, ts, dur, _ in sysd.bars)
    div, unit = time_scale(end)
    fig, ax = plt.subplots(figsize=(11, 1.0 + 0.45 * len(tids)))
    seen = set()
    extra = []  # categories without a colour of their own (a technique's roles), in order
    for tid, ts, dur, cat in sysd.bars:
        color = PASS_COLORS.get(cat) or ROLE_COLORS.get(cat)
        if color is None:
            if cat not in extra:
                extra.append(cat)
            color = EXTRA_COLORS[extra.index(cat) % len(EXTRA_COLORS)]
        label = cat if cat not in seen else None
        seen.add(cat)
        ax.broken_barh([(ts / div, max(dur / div, end / div * 1e-4))], (row[tid] - 0.4, 0.8),
                       facecolors=color, edgecolors="white",
                       linewidth=0 if cat == "transfer" else 0.3, label=label)
    ax.set_yticks(range(len(tids)))
    ax.set_yticklabels([sysd.names.get(t, str(t)) for t in tids], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"time ({unit})")
    ax.set_title(f"{sysd.label}: timeline (timeline.json)" if sysd.label
                 else "timeline (timeline.json)", fontsize=10)
    ax.legend(loc="upper right", fontsize=7, ncol=len(seen))
    fig.tight_layout()
    return fig


def plot_devices(sysd):
    fig, ax = plt.subplots(figsize=(7, 3.5))
    names = [f"dev{d}" for d, _, _ in sysd.devices]
    busy = [b for _, b, _ in sysd.devices]
    idle = [i for _, _, i in sysd.devices]
    div, unit = time_scale(max(b + i for b, i in zip(busy, idle)) or 1.0)
    ax.bar(names, [b / div for b in busy], color="#4c72b0", label="busy")
    ax.bar(names, [i / div for i in idle], bottom=[b / div for b in busy], color="#cccccc",
           label="idle")
    ax.set_ylabel(f"training time ({unit})")
    ax.set_title(f"{sysd.label}: busy and idle time per device" if sysd.label
                 else "busy and idle time per device", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
