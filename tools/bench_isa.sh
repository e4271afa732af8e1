#!/usr/bin/env bash
# Training with and without the wide vector paths (docs/training.md, "Same bits on every
# x86-64"): runs each experiment on the native kernels (this build's -march=native: AVX-512 or
# AVX2), with TRAINSIM_KERNELS=avx2 (an AVX2 machine's kernels; where the CPU has AVX2 and FMA)
# and with TRAINSIM_KERNELS=baseline (the kernels built for plain x86-64: SSE2, every 8-float
# vector two SSE operations, multiply-adds in libm's fma), compares epochs.csv and stats.json
# with the native run's byte for byte and prints the time of each. Default: LeNet-5's five epochs on
# MNIST (the README's run; the baseline takes a few minutes) and the seed MLP's epoch.
#   --portable: also builds build-portable/ with -DTRAINSIM_NATIVE=OFF (everything, not only
#               the kernels, compiled for plain x86-64; a full build, tens of minutes) and
#               compares its runs too.
# Exits 1 if any pair of files differs.
#   tools/bench_isa.sh [--portable] [EXPERIMENT.yaml ...]
#                                (expects ./test.sh or ./run.sh to have set up)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TRAINSIM_BUILD:-$repo/build}"
portable=0
experiments=()
while (($#)); do
  case "$1" in
    --portable) portable=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bench_isa.sh: unknown option '$1' (usage: tools/bench_isa.sh [--portable] [EXPERIMENT.yaml ...])" >&2; exit 2 ;;
    *) experiments+=("$1"); shift ;;
  esac
done
((${#experiments[@]})) || experiments=(configs/experiments/lenet5_mnist.yaml configs/experiments/quickstart.yaml)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

builds=("native:$build/trainsim:")
if grep -q -w avx2 /proc/cpuinfo && grep -q -w fma /proc/cpuinfo; then
  builds+=("avx2:$build/trainsim:avx2")
fi
builds+=("baseline:$build/trainsim:baseline")
if ((portable)); then
  echo "building trainsim with -DTRAINSIM_NATIVE=OFF in $repo/build-portable (a full build)"
  cmake -S "$repo" -B "$repo/build-portable" -DCMAKE_BUILD_TYPE=Release -DTRAINSIM_NATIVE=OFF \
    -DTRAINSIM_BUILD_TESTS=OFF >"$tmp/portable.log" 2>&1 &&
    cmake --build "$repo/build-portable" --target trainsim -j "$(nproc)" >>"$tmp/portable.log" 2>&1 ||
    { cat "$tmp/portable.log" >&2; echo "bench_isa.sh: the portable build failed" >&2; exit 1; }
  builds+=("portable:$repo/build-portable/trainsim:")
fi

simd="$(grep -m1 -o -w -E 'avx512f' /proc/cpuinfo || grep -m1 -o -w -E 'avx2' /proc/cpuinfo || echo 'no AVX2')"
echo "trainsim with and without the wide vector paths ($(nproc) cores, ${simd^^}; load average $(cut -d' ' -f1 /proc/loadavg))"
status=0
for exp in "${experiments[@]}"; do
  name="$(basename "$exp" .yaml)"
  first=""
  for b in "${builds[@]}"; do
    IFS=: read -r label bin kernels <<<"$b"
    out="$tmp/$name-$label"
    t0=$(date +%s.%N)
    (cd "$repo" && TRAINSIM_KERNELS="$kernels" "$bin" train "$exp" --out "$out" --quiet >/dev/null)
    t1=$(date +%s.%N)
    acc="$(awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i }
                    END { printf "%.2f%%", 100 * $col["test_accuracy"] }' "$out/epochs.csv")"
    same=""
    if [[ -z "$first" ]]; then
      first="$out"
    else
      same="same bytes as native"
      for f in epochs.csv stats.json; do
        cmp -s "$first/$f" "$out/$f" || { same="DIFFERS from native ($f)"; status=1; }
      done
    fi
    awk -v n="$name" -v l="$label" -v a="$acc" -v t="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
      -v s="$same" 'BEGIN { printf "%-14s %-9s test accuracy %s, %7.1f s %s\n", n, l, a, t, s }'
  done
done
exit "$status"
