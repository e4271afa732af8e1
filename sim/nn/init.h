#pragma once
// Parameter initialisation schemes (see InitSpec). One function so every layer with
// weights draws them the same way and in the same order: weights, then biases.
#include "sim/core/rng.h"
#include "sim/nn/tensor.h"
#include "sim/spec/specs.h"

namespace trainsim {

template <typename T>
void init_params(const InitSpec& spec, Rng& rng, std::int64_t fan_in, std::int64_t fan_out,
                 Tensor<T>& weight, Tensor<T>* bias);

}  // namespace trainsim
