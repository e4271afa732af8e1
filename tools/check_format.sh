#!/usr/bin/env bash
# Every C++ file of the repository is as the one .clang-format writes it: lists the files
# clang-format would change (exit 1), or says nothing (exit 0).
#   tools/check_format.sh [CLANG_FORMAT]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
clang_format="${1:-clang-format}"
cd "$repo"
bad=0
# The tracked files, or every C++ file when the tree is not a git checkout.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.h')
else
  mapfile -t files < <(find sim models dataflows mapping tests tools python examples \
    \( -name '*.cpp' -o -name '*.h' \) 2>/dev/null | sort)
fi
for f in "${files[@]}"; do
  [[ -f "$f" ]] || continue
  if ! "$clang_format" --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "check_format: $f differs from clang-format's output (clang-format -i $f)"
    bad=1
  fi
done
exit "$bad"
