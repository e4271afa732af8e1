#!/usr/bin/env python3
"""Row stationary's global-buffer accesses against nn_dataflow's on AlexNet CONV1-5 (issue 30's
figure): each layer on eyeriss_like (12x14 PEs, 108 KiB buffer), mapped for the least energy
and priced with the Eyeriss normalized table, as tests/unit/test_eyeriss_validation.cpp maps it,
next to nn_dataflow's optimal schedules on the same array and buffer under two register-file
rules (tests/data/README.md; `gbuf_total_words` counts the words the array reads from and
writes to the buffer):

  published  tests/data/nn_dataflow_alexnet.csv: nn_dataflow as published;
  rows       tests/data/nn_dataflow_alexnet_rf_rows.csv: its search with the register file
             counted for the whole rows its schedules keep (tests/data/README.md says how;
             tools/nn_dataflow_rs.py; docs/accelerator.md, "Global-buffer accesses").

trainsim's buffer counters hold both sides of the buffer: the array's reads and writes, and
the DMA's fills (the words read from DRAM) and drains (the words written to DRAM). The table
gives the total, the array's side alone (what nn_dataflow's figure counts), the partial-sum
read-modify-writes among the latter, and the array side's ratio to each reference.
`--set KEY=VALUE` changes eyeriss_like for a what-if (e.g. nn_dataflow's 256 register-file
words: `--set rf.input_words=12 --set rf.weight_words=112 --set rf.psum_words=132 --set
rf.keep_psums=true`; or `--set accumulator.words=262144`: an output accumulator, which takes
the partial sums off the buffer where it holds a tile's outputs; its own accesses are then
printed in the last column, and are not buffer accesses).

  tools/rs_buffer_gap.py [--build DIR] [--batch N ...] [--set KEY=VALUE ...]
                                                         (default batches: 4 16)
"""
import argparse
import csv
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORD_BYTES = 2  # eyeriss_like's 16-bit words

# name: --conv H,W,C,F,R,S,stride,pad and groups (CONV2, 4 and 5 in two groups, as the chip ran
# AlexNet and nn_dataflow sums its two halves).
LAYERS = {
    "CONV1": ("227,227,3,96,11,11,4,0", 1),
    "CONV2": ("27,27,96,256,5,5,1,2", 2),
    "CONV3": ("13,13,256,384,3,3,1,1", 1),
    "CONV4": ("13,13,384,384,3,3,1,1", 2),
    "CONV5": ("13,13,384,256,3,3,1,1", 2),
}


def nn_dataflow(name):
    with open(os.path.join(REPO, "tests", "data", name), newline="") as f:
        return {(r["layer"], int(r["batch"])): r for r in csv.DictReader(f)}


def trainsim_layer(binary, conv, groups, batch, overrides):
    extra = [a for kv in overrides for a in ("--set", kv)]
    out = subprocess.run(
        [binary, "layer", "--accel", "eyeriss_like", "--dataflow", "rs", "--conv", conv,
         "--groups", str(groups), "--batch", str(batch), "--set", "energy=eyeriss_normalized",
         "--set", "mapping.objective=energy", "--json"] + extra,
        check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out)["stats"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.environ.get("TRAINSIM_BUILD",
                                                      os.path.join(REPO, "build")))
    ap.add_argument("--batch", type=int, nargs="*", default=[4, 16])
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a key of eyeriss_like (repeatable)")
    args = ap.parse_args()
    binary = os.path.join(args.build, "trainsim")
    ref = nn_dataflow("nn_dataflow_alexnet.csv")
    rows_ref = nn_dataflow("nn_dataflow_alexnet_rf_rows.csv")
    print("RS global-buffer accesses on eyeriss_like" +
          "".join(f" --set {kv}" for kv in args.set) +
          " against nn_dataflow's gbuf_total_words, published and with whole rows kept"
          " (millions of words)")
    print(f"{'layer':6} {'batch':>5} {'total':>8} {'array':>8} {'psum RMW':>8} "
          f"{'DMA':>7} {'publ.':>7} {'rows':>7} {'/publ.':>7} {'/rows':>7} {'accum.':>7}")
    worst = {}
    for batch in args.batch:
        for name, (conv, groups) in LAYERS.items():
            row = ref.get((name, batch))
            if row is None:
                continue
            s = trainsim_layer(binary, conv, groups, batch, args.set)
            b = s["buffer"]
            total = sum(b[o]["reads"] + b[o]["writes"] for o in ("ifmap", "filter", "ofmap"))
            # The DMA's side: every DRAM word moved fills or drains the buffer once
            # (eyeriss_like's words are 16 bits).
            dma = s["dram_bytes"] // WORD_BYTES
            array = total - dma
            # Partial sums: every write-back of an output to the buffer but its first is a
            # read-modify-write; the outputs themselves are written once (drains and psum
            # spills to DRAM are on the DMA's side).
            drained = s["dram"]["ofmap"]["write_bytes"] // WORD_BYTES
            rmw = 2 * (b["ofmap"]["reads"] - drained)
            nn = float(row["gbuf_total_words"])
            nr = float(rows_ref[(name, batch)]["gbuf_total_words"])
            lo, hi = worst.get(batch, (float("inf"), 0.0))
            worst[batch] = (min(lo, array / nr), max(hi, array / nr))
            acc = s["accumulator"]["ofmap"]
            print(f"{name:6} {batch:5} {total / 1e6:8.2f} {array / 1e6:8.2f} {rmw / 1e6:8.2f} "
                  f"{dma / 1e6:7.2f} {nn / 1e6:7.2f} {nr / 1e6:7.2f} {array / nn:6.2f}x "
                  f"{array / nr:6.2f}x {(acc['reads'] + acc['writes']) / 1e6:7.2f}")
    for batch, (lo, hi) in worst.items():
        print(f"batch {batch}: array side {lo:.2f}x-{hi:.2f}x nn_dataflow's with whole rows kept "
              f"(issue 30's target: within 2x on every layer at batch 16)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
