#!/usr/bin/env python3
"""Hype-training (He et al., ICS 2021) over the paper's models: Case 1 (Table 2 and Sec. 5.2),
Case 2 (Table 3), and the other device combinations (Sec. 5.3), each beside the paper's
figures.

Runs `trainsim run configs/experiments/hype_zoo.yaml` (shape only, one epoch) per model and
setting with overrides, reads each run's stats.json and placement.csv, and prints Markdown
tables (also written to OUT/summary.md):
  case1      1 V100 + 3 S10, policy energy: throughput, energy-efficiency, energy-reduction and
             power gains over gpu-only, the share of ops and of GPU time offloaded, the
             offloaded op types; then the same under policy public-code (what the authors'
             public code runs)
  case2      policies power-cap and power-cap-dvfs at 210 / 230 / 250 W against policy dvfs
             (the GPU alone with a clock controller, the paper's PMM): samples/s, violations
             and mean GPU clocks
  combos     1 V100 + 1..4 S10 and 2 V100 + 6 S10 (data parallel) against 1 and 2 V100s

  tools/hype_zoo.py [--out DIR] [--tables case1,case2,combos] [--models alexnet,...]
                    [--set KEY=VALUE ...]

Every figure comes from the trainsim runs; only ratios are computed here.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Each model is the iterations of one training step: (network, dataset, batch). A GAN step is
# the discriminator's iteration at twice the batch plus the generator's through the
# discriminator at the batch (docs/hype.md#dcgan-dcgan_d_celeba-dcgan_gd_celeba); its samples
# per step are the GAN's batch.
MODELS = {
    "alexnet": ([("alexnet_imagenet", "imagenet", 256)], 256),
    "resnet50": ([("resnet50_imagenet", "imagenet", 256)], 256),
    "vgg16": ([("vgg16_imagenet", "imagenet", 256)], 256),
    "inceptionv3": ([("inceptionv3_imagenet", "imagenet", 256)], 256),
    "dcgan": ([("dcgan_d_celeba", "celeba", 256), ("dcgan_gd_celeba", "celeba-latent", 128)],
              128),
    "bert": ([("bert_large_squad", "squad", 10)], 10),
}
# Table 2 of the paper: ops offloaded %, time offloaded %, offloaded types.
TABLE2 = {
    "alexnet": (22.22, 36.05, "MatMul, Conv2D, Relu, Mul, AddN, MaxPool"),
    "resnet50": (27.78, 41.84, "MatMul, BatchNorm, L2Loss, Conv2D, Relu, Mul"),
    "vgg16": (27.78, 23.33, "MatMul, BiasAdd, Conv2D, Relu, Mul"),
    "inceptionv3": (23.81, 38.75, "MatMul, Transpose, Conv2D, Relu, ReluGrad, Mul"),
    "dcgan": (17.54, 24.31, "MatMul, Transpose, Conv2D, Relu, Mul"),
    "bert": (19.32, 25.16, "MatMul, Add, Norm, Mul, Transpose, Softmax"),
}
# Table 3: samples/s at a 230 W cap, GPU-only with NVIDIA's power management, and Hype.
TABLE3 = {
    "alexnet": (5666, 6313),
    "resnet50": (904, 1077),
    "vgg16": (741, 775),
    "inceptionv3": (757, 882),
    "dcgan": (2641, 2928),
    "bert": (35, 37),
}


def run_part(binary, network, dataset, batch, sets, out):
    cmd = [binary, "run", os.path.join(REPO, "configs/experiments/hype_zoo.yaml"), "--set",
           "network=" + network, "--set", "dataset.name=" + dataset, "--set",
           "training.batch_size=%d" % batch, "--out", out, "--force", "--quiet"]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "stats.json")) as f:
        stats = json.load(f)
    with open(os.path.join(out, "placement.csv")) as f:
        placement = list(csv.DictReader(f))
    return stats, placement


def run(binary, model, sets, out):
    """One training step of `model`: its iterations' stats summed (seconds, energy,
    violations, placement counts), the gains recomputed from the sums."""
    parts, samples = MODELS[model]
    runs = [run_part(binary, n, d, b, sets, "%s-%d" % (out, i))
            for i, (n, d, b) in enumerate(parts)]
    step = {}
    for key in ("policy", "gpu_only"):
        it = [r[0]["iteration"][key] for r in runs]
        t = sum(x["iteration_s"] for x in it)
        e = sum(x["energy_j"] for x in it)
        step[key] = {"iteration_s": t, "energy_j": e, "samples_per_s": samples / t,
                     "violations": sum(x["violations"] for x in it),
                     "gpu_mean_clock": sum(x["gpu_mean_clock"] * x["iteration_s"]
                                           for x in it) / t}
    p, g = step["policy"], step["gpu_only"]
    stats = {"iteration": step, "gains": {
        "throughput": g["iteration_s"] / p["iteration_s"] - 1,
        "energy_efficiency": g["energy_j"] / p["energy_j"] - 1,
        "energy_reduction": 1 - p["energy_j"] / g["energy_j"],
        "power_saving": 1 - (p["energy_j"] / p["iteration_s"]) / (g["energy_j"] / g["iteration_s"])}}
    rows = {}
    for _, placement in runs:
        for r in placement:
            acc = rows.setdefault(r["type"], [0, 0, 0.0, 0.0])
            acc[0] += int(r["ops"])
            acc[1] += int(r["offloaded"])
            acc[2] += float(r["gpu_s"])
            acc[3] += float(r["offloaded_gpu_s"])
    placement = []
    for name in sorted(k for k in rows if k != "all") + ["all"]:
        ops, off, gs, ogs = rows[name]
        placement.append({"type": name, "offloaded": off,
                          "ops_offloaded_pct": "%.2f" % (100.0 * off / ops),
                          "time_offloaded_pct": "%.2f" % (100.0 * ogs / gs if gs else 0)})
    return stats, placement


def pct(x):
    return "%+.1f%%" % (100 * x)


GAINS = ("throughput", "energy_efficiency", "energy_reduction", "power_saving")


def gains_cells(g):
    return [pct(g[k]) for k in GAINS]


def mean_cells(gains):
    return [pct(sum(g[k] for g in gains) / len(gains)) for k in GAINS]


def case1(binary, models, sets, tmp):
    lines = ["| model | throughput | energy efficiency | energy reduction | power saving "
             "| ops offloaded % (paper) | GPU time offloaded % (paper) | offloaded types "
             "| paper's types |",
             "|---|---|---|---|---|---|---|---|---|"]
    gains = []
    for m in models:
        stats, placement = run(binary, m, sets + ["hype.policy=energy"],
                               os.path.join(tmp, m + "-case1"))
        gains.append(stats["gains"])
        total = placement[-1]
        types = ", ".join(r["type"] for r in placement[:-1] if int(r["offloaded"]) > 0)
        paper = TABLE2.get(m, ("?", "?", "?"))
        lines.append("| " + " | ".join(
            [m] + gains_cells(stats["gains"]) +
            ["%s (%s)" % (total["ops_offloaded_pct"], paper[0]),
             "%s (%s)" % (total["time_offloaded_pct"], paper[1]), types or "none", paper[2]]) + " |")
    lines.append("| " + " | ".join(["mean"] + mean_cells(gains)) + " | | | | |")
    # The same models under what the authors' public code runs (policy public-code).
    lines.append("")
    lines.append("| model | public-code: throughput | energy efficiency | energy reduction "
                 "| power saving | ops offloaded % |")
    lines.append("|---|---|---|---|---|---|")
    public = []
    for m in models:
        stats, placement = run(binary, m, sets + ["hype.policy=public-code"],
                               os.path.join(tmp, m + "-public"))
        public.append(stats["gains"])
        lines.append("| " + " | ".join([m] + gains_cells(stats["gains"]) +
                                       [placement[-1]["ops_offloaded_pct"]]) + " |")
    lines.append("| " + " | ".join(["mean"] + mean_cells(public)) + " | |")
    lines.append("")
    lines.append("Paper (Sec. 5.2): throughput +10.1% on average, energy efficiency +44.3% "
                 "(up to +59.7%), power saving 23.3% (AlexNet 20%, ResNet-50 28.3%); its "
                 "abstract states the 44.3% as an energy reduction (which would be +79.5% "
                 "energy efficiency; +44.3% efficiency is a 30.7% reduction).")
    return lines


def case2(binary, models, sets, tmp):
    lines = ["| model | cap W | hype samples/s | hype violations | hype + clock samples/s "
             "| its mean clock | dvfs samples/s | dvfs violations | dvfs mean clock "
             "| paper at 230 W: PMM / Hype samples/s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for m in models:
        for cap in (210, 230, 250):
            run_sets = sets + ["hype.power_cap_w=%d" % cap]
            hype, _ = run(binary, m, run_sets + ["hype.policy=power-cap"],
                          os.path.join(tmp, "%s-cap%d" % (m, cap)))
            clocked, _ = run(binary, m, run_sets + ["hype.policy=power-cap-dvfs"],
                             os.path.join(tmp, "%s-capclock%d" % (m, cap)))
            dvfs, _ = run(binary, m, run_sets + ["hype.policy=dvfs"],
                          os.path.join(tmp, "%s-dvfs%d" % (m, cap)))
            p, d = hype["iteration"]["policy"], dvfs["iteration"]["policy"]
            c = clocked["iteration"]["policy"]
            if c["violations"]:
                sys.exit("hype_zoo.py: power-cap-dvfs went over the cap on %s at %d W" % (m, cap))
            paper = TABLE3.get(m, ("?", "?"))
            lines.append("| %s | %d | %.1f | %d | %.1f | %.3f | %.1f | %d | %.3f | %s |" % (
                m, cap, p["samples_per_s"], p["violations"], c["samples_per_s"],
                c["gpu_mean_clock"], d["samples_per_s"], d["violations"], d["gpu_mean_clock"],
                "%s / %s" % paper if cap == 230 else ""))
    lines.append("")
    lines.append("Violations: power samples (hype.sample_ms apart) of one steady-state iteration "
                 "above the cap. dvfs is the GPU alone (the FPGAs idle) under the reactive "
                 "clock controller, the paper's PMM baseline. hype + clock is policy "
                 "power-cap-dvfs (power-cap's admission, each GPU op at the fastest clock "
                 "whose peak fits); it never violates the cap (checked).")
    return lines


def combos(binary, models, sets, tmp):
    lines = ["| model | system | throughput vs GPUs alone | energy efficiency | energy reduction "
             "| power saving |",
             "|---|---|---|---|---|---|"]
    for m in models:
        for gpus, fpgas in ((1, 1), (1, 2), (1, 3), (1, 4), (2, 6)):
            stats, _ = run(binary, m,
                           sets + ["hype.policy=energy", "hype.gpus=%d" % gpus,
                                   "hype.offloads=%d" % fpgas],
                           os.path.join(tmp, "%s-%d-%d" % (m, gpus, fpgas)))
            lines.append("| " + " | ".join(["%s | %d V100 + %d S10" % (m, gpus, fpgas)] +
                                           gains_cells(stats["gains"])) + " |")
    lines.append("")
    lines.append("Paper (Sec. 5.3): 2 V100 + 6 S10 vs 2 V100: throughput +11.2%, energy "
                 "efficiency +46.6%, power saving 24.1%; 1 V100 + 4 S10: power saving 14.2%, "
                 "energy saving 40.4%.")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="runs/hype_zoo")
    ap.add_argument("--tables", default="case1,case2,combos")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--binary", default=os.path.join(REPO, "build", "trainsim"))
    a = ap.parse_args()
    models = a.models.split(",")
    for m in models:
        if m not in MODELS:
            sys.exit("hype_zoo.py: unknown model '%s' (known: %s)" % (m, ", ".join(MODELS)))
    os.makedirs(a.out, exist_ok=True)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for t in a.tables.split(","):
            fn = {"case1": case1, "case2": case2, "combos": combos}.get(t)
            if fn is None:
                sys.exit("hype_zoo.py: unknown table '%s' (case1, case2, combos)" % t)
            out += ["## " + t, ""] + fn(a.binary, models, a.set, tmp) + [""]
    text = "\n".join(out)
    print(text)
    with open(os.path.join(a.out, "summary.md"), "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
