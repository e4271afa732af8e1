#!/usr/bin/env bash
# Runs a long command (apt-get, a build) with its whole output in a log, and keeps whoever
# waits for it informed without flooding them:
#   tools/heartbeat.sh LABEL LOG COMMAND [ARGS...]
# On a terminal, one line that is rewritten in place: LABEL, the elapsed time and the
# command's last progress line. Elsewhere (a CI log, `./run.sh > file`, a pipe), where a
# rewritten line would pile up as noise, a line every TRAINSIM_HEARTBEAT_S seconds (default
# 20): "LABEL: 2m40s, at [ 42%]" (a build's last percentage) or "LABEL: 1m20s, last: ..."
# (the command's last line), so that nobody waits in silence and wonders whether it hangs.
# Exits with COMMAND's status; the caller shows LOG when it fails.
set -uo pipefail

if (($# < 3)); then
  echo "usage: tools/heartbeat.sh LABEL LOG COMMAND [ARGS...]" >&2
  exit 2
fi
label="$1"
log="$2"
shift 2
interval="${TRAINSIM_HEARTBEAT_S:-20}"
if [[ ! "$interval" =~ ^[1-9][0-9]*$ ]]; then
  echo "heartbeat.sh: TRAINSIM_HEARTBEAT_S must be a whole number of seconds >= 1, got '$interval'" >&2
  exit 2
fi
tty=0
[[ -t 1 ]] && tty=1
cols="$( ((tty)) && tput cols 2>/dev/null || echo 80)"

elapsed() {
  local s=$((SECONDS - start))
  if ((s >= 60)); then printf '%dm%02ds' $((s / 60)) $((s % 60)); else printf '%ds' "$s"; fi
}

start=$SECONDS
"$@" </dev/null 2>&1 | tee "$log" | {
  percent=""   # the last "[ NN%]" a CMake build printed
  progress=""  # the line it came on
  last=""      # the last non-empty line, for commands without percentages (apt-get)
  beat=$SECONDS
  pending=""  # what a read that timed out had read of a line so far
  while :; do
    # Waits at most a second for a line, so the clock runs on while the command is quiet. A
    # read that times out keeps what it got of the line in `part`; the rest follows.
    part=""
    if IFS= read -r -t 1 part; then
      line="$pending$part"
      pending=""
      line="${line//$'\r'/}"
      if [[ "$line" =~ ^\[\ *([0-9]+)%\] ]]; then
        percent="${BASH_REMATCH[0]}"
        progress="$line"
      elif [[ -n "${line//[[:space:]]/}" ]]; then
        last="$line"
      fi
    elif (($? > 128)); then
      pending+="$part"
    else
      break  # end of the output: the command is done
    fi
    if ((tty)); then
      text="$label: $(elapsed)"
      [[ -n "$progress$last" ]] && text+=", ${progress:-$last}"
      printf '\r\033[K%s' "${text:0:$((cols - 1))}"
    elif ((SECONDS - beat >= interval)); then
      beat=$SECONDS
      if [[ -n "$percent" ]]; then
        printf '%s: %s, at %s\n' "$label" "$(elapsed)" "$percent"
      else
        text="${last:0:100}"
        printf '%s: %s%s\n' "$label" "$(elapsed)" "${text:+, last: $text}"
      fi
    fi
  done
  ((tty)) && printf '\r\033[K'
  true
}
exit "${PIPESTATUS[0]}"
