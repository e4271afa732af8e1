#include "sim/optim/optimizer.h"

#include <algorithm>

namespace trainsim {

template <typename T>
void Optimizer<T>::prepare_gradient(Param<T>& p, int batch) const {
  const T scale = spec_.reduction == "mean" ? T(1) / static_cast<T>(batch) : T(1);
  const T decay = static_cast<T>(spec_.weight_decay);
  const T clip = static_cast<T>(spec_.clip);
  T* g = p.grad.data();
  const T* w = p.value.data();
  const std::size_t count = p.grad.size();
  for (std::size_t i = 0; i < count; ++i) {
    T v = g[i] * scale + decay * w[i];
    if (clip > T(0)) v = std::clamp(v, -clip, clip);
    g[i] = v;
  }
}

template class Optimizer<float>;
template class Optimizer<double>;

}  // namespace trainsim
