#!/usr/bin/env bash
# CTest: `cmake --install` gives a usable library. Installs the build into BUILD/test-install,
# builds examples/cost_one_op against it with find_package(trainsim), runs it, and checks its
# cycles against the installed `trainsim layer` on the same GEMM.
#   tools/test_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$1"
src="$2"
prefix="$build/test-install"
work="$build/test-tmp/install-example"
rm -rf "$prefix" "$work"
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/trainsim lib/cmake/trainsim/trainsimConfig.cmake include/trainsim/sim/accel/cost_model.h \
  share/trainsim/configs/accelerators/adagp_ws180.yaml; do
  [[ -e "$prefix/$f" ]] || { echo "test_install: $f not installed" >&2; exit 1; }
done
cmake -S "$src/examples/cost_one_op" -B "$work" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$work.configure.log" 2>&1 ||
  { cat "$work.configure.log" >&2; exit 1; }
cmake --build "$work" >"$work.build.log" 2>&1 || { cat "$work.build.log" >&2; exit 1; }
# The installed configs serve the example (TRAINSIM_CONFIGS points at them explicitly).
export TRAINSIM_CONFIGS="$prefix/share/trainsim/configs"
out="$("$work/cost_one_op" adagp_ws180 96 64 80)"
echo "$out"
cycles="$(sed -n 's/.*: \([0-9]*\) cycles (closed form \([0-9]*\)).*/\1 \2/p' <<<"$out")"
want="$("$prefix/bin/trainsim" layer --accel adagp_ws180 --gemm 96,64,80 --json |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["stats"]["cycles"])')"
[[ "$cycles" == "$want $want" ]] ||
  { echo "test_install: example says '$cycles', trainsim layer $want" >&2; exit 1; }
echo "test_install: the installed library costs the GEMM as trainsim layer does ($want cycles)"
