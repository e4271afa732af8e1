# Sourced by the tools/bench_*.sh scripts: what every benchmark needs.
# median < numbers, one a line: their median.
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# wall_and_cpu CMD ARGS...: "WALL CPU" seconds of one run of CMD ARGS, its output and errors
# dropped; CPU is user + system time of it and its children (a sweep's workers).
wall_and_cpu() {
  local t
  t=$( { TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>&1; } 2>&1)
  awk '{ print $1, $2 + $3 }' <<<"$t"
}

# median_wall CMD ARGS...: the median wall seconds of $repeats runs of CMD ARGS (its output
# dropped, its errors shown; a failed run stops the benchmark).
median_wall() {
  local times=() i t0 t1
  for ((i = 0; i < repeats; i++)); do
    t0=$(date +%s.%N)
    "$@" >/dev/null || { echo "benchmark command failed: $*" >&2; exit 1; }
    t1=$(date +%s.%N)
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
  done
  printf '%s\n' "${times[@]}" | median
}

# fresh_dir TMP NAME: a path under TMP not used before, for one run's results. Benchmarks
# leave every run's directory in place until they exit rather than deleting one to reuse its
# name: ext4 avoids reusing inodes freed in the last minute or more, and a sweep that starts
# right after thousands were freed spends that much longer in the kernel finding free ones
# (a 1,200-point sweep at -j 1: 6-7 s of system time after another's points were deleted,
# 1.6-1.9 s otherwise; docs/sweeps.md).
fresh_dir() { mktemp -u -p "$1" "$2.XXXXXX"; }

# fresh_run TMP NAME CMD ARGS...: "WALL CPU" of CMD ARGS --out DIR -q (wall_and_cpu), DIR a
# fresh_dir; TMP/NAME then links to DIR, the last such run's results.
fresh_run() {
  local tmp="$1" name="$2" out
  shift 2
  out=$(fresh_dir "$tmp" "$name")
  wall_and_cpu "$@" --out "$out" -q
  ln -sfn "$out" "$tmp/$name"
}

# one_and_two CMD ARGS...: how much more work two copies of CMD ARGS (its output dropped) do
# started together than one alone, as "ONE TWO RATIO": the median wall seconds of one copy
# alone and of two at once (until both end), and the median over $repeats rounds of each
# round's 2 ONE / TWO (a round takes both in turn, so that a host whose speed drifts moves
# them alike). CMD may be a shell function (each copy then runs it afresh).
one_and_two() {
  local one=() two=() ratios=() i t0 t1 t2 pid
  for ((i = 0; i < repeats; i++)); do
    t0=$(date +%s.%N)
    "$@" >/dev/null
    t1=$(date +%s.%N)
    "$@" >/dev/null &
    pid=$!
    "$@" >/dev/null
    wait "$pid"
    t2=$(date +%s.%N)
    one+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
    two+=("$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')")
    ratios+=("$(awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { print 2 * (b - a) / (c - b) }')")
  done
  printf '%.2f %.2f %.2f\n' "$(printf '%s\n' "${one[@]}" | median)" \
    "$(printf '%s\n' "${two[@]}" | median)" "$(printf '%s\n' "${ratios[@]}" | median)"
}

# host_scaling: one_and_two of a fixed CPU-bound awk loop (no memory to speak of, no files, no
# trainsim): how much more work two processes do together than one alone on this machine. On
# two idle cores it is about 2.0; a virtual machine whose two vCPUs share a physical core, or
# a busy neighbour, gives less. It is a noisy reference, not a bound: a sweep's -j 1 -> -j 2
# scaling measured minutes later may beat it.
host_scaling() {
  one_and_two awk 'BEGIN { for (i = 0; i < 2e7; i++) s += i * i; if (s < 0) print s }'
}
