#!/usr/bin/env python3
"""What an output accumulator (accelerator.accumulator) does to one convolution on each
dataflow: buffer and accumulator accesses, their energy, the total energy, cycles and DRAM
bytes, for accumulators of several sizes (issue 30, item 2; docs/accelerator.md, "Output
accumulator").

Default: VGG-16's conv3_2 at CIFAR size (8 x 8 x 256 -> 256, 3 x 3, pad 1), batch 32, forward,
on systolic_32x32 (ws, os, is; 32-bit accumulator words, as a TPU widens its 8-bit products)
and on eyeriss_like (rs; 16-bit words, Eyeriss' psum width), every layer mapped for time
(the default objective) and priced with horowitz45. Each row is one `trainsim layer` run.

`--bits B` gives every accumulator B-bit words instead (16: the operands' width, which is
what the buffer holds partial sums in without one).

  tools/accumulator_study.py [--build DIR] [--conv H,W,C,F,R,S,STRIDE,PAD] [--batch N]
                             [--bits B]
"""
import argparse
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = [0, 2048, 8192, 32768, 131072]  # words; 0 = none
SETUPS = [("systolic_32x32", "ws", 32), ("systolic_32x32", "os", 32),
          ("systolic_32x32", "is", 32), ("eyeriss_like", "rs", 16)]


def layer(binary, accel, dataflow, conv, batch, words, bits):
    cmd = [binary, "layer", "--accel", accel, "--dataflow", dataflow, "--conv", conv,
           "--batch", str(batch), "--json"]
    if words > 0:
        cmd += ["--set", f"accumulator.words={words}", "--set", f"accumulator.bits={bits}"]
    return json.loads(subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout)


def accesses(level):
    return sum(level[o]["reads"] + level[o]["writes"] for o in ("ifmap", "filter", "ofmap"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.environ.get("TRAINSIM_BUILD",
                                                      os.path.join(REPO, "build")))
    ap.add_argument("--conv", default="8,8,256,256,3,3,1,1")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--bits", type=int, default=0)
    args = ap.parse_args()
    binary = os.path.join(args.build, "trainsim")
    print(f"conv {args.conv}, batch {args.batch}, forward; accesses in millions of words, "
          "energy in uJ (horowitz45)")
    print(f"{'accel':15} {'df':3} {'acc words':>9} {'acc KiB':>7} {'buffer':>8} {'accum.':>8} "
          f"{'E buf':>8} {'E acc':>8} {'E total':>8} {'vs none':>8} {'cycles':>10} "
          f"{'DRAM MB':>8}")
    for accel, df, bits in SETUPS:
        bits = args.bits or bits
        base = None
        for words in SIZES:
            d = layer(binary, accel, df, args.conv, args.batch, words, bits)
            s, e = d["stats"], d["energy"]
            total = e["total"]
            if base is None:
                base = (total, s["cycles"], s["dram_bytes"])
            # The accumulator never changes the array's time or the DRAM traffic: say so if
            # it ever does, rather than print a table that hides it.
            if (s["cycles"], s["dram_bytes"]) != base[1:]:
                print(f"{accel} {df} {words}: cycles or DRAM traffic changed", file=sys.stderr)
                return 1
            print(f"{accel:15} {df:3} {words:9} {words * bits / 8 / 1024:7.0f} "
                  f"{accesses(s['buffer']) / 1e6:8.2f} {accesses(s['accumulator']) / 1e6:8.2f} "
                  f"{e['buffer'] / 1e6:8.2f} {e['accumulator'] / 1e6:8.2f} {total / 1e6:8.2f} "
                  f"{total / base[0]:7.3f}x {s['cycles']:10d} {s['dram_bytes'] / 1e6:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
