#!/usr/bin/env python3
"""ADA-GP accuracy on real data: backprop vs ADA-GP vs its Phase GP ablations.

For every network x dataset x seed, trains (numerics only, `trainsim train`) once per kind
(bp and adagp always; the others with --kinds, default bp,adagp,skip) with the same experiment
and seed:
  bp       plain backprop
  adagp    ADA-GP (adagp-efficient; the three variants train identically)
  skip     (default) ADA-GP's schedule with `phase_gp: skip`: Phase GP batches leave the weights
           alone
  zero     (only with --kinds) `phase_gp: zero`: Phase GP batches step the optimizer with zero
           gradients, so only its momentum moves the weights (what ADA-GP does minus the
           predictions)
  mean     (only with --kinds) `phase_gp: mean`: Phase GP applies each weight's running mean
           of its past true gradients (reference: what past gradients alone give)
  pseudo   (only with --kinds) `phase_gp: pseudo`: Phase GP backprops with the model's own
           predicted classes as labels (reference: a gradient from the batch without labels)
and prints, per network / dataset, the test accuracy after the last epoch (mean over seeds,
and per seed), ADA-GP minus every other kind, plus the predictor's mean cosine similarity to
the true gradients over the Phase BP batches after warm-up (predictor.csv).

  tools/adagp_accuracy.py [--networks lenet5,seed_mlp] [--datasets mnist,fashion-mnist]
                          [--seeds 1,2,3] [--epochs 6] [--warmup 3] [--jobs 2]
                          [--kinds bp,adagp,skip,zero,mean,pseudo]
                          [--set KEY=VALUE ...] [--adagp 'KEY: VALUE' ...]
                          [--out DIR] [--csv FILE]

The experiment is configs/experiments/lenet5_mnist.yaml (SGD, lr 0.02, momentum 0.9, batch
32) with the network and dataset swapped by --set. Every figure comes from the runs.
"""
import argparse
import concurrent.futures
import csv
import os
import statistics
import subprocess
import sys
import tempfile

from progress import Progress

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPERIMENT = os.path.join(REPO, "configs", "experiments", "lenet5_mnist.yaml")
KINDS = ["bp", "adagp", "skip", "zero", "mean", "pseudo"]
LABELS = {"bp": "bp", "adagp": "ADA-GP", "skip": "skip GP", "zero": "zero GP",
          "mean": "mean GP", "pseudo": "pseudo GP"}


def technique(kind, warmup, adagp_keys):
    if kind == "bp":
        return "{kind: bp}"
    gp = ", phase_gp: %s" % kind if kind in KINDS[2:] else ""
    extra = "".join(", " + k for k in adagp_keys)
    return "{kind: adagp-efficient, warmup_epochs: %d%s%s}" % (warmup, gp, extra)


def run_one(trainsim, out_root, net, data, seed, kind, args):
    out = os.path.join(out_root, "%s_%s_s%d_%s" % (net, data, seed, kind))
    cmd = [trainsim, "train", EXPERIMENT, "--out", out, "--force", "--quiet",
           "--set", "network=" + net, "--set", "dataset.name=" + data,
           "--set", "training.seed=%d" % seed, "--set", "training.epochs=%d" % args.epochs,
           "--set", "technique=" + technique(kind, args.warmup, args.adagp)]
    for s in args.set:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("adagp_accuracy: %s failed:\n%s" % (" ".join(cmd), r.stderr))
    with open(os.path.join(out, "epochs.csv")) as f:
        acc = 100 * float(list(csv.DictReader(f))[-1]["test_accuracy"])
    cosine = None
    pred = os.path.join(out, "predictor.csv")
    if kind == "adagp" and os.path.exists(pred):
        with open(pred) as f:
            rows = [r for r in csv.DictReader(f)
                    if int(r["epoch"]) > args.warmup and int(r["batches"]) > 0]
        if rows:
            cosine = statistics.mean(float(r["cosine"]) for r in rows)
    return acc, cosine


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--networks", default="lenet5,seed_mlp")
    p.add_argument("--datasets", default="mnist,fashion-mnist")
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--kinds", default="bp,adagp,skip",
                   help="which of %s to run (bp and adagp always run)" % ",".join(KINDS))
    p.add_argument("--set", action="append", default=[])
    p.add_argument("--adagp", action="append", default=[], metavar="'KEY: VALUE'",
                   help="an extra technique key for every run but bp (ADA-GP and its ablations), "
                   "e.g. 'predictor: {lr: 1e-3}'")
    p.add_argument("--trainsim", default=os.path.join(REPO, "build", "trainsim"))
    p.add_argument("--out", default=None, help="keep the runs here (default: a temp dir)")
    p.add_argument("--csv", default=None, help="also write the per-seed results here")
    args = p.parse_args()
    nets, datas = args.networks.split(","), args.datasets.split(",")
    seeds = [int(s) for s in args.seeds.split(",")]
    kinds = [k for k in KINDS if k in args.kinds.split(",") or k in ("bp", "adagp")]
    unknown = set(args.kinds.split(",")) - set(KINDS)
    if unknown:
        sys.exit("adagp_accuracy: unknown kind(s) %s (known: %s)" % (
            ", ".join(sorted(unknown)), ",".join(KINDS)))

    tmp = None
    out_root = args.out
    if out_root is None:
        tmp = tempfile.TemporaryDirectory(prefix="adagp_accuracy_")
        out_root = tmp.name
    jobs = [(n, d, s, k) for n in nets for d in datas for s in seeds for k in kinds]
    results = {}
    progress = Progress(len(jobs), "adagp_accuracy")
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futs = {ex.submit(run_one, args.trainsim, out_root, *j, args): j for j in jobs}
        for f in concurrent.futures.as_completed(futs):
            results[futs[f]] = f.result()
            n, d, s, k = futs[f]
            progress.step("%s on %s, seed %d, %s: %.2f%%" % (n, d, s, k, results[futs[f]][0]))

    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["network", "dataset", "seed"] + kinds + ["adagp_cosine"])
            for n in nets:
                for d in datas:
                    for s in seeds:
                        c = results[(n, d, s, "adagp")][1]
                        w.writerow([n, d, s] + ["%.2f" % results[(n, d, s, k)][0] for k in kinds]
                                   + ["" if c is None else "%.4f" % c])

    print("%d epochs, warm-up %d, seeds %s; test accuracy after the last epoch (mean; per seed)"
          % (args.epochs, args.warmup, args.seeds))
    others = [k for k in kinds if k not in ("bp", "adagp")]
    print("| network / dataset | " + " | ".join(LABELS[k] for k in kinds) + " | ADA-GP - bp | "
          + "".join("ADA-GP - %s | " % LABELS[k] for k in others) + "predictor cosine |")
    print("|---" * (len(kinds) + len(others) + 3) + "|")
    for n in nets:
        for d in datas:
            acc = {k: [results[(n, d, s, k)][0] for s in seeds] for k in kinds}
            mean = {k: statistics.mean(v) for k, v in acc.items()}
            cos = [results[(n, d, s, "adagp")][1] for s in seeds]
            cos = [c for c in cos if c is not None]
            cells = ["%.2f (%s)" % (mean[k], " / ".join("%.2f" % a for a in acc[k])) for k in kinds]
            diffs = ["%+.2f" % (mean["adagp"] - mean[k]) for k in ["bp"] + others]
            print("| %s / %s | %s | %s | %s |" % (n, d, " | ".join(cells), " | ".join(diffs),
                                                 "%.3f" % statistics.mean(cos) if cos else "n/a"))


if __name__ == "__main__":
    main()
