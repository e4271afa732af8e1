#!/usr/bin/env bash
# Scale of `trainsim sweep` (docs/sweeps.md, "Measured"): a sweep of N points of the seed MLP
# (shape only, Fashion-MNIST's 2,000-sample subset, small_8x8) over training.epochs x
# training.seed x training.optimizer.lr, so that every point after a worker's first finds its
# ops in the worker's cost memo and the sweep's own bookkeeping is what grows with N. Prints the wall time,
# points per second, and the peak resident memory of the sweep process and of its largest
# worker; then stops a second sweep of the same points with SIGINT midway, resumes it and
# checks that its table equals the uninterrupted one.
#   tools/bench_sweep_scale.sh [N]   (default 10000; expects ./test.sh or ./run.sh to have set up)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${TRAINSIM_BUILD:-$repo/build}/trainsim"
n="${1:-10000}"
jobs="${JOBS:-2}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Ten epoch counts (1-10), 100 seeds and as many learning rates (which a shape-only run does
# not use) as the points need: every axis stays short, so the sweep file, which the sweep
# parses whole, is about the same size at 10,000 and 100,000 points, and a point's files
# stay small (a sweep of 1,000-epoch points wrote 75 GB by 45,000 points).
epochs=10
seeds=100
rates=$(((n + epochs * seeds - 1) / (epochs * seeds)))
cat >"$tmp/exp.yaml" <<EOF
name: scale
network: seed_mlp
numerics: none
dataset: {name: fashion-mnist, train_limit: 2000, test_limit: 100}
training: {epochs: 1, batch_size: 32}
accelerator: small_8x8
EOF
{
  echo "experiment: exp.yaml"
  echo "axes:"
  echo "  - {key: training.epochs, values: [$(seq -s, 1 "$epochs")]}"
  echo "  - {key: training.seed, values: [$(seq -s, 1 "$seeds")]}"
  echo "  - {key: training.optimizer.lr, values: [$(seq -f '%ge-4' -s, 1 "$rates")]}"
} >"$tmp/sweep.yaml"
points=$((epochs * seeds * rates))

# Runs the sweep into $1 (extra arguments after it), sampling the peak RSS (VmHWM) of the
# sweep process and of every worker it starts; prints "seconds sweep_kib worker_kib".
run_sampled() {
  local out="$1"
  shift
  local t0 t1 pid sweep_kib=0 worker_kib=0
  t0=$(date +%s.%N)
  "$bin" sweep "$tmp/sweep.yaml" --out "$out" -j "$jobs" -q --no-report "$@" >/dev/null 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    local v
    v=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    ((v > sweep_kib)) && sweep_kib=$v
    for c in $(pgrep -P "$pid" 2>/dev/null); do
      v=$(awk '/VmHWM/ {print $2}' "/proc/$c/status" 2>/dev/null || echo 0)
      ((v > worker_kib)) && worker_kib=$v
    done
    sleep 0.5
  done
  wait "$pid" || true
  t1=$(date +%s.%N)
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') $sweep_kib $worker_kib"
}

echo "sweep of $points points (seed MLP shape only, $epochs epoch values x $seeds seeds x $rates learning rates), -j $jobs"
read -r secs sweep_kib worker_kib < <(run_sampled "$tmp/whole")
awk -v n="$points" -v t="$secs" -v s="$sweep_kib" -v w="$worker_kib" 'BEGIN {
  printf "whole:   %.1f s, %.1f points/s; peak RSS: sweep %.1f MB, largest worker %.1f MB\n",
    t, n / t, s / 1024, w / 1024 }'
rows=$(($(wc -l <"$tmp/whole/sweep.csv") - 1))
[[ "$rows" == "$points" ]] || echo "whole: $rows rows, not $points"
# Only the table is compared: the points' directories go before the second sweep writes its
# own (a 100,000-point sweep writes several GB).
cp "$tmp/whole/sweep.csv" "$tmp/whole.csv"
rm -rf "$tmp/whole"

# The same points, stopped by SIGINT after half of them and run again.
TRAINSIM_TEST_SWEEP_INTERRUPT_AFTER=$((points / 2)) \
  "$bin" sweep "$tmp/sweep.yaml" --out "$tmp/resumed" -j "$jobs" -q --no-report >/dev/null 2>&1 &&
  echo "interrupted sweep exited 0" || true
done_before=$(($(wc -l <"$tmp/resumed/sweep.csv") - 1))
"$bin" sweep "$tmp/sweep.yaml" --out "$tmp/resumed" -j "$jobs" -q --no-report >/dev/null 2>&1
if cmp -s "$tmp/whole.csv" "$tmp/resumed/sweep.csv"; then
  echo "resumed: stopped after $done_before points, finished when run again; same table"
else
  echo "resumed: tables differ"
fi
