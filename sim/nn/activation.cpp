#include "sim/nn/activation.h"

#include <algorithm>

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
void Flatten<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  y.resize(x.n(), this->out_);
  std::copy(x.data(), x.data() + x.size(), y.data());
}

template <typename T>
void Flatten<T>::backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                               Tensor<T>& dx) {
  dx.resize(dy.n(), this->in_);
  std::copy(dy.data(), dy.data() + dy.size(), dx.data());
}

template class LeakyRelu<float>;
template class LeakyRelu<double>;
template class Flatten<float>;
template class Flatten<double>;

}  // namespace trainsim
