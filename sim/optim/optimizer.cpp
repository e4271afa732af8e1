#include "sim/optim/optimizer.h"

#include <algorithm>

#include "sim/core/parallel.h"

namespace trainsim {

template <typename T>
void Optimizer<T>::prepare_gradient(Param<T>& p, int batch, std::size_t begin,
                                    std::size_t end) const {
  const T scale = spec_.reduction == "mean" ? T(1) / static_cast<T>(batch) : T(1);
  const T decay = static_cast<T>(spec_.weight_decay);
  const T clip = static_cast<T>(spec_.clip);
  T* g = p.grad.data();
  const T* w = p.value.data();
  if (clip > T(0)) {
    for (std::size_t i = begin; i < end; ++i)
      g[i] = std::clamp(g[i] * scale + decay * w[i], -clip, clip);
  } else {
    for (std::size_t i = begin; i < end; ++i) g[i] = g[i] * scale + decay * w[i];
  }
}

template <typename T>
void Optimizer<T>::for_ranges(std::size_t count,
                              const std::function<void(std::size_t, std::size_t)>& fn) {
  constexpr std::int64_t kGrain = 1 << 15;  // elements per task
  parallel_ranges(static_cast<std::int64_t>(count), kGrain,
                  [&](std::int64_t begin, std::int64_t end) {
                    fn(static_cast<std::size_t>(begin), static_cast<std::size_t>(end));
                  });
}

template class Optimizer<float>;
template class Optimizer<double>;

}  // namespace trainsim
