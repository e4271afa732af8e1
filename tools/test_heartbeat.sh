#!/usr/bin/env bash
# CTest: off a terminal, tools/setup.sh is never silent for long during the package
# installation and the build. tools/heartbeat.sh prints a line every TRAINSIM_HEARTBEAT_S
# seconds; here that is 1 s and the slow commands are stand-ins on PATH (apt-get, cmake, ...)
# that stay quiet for 5 s at a time, so a missing heartbeat shows as a 5 s gap within
# seconds, without a real install or build.
#   tools/test_heartbeat.sh
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0
problem() {
  echo "FAIL: $*" >&2
  fail=1
}

# Runs COMMAND... with every line of its output (stdout and stderr) prefixed by the time it
# arrived, into $tmp/out; then $tmp/out.gap holds the longest silence in seconds, counting
# from the start and up to the end.
timed() {
  local start end
  start=$EPOCHREALTIME
  set +e
  "$@" 2>&1 | while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done >"$tmp/out"
  status=${PIPESTATUS[0]}
  set -e
  end=$EPOCHREALTIME
  awk -v start="$start" -v end="$end" \
    '{ if ($1 - prev > gap) gap = $1 - prev; prev = $1 } BEGIN { prev = start }
     END { if (end - prev > gap) gap = end - prev; printf "%.2f\n", gap }' "$tmp/out" >"$tmp/out.gap"
}
# The longest silence allowed with a 1 s heartbeat: the heartbeat looks at the clock once a
# second, so 2 s, and 1 s of slack for a loaded machine; the stand-ins' 5 s would fail it.
max_gap=3
check_gap() {
  if ! awk -v g="$(cat "$tmp/out.gap")" -v m="$max_gap" 'BEGIN { exit !(g <= m) }'; then
    problem "$1: $(cat "$tmp/out.gap") s without a line (at most $max_gap s expected):"
    cat "$tmp/out" >&2
  fi
}
expect_line() {  # expect_line WHAT PATTERN: some output line matches the extended regex
  grep -Eq -- "$2" "$tmp/out" || { problem "$1: no line matching '$2' in:"; cat "$tmp/out" >&2; }
}

export TRAINSIM_HEARTBEAT_S=1

# 1. heartbeat.sh on its own: a build-like command with percentages that fails.
cat >"$tmp/fake_build" <<'SH'
#!/bin/sh
echo "[ 10%] Building CXX object a.o"
sleep 5
echo "a warning with no percentage"
echo "[ 60%] Building CXX object b.o"
sleep 5
echo "[ 70%] Linking CXX executable c"
exit 3
SH
chmod +x "$tmp/fake_build"
timed "$repo/tools/heartbeat.sh" "label" "$tmp/build.log" "$tmp/fake_build"
[[ "$status" == 3 ]] || problem "heartbeat.sh exited with $status, not the command's 3"
check_gap "heartbeat.sh"
expect_line "heartbeat.sh" '^[0-9.]+ label: [1-4]s, at \[ 10%\]$'
expect_line "heartbeat.sh" '^[0-9.]+ label: ([6-9]|10)s, at \[ 60%\]$'
if grep -q "Building" "$tmp/out"; then problem "heartbeat.sh passed the command's lines through"; fi
grep -v '^sleep' "$tmp/fake_build" | sed -n 's/^echo "\(.*\)"$/\1/p' >"$tmp/build.expected"
cmp -s "$tmp/build.log" "$tmp/build.expected" ||
  problem "the log does not hold the command's whole output: $(cat "$tmp/build.log")"

# Without percentages (apt-get), the last line it printed.
timed "$repo/tools/heartbeat.sh" "apt" "$tmp/apt.log" sh -c 'echo "Unpacking foo"; sleep 3'
[[ "$status" == 0 ]] || problem "heartbeat.sh exited with $status after a command that succeeded"
expect_line "heartbeat.sh" '^[0-9.]+ apt: [1-3]s, last: Unpacking foo$'

for bad in 0 -1 x 1.5; do
  if TRAINSIM_HEARTBEAT_S="$bad" "$repo/tools/heartbeat.sh" l "$tmp/l" true 2>"$tmp/err"; then
    problem "TRAINSIM_HEARTBEAT_S=$bad accepted"
  fi
  grep -q "TRAINSIM_HEARTBEAT_S" "$tmp/err" || problem "TRAINSIM_HEARTBEAT_S=$bad: $(cat "$tmp/err")"
done

# 2. On a terminal, one line rewritten in place (script(1) gives the command a terminal).
if command -v script >/dev/null 2>&1; then
  script -qec "'$repo/tools/heartbeat.sh' tty '$tmp/tty.log' sh -c 'echo \"[ 42%] Building x\"; sleep 2'" \
    /dev/null >"$tmp/tty.out" 2>&1 </dev/null || true
  grep -q $'\r\033\\[Ktty: [0-9]s, \\[ 42%\\] Building x' "$tmp/tty.out" ||
    problem "on a terminal: $(od -c "$tmp/tty.out" | head -20)"
fi

# 3. tools/setup.sh --main off a terminal, one package missing and nothing built: apt-get and
# the build are stand-ins that are quiet for 5 s at a time.
mkdir -p "$tmp/bin" "$tmp/build" "$tmp/data"
cat >"$tmp/bin/dpkg-query" <<'SH'
#!/bin/bash
[[ "${*: -1}" == catch2 ]] && exit 1
printf 'install ok installed'
SH
cat >"$tmp/bin/id" <<'SH'
#!/bin/sh
[ "$1" = -u ] && { echo 0; exit 0; }
exec /usr/bin/id "$@"
SH
cat >"$tmp/bin/apt-get" <<'SH'
#!/bin/sh
echo "${DEBIAN_FRONTEND:-} apt-get $*" >>"$STUB_LOG"
case "$1" in
  update) echo "Reading package lists..."; sleep 2 ;;
  *) echo "Unpacking catch2"; sleep 5; echo "Setting up catch2" ;;
esac
SH
cat >"$tmp/bin/cmake" <<SH
#!/bin/sh
echo "cmake \$*" >>"\$STUB_LOG"
exec "$tmp/fake_build_ok"
SH
sed 's/^exit 3$/exit 0/' "$tmp/fake_build" >"$tmp/fake_build_ok"
chmod +x "$tmp/bin/"* "$tmp/fake_build_ok"
touch "$tmp/build/CMakeCache.txt"  # configured already; the build itself is the stand-in
for d in mnist fashion-mnist; do  # fetch_data.sh finds both datasets in place
  mkdir -p "$tmp/data/$d"
  touch "$tmp/data/$d/"{train-images-idx3-ubyte,train-labels-idx1-ubyte,t10k-images-idx3-ubyte,t10k-labels-idx1-ubyte}
done
export STUB_LOG="$tmp/stub.log"
timed env -u DEBIAN_FRONTEND PATH="$tmp/bin:$PATH" TRAINSIM_BUILD="$tmp/build" TRAINSIM_DATA="$tmp/data" \
  "$repo/tools/setup.sh" --main
[[ "$status" == 0 ]] || { problem "setup.sh exited with $status:"; cat "$tmp/out" >&2; }
check_gap "setup.sh --main"
expect_line "setup.sh" '^[0-9.]+ setup: installing 1 Debian package\(s\) .*: catch2$'
expect_line "setup.sh" '^[0-9.]+ setup: installing packages: [0-9]+s, last: Unpacking catch2$'
expect_line "setup.sh" '^[0-9.]+ setup: building trainsim, .*: [0-9]+s, at \[ 60%\]$'
grep -q "^noninteractive apt-get install -y -q --no-install-recommends catch2" "$STUB_LOG" ||
  problem "setup.sh did not install catch2: $(cat "$STUB_LOG")"
grep -q -- "--build $tmp/build -j [0-9]* --target trainsim_user" "$STUB_LOG" ||
  problem "setup.sh --main did not build trainsim_user: $(cat "$STUB_LOG")"

if ((fail)); then exit 1; fi
echo "test_heartbeat: heartbeat.sh and setup.sh never silent for more than $max_gap s (1 s heartbeat, 5 s quiet commands)"
