#include "sim/nn/activation.h"

#include <algorithm>
#include <cmath>

#include "sim/core/parallel.h"

namespace trainsim {

namespace {
// Element-wise work per task: below this a hand-off to another thread costs more than it saves.
constexpr std::int64_t kGrain = 1 << 15;
}  // namespace

template <typename T>
void LeakyRelu<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  y.resize(x.n(), this->out_);
  const T* xs = x.data();
  T* ys = y.data();
  const T slope = slope_;  // a local: a store through ys could alias the member
  parallel_ranges(static_cast<std::int64_t>(x.size()), kGrain,
                  [=](std::int64_t begin, std::int64_t end) {
                    // Both sides computed, then selected: branch-free, so it vectorises.
                    for (std::int64_t i = begin; i < end; ++i) {
                      const T v = xs[i], leak = slope * v;
                      ys[i] = v > T(0) ? v : leak;
                    }
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
                    for (std::int64_t i = begin; i < end; ++i) {
                      const T v = g[i], leak = slope * v;
                      out[i] = xs[i] > T(0) ? v : leak;
                    }
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

}  // namespace trainsim
