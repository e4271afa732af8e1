#!/usr/bin/env bash
# Numerics-only training speed: one epoch of seed_mlp on the 60k Fashion-MNIST training set
# (target <= 0.7 s on a 2-core machine; the seed authors' C program needs 1.7-2.5 s), and one
# epoch of LeNet-5 on the same 60k images. Prints the median of REPEATS runs of the training
# epoch (evaluation excluded) and the ratio to the target.
#   tools/bench.sh [REPEATS]     (default 5; expects ./test.sh or ./run.sh to have set up)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${TRAINSIM_BUILD:-$repo/build}/trainsim"
repeats="${1:-5}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Median of the epoch-1 train_seconds over $repeats runs of `trainsim train $@`.
epoch_seconds() {
  local times=()
  for ((i = 0; i < repeats; i++)); do
    "$bin" train "$@" --out "$tmp/run" --quiet >/dev/null
    times+=("$(sed -n 's/.*"train_seconds": \([0-9.e+-]*\).*/\1/p' "$tmp/run/timing.json" | head -n 1)")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

echo "trainsim numerics benchmark ($(nproc) cores, median of $repeats runs, training epoch only)"
mlp="$(epoch_seconds "$repo/configs/experiments/mlp_fashion.yaml")"
awk -v t="$mlp" 'BEGIN { printf "seed_mlp  fashion-mnist 60k, batch 15: %.3f s/epoch  (target 0.7 s: %.2fx of target; seed C program 1.7 s: %.1fx faster)\n", t, t / 0.7, 1.7 / t }'
lenet="$(epoch_seconds "$repo/configs/experiments/lenet5_mnist.yaml" \
  --set dataset.name=fashion-mnist --set training.epochs=1)"
awk -v t="$lenet" 'BEGIN { printf "lenet5    fashion-mnist 60k, batch 32: %.3f s/epoch\n", t }'
