#include "sim/nn/dense.h"

#include "sim/core/parallel.h"
#include "sim/nn/init.h"
#include "sim/nn/kernels.h"

namespace trainsim {

namespace {
// Multiply-adds per task. Each pass cuts its rows x cols output along the longer side into
// ranges of at least this much work: by shape alone, so results do not depend on the thread
// count. The seed MLP's training GEMMs (at most 188k multiply-adds) stay whole.
constexpr std::int64_t kGrain = 1 << 18;
// ... and at least this many rows or columns: a GEMM kernel works on panels of dozens of rows,
// and each range packs the other operand again.
constexpr std::int64_t kMinLines = 32;

template <typename F>
void parallel_output(std::int64_t rows, std::int64_t cols, std::int64_t depth, const F& fn) {
  const bool by_rows = rows >= cols;
  const std::int64_t line = (by_rows ? cols : rows) * depth;
  const std::int64_t grain = std::max(kMinLines, kGrain / std::max<std::int64_t>(1, line));
  parallel_ranges(by_rows ? rows : cols, grain, [&](std::int64_t begin, std::int64_t end) {
    if (by_rows) {
      fn(begin, end - begin, std::int64_t{0}, cols);
    } else {
      fn(std::int64_t{0}, rows, begin, end - begin);
    }
  });
}
}  // namespace

template <typename T>
Dense<T>::Dense(const Shape& in, int units, bool bias)
    : in_features_(in.size()), units_(units), has_bias_(bias) {
  this->in_ = in;
  this->out_ = Shape{units, 1, 1};
  weight_.name = "weight";
  weight_.value.resize(static_cast<int>(in_features_), Shape{units, 1, 1});
  weight_.grad.resize(static_cast<int>(in_features_), Shape{units, 1, 1});
  weight_.grad.set_zero();
  if (has_bias_) {
    bias_.name = "bias";
    bias_.value.resize(1, Shape{units, 1, 1});
    bias_.value.set_zero();
    bias_.grad.resize(1, Shape{units, 1, 1});
    bias_.grad.set_zero();
  }
}

// Every pass is one GEMM (sim/nn/kernels.h) per range of the output: each output value is
// its own fused multiply-add chain over the reduction, so the ranges cannot change a bit.

template <typename T>
void Dense<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  y.resize(x.n(), this->out_);
  const std::int64_t in = in_features_, out = units_;
  const T* w = weight_.value.data();
  parallel_output(x.n(), units_, in_features_, [&](auto r0, auto nr, auto c0, auto nc) {
    GemmArgs<T> g;
    g.m = static_cast<int>(nr);
    g.n = static_cast<int>(nc);
    g.k = in;
    g.a = x.data() + r0 * in;  // X[B x In]
    g.a_rows = in;
    g.a_cols = 1;
    g.b = w + c0;  // W[In x Out]
    g.b_rows = out;
    g.b_cols = 1;
    g.c = y.data() + r0 * out + c0;
    g.ldc = out;
    kernels<T>().gemm(g);
    if (!has_bias_) return;
    const T* b = bias_.value.data() + c0;
    for (std::int64_t r = 0; r < nr; ++r) {
      T* row = y.data() + (r0 + r) * out + c0;
      for (std::int64_t c = 0; c < nc; ++c) row[c] += b[c];
    }
  });
}

template <typename T>
void Dense<T>::backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                             Tensor<T>& dx) {
  dx.resize(dy.n(), this->in_);
  const std::int64_t in = in_features_, out = units_;
  const T* w = weight_.value.data();
  parallel_output(dy.n(), in_features_, units_, [&](auto r0, auto nr, auto c0, auto nc) {
    GemmArgs<T> g;
    g.m = static_cast<int>(nr);
    g.n = static_cast<int>(nc);
    g.k = out;
    g.a = dy.data() + r0 * out;  // dY[B x Out]
    g.a_rows = out;
    g.a_cols = 1;
    g.b = w + c0 * out;  // W^T[Out x In]: W's rows read as columns
    g.b_rows = 1;
    g.b_cols = out;
    g.c = dx.data() + r0 * in + c0;
    g.ldc = in;
    kernels<T>().gemm(g);
  });
}

template <typename T>
void Dense<T>::backward_weight(const Tensor<T>& x, const Tensor<T>& dy) {
  // Every value of dW sums over the whole batch inside its own range, continuing from the
  // gradient accumulated so far.
  const std::int64_t in = in_features_, out = units_;
  T* dw = weight_.grad.data();
  parallel_output(in_features_, units_, x.n(), [&](auto r0, auto nr, auto c0, auto nc) {
    GemmArgs<T> g;
    g.m = static_cast<int>(nr);
    g.n = static_cast<int>(nc);
    g.k = x.n();
    g.a = x.data() + r0;  // X^T[In x B]: X's columns read as rows
    g.a_rows = 1;
    g.a_cols = in;
    g.b = dy.data() + c0;  // dY[B x Out]
    g.b_rows = out;
    g.b_cols = 1;
    g.c = dw + r0 * out + c0;
    g.ldc = out;
    g.accumulate = true;
    kernels<T>().gemm(g);
  });
  if (!has_bias_) return;
  // db[j] += dY[0][j] + dY[1][j] + ... in sample order (the loop runs across outputs).
  T* db = bias_.grad.data();
  for (int n = 0; n < dy.n(); ++n) {
    const T* row = dy.sample(n);
    for (std::int64_t j = 0; j < out; ++j) db[j] += row[j];
  }
}

template <typename T>
std::vector<Param<T>*> Dense<T>::params() {
  if (has_bias_) return {&weight_, &bias_};
  return {&weight_};
}

template <typename T>
void Dense<T>::init(const InitSpec& spec, Rng& rng) {
  init_params<T>(spec, rng, in_features_, units_, weight_.value,
                 has_bias_ ? &bias_.value : nullptr);
}

template class Dense<float>;
template class Dense<double>;

}  // namespace trainsim
