#!/usr/bin/env python3
"""ADA-GP over the shape-only zoo: Figures 17-19 and 21 of Janfaza et al.,
"ADA-GP: Accelerating DNN Training By Adaptive Gradient Prediction", MICRO '23.

For every zoo network (configs/networks/<model>_<dataset>.yaml) and dataflow, runs
`trainsim compare configs/experiments/adagp_zoo.yaml --techniques
bp,adagp-max,adagp-efficient,adagp-low` (numerics: none) and collects, into OUT/:
  speedup_<dataset>_<dataflow>.csv  per model: speedup of MAX / Efficient / LOW over bp,
                                    total and memory (buffer + DRAM) energy reduction
  summary.md                        the same as Markdown tables, with averages
  fig_speedup_<dataset>_<dataflow>.png  grouped bars like the paper's figures
                                    (when matplotlib is available)

  tools/adagp_zoo.py [--out DIR] [--datasets cifar10,imagenet] [--dataflows ws,rs,is]
                     [--models vgg13,...] [--set KEY=VALUE ...] [--check-order]

summary.md also says, from the runs' exact cycles, in how many cells (model x dataset x
dataflow) the variants' times are ordered LOW >= Efficient >= MAX (LOW does strictly more
work than Efficient, and Efficient than MAX) and lists the exceptions; --check-order exits 1
if there is one. Every figure comes from the trainsim runs; nothing is computed here but
ratios and means.
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile

from progress import Progress

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ["vgg13", "vgg16", "vgg19", "resnet50", "resnet101", "resnet152", "densenet121",
          "densenet161", "densenet169", "densenet201", "mobilenetv2", "inceptionv3",
          "inceptionv4"]
VARIANTS = ["adagp-max", "adagp-efficient", "adagp-low"]
DEBIAN_PYTHON = "/usr/bin/python3"
REEXEC_ENV = "TRAINSIM_ZOO_REEXEC"


def reexec_for_matplotlib():
    """pyenv pythons often lack matplotlib; Debian's python3-matplotlib is under
    /usr/bin/python3 (installed by tools/setup.sh). Re-run there once."""
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    if os.environ.get(REEXEC_ENV) == "1" or not os.access(DEBIAN_PYTHON, os.X_OK):
        return
    os.environ[REEXEC_ENV] = "1"
    os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, os.path.abspath(sys.argv[0])] + sys.argv[1:])


def compare(binary, model, dataset, dataflow, out_dir, extra):
    cmd = [binary, "compare", os.path.join(REPO, "configs/experiments/adagp_zoo.yaml"),
           "--techniques", "bp," + ",".join(VARIANTS), "--quiet", "--out", out_dir,
           "--set", f"network={model}_{dataset}", "--set", f"dataset.name={dataset}",
           "--set", f"dataflow={dataflow}"]
    for s in extra:
        cmd += ["--set", s]
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"adagp_zoo: {' '.join(cmd)} failed:\n{done.stderr.strip()}")
    with open(os.path.join(out_dir, "compare.csv"), newline="") as f:
        rows = {r["variant"]: r for r in csv.DictReader(f)}
    row = {"model": model}
    for v in VARIANTS:
        short = v.split("-")[1]
        row[f"speedup_{short}"] = float(rows[v]["speedup"])
        row[f"energy_reduction_{short}"] = 1 - float(rows[v]["energy_rel"])
        row[f"memory_energy_reduction_{short}"] = 1 - float(rows[v]["memory_energy_rel"])
    for v in ["bp"] + VARIANTS:
        row[f"cycles_{v.split('-')[-1]}"] = int(rows[v]["cycles"])
    return row


def order_exceptions(row):
    """The ways a cell breaks LOW >= Efficient >= MAX in cycles (exact integers)."""
    out = []
    if row["cycles_low"] < row["cycles_efficient"]:
        out.append(f"LOW {row['cycles_low']} < Efficient {row['cycles_efficient']} cycles")
    if row["cycles_efficient"] < row["cycles_max"]:
        out.append(f"Efficient {row['cycles_efficient']} < MAX {row['cycles_max']} cycles")
    return out


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def plot(rows, dataset, dataflow, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(11, 3.8))
    width = 0.27
    labels = [r["model"] for r in rows] + ["mean"]
    for i, (key, name) in enumerate([("low", "ADA-GP-LOW"), ("efficient", "ADA-GP-Efficient"),
                                     ("max", "ADA-GP-MAX")]):
        ys = [r[f"speedup_{key}"] for r in rows]
        ys.append(mean(ys))
        xs = [j + (i - 1) * width for j in range(len(labels))]
        ax.bar(xs, ys, width, label=name)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=30, ha="right")
    ax.set_ylabel("speedup over BP")
    lo = min(min(r["speedup_low"] for r in rows), 1.0)
    ax.set_ylim(max(0.0, lo - 0.1), max(r["speedup_max"] for r in rows) + 0.2)
    ax.set_title(f"ADA-GP speedup over backprop: {dataset}, {dataflow.upper()} dataflow "
                 "(trainsim, adagp_ws180, 90 epochs, 10 warm-up)")
    ax.legend(loc="upper left", ncol=3, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main():
    reexec_for_matplotlib()
    p = argparse.ArgumentParser(prog="tools/adagp_zoo.py", description=__doc__.split("\n")[0])
    p.add_argument("--out", default=os.path.join(REPO, "runs", "adagp_zoo"))
    p.add_argument("--datasets", default="cifar10,imagenet")
    p.add_argument("--dataflows", default="ws,rs,is")
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--set", action="append", default=[], help="override for every run")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--check-order", action="store_true",
                   help="exit 1 unless LOW >= Efficient >= MAX in cycles in every cell")
    a = p.parse_args()
    binary = os.path.join(os.environ.get("TRAINSIM_BUILD", os.path.join(REPO, "build")),
                          "trainsim")
    os.makedirs(a.out, exist_ok=True)
    md = ["# ADA-GP over the shape-only zoo", "",
          "Generated by `tools/adagp_zoo.py` from `configs/experiments/adagp_zoo.yaml`"
          + (" with " + ", ".join(f"`{s}`" for s in a.set) if a.set else "") + ".",
          "Speedup of each ADA-GP variant over backprop (whole 90-epoch schedule, same "
          "accelerator); energy reduction = 1 - energy / backprop's (total, and memory = "
          "global buffer + DRAM accesses, the paper's Figure 21 measure).", ""]
    datasets, dataflows, models = (a.datasets.split(","), a.dataflows.split(","),
                                   a.models.split(","))
    progress = Progress(len(datasets) * len(dataflows) * len(models), "adagp_zoo")
    cells, exceptions = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for dataset in datasets:
            for dataflow in dataflows:
                rows = []
                for model in models:
                    rows.append(compare(binary, model, dataset, dataflow,
                                        os.path.join(tmp, f"{model}_{dataset}_{dataflow}"),
                                        a.set))
                    progress.step(f"{model} on {dataset}, {dataflow}: "
                                  f"MAX {rows[-1]['speedup_max']:.3f}x")
                for r in rows:
                    cells += 1
                    exceptions += [f"{r['model']} on {dataset}, {dataflow}: {e}"
                                   for e in order_exceptions(r)]
                fields = list(rows[0].keys())
                path = os.path.join(a.out, f"speedup_{dataset}_{dataflow}.csv")
                with open(path, "w", newline="") as f:
                    w = csv.DictWriter(f, fieldnames=fields)
                    w.writeheader()
                    for r in rows:
                        w.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v)
                                    for k, v in r.items()})
                print(f"wrote {os.path.relpath(path)}")
                md += [f"## {dataset}, {dataflow.upper()}", "",
                       "| model | MAX | Efficient | LOW | energy -% (MAX) | memory energy -% (MAX) |",
                       "|---|---|---|---|---|---|"]
                for r in rows + [None]:
                    if r is None:
                        r = {k: (mean([x[k] for x in rows]) if k != "model" else "**mean**")
                             for k in fields if not k.startswith("cycles_")}
                    md.append(f"| {r['model']} | {r['speedup_max']:.3f}x | "
                              f"{r['speedup_efficient']:.3f}x | {r['speedup_low']:.3f}x | "
                              f"{100 * r['energy_reduction_max']:.1f} | "
                              f"{100 * r['memory_energy_reduction_max']:.1f} |")
                md.append("")
                if not a.no_plot:
                    png = os.path.join(a.out, f"fig_speedup_{dataset}_{dataflow}.png")
                    if plot(rows, dataset, dataflow, png):
                        print(f"wrote {os.path.relpath(png)}")
    md += ["## Ordering of the variants' times", "",
           f"LOW >= Efficient >= MAX in cycles holds in {cells - len(set(e.split(':')[0] for e in exceptions))} "
           f"of {cells} cells." + ("" if exceptions else " No exception."), ""]
    md += [f"* {e}" for e in exceptions]
    path = os.path.join(a.out, "summary.md")
    with open(path, "w") as f:
        f.write("\n".join(md) + "\n")
    print(f"wrote {os.path.relpath(path)}")
    if exceptions:
        print("adagp_zoo: LOW >= Efficient >= MAX does not hold in:\n  " + "\n  ".join(exceptions))
    if a.check_order and exceptions:
        sys.exit(1)


if __name__ == "__main__":
    main()
