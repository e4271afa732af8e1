#!/usr/bin/env bash
# Builds trainsim with AddressSanitizer + UndefinedBehaviorSanitizer (gcc's, from Debian's
# libasan8 / libubsan1, which build-essential already brings) in build-asan/ and runs the
# whole test suite under them. Every test and every trainsim process a test starts runs with
# the options of sim/core/sanitizer_defaults.cpp (leaks checked at exit, UBSan findings fatal).
#   tools/sanitize.sh [ctest options...]      e.g. tools/sanitize.sh -R config
# TRAINSIM_ASAN_BUILD overrides the build directory. Results: docs/validation.md.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TRAINSIM_ASAN_BUILD:-$repo/build-asan}"
jobs="$(nproc 2>/dev/null || echo 2)"

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  echo "sanitize: configuring $build (ASan + UBSan)"
  cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRAINSIM_SANITIZE=ON >/dev/null
fi
echo "sanitize: building $build (instrumented; the first build takes several minutes)"
nice -n 10 cmake --build "$build" -j "$jobs"
"$repo/tools/fetch_data.sh" "$build"
cd "$build"
exec nice -n 10 ctest --output-on-failure -j "$jobs" "$@"
