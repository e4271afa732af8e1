#!/usr/bin/env bash
# Sets up everything the main job needs (packages, the trainsim build, datasets) and runs it,
# training on the simulated accelerator (trainsim run):
#   ./run.sh [EXPERIMENT.yaml] [trainsim run options...]
# With no argument it runs configs/experiments/quickstart.yaml into runs/quickstart/,
# replacing the results of the previous ./run.sh (--force); with an experiment, an existing
# results directory is an error unless the options say --force.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$repo/tools/setup.sh" --main
bin="${TRAINSIM_BUILD:-$repo/build}/trainsim"
if (($# == 0)); then
  exec "$bin" run "$repo/configs/experiments/quickstart.yaml" --force
fi
exec "$bin" run "$@"
