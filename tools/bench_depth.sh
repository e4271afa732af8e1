#!/usr/bin/env bash
# Training speed of the trainable zoo at depth (docs/benchmarks.md, "Networks at depth"): for
# each network of configs/networks/*_fashion.yaml and LeNet-5, a numerics-only training
# epoch (`trainsim train`) on Fashion-MNIST at batch 128, timed on the first SAMPLES training
# samples (default 12,800, a fifth of the set), median of REPEATS runs (default 3), after the
# machine's fp32 GEMM peak (build/gemm_peak: an Eigen 1024^3 product on 1 thread and on the
# pool's threads). Printed per network: forward multiply-adds per sample, samples per second,
# the seconds a whole 60,000-sample epoch takes at that rate, achieved GFLOP/s (2 x the
# training multiply-adds of the run, timing.json `train_macs`: forward, backward-data and
# backward-weight of the conv and dense layers, as the numerics compute them, over its train
# seconds) and its share of the 2-thread GEMM peak (issue 31 aims at 40% for ResNet-20).
# Time in batchnorm, adds, pools and activations counts as time without multiply-adds.
#   tools/bench_depth.sh [REPEATS] [SAMPLES]   (expects ./test.sh or ./run.sh to have set up)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TRAINSIM_BUILD:-$repo/build}"
bin="$build/trainsim"
case "${1:-}" in -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
repeats="${1:-3}"
samples="${2:-12800}"
[[ "$repeats" =~ ^[1-9][0-9]*$ && "$samples" =~ ^[1-9][0-9]*$ ]] ||
  { echo "bench_depth.sh: usage: tools/bench_depth.sh [REPEATS] [SAMPLES]" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
json_number() { sed -n "s/.*\"$1\": \([0-9.e+-]*\).*/\1/p" "$2" | head -n 1; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "trainsim networks at depth ($(nproc) cores, ${cpu:-unknown CPU}; Fashion-MNIST, batch 128, $samples samples per run, median of $repeats; load average $(cut -d' ' -f1 /proc/loadavg))"
peak="$("$build/gemm_peak")"
echo "$peak"
peakn=$(echo "$peak" | tail -n 1 | sed -n 's/^threads [0-9]*: \([0-9.]*\) GFLOP.*/\1/p')
printf "%-24s %9s %10s %12s %9s %11s %7s\n" network params "fwd MMAC" "samples/s" "s/epoch" "GFLOP/s" "% peak"
for net in lenet5 resnet8_fashion resnet20_fashion vgg11_fashion mobilenetv2_w05_fashion \
  densenet40_fashion; do
  times=()
  for ((i = 0; i < repeats; i++)); do
    rm -rf "$tmp/run"
    (cd "$repo" && "$bin" train configs/experiments/resnet8_fashion.yaml --set "network=$net" \
      --set training.epochs=1 --set training.batch_size=128 \
      --set "dataset.train_limit=$samples" --set dataset.test_limit=500 \
      --out "$tmp/run" --quiet >/dev/null)
    times+=("$(json_number train_seconds "$tmp/run/timing.json")")
  done
  t=$(printf '%s\n' "${times[@]}" | median)
  macs=$(json_number train_macs "$tmp/run/timing.json")
  # Parameters and forward multiply-adds per sample, from the run's stats.json.
  read -r params fwd < <(python3 -c 'import json, sys
n = json.load(open(sys.argv[1]))["network"]
print(n["parameters"], sum(l["forward_macs_per_sample"] for l in n["layers"]))' "$tmp/run/stats.json")
  awk -v n="$net" -v t="$t" -v m="$macs" -v s="$samples" -v p="$peakn" -v w="$params" \
    -v f="$fwd" 'BEGIN {
    g = 2 * m / t / 1e9
    printf "%-24s %9d %10.2f %12.0f %9.1f %11.1f %6.1f%%\n", n, w, f / 1e6, s / t, 60000 * t / s, g, 100 * g / p }'
done
echo "load average at the end: $(cut -d' ' -f1 /proc/loadavg)"
