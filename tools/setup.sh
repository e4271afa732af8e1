#!/usr/bin/env bash
# Sets up everything trainsim needs on a Debian 12 machine, idempotently:
#   1. installs missing Debian packages (as root, or through sudo),
#   2. configures build/ (Release) and builds the targets asked for,
#   3. fetches the datasets into ${TRAINSIM_DATA:-data/}.
#   tools/setup.sh [--main]     --main: only what ./run.sh and the README's next steps need
#                               (the trainsim_user target: trainsim, the dataset converter,
#                               the Python module, what `cmake --install` installs);
#                               default: everything, test suite included
# It says what it does before each long step, and during the package installation and the
# build it shows their progress (tools/heartbeat.sh): on a terminal on one line, elsewhere a
# line at least every 20 s. Quiet when everything is already there. Used by ./run.sh and
# ./test.sh.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TRAINSIM_BUILD:-$repo/build}"
targets=(all)
what="trainsim and its test suite"
case "${1:-}" in
  --main) targets=(trainsim_user) what="trainsim, its Python module and its library" ;;
  "") ;;
  *) echo "usage: tools/setup.sh [--main]" >&2; exit 2 ;;
esac
packages=(
  build-essential cmake pkg-config
  libsystemc-dev libyaml-cpp-dev catch2 libboost-dev libboost-program-options-dev
  libeigen3-dev nlohmann-json3-dev zlib1g-dev
  dataset-fashion-mnist nodejs npm python3-matplotlib openmpi-bin libopenmpi-dev
  python3-pybind11 python3-dev libonnx-dev libprotobuf-dev protobuf-compiler
  libjemalloc-dev
)
# The test suite renders report.html in a headless browser (tools/test_report_render.py);
# trainsim itself writes the page without one.
# trainsim.from_torch's test (tools/test_from_torch.py) traces and exports PyTorch models.
[[ "${targets[*]}" == trainsim_user ]] || packages+=(chromium python3-torch python3-onnx python3-yaml)

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
    # Asks for the password now, before the progress line below would keep redrawing over
    # sudo's prompt.
    sudo -v || { echo "setup: sudo refused; need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  fi
  echo "setup: installing ${#missing[@]} Debian package(s) (a few minutes): ${missing[*]}"
  # apt's output goes to a log, shown only if it fails (debconf chatters on stderr even when
  # all is well); meanwhile tools/heartbeat.sh says how long it has been and what apt did last.
  # DEBIAN_FRONTEND through env: sudo does not pass the caller's environment on.
  apt_log="$(mktemp "${TMPDIR:-/tmp}/trainsim-apt.XXXXXX.log")"
  # shellcheck disable=SC2016  # $1 (sudo or nothing) and $@ are the inner bash's arguments
  if ! "$repo/tools/heartbeat.sh" "setup: installing packages" "$apt_log" \
    bash -c '$1 apt-get update -q &&
      $1 env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${@:2}"' \
    apt "$sudo" "${missing[@]}"; then
    cat "$apt_log" >&2
    echo "setup: apt-get failed installing ${missing[*]} (its output is above; also in $apt_log)" >&2
    exit 1
  fi
  rm -f "$apt_log"
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
if [[ ! -x "$build/trainsim" || ! -f "$build/libtrainsim_sc_main.a" ||
  ("${targets[0]}" == all && ! -x "$build/trainsim_tests") ]]; then
  echo "setup: building $what (first build: a few minutes on 2 cores)"
fi
log="$build/setup-build.log"
# Its whole output goes to the log, shown on failure. tools/heartbeat.sh shows the progress:
# on a terminal one line rewritten in place ("[ 42%] Building ..."), elsewhere a line with
# the elapsed time and the percentage every 20 s.
status=0
"$repo/tools/heartbeat.sh" "setup: building $what" "$log" \
  cmake --build "$build" -j "$jobs" --target "${targets[@]}" || status=$?
if [[ "$status" != 0 ]]; then
  cat "$log" >&2
  echo "setup: build failed (the compiler's output is above; also in $log)" >&2
  exit 1
fi

"$repo/tools/fetch_data.sh" "$build"
