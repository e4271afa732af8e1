#!/usr/bin/env bash
# Energy per MAC of WS, OS, IS and RS on the five AlexNet conv layers, the comparison of
# Eyeriss (Chen, Emer, Sze, ISCA 2016, Fig. 10-11): batch 16, a 12x14 array, the same
# storage for every dataflow (configs/accelerators/eyeriss_like.yaml), priced with the
# Eyeriss normalized table (DRAM 200 : buffer 6 : NoC 2 : RF 1 : MAC 1).
# Layers are ungrouped (CONV2/4/5 of the original net are split in two groups).
#   tools/alexnet_energy.sh [ACCELERATOR]     (default eyeriss_like)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${TRAINSIM_BUILD:-$repo/build}/trainsim"
accel="${1:-eyeriss_like}"

layers=(
  "CONV1 227,227,3,96,11,11,4,0"
  "CONV2 27,27,96,256,5,5,1,2"
  "CONV3 13,13,256,384,3,3,1,1"
  "CONV4 13,13,384,384,3,3,1,1"
  "CONV5 13,13,384,256,3,3,1,1"
)
# Extracts "key": number inside the named top-level JSON object ("energy" or "stats").
field() { awk -v obj="\"$1\": {" -v key="\"$2\":" '
  index($0, obj) { inside = 1 } inside && index($0, key) { gsub(/[^0-9.e+-]/, "", $2); print $2; exit }' FS=': '; }

printf "AlexNet conv layers, batch 16, %s, Eyeriss normalized energy (MAC = 1)\n" "$accel"
printf "%-6s %-4s %14s %9s %8s %8s %8s %8s %8s\n" layer df MACs "E/MAC" "RF" "NoC" "buffer" "DRAM" "util%"
declare -A sum_e sum_m sum_d
for entry in "${layers[@]}"; do
  read -r name conv <<<"$entry"
  for df in ws os is rs; do
    out=$("$bin" layer --accel "$accel" --set energy=eyeriss_normalized --dataflow "$df" \
      --conv "$conv" --batch 16 --json)
    macs=$(field stats macs <<<"$out")
    total=$(field energy total <<<"$out")
    rf=$(field energy rf <<<"$out"); noc=$(field energy noc <<<"$out")
    buf=$(field energy buffer <<<"$out"); dram=$(field energy dram <<<"$out")
    util=$(field stats utilization <<<"$out")
    awk -v n="$name" -v d="$df" -v m="$macs" -v t="$total" -v rf="$rf" -v noc="$noc" \
      -v b="$buf" -v dr="$dram" -v u="$util" 'BEGIN {
      printf "%-6s %-4s %14.0f %9.3f %8.3f %8.3f %8.3f %8.3f %8.1f\n", n, d, m, t / m, rf / m, noc / m, b / m, dr / m, 100 * u }'
    sum_e[$df]=$(awk -v a="${sum_e[$df]:-0}" -v b="$total" 'BEGIN { printf "%.6e", a + b }')
    sum_d[$df]=$(awk -v a="${sum_d[$df]:-0}" -v b="$dram" 'BEGIN { printf "%.6e", a + b }')
    sum_m[$df]=$(awk -v a="${sum_m[$df]:-0}" -v b="$macs" 'BEGIN { printf "%.6e", a + b }')
  done
done
echo "all five layers: energy per MAC (total, and on-chip = without DRAM), relative to RS"
rs=$(awk -v e="${sum_e[rs]}" -v m="${sum_m[rs]}" 'BEGIN { print e / m }')
rs_chip=$(awk -v e="${sum_e[rs]}" -v d="${sum_d[rs]}" -v m="${sum_m[rs]}" 'BEGIN { print (e - d) / m }')
for df in ws os is rs; do
  awk -v d="$df" -v e="${sum_e[$df]}" -v dr="${sum_d[$df]}" -v m="${sum_m[$df]}" -v rs="$rs" \
    -v rc="$rs_chip" 'BEGIN {
    printf "  %-3s total %8.3f per MAC (%.2fx RS)   on-chip %7.3f per MAC (%.2fx RS)\n", d, e / m, (e / m) / rs, (e - dr) / m, ((e - dr) / m) / rc }'
done
