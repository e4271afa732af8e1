#!/usr/bin/env bash
# Sets up everything trainsim needs on a Debian 12 machine, idempotently:
#   1. installs missing Debian packages (as root, or through sudo),
#   2. configures and builds build/ (Release),
#   3. fetches the datasets into ${TRAINSIM_DATA:-data/}.
# Quiet when everything is already there. Used by ./run.sh and ./test.sh.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TRAINSIM_BUILD:-$repo/build}"

packages=(
  build-essential cmake pkg-config
  libsystemc-dev libyaml-cpp-dev catch2 libboost-dev libboost-program-options-dev
  libeigen3-dev nlohmann-json3-dev zlib1g-dev
  dataset-fashion-mnist nodejs npm python3-matplotlib
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
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # apt's output is shown only if it fails (debconf chatters on stderr even with -qq).
  if ! log="$($sudo apt-get update -qq 2>&1 &&
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" 2>&1)"; then
    printf '%s\n' "$log" >&2
    echo "setup: apt-get failed installing ${missing[*]}" >&2
    exit 1
  fi
fi

# Configure once; later builds only recompile what changed.
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
jobs="$(nproc 2>/dev/null || echo 2)"
if ! out="$(cmake --build "$build" -j "$jobs" 2>&1)"; then
  printf '%s\n' "$out" >&2
  echo "setup: build failed" >&2
  exit 1
fi

"$repo/tools/fetch_data.sh" "$build"
