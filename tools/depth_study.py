#!/usr/bin/env python3
"""Techniques at depth: accuracy, cycles and energy of the same timed runs, paired by seed.

For every network x seed, runs `trainsim run` (real training, every op timed on the
accelerator) once per kind with the same experiment, data and seed, so every accuracy
comparison is paired by seed and every cost comes from the runs that gave the accuracy:
  bp               plain backprop, batched (the reference for accuracy and cost)
  adagp            ADA-GP on its MAX hardware (adagp-max)
  zero             the same schedule and hardware, `phase_gp: zero`: Phase GP steps the
                   optimizers with zero gradients (ADA-GP minus its predictions; its control)
  oracle:RHO:M     the same, `phase_gp: oracle`: the batch's true gradient at cosine RHO and
                   magnitude M (what predictions of that quality would give)
  bp-sample        backprop one sample at a time, gradients summed over the batch (the
                   per-sample baseline of speculative backprop; its control)
  specbp:T         speculative backprop at threshold T, per-label store in DRAM
Prints, per network: test accuracy and loss after the last epoch (mean over seeds), the
paired differences against bp and against the kind's control (mean +- standard error over
seeds), the training cycles and energy of the whole run and of its last epoch, and their
ratios to bp and to the control (speedup = control cycles / kind cycles; energy = kind /
control). Costs are means over seeds (bp, adagp's schedule and bp-sample cost the same on
every seed; specbp's depends on its hits).

  tools/depth_study.py [--networks resnet20_fashion,vgg11_fashion] [--seeds 1,2,3,4,5]
                       [--kinds bp,zero,adagp,oracle:0.5:1,bp-sample,specbp:0.1]
                       [--epochs 2] [--warmup 1] [--train-limit 15000] [--jobs 2]
                       [--set KEY=VALUE ...] [--out DIR [--reuse]] [--csv FILE]
  tools/depth_study.py --from-csv FILE [...]   (tabulate an earlier --csv)

The experiment is configs/experiments/lenet5_mnist.yaml (SGD lr 0.02, momentum 0.9, batch 32:
the protocol of tools/adagp_accuracy.py) with the network swapped and Fashion-MNIST; each run
uses one thread when --jobs is 2 or more (numerics are identical on any thread count).
"""
import argparse
import concurrent.futures
import csv
import os
import statistics
import sys
import tempfile

from adagp_accuracy import fmt_pm, mean, paired
from progress import Progress
from run_reuse import run_or_reuse

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPERIMENT = os.path.join(REPO, "configs", "experiments", "lenet5_mnist.yaml")
FIELDS = ["test_accuracy", "test_loss", "cycles", "energy_pj", "last_cycles", "last_energy_pj",
          "hit_rate"]


def technique(kind, warmup):
    """The technique mapping of a kind, or None if it is no kind."""
    if kind in ("bp", "bp-sample"):
        return kind
    if kind in ("adagp", "zero"):
        extra = "" if kind == "adagp" else ", phase_gp: zero"
        return "{kind: adagp-max, warmup_epochs: %d%s}" % (warmup, extra)
    parts = kind.split(":")
    try:
        if parts[0] == "oracle" and len(parts) == 3:
            rho, m = float(parts[1]), float(parts[2])
            return ("{kind: adagp-max, warmup_epochs: %d, phase_gp: oracle, oracle: "
                    "{cosine: %r, magnitude: %r}}" % (warmup, rho, m))
        if parts[0] == "specbp" and len(parts) == 2:
            return "{kind: specbp, threshold: %r, store: dram}" % float(parts[1])
    except ValueError:
        return None
    return None


def control(kind):
    """The kind a kind's accuracy and cost are compared with besides bp."""
    if kind in ("adagp",) or kind.startswith("oracle:"):
        return "zero"
    if kind.startswith("specbp:"):
        return "bp-sample"
    return None


def run_one(args, out_root, net, seed, kind):
    out = os.path.join(out_root, "%s_s%d_%s" % (net, seed, kind.replace(":", "_")))
    cmd = [args.trainsim, "run", EXPERIMENT, "--out", out, "--force", "--quiet",
           "--set", "network=" + net, "--set", "dataset.name=fashion-mnist",
           "--set", "training.seed=%d" % seed, "--set", "training.epochs=%d" % args.epochs,
           "--set", "dataset.train_limit=%d" % args.train_limit,
           "--set", "technique=" + technique(kind, args.warmup)]
    if args.jobs > 1:
        cmd += ["--set", "training.threads=1"]
    for s in args.set:
        cmd += ["--set", s]
    reused = run_or_reuse(cmd, out, args.reuse, "depth_study_command.txt", "depth_study")
    with open(os.path.join(out, "epochs.csv")) as f:
        rows = list(csv.DictReader(f))
    if any(r["energy_unit"] != "pJ" for r in rows):
        sys.exit("depth_study: %s reports energy in %s, not pJ" % (out, rows[0]["energy_unit"]))
    last = rows[-1]
    hits = [float(r["hit_rate"]) for r in rows if r.get("hit_rate", "") != ""]
    return {"test_accuracy": 100 * float(last["test_accuracy"]),
            "test_loss": float(last["test_loss"]),
            "cycles": sum(float(r["cycles"]) for r in rows),
            "energy_pj": sum(float(r["energy"]) for r in rows),
            "last_cycles": float(last["cycles"]), "last_energy_pj": float(last["energy"]),
            "hit_rate": statistics.mean(hits) if hits else None, "reused": reused}


def ratio(a, b):
    return "" if a is None or b is None or b == 0 else "%.3f" % (a / b)


def tabulate(args, results, nets, seeds, kinds):
    print("%d epochs (%d of warm-up for ADA-GP), first %d Fashion-MNIST training samples, "
          "full test set, batch 32, SGD lr 0.02, momentum 0.9%s; seeds %s (%d). Accuracy (%%) "
          "and loss after the last epoch; differences paired by seed, mean ± standard error. "
          "Cycles (G) and energy (J) of training, whole run / last epoch; speedup = the other's "
          "cycles / this kind's, energy = this kind's / the other's."
          % (args.epochs, args.warmup, args.train_limit,
             "".join(", " + s for s in args.set), ",".join(map(str, seeds)), len(seeds)))
    for n in nets:
        print()
        print("**%s**" % n)
        print()
        print("| kind | accuracy | loss | acc - bp | acc - control | G cycles | J | "
              "speedup vs bp | energy vs bp | speedup vs control | energy vs control | "
              "hit rate |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        col = {k: {f: [results[(n, s, k)][f] for s in seeds] for f in FIELDS} for k in kinds}
        avg = {k: {f: (mean(v) if None not in v else None) for f, v in col[k].items()}
               for k in kinds}
        for k in kinds:
            c = control(k)
            cells = [k + ("" if c is None else " (control: %s)" % c),
                     "%.2f" % avg[k]["test_accuracy"], "%.3f" % avg[k]["test_loss"],
                     "" if k == "bp" else fmt_pm(paired(col[k]["test_accuracy"],
                                                        col["bp"]["test_accuracy"])),
                     "" if c not in kinds else fmt_pm(paired(col[k]["test_accuracy"],
                                                             col[c]["test_accuracy"])),
                     "%.2f / %.2f" % (avg[k]["cycles"] / 1e9, avg[k]["last_cycles"] / 1e9),
                     "%.2f / %.2f" % (avg[k]["energy_pj"] / 1e12, avg[k]["last_energy_pj"] / 1e12)]
            for other in ("bp", c):
                if other is None or other not in kinds or other == k:
                    cells += ["", ""]
                    continue
                o = avg[other]
                cells += ["%s / %s" % (ratio(o["cycles"], avg[k]["cycles"]),
                                       ratio(o["last_cycles"], avg[k]["last_cycles"])),
                          "%s / %s" % (ratio(avg[k]["energy_pj"], o["energy_pj"]),
                                       ratio(avg[k]["last_energy_pj"], o["last_energy_pj"]))]
            cells.append("" if avg[k]["hit_rate"] is None else "%.4f" % avg[k]["hit_rate"])
            print("| " + " | ".join(cells) + " |")


def read_csv(path):
    results, nets, seeds, kinds = {}, [], [], []
    with open(path) as f:
        for row in csv.DictReader(f):
            n, s, k = row["network"], int(row["seed"]), row["kind"]
            for lst, v in ((nets, n), (seeds, s), (kinds, k)):
                if v not in lst:
                    lst.append(v)
            results[(n, s, k)] = {f: (float(row[f]) if row[f] != "" else None) for f in FIELDS}
    return results, nets, seeds, kinds


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--networks", default="resnet20_fashion,vgg11_fashion")
    p.add_argument("--seeds", default="1,2,3,4,5")
    p.add_argument("--kinds", default="bp,zero,adagp,oracle:0.5:1,bp-sample,specbp:0.1")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--warmup", type=int, default=1, help="ADA-GP's warm-up epochs")
    p.add_argument("--train-limit", type=int, default=15000)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--set", action="append", default=[])
    p.add_argument("--trainsim", default=os.path.join(REPO, "build", "trainsim"))
    p.add_argument("--out", default=None, help="keep the runs here (default: a temp dir)")
    p.add_argument("--csv", default=None, help="also write the per-seed results here")
    p.add_argument("--reuse", action="store_true",
                   help="keep a run of --out whose command was exactly this one's")
    p.add_argument("--from-csv", default=None, metavar="FILE",
                   help="tabulate an earlier --csv instead of training (give the same regime "
                   "options, for the header)")
    args = p.parse_args()
    if args.epochs < 1 or not 0 <= args.warmup < args.epochs or args.train_limit < 1:
        sys.exit("depth_study: need epochs >= 1, 0 <= warmup < epochs and train-limit >= 1")
    if args.from_csv:
        results, nets, seeds, kinds = read_csv(args.from_csv)
        return tabulate(args, results, nets, seeds, kinds)
    nets = [n for n in args.networks.split(",") if n]
    seeds = [int(s) for s in args.seeds.split(",")]
    kinds = list(dict.fromkeys(["bp"] + [k for k in args.kinds.split(",") if k]))
    unknown = [k for k in kinds if technique(k, args.warmup) is None]
    if unknown:
        sys.exit("depth_study: unknown kind(s) %s (known: bp, adagp, zero, oracle:RHO:M, "
                 "bp-sample, specbp:T)" % ", ".join(unknown))
    tmp = None
    out_root = args.out
    if out_root is None:
        tmp = tempfile.TemporaryDirectory(prefix="depth_study_")
        out_root = tmp.name
    jobs = [(n, s, k) for n in nets for s in seeds for k in kinds]
    results = {}
    progress = Progress(len(jobs), "depth_study")
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futs = {ex.submit(run_one, args, out_root, *j): j for j in jobs}
        for f in concurrent.futures.as_completed(futs):
            results[futs[f]] = r = f.result()
            n, s, k = futs[f]
            progress.step("%s, seed %d, %s: %.2f%%, %.2f G cycles%s" % (
                n, s, k, r["test_accuracy"], r["cycles"] / 1e9, " (reused)" if r["reused"] else ""))
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["network", "seed", "kind"] + FIELDS)
            for (n, s, k) in jobs:
                r = results[(n, s, k)]
                w.writerow([n, s, k] + ["" if r[x] is None else repr(r[x]) for x in FIELDS])
    tabulate(args, results, nets, seeds, kinds)


if __name__ == "__main__":
    main()
