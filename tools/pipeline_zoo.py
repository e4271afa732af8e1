#!/usr/bin/env python3
"""ADA-GP on pipelines of devices over the ImageNet zoo: Figure 20 of Janfaza et al.,
"ADA-GP: Accelerating DNN Training By Adaptive Gradient Prediction", MICRO '23 (speedup of
ADA-GP over GPipe, DAPPLE and Chimera on four devices, four micro-batches per batch).

For every ImageNet zoo network and schedule, runs `trainsim compare
configs/experiments/adagp_zoo.yaml --techniques bp,TECHNIQUE` (numerics: none, 90 epochs)
on SYSTEM with `pipeline.schedule` set, and collects into OUT/:
  pipeline_speedup.csv   per model and schedule: bp and ADA-GP training seconds, speedup,
                         device energy of each
  summary.md             the speedups as a Markdown table with averages, beside the
                         paper's averages (1.654x GPipe, 1.654x DAPPLE, 1.575x Chimera)

  tools/pipeline_zoo.py [--out DIR] [--system four_ws180_ideal] [--technique adagp-max]
                        [--schedules gpipe,1f1b,chimera] [--models vgg16,...] [--jobs 2]
                        [--set KEY=VALUE ...]

1f1b is the schedule of DAPPLE. Every figure comes from the trainsim runs; nothing is
computed here but ratios and means.
"""
import argparse
import concurrent.futures
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
PAPER = {"gpipe": 1.654, "1f1b": 1.654, "chimera": 1.575}
LABEL = {"gpipe": "GPipe", "1f1b": "DAPPLE (1F1B)", "chimera": "Chimera"}


def run_compare(binary, model, schedule, args, out_dir):
    cmd = [binary, "compare", os.path.join(REPO, "configs/experiments/adagp_zoo.yaml"),
           "--techniques", "bp," + args.technique, "--quiet", "--out", out_dir,
           "--set", f"network={model}_imagenet", "--set", "dataset.name=imagenet",
           "--set", f"system={args.system}", "--set", f"pipeline.schedule={schedule}",
           "--set", f"pipeline.micro_batches={args.micro_batches}"]
    for s in args.set:
        cmd += ["--set", s]
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"pipeline_zoo: {' '.join(cmd)} failed:\n{done.stderr.strip()}")
    with open(os.path.join(out_dir, "compare.csv"), newline="") as f:
        rows = {r["technique"]: r for r in csv.DictReader(f)}
    bp, gp = rows["bp"], rows[args.technique]
    return {"model": model, "schedule": schedule,
            "bp_seconds": float(bp["seconds"]), "adagp_seconds": float(gp["seconds"]),
            "speedup": float(bp["seconds"]) / float(gp["seconds"]),
            "bp_energy": float(bp["energy_pj"]) if "energy_pj" in bp else float("nan"),
            "adagp_energy": float(gp["energy_pj"]) if "energy_pj" in gp else float("nan")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="runs/pipeline_zoo")
    ap.add_argument("--binary", default=os.path.join(REPO, "build", "trainsim"))
    ap.add_argument("--system", default="four_ws180_ideal")
    ap.add_argument("--technique", default="adagp-max")
    ap.add_argument("--schedules", default="gpipe,1f1b,chimera")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--micro-batches", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--set", action="append", default=[], help="extra --set for every run")
    args = ap.parse_args()
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"pipeline_zoo: {args.binary} not found: build trainsim first (./run.sh)")
    schedules = args.schedules.split(",")
    models = args.models.split(",")
    os.makedirs(args.out, exist_ok=True)
    work = [(m, s) for m in models for s in schedules]
    progress = Progress(len(work), "pipeline_zoo")
    results = {}
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_compare, args.binary, m, s, args,
                               os.path.join(tmp, f"{m}_{s}")): (m, s) for m, s in work}
        for fut in concurrent.futures.as_completed(futures):
            m, s = futures[fut]
            results[(m, s)] = fut.result()
            progress.step(f"{m} {s}: {results[(m, s)]['speedup']:.3f}x")

    with open(os.path.join(args.out, "pipeline_speedup.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "schedule", "bp_seconds", "adagp_seconds", "speedup",
                    "bp_energy_pj", "adagp_energy_pj"])
        for m in models:
            for s in schedules:
                r = results[(m, s)]
                w.writerow([m, s, "%.6g" % r["bp_seconds"], "%.6g" % r["adagp_seconds"],
                            "%.4f" % r["speedup"], "%.6e" % r["bp_energy"],
                            "%.6e" % r["adagp_energy"]])
    lines = [f"ADA-GP ({args.technique}) over pipeline schedules, ImageNet zoo, 90 epochs, "
             f"system {args.system}, {args.micro_batches} micro-batches (tools/pipeline_zoo.py)",
             "", "| model | " + " | ".join(LABEL.get(s, s) for s in schedules) + " |",
             "|---|" + "---:|" * len(schedules)]
    for m in models:
        lines.append(f"| {m} | " + " | ".join("%.3fx" % results[(m, s)]["speedup"]
                                               for s in schedules) + " |")
    means = {s: sum(results[(m, s)]["speedup"] for m in models) / len(models) for s in schedules}
    maxes = {s: max(results[(m, s)]["speedup"] for m in models) for s in schedules}
    lines.append("| **mean** | " + " | ".join("**%.3fx**" % means[s] for s in schedules) + " |")
    lines.append("| max | " + " | ".join("%.3fx" % maxes[s] for s in schedules) + " |")
    lines.append("| paper mean | " + " | ".join(
        ("%.3fx" % PAPER[s]) if s in PAPER else "-" for s in schedules) + " |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
