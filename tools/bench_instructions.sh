#!/usr/bin/env bash
# Instructions, not seconds: the 60-point configs/sweeps/vgg16_dataflows.yaml run with -j 1
# under valgrind's callgrind (every process: the sweep and its worker), for one build or two,
# with B's ratio to A and a check that their tables are identical. A shared host's speed
# drifts by a third within an hour (docs/sweeps.md), which hides a change of a few percent
# in wall time; instruction counts do not drift, so they say what a change to a point's
# path saves (they do not see cache misses or divisions' latency: confirm with
# tools/bench_sweep_ab.sh).
#   tools/bench_instructions.sh BUILD_A [BUILD_B]
#   tools/bench_instructions.sh --build DIR [REF]   (configure and build a portable trainsim
#                                                  of REF, default the checkout, into DIR)
# valgrind decodes no AVX-512, so the builds must be portable (cmake -DTRAINSIM_NATIVE=OFF);
# a -march=native build on an AVX-512 machine stops at its first such instruction. About
# 50x slower than a native run: 1-2 minutes a build.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sweep="$repo/configs/sweeps/vgg16_dataflows.yaml"

if ! command -v valgrind >/dev/null; then
  echo "bench_instructions: installing valgrind" >&2
  sudo_cmd=""
  [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get install -y -q valgrind >/dev/null
fi

if [[ "${1:-}" == "--build" ]]; then
  dir="${2:?bench_instructions: --build needs a directory}"
  src="$repo"
  if [[ -n "${3:-}" ]]; then
    src="$(mktemp -d)/src"
    git -C "$repo" worktree add -q --detach "$src" "$3"
  fi
  cmake -S "$src" -B "$dir" -DTRAINSIM_NATIVE=OFF -DTRAINSIM_BUILD_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$dir" -j "$(nproc)" --target trainsim >/dev/null
  echo "built $dir/trainsim"
  exit 0
fi
if [[ $# -lt 1 ]]; then
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# count NAME BUILD: total instructions of the sweep's processes; results in $tmp/NAME.
count() {
  local name="$1" bin="$2/trainsim"
  [[ -x "$bin" ]] || { echo "bench_instructions: no trainsim in $2" >&2; exit 2; }
  mkdir -p "$tmp/$name.cg"
  valgrind --tool=callgrind --trace-children=yes \
    --callgrind-out-file="$tmp/$name.cg/%p.out" "$bin" sweep "$sweep" -j 1 \
    --out "$tmp/$name" -q >"$tmp/$name.log" 2>&1 ||
    { echo "bench_instructions: the sweep failed under valgrind ($2):" >&2;
      tail -n 5 "$tmp/$name.log" >&2; exit 1; }
  local total=0 n
  for f in "$tmp/$name.cg"/*.out; do
    n=$(sed -n 's/^summary: \([0-9]*\).*/\1/p' "$f")
    total=$((total + ${n:-0}))
  done
  echo "$total"
}

a=$(count a "$1")
printf 'A %-40s %14d instructions\n' "$1" "$a"
if [[ $# -ge 2 ]]; then
  b=$(count b "$2")
  printf 'B %-40s %14d instructions\n' "$2" "$b"
  awk -v a="$a" -v b="$b" 'BEGIN { printf "B/A %.4f\n", b / a }'
  if cmp -s "$tmp/a/sweep.csv" "$tmp/b/sweep.csv"; then
    echo "tables identical"
  else
    echo "tables differ"
  fi
fi
