#!/usr/bin/env bash
# Training speed, numerics only and on the simulated accelerator, against this machine's
# fp32 GEMM peak (a roofline's compute ceiling):
#  0. the peak: an Eigen 1024^3 GEMM on 1 thread and on all cores (build/gemm_peak, a
#     BLAS-grade kernel on the thread pool the numerics use);
#  1. one epoch of seed_mlp on the 60k Fashion-MNIST training set, numerics only
#     (`trainsim train`; target: no slower than 0.142 s, the single-threaded figure before
#     batched numerics; the seed authors' C program needs 1.7-2.5 s), and the same epoch
#     with every op timed on adagp_ws180 in fast fidelity (`trainsim run`; target <= 1.2x);
#  2. the same for LeNet-5, batch 32 (targets: <= 2.5 s per epoch on 2 cores, >= 30% of the
#     all-core GEMM peak, `trainsim run` <= 1.2x), and its epoch on 1 thread;
#  3. peak memory of `trainsim run` after 1 and after 3 epochs of each (must not grow);
#  4. with --baseline REV: the same numerics-only epochs by trainsim as of git revision REV,
#     built in a temporary worktree, on this machine: the absolute targets above were set on
#     a 2-core Intel Xeon with AVX-512, and the speed-up over a revision measured side by side
#     is what carries to another machine (REV 1d3782b: the per-sample convolutions, before
#     batching; its 7.98 s and 0.142 s are the targets' "before" figures).
#     --baseline-build DIR instead runs an existing build of another checkout (DIR holds its
#     trainsim and CMakeCache.txt), built with the same flags, without building anything.
# Achieved GFLOP/s = 2 x the epoch's training multiply-adds (forward, backward-data and
# backward-weight of the dense and conv layers as the numerics compute them: timing.json
# `train_macs`) / its train seconds.
# Figures are medians of REPEATS runs of the training epoch (evaluation excluded); the load
# average before and after is printed because other processes on a shared machine slow runs.
#   tools/bench.sh [REPEATS] [--baseline REV | --baseline-build DIR]
#                                (REPEATS default 5; expects ./test.sh or ./run.sh to have set up)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TRAINSIM_BUILD:-$repo/build}"
bin="$build/trainsim"
repeats=5
baseline=""
baseline_build=""
while (($#)); do
  case "$1" in
    --baseline) baseline="${2:?--baseline needs a git revision}"; shift 2 ;;
    --baseline-build) baseline_build="${2:?--baseline-build needs a build directory}"; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *[!0-9]* | "") echo "bench.sh: unknown argument '$1' (usage: tools/bench.sh [REPEATS] [--baseline REV | --baseline-build DIR])" >&2; exit 2 ;;
    *) repeats="$1"; shift ;;
  esac
done
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
    rm -rf "$tmp/run"  # no --force: older revisions (--baseline) do not have it
    "$bin" "$@" --out "$tmp/run" --quiet >/dev/null
    times+=("$(json_number train_seconds "$tmp/run/timing.json")")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
load() { cut -d' ' -f1 /proc/loadavg; }

simd="$(grep -m1 -o -w -E 'avx512f' /proc/cpuinfo || grep -m1 -o -w -E 'avx2' /proc/cpuinfo || echo 'no AVX2')"
cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "trainsim training benchmark ($(nproc) cores, ${cpu:-unknown CPU}, ${simd^^}; median of $repeats runs, training epoch only; load average $(load))"
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
if [[ -n "$baseline" || -n "$baseline_build" ]]; then
  if [[ -n "$baseline_build" ]]; then
    # Another checkout's build: its trainsim, run from its source tree (configs) on this
    # checkout's data (TRAINSIM_DATA).
    base="$(cd "$baseline_build" && pwd)/trainsim"
    src="$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$baseline_build/CMakeCache.txt" 2>/dev/null)"
    [[ -x "$base" && -d "$src" ]] ||
      { echo "bench.sh: '$baseline_build' is not a build directory with a trainsim" >&2; exit 2; }
    rev="$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo "$baseline_build")"
  else
    # The revision's trainsim, built beside this one (Release, this machine's flags), run on
    # the same two numerics-only epochs with the same data.
    rev="$(git -C "$repo" rev-parse --short "$baseline^{commit}")" ||
      { echo "bench.sh: no git revision '$baseline'" >&2; exit 2; }
    echo "building trainsim as of $rev in a temporary worktree (a few minutes)"
    git -C "$repo" worktree add --detach -q "$tmp/base" "$rev"
    trap 'git -C "$repo" worktree remove --force "$tmp/base" 2>/dev/null; rm -rf "$tmp"' EXIT
    cmake -S "$tmp/base" -B "$tmp/base/build" -DCMAKE_BUILD_TYPE=Release >"$tmp/base.log" 2>&1 &&
      cmake --build "$tmp/base/build" --target trainsim -j "$(nproc)" >>"$tmp/base.log" 2>&1 ||
      { cat "$tmp/base.log" >&2; echo "bench.sh: building $rev failed" >&2; exit 1; }
    ln -s "$(cd "$repo" && pwd)/data" "$tmp/base/data"
    base="$tmp/base/build/trainsim"
    src="$tmp/base"
  fi
  # Alternately, run by run, so that a change in the machine's load hits both builds alike.
  both_seconds() {  # both_seconds ARGS...: "this-median base-median" of `train ARGS`
    local ours=() theirs=()
    for ((i = 0; i < repeats; i++)); do
      rm -rf "$tmp/run" && (cd "$repo" && "$bin" train "$@" --out "$tmp/run" --quiet >/dev/null)
      ours+=("$(json_number train_seconds "$tmp/run/timing.json")")
      rm -rf "$tmp/run" && (cd "$src" && TRAINSIM_DATA="$(cd "$repo" && pwd)/data" "$base" train "$@" --out "$tmp/run" --quiet >/dev/null)
      theirs+=("$(json_number train_seconds "$tmp/run/timing.json")")
    done
    echo "$(printf '%s\n' "${ours[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" \
      "$(printf '%s\n' "${theirs[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
  }
  read -r new_mlp old_mlp < <(both_seconds "${mlp[@]}")
  read -r new_lenet old_lenet < <(both_seconds "${lenet[@]}")
  awk -v r="$rev" -v om="$old_mlp" -v nm="$new_mlp" -v ol="$old_lenet" -v nl="$new_lenet" 'BEGIN {
    printf "against %s on this machine (numerics-only epochs, medians, the two builds run alternately):\n", r
    printf "  seed_mlp: %s %.3f s, this build %.3f s: %.2fx (target: no slower, >= 1.00x)\n", r, om, nm, om / nm
    printf "  lenet5:   %s %.3f s, this build %.3f s: %.2fx (the 2.5 s target is 3.19x of 7.98 s)\n", r, ol, nl, ol / nl }'
fi
echo "load average at the end: $(load)"
