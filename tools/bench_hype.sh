#!/usr/bin/env bash
# Speed of Hype-training runs (docs/benchmarks.md, "Hype-training"): the whole `trainsim run`
# process that builds NETWORK's op DAG, characterizes it on a V100 and three S10s, schedules
# one iteration under the energy policy and under gpu-only, and times a run of ITERATIONS
# iterations (shape only; the dataset limited to ITERATIONS batches), for the energy and the
# dvfs policies (the latter runs the iteration until the clock controller's level repeats).
# Target (issue 17): under 10 s for BERT-Large, 1,000 iterations. Median of REPEATS runs.
#   tools/bench_hype.sh [NETWORK] [REPEATS] [ITERATIONS]
#   (defaults: bert_large_squad 3 1000; expects ./test.sh or ./run.sh to have set up)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${TRAINSIM_BUILD:-$repo/build}/trainsim"
network="${1:-bert_large_squad}"
repeats="${2:-3}"
iterations="${3:-1000}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
exp="$repo/configs/experiments/hype_zoo.yaml"
# The network's own dataset and batch: BERT-Large on SQuAD at 10 (the paper's), the rest 256.
case "$network" in
  bert*) data=squad batch=10 ;;
  dcgan*) data=celeba batch=256 ;;
  *) data=imagenet batch=256 ;;
esac
sets=(--set "network=$network" --set "dataset.name=$data" --set "training.batch_size=$batch"
  --set "dataset.train_limit=$((batch * iterations))")
. "$repo/tools/bench_lib.sh"

echo "load average before: $(cut -d' ' -f1 /proc/loadavg)"
"$bin" run "$exp" "${sets[@]}" --out "$tmp/probe" --force --quiet >/dev/null
ops=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['ops_per_iteration'])" \
  "$tmp/probe/stats.json")
energy=$(median_wall "$bin" run "$exp" "${sets[@]}" --out "$tmp/e" --force --quiet)
dvfs=$(median_wall "$bin" run "$exp" "${sets[@]}" --set hype.policy=dvfs --set hype.power_cap_w=230 \
  --out "$tmp/d" --force --quiet)
printf '%s, %d ops per iteration, %d iterations of batch %d:\n' "$network" "$ops" \
  "$iterations" "$batch"
printf '  energy policy (and gpu-only):     %6.2f s  (target < 10 s)\n' "$energy"
printf '  dvfs policy at 230 W:             %6.2f s  (target < 10 s)\n' "$dvfs"
