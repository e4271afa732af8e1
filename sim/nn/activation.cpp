#include "sim/nn/activation.h"

#include <algorithm>
#include <cmath>

#include "sim/core/parallel.h"
#include "sim/nn/simd.h"

namespace trainsim {

namespace {
// Element-wise work per task: below this a hand-off to another thread costs more than it saves
// (a few microseconds while the pool's workers wait between a batch's passes). At 2^14 the
// 51k values of LeNet-5's second ReLU make three tasks; at 2^15 they made one, leaving a core
// idle.
constexpr std::int64_t kGrain = 1 << 14;

// out[i] = v[i] times the leaky ReLU's slope at x[i] (1 or `slope`): the forward pass with
// v = x, the backward pass with v = dy. Written with sim/nn/simd.h because GCC will not
// vectorise the plain loop without AVX-512: it turns `v > 0 ? v : slope * v` (or a multiply by
// `x > 0 ? 1 : slope`, after folding v * 1) into a branch around the multiply, 10x slower on
// AVX2. v * 1 == v and v * slope are the select's own values, so every form gives the same
// bits, -0, infinities and NaN included.
template <typename T>
void scale_by_gain(const T* x, const T* v, T* out, std::int64_t n, T slope) {
  constexpr int kLanes = simd::kLanes<T>;
  const simd::Vec<T> zero = simd::splat(T(0)), one = simd::splat(T(1)), leak = simd::splat(slope);
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    simd::store(out + i, simd::load(v + i) * simd::select<T>(simd::load(x + i) > zero, one, leak));
  for (; i < n; ++i) out[i] = v[i] * (x[i] > T(0) ? T(1) : slope);
}
}  // namespace

template <typename T>
void LeakyRelu<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  y.resize(x.n(), this->out_);
  const T* xs = x.data();
  T* ys = y.data();
  const T slope = slope_;  // a local: a store through ys could alias the member
  parallel_ranges(static_cast<std::int64_t>(x.size()), kGrain,
                  [=](std::int64_t begin, std::int64_t end) {
                    scale_by_gain(xs + begin, xs + begin, ys + begin, end - begin, slope);
                  });
}

template <typename T>
void LeakyRelu<T>::backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                                 Tensor<T>& dx) {
  dx.resize(dy.n(), this->in_);
  const T* xs = x.data();
  const T* g = dy.data();
  T* out = dx.data();
  const T slope = slope_;
  parallel_ranges(static_cast<std::int64_t>(dy.size()), kGrain,
                  [=](std::int64_t begin, std::int64_t end) {
                    scale_by_gain(xs + begin, g + begin, out + begin, end - begin, slope);
                  });
}

template <typename T>
void Reshape<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  y.resize(x.n(), this->out_);
  std::copy(x.data(), x.data() + x.size(), y.data());
}

template <typename T>
void Reshape<T>::backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                               Tensor<T>& dx) {
  dx.resize(dy.n(), this->in_);
  std::copy(dy.data(), dy.data() + dy.size(), dx.data());
}

namespace {

// GELU's tanh form: 0.5 x (1 + tanh(u)), u = sqrt(2 / pi) (x + 0.044715 x^3).
constexpr double kGeluScale = 0.7978845608028654, kGeluCubic = 0.044715;

template <typename T>
T smooth(Smooth fn, T v) {
  switch (fn) {
    case Smooth::kTanh:
      return std::tanh(v);
    case Smooth::kSigmoid:
      return T(1) / (T(1) + std::exp(-v));
    case Smooth::kGelu:
      break;
  }
  return T(0.5) * v * (T(1) + std::tanh(T(kGeluScale) * (v + T(kGeluCubic) * v * v * v)));
}

// dy/dx from the input v and the output out.
template <typename T>
T smooth_derivative(Smooth fn, T v, T out) {
  switch (fn) {
    case Smooth::kTanh:
      return T(1) - out * out;
    case Smooth::kSigmoid:
      return out * (T(1) - out);
    case Smooth::kGelu:
      break;
  }
  const T t = std::tanh(T(kGeluScale) * (v + T(kGeluCubic) * v * v * v));
  const T du = T(kGeluScale) * (T(1) + T(3 * kGeluCubic) * v * v);
  return T(0.5) * (T(1) + t) + T(0.5) * v * (T(1) - t * t) * du;
}

}  // namespace

template <typename T>
std::string SmoothActivation<T>::type() const {
  switch (fn_) {
    case Smooth::kTanh:
      return "tanh";
    case Smooth::kSigmoid:
      return "sigmoid";
    case Smooth::kGelu:
      break;
  }
  return "gelu";
}

template <typename T>
void SmoothActivation<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  y.resize(x.n(), this->out_);
  const T* xs = x.data();
  T* ys = y.data();
  const Smooth fn = fn_;
  parallel_ranges(static_cast<std::int64_t>(x.size()), kGrain,
                  [=](std::int64_t begin, std::int64_t end) {
                    for (std::int64_t i = begin; i < end; ++i) ys[i] = smooth(fn, xs[i]);
                  });
}

template <typename T>
void SmoothActivation<T>::backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                                        Tensor<T>& dx) {
  dx.resize(dy.n(), this->in_);
  const T *xs = x.data(), *ys = y.data(), *g = dy.data();
  T* out = dx.data();
  const Smooth fn = fn_;
  parallel_ranges(static_cast<std::int64_t>(dy.size()), kGrain,
                  [=](std::int64_t begin, std::int64_t end) {
                    for (std::int64_t i = begin; i < end; ++i)
                      out[i] = g[i] * smooth_derivative(fn, xs[i], ys[i]);
                  });
}

template class LeakyRelu<float>;
template class LeakyRelu<double>;
template class Reshape<float>;
template class Reshape<double>;
template class Flatten<float>;
template class Flatten<double>;
template class SmoothActivation<float>;
template class SmoothActivation<double>;

std::string reshape_error(const Shape& in, const Shape& to) {
  // Each extent is at most 2^20 (key_range::kExtent): the product fits in 64 bits.
  const std::int64_t values = std::int64_t{to.c} * to.h * to.w;
  if (values == in.size()) return "";
  return "shape " + to.str() + " has " + std::to_string(values) + " values, the input " + in.str() +
         " " + std::to_string(in.size());
}

}  // namespace trainsim
