#!/usr/bin/env bash
# Re-runs the worked examples of README.md and docs/*.md and diffs their output against the
# documents (tools/golden.py; --update writes new outputs in, --list shows what runs).
set -euo pipefail
exec python3 "$(dirname "${BASH_SOURCE[0]}")/golden.py" "$@"
