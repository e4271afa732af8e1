#!/usr/bin/env bash
# Training speed, numerics only and on the simulated accelerator:
#  1. one epoch of seed_mlp on the 60k Fashion-MNIST training set, numerics only
#     (`trainsim train`; target <= 0.7 s on 2 cores; the C program of Purkayastha et al. 2025 needs
#     1.7-2.5 s), and the same epoch with every op timed on adagp_ws180 in fast fidelity
#     (`trainsim run`; target <= 1.3x the numerics-only time);
#  2. the same for LeNet-5 (target <= 1.2x);
#  3. peak memory of `trainsim run` after 1 and after 3 epochs (must not grow).
# Figures are medians of REPEATS runs of the training epoch (evaluation excluded).
#   tools/bench.sh [REPEATS]     (default 5; expects ./test.sh or ./run.sh to have set up)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${TRAINSIM_BUILD:-$repo/build}/trainsim"
repeats="${1:-5}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

json_number() {  # json_number KEY FILE: first numeric value of "KEY"
  sed -n "s/.*\"$1\": \([0-9.e+-]*\).*/\1/p" "$2" | head -n 1
}
# Median over $repeats of the epoch-1 train_seconds of `trainsim CMD ARGS...`.
epoch_seconds() {
  local times=()
  for ((i = 0; i < repeats; i++)); do
    "$bin" "$@" --out "$tmp/run" --force --quiet >/dev/null
    times+=("$(json_number train_seconds "$tmp/run/timing.json")")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

echo "trainsim training benchmark ($(nproc) cores, median of $repeats runs, training epoch only)"
mlp=(configs/experiments/mlp_fashion.yaml)
t_train=$(cd "$repo" && epoch_seconds train "${mlp[@]}")
t_run=$(cd "$repo" && epoch_seconds run "${mlp[@]}" --set accelerator=adagp_ws180)
awk -v t="$t_train" -v r="$t_run" 'BEGIN {
  printf "seed_mlp fashion-mnist 60k, batch 15: train %.3f s/epoch (target 0.7 s: %.2fx of target; seed C program 1.7 s: %.1fx faster)\n", t, t / 0.7, 1.7 / t
  printf "                                      run   %.3f s/epoch on adagp_ws180, fast: %.2fx of train (target <= 1.3x)\n", r, r / t }'
lenet=(configs/experiments/lenet5_mnist.yaml --set dataset.name=fashion-mnist --set training.epochs=1)
t_train=$(cd "$repo" && epoch_seconds train "${lenet[@]}")
t_run=$(cd "$repo" && epoch_seconds run "${lenet[@]}" --set accelerator=adagp_ws180)
awk -v t="$t_train" -v r="$t_run" 'BEGIN {
  printf "lenet5   fashion-mnist 60k, batch 32: train %.3f s/epoch\n", t
  printf "                                      run   %.3f s/epoch on adagp_ws180, fast: %.2fx of train (target <= 1.2x)\n", r, r / t }'

for epochs in 1 3; do
  (cd "$repo" && "$bin" run configs/experiments/mlp_fashion.yaml --set "training.epochs=$epochs" \
    --out "$tmp/mem$epochs" --quiet >/dev/null)
done
awk -v a="$(json_number peak_rss_kib "$tmp/mem1/timing.json")" \
  -v b="$(json_number peak_rss_kib "$tmp/mem3/timing.json")" 'BEGIN {
  printf "peak memory of trainsim run (seed_mlp, fashion-mnist): 1 epoch %.1f MiB, 3 epochs %.1f MiB (%.3fx)\n", a / 1024, b / 1024, b / a }'
