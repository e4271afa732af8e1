#!/usr/bin/env python3
"""Where partial sums accumulate, and what it changes (issue 30, item 2): two tables.

1. An output accumulator (accelerator.accumulator) on one convolution on each dataflow: buffer
and accumulator accesses, their energy, the total energy, cycles and DRAM bytes, for
accumulators of several sizes (docs/accelerator.md, "Output accumulator").

Default: VGG-16's conv3_2 at CIFAR size (8 x 8 x 256 -> 256, 3 x 3, pad 1), batch 32, forward,
on systolic_32x32 (ws, os, is; 32-bit accumulator words, as a TPU widens its 8-bit products)
and on eyeriss_like (rs; 16-bit words, Eyeriss' psum width), every layer mapped for time
(the default objective) and priced with horowitz45. Each row is one `trainsim layer` run.

`--bits B` gives every accumulator B-bit words instead (16: the operands' width, which is
what the buffer holds partial sums in without one).

2. Row stationary keeping partial sums in the PEs across the channel loop (rf.keep_psums) on
eyeriss_like, for VGG-16's 3 x 3 convolutions at CIFAR size (batch 32, forward) whose output
rows fit its 24-word psum RF, mapped for time and for energy (docs/rs_mapping.md).

  tools/psum_study.py [--build DIR] [--conv H,W,C,F,R,S,STRIDE,PAD] [--batch N] [--bits B]
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


# VGG-16's convolutions at CIFAR size whose output rows (F) fit eyeriss_like's psum RF.
KEEP_CONVS = ["16,16,64,128", "16,16,128,128", "8,8,128,256", "8,8,256,256", "4,4,256,512",
              "4,4,512,512", "2,2,512,512"]


def layer(binary, accel, dataflow, conv, batch, overrides):
    cmd = [binary, "layer", "--accel", accel, "--dataflow", dataflow, "--conv", conv,
           "--batch", str(batch), "--json"]
    for kv in overrides:
        cmd += ["--set", kv]
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
            sizes = [f"accumulator.words={words}", f"accumulator.bits={bits}"] if words else []
            d = layer(binary, accel, df, args.conv, args.batch, sizes)
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
    print()
    print("eyeriss_like, rs, batch 32, forward: rf.keep_psums false -> true (ratios true / false; "
          "buffer accesses, DRAM bytes, energy, cycles)")
    print(f"{'conv':14} {'objective':9} {'buffer':>7} {'DRAM':>7} {'energy':>7} {'cycles':>7} "
          f"{'resident':>8}")
    for conv in KEEP_CONVS:
        for objective in ("time", "energy"):
            runs = [layer(binary, "eyeriss_like", "rs", conv + ",3,3,1,1", args.batch,
                          [f"mapping.objective={objective}", f"rf.keep_psums={keep}"])
                    for keep in ("false", "true")]
            off, on = (r["stats"] for r in runs)
            e_off, e_on = (r["energy"]["total"] for r in runs)
            print(f"{conv:14} {objective:9} "
                  f"{accesses(on['buffer']) / accesses(off['buffer']):6.3f}x "
                  f"{on['dram_bytes'] / off['dram_bytes']:6.3f}x {e_on / e_off:6.3f}x "
                  f"{on['cycles'] / off['cycles']:6.3f}x "
                  f"{'yes' if 'psum_resident' in on['mapping'] else 'no':>8}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
