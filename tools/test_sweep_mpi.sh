#!/usr/bin/env bash
# CTest: `mpirun --oversubscribe -n 3 trainsim sweep --mpi` writes the same sweep.csv as
# `trainsim sweep -j 1` (12 shape-only LeNet-5 points on 2,000 Fashion-MNIST samples), with
# the switches docs/sweeps.md gives for running as root.
#   tools/test_sweep_mpi.sh BUILD_DIR MPIEXEC
set -euo pipefail
build="$1"
mpiexec="$2"
tmp="$build/test-tmp/sweep-mpi"
rm -rf "$tmp"
mkdir -p "$tmp"
cat >"$tmp/exp.yaml" <<'YAML'
name: s
network: lenet5
numerics: none
dataset: {name: fashion-mnist, train_limit: 2000, test_limit: 100}
training: {epochs: 1, batch_size: 32}
accelerator: adagp_ws180
YAML
cat >"$tmp/sweep.yaml" <<'YAML'
experiment: exp.yaml
axes:
  - {key: dataflow, values: [ws, os, is, rs]}
  - zip: {accelerator.array.rows: [8, 12, 16], accelerator.array.cols: [8, 15, 16]}
  - {key: technique, values: [bp, specbp]}
baseline: {dataflow: ws, accelerator.array.rows: 12}
YAML
"$build/trainsim" sweep "$tmp/sweep.yaml" --out "$tmp/local" -j 1 -q
# In a sanitizer build, leak checking is off for the ranks: Open MPI's plugins allocate at
# MPI_Init and are unloaded before exit, so LeakSanitizer reports their memory with no module
# to attribute it to. (The -j 1 sweep above runs the same points with leak checking on.)
if [[ -n "${TRAINSIM_SANITIZED:-}" ]] || grep -q "TRAINSIM_SANITIZE:BOOL=ON" "$build/CMakeCache.txt" 2>/dev/null; then
  rank_env=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0")
else
  rank_env=()
fi
# The commands of docs/sweeps.md ("Scaling out"): Open MPI refuses root unless told (CI and
# containers run as root), by --allow-run-as-root or by two environment variables, and more
# ranks than cores unless --oversubscribe. Whoever runs this test may have set the variables
# already; they are cleared so that each form is tried on its own.
unset OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
root=0
[[ "$(id -u)" == 0 ]] && root=1
check_table() {  # check_table DIR: DIR/sweep.csv is the local sweep's
  if ! cmp "$tmp/local/sweep.csv" "$1/sweep.csv"; then
    diff "$tmp/local/sweep.csv" "$1/sweep.csv" | head -20
    echo "test_sweep_mpi: the MPI sweep's table in $1 differs from the local one" >&2
    exit 1
  fi
}
allow=()
((root)) && allow=(--allow-run-as-root)
"$mpiexec" "${allow[@]}" --oversubscribe -n 3 "${rank_env[@]}" "$build/trainsim" sweep \
  "$tmp/sweep.yaml" --out "$tmp/mpi" --mpi -q
check_table "$tmp/mpi"
if ((root)); then
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    "$mpiexec" --oversubscribe -n 3 "${rank_env[@]}" "$build/trainsim" sweep \
    "$tmp/sweep.yaml" --out "$tmp/mpi-env" --mpi -q
  check_table "$tmp/mpi-env"
fi
rows=$(($(wc -l <"$tmp/mpi/sweep.csv") - 1))
[[ "$rows" == 24 ]] || { echo "test_sweep_mpi: $rows rows, expected 24" >&2; exit 1; }
grep -q ',failed,' "$tmp/mpi/sweep.csv" || { echo "test_sweep_mpi: no failed point recorded" >&2; exit 1; }
# The pages written at the end, while rank 0 finalizes MPI: the sweep's, and one for each
# point on the Pareto front (the pareto column is the second to last; a failed point's
# error, the last, may hold commas and is never on the front).
[[ -f "$tmp/mpi/report.html" ]] || { echo "test_sweep_mpi: no report.html" >&2; exit 1; }
front=0
while IFS=, read -r id rest; do
  [[ "$rest" == *,done,* ]] || continue
  [[ "$(awk -F, '{ print $(NF - 1) }' <<<"$rest")" == 1 ]] || continue
  front=$((front + 1))
  [[ -f "$tmp/mpi/points/$id/run/report.html" ]] ||
    { echo "test_sweep_mpi: point $id is on the front but has no report.html" >&2; exit 1; }
done < <(tail -n +2 "$tmp/mpi/sweep.csv")
((front > 0)) || { echo "test_sweep_mpi: no point on the Pareto front" >&2; exit 1; }
echo "test_sweep_mpi: 3 ranks wrote the same sweep.csv as -j 1 (24 points, 12 failing as expected)$( ((root)) && echo ", as root with --allow-run-as-root and with OMPI_ALLOW_RUN_AS_ROOT")"
