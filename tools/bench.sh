#!/usr/bin/env bash
# Training speed, numerics only and on the simulated accelerator, against this machine's
# fp32 GEMM peak (a roofline's compute ceiling):
#  0. the peak: an Eigen 1024^3 GEMM on 1 thread and on all cores (build/gemm_peak, the
#     library and thread pool the numerics use);
#  1. one epoch of seed_mlp on the 60k Fashion-MNIST training set, numerics only
#     (`trainsim train`; target: no slower than 0.142 s, the single-threaded figure before
#     batched numerics; the seed authors' C program needs 1.7-2.5 s), and the same epoch
#     with every op timed on adagp_ws180 in fast fidelity (`trainsim run`; target <= 1.2x);
#  2. the same for LeNet-5, batch 32 (targets: <= 2.5 s per epoch on 2 cores, >= 30% of the
#     all-core GEMM peak, `trainsim run` <= 1.2x), and its epoch on 1 thread;
#  3. peak memory of `trainsim run` after 1 and after 3 epochs of each (must not grow).
# Achieved GFLOP/s = 2 x the epoch's training multiply-adds (forward, backward-data and
# backward-weight of the dense and conv layers as the numerics compute them: timing.json
# `train_macs`) / its train seconds.
# Figures are medians of REPEATS runs of the training epoch (evaluation excluded); the load
# average before and after is printed because other processes on a shared machine slow runs.
#   tools/bench.sh [REPEATS]     (default 5; expects ./test.sh or ./run.sh to have set up)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TRAINSIM_BUILD:-$repo/build}"
bin="$build/trainsim"
repeats="${1:-5}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

json_number() {  # json_number KEY FILE: first numeric value of "KEY"
  sed -n "s/.*\"$1\": \([0-9.e+-]*\).*/\1/p" "$2" | head -n 1
}
# Median over $repeats of the epoch-1 train_seconds of `trainsim CMD ARGS...`; the last
# run's output stays in $tmp/run.
epoch_seconds() {
  local times=()
  for ((i = 0; i < repeats; i++)); do
    "$bin" "$@" --out "$tmp/run" --force --quiet >/dev/null
    times+=("$(json_number train_seconds "$tmp/run/timing.json")")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
load() { cut -d' ' -f1 /proc/loadavg; }

echo "trainsim training benchmark ($(nproc) cores, median of $repeats runs, training epoch only; load average $(load))"
peak="$("$build/gemm_peak")"
echo "$peak"
peak1=$(echo "$peak" | sed -n 's/^threads 1: \([0-9.]*\) GFLOP.*/\1/p')
peakn=$(echo "$peak" | tail -n 1 | sed -n 's/^threads [0-9]*: \([0-9.]*\) GFLOP.*/\1/p')

mlp=(configs/experiments/mlp_fashion.yaml)
t_train=$(cd "$repo" && epoch_seconds train "${mlp[@]}")
threads=$(json_number threads "$tmp/run/timing.json")
macs=$(json_number train_macs "$tmp/run/timing.json")
t_run=$(cd "$repo" && epoch_seconds run "${mlp[@]}" --set accelerator=adagp_ws180)
awk -v t="$t_train" -v r="$t_run" -v m="$macs" -v p="$peakn" -v th="$threads" 'BEGIN {
  g = 2 * m / t / 1e9
  printf "seed_mlp fashion-mnist 60k, batch 15: train %.3f s/epoch on %d thread(s) (target: no slower than 0.142 s, before batching: %.2fx; seed C program 1.7 s: %.1fx faster)\n", t, th, t / 0.142, 1.7 / t
  printf "                                      %.2f GFLOP/s = %.1f%% of the %d-thread GEMM peak\n", g, 100 * g / p, th
  printf "                                      run   %.3f s/epoch on adagp_ws180, fast: %.2fx of train (target <= 1.2x)\n", r, r / t }'

lenet=(configs/experiments/lenet5_mnist.yaml --set dataset.name=fashion-mnist --set training.epochs=1)
t_train=$(cd "$repo" && epoch_seconds train "${lenet[@]}")
threads=$(json_number threads "$tmp/run/timing.json")
macs=$(json_number train_macs "$tmp/run/timing.json")
t_one=$(cd "$repo" && epoch_seconds train "${lenet[@]}" --set training.threads=1)
t_run=$(cd "$repo" && epoch_seconds run "${lenet[@]}" --set accelerator=adagp_ws180)
awk -v t="$t_train" -v o="$t_one" -v r="$t_run" -v m="$macs" -v p="$peakn" -v p1="$peak1" \
  -v th="$threads" 'BEGIN {
  g = 2 * m / t / 1e9; g1 = 2 * m / o / 1e9
  printf "lenet5   fashion-mnist 60k, batch 32: train %.3f s/epoch on %d thread(s) (target <= 2.5 s: %.2fx of target; before batching 7.98 s: %.1fx faster)\n", t, th, t / 2.5, 7.98 / t
  printf "                                      %.1f GFLOP/s = %.1f%% of the %d-thread GEMM peak (aim >= 30%%); %.2f GMAC per epoch\n", g, 100 * g / p, th, m / 1e9
  printf "                                      1 thread %.3f s/epoch, %.1f GFLOP/s = %.1f%% of the 1-thread peak; %d threads are %.2fx faster\n", o, g1, 100 * g1 / p1, th, o / t
  printf "                                      run   %.3f s/epoch on adagp_ws180, fast: %.2fx of train (target <= 1.2x)\n", r, r / t }'

for net in mlp lenet; do
  if [[ $net == mlp ]]; then exp=(configs/experiments/mlp_fashion.yaml); else exp=("${lenet[@]}"); fi
  for epochs in 1 3; do
    (cd "$repo" && "$bin" run "${exp[@]}" --set "training.epochs=$epochs" \
      --out "$tmp/mem$net$epochs" --quiet >/dev/null)
  done
  awk -v n="$([[ $net == mlp ]] && echo seed_mlp || echo lenet5)" \
    -v a="$(json_number peak_rss_kib "$tmp/mem${net}1/timing.json")" \
    -v b="$(json_number peak_rss_kib "$tmp/mem${net}3/timing.json")" 'BEGIN {
    printf "peak memory of trainsim run (%s, fashion-mnist): 1 epoch %.1f MiB, 3 epochs %.1f MiB (%.3fx)\n", n, a / 1024, b / 1024, b / a }'
done
echo "load average at the end: $(load)"
