#pragma once
// A sequential network built from a NetworkSpec, plus the forward/backward passes over it.
// Activations live in a ForwardPass owned by the caller, not in the layers, so a pass can be
// stored and differentiated later (speculative backprop) and buffers are reused per batch.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "sim/nn/layer.h"
#include "sim/nn/pass_observer.h"
#include "sim/spec/specs.h"

namespace trainsim {

/// acts[0] is the input batch, acts[i + 1] the output of layer i; the last one holds the
/// softmax probabilities.
template <typename T>
struct ForwardPass {
  std::vector<Tensor<T>> acts;
  const Tensor<T>& probs() const { return acts.back(); }
};

/// Scratch for one backward pass: the gradient flowing into each layer's output.
template <typename T>
struct BackwardScratch {
  Tensor<T> grad, next;
};

template <typename T>
class Network {
 public:
  /// Builds every layer and checks the shapes chain (UserError naming the layer and file).
  explicit Network(const NetworkSpec& spec);

  const NetworkSpec& spec() const { return spec_; }
  std::size_t size() const { return layers_.size(); }
  Layer<T>& layer(std::size_t i) { return *layers_[i]; }
  const Layer<T>& layer(std::size_t i) const { return *layers_[i]; }
  const LayerSpec& layer_spec(std::size_t i) const { return spec_.layers[i]; }
  Shape input_shape() const { return Shape{spec_.input[0], spec_.input[1], spec_.input[2]}; }

  /// Draws all parameters from `seed` with the spec's init scheme, layer by layer.
  void init(std::uint64_t seed);
  std::vector<Param<T>*> params();
  std::int64_t param_count();
  /// Zeroes every gradient accumulator.
  void zero_grad();

  /// Runs acts[0] through every layer.
  void forward(ForwardPass<T>& pass);
  /// Backprop of the summed cross-entropy from a stored forward pass: accumulates every
  /// layer's weight gradient. Backward-data is skipped below the first layer with params,
  /// where no one needs it.
  /// With `compute` false nothing is computed or accumulated, but the observer still hears
  /// every pass: the hardware did the work even if the numerics do not need its result
  /// (a speculative backward pass that is discarded).
  void backward(const ForwardPass<T>& pass, const std::uint8_t* labels, BackwardScratch<T>& scratch,
                bool compute = true);
  bool has_params(std::size_t i) const { return has_params_[i]; }
  /// Whether layer i must compute backward-data (some layer below it has parameters).
  bool needs_input_grad(std::size_t i) const { return i > first_param_layer_; }
  /// Multiply-adds of the passes computed since the last call (forward, backward-data and
  /// backward-weight of dense and conv layers; element-wise layers count none), then
  /// restarts the count: the work behind a measured FLOP/s.
  std::int64_t take_macs() { return std::exchange(macs_, 0); }
  /// Reports every pass from now on to `observer` (nullptr: none).
  void set_observer(PassObserver* observer) { observer_ = observer; }
  PassObserver* observer() const { return observer_; }

 private:
  NetworkSpec spec_;
  std::vector<std::unique_ptr<Layer<T>>> layers_;
  std::vector<bool> has_params_;  // cached: Layer::params() builds a vector
  std::size_t first_param_layer_ = 0;
  PassObserver* observer_ = nullptr;
  std::vector<std::int64_t> layer_macs_;  // per sample, cached
  std::int64_t macs_ = 0;
};

}  // namespace trainsim
