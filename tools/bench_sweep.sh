#!/usr/bin/env bash
# Speed of `trainsim sweep` (docs/sweeps.md): the 60-point configs/sweeps/vgg16_dataflows.yaml
# (VGG-16 on CIFAR-10, shape only, 4 dataflows x 5 arrays x 3 buffers), run
#   1. with -j 1 and -j 2 (local process pool; target: -j 2 >= 1.7x faster on 2 cores), and
#   2. under mpirun with 1 and 2 ranks (target: 2 ranks >= 1.7x faster),
# each from scratch, medians of REPEATS; also checks that all four tables are identical.
#   tools/bench_sweep.sh [REPEATS]   (default 3; expects ./test.sh or ./run.sh to have set up)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TRAINSIM_BUILD:-$repo/build}"
bin="$build/trainsim"
repeats="${1:-3}"
sweep="$repo/configs/sweeps/vgg16_dataflows.yaml"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# Median wall seconds of `"$@" --out DIR` over $repeats fresh runs; the last table stays in $tmp/$1.
wall() {
  local name="$1"
  shift
  local times=()
  for ((i = 0; i < repeats; i++)); do
    rm -rf "$tmp/$name"
    local t0 t1
    t0=$(date +%s.%N)
    "$@" --out "$tmp/$name" -q >/dev/null 2>&1
    t1=$(date +%s.%N)
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo "load average before: $(cut -d' ' -f1 /proc/loadavg)"
j1=$(wall j1 "$bin" sweep "$sweep" -j 1)
j2=$(wall j2 "$bin" sweep "$sweep" -j 2)
printf 'local pool: -j 1 %6.2f s, -j 2 %6.2f s: %sx (target >= 1.7x)\n' "$j1" "$j2" "$(ratio "$j1" "$j2")"
if command -v mpirun >/dev/null; then
  r1=$(wall r1 mpirun -n 1 "$bin" sweep "$sweep" --mpi)
  r2=$(wall r2 mpirun -n 2 "$bin" sweep "$sweep" --mpi)
  printf 'MPI:        1 rank %6.2f s, 2 ranks %6.2f s: %sx (target >= 1.7x)\n' "$r1" "$r2" \
    "$(ratio "$r1" "$r2")"
  for t in j2 r1 r2; do
    cmp -s "$tmp/j1/sweep.csv" "$tmp/$t/sweep.csv" || echo "tables differ: j1 and $t"
  done
else
  echo "MPI: mpirun not found (tools/setup.sh installs openmpi-bin)"
fi
echo "load average after: $(cut -d' ' -f1 /proc/loadavg)"
