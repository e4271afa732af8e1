"""A run directory on one device (trainsim run, train, and shape-only runs): accuracy,
per-layer cycles and energy, energy per memory level, the per-epoch figures."""

from plotlib.common import *  # noqa: F401,F403 (the shared readers, scales and constants)


class RunData:
    """Everything the run-directory plots need, validated."""

    def __init__(self, run_dir):
        self.dir = run_dir
        spath = os.path.join(run_dir, "stats.json")
        self.stats = read_json(spath)
        self.shape_only = shape_only_run(run_dir, self.stats)
        if self.shape_only:
            self.epochs = load_shape_epochs(
                run_dir, "the run is shape only (" + (
                    "stats.json says numerics: none" if "numerics" in self.stats
                    else f"{SHAPE_LAYERS_FILE}, no layers.csv") + ")")
            lpath = os.path.join(run_dir, SHAPE_LAYERS_FILE)
        else:
            self.epochs = load_epochs(run_dir)
            lpath = os.path.join(run_dir, "layers.csv")

        rows = read_csv(lpath, ("phase", "layer", "name", "role", "cycles", "energy"))
        # layer index -> {"name", "type", "cycles": {role: v}, "energy": {role: v}}
        self.layers = {}
        self.roles = []
        for r in rows:
            if r["phase"].strip() != "train":
                continue
            idx = num(r, "layer", lpath)
            role = r["role"].strip()
            if not role:
                raise PlotError(f"{_rel(lpath)}:{r['_line']}: malformed: empty role")
            layer = self.layers.setdefault(
                idx,
                {"name": r["name"].strip(), "type": r.get("type", "").strip(),
                 "cycles": {}, "energy": {}},
            )
            layer["cycles"][role] = layer["cycles"].get(role, 0.0) + num(r, "cycles", lpath)
            layer["energy"][role] = layer["energy"].get(role, 0.0) + num(r, "energy", lpath)
            if role not in self.roles:
                self.roles.append(role)
        if not self.layers:
            raise PlotError(f"{_rel(lpath)}: malformed: no training-phase (phase=train) rows")
        self.roles.sort(key=lambda x: (ROLES.index(x) if x in ROLES else len(ROLES), x))

        energy = _dig(self.stats, ("totals", "train", "energy"), spath)
        if not isinstance(energy, dict):
            raise PlotError(f"{_rel(spath)}: malformed: totals.train.energy is not an object")
        self.energy_unit = str(energy.get("unit", self.stats.get("energy_unit", "pJ")))
        csv_unit = rows[0]["_energy_unit"]
        if csv_unit is not None and csv_unit != self.energy_unit:
            raise PlotError(f"{_rel(lpath)}: malformed: energy in {csv_unit}, but "
                            f"{_rel(spath)} says {self.energy_unit}")
        self.energy = {}
        for k, v in energy.items():
            if k in ("unit", "total"):
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise PlotError(
                    f"{_rel(spath)}: malformed: totals.train.energy.{k} is not a number")
            self.energy[k] = float(v)
        if not self.energy:
            raise PlotError(f"{_rel(spath)}: malformed: totals.train.energy has no components")
        total = energy.get("total")
        self.energy_total = (
            float(total) if isinstance(total, (int, float)) and not isinstance(total, bool)
            else sum(self.energy.values()))

    # Descriptive strings for titles (all optional in stats.json).
    def _get(self, *keys, default=""):
        cur = self.stats
        for k in keys:
            if not isinstance(cur, dict) or k not in cur:
                return default
            cur = cur[k]
        return cur if isinstance(cur, (str, int, float)) else default

    @property
    def experiment(self):
        return str(self._get("experiment", default=os.path.basename(os.path.normpath(self.dir))))

    def subtitle(self, with_dataflow=True):
        parts = []
        net, ds = self._get("network", "name"), self._get("dataset", "name")
        if net or ds:
            parts.append(f"{net or '?'} on {ds or '?'}")
        acc = self._get("accelerator", "name") or self._get("accelerator")  # shape-only: a name
        if acc:
            arr, pes = self._get("accelerator", "array"), self._get("accelerator", "pes")
            extra = f"{arr} = {pes} PEs" if arr and pes else (arr or "")
            parts.append(f"accelerator {acc}" + (f" ({extra})" if extra else ""))
        df = self._get("accelerator", "dataflow") or self._get("dataflow")
        if with_dataflow and df:
            parts.append(f"dataflow {df}")
        tech = self._get("technique")
        if tech:
            parts.append(f"technique {tech}")
        n = len(self.epochs)
        parts.append(f"{n} epoch{'s' if n != 1 else ''}")
        if self.shape_only:
            parts.append("shape only (numerics: none)")
        return " · ".join(str(p) for p in parts)


def plot_accuracy(run):
    fig, ax = plt.subplots(figsize=(8, 4.8))
    x = [e["epoch"] for e in run.epochs]
    acc = [100 * e["test_accuracy"] for e in run.epochs]
    handles = ax.plot(x, acc, "o-", color="#4C72B0", lw=2, ms=7, label="test accuracy (%)")
    if all("train_accuracy" in e for e in run.epochs):
        handles += ax.plot(x, [100 * e["train_accuracy"] for e in run.epochs], "o--",
                           color="#4C72B0", alpha=0.5, lw=1.5, ms=5,
                           label="train accuracy, running (%)")
    ax.set_ylim(0, 105)
    epoch_axis(ax, x)
    ax.set_ylabel("accuracy (%)", color="#4C72B0")
    ax.tick_params(axis="y", colors="#4C72B0")
    ax.grid(True, alpha=0.3)
    ax.annotate(f"{acc[-1]:.2f}%", (x[-1], acc[-1]), textcoords="offset points",
                xytext=(-8, 6), ha="right", va="bottom", color="#4C72B0", fontsize=9,
                fontweight="bold", zorder=5,
                bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85))

    ax2 = ax.twinx()
    loss = [e["train_loss"] for e in run.epochs]
    handles += ax2.plot(x, loss, "s-", color="#C44E52", lw=2, ms=6, label="train loss")
    if all("test_loss" in e for e in run.epochs):
        handles += ax2.plot(x, [e["test_loss"] for e in run.epochs], "s:", color="#C44E52",
                            alpha=0.6, lw=1.5, ms=5, label="test loss")
    ax2.set_ylabel("loss (cross-entropy)", color="#C44E52")
    ax2.tick_params(axis="y", colors="#C44E52")
    top = max([0.0] + loss + [e.get("test_loss", 0.0) for e in run.epochs])
    ax2.set_ylim(0, top * 1.15 if top > 0 else 1)
    ax.set_zorder(ax2.get_zorder() + 1)  # accuracy (and its label) above the loss curves
    ax.patch.set_visible(False)

    ax.set_title(f"{run.experiment}: test accuracy and train loss per epoch\n{run.subtitle()}",
                 fontsize=10)
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.13),
              ncol=min(4, len(handles)), fontsize=8, frameon=False)
    return fig


def plot_layers(run, metric):
    """Horizontal stacked bars per layer (network order top to bottom), split by role."""
    order = sorted(run.layers)
    layers = [run.layers[i] for i in order]
    totals = [sum(l[metric].values()) for l in layers]
    grand = sum(totals)
    if metric == "cycles":
        div, unit = count_scale(max(totals) if totals else 0)
        xlabel = f"cycles ({unit}s)" if unit else "cycles"
        what = "cycles"
    else:
        div, unit = energy_scale(max(totals) if totals else 0, run.energy_unit)
        xlabel = f"energy ({unit})"
        what = "energy"

    n = len(layers)
    fig, ax = plt.subplots(figsize=(10, max(3.2, 0.42 * n + 1.8)))
    y = list(range(n))
    left = [0.0] * n
    for role in run.roles:
        vals = [l[metric].get(role, 0.0) / div for l in layers]
        ax.barh(y, vals, left=left, height=0.7, color=role_color(role, run.roles),
                edgecolor="white", linewidth=0.5, label=ROLE_LABELS.get(role, role))
        left = [a + b for a, b in zip(left, vals)]
    for yi, tot in zip(y, totals):
        text = ((short(tot) if metric == "cycles" else fmt_energy(tot, run.energy_unit))
                + f"  ({pct_text(tot, grand)})")
        ax.text(tot / div, yi, "  " + text, va="center", ha="left", fontsize=8)
    ax.set_yticks(y)
    ax.set_yticklabels([layer_label(l) for l in layers], fontsize=9)
    ax.invert_yaxis()  # first layer at the top
    ax.set_xlim(0, (max(totals) / div if totals and max(totals) > 0 else 1) * 1.28)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("layer (network order)")
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_axisbelow(True)
    total_text = (short(grand) + " cycles" if metric == "cycles"
                  else fmt_energy(grand, run.energy_unit))
    # Ops on a technique's own array run beside the main array's: their cycles add up to more
    # than the run took, so the title says what the total sums.
    units = getattr(run, "stats", {}).get("units")
    second = units.get("technique_array") if isinstance(units, dict) else None
    if metric == "cycles" and isinstance(second, dict):
        total_text += (f" of ops on the main array and {second.get('name', 'its own array')}, "
                       "which run side by side")
    scope = ("one simulated batch of each kind and size, not multiplied by their counts"
             if run.shape_only else "all epochs")
    ax.set_title(
        f"{run.experiment}: training {what} per layer and role "
        f"({scope}, total {total_text})\n{run.subtitle()}", fontsize=10)
    ax.legend(title="role", loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
              title_fontsize=9, frameon=False)
    return fig


def plot_energy_levels(run):
    keys = [k for k in COMPONENTS if k in run.energy]
    keys += [k for k in run.energy if k not in COMPONENTS]
    vals = [run.energy[k] for k in keys]
    div, unit = energy_scale(max(vals) if vals else 0, run.energy_unit)
    total = sum(vals)
    fig, ax = plt.subplots(figsize=(9, 5))
    x = list(range(len(keys)))
    ax.bar(x, [v / div for v in vals], width=0.65,
           color=[COMPONENT_COLORS.get(k, "#64B5CD") for k in keys])
    for xi, v in zip(x, vals):
        ax.annotate(f"{v / div:.3g} {unit}\n{pct_text(v, total)}", (xi, v / div),
                    textcoords="offset points", xytext=(0, 3), ha="center", va="bottom",
                    fontsize=8)
    ax.set_xticks(x)
    ax.set_xticklabels([COMPONENT_LABELS.get(k, k) for k in keys], fontsize=9)
    ax.set_ylabel(f"energy ({unit})")
    ax.set_xlabel("component / memory level")
    top = max(vals) / div if vals and max(vals) > 0 else 1
    ax.set_ylim(0, top * 1.2)
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.set_title(
        f"{run.experiment}: training energy by component "
        f"(all epochs, total {run.energy_total / div:.4g} {unit})\n{run.subtitle()}",
        fontsize=10)
    return fig


def plot_epochs(run):
    """Shape-only run: training time and energy per epoch and, when epochs.csv counts
    them, the batches of each kind (ADA-GP's schedule)."""
    es = run.epochs
    x = [e["epoch"] for e in es]
    kinds = [k for k in es[0]["batches"] if any(e["batches"][k] > 0 for e in es)]
    ms = 6 if len(x) <= 20 else 3
    fig, axes = plt.subplots(2 if kinds else 1, 1, figsize=(9, 7.4 if kinds else 4.8),
                             sharex=True, squeeze=False)
    ax = axes[0][0]
    secs = [e["seconds"] for e in es]
    t_div, t_unit = time_scale(max(secs))
    handles = ax.plot(x, [s / t_div for s in secs], "o-", color="#4C72B0", lw=2, ms=ms,
                      label=f"training time ({t_unit}, total {sum(secs) / t_div:.4g} {t_unit})")
    ax.set_ylabel(f"training time per epoch ({t_unit})", color="#4C72B0")
    ax.tick_params(axis="y", colors="#4C72B0")
    ax.set_ylim(0, max(secs) / t_div * 1.15 if max(secs) > 0 else 1)
    ax.grid(True, alpha=0.3)

    ax2 = ax.twinx()
    energy = [e["energy"] for e in es]
    e_div, e_unit = energy_scale(max(energy), run.energy_unit)
    handles += ax2.plot(x, [v / e_div for v in energy], "s--", color="#C44E52", lw=1.6,
                        ms=ms - 1, label=f"training energy ({e_unit})")
    if all("memory_energy" in e for e in es):
        handles += ax2.plot(x, [e["memory_energy"] / e_div for e in es], ":",
                            color="#C44E52", alpha=0.6, lw=1.6,
                            label=f"of which global buffer + DRAM ({e_unit})")
    ax2.set_ylabel(f"training energy per epoch ({e_unit})", color="#C44E52")
    ax2.tick_params(axis="y", colors="#C44E52")
    ax2.set_ylim(0, max(energy) / e_div * 1.15 if max(energy) > 0 else 1)
    ax.legend(handles=handles, loc="lower right", fontsize=8, framealpha=0.85)
    ax.set_title(f"{run.experiment}: training time and energy per epoch "
                 f"(no accuracy: shape only)\n{run.subtitle()}", fontsize=10)

    if kinds:
        bx = axes[1][0]
        bottom = [0.0] * len(x)
        extra = [k for k in kinds if k not in BATCH_KIND_COLORS]
        for k in kinds:
            vals = [e["batches"][k] for e in es]
            color = BATCH_KIND_COLORS.get(k) or EXTRA_COLORS[extra.index(k) % len(EXTRA_COLORS)]
            bx.bar(x, vals, bottom=bottom, width=0.8, color=color,
                   label=f"{BATCH_KIND_LABELS.get(k, k)}: {short(sum(vals))}")
            bottom = [a + b for a, b in zip(bottom, vals)]
        bx.set_ylabel("training batches per epoch")
        bx.set_ylim(0, max(bottom + [1.0]) * 1.15)
        bx.grid(True, axis="y", alpha=0.3)
        bx.set_axisbelow(True)
        bx.legend(title="batch kind (run total)", loc="lower right", fontsize=8,
                  title_fontsize=8, framealpha=0.85)
        bx.set_title("batches of each kind", fontsize=9)
    epoch_axis(axes[-1][0], x)
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- compare plots
