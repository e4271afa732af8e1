#!/usr/bin/env bash
# What importing an ONNX model adds to a run (issue 33: under 2 s for ResNet-50): one
# shape-only epoch of ResNet-50 on CIFAR-10 shapes (adagp_ws180, batch 32), named by its
# network file and by PyTorch's ONNX export of it (tests/data/onnx/resnet50_cifar10.onnx),
# median wall time of REPEATS runs each, run alternately.
#   tools/bench_import.sh [REPEATS]   (default 5; expects ./test.sh or ./run.sh to have set up)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${TRAINSIM_BUILD:-$repo/build}/trainsim"
case "${1:-}" in -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
repeats="${1:-5}"
[[ "$repeats" =~ ^[1-9][0-9]*$ ]] || { echo "bench_import.sh: usage: tools/bench_import.sh [REPEATS]" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/exp.yaml" <<YAML
name: resnet50_import
numerics: none
network: resnet50_cifar10
dataset: {name: cifar10}
training: {epochs: 1, batch_size: 32}
accelerator: adagp_ws180
YAML
seconds() {  # seconds NETWORK: wall seconds of one run
  local start end
  start=$(date +%s.%N)
  "$bin" run "$tmp/exp.yaml" -s "network=$1" -o "$tmp/run" -f -q >/dev/null
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f\n", b - a }'
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
file=() onnx=()
for ((i = 0; i < repeats; i++)); do
  file+=("$(seconds resnet50_cifar10)")
  onnx+=("$(seconds "{onnx: $repo/tests/data/onnx/resnet50_cifar10.onnx}")")
done
f=$(printf '%s\n' "${file[@]}" | median)
o=$(printf '%s\n' "${onnx[@]}" | median)
awk -v f="$f" -v o="$o" -v n="$repeats" 'BEGIN {
  printf "ResNet-50 (CIFAR-10 shapes), one shape-only epoch, median of %d: network file %.3f s, ONNX model %.3f s: import adds %.3f s (target < 2 s)\n", n, f, o, o - f }'
