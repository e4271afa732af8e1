#!/usr/bin/env bash
# Two builds of trainsim on the sweeps of tools/bench_sweep.sh, run alternately (A, B, A, B,
# ...) so that a shared host's drift over minutes weighs on both alike: the 60-point
# configs/sweeps/vgg16_dataflows.yaml ROUNDS times each and the 1,200-point
# configs/sweeps/vgg16_dataflows_techniques.yaml ceil(ROUNDS / 2) times each, every run from
# scratch with -j 2, each into a new directory (all removed at the end). Prints each build's
# mean wall and CPU (user + system) seconds and B's ratios to A, and checks that the two
# builds' tables are identical.
#   tools/bench_sweep_ab.sh BUILD_A BUILD_B [ROUNDS]   (build directories; default 4 rounds)
# e.g. a worktree of the last commit built beside this one:
#   git worktree add /tmp/wt HEAD~1 && cmake -S /tmp/wt -B /tmp/wt/build && \
#     cmake --build /tmp/wt/build -j 2 --target trainsim
#   tools/bench_sweep_ab.sh /tmp/wt/build build 6
set -euo pipefail
if [[ $# -lt 2 ]]; then
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
a="$1/trainsim"
b="$2/trainsim"
rounds="${3:-4}"
for bin in "$a" "$b"; do
  [[ -x "$bin" ]] || { echo "bench_sweep_ab: no trainsim in $(dirname "$bin")" >&2; exit 2; }
done
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
. "$repo/tools/bench_lib.sh"

# Runs `sweep` with build $1 on $2 into a new directory (bench_lib.sh's fresh_run) that
# $tmp/$3 then links to; prints "wall cpu".
one() { fresh_run "$tmp" "$3" "$1" sweep "$2" -j 2; }

# Alternates the builds on one sweep $2 for $1 rounds; prints both means and B's ratios.
compare() {
  local rounds="$1" sweep="$2" label="$3" n="$4"
  local wa=0 ca=0 wb=0 cb=0 r
  for ((r = 0; r < rounds; r++)); do
    read -r w c < <(one "$a" "$sweep" A)
    wa=$(awk -v s="$wa" -v x="$w" 'BEGIN { print s + x }')
    ca=$(awk -v s="$ca" -v x="$c" 'BEGIN { print s + x }')
    read -r w c < <(one "$b" "$sweep" B)
    wb=$(awk -v s="$wb" -v x="$w" 'BEGIN { print s + x }')
    cb=$(awk -v s="$cb" -v x="$c" 'BEGIN { print s + x }')
  done
  cmp -s "$tmp/A/sweep.csv" "$tmp/B/sweep.csv" || echo "$label: the two builds' tables differ"
  awk -v l="$label" -v n="$n" -v r="$rounds" -v wa="$wa" -v ca="$ca" -v wb="$wb" -v cb="$cb" \
    'BEGIN {
       printf "%s, %d rounds: A %.2f s (%.1f points/s, CPU %.2f s), B %.2f s (%.1f points/s, CPU %.2f s): B/A wall %.3f, CPU %.3f\n",
         l, r, wa / r, n * r / wa, ca / r, wb / r, n * r / wb, cb / r, wb / wa, cb / ca
     }'
}

echo "load average before: $(cut -d' ' -f1 /proc/loadavg)"
compare "$rounds" "$repo/configs/sweeps/vgg16_dataflows.yaml" "60 points" 60
compare $(((rounds + 1) / 2)) "$repo/configs/sweeps/vgg16_dataflows_techniques.yaml" \
  "1,200 points" 1200
echo "load average after: $(cut -d' ' -f1 /proc/loadavg)"
