#!/usr/bin/env bash
# Accelerator-model speed:
#  1. fast fidelity: `trainsim layer` for VGG13 layer 4 (28x28x128 -> 256, 3x3, pad 1) on an
#     8x8 weight-stationary array, whole process wall time (target < 50 ms; SCALE-Sim v2
#     needs ~574 s for the same layer on this machine);
#  2. cycle fidelity: simulated cycles per second of the clocked PE-array model on a 16x16
#     array for each dataflow (targets: >= 8 M cycles/s, 2 G PE-cycles/s, for ws, os and is;
#     >= 3 M for rs with the tiled memory model), on small_8x8's registers (1-word RFs) and,
#     for rs, also on eyeriss_like's register files (12 / 224 / 24 words); best of 3 runs.
#   tools/bench_layer.sh          (expects ./test.sh or ./run.sh to have built trainsim)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${TRAINSIM_BUILD:-$repo/build}/trainsim"

json_field() {  # json_field KEY < json  (first numeric value of "KEY": ...)
  sed -n "s/.*\"$1\": \([0-9.e+-]*\).*/\1/p" | head -n 1
}

echo "trainsim accelerator-model benchmark ($(nproc) cores)"
best=""
for _ in 1 2 3 4 5; do
  t0=$(date +%s%N)
  "$bin" layer --accel scalesim_default --array 8x8 --dataflow ws \
    --conv 28,28,128,256,3,3,1,1 --json >/dev/null
  t1=$(date +%s%N)
  ms=$(( (t1 - t0) / 1000000 ))
  if [[ -z "$best" || "$ms" -lt "$best" ]]; then best=$ms; fi
done
cycles=$("$bin" layer --accel scalesim_default --array 8x8 --dataflow ws \
  --conv 28,28,128,256,3,3,1,1 --json | json_field compute_cycles)
awk -v ms="$best" -v c="$cycles" 'BEGIN { printf "fast  VGG13 layer 4, 8x8 WS: %d ms per process (best of 5; target 50 ms: %.2fx of target); %d cycles; SCALE-Sim v2 ~574 s: %.0fx faster\n", ms, ms / 50, c, 574000 / (ms > 0 ? ms : 1) }'

cycle_rate() {  # cycle_rate LABEL TARGET_M ACCEL DATAFLOW SHAPE...
  local label="$1" target="$2" accel="$3" df="$4"
  shift 4
  local c w=""
  for _ in 1 2 3; do  # best of 3, as the fast figure is best of 5: the machine's noise is one-sided
    out=$("$bin" layer --accel "$accel" --array 16x16 --dataflow "$df" "$@" --fidelity cycle --json)
    c=$(json_field compute_cycles <<<"$out")
    local t
    t=$(json_field wall_seconds <<<"$out")
    if [[ -z "$w" ]] || awk -v a="$t" -v b="$w" 'BEGIN { exit !(a < b) }'; then w=$t; fi
  done
  awk -v l="$label" -v c="$c" -v w="$w" -v t="$target" 'BEGIN { printf "cycle %s 16x16: %d cycles in %.3f s = %.2f M cycles/s, %.2f G PE-cycles/s (target %g M: %.2fx)\n", l, c, w, c / w / 1e6, c / w * 256 / 1e9, t, c / w / (t * 1e6) }'
}
for df in ws os is; do cycle_rate "$df" 8 small_8x8 "$df" --gemm 2048,256,256; done
cycle_rate rs 3 small_8x8 rs --conv 56,56,16,32,3,3,1,1 --batch 4
cycle_rate "rs (eyeriss_like RFs)" 3 eyeriss_like rs --conv 56,56,16,32,3,3,1,1 --batch 4
