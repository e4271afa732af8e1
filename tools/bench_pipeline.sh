#!/usr/bin/env bash
# Speed of runs on a system of devices (docs/benchmarks.md, "Pipelines"):
#  1. LeNet-5 on Fashion-MNIST, one epoch (configs/experiments/lenet5_fashion_pipeline.yaml,
#     batch 64): the whole `trainsim run` process on four devices with GPipe against the
#     same run on one device (--set system=none); target: <= 1.3x the single-device wall
#     time. Both train for real; the single-device run times every batch's ops as it goes,
#     the pipeline run times each distinct stretch of batches once on the platform.
#  2. tools/pipeline_zoo.py: the Figure 20 table (13 ImageNet networks x GPipe, 1F1B,
#     Chimera x bp, adagp-max, 90 epochs, shape only); target: under 60 s.
# Figures are medians of REPEATS runs (wall time of the whole process, setup included).
#   tools/bench_pipeline.sh [REPEATS]   (default 3; expects ./test.sh or ./run.sh to have set up)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TRAINSIM_BUILD:-$repo/build}"
bin="$build/trainsim"
repeats="${1:-3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
exp="$repo/configs/experiments/lenet5_fashion_pipeline.yaml"

. "$repo/tools/bench_lib.sh"

echo "load average before: $(cut -d' ' -f1 /proc/loadavg)"
single=$(median_wall "$bin" run "$exp" --out "$tmp/single" --force --quiet --set system=none)
piped=$(median_wall "$bin" run "$exp" --out "$tmp/piped" --force --quiet)
printf 'LeNet-5 epoch, one device:           %6.2f s\n' "$single"
printf 'LeNet-5 epoch, 4 devices (GPipe):    %6.2f s  = %.2fx (target <= 1.3x)\n' "$piped" \
  "$(awk -v a="$piped" -v b="$single" 'BEGIN { print a / b }')"
zoo=$(repeats=1 median_wall python3 "$repo/tools/pipeline_zoo.py" --out "$tmp/zoo" --binary "$bin")
printf 'Figure 20 table (tools/pipeline_zoo.py): %6.1f s (target < 60 s)\n' "$zoo"
echo "load average after: $(cut -d' ' -f1 /proc/loadavg)"
