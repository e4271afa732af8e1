#include "sim/optim/sgd.h"

#include "sim/optim/optimizer_registry.h"

namespace trainsim {

OptimizerWork sgd_work(const OptimizerSpec& spec) {
  return spec.momentum > 0 ? OptimizerWork{1, 4} : OptimizerWork{0, 2};
}

template <typename T>
void Sgd<T>::step(const std::vector<Param<T>*>& params, int batch) {
  const T lr = static_cast<T>(this->spec_.lr);
  const T mu = static_cast<T>(this->spec_.momentum);
  if (mu != T(0) && velocity_.size() != params.size()) {
    velocity_.clear();
    for (const auto* p : params) velocity_.emplace_back(p->value.size(), T(0));
  }
  for (std::size_t k = 0; k < params.size(); ++k) {
    Param<T>& p = *params[k];
    T* w = p.value.data();
    const T* g = p.grad.data();
    T* v = mu == T(0) ? nullptr : velocity_[k].data();
    this->for_ranges(p.value.size(), [&](std::size_t begin, std::size_t end) {
      this->prepare_gradient(p, batch, begin, end);
      if (v == nullptr) {
        for (std::size_t i = begin; i < end; ++i) w[i] -= lr * g[i];
        return;
      }
      for (std::size_t i = begin; i < end; ++i) {
        v[i] = mu * v[i] + g[i];
        w[i] -= lr * v[i];
      }
    });
  }
}

template class Sgd<float>;
template class Sgd<double>;

}  // namespace trainsim
