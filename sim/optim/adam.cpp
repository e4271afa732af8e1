#include "sim/optim/adam.h"

#include <cmath>

#include "sim/optim/optimizer_registry.h"

namespace trainsim {

OptimizerWork adam_work(const OptimizerSpec&) {
  return {2, 10};
}

template <typename T>
void Adam<T>::step(const std::vector<Param<T>*>& params, int batch) {
  if (m_.size() != params.size()) {
    m_.clear();
    v_.clear();
    for (const auto* p : params) {
      m_.emplace_back(p->value.size(), T(0));
      v_.emplace_back(p->value.size(), T(0));
    }
  }
  ++t_;
  const double b1 = this->spec_.beta1, b2 = this->spec_.beta2;
  // Fold both bias corrections into the step size, as the paper's efficient form does.
  const T step =
      static_cast<T>(this->spec_.lr * std::sqrt(1.0 - std::pow(b2, t_)) / (1.0 - std::pow(b1, t_)));
  const T eps = static_cast<T>(this->spec_.epsilon);
  const T tb1 = static_cast<T>(b1), tb2 = static_cast<T>(b2);
  for (std::size_t k = 0; k < params.size(); ++k) {
    Param<T>& p = *params[k];
    T* w = p.value.data();
    const T* g = p.grad.data();
    T* m = m_[k].data();
    T* v = v_[k].data();
    this->for_ranges(p.value.size(), [&](std::size_t begin, std::size_t end) {
      this->prepare_gradient(p, batch, begin, end);
      for (std::size_t i = begin; i < end; ++i) {
        m[i] = tb1 * m[i] + (T(1) - tb1) * g[i];
        v[i] = tb2 * v[i] + (T(1) - tb2) * g[i] * g[i];
        w[i] -= step * m[i] / (std::sqrt(v[i]) + eps);
      }
    });
  }
}

template class Adam<float>;
template class Adam<double>;

}  // namespace trainsim
