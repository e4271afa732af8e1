#pragma once
// A layer's three training computations are separate functions because the accelerator
// model times them as separate ops (forward, backward-data, backward-weight). Layers keep
// no activations between calls: the caller passes the input x (and output y) of the
// forward pass it wants to differentiate. That is what lets speculative backprop run a
// backward pass from a *stored* forward pass through the current weights.
#include <memory>
#include <string>
#include <vector>

#include "sim/core/rng.h"
#include "sim/nn/tensor.h"
#include "sim/spec/specs.h"

namespace trainsim {

/// A trainable tensor and its gradient accumulator.
template <typename T>
struct Param {
  std::string name;  ///< "weight" or "bias"
  Tensor<T> value;
  Tensor<T> grad;  ///< accumulated (summed) over the samples of a batch
};

template <typename T>
class Layer {
 public:
  virtual ~Layer() = default;
  virtual std::string type() const = 0;
  const Shape& in_shape() const { return in_; }
  const Shape& out_shape() const { return out_; }

  /// y = f(x). y is resized to (x.n(), out_shape()).
  virtual void forward(const Tensor<T>& x, Tensor<T>& y) = 0;
  /// dx = dL/dx given dy = dL/dy, for the forward pass that mapped x to y.
  virtual void backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                             Tensor<T>& dx) = 0;
  /// Adds dL/dparams for this batch to each Param::grad (summed over samples).
  virtual void backward_weight(const Tensor<T>& x, const Tensor<T>& dy) {}

  virtual std::vector<Param<T>*> params() { return {}; }
  bool has_params() { return !params().empty(); }
  /// Multiply-accumulates of one sample's forward pass (0 for element-wise layers).
  virtual std::int64_t forward_macs() const { return 0; }
  /// Draws initial parameter values.
  virtual void init(const InitSpec& spec, Rng& rng) {}

 protected:
  Shape in_, out_;
};

}  // namespace trainsim
