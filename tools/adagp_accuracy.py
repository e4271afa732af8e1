#!/usr/bin/env python3
"""ADA-GP accuracy on real data, with paired statistics: backprop, ADA-GP and its references.

For every network x dataset x seed, trains (numerics only, `trainsim train`) once per kind with
the same experiment and seed, so every comparison is paired by seed:
  bp                 plain backprop (the ceiling)
  skip               ADA-GP's schedule, `phase_gp: skip`: Phase GP batches leave the weights
                     alone (the floor)
  zero               `phase_gp: zero`: Phase GP steps the optimizers with zero gradients, so only
                     momentum moves the weights: ADA-GP minus its predictions, the primary control
  adagp              ADA-GP (adagp-efficient; the three hardware variants train identically)
  raw                ADA-GP with `predictor: {calibrate: false}` (the paper's raw predictions)
  mean, pseudo       the `phase_gp` references of docs/adagp.md
  oracle:RHO:M[:p]   `phase_gp: oracle`: the batch's true gradient at cosine RHO and magnitude M;
                     `:p` keeps the error direction (persistent) instead of drawing it per batch
bp, skip and zero always run. Prints, per network / dataset:
  * test accuracy and test loss after the last epoch (mean over seeds);
  * paired differences, mean +- standard error over seeds, against zero and against skip;
    for bp the difference against skip is the ceiling: what perfect predictions could add;
  * the fraction of the bp - skip gap each kind recovers, (X - skip) / (bp - skip), for
    accuracy and for loss (ratios of the seed means), where that gap exceeds twice its
    standard error ("(no gap)" otherwise);
  * with diagnostics (default on for adagp and raw; bit-identical training, docs/adagp.md):
    the in-situ cosine and magnitude of the Phase GP gradients against the true ones, their
    error persistence, and the true gradients' cosine with the previous batch's and with the
    running mean, averaged over layers and the epochs after warm-up.

  tools/adagp_accuracy.py [--regime main|short|slow] [--networks lenet5,seed_mlp]
                          [--datasets mnist,fashion-mnist] [--seeds 1,2,3,4,5,6]
                          [--kinds bp,skip,zero,adagp,...] [--epochs N] [--warmup N]
                          [--jobs 2] [--set KEY=VALUE ...] [--adagp 'KEY: VALUE' ...]
                          [--no-diagnostics] [--out DIR [--reuse]] [--csv FILE]
  tools/adagp_accuracy.py --from-csv FILE [--regime ...]     (tabulate an earlier --csv)

Regimes (configs/experiments/lenet5_mnist.yaml: SGD lr 0.02, momentum 0.9, batch 32, with the
network and dataset swapped by --set):
  main   6 epochs, 3 of warm-up (the docs' main table; the ceiling is small here)
  short  2 epochs, 1 of warm-up (backprop clearly beats skip)
  slow   4 epochs, 1 of warm-up, lr 0.01, no momentum (progress limited by the learning rate)
Every figure comes from the runs.
"""
import argparse
import concurrent.futures
import csv
import math
import os
import statistics
import sys
import tempfile

from progress import Progress
from run_reuse import run_or_reuse

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPERIMENT = os.path.join(REPO, "configs", "experiments", "lenet5_mnist.yaml")
PLAIN = ["bp", "skip", "zero", "adagp", "raw", "mean", "pseudo"]
ALWAYS = ["bp", "skip", "zero"]
REGIMES = {
    "main": (6, 3, []),
    "short": (2, 1, []),
    "slow": (4, 1, ["training.optimizer.lr=0.01", "training.optimizer.momentum=0"]),
}
# After the technique, so that it merges with --adagp's own predictor keys.
RAW_SET = "technique.predictor.calibrate=false"
DIAG = ["gp_cosine", "gp_magnitude", "gp_persistence", "grad_prev_cosine", "grad_mean_cosine"]


def parse_kind(kind):
    """The technique mapping's extra keys for a kind, or None if it is no kind."""
    if kind in PLAIN:
        return {"bp": None, "adagp": "", "raw": "",  # raw: an override (RAW_SET)
                "skip": ", phase_gp: skip", "zero": ", phase_gp: zero",
                "mean": ", phase_gp: mean", "pseudo": ", phase_gp: pseudo"}[kind]
    parts = kind.split(":")
    if parts[0] != "oracle" or len(parts) not in (3, 4) or (len(parts) == 4 and parts[3] != "p"):
        return None
    try:
        rho, m = float(parts[1]), float(parts[2])
    except ValueError:
        return None
    return ", phase_gp: oracle, oracle: {cosine: %r, magnitude: %r, persistent: %s}" % (
        rho, m, "true" if len(parts) == 4 else "false")


def label(kind):
    if not kind.startswith("oracle:"):
        return {"adagp": "ADA-GP", "raw": "ADA-GP raw"}.get(kind, kind)
    parts = kind.split(":")
    return "oracle cos %s mag %s%s" % (parts[1], parts[2], " persistent" if len(parts) == 4 else "")


def technique(kind, warmup, args):
    extra = parse_kind(kind)
    if extra is None:
        return "{kind: bp}"
    diag = ", diagnostics: true" if args.diagnostics and kind in ("adagp", "raw") else ""
    keys = "".join(", " + k for k in args.adagp)
    return "{kind: adagp-efficient, warmup_epochs: %d%s%s%s}" % (warmup, extra, diag, keys)


def mean_of(rows, key):
    vals = [float(r[key]) for r in rows if r.get(key, "") != ""]
    return statistics.mean(vals) if vals else None


def run_one(trainsim, out_root, net, data, seed, kind, args):
    out = os.path.join(out_root, "%s_%s_s%d_%s" % (net, data, seed, kind.replace(":", "_")))
    cmd = [trainsim, "train", EXPERIMENT, "--out", out, "--force", "--quiet",
           "--set", "network=" + net, "--set", "dataset.name=" + data,
           "--set", "training.seed=%d" % seed, "--set", "training.epochs=%d" % args.epochs,
           "--set", "technique=" + technique(kind, args.warmup, args)]
    for s in args.regime_sets + args.set + ([RAW_SET] if kind == "raw" else []):
        cmd += ["--set", s]
    reused = run_or_reuse(cmd, out, args.reuse, "adagp_accuracy_command.txt", "adagp_accuracy")
    with open(os.path.join(out, "epochs.csv")) as f:
        last = list(csv.DictReader(f))[-1]
    result = {"accuracy": 100 * float(last["test_accuracy"]), "loss": float(last["test_loss"]),
              "reused": reused}
    pred = os.path.join(out, "predictor.csv")
    if os.path.exists(pred):
        with open(pred) as f:
            rows = [r for r in csv.DictReader(f) if int(r["epoch"]) > args.warmup]
        result["cosine"] = mean_of([r for r in rows if int(r["batches"]) > 0], "cosine")
        for key in DIAG:
            result[key] = mean_of(rows, key)
    return result


def finite(values):
    return all(math.isfinite(v) for v in values)


def mean(values):
    """The mean, NaN when a run diverged (a NaN or infinite loss)."""
    return statistics.mean(values) if finite(values) else float("nan")


def paired(a, b):
    """Mean and standard error of the per-seed differences a - b (NaN if a run diverged)."""
    d = [x - y for x, y in zip(a, b)]
    if not finite(d):
        return float("nan"), float("nan")
    se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else float("nan")
    return statistics.mean(d), se


def fmt_pm(mean_se, digits=2):
    m, se = mean_se
    return "diverged" if math.isnan(m) else "%+.*f ± %.*f" % (digits, m, digits, se)


def gap_fraction(x, floor, ceiling, ceiling_se):
    """(x - floor) / (ceiling - floor): only where the gap is over twice its standard error
    (otherwise there is no gap to recover, and the ratio is noise)."""
    gap = ceiling - floor
    if not finite([x, floor, ceiling]):
        return "n/a"
    if math.isnan(ceiling_se):  # one seed: no standard error to judge the gap by
        return "n/a"
    if not abs(gap) > 2 * ceiling_se:
        return "(no gap)"
    f = 100 * (x - floor) / gap
    return "< -999%" if f < -999 else "%.0f%%" % f


def read_csv(path):
    """The per-seed results of an earlier --csv, to tabulate again without training."""
    results, order = {}, {"network": [], "dataset": [], "seed": [], "kind": []}
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (row["network"], row["dataset"], int(row["seed"]), row["kind"])
            for i, name in enumerate(order):
                if key[i] not in order[name]:
                    order[name].append(key[i])
            r = {"accuracy": float(row["test_accuracy"]), "loss": float(row["test_loss"])}
            for k in ["cosine"] + DIAG:
                col = "predictor_cosine" if k == "cosine" else k
                r[k] = float(row[col]) if row.get(col, "") != "" else None
            results[key] = r
    return results, order


def fmt(v, spec="%.3f"):
    return "" if v is None else spec % v


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--regime", choices=sorted(REGIMES), default="main")
    p.add_argument("--networks", default="lenet5,seed_mlp")
    p.add_argument("--datasets", default="mnist,fashion-mnist")
    p.add_argument("--seeds", default="1,2,3,4,5,6")
    p.add_argument("--epochs", type=int, default=None, help="default: the regime's")
    p.add_argument("--warmup", type=int, default=None, help="default: the regime's")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--kinds", default="bp,skip,zero,adagp",
                   help="from %s and oracle:RHO:M[:p] (bp, skip, zero always run)"
                   % ",".join(PLAIN))
    p.add_argument("--set", action="append", default=[])
    p.add_argument("--adagp", action="append", default=[], metavar="'KEY: VALUE'",
                   help="an extra technique key for every run but bp, "
                   "e.g. 'predictor: {lr: 1e-3}'")
    p.add_argument("--no-diagnostics", dest="diagnostics", action="store_false",
                   help="do not measure adagp / raw's Phase GP gradients against the truth")
    p.add_argument("--trainsim", default=os.path.join(REPO, "build", "trainsim"))
    p.add_argument("--out", default=None, help="keep the runs here (default: a temp dir)")
    p.add_argument("--csv", default=None, help="also write the per-seed results here")
    p.add_argument("--reuse", action="store_true",
                   help="keep a run of --out whose command was exactly this one's instead of "
                   "training again (add kinds or seeds to an earlier table)")
    p.add_argument("--from-csv", default=None, metavar="FILE",
                   help="tabulate an earlier run's --csv instead of training (the regime "
                   "options must match that run's, for the header)")
    args = p.parse_args()
    epochs, warmup, args.regime_sets = REGIMES[args.regime]
    args.epochs = epochs if args.epochs is None else args.epochs
    args.warmup = warmup if args.warmup is None else args.warmup
    nets, datas = args.networks.split(","), args.datasets.split(",")
    seeds = [int(s) for s in args.seeds.split(",")]
    asked = [k for k in args.kinds.split(",") if k]
    unknown = [k for k in asked if parse_kind(k) is None and k != "bp"]
    if unknown:
        sys.exit("adagp_accuracy: unknown kind(s) %s (known: %s, oracle:RHO:M[:p])" % (
            ", ".join(unknown), ",".join(PLAIN)))
    kinds = ALWAYS + [k for k in dict.fromkeys(asked) if k not in ALWAYS]

    if args.from_csv:
        results, order = read_csv(args.from_csv)
        nets, datas, seeds, kinds = (order["network"], order["dataset"], order["seed"],
                                     order["kind"])
        args.seeds = ",".join(str(x) for x in seeds)
        return tabulate(args, results, nets, datas, seeds, kinds)
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
            r = results[futs[f]]
            progress.step("%s on %s, seed %d, %s: %.2f%%%s" % (
                n, d, s, k, r["accuracy"], " (reused)" if r["reused"] else ""))

    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["network", "dataset", "seed", "kind", "test_accuracy", "test_loss",
                        "predictor_cosine"] + DIAG)
            for n in nets:
                for d in datas:
                    for s in seeds:
                        for k in kinds:
                            r = results[(n, d, s, k)]
                            w.writerow([n, d, s, k, "%.2f" % r["accuracy"], "%.6f" % r["loss"],
                                        fmt(r.get("cosine"), "%.4f")]
                                       + [fmt(r.get(key), "%.4f") for key in DIAG])

    tabulate(args, results, nets, datas, seeds, kinds)


def tabulate(args, results, nets, datas, seeds, kinds):
    print("Regime %s: %d epochs, %d of warm-up%s; seeds %s (%d). Test accuracy (%%) and test "
          "loss after the last epoch; differences paired by seed, mean ± standard error."
          % (args.regime, args.epochs, args.warmup,
             "".join(", " + s for s in args.regime_sets + args.set), args.seeds, len(seeds)))
    print()
    print("| network / dataset | kind | accuracy | loss | acc - zero | loss - zero | acc - skip "
          "| loss - skip | gap recovered (acc / loss) |")
    print("|---|---|---|---|---|---|---|---|---|")
    diag_rows = []
    for n in nets:
        for d in datas:
            acc = {k: [results[(n, d, s, k)]["accuracy"] for s in seeds] for k in kinds}
            loss = {k: [results[(n, d, s, k)]["loss"] for s in seeds] for k in kinds}
            ma = {k: mean(v) for k, v in acc.items()}
            ml = {k: mean(v) for k, v in loss.items()}
            for k in kinds:
                vs_zero = ["", ""] if k == "zero" else [
                    fmt_pm(paired(acc[k], acc["zero"])), fmt_pm(paired(loss[k], loss["zero"]), 3)]
                vs_skip = ["", ""] if k == "skip" else [
                    fmt_pm(paired(acc[k], acc["skip"])), fmt_pm(paired(loss[k], loss["skip"]), 3)]
                gap = "" if k in ("bp", "skip") else "%s / %s" % (
                    gap_fraction(ma[k], ma["skip"], ma["bp"], paired(acc["bp"], acc["skip"])[1]),
                    gap_fraction(-ml[k], -ml["skip"], -ml["bp"],
                                 paired(loss["bp"], loss["skip"])[1]))
                name = label(k) + (" (ceiling vs skip)" if k == "bp" else "")
                print("| %s / %s | %s | %.2f | %.3f | %s | %s | %s |" % (
                    n, d, name, ma[k], ml[k], " | ".join(vs_zero), " | ".join(vs_skip), gap))
                runs = [results[(n, d, s, k)] for s in seeds]
                if any(r.get("gp_cosine") is not None for r in runs):
                    cells = []
                    for key in ["cosine"] + DIAG:
                        vals = [r[key] for r in runs if r.get(key) is not None]
                        cells.append(fmt(statistics.mean(vals)) if vals else "")
                    diag_rows.append("| %s / %s | %s | %s |" % (n, d, label(k), " | ".join(cells)))
    if diag_rows:
        print()
        print("Diagnostics (means over seeds, layers and the epochs after warm-up):")
        print()
        print("| network / dataset | kind | predictor cosine (Phase BP) | Phase GP cosine | "
              "Phase GP magnitude | error persistence | true grad vs previous | "
              "true grad vs running mean |")
        print("|---|---|---|---|---|---|---|---|")
        for row in diag_rows:
            print(row)


if __name__ == "__main__":
    main()
