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
#include "sim/core/state_archive.h"
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

/// The tensors a layer reads: one for most layers, two or more for add and concat.
template <typename T>
using LayerInputs = std::vector<const Tensor<T>*>;

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

  // How a network runs a layer (Network::forward / backward). Layers reading several
  // tensors (add, concat) and layers whose backward pass needs more of a forward pass than
  // its input and output (dropout's mask, in `saved`, which is stored with the forward pass)
  // override these; the others read one tensor and implement the three functions above.
  /// y = f(xs); `saved` is this layer's slot of the forward pass.
  virtual void forward_graph(const LayerInputs<T>& xs, Tensor<T>& y, Tensor<T>& saved) {
    forward(*xs[0], y);
  }
  /// The gradient of input k, dx = dL/dxs[k], for the forward pass that gave y and saved.
  virtual void backward_data_graph(const LayerInputs<T>& xs, const Tensor<T>& y,
                                   const Tensor<T>& saved, const Tensor<T>& dy, std::size_t k,
                                   Tensor<T>& dx) {
    backward_data(*xs[k], y, dy, dx);
  }
  /// backward_weight for the forward pass that saved `saved`.
  virtual void backward_weight_graph(const Tensor<T>& x, const Tensor<T>& saved,
                                     const Tensor<T>& dy) {
    backward_weight(x, dy);
  }
  /// Training (the default) or evaluation: batchnorm normalises with each batch's statistics
  /// and updates its running ones in training, with the running ones in evaluation; dropout
  /// drops values in training only.
  virtual void set_training(bool training) {}
  /// Saves or restores state that is not a parameter (batchnorm's running statistics,
  /// dropout's random stream): a resumed run goes on as if it had not stopped.
  virtual void archive_state(StateArchive& a) {}
  /// Whether the layer has state for archive_state().
  virtual bool has_state() const { return false; }

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
