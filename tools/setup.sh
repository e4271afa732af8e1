#!/usr/bin/env bash
# Sets up everything trainsim needs on a Debian 12 machine, idempotently:
#   1. installs missing Debian packages (as root, or through sudo),
#   2. configures build/ (Release) and builds the targets asked for,
#   3. fetches the datasets into ${TRAINSIM_DATA:-data/}.
#   tools/setup.sh [--main]     --main: only what ./run.sh needs (trainsim and the dataset
#                               converter); default: everything, test suite included
# It says what it does before each long step; on a terminal the build shows its progress on
# one line. Quiet when everything is already there. Used by ./run.sh and ./test.sh.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TRAINSIM_BUILD:-$repo/build}"
targets=(all)
what="trainsim and its test suite"
case "${1:-}" in
  --main) targets=(trainsim mnist_json_to_idx) what="trainsim" ;;
  "") ;;
  *) echo "usage: tools/setup.sh [--main]" >&2; exit 2 ;;
esac
tty=0
[[ -t 1 ]] && tty=1

packages=(
  build-essential cmake pkg-config
  libsystemc-dev libyaml-cpp-dev catch2 libboost-dev libboost-program-options-dev
  libeigen3-dev nlohmann-json3-dev zlib1g-dev
  dataset-fashion-mnist nodejs npm python3-matplotlib openmpi-bin libopenmpi-dev
  python3-pybind11 python3-dev
)

missing=()
for p in "${packages[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
# npm may come from outside Debian (e.g. a Node.js install); any working npm will do.
if command -v npm >/dev/null 2>&1; then
  keep=()
  for p in "${missing[@]}"; do [[ "$p" == npm || "$p" == nodejs ]] || keep+=("$p"); done
  missing=("${keep[@]+"${keep[@]}"}")
fi

if ((${#missing[@]})); then
  sudo=""
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  echo "setup: installing ${#missing[@]} Debian package(s) (a few minutes): ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # apt's output is shown only if it fails (debconf chatters on stderr even with -qq).
  if ! log="$($sudo apt-get update -qq 2>&1 &&
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" 2>&1)"; then
    printf '%s\n' "$log" >&2
    echo "setup: apt-get failed installing ${missing[*]} (its output is above)" >&2
    exit 1
  fi
fi

# Configure once; later builds only recompile what changed.
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  echo "setup: configuring the build in $build (cmake)"
  if ! out="$(cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release 2>&1)"; then
    printf '%s\n' "$out" >&2
    echo "setup: cmake could not configure the build (its output is above)" >&2
    exit 1
  fi
fi
jobs="$(nproc 2>/dev/null || echo 2)"
if [[ ! -x "$build/trainsim" || ("${targets[0]}" == all && ! -x "$build/trainsim_tests") ]]; then
  echo "setup: building $what (first build: a few minutes on 2 cores)"
fi
log="$build/setup-build.log"
# On a terminal, every line cmake prints replaces the last one ("[ 42%] Building ...");
# elsewhere the build is silent. Either way its whole output is in the log, shown on failure.
status=0
if ((tty)); then
  cols="$(tput cols 2>/dev/null || echo 80)"
  set +e
  cmake --build "$build" -j "$jobs" --target "${targets[@]}" 2>&1 | tee "$log" |
    while IFS= read -r line; do
      [[ "$line" == *"] Building "* || "$line" == *"] Linking "* ]] || continue
      text="setup: building: $line"
      printf '\r\033[K%s' "${text:0:$((cols - 1))}"
    done
  status="${PIPESTATUS[0]}"
  set -e
  printf '\r\033[K'
else
  cmake --build "$build" -j "$jobs" --target "${targets[@]}" >"$log" 2>&1 || status=$?
fi
if [[ "$status" != 0 ]]; then
  cat "$log" >&2
  echo "setup: build failed (the compiler's output is above; also in $log)" >&2
  exit 1
fi

"$repo/tools/fetch_data.sh" "$build"
