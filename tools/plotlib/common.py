"""What every figure of tools/plot shares: the files' constants, the readers that check
them (CSV, JSON, epochs), the run kind a directory states, and the axis scales."""

import argparse
import contextlib
import csv
import fcntl
import io
import json
import math
import os
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    HAVE_MATPLOTLIB = True
except ImportError:  # handled in main(): re-exec under Debian's python3
    HAVE_MATPLOTLIB = False

PROG = "plot"
DEBIAN_PYTHON = "/usr/bin/python3"
REEXEC_ENV = "TRAINSIM_PLOT_REEXEC"

RUN_FILES = ("epochs.csv", "layers.csv", "stats.json")
COMPARE_FILE = "compare.csv"
# Energy columns are named by the energy table's unit (energy_pj, train_energy_norm, ...);
# read_csv() strips the unit from their names (energy, train_energy) and notes it.
ENERGY_UNIT_SUFFIXES = {"_pj": "pJ", "_norm": "normalized"}
# A shape-only run (`numerics: none`, docs/config.md) has batch_layers.csv (the columns of
# layers.csv, for one simulated batch of each kind and size) instead of layers.csv, and an
# epochs.csv whose accuracy and loss cells are empty. Every kind's epochs.csv opens with the
# same columns (docs/training.md); a shape-only run's also has these, optionally
# <kind>_batches, memory_energy, eval_cycles and eval_energy.
SHAPE_LAYERS_FILE = "batch_layers.csv"
SHAPE_EPOCH_COLUMNS = ("epoch", "cycles", "seconds", "dram_bytes", "energy")
SHAPE_EPOCH_OPTIONAL = ("memory_energy", "eval_cycles", "eval_energy")
# The same columns as a shape-only epochs.csv named them before the common schema
# (schema_version 2 and earlier); read under their new names.
SHAPE_EPOCH_OLD_NAMES = {"train_cycles": "cycles", "train_seconds": "seconds",
                         "train_dram_bytes": "dram_bytes", "train_energy": "energy",
                         "train_memory_energy": "memory_energy"}
ACCURACY_COLUMNS = ("train_loss", "train_accuracy", "test_loss", "test_accuracy")
# Batch kinds of a shape-only run (<kind>_batches in epochs.csv), in schedule order.
BATCH_KINDS = ("backprop", "phase_bp", "phase_gp")
BATCH_KIND_LABELS = {
    "backprop": "backprop (and ADA-GP warm-up)",
    "phase_bp": "ADA-GP Phase BP",
    "phase_gp": "ADA-GP Phase GP",
}
BATCH_KIND_COLORS = {"backprop": "#4C72B0", "phase_bp": "#55A868", "phase_gp": "#DD8452"}
SHAPE_ONLY_WHY = "shape-only experiment (numerics: none), no accuracy"
# Per-epoch technique tables of `trainsim compare` (one column per variant):
# key -> (file, what, unit). All four or none.
TECH_TABLES = {
    "time": ("table_time.csv", "cumulative training time", "ms"),
    "accuracy": ("table_accuracy.csv", "test accuracy", "%"),
    "step": ("table_step.csv", "time per sample step", "us"),
    "hit_rate": ("table_hit_rate.csv", "speculation hit rate", ""),
}

# Canonical role order/colours (sim/workload/op.cpp role_name()).
ROLES = ("fw", "bwd-data", "bwd-weight", "update", "act-grad")
ROLE_LABELS = {
    "fw": "forward (fw)",
    "bwd-data": "backward data (bwd-data)",
    "bwd-weight": "backward weight (bwd-weight)",
    "update": "weight update (update)",
    "act-grad": "activation grad (act-grad)",
}
ROLE_COLORS = {
    "fw": "#4C72B0",
    "bwd-data": "#DD8452",
    "bwd-weight": "#55A868",
    "update": "#C44E52",
    "act-grad": "#8172B3",
}
EXTRA_COLORS = ("#937860", "#DA8BC3", "#8C8C8C", "#CCB974", "#64B5CD")

# Energy components of stats.json totals.<phase>.energy, in memory-hierarchy order.
COMPONENTS = ("mac", "rf", "noc", "buffer", "accumulator", "dram", "vector", "leakage")
COMPONENT_LABELS = {
    "mac": "MAC",
    "rf": "register files",
    "noc": "NoC",
    "buffer": "global buffer",
    "accumulator": "accumulator",
    "dram": "DRAM",
    "vector": "vector unit",
    "leakage": "leakage",
}
COMPONENT_COLORS = {
    "mac": "#4C72B0",
    "rf": "#55A868",
    "noc": "#8172B3",
    "buffer": "#CCB974",
    "accumulator": "#64B5CD",
    "dram": "#C44E52",
    "vector": "#DD8452",
    "leakage": "#8C8C8C",
}

DPI = 120


class PlotError(Exception):
    """A user-facing error: printed as one line, exit status 2."""


# ----------------------------------------------------------------------------- input


def _rel(path):
    return os.path.relpath(path) if not os.path.isabs(path) else path


def energy_units(header, path):
    """{column: (name without unit, unit)} for the energy columns of a CSV header."""
    found = {}
    for c in header:
        for suffix, unit in ENERGY_UNIT_SUFFIXES.items():
            if isinstance(c, str) and "energy" in c and c.endswith(suffix):
                found[c] = (c[:-len(suffix)], unit)
    if len({u for _, u in found.values()}) > 1:
        raise PlotError(f"{_rel(path)}: malformed: energy columns in different units")
    return found


def read_csv(path, required):
    """Rows of a CSV file as dicts; checks the header has `required` columns,
    there is at least one row and no row is short. Energy columns are keyed without
    their unit suffix; the unit is in each row's "_energy_unit" (None if none)."""
    if not os.path.isfile(path):
        raise PlotError(f"{_rel(path)}: missing")
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            header = reader.fieldnames
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise PlotError(f"{_rel(path)}: cannot read: {e}") from None
    if not header:
        raise PlotError(f"{_rel(path)}: empty file (no CSV header)")
    units = energy_units(header, path)
    header = [units[c][0] if c in units else c for c in header]
    unit = next(iter(units.values()))[1] if units else None
    for row in rows:
        for c, (base, _) in units.items():
            if c in row:
                row[base] = row.pop(c)
    missing = [c for c in required if c not in header]
    if missing:
        raise PlotError(f"{_rel(path)}: malformed: missing column(s) {', '.join(missing)}")
    if not rows:
        raise PlotError(f"{_rel(path)}: malformed: no data rows")
    for i, row in enumerate(rows, start=2):
        if None in row or any(v is None for v in row.values()):
            raise PlotError(f"{_rel(path)}:{i}: malformed: wrong number of fields")
        row["_line"] = i
        row["_energy_unit"] = unit
    return rows


def num(row, key, path):
    """A finite float from a CSV cell."""
    text = row[key].strip()
    try:
        value = float(text)
    except ValueError:
        raise PlotError(
            f"{_rel(path)}:{row['_line']}: malformed: column {key} is not a number: {text!r}"
        ) from None
    if not math.isfinite(value):
        raise PlotError(f"{_rel(path)}:{row['_line']}: malformed: column {key} is {text!r}")
    return value


def read_json(path):
    if not os.path.isfile(path):
        raise PlotError(f"{_rel(path)}: missing")
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, UnicodeDecodeError) as e:
        raise PlotError(f"{_rel(path)}: cannot read: {e}") from None
    except json.JSONDecodeError as e:
        raise PlotError(f"{_rel(path)}: malformed JSON: {e}") from None
    if not isinstance(data, dict):
        raise PlotError(f"{_rel(path)}: malformed: top level is not an object")
    return data


def _dig(data, keys, path):
    cur = data
    for k in keys:
        if not isinstance(cur, dict) or k not in cur:
            raise PlotError(f"{_rel(path)}: malformed: no {'.'.join(keys)}")
        cur = cur[k]
    return cur


def load_epochs(run_dir):
    path = os.path.join(run_dir, "epochs.csv")
    rows = read_csv(path, ("epoch", "train_loss", "test_accuracy"))
    epochs = []
    for r in rows:
        e = {
            "epoch": num(r, "epoch", path),
            "train_loss": num(r, "train_loss", path),
            "test_accuracy": num(r, "test_accuracy", path),
        }
        for opt in ("train_accuracy", "test_loss"):
            if opt in r and r[opt].strip() != "":
                e[opt] = num(r, opt, path)
        epochs.append(e)
    epochs.sort(key=lambda e: e["epoch"])
    return epochs


def load_shape_epochs(run_dir, why):
    """epochs.csv of a shape-only run: per epoch (integers, increasing) time, DRAM bytes,
    energy (>= 0) and, when present, the batches of each kind (<kind>_batches, integers
    >= 0). Accuracy or loss columns contradict `why` (the reason the run is shape only)."""
    path = os.path.join(run_dir, "epochs.csv")
    rows = read_csv(path, ("epoch",))
    for r in rows:
        for old, new in SHAPE_EPOCH_OLD_NAMES.items():
            if old in r and new not in r:
                r[new] = r.pop(old)
    found = [c for c in ACCURACY_COLUMNS if any((r.get(c) or "").strip() for r in rows)]
    if found:  # a trained run's epochs.csv: say so rather than list what it lacks
        raise PlotError(f"{_rel(path)}: malformed: has {', '.join(found)}, but {why}")
    missing = [c for c in SHAPE_EPOCH_COLUMNS if c not in rows[0]]
    if missing:
        raise PlotError(f"{_rel(path)}: malformed: missing column(s) {', '.join(missing)}")
    kinds = [c[:-len("_batches")] for c in rows[0]
             if isinstance(c, str) and c.endswith("_batches") and c != "_batches"]
    kinds.sort(key=lambda k: (BATCH_KINDS.index(k) if k in BATCH_KINDS else len(BATCH_KINDS)))
    epochs = []
    for r in rows:
        e = {c: num(r, c, path) for c in SHAPE_EPOCH_COLUMNS}
        for opt in SHAPE_EPOCH_OPTIONAL:
            if opt in r:
                e[opt] = num(r, opt, path)
        e["batches"] = {k: num(r, k + "_batches", path) for k in kinds}
        for key, value in [(c, e[c]) for c in SHAPE_EPOCH_COLUMNS[1:] + SHAPE_EPOCH_OPTIONAL
                           if c in e] + [(k + "_batches", b) for k, b in e["batches"].items()]:
            if value < 0 or (key.endswith("_batches") and value != int(value)):
                raise PlotError(f"{_rel(path)}:{r['_line']}: malformed: column {key} "
                                f"({r[key].strip()}) must be "
                                + ("an integer >= 0" if key.endswith("_batches") else ">= 0"))
        if e["epoch"] != int(e["epoch"]) or e["epoch"] < 0 or (
                epochs and e["epoch"] <= epochs[-1]["epoch"]):
            raise PlotError(f"{_rel(path)}:{r['_line']}: malformed: epoch "
                            f"{r['epoch'].strip()!r} is not an integer above the previous "
                            "row's")
        epochs.append(e)
    return epochs


def _unique(items):
    out = []
    for x in items:
        if x and x not in out:
            out.append(x)
    return out


# stats.json's "kind" (schema_version >= 2, sim/report/stats_header.h) -> what plot_dir draws
# and the files that kind of directory must hold.
KIND_PLOTS = {"train": "run", "run": "run", "shape-only": "run", "system": "system",
              "hype": "hype"}


def stated_kind(directory):
    """The plot kind of a directory whose stats.json names its run kind; None if it has no
    stats.json or one without "kind" (older directories). Checks the files that kind needs."""
    spath = os.path.join(directory, "stats.json")
    if not os.path.isfile(spath):
        return None
    try:
        with open(spath, encoding="utf-8") as f:
            stats = json.load(f)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise PlotError(f"{_rel(spath)}: unreadable: {e}") from None
    if not isinstance(stats, dict) or "kind" not in stats:
        return None
    kind = stats["kind"]
    if kind not in KIND_PLOTS:
        raise PlotError(f"{_rel(spath)}: unknown run kind {kind!r} (known: "
                        f"{', '.join(sorted(KIND_PLOTS))}): written by a newer trainsim?")
    plot_kind = KIND_PLOTS[kind]
    need = {"hype": (TIMELINE_FILE, POWER_FILE, PLACEMENT_FILE),
            "system": (TIMELINE_FILE, DEVICES_FILE)}.get(plot_kind, ())
    if plot_kind == "run":
        need = tuple(f for f in RUN_FILES if f != "layers.csv")
    missing = [f for f in need if not os.path.isfile(os.path.join(directory, f))]
    if missing:
        raise PlotError(f"{_rel(directory)}: {kind} directory lacks {', '.join(missing)}")
    return plot_kind


def shape_only_run(run_dir, stats):
    """Whether a run directory is shape only: stats.json's numerics is "none" (trained
    runs have no such key or "float"); without the key, it has batch_layers.csv but no
    layers.csv. Checks that its per-layer file is there."""
    spath = os.path.join(run_dir, "stats.json")
    if "kind" in stats:
        shape = stats["kind"] == "shape-only"
    elif "numerics" in stats:
        numerics = stats["numerics"]
        if not isinstance(numerics, str) or not numerics:
            raise PlotError(f"{_rel(spath)}: malformed: numerics is not a name")
        shape = numerics == "none"
    else:
        shape = (not os.path.isfile(os.path.join(run_dir, "layers.csv"))
                 and os.path.isfile(os.path.join(run_dir, SHAPE_LAYERS_FILE)))
    need = SHAPE_LAYERS_FILE if shape else "layers.csv"
    if not os.path.isfile(os.path.join(run_dir, need)):
        said = f"stats.json says numerics: {stats['numerics']}" if "numerics" in stats else ""
        raise PlotError(f"{_rel(os.path.join(run_dir, need))}: missing"
                        + (f" ({said})" if said else ""))
    return shape


# ----------------------------------------------------------------------------- formatting


def energy_scale(max_value, unit):
    """(divisor, unit label) that keeps values readable; only pJ is rescaled (a normalized
    energy, in multiples of one MAC, is labelled as such, never as joules)."""
    if unit != "pJ":
        return 1.0, unit
    for div, label in ((1e12, "J"), (1e9, "mJ"), (1e6, "µJ"), (1e3, "nJ")):
        if max_value >= div:
            return div, label
    return 1.0, "pJ"


def count_scale(max_value):
    for div, label in ((1e9, "billion"), (1e6, "million"), (1e3, "thousand")):
        if max_value >= div:
            return div, label
    return 1.0, ""


def time_scale(max_seconds):
    for div, label in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if max_seconds >= div:
            return div, label
    return 1e-9, "ns"


def short(value):
    """3 significant digits with k/M/G suffix."""
    a = abs(value)
    for div, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if a >= div:
            return f"{value / div:.3g}{suffix}"
    return f"{value:.3g}"


def fmt_energy(value, unit):
    div, label = energy_scale(abs(value), unit)
    return f"{value / div:.3g} {label}"


def pct_text(part, whole):
    pct = 100 * part / whole if whole else 0.0
    return f"{pct:.1f}%" if pct >= 1 or pct == 0 else f"{pct:.2g}%"


def epoch_axis(ax, xs):
    """Integer epoch ticks; exactly the epochs when there are few of them."""
    values = sorted(set(xs))
    if len(values) <= 20:
        ax.set_xticks(values)
        ax.set_xticklabels([f"{v:g}" for v in values])
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    pad = 0.5 if len(values) == 1 else 0.05 * (values[-1] - values[0])
    ax.set_xlim(values[0] - pad, values[-1] + pad)
    ax.set_xlabel("epoch")


def layer_label(layer):
    name, typ = layer["name"], layer["type"]
    return f"{name} ({typ})" if typ and typ not in name else name


def role_color(role, roles):
    if role in ROLE_COLORS:
        return ROLE_COLORS[role]
    extra = [r for r in roles if r not in ROLE_COLORS]
    return EXTRA_COLORS[extra.index(role) % len(EXTRA_COLORS)]


def fig_to_png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


# ----------------------------------------------------------------------------- run plots



def variant_colors(n):
    cmap = plt.get_cmap("tab10")
    return [cmap(i % 10) for i in range(n)]


# The files of a system or hype run directory.
TIMELINE_FILE = "timeline.json"
POWER_FILE = "power.csv"
PLACEMENT_FILE = "placement.csv"
DEVICES_FILE = "devices.csv"

# Every name above, the underscored helpers included, for the figure modules'
# `from plotlib.common import *`.
__all__ = [name for name in dir() if not name.startswith("__")]
