#!/usr/bin/env bash
# Speed of `trainsim sweep` (docs/sweeps.md): the 60-point configs/sweeps/vgg16_dataflows.yaml
# (VGG-16 on CIFAR-10, shape only, 4 dataflows x 5 arrays x 3 buffers), run
#   0. the host's own scaling: two copies of a CPU-bound loop against one (bench_lib.sh's
#      host_scaling; a noisy reference for the -j targets), and two -j 1 sweeps at once
#      against one, into the benchmark's directory and into tmpfs (pair_scaling below: what
#      the host gives this workload),
#   1. with -j 1 and -j 2 (worker processes; targets: -j 2 >= 1.7x faster on 2 cores and
#      >= 100 points/s),
#   2. with -j 2 --isolate (a process per point, as sweeps ran before workers),
#   3. under mpirun with 1 and 2 ranks (targets: 2 ranks >= 1.7x faster, >= 100 points/s),
#      and `mpirun -n 2 true` alone (mpirun's own start and end, in every MPI run's time),
#      and how long after the start the first point begins under mpirun -n 2 and at -j 2,
# each from scratch, medians of REPEATS (wall time, and CPU time of the -j 2 runs; the two
# runs a target compares taken in turn, so that a drifting host moves both alike); checks
# that all the tables are identical. Then (medians of BIG_REPEATS) the 1,200-point configs/sweeps/vgg16_dataflows_techniques.yaml (the same 60 designs
# x 5 batch sizes x 4 techniques) with -j 1 and -j 2, with --isolate, and under mpirun with 1
# and 2 ranks (the same targets as the 60 points). Last, the memo
# (docs/sweeps.md): the 60 points again reading the op costs the -j 2 run kept (as a resumed
# or repeated sweep does), and the 1,200 points reading them (an extended sweep: new batch
# sizes and techniques on the same designs).
#   tools/bench_sweep.sh [REPEATS [BIG_REPEATS]]   (defaults 3 and 1: the 1,200-point runs take
#   5-12 s each, so once by default; medians of BIG_REPEATS where a busy host moves them;
#   expects ./test.sh or ./run.sh to have set up)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TRAINSIM_BUILD:-$repo/build}"
bin="$build/trainsim"
repeats="${1:-3}"
big_repeats="${2:-1}"
sweep="$repo/configs/sweeps/vgg16_dataflows.yaml"
big="$repo/configs/sweeps/vgg16_dataflows_techniques.yaml"
tmp="$(mktemp -d)"
. "$repo/tools/bench_lib.sh"
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# Median wall seconds of `"$@" --out DIR` over $repeats fresh runs, each into a new directory
# (bench_lib.sh's fresh_run); $tmp/$1 links to the last one, and the median CPU seconds (user +
# system, the sweep and its workers) are in $tmp/$1.cpu: a neighbour on a shared host moves
# the wall time more than the CPU time.
wall() {
  local name="$1"
  shift
  local times=() cpus=() w c
  for ((i = 0; i < repeats; i++)); do
    read -r w c < <(fresh_run "$tmp" "$name" "$@")
    times+=("$w")
    cpus+=("$c")
  done
  printf '%s\n' "${cpus[@]}" | median >"$tmp/$name.cpu"
  printf '%s\n' "${times[@]}" | median
}
# Medians of $repeats runs of two commands taken in turn (A, B, A, B, ...), so that a host
# whose speed drifts during the benchmark moves both alike: their ratio is what the targets
# are about. `paired NAME_A NAME_B` runs the commands in the arrays cmd_a and cmd_b (each with
# --out DIR -q added, as `wall` does) and prints "MEDIAN_A MEDIAN_B"; CPU medians as `wall`.
paired() {
  local a="$1" b="$2" ta=() tb=() ca=() cb=() w c
  for ((i = 0; i < repeats; i++)); do
    read -r w c < <(fresh_run "$tmp" "$a" "${cmd_a[@]}")
    ta+=("$w")
    ca+=("$c")
    read -r w c < <(fresh_run "$tmp" "$b" "${cmd_b[@]}")
    tb+=("$w")
    cb+=("$c")
  done
  printf '%s\n' "${ca[@]}" | median >"$tmp/$a.cpu"
  printf '%s\n' "${cb[@]}" | median >"$tmp/$b.cpu"
  echo "$(printf '%s\n' "${ta[@]}" | median) $(printf '%s\n' "${tb[@]}" | median)"
}
cpu() { printf 'CPU %.2f s' "$(cat "$tmp/$1.cpu")"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
rate() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.1f points/s", n / t }'; }
# first_point_ms CMD ARGS...: milliseconds from starting CMD ARGS --out DIR -q (a fresh_dir)
# to the first point's directory being made (its .trainsim-manifest), once: the part of a
# short sweep's time that is start-up, the launcher's included.
first_point_ms() {
  local out t0 first
  out=$(fresh_dir "$tmp" first)
  t0=$(date +%s.%N)
  "$@" --out "$out" -q >/dev/null 2>&1
  first=$(find "$out/points" -name .trainsim-manifest -printf '%T@\n' | sort -g | head -n 1)
  awk -v a="$t0" -v b="$first" 'BEGIN { printf "%.0f", (b - a) * 1000 }'
}

# pair_scaling ROOT: the host's -j 1 -> -j 2 for this workload itself: one_and_two of a -j 1
# sweep of the 60 points, each copy a separate process writing a fresh directory under ROOT.
# Nothing is shared between the two, so a -j 2 sweep, whose workers do the same work, can
# only beat it by chance. Under a ROOT on ext4 it includes the kernel's work creating the
# points' files; on tmpfs (/dev/shm) hardly any.
pair_scaling() {
  pair_root="$1"
  one_and_two sweep_once
}
sweep_once() { "$bin" sweep "$sweep" -j 1 -q --out "$(fresh_dir "$pair_root" pair)"; }

echo "load average before: $(cut -d' ' -f1 /proc/loadavg)"
read -r h1 h2 hs < <(host_scaling) || { echo "host_scaling printed nothing" >&2; exit 1; }
printf 'host:       a CPU-bound loop %.2f s alone, %.2f s as two copies at once: %sx (the host'"'"'s own -j 1 -> -j 2, a noisy reference)\n' \
  "$h1" "$h2" "$hs"
read -r p1 p2 ps < <(pair_scaling "$tmp") || { echo "pair_scaling printed nothing" >&2; exit 1; }
printf 'host:       two -j 1 sweeps %.2f s alone, %.2f s at once: %sx (this workload'"'"'s own -j 1 -> -j 2, into %s)\n' \
  "$p1" "$p2" "$ps" "$(df --output=fstype "$tmp" | tail -n 1)"
if [[ -d /dev/shm && -w /dev/shm ]]; then
  shm=$(mktemp -d -p /dev/shm)
  trap 'rm -rf "$tmp" "$shm"' EXIT
  read -r p1 p2 ps < <(pair_scaling "$shm") || { echo "pair_scaling printed nothing" >&2; exit 1; }
  rm -rf "$shm"
  printf 'host:       two -j 1 sweeps %.2f s alone, %.2f s at once: %sx (the same into tmpfs)\n' \
    "$p1" "$p2" "$ps"
fi
cmd_a=("$bin" sweep "$sweep" -j 1)
cmd_b=("$bin" sweep "$sweep" -j 2)
read -r j1 j2 < <(paired j1 j2)
ji=$(wall ji "$bin" sweep "$sweep" -j 2 --isolate)
printf 'workers:    -j 1 %6.2f s, -j 2 %6.2f s: %sx (target >= 1.7x); %s at -j 2 (%s)\n' \
  "$j1" "$j2" "$(ratio "$j1" "$j2")" "$(rate 60 "$j2")" "$(cpu j2)"
printf 'isolated:   -j 2 %6.2f s (a process per point): workers %sx as fast\n' "$ji" \
  "$(ratio "$ji" "$j2")"
cmp -s "$tmp/j1/sweep.csv" "$tmp/ji/sweep.csv" || echo "tables differ: j1 and ji"
if command -v mpirun >/dev/null; then
  cmd_a=(mpirun -n 1 "$bin" sweep "$sweep" --mpi)
  cmd_b=(mpirun -n 2 "$bin" sweep "$sweep" --mpi)
  read -r r1 r2 < <(paired r1 r2)
  printf 'MPI:        1 rank %6.2f s, 2 ranks %6.2f s: %sx (target >= 1.7x); %s with 2 ranks\n' \
    "$r1" "$r2" "$(ratio "$r1" "$r2")" "$(rate 60 "$r2")"
  # What mpirun itself takes to start two ranks that do nothing and to end (Open MPI's
  # run-time, hwloc's topology scan): part of every MPI sweep's wall time, none of trainsim's.
  mt=$(median_wall mpirun -n 2 true)
  printf '            mpirun -n 2 true alone %6.2f s; 2 ranks without it: %s\n' "$mt" \
    "$(rate 60 "$(awk -v a="$r2" -v b="$mt" 'BEGIN { print a - b }')")"
  printf '            first point %s ms after the start under mpirun -n 2, %s ms at -j 2\n' \
    "$(first_point_ms mpirun -n 2 "$bin" sweep "$sweep" --mpi)" \
    "$(first_point_ms "$bin" sweep "$sweep" -j 2)"
  for t in j2 r1 r2; do
    cmp -s "$tmp/j1/sweep.csv" "$tmp/$t/sweep.csv" || echo "tables differ: j1 and $t"
  done
else
  echo "MPI: mpirun not found (tools/setup.sh installs openmpi-bin)"
fi
saved=$repeats
repeats=$big_repeats
cmd_a=("$bin" sweep "$big" -j 1)
cmd_b=("$bin" sweep "$big" -j 2)
read -r b1 b2 < <(paired b1 b2)
bi=$(wall bi "$bin" sweep "$big" -j 2 --isolate)
printf '1,200 points, -j 2: workers %7.2f s (%s, %s), isolated %7.2f s (%s): %sx\n' "$b2" \
  "$(rate 1200 "$b2")" "$(cpu b2)" "$bi" "$(rate 1200 "$bi")" "$(ratio "$bi" "$b2")"
printf '1,200 points:       -j 1 %7.2f s, -j 2 %7.2f s: %sx (target >= 1.7x)\n' "$b1" "$b2" \
  "$(ratio "$b1" "$b2")"
for t in b1 bi; do
  cmp -s "$tmp/b2/sweep.csv" "$tmp/$t/sweep.csv" || echo "tables differ: b2 and $t"
done
if command -v mpirun >/dev/null; then
  cmd_a=(mpirun -n 1 "$bin" sweep "$big" --mpi)
  cmd_b=(mpirun -n 2 "$bin" sweep "$big" --mpi)
  read -r q1 q2 < <(paired q1 q2)
  printf '1,200 points, MPI:  1 rank %7.2f s, 2 ranks %7.2f s: %sx (target >= 1.7x); %s with 2 ranks\n' \
    "$q1" "$q2" "$(ratio "$q1" "$q2")" "$(rate 1200 "$q2")"
  for t in q1 q2; do
    cmp -s "$tmp/b2/sweep.csv" "$tmp/$t/sweep.csv" || echo "tables differ: b2 and $t"
  done
fi
repeats=$saved
# The memo of the last -j 2 run of the 60 points ($tmp/j2/memo) read by new sweeps.
cp -r "$tmp/j2/memo" "$tmp/memo60"
mr=$(wall mr "$bin" sweep "$sweep" -j 2 --memo "$tmp/memo60")
cmp -s "$tmp/j1/sweep.csv" "$tmp/mr/sweep.csv" || echo "tables differ: j1 and mr"
repeats=1
me=$(wall me "$bin" sweep "$big" -j 2 --memo "$tmp/memo60")
repeats=$saved
cmp -s "$tmp/b2/sweep.csv" "$tmp/me/sweep.csv" || echo "tables differ: b2 and me"
printf 'memo:       60 points again %6.2f s (%s, %sx); 1,200 points on it %6.2f s (%s, %sx)\n' \
  "$mr" "$(rate 60 "$mr")" "$(ratio "$j2" "$mr")" "$me" "$(rate 1200 "$me")" \
  "$(ratio "$b2" "$me")"
echo "load average after: $(cut -d' ' -f1 /proc/loadavg)"
