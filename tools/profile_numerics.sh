#!/usr/bin/env bash
# Where a numerics-only training epoch spends its CPU time, by kind of work: samples one
# epoch of `trainsim train` with `perf record` and sums the samples per category of symbol.
#   tools/profile_numerics.sh [THREADS] [trainsim train arguments...]
#   (default: 1 thread, LeNet-5 on the 60k Fashion-MNIST training set, batch 32)
# Needs perf (Debian: linux-perf) and permission to use it.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${TRAINSIM_BUILD:-$repo/build}/trainsim"
threads="${1:-1}"
shift $(($# > 0 ? 1 : 0))
args=("$@")
if [[ ${#args[@]} -eq 0 ]]; then
  args=(configs/experiments/lenet5_mnist.yaml --set dataset.name=fashion-mnist
        --set training.epochs=1)
fi
command -v perf >/dev/null || { echo "profile_numerics.sh: perf not found (apt install linux-perf)" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

(cd "$repo" && perf record -q -o "$tmp/perf.data" "$bin" train "${args[@]}" \
  --set "training.threads=$threads" --out "$tmp/run" --quiet >/dev/null 2>"$tmp/perf.err") ||
  { cat "$tmp/perf.err" >&2; exit 1; }
echo "one epoch on $threads thread(s): $(sed -n 's/.*"train_seconds": \([0-9.]*\).*/\1/p' "$tmp/run/timing.json") s of training (perf samples include loading and evaluation)"
perf report -i "$tmp/perf.data" --no-children --sort sym --stdio 2>/dev/null |
  awk '/^ +[0-9.]+%/ {
    pct = $1; sub(/%/, "", pct); line = $0
    if (line ~ /blocked_gemm|micro_kernel|pack_b|pack_a/) c = "GEMM (kernel and packing)"
    else if (line ~ /dot_block|dot_gemm/) c = "GEMM (dot_gemm: small backward-weight outputs)"
    else if (line ~ /forward_block|data_block|grad_row|forward_pixels|grad_taps|direct_|transpose_gradient|sum_gradient/) c = "direct convolution kernels"
    else if (line ~ /im2col|col2im|pad_samples|crop_samples/) c = "patch matrices (im2col, col2im, padding)"
    else if (line ~ /Conv2d<float>|gather_rows/) c = "conv copies (output scatter, gradient layouts, partial sums)"
    else if (line ~ /Pool2d|pool_/) c = "pooling"
    else if (line ~ /LeakyRelu|Flatten|scale_by_gain/) c = "activations"
    else if (line ~ /Sgd|Adam|Optimizer/) c = "optimizer updates"
    else if (line ~ /Dense<float>/) c = "dense (outside GEMM)"
    else if (line ~ /ThreadPool|parallel_for|TaskFrame/) c = "thread pool (hand-off, waiting)"
    else if (line ~ /memset|memmove|memcpy/) c = "memset / memcpy (zeroing, copies)"
    else if (line ~ /\[k\]/) c = "kernel"
    else c = "other (data loading, softmax and loss, evaluation glue)"
    sum[c] += pct
  }
  END { for (c in sum) printf "%6.1f%%  %s\n", sum[c], c }' | sort -rn
