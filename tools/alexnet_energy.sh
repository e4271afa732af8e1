#!/usr/bin/env bash
# Eyeriss' dataflow comparison and DRAM figures on AlexNet's five conv layers (Chen, Emer,
# Sze, ISCA 2016; Chen et al., JSSC 2017): WS, OS, IS and RS on eyeriss_like (12x14 PEs,
# 108 KiB shared buffer) priced with the Eyeriss normalized table (DRAM 200 : buffer 6 :
# NoC 2 : RF 1 : MAC 1). CONV2, 4 and 5 are grouped (2 groups), as in the original AlexNet
# the chip ran. Each op is mapped for the least energy (`mapping.objective: energy`), as
# Eyeriss' mapper and nn_dataflow map them; later options override it.
#   tools/alexnet_energy.sh [BATCH] [ACCELERATOR] [trainsim layer options...]
#       (default batch 16 on eyeriss_like; e.g. `4`, `16 eyeriss_like --memory scalesim`, or
#       `16 eyeriss_like --set mapping.objective=time`)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${TRAINSIM_BUILD:-$repo/build}/trainsim"
batch="${1:-16}"
accel="${2:-eyeriss_like}"
shift 2 2>/dev/null || shift $# 2>/dev/null || true

# name, --conv H,W,C,F,R,S,stride,pad, groups, nn_dataflow's RS DRAM energy per MAC (batch 16)
layers=(
  "CONV1 227,227,3,96,11,11,4,0 1 1.46"
  "CONV2 27,27,96,256,5,5,1,2 2 0.63"
  "CONV3 13,13,256,384,3,3,1,1 1 0.85"
  "CONV4 13,13,384,384,3,3,1,1 2 0.88"
  "CONV5 13,13,384,256,3,3,1,1 2 0.88"
)
# `jq`-free JSON reading: python3 is on every machine trainsim sets up.
read_json() {
  python3 -c 'import json, sys
j = json.load(sys.stdin); s, e = j["stats"], j["energy"]
print(s["macs"], e["total"], e["rf"], e["noc"], e["buffer"], e["dram"], s["utilization"],
      s["dram_bytes"] // 2)'
}

printf "AlexNet conv layers, batch %s, %s, Eyeriss normalized energy (MAC = 1)\n" "$batch" "$accel"
printf "%-6s %-4s %14s %9s %8s %8s %8s %8s %7s %11s\n" layer df MACs "E/MAC" RF NoC buffer \
  DRAM "util%" "DRAM acc/MAC"
declare -A sum_e sum_m sum_d sum_w
for entry in "${layers[@]}"; do
  read -r name conv groups ref <<<"$entry"
  for df in ws os is rs; do
    read -r macs total rf noc buf dram util words < <("$bin" layer --accel "$accel" \
      --set energy=eyeriss_normalized --set mapping.objective=energy --dataflow "$df" \
      --conv "$conv" --groups "$groups" --batch "$batch" --json "$@" | read_json)
    note=""
    if [[ "$df" == rs && "$batch" == 16 ]]; then
      note=$(awk -v d="$dram" -v m="$macs" -v r="$ref" 'BEGIN { printf "  (nn_dataflow RS DRAM/MAC %.2f: %.2fx)", r, (d / m) / r }')
    fi
    awk -v n="$name" -v d="$df" -v m="$macs" -v t="$total" -v rf="$rf" -v noc="$noc" \
      -v b="$buf" -v dr="$dram" -v u="$util" -v w="$words" -v note="$note" 'BEGIN {
      printf "%-6s %-4s %14.0f %9.3f %8.3f %8.3f %8.3f %8.3f %7.1f %11.5f%s\n", n, d, m, t / m, rf / m, noc / m, b / m, dr / m, 100 * u, w / m, note }'
    sum_e[$df]=$(awk -v a="${sum_e[$df]:-0}" -v b="$total" 'BEGIN { printf "%.6e", a + b }')
    sum_d[$df]=$(awk -v a="${sum_d[$df]:-0}" -v b="$dram" 'BEGIN { printf "%.6e", a + b }')
    sum_m[$df]=$(awk -v a="${sum_m[$df]:-0}" -v b="$macs" 'BEGIN { printf "%.6e", a + b }')
    sum_w[$df]=$(awk -v a="${sum_w[$df]:-0}" -v b="$words" 'BEGIN { printf "%.6e", a + b }')
  done
done
echo "all five layers: energy per MAC (total, and on-chip = without DRAM), relative to RS;"
echo "DRAM accesses (16-bit words) per MAC (Eyeriss chip, batch 4, with compression: 0.0029)"
rs=$(awk -v e="${sum_e[rs]}" -v m="${sum_m[rs]}" 'BEGIN { print e / m }')
rs_chip=$(awk -v e="${sum_e[rs]}" -v d="${sum_d[rs]}" -v m="${sum_m[rs]}" 'BEGIN { print (e - d) / m }')
for df in ws os is rs; do
  awk -v d="$df" -v e="${sum_e[$df]}" -v dr="${sum_d[$df]}" -v m="${sum_m[$df]}" -v rs="$rs" \
    -v rc="$rs_chip" -v w="${sum_w[$df]}" 'BEGIN {
    printf "  %-3s total %8.3f per MAC (%.2fx RS)   on-chip %7.3f per MAC (%.2fx RS)   DRAM %.5f accesses per MAC, %4.1f%% of the energy\n", d, e / m, (e / m) / rs, (e - dr) / m, ((e - dr) / m) / rc, w / m, 100 * dr / e }'
done
