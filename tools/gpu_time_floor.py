#!/usr/bin/env python3
"""What the per-op times of tests/data/gpu_h100 let a model reach (issue 32's time targets:
MAPE <= 10% in-sample for GEMMs and convolutions), from the measurements alone: no trainsim
model involved.

A GEMM or convolution that is at least as large as another in every dimension, with the same
kind of everything else, contains the smaller one: the fastest kernel for it is never faster
than the fastest for the smaller one (it could run the smaller op's kernel on a part of it).
trainsim's GPU model keeps that order too (tests/unit/test_device_models.cpp, "time grows with
work"), and so does anything of the form max(host time, device time) with a monotone device
time. The measurements do not: cuDNN's and cuBLAS's heuristics, the measuring loop's host time
and the counter's noise put some larger ops below smaller ones. The least mean absolute
percentage error any such monotone model can have is the weighted L1 isotonic regression of
the measured times over that partial order (weights 1 / time), computed here exactly: per
threshold between consecutive measured times, the cheapest up-closed set of rows to put above
it is a minimum cut (Hochbaum and Queyranne's reduction), and the thresholds' sets nest.

Orders: GEMMs by (M, N, K); convolutions of one pass, filter size, stride and padding by
(batch, channels, height, width, filters). Per precision. --energy does the same with the
measured joules (rows whose energy moved): a larger op runs longer and does more, so its energy
is not less either.
  tools/gpu_time_floor.py [--energy]
"""
import collections
import csv
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(REPO, "tests", "data", "gpu_h100")


def max_flow(cap, s, t):
    """Edmonds-Karp on a dict-of-dicts residual graph `cap` (modified in place)."""
    flow = 0.0
    while True:
        parent = {s: None}
        queue = collections.deque([s])
        while queue and t not in parent:
            u = queue.popleft()
            for v, c in cap[u].items():
                if c > 1e-15 and v not in parent:
                    parent[v] = u
                    queue.append(v)
        if t not in parent:
            return flow
        push, v = float("inf"), t
        while parent[v] is not None:
            push = min(push, cap[parent[v]][v])
            v = parent[v]
        v = t
        while parent[v] is not None:
            u = parent[v]
            cap[u][v] -= push
            cap[v][u] = cap[v].get(u, 0.0) + push
            v = u
        flow += push


def isotonic_l1(times, below):
    """The least sum of |p_i / t_i - 1| over predictions p that never put a row below one it
    precedes: below[i] lists the rows j with i <= j in the order (p_i <= p_j)."""
    n = len(times)
    levels = sorted(set(times))
    w = [1 / t for t in times]
    total = sum(w[i] * (times[i] - levels[0]) for i in range(n))  # every p_i at the lowest
    inf = float("inf")
    for lo, hi in zip(levels, levels[1:]):
        # Raising row i from lo to hi costs w_i (hi - lo) if t_i <= lo, saves it otherwise; the
        # raised rows must be up-closed. Cheapest such set: a maximum-weight closure.
        s, t = n, n + 1
        cap = {u: {} for u in range(n + 2)}
        gain = 0.0
        for i in range(n):
            c = w[i] * (hi - lo)
            if times[i] > lo:  # raising it saves c
                cap[s][i] = c
                gain += c
            else:
                cap[i][t] = c
            for j in below[i]:
                cap[i][j] = inf
        total -= gain - max_flow(cap, s, t)
    return total


def read(name):
    with open(os.path.join(DATA, name), newline="") as fh:
        return list(csv.DictReader(fh))


def dims(text):
    return tuple(int(x) for x in text.split("x"))


def floor_of(group):
    """group: [(order dims, measured value)] of one family; the isotonic floor's sum and count."""
    times = [g[1] for g in group]
    # Rows of equal size precede each other: a model gives them one value.
    below = [[j for j, b in enumerate(group) if j != i and all(x <= y for x, y in zip(a[0], b[0]))]
             for i, a in enumerate(group)]
    return max(0.0, isotonic_l1(times, below)), len(group)


def main(argv):
    column = "joules" if "--energy" in argv else "seconds"
    what = "energy" if column == "joules" else "time"
    print(f"least {what} MAPE of any model monotone in the op's size (weighted L1 isotonic "
          "regression)")
    print(f"{'precision':9} {'class':12} {'rows':>4} {'floor':>7}")
    for prec in ("fp32", "bf16"):
        gemm = [(dims(r["mkn"]), float(r[column]))
                for r in read("matmul.csv") if r["precision"] == prec and float(r[column]) > 0]
        err, n = floor_of(gemm)
        print(f"{prec:9} {'gemm':12} {n:4d} {100 * err / n:6.2f}%")
        families = {}
        for r in read("conv.csv"):
            if r["precision"] != prec or float(r[column]) <= 0:
                continue
            b, c, h, w_ = dims(r["input"])
            f, _, kh, kw = dims(r["filter"])
            key = (r["op"], kh, kw, r["stride"], r["pad"])
            families.setdefault(key, []).append(((b, c, h, w_, f), float(r[column])))
        err = n = 0
        for group in families.values():
            e, k = floor_of(group)
            err, n = err + e, n + k
        print(f"{prec:9} {'convolution':12} {n:4d} {100 * err / n:6.2f}%")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
