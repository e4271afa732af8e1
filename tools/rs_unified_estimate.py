#!/usr/bin/env python3
"""What a richer row-stationary mapping could reach against nn_dataflow's global-buffer
accesses on AlexNet CONV1-5 at batch 16 (issue 30): a first-order count, not the simulator.

tools/rs_buffer_gap.py compares trainsim's RS with nn_dataflow's optimal schedules; this script
asks how far the gap could close if trainsim's RS mapping had the three things it lacks
(docs/accelerator.md, "Global-buffer accesses"):
  * partial sums resident in the PEs across the whole channel loop (each output written to
    the buffer once) when the register file can hold p x F of them (p filters, F columns);
  * replicated PE sets sharing buffer reads: of the `rep` sets a pass places on the 12 x 14
    array, `a` work on different filter groups of the same images (one input read serves
    them) and `b` on different images of the same filters (one weight read serves them),
    a x b = rep;
  * any (p, q) that fits, chosen for the fewest buffer accesses.
Two register files are tried: eyeriss_like's split one (12 input, 224 weight, 24 psum words)
and the 256-word unified one nn_dataflow's figures assume. Counts per layer (grouped layers:
both halves): weights N M C R S x strips / b, inputs N C x (rows the strips read) x W x
ceil(M / p) / a, partial-sum writes N M E F x (1 if resident else ceil(C / q)) and as many
read-backs less the outputs. Ignored, all in the estimate's favour: padding columns, ragged
groups and passes, row chunks of long filter rows, and the weights' reload per row chunk.
  tools/rs_unified_estimate.py
"""
import csv
import math
import os

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROWS, COLS, BATCH = 12, 14, 16
# name: H, W, C, M, R, S, stride, pad, groups (as tools/rs_buffer_gap.py runs them)
LAYERS = {
    "CONV1": (227, 227, 3, 96, 11, 11, 4, 0, 1),
    "CONV2": (27, 27, 96, 256, 5, 5, 1, 2, 2),
    "CONV3": (13, 13, 256, 384, 3, 3, 1, 1, 1),
    "CONV4": (13, 13, 384, 384, 3, 3, 1, 1, 2),
    "CONV5": (13, 13, 384, 256, 3, 3, 1, 1, 2),
}


def fits(rf, p, q, s, psums):
    if rf == "split":  # eyeriss_like: input, weight, psum register files
        return q * s <= 12 and p * q * s <= 224 and psums <= 24
    return p * q * s + q * s + psums <= 256


def best(layer, rf):
    h_in, w_in, c, m, r, s, u, pad, groups = layer
    c, m = c // groups, m // groups
    e = (h_in + 2 * pad - r) // u + 1
    f = (w_in + 2 * pad - s) // u + 1
    h, w = min(r, ROWS), min(e, COLS)
    rep = (ROWS // h) * (COLS // w)
    strips, segments = math.ceil(e / COLS), math.ceil(r / ROWS)
    # Input rows the strips read (a strip of w output rows reads (w - 1) u + r of them).
    rows = sum(min(COLS, e - k * COLS) * u - u + r for k in range(strips)) * segments
    outputs = BATCH * m * e * f
    top = None
    for p in range(1, m + 1):
        for q in range(1, c + 1):
            for resident in (False, True):
                if not fits(rf, p, q, s, p * f if resident else p):
                    continue
                for a in (d for d in range(1, rep + 1) if rep % d == 0):
                    b = rep // a
                    weights = BATCH * m * c * r * s * strips / b
                    inputs = BATCH * c * rows * w_in * math.ceil(m / p) / a
                    writes = outputs * (1 if resident else math.ceil(c / q))
                    total = weights + inputs + 2 * writes - outputs
                    if top is None or total < top[0]:
                        top = (total, p, q, resident, a, b)
    return (top[0] * groups,) + top[1:]


def main():
    with open(os.path.join(REPO, "tests", "data", "nn_dataflow_alexnet.csv"), newline="") as fh:
        ref = {r["layer"]: int(r["gbuf_total_words"]) for r in csv.DictReader(fh)
               if r["batch"] == str(BATCH)}
    print(f"best-case RS global-buffer accesses at batch {BATCH} against nn_dataflow's "
          "gbuf_total_words (millions of words)")
    print(f"{'layer':6} {'rf':7} {'p':>3} {'q':>3} {'psums kept':>10} {'a x b':>6} "
          f"{'estimate':>9} {'nn_df':>7} {'ratio':>6}")
    for name, layer in LAYERS.items():
        for rf in ("split", "unified"):
            total, p, q, resident, a, b = best(layer, rf)
            print(f"{name:6} {rf:7} {p:3d} {q:3d} {str(resident):>10} {f'{a}x{b}':>6} "
                  f"{total / 1e6:9.2f} {ref[name] / 1e6:7.2f} {total / ref[name]:5.2f}x")


if __name__ == "__main__":
    main()
