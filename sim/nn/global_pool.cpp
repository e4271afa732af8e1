#include "sim/nn/global_pool.h"

#include <algorithm>

#include "sim/core/parallel.h"

namespace trainsim {

// One task per sample; each plane's sum in T, in order, as avgpool2d sums a window.
template <typename T>
void GlobalAvgPool<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  y.resize(x.n(), this->out_);
  const std::int64_t plane = static_cast<std::int64_t>(this->in_.h) * this->in_.w;
  const T inv = T(1) / static_cast<T>(plane);
  parallel_for(x.n(), [&](int b, int) {
    for (int c = 0; c < this->in_.c; ++c) {
      const T* p = x.sample(b) + c * plane;
      T sum = 0;
      for (std::int64_t i = 0; i < plane; ++i) sum += p[i];
      y.sample(b)[c] = sum * inv;
    }
  });
}

template <typename T>
void GlobalAvgPool<T>::backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                                     Tensor<T>& dx) {
  dx.resize(dy.n(), this->in_);
  const std::int64_t plane = static_cast<std::int64_t>(this->in_.h) * this->in_.w;
  const T inv = T(1) / static_cast<T>(plane);
  parallel_for(dy.n(), [&](int b, int) {
    for (int c = 0; c < this->in_.c; ++c) {
      T* p = dx.sample(b) + c * plane;
      std::fill(p, p + plane, dy.sample(b)[c] * inv);
    }
  });
}

template class GlobalAvgPool<float>;
template class GlobalAvgPool<double>;

}  // namespace trainsim
