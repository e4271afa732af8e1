#pragma once
// The per-sample shape of a tensor: channels, height, width (a dense layer's features are
// (F, 1, 1)). A plain value of the specs, shared by the numerics (sim/nn/tensor.h) and the op
// stream's shape inference (sim/workload/), which need no tensors.
#include <cstdint>
#include <string>

namespace trainsim {

/// Per-sample shape: channels, height, width.
struct Shape {
  int c = 1, h = 1, w = 1;
  std::int64_t size() const { return static_cast<std::int64_t>(c) * h * w; }
  bool operator==(const Shape& o) const { return c == o.c && h == o.h && w == o.w; }
  bool operator!=(const Shape& o) const { return !(*this == o); }
  std::string str() const;  ///< "CxHxW"
};

}  // namespace trainsim
