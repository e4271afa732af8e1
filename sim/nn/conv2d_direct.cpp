// Conv2d's passes through the direct kernels (sim/nn/direct_conv.h): stride 1, kernels of 2
// to 7. Same blocks of samples, tasks and partial gradients as the GEMM passes in conv2d.cpp.
#include <algorithm>

#include "sim/nn/conv2d.h"
#include "sim/nn/kernels.h"

namespace trainsim {

namespace {
template <typename T>
void grow(AlignedVector<T>& v, std::int64_t n) {
  if (static_cast<std::int64_t>(v.size()) < n) v.resize(static_cast<std::size_t>(n));
}
}  // namespace

template <typename T>
const T* Conv2d<T>::padded_block(Scratch& s, const T* x, int samples) const {
  const std::int64_t used = samples * geo_.padded_size();
  grow(s.padded, used + shape_.slack());
  pad_samples(geo_, x, samples, s.padded.data());
  std::fill(s.padded.data() + used, s.padded.data() + used + shape_.slack(), T(0));
  return s.padded.data();
}

template <typename T>
std::int64_t Conv2d<T>::pack_weights(void (*pack)(const DirectShape&, const T*, T*),
                                     std::int64_t per_group) {
  packed_.resize(static_cast<std::size_t>(per_group * groups_));
  for (int g = 0; g < groups_; ++g) pack(shape_, group_weight(g), packed_.data() + g * per_group);
  return per_group;
}

template <typename T>
void Conv2d<T>::forward_direct(const Tensor<T>& x, Tensor<T>& y) {
  if (filter_lanes_) return forward_filter_lanes(x, y);
  const std::int64_t packed = pack_weights(&pack_forward_weights<T>, packed_size(shape_));
  const std::int64_t plane = shape_.plane(), wide = shape_.wide(), pixels = geo_.pixels();
  const int out_h = geo_.out_h, out_w = geo_.out_w, pitch = shape_.pitch;
  for_each_block(x.n(), blocks(x.n()).count, [&](int, const Block& b, Scratch& s) {
    const T* xpad = padded_block(s, x.sample(b.first), b.samples);
    grow(s.rows, group_filters_ * wide);
    for (int n = 0; n < b.samples; ++n) {
      for (int g = 0; g < groups_; ++g) {
        const T* in = xpad + n * geo_.padded_size() + g * group_channels_ * plane;
        kernels<T>().direct_forward(shape_, packed_.data() + g * packed, in, s.rows.data());
        // The wide rows' pixels, plus the bias, into y.
        for (int f = 0; f < group_filters_; ++f) {
          const int filter = g * group_filters_ + f;
          const T bias = has_bias_ ? bias_.value[static_cast<std::size_t>(filter)] : T(0);
          const T* src = s.rows.data() + f * wide;
          T* dst = y.sample(b.first + n) + filter * pixels;
          for (int oh = 0; oh < out_h; ++oh)
            for (int ow = 0; ow < out_w; ++ow) dst[oh * out_w + ow] = src[oh * pitch + ow] + bias;
        }
      }
    }
  });
}

template <typename T>
void Conv2d<T>::backward_data_direct(const Tensor<T>& dy, Tensor<T>& dx) {
  const std::int64_t packed = pack_weights(&pack_backward_data_weights<T>, packed_size(shape_));
  const std::int64_t plane = shape_.plane(), wide = shape_.wide(), padded = geo_.padded_size();
  for_each_block(dy.n(), blocks(dy.n()).count, [&](int, const Block& b, Scratch& s) {
    const T* grad = wide_gradient(s, dy, b);
    // The padded input's gradient, then its interior into dx.
    const std::int64_t used = b.samples * padded;
    grow(s.padded, used + shape_.slack());
    std::fill(s.padded.data(), s.padded.data() + used + shape_.slack(), T(0));
    for (int n = 0; n < b.samples; ++n)
      for (int g = 0; g < groups_; ++g)
        kernels<T>().direct_backward_data(
            shape_, packed_.data() + g * packed, grad + (n * filters_ + g * group_filters_) * wide,
            s.padded.data() + n * padded + g * group_channels_ * plane);
    crop_samples(geo_, s.padded.data(), b.samples, dx.sample(b.first));
  });
}

template <typename T>
const T* Conv2d<T>::wide_gradient(Scratch& s, const Tensor<T>& dy, const Block& b) const {
  const std::int64_t wide = shape_.wide(), pixels = geo_.pixels(), per_sample = filters_ * wide;
  const int out_h = geo_.out_h, out_w = geo_.out_w, pitch = shape_.pitch;
  grow(s.rows, b.samples * per_sample);
  // Each row's pixels, then zeros to the next row, and zeros from the last row to wide().
  for (int n = 0; n < b.samples; ++n)
    for (int f = 0; f < filters_; ++f) {
      const T* src = dy.sample(b.first + n) + f * pixels;
      T* dst = s.rows.data() + n * per_sample + f * wide;
      for (int oh = 0; oh < out_h; ++oh) {
        std::copy(src + oh * out_w, src + (oh + 1) * out_w, dst + oh * pitch);
        std::fill(dst + oh * pitch + out_w, dst + (oh + 1) * pitch, T(0));
      }
      std::fill(dst + static_cast<std::int64_t>(out_h) * pitch, dst + wide, T(0));
    }
  return s.rows.data();
}

template <typename T>
void Conv2d<T>::backward_weight_direct(const Tensor<T>& x, const Tensor<T>& dy, int tasks) {
  if (filter_lanes_) return backward_weight_filter_lanes(x, dy, tasks);
  const std::int64_t plane = shape_.plane(), wide = shape_.wide();
  for_each_block(x.n(), tasks, [&](int task, const Block& b, Scratch& s) {
    const T* xpad = padded_block(s, x.sample(b.first), b.samples);
    const std::int64_t per_sample = filters_ * wide;
    const T* rows = wide_gradient(s, dy, b);
    T* dw = partial_w_[static_cast<std::size_t>(task)].data();
    T* db = partial_b_[static_cast<std::size_t>(task)].data();
    for (int g = 0; g < groups_; ++g) {
      const T* grad = rows + g * group_filters_ * wide;
      kernels<T>().direct_weight_grad(shape_, grad, per_sample, xpad + g * group_channels_ * plane,
                                      geo_.padded_size(), b.samples,
                                      dw + g * group_filters_ * patch_);
      if (has_bias_)
        kernels<T>().direct_bias_grad(shape_, grad, per_sample, b.samples, db + g * group_filters_);
    }
  });
}

template <typename T>
void Conv2d<T>::forward_filter_lanes(const Tensor<T>& x, Tensor<T>& y) {
  const std::int64_t packed = pack_weights(
      &pack_filter_lanes<T>, shape_.channels * kernel_ * kernel_ * filter_lanes_width<T>(shape_));
  const std::int64_t plane = shape_.plane(), pixels = geo_.pixels();
  for_each_block(x.n(), blocks(x.n()).count, [&](int, const Block& b, Scratch& s) {
    const T* xpad = padded_block(s, x.sample(b.first), b.samples);
    // The block's samples in one run: their pixels fill the kernel's blocks of pixels.
    const SampleRun run{b.samples, geo_.padded_size(), filters_ * pixels};
    for (int g = 0; g < groups_; ++g)
      kernels<T>().direct_forward_filters(
          shape_, packed_.data() + g * packed, xpad + g * group_channels_ * plane,
          has_bias_ ? bias_.value.data() + g * group_filters_ : nullptr, run,
          y.sample(b.first) + g * group_filters_ * pixels);
  });
}

template <typename T>
void Conv2d<T>::backward_weight_filter_lanes(const Tensor<T>& x, const Tensor<T>& dy, int tasks) {
  const std::int64_t plane = shape_.plane(), pixels = geo_.pixels(), padded = geo_.padded_size();
  const std::int64_t width = filter_lanes_width<T>(shape_), acc_size = patch_ * width;
  // Samples per kernel call: as many transposed gradients as kTransposedValues holds (at
  // least one), so that a layer of few pixels a sample still fills the kernel's loop over
  // pixels; the sums run over the samples in order whatever the cut.
  constexpr std::int64_t kTransposedValues = 1 << 15;
  for_each_block(x.n(), tasks, [&](int task, const Block& b, Scratch& s) {
    const T* xpad = padded_block(s, x.sample(b.first), b.samples);
    const int chunk = static_cast<int>(
        std::clamp<std::int64_t>(kTransposedValues / (pixels * width), 1, b.samples));
    // s.rows: `chunk` samples' transposed gradients, then the accumulators and the bias sums.
    grow(s.rows, chunk * pixels * width + acc_size + width);
    T* dyt = s.rows.data();
    T* acc = dyt + chunk * pixels * width;
    T* sums = acc + acc_size;
    T* dw = partial_w_[static_cast<std::size_t>(task)].data();
    T* db = partial_b_[static_cast<std::size_t>(task)].data();
    for (int g = 0; g < groups_; ++g) {
      std::fill(acc, acc + acc_size + width, T(0));
      for (int n0 = 0; n0 < b.samples; n0 += chunk) {
        const int count = std::min(chunk, b.samples - n0);
        for (int i = 0; i < count; ++i)
          transpose_gradient(shape_, dy.sample(b.first + n0 + i) + g * group_filters_ * pixels,
                             dyt + i * pixels * width);
        const SampleRun run{count, padded, 0};
        kernels<T>().direct_weight_grad_filters(
            shape_, dyt, xpad + n0 * padded + g * group_channels_ * plane, run, acc);
        if (has_bias_) kernels<T>().sum_gradient_filters(shape_, dyt, count, sums);
      }
      finish_weight_grad_filters(shape_, acc, dw + g * group_filters_ * patch_);
      if (has_bias_)
        for (int f = 0; f < group_filters_; ++f) db[g * group_filters_ + f] += sums[f];
    }
  });
}

#define TRAINSIM_CONV2D_DIRECT(T)                                                                 \
  template const T* Conv2d<T>::padded_block(Scratch&, const T*, int) const;                       \
  template std::int64_t Conv2d<T>::pack_weights(void (*)(const DirectShape&, const T*, T*),       \
                                                std::int64_t);                                    \
  template void Conv2d<T>::forward_filter_lanes(const Tensor<T>&, Tensor<T>&);                    \
  template void Conv2d<T>::backward_weight_filter_lanes(const Tensor<T>&, const Tensor<T>&, int); \
  template void Conv2d<T>::forward_direct(const Tensor<T>&, Tensor<T>&);                          \
  template void Conv2d<T>::backward_data_direct(const Tensor<T>&, Tensor<T>&);                    \
  template void Conv2d<T>::backward_weight_direct(const Tensor<T>&, const Tensor<T>&, int);       \
  template const T* Conv2d<T>::wide_gradient(Scratch&, const Tensor<T>&, const Block&) const;
TRAINSIM_CONV2D_DIRECT(float)
TRAINSIM_CONV2D_DIRECT(double)
#undef TRAINSIM_CONV2D_DIRECT

}  // namespace trainsim
