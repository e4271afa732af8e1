#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, ASan + UBSan) in build-fuzz/ and runs
# one of them, niced so that it only takes idle CPU.
#   tools/fuzz.sh                          build, then the short CTest runs of every target
#   tools/fuzz.sh TARGET [libFuzzer options...]
#       e.g. tools/fuzz.sh experiment -runs=10000000
#            tools/fuzz.sh idx -max_total_time=600 -jobs=2 -workers=2
# Targets: experiment, overrides, idx, onnx (tests/fuzz/targets.h). A run reads the committed
# seeds (tests/fuzz/corpus/TARGET, and configs/experiments for experiment) and keeps what it
# learns in build-fuzz/corpus/TARGET; crash inputs land in build-fuzz/crashes/TARGET/.
# A crash input belongs in tests/fuzz/corpus/TARGET once fixed: the normal suite replays it.
# Installs clang-14 and libclang-rt-14-dev (libFuzzer) with apt if they are missing; the
# normal build does not need them. TRAINSIM_FUZZ_BUILD overrides the build directory.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TRAINSIM_FUZZ_BUILD:-$repo/build-fuzz}"
jobs="$(nproc 2>/dev/null || echo 2)"
targets=(experiment overrides idx onnx)

if [[ "${1:-}" == -h || "${1:-}" == --help ]]; then
  sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 0
fi
target="${1:-}"
if [[ -n "$target" && ! " ${targets[*]} " == *" $target "* ]]; then
  echo "fuzz.sh: unknown target '$target' (targets: ${targets[*]})" >&2
  exit 2
fi
shift || true

missing=()
for p in clang-14 libclang-rt-14-dev; do
  [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" == "install ok installed" ]] ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [[ "$(id -u)" == 0 ]] || sudo="sudo"
  echo "fuzz.sh: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  echo "fuzz.sh: configuring $build (clang-14, libFuzzer, ASan + UBSan)"
  # Without the Catch2 suite: tools/sanitize.sh runs it under the sanitizers.
  CXX=clang++-14 CC=clang-14 cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTRAINSIM_FUZZ=ON -DTRAINSIM_BUILD_TESTS=OFF >/dev/null
fi
echo "fuzz.sh: building $build (the first build takes several minutes)"
nice -n 19 cmake --build "$build" -j "$jobs"

if [[ -z "$target" ]]; then
  cd "$build"
  exec nice -n 19 ctest --output-on-failure -R '^fuzz_'
fi

seeds=("$repo/tests/fuzz/corpus/$target")
[[ "$target" == experiment ]] && seeds+=("$repo/configs/experiments")
dict=()
[[ -f "$repo/tests/fuzz/$target.dict" ]] && dict=("-dict=$repo/tests/fuzz/$target.dict")
mkdir -p "$build/corpus/$target" "$build/crashes/$target"
# Allocation stacks are not recorded: ASan's store of them grows with every new one and had
# slowed a run to 60% after 50 minutes. Memory errors are still caught; to see where a crash
# input's memory was allocated, run it again with ASAN_OPTIONS=malloc_context_size=30.
export ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=0}"
# -timeout=300: the fuzzer is niced to idle CPU, and beside a full build it can wait tens of
# seconds for an input of half a second (a 30 s limit once ended a run on such an input); a
# real hang still stops it, five minutes in. -timeout=N after the target overrides it.
exec nice -n 19 "$build/fuzz_$target" -max_len=8192 -timeout=300 "${dict[@]}" \
  -artifact_prefix="$build/crashes/$target/" "$@" "$build/corpus/$target" "${seeds[@]}"
