#include "sim/nn/init.h"

#include <cmath>

#include "sim/core/error.h"

namespace trainsim {

template <typename T>
void init_params(const InitSpec& spec, Rng& rng, std::int64_t fan_in, std::int64_t fan_out,
                 Tensor<T>& weight, Tensor<T>* bias) {
  const double fi = static_cast<double>(fan_in), fo = static_cast<double>(fan_out);
  double bias_bound = 0.0;  // zero biases unless the scheme says otherwise
  if (spec.scheme == "pytorch_default") {
    // torch.nn.Linear / Conv2d: kaiming_uniform(a=sqrt(5)) == U(+-1/sqrt(fan_in)).
    const double b = 1.0 / std::sqrt(fi);
    for (auto& v : weight.vec()) v = static_cast<T>(rng.uniform(-b, b));
    bias_bound = b;
  } else if (spec.scheme == "he_uniform") {
    const double b = std::sqrt(6.0 / fi);
    for (auto& v : weight.vec()) v = static_cast<T>(rng.uniform(-b, b));
  } else if (spec.scheme == "he_normal") {
    const double sd = std::sqrt(2.0 / fi);
    for (auto& v : weight.vec()) v = static_cast<T>(sd * rng.normal());
  } else if (spec.scheme == "xavier_uniform") {
    const double b = std::sqrt(6.0 / (fi + fo));
    for (auto& v : weight.vec()) v = static_cast<T>(rng.uniform(-b, b));
  } else if (spec.scheme == "uniform") {
    for (auto& v : weight.vec()) v = static_cast<T>(rng.uniform(-spec.scale, spec.scale));
  } else {
    throw UserError("unknown init scheme '" + spec.scheme + "'");
  }
  if (bias == nullptr) return;
  for (auto& v : bias->vec())
    v = bias_bound > 0 ? static_cast<T>(rng.uniform(-bias_bound, bias_bound)) : T(0);
}

template void init_params<float>(const InitSpec&, Rng&, std::int64_t, std::int64_t, Tensor<float>&,
                                 Tensor<float>*);
template void init_params<double>(const InitSpec&, Rng&, std::int64_t, std::int64_t,
                                  Tensor<double>&, Tensor<double>*);

}  // namespace trainsim
