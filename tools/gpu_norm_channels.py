#!/usr/bin/env python3
"""Batch norm on the H100 of tests/data/gpu_h100, per channel (issue 32): whether its kernels'
time follows the values each channel reduces (N x H x W) rather than all the values the op
touches, from the measurements alone (no trainsim model involved).

The element-wise microbenchmark's FusedBatchNorm rows are all of 16 images x 64 channels
(gpu_ref.py: `t4 = torch.randn(16, 64, hw, hw)` with hw = max(2, int((e // (64 * 16)) ** 0.5)));
DCGAN's kernel profile (model_ops.csv) has its batch norms at 256 images and 64 to 512 channels,
forward and backward, with their input shapes. For each row: the time per call, the values per
channel, and the rate per channel (values per channel / time) next to the rate over all values
(what a model of the op's total values assumes is fixed). Host-bound rows (a call of the
microbenchmark's loop takes at least its host time, about 50 us here) are marked.
  tools/gpu_norm_channels.py
"""
import ast
import csv
import os

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(REPO, "tests", "data", "gpu_h100")
HOST_BOUND_US = 70  # below this, a microbenchmark call is its loop's host time, not the GPU's


def microbenchmark():
    with open(os.path.join(DATA, "elementwise.csv"), newline="") as fh:
        for r in csv.DictReader(fh):
            if r["op"] != "FusedBatchNorm":
                continue
            e = int(r["elements"])
            hw = max(2, int((e // (64 * 16)) ** 0.5))
            yield ("microbenchmark", r["precision"], "forward", 16, 64, hw, hw,
                   float(r["seconds"]) * 1e6, 1)


def dcgan():
    passes = {"aten::cudnn_batch_norm": "forward", "aten::native_batch_norm": "forward",
              "aten::cudnn_batch_norm_backward": "backward",
              "aten::native_batch_norm_backward": "backward"}
    with open(os.path.join(DATA, "model_ops.csv"), newline="") as fh:
        for r in csv.DictReader(fh):
            if r["model"] != "dcgan" or r["op"] not in passes:
                continue
            n, c, h, w = ast.literal_eval(r["input_shapes"])[0]
            calls = int(r["calls"])
            yield ("dcgan", r["precision"], passes[r["op"]], n, c, h, w,
                   float(r["device_us"]) / calls, calls)


def main():
    print("batch norm per channel on the H100 (tests/data/gpu_h100)")
    print(f"{'source':15s} {'prec':4s} {'pass':8s} {'N':>4s} {'C':>4s} {'HxW':>7s} "
          f"{'values/ch':>9s} {'us/call':>8s} {'/ns/ch':>7s} {'/ns all':>8s}")
    rows = list(microbenchmark()) + list(dcgan())
    for src, prec, pas, n, c, h, w, us, calls in rows:
        per_channel = n * h * w
        bound = " host-bound" if src == "microbenchmark" and us < HOST_BOUND_US else ""
        print(f"{src:15s} {prec:4s} {pas:8s} {n:4d} {c:4d} {f'{h}x{w}':>7s} {per_channel:9d} "
              f"{us:8.1f} {per_channel / us / 1e3:7.2f} {per_channel * c / us / 1e3:8.1f}{bound}")

    def rate(src, prec, pas, c):
        for s, p, a, n, ch, h, w, us, _ in rows:
            if (s, p, a, ch) == (src, prec, pas, c) and not (s == "microbenchmark"
                                                             and us < HOST_BOUND_US):
                return n * h * w / us / 1e3
        return None

    print()
    for prec in ("fp32", "bf16"):
        micro = [n * h * w / us / 1e3 for s, p, a, n, c, h, w, us, _ in rows
                 if s == "microbenchmark" and p == prec and us >= HOST_BOUND_US]
        print(f"{prec}: forward per channel: microbenchmark (16 x 64 channels) "
              + ", ".join(f"{x:.2f}" for x in micro)
              + f" values/ns; DCGAN 64 channels {rate('dcgan', prec, 'forward', 64):.2f}, "
              f"128 channels {rate('dcgan', prec, 'forward', 128):.2f}")
        b64, b128 = rate("dcgan", prec, "backward", 64), rate("dcgan", prec, "backward", 128)
        times = {c: us for s, p, a, n, c, h, w, us, _ in rows
                 if s == "dcgan" and p == prec and a == "backward"}
        print(f"{prec}: backward per channel: DCGAN 64 channels {b64:.2f}, 128 channels "
              f"{b128:.2f} values/ns; a call at 64 channels takes {times[64] / times[128]:.2f}x "
              f"one at 128 for 2x the values")


if __name__ == "__main__":
    main()
