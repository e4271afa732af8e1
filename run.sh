#!/usr/bin/env bash
# Sets everything up (packages, build, datasets) and runs the main job, training on the
# simulated accelerator (trainsim run):
#   ./run.sh [EXPERIMENT.yaml] [trainsim run options...]
# With no argument it runs configs/experiments/quickstart.yaml.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$repo/tools/setup.sh" --main
experiment="${1:-$repo/configs/experiments/quickstart.yaml}"
shift || true
exec "${TRAINSIM_BUILD:-$repo/build}/trainsim" run "$experiment" "$@"
