#include "sim/nn/activation.h"

#include <algorithm>

namespace trainsim {

template <typename T>
void LeakyRelu<T>::forward(const Tensor<T>& x, Tensor<T>& y) {
  y.resize(x.n(), this->out_);
  const T* xs = x.data();
  T* ys = y.data();
  const std::size_t count = x.size();
  for (std::size_t i = 0; i < count; ++i) ys[i] = xs[i] > T(0) ? xs[i] : slope_ * xs[i];
}

template <typename T>
void LeakyRelu<T>::backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                                 Tensor<T>& dx) {
  dx.resize(dy.n(), this->in_);
  const T* xs = x.data();
  const T* g = dy.data();
  T* out = dx.data();
  const std::size_t count = dy.size();
  for (std::size_t i = 0; i < count; ++i) out[i] = xs[i] > T(0) ? g[i] : slope_ * g[i];
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
