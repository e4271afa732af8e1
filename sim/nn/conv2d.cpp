#include "sim/nn/conv2d.h"

#include <algorithm>

#include "sim/core/parallel.h"
#include "sim/nn/init.h"
#include "sim/nn/kernels.h"
#include "sim/nn/simd.h"

namespace trainsim {

namespace {
// At most kMaxThreads blocks per pass, so that each GEMM stays large. A block holds at least
// kBlockGrain multiply-adds (small layers run as one block, with no thread hand-off) and its
// patch matrix at most kPatchValuesMax values (so it stays in the core's L2 cache while its
// GEMM reads it).
constexpr int kMaxBlocks = kMaxThreads;
constexpr std::int64_t kBlockGrain = 1 << 16;
constexpr std::int64_t kPatchValuesMax = 1 << 18;
// Backward-weight outputs up to this size use dot_gemm (sim/nn/kernels.h).
constexpr std::int64_t kDotOutputMax = 1024;

// C[m x n] (+)= A B, all three row-major and contiguous; `transpose_a` / `transpose_b` read A
// (stored k x m) or B (stored n x k) transposed.
template <typename T>
void product(int m, int n, std::int64_t k, const T* a, bool transpose_a, const T* b,
             bool transpose_b, T* c, bool accumulate) {
  GemmArgs<T> g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = a;
  g.a_rows = transpose_a ? 1 : k;
  g.a_cols = transpose_a ? m : 1;
  g.b = b;
  g.b_rows = transpose_b ? 1 : n;
  g.b_cols = transpose_b ? k : 1;
  g.c = c;
  g.ldc = n;
  g.accumulate = accumulate;
  kernels<T>().gemm(g);
}
}  // namespace

template <typename T>
Conv2d<T>::Conv2d(const Shape& in, int filters, int kernel, int stride, int padding, bool bias,
                  int groups)
    : filters_(filters),
      kernel_(kernel),
      stride_(stride),
      padding_(padding),
      groups_(groups),
      group_channels_(in.c / groups),
      group_filters_(filters / groups),
      patch_(static_cast<std::int64_t>(in.c / groups) * kernel * kernel),
      has_bias_(bias) {
  this->in_ = in;
  this->out_ = Shape{filters, (in.h + 2 * padding - kernel) / stride + 1,
                     (in.w + 2 * padding - kernel) / stride + 1};
  geo_ = ConvGeometry{in, kernel, stride, padding, this->out_.h, this->out_.w};
  direct_ = direct_conv_supported(kernel, stride);
  shape_ = DirectShape{group_channels_, group_filters_, kernel, geo_.padded_h(), geo_.padded_w()};
  filter_lanes_ = direct_ && filter_lanes_pay(shape_, simd::kLanes<T>);
  const Shape wshape{group_channels_, kernel, kernel};
  weight_.name = "weight";
  weight_.value.resize(filters, wshape);
  weight_.grad.resize(filters, wshape);
  weight_.grad.set_zero();
  if (has_bias_) {
    bias_.name = "bias";
    bias_.value.resize(1, Shape{filters, 1, 1});
    bias_.value.set_zero();
    bias_.grad.resize(1, Shape{filters, 1, 1});
    bias_.grad.set_zero();
  }
}

template <typename T>
typename Conv2d<T>::Blocks Conv2d<T>::blocks(int batch) const {
  const std::int64_t sample_macs = this->out_.size() * patch_;
  const int count = task_count(batch * sample_macs, kBlockGrain, std::min(batch, kMaxBlocks));
  int samples = (batch + count - 1) / count;
  samples = static_cast<int>(
      std::clamp<std::int64_t>(kPatchValuesMax / (patch_ * geo_.pixels()), 1, samples));
  return {(batch + samples - 1) / samples, samples};
}

template <typename T>
typename Conv2d<T>::Scratch& Conv2d<T>::scratch(int worker, int samples) {
  Scratch& s = scratch_[static_cast<std::size_t>(worker)];
  if (direct_) return s;  // the direct passes size their own buffers (conv2d_direct.cpp)
  const std::int64_t columns = samples * geo_.pixels();
  const auto cols = static_cast<std::size_t>(patch_ * columns);
  const auto rows = static_cast<std::size_t>(group_filters_ * columns);
  const auto padded = static_cast<std::size_t>(samples * geo_.padded_size());
  if (s.cols.size() < cols) s.cols.resize(cols);
  if (s.rows.size() < rows) s.rows.resize(rows);
  if (padding_ > 0 && s.padded.size() < padded) s.padded.resize(padded);
  return s;
}

template <typename T>
const T* Conv2d<T>::padded_input(Scratch& s, const T* x, int samples) const {
  if (padding_ == 0) return x;
  pad_samples(geo_, x, samples, s.padded.data());
  return s.padded.data();
}

template <typename T>
void Conv2d<T>::gather_rows(const Tensor<T>& dy, const Block& b, int g, T* rows) const {
  const std::int64_t pixels = geo_.pixels();
  for (int f = 0; f < group_filters_; ++f)
    for (int n = 0; n < b.samples; ++n) {
      const T* src = dy.sample(b.first + n) + (g * group_filters_ + f) * pixels;
      T* dst = rows + f * b.columns + n * pixels;
      for (std::int64_t p = 0; p < pixels; ++p) dst[p] = src[p];
    }
}

template <typename T>
void Conv2d<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  y.resize(x.n(), this->out_);
  if (direct_) return forward_direct(x, y);
  const std::int64_t pixels = geo_.pixels();
  for_each_block(x.n(), blocks(x.n()).count, [&](int, const Block& b, Scratch& s) {
    const T* xpad = padded_input(s, x.sample(b.first), b.samples);
    T* cols = s.cols.data();
    T* out = s.rows.data();
    const int columns = static_cast<int>(b.columns);
    for (int g = 0; g < groups_; ++g) {
      im2col(geo_, xpad, b.samples, g * group_channels_, group_channels_, cols);
      product(group_filters_, columns, patch_, group_weight(g), false, cols, false, out, false);
      // The GEMM's rows are filter-major over the block; y is sample-major.
      for (int f = 0; f < group_filters_; ++f) {
        const int filter = g * group_filters_ + f;
        const T bias = has_bias_ ? bias_.value[static_cast<std::size_t>(filter)] : T(0);
        for (int n = 0; n < b.samples; ++n) {
          const T* src = out + f * b.columns + n * pixels;
          T* dst = y.sample(b.first + n) + filter * pixels;
          for (std::int64_t p = 0; p < pixels; ++p) dst[p] = src[p] + bias;
        }
      }
    }
  });
}

template <typename T>
void Conv2d<T>::backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                              Tensor<T>& dx) {
  dx.resize(dy.n(), this->in_);
  if (direct_) return backward_data_direct(dy, dx);
  for_each_block(dy.n(), blocks(dy.n()).count, [&](int, const Block& b, Scratch& s) {
    T* dcols = s.cols.data();
    T* grad = s.rows.data();
    const int columns = static_cast<int>(b.columns);
    // Gradients gather in the padded layout, whose interior is then dx.
    T* dxpad = padding_ > 0 ? s.padded.data() : dx.sample(b.first);
    std::fill(dxpad, dxpad + b.samples * geo_.padded_size(), T(0));
    for (int g = 0; g < groups_; ++g) {
      gather_rows(dy, b, g, grad);
      product(static_cast<int>(patch_), columns, group_filters_, group_weight(g), true, grad, false,
              dcols, false);
      col2im(geo_, dcols, b.samples, g * group_channels_, group_channels_, dxpad);
    }
    if (padding_ > 0) crop_samples(geo_, dxpad, b.samples, dx.sample(b.first));
  });
}

template <typename T>
void Conv2d<T>::backward_weight(const Tensor<T>& x, const Tensor<T>& dy) {
  // At most kMaxBlocks reduction tasks, each summing its blocks in order into its own
  // partial gradient; the partials are then summed in task order.
  const int tasks = std::min(blocks(x.n()).count, kMaxBlocks);
  const auto wsize = static_cast<std::size_t>(filters_ * patch_);
  partial_w_.resize(static_cast<std::size_t>(tasks));
  partial_b_.resize(static_cast<std::size_t>(tasks));
  for (int t = 0; t < tasks; ++t) {
    partial_w_[static_cast<std::size_t>(t)].assign(wsize, T(0));
    partial_b_[static_cast<std::size_t>(t)].assign(static_cast<std::size_t>(filters_), T(0));
  }
  if (direct_) {
    backward_weight_direct(x, dy, tasks);
  } else {
    backward_weight_gemm(x, dy, tasks);
  }
  T* dw = weight_.grad.data();
  for (const auto& pw : partial_w_)
    for (std::size_t i = 0; i < wsize; ++i) dw[i] += pw[i];
  if (!has_bias_) return;
  T* db = bias_.grad.data();
  for (const auto& pb : partial_b_)
    for (int f = 0; f < filters_; ++f) db[f] += pb[static_cast<std::size_t>(f)];
}

template <typename T>
void Conv2d<T>::backward_weight_gemm(const Tensor<T>& x, const Tensor<T>& dy, int tasks) {
  const bool dot = group_filters_ * patch_ <= kDotOutputMax;
  for_each_block(x.n(), tasks, [&](int task, const Block& b, Scratch& s) {
    const T* xpad = padded_input(s, x.sample(b.first), b.samples);
    T* cols = s.cols.data();
    T* grad = s.rows.data();
    const KernelFns<T>& k = kernels<T>();
    for (int g = 0; g < groups_; ++g) {
      im2col(geo_, xpad, b.samples, g * group_channels_, group_channels_, cols);
      gather_rows(dy, b, g, grad);
      T* dw = partial_w_[static_cast<std::size_t>(task)].data() + g * group_filters_ * patch_;
      if (dot) {
        k.dot_gemm(grad, cols, dw, group_filters_, static_cast<int>(patch_), b.columns);
      } else {
        product(group_filters_, static_cast<int>(patch_), b.columns, grad, false, cols, true, dw,
                true);
      }
      if (has_bias_)
        k.row_sums(grad, group_filters_, b.columns,
                   partial_b_[static_cast<std::size_t>(task)].data() + g * group_filters_);
    }
  });
}

template <typename T>
std::vector<Param<T>*> Conv2d<T>::params() {
  if (has_bias_) return {&weight_, &bias_};
  return {&weight_};
}

template <typename T>
std::int64_t Conv2d<T>::forward_macs() const {
  return this->out_.size() * patch_;
}

template <typename T>
void Conv2d<T>::init(const InitSpec& spec, Rng& rng) {
  // Fans as PyTorch counts them for a weight of shape [F, C/G, k, k].
  const std::int64_t k2 = static_cast<std::int64_t>(kernel_) * kernel_;
  init_params<T>(spec, rng, patch_, filters_ * k2, weight_.value,
                 has_bias_ ? &bias_.value : nullptr);
}

template class Conv2d<float>;
template class Conv2d<double>;

}  // namespace trainsim
