#!/usr/bin/env bash
# Sets everything up (packages, build, datasets) and runs the whole test suite.
#   ./test.sh [ctest options...]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$repo/tools/setup.sh"
cd "${TRAINSIM_BUILD:-$repo/build}"
exec ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)" "$@"
