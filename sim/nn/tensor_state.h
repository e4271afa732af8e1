#pragma once
// Checkpointing of tensors and parameters (sim/core/state_archive.h): shape, then values.
#include "sim/core/state_archive.h"
#include "sim/nn/layer.h"
#include "sim/nn/tensor.h"

namespace trainsim {

template <typename T>
void archive(StateArchive& a, Tensor<T>& t) {
  int n = t.n();
  Shape shape = t.shape();
  a.value(n);
  a.value(shape);
  if (a.loading()) {
    if (n < 0 || shape.c < 0 || shape.h < 0 || shape.w < 0)
      a.check_count(~std::uint64_t{0}, 1);  // a negative size: rejected as an absurd count
    a.check_count(static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(shape.size()),
                  sizeof(T));
    t.resize(n, shape);
  }
  if (t.size() > 0) a.bytes(t.data(), t.size() * sizeof(T));
}

/// A parameter's value and its accumulated gradient.
template <typename T>
void archive(StateArchive& a, Param<T>& p) {
  archive(a, p.value);
  archive(a, p.grad);
}

}  // namespace trainsim
