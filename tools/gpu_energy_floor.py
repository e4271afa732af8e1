#!/usr/bin/env python3
"""What the per-op energies of tests/data/gpu_h100 let a model reach (issue 32's energy-per-op
target: MAPE <= 15%), from the measurements alone: no trainsim model involved.

  * Replicates: Mul, Add and ReluGrad at one device-bound size and precision are the same map
    kernel reading two tensors and writing one (their times agree within 1% at 2^24 and
    2^26 elements); the spread of their average powers is the energy counter's noise on one
    row, which no model can remove.
  * A reference, not a floor: a model that knew every convolution's and GEMM's measured time
    exactly and gave each kind one constant power (the MAPE of measured joules against that
    power x the measured seconds). A model's energy also carries its time error: energy is
    power x time.
  * With --ops (the gpu_ops.csv `trainsim gpu-calibrate` writes): how much of the model's
    energy error is its power rather than its time. Per class, over the rows whose energy
    moved and whose average is within the board's 700 W limit (those the power stage fits):
    the MAPE of the model's average power (its joules over its seconds) against the measured
    one, beside the MAPEs of energy and time. Energy is power x time, so a power error as
    large as the energy error says the time is not what keeps energy out of 15%.
Rows whose energy did not move (joules 0) are left out, as the calibration does.
  tools/gpu_energy_floor.py [--ops runs/gpu-calibration/gpu_ops.csv]
"""
import argparse
import csv
import itertools
import json
import os
import statistics

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(REPO, "tests", "data", "gpu_h100")


def rows(name):
    with open(os.path.join(DATA, name), newline="") as fh:
        for r in csv.DictReader(fh):
            s, j = float(r["seconds"]), float(r["joules"])
            if j > 0:
                yield r, s, j


def best_constant_mape(powers):
    """The constant c minimising mean |c / p - 1| (a weighted median of the powers, so one
    of them), and that mean in percent."""
    best = min(powers, key=lambda c: sum(abs(c / p - 1) for p in powers))
    return best, 100 * statistics.mean(abs(best / p - 1) for p in powers)


def main():
    elt = {(r["op"], r["precision"], int(r["elements"])): (s, j)
           for r, s, j in rows("elementwise.csv")}
    print("replicates: Mul, Add, ReluGrad at one size (the same kernel and bytes)")
    spreads = []
    for prec in ("fp32", "bf16"):
        for n in (1 << 24, 1 << 26):  # device-bound sizes (host-bound ones measure the host)
            group = [(op, elt[(op, prec, n)]) for op in ("Mul", "Add", "ReluGrad")
                     if (op, prec, n) in elt]
            for (a, (sa, ja)), (b, (sb, jb)) in itertools.combinations(group, 2):
                pa, pb = ja / sa, jb / sb
                spread = 100 * abs(pa - pb) / ((pa + pb) / 2)
                spreads.append(spread)
                print(f"{prec} 2^{n.bit_length() - 1} {a:8} {pa:6.1f} W  {b:8} {pb:6.1f} W  "
                      f"differ {spread:5.1f}%")
    print(f"mean difference {statistics.mean(spreads):.1f}%, largest {max(spreads):.1f}%: "
          f"a model exact in expectation is off by about half of that on each row")

    kinds = {}  # (precision, kind) -> average powers
    for name, kind in (("conv.csv", "convolution"), ("matmul.csv", "GEMM")):
        for r, s, j in rows(name):
            kinds.setdefault((r["precision"], kind), []).append(j / s)
    print("\nreference: per-op energy MAPE of (best constant power) x (measured time)")
    print(f"{'precision':9} {'kind':12} {'rows':>4} {'power W':>8} {'MAPE':>6}")
    for (prec, kind), powers in sorted(kinds.items(), key=lambda kv: (kv[0][0] != "fp32", kv[0])):
        c, mape = best_constant_mape(powers)
        print(f"{prec:9} {kind:12} {len(powers):4d} {c:8.1f} {mape:5.1f}%")


def power_split(path, limit_w):
    """Per (precision, class): (rows, MAPE of the model's average power, of energy, of time),
    in percent, over the rows of gpu_ops.csv `path` whose energy moved and whose measured
    average is within `limit_w`."""
    groups = {}
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            s, j = float(r["seconds"]), float(r["joules"])
            ms, mj = float(r["model_seconds"]), float(r["model_joules"])
            if j <= 0 or j / s > limit_w:
                continue
            cls = r["class"] if r["class"] in ("gemm", "conv") else "element-wise"
            groups.setdefault((r["precision"], cls), []).append(
                (abs(mj / ms / (j / s) - 1), abs(mj / j - 1), abs(ms / s - 1)))
    return {k: (len(errs),) + tuple(100 * statistics.mean(x[i] for x in errs) for i in range(3))
            for k, errs in groups.items()}


def print_power_split(path):
    with open(os.path.join(DATA, "device.json")) as fh:
        limit_w = json.load(fh)["power_limit_w"]
    split = power_split(path, limit_w)
    print("\nthe model's power against the measured (rows within the power limit)")
    print(f"{'precision':9} {'class':12} {'rows':>4} {'power':>7} {'energy':>7} {'time':>7}")
    for (prec, cls), (n, p, e, t) in sorted(split.items(),
                                            key=lambda kv: (kv[0][0] != "fp32", kv[0])):
        print(f"{prec:9} {cls:12} {n:4d} {p:6.1f}% {e:6.1f}% {t:6.1f}%")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", help="gpu_ops.csv of trainsim gpu-calibrate")
    args = parser.parse_args()
    main()
    if args.ops:
        print_power_split(args.ops)
