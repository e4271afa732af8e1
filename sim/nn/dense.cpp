#include "sim/nn/dense.h"

#include "sim/core/parallel.h"
#include "sim/nn/init.h"

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

template <typename T>
void Dense<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  y.resize(x.n(), this->out_);
  parallel_output(x.n(), units_, in_features_, [&](auto r0, auto nr, auto c0, auto nc) {
    auto ym = y.mat().block(r0, c0, nr, nc);
    ym.noalias() = x.mat().middleRows(r0, nr) * weight_.value.mat().middleCols(c0, nc);
    if (has_bias_) ym.rowwise() += bias_.value.mat().row(0).segment(c0, nc);
  });
}

template <typename T>
void Dense<T>::backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                             Tensor<T>& dx) {
  dx.resize(dy.n(), this->in_);
  parallel_output(dy.n(), in_features_, units_, [&](auto r0, auto nr, auto c0, auto nc) {
    dx.mat().block(r0, c0, nr, nc).noalias() =
        dy.mat().middleRows(r0, nr) * weight_.value.mat().middleRows(c0, nc).transpose();
  });
}

template <typename T>
void Dense<T>::backward_weight(const Tensor<T>& x, const Tensor<T>& dy) {
  // Every value of dW sums over the whole batch inside its own range.
  parallel_output(in_features_, units_, x.n(), [&](auto r0, auto nr, auto c0, auto nc) {
    weight_.grad.mat().block(r0, c0, nr, nc).noalias() +=
        x.mat().middleCols(r0, nr).transpose() * dy.mat().middleCols(c0, nc);
  });
  if (has_bias_) bias_.grad.mat().row(0) += dy.mat().colwise().sum();
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
