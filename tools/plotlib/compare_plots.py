"""A compare directory (trainsim compare): the variants side by side, their accuracy, the
per-epoch technique tables, the speculation hit rate, and a hype compare's systems."""

from plotlib.common import *  # noqa: F401,F403 (the shared readers, scales and constants)
from plotlib.run_plots import RunData  # noqa: F401 (variants are run directories)


class CompareData:
    """compare.csv plus the per-variant run directories. A shape-only compare
    (`numerics: none`) has an empty test_accuracy in every row (not in some only) and
    shape-only variant run directories; its test_accuracy values are None."""

    def __init__(self, cmp_dir):
        self.dir = cmp_dir
        path = os.path.join(cmp_dir, COMPARE_FILE)
        rows = read_csv(path, ("variant", "cycles", "energy", "dram_bytes", "test_accuracy"))
        self.shape_only = rows[0]["test_accuracy"].strip() == ""
        self.variants = []
        seen = set()
        for r in rows:
            if (r["test_accuracy"].strip() == "") != self.shape_only:
                here = "set here but empty" if self.shape_only else "empty here but not"
                raise PlotError(
                    f"{_rel(path)}:{r['_line']}: malformed: test_accuracy is {here} on line "
                    f"{rows[0]['_line']} (shape-only and trained variants do not mix)")
            name = r["variant"].strip()
            if not name or name in (".", "..") or "/" in name or "\\" in name:
                raise PlotError(f"{_rel(path)}:{r['_line']}: malformed: bad variant name {name!r}")
            if name in seen:
                raise PlotError(f"{_rel(path)}:{r['_line']}: malformed: duplicate variant {name!r}")
            seen.add(name)
            v = {
                "name": name,
                "dataflow": r.get("dataflow", "").strip(),
                "technique": r.get("technique", "").strip(),
                "cycles": num(r, "cycles", path),
                "energy": num(r, "energy", path),
                "energy_unit": ((r.get("energy_unit") or "").strip() or r["_energy_unit"]
                                or "pJ"),
                "dram_bytes": num(r, "dram_bytes", path),
                "test_accuracy": None if self.shape_only else num(r, "test_accuracy", path),
            }
            if v["cycles"] <= 0:
                raise PlotError(f"{_rel(path)}:{r['_line']}: malformed: cycles must be > 0")
            sub = os.path.join(cmp_dir, name)
            if not os.path.isdir(sub):
                raise PlotError(f"{_rel(sub)}: missing run directory of variant {name!r}")
            v["epochs"] = (load_shape_epochs(sub, f"{COMPARE_FILE} has no test_accuracy "
                                                  "(shape only)")
                           if self.shape_only else load_epochs(sub))
            self.variants.append(v)
        base = self.variants[0]
        for v in self.variants:
            v["speedup"] = base["cycles"] / v["cycles"]
            v["energy_rel"] = v["energy"] / base["energy"] if base["energy"] else float("nan")
            v["dram_rel"] = v["dram_bytes"] / base["dram_bytes"] if base["dram_bytes"] else float("nan")
        # Title information from the first variant's stats.json (optional).
        spath = os.path.join(cmp_dir, base["name"], "stats.json")
        self.stats = read_json(spath) if os.path.isfile(spath) else {}
        self.tables = (TechniqueTables(cmp_dir, [v["name"] for v in self.variants],
                                       shape_only=self.shape_only)
                       if TechniqueTables.present(cmp_dir) else None)

    def title(self):
        exp = self.stats.get("experiment") or os.path.basename(os.path.normpath(self.dir))
        return str(exp)

    def subtitle(self):
        s = self.stats
        parts = []
        net = s.get("network", {}).get("name") if isinstance(s.get("network"), dict) else None
        ds = s.get("dataset", {}).get("name") if isinstance(s.get("dataset"), dict) else None
        if net or ds:
            parts.append(f"{net or '?'} on {ds or '?'}")
        acc = s.get("accelerator") if isinstance(s.get("accelerator"), dict) else {}
        if isinstance(s.get("accelerator"), str):  # shape-only stats.json: just the name
            acc = {"name": s["accelerator"]}
        if acc.get("name"):
            arr = f" ({acc['array']})" if acc.get("array") else ""
            parts.append(f"accelerator {acc['name']}{arr}")
        dfs = _unique(v["dataflow"] for v in self.variants)
        techs = _unique(v["technique"] for v in self.variants)
        if dfs:
            parts.append(("dataflows " if len(dfs) > 1 else "dataflow ") + ", ".join(dfs))
        if techs:
            parts.append(("techniques " if len(techs) > 1 else "technique ") + ", ".join(techs))
        if self.shape_only:
            parts.append("shape only (numerics: none)")
        return " · ".join(parts)


def read_table(path):
    """(header, rows) of a per-variant table: header[0] is 'epoch', every row has
    exactly len(header) raw string cells; rows carry their line number."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            lines = [(i, r) for i, r in enumerate(csv.reader(f), start=1)]
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise PlotError(f"{_rel(path)}: cannot read: {e}") from None
    lines = [(i, r) for i, r in lines if r]  # blank lines
    if not lines:
        raise PlotError(f"{_rel(path)}: empty file (no CSV header)")
    header = [c.strip() for c in lines[0][1]]
    if header[0] != "epoch":
        raise PlotError(f"{_rel(path)}: malformed: first column must be 'epoch', "
                        f"not {header[0]!r}")
    if len(header) < 2 or any(not c for c in header[1:]):
        raise PlotError(f"{_rel(path)}: malformed: header needs named variant columns")
    dup = sorted({c for c in header if header.count(c) > 1})
    if dup:
        raise PlotError(f"{_rel(path)}: malformed: duplicate column(s) {', '.join(dup)}")
    rows = lines[1:]
    if not rows:
        raise PlotError(f"{_rel(path)}: malformed: no data rows")
    for i, r in rows:
        if len(r) != len(header):
            raise PlotError(f"{_rel(path)}:{i}: malformed: {len(r)} fields, "
                            f"header has {len(header)}")
    return header, rows


def _cell(path, line, col, text, allow_empty=False):
    text = text.strip()
    if allow_empty and text == "":
        return float("nan")
    try:
        value = float(text)
    except ValueError:
        raise PlotError(f"{_rel(path)}:{line}: malformed: column {col} is not a number: "
                        f"{text!r}") from None
    if not math.isfinite(value):
        raise PlotError(f"{_rel(path)}:{line}: malformed: column {col} is {text!r}")
    return value


class TechniqueTables:
    """table_{time,accuracy,step,hit_rate}.csv of a compare directory, validated:
    same variant columns (those of compare.csv, in its order) and the same epochs
    in all four; time and step > 0 (time cumulative, so non-decreasing), accuracy
    in [0, 100] % (empty throughout in a shape-only compare), hit rate empty
    (technique does not speculate) or in [0, 1]."""

    @staticmethod
    def present(cmp_dir):
        found = [k for k, (f, _, _) in TECH_TABLES.items()
                 if os.path.exists(os.path.join(cmp_dir, f))]
        if found and len(found) != len(TECH_TABLES):
            missing = [TECH_TABLES[k][0] for k in TECH_TABLES if k not in found]
            raise PlotError(f"{_rel(cmp_dir)}: incomplete technique tables: "
                            f"{', '.join(missing)} missing")
        return bool(found)

    def __init__(self, cmp_dir, variant_names, shape_only=False):
        self.variants = list(variant_names)
        self.shape_only = shape_only
        self.epochs = None
        self.data = {}  # key -> {variant: [value per epoch]}
        for key, (fname, _, _) in TECH_TABLES.items():
            path = os.path.join(cmp_dir, fname)
            if not os.path.isfile(path):
                raise PlotError(f"{_rel(path)}: missing")
            header, rows = read_table(path)
            if header[1:] != self.variants:
                raise PlotError(
                    f"{_rel(path)}: malformed: variant columns {', '.join(header[1:])} "
                    f"do not match {COMPARE_FILE} ({', '.join(self.variants)})")
            epochs, cols = [], {v: [] for v in self.variants}
            for line, r in rows:
                e = _cell(path, line, "epoch", r[0])
                if e != int(e) or e < 0 or (epochs and e <= epochs[-1]):
                    raise PlotError(f"{_rel(path)}:{line}: malformed: epoch {r[0].strip()!r} "
                                    "is not an integer above the previous row's")
                epochs.append(e)
                for v, text in zip(self.variants, r[1:]):
                    x = _cell(path, line, v, text, allow_empty=(
                        key == "hit_rate" or (key == "accuracy" and shape_only)))
                    bad = None
                    if key in ("time", "step") and x <= 0:
                        bad = "must be > 0"
                    elif key == "time" and cols[v] and x < cols[v][-1]:
                        bad = "is cumulative but decreases"
                    elif key == "accuracy" and shape_only:
                        if math.isfinite(x):
                            bad = (f"must be empty: {COMPARE_FILE} has no test_accuracy "
                                   "(shape only)")
                    elif key == "accuracy" and not 0 <= x <= 100:
                        bad = "is a percentage, must be in [0, 100]"
                    elif key == "hit_rate" and math.isfinite(x) and not 0 <= x <= 1:
                        bad = "is a rate, must be in [0, 1]"
                    if bad:
                        raise PlotError(f"{_rel(path)}:{line}: malformed: column {v} "
                                        f"({text.strip()}) {bad}")
                    cols[v].append(x)
            if self.epochs is None:
                self.epochs = epochs
            elif epochs != self.epochs:
                raise PlotError(f"{_rel(path)}: malformed: its epochs differ from those of "
                                f"{TECH_TABLES['time'][0]}")
            self.data[key] = cols
        # Variants with at least one hit-rate value speculate.
        self.speculating = [v for v in self.variants
                            if any(math.isfinite(x) for x in self.data["hit_rate"][v])]

    def speedup(self, key, v):
        """Baseline (first variant) value / v's value, per epoch."""
        base = self.data[key][self.variants[0]]
        return [b / x for b, x in zip(base, self.data[key][v])]


def plot_compare(cmp):
    vs = cmp.variants
    n = len(vs)
    base = vs[0]["name"]
    colors = variant_colors(n)
    e_div, e_unit = energy_scale(max(v["energy"] for v in vs), vs[0]["energy_unit"])
    panels = [
        ("speedup", f"speedup vs {base} (×, higher is better)", f"speedup over {base}",
         lambda v: f"{v['speedup']:.3f}×\n{short(v['cycles'])} cyc"),
        ("energy_rel", f"energy relative to {base} (lower is better)", "training energy",
         lambda v: f"{v['energy_rel']:.3f}\n{v['energy'] / e_div:.3g} {e_unit}"),
        ("dram_rel", f"DRAM bytes relative to {base} (lower is better)", "DRAM traffic",
         lambda v: f"{v['dram_rel']:.3f}\n{v['dram_bytes'] / 1e6:.4g} MB"),
    ]
    width = max(12, 3 * (0.55 * n + 1.2))
    fig, axes = plt.subplots(1, 3, figsize=(width, 5.2))
    if cmp.shape_only:
        ticklabels = [v["name"] for v in vs]
        about = "shape only, no accuracy"
    else:
        ticklabels = [f"{v['name']}\nacc {100 * v['test_accuracy']:.2f}%" for v in vs]
        about = "tick labels give final test accuracy"
    for ax, (key, ylabel, title, label) in zip(axes, panels):
        vals = [v[key] if math.isfinite(v[key]) else 0.0 for v in vs]
        x = list(range(n))
        ax.bar(x, vals, width=0.7, color=colors, edgecolor="black", linewidth=0.4)
        ax.axhline(1.0, color="black", ls="--", lw=0.8, alpha=0.6, zorder=1)
        for xi, v in zip(x, vs):
            ax.annotate(label(v), (xi, vals[xi]), textcoords="offset points", xytext=(0, 4),
                        ha="center", va="bottom", fontsize=7.5, zorder=3,
                        bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85))
        ax.set_xticks(x)
        rot = 0 if n <= 5 else 45
        ax.set_xticklabels(ticklabels, fontsize=8, rotation=rot, ha="center" if rot == 0 else "right")
        ax.set_ylabel(ylabel, fontsize=9)
        ax.set_title(title, fontsize=10)
        ax.set_ylim(0, max(vals + [1.0]) * 1.25)
        ax.grid(True, axis="y", alpha=0.3)
        ax.set_axisbelow(True)
    fig.suptitle(f"{cmp.title()}: comparison of {n} variants (training phase, all epochs; "
                 f"{about})\n{cmp.subtitle()}", fontsize=10)
    fig.tight_layout()
    return fig


# compare --systems (Hype-training's policies): the paper's figures of merit per variant.
SYSTEM_COMPARE_COLUMNS = ("variant", "seconds", "samples_per_s", "energy_j", "avg_w", "peak_w",
                          "violations", "speedup", "energy_efficiency_rel")


def is_system_compare(cmp_dir):
    """Whether compare.csv is a `compare --systems` table (seconds and joules per policy)."""
    try:
        with open(os.path.join(cmp_dir, COMPARE_FILE), newline="", encoding="utf-8") as f:
            header = next(csv.reader(f), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return False
    return "energy_j" in header and "cycles" not in header


class SystemCompareData:
    """compare.csv of `trainsim compare --systems`: one row per policy, in seconds, joules and
    watts, relative to the first."""

    def __init__(self, cmp_dir):
        self.dir = cmp_dir
        path = os.path.join(cmp_dir, COMPARE_FILE)
        rows = read_csv(path, SYSTEM_COMPARE_COLUMNS)
        self.variants = []
        for r in rows:
            v = {"name": r["variant"].strip()}
            for c in SYSTEM_COMPARE_COLUMNS[1:]:
                v[c] = num(r, c, path)
                if v[c] < 0:
                    raise PlotError(f"{_rel(path)}:{r['_line']}: malformed: column {c} "
                                    f"({r[c].strip()}) must be >= 0")
            self.variants.append(v)
        stats = os.path.join(cmp_dir, self.variants[0]["name"], "stats.json")
        self.experiment = "compare"
        if os.path.isfile(stats):
            data = read_json(stats)
            self.experiment = str(data.get("experiment", self.experiment))


def plot_system_compare(cmp):
    vs = cmp.variants
    n = len(vs)
    base = vs[0]["name"]
    colors = variant_colors(n)
    t_div, t_unit = time_scale(max(v["seconds"] for v in vs))
    e_div, e_unit = energy_scale(max(v["energy_j"] for v in vs) * 1e12, "pJ")
    panels = [
        ("training time", f"training time ({t_unit})", lambda v: v["seconds"] / t_div,
         lambda v: f"{v['speedup']:.3f}× vs {base}\n{v['samples_per_s']:.4g} samples/s"),
        ("energy", f"energy ({e_unit})", lambda v: v["energy_j"] * 1e12 / e_div,
         lambda v: f"efficiency {v['energy_efficiency_rel']:.3f}× vs {base}"),
        ("power", "system power (W): average, and peak (outline)", lambda v: v["avg_w"],
         lambda v: f"avg {v['avg_w']:.4g} W, peak {v['peak_w']:.4g} W"
                   + (f"\n{v['violations']:.0f} cap violations" if v["violations"] else "")),
    ]
    fig, axes = plt.subplots(1, 3, figsize=(max(12, 3 * (0.55 * n + 1.2)), 5.2))
    x = list(range(n))
    for ax, (title, ylabel, value, label) in zip(axes, panels):
        vals = [value(v) for v in vs]
        ax.bar(x, vals, width=0.7, color=colors, edgecolor="black", linewidth=0.4)
        top = max(vals + [1e-30])
        if title == "power":
            peaks = [v["peak_w"] for v in vs]
            ax.bar(x, peaks, width=0.7, fill=False, edgecolor="black", linewidth=0.8, ls="--")
            top = max(top, max(peaks))
        for xi, v in zip(x, vs):
            ax.annotate(label(v), (xi, vals[xi]), textcoords="offset points", xytext=(0, 4),
                        ha="center", va="bottom", fontsize=7.5, zorder=3,
                        bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85))
        ax.set_xticks(x)
        ax.set_xticklabels([v["name"] for v in vs], fontsize=8)
        ax.set_ylabel(ylabel, fontsize=9)
        ax.set_title(title, fontsize=10)
        ax.set_ylim(0, top * 1.3)
        ax.grid(True, axis="y", alpha=0.3)
        ax.set_axisbelow(True)
    fig.suptitle(f"{cmp.experiment}: {n} placement policies on the same system and training "
                 f"(all epochs)", fontsize=10)
    fig.tight_layout()
    return fig


def plot_compare_accuracy(cmp):
    vs = cmp.variants
    n = len(vs)
    colors = variant_colors(n)
    styles = ("-", "--", "-.", ":")
    markers = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
    fig, ax = plt.subplots(figsize=(8, 4.8))
    series = []
    for i, v in enumerate(vs):
        x = [e["epoch"] for e in v["epochs"]]
        y = [100 * e["test_accuracy"] for e in v["epochs"]]
        series.append((x, y))
        # Earlier variants are drawn larger and underneath, so identical curves stay visible.
        ax.plot(x, y, linestyle=styles[i % len(styles)], marker=markers[i % len(markers)],
                color=colors[i], lw=2.2, ms=max(4.0, 13.0 - 1.6 * i), zorder=2 + i,
                label=f"{v['name']} (final {y[-1]:.2f}%)")
    xs = [e for s in series for e in s[0]]
    epoch_axis(ax, xs)
    ax.set_ylabel("test accuracy (%)")
    ax.set_ylim(0, 105)
    ax.grid(True, alpha=0.3)
    note = ""
    if n > 1 and all(s == series[0] for s in series):
        note = " (all variants identical: curves coincide)"
    ax.set_title(f"{cmp.title()}: test accuracy per epoch{note}\n{cmp.subtitle()}", fontsize=10)
    ax.legend(title="variant", loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
              title_fontsize=9, frameon=False)
    return fig


VARIANT_STYLES = ("-", "--", "-.", ":")
VARIANT_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")


def _variant_line(ax, i, x, y, color, label, base=None):
    """One variant's per-epoch curve; earlier variants larger and underneath, so
    coinciding curves stay visible. The baseline is black: base="ref" a thin dashed
    line (its speedup, 1.0), base="data" a solid line with markers."""
    if base == "ref":
        return ax.plot(x, y, linestyle="--", marker="o", color="black", lw=1.4, ms=5,
                       alpha=0.8, zorder=2, label=label)[0]
    if base == "data":
        return ax.plot(x, y, linestyle="-", marker="o", color="black", lw=2.0, ms=9,
                       zorder=2, label=label)[0]
    return ax.plot(x, y, linestyle=VARIANT_STYLES[i % len(VARIANT_STYLES)],
                   marker=VARIANT_MARKERS[i % len(VARIANT_MARKERS)], color=color, lw=2.0,
                   ms=max(4.0, 10.0 - 1.2 * i), zorder=2 + i, label=label)[0]


def _padded_limits(values, include=(), min_span=0.0, pad=0.12):
    vals = [v for v in list(values) + list(include) if math.isfinite(v)]
    lo, hi = min(vals), max(vals)
    if hi - lo < min_span:
        mid = (lo + hi) / 2
        lo, hi = mid - min_span / 2, mid + min_span / 2
    span = hi - lo if hi > lo else (abs(hi) or 1.0)
    return lo - pad * span, hi + pad * span


def plot_techniques(cmp):
    """Fig. 3 of the speculative-backprop paper: (a) speedup in cumulative training
    time, (b) test accuracy, (c) speedup of the time per sample step; per epoch,
    over the first variant (the baseline, 1.0). A shape-only compare has no (b)."""
    t = cmp.tables
    names = t.variants
    base = names[0]
    colors = variant_colors(len(names))
    x = t.epochs
    panels = [
        ("time", "speedup in cumulative execution time",
         f"speedup over {base} (×, higher is better)"),
        ("accuracy", "test accuracy", "test accuracy (%)"),
        ("step", "speedup of the time per sample step",
         f"speedup over {base} (×, higher is better)"),
    ]
    if cmp.shape_only:
        panels = [p for p in panels if p[0] != "accuracy"]
    fig, axes = plt.subplots(1, len(panels), figsize=(5.7 * len(panels), 5.6))

    for letter, ax, (key, title, ylabel) in zip("abc", axes, panels):
        title = f"({letter}) {title}"
        all_y = []
        for i, v in enumerate(names):
            if key == "accuracy":
                y = t.data["accuracy"][v]
                label = f"{v}: final {y[-1]:.2f}%"
                if not i:
                    label += " (baseline)"
                else:
                    label += f" ({y[-1] - t.data['accuracy'][base][-1]:+.2f} pts)"
            else:
                y = t.speedup(key, v)
                raw = t.data[key][v][-1]
                unit = TECH_TABLES[key][2]
                what = "total" if key == "time" else "last epoch"
                label = (f"{v}: {y[-1]:.3f}× ({what} {raw:.4g} {unit})" if i else
                         f"{v} (baseline = 1; {what} {raw:.4g} {unit})")
            all_y += y
            role = None if i else ("data" if key == "accuracy" else "ref")
            _variant_line(ax, i, x, y, colors[i], label, base=role)
        if key == "accuracy":
            lo, hi = _padded_limits(all_y, min_span=2.0)
            ax.set_ylim(max(0.0, lo), hi)  # zoomed in, as in the paper's Fig. 3(b)
        else:
            ax.set_ylim(*_padded_limits(all_y, include=(1.0,), min_span=0.1))
        epoch_axis(ax, x)
        ax.set_xlabel("epochs completed" if key == "time" else "epoch")
        ax.set_ylabel(ylabel, fontsize=9)
        ax.set_title(title, fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize=8,
                  frameon=False, ncol=1)
    n = len(x)
    fig.suptitle(f"{cmp.title()}: techniques over {n} epoch{'s' if n != 1 else ''}, "
                 f"relative to the first variant {base} (training time at the accelerator "
                 f"clock{'; no accuracy: shape only' if cmp.shape_only else ''})"
                 f"\n{cmp.subtitle()}", fontsize=10)
    fig.tight_layout()
    return fig


def plot_hit_rate(cmp):
    t = cmp.tables
    names = t.variants
    colors = variant_colors(len(names))
    x = t.epochs
    fig, ax = plt.subplots(figsize=(9, 5))
    for i, v in enumerate(names):
        if v not in t.speculating:
            continue
        y = [100 * h for h in t.data["hit_rate"][v]]
        known = [h for h in y if math.isfinite(h)]
        last = max(e for e, h in zip(x, y) if math.isfinite(h))
        label = (f"{v}: mean {sum(known) / len(known):.1f}%, "
                 f"epoch {last:g}: {known[-1]:.1f}%")
        _variant_line(ax, i, x, y, colors[i], label)
    epoch_axis(ax, x)
    ax.set_ylim(0, 105)
    ax.set_ylabel("speculation hit rate (%)\nspeculative gradients kept: hits / (hits + misses)")
    ax.grid(True, alpha=0.3)
    others = [v for v in names if v not in t.speculating]
    note = f"\nnot speculating (no hit rate): {', '.join(others)}" if others else ""
    ax.set_title(f"{cmp.title()}: speculation hit rate per epoch{note}\n{cmp.subtitle()}",
                 fontsize=10)
    ax.legend(title="variant", loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
              title_fontsize=9, frameon=False)
    return fig


# ----------------------------------------------------------------------------- driver
