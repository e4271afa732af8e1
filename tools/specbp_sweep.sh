#!/usr/bin/env bash
# How much speculative backprop buys as a function of its second unit: one epoch of an
# experiment with bp-sample (the baseline: the same per-sample steps without speculation) and
# with specbp at THRESHOLD on second arrays of several sizes, and on the shared main array.
# Prints end-to-end and per-step speedups over bp-sample.
#   tools/specbp_sweep.sh [EXPERIMENT.yaml] [THRESHOLD] [STORE] [--set KEY=VALUE ...]
#   (default configs/experiments/quickstart.yaml, threshold 0.25, store buffer; a per-label
#   store too big for the buffer, e.g. LeNet-5's, needs STORE dram)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${TRAINSIM_BUILD:-$repo/build}/trainsim"
exp="${1:-$repo/configs/experiments/quickstart.yaml}"
threshold="${2:-0.25}"
store="${3:-buffer}"
shift $(( $# > 3 ? 3 : $# ))
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# run NAME TECHNIQUE -> prints "elapsed_cycles step_cycles hit_rate"
run() {
  "$bin" run "$exp" --out "$tmp/$1" --quiet --set "technique=$2" --set training.epochs=1 \
    "${@:3}" >/dev/null
  # Columns by name: epochs.csv opens with the common columns, then the run's extras.
  awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i }
           NR == 2 { h = $col["hit_rate"]; print $col["cycles"], $col["step_cycles"], (h == "" ? "-" : h) }' \
    "$tmp/$1/epochs.csv"
}
read -r base_c base_s _ < <(run base bp-sample "$@")
printf "%s, threshold %s, store in %s, one epoch; baseline bp-sample: %.0f cycles, %.1f cycles per step\n" \
  "$(basename "$exp")" "$threshold" "$store" "$base_c" "$base_s"
printf "%-22s %14s %12s %12s %10s\n" "second unit" cycles "speedup" "step x" "hit rate"
for unit in 2x2 4x4 6x6 8x8 12x15 16x16 24x30 shared; do
  if [[ "$unit" == shared ]]; then
    tech="{kind: specbp, threshold: $threshold, unit: {array: shared}, store: $store}"
    label="shared main array"
  else
    tech="{kind: specbp, threshold: $threshold, unit: {rows: ${unit%x*}, cols: ${unit#*x}}, store: $store}"
    label="own ${unit} array"
  fi
  read -r c s h < <(run "u$unit" "$tech" "$@")
  awk -v l="$label" -v c="$c" -v s="$s" -v h="$h" -v bc="$base_c" -v bs="$base_s" 'BEGIN {
    printf "%-22s %14.0f %11.3fx %11.3fx %10s\n", l, c, bc / c, bs / s, h }'
done
