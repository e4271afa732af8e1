#pragma once
// A network built from a NetworkSpec, a chain or any acyclic graph of layers (`from`,
// sim/nn/layer_graph.h), plus the forward/backward passes over it. Activations live in a
// ForwardPass owned by the caller, not in the layers, so a pass can be stored and
// differentiated later (speculative backprop) and buffers are reused per batch.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "sim/nn/layer.h"
#include "sim/nn/layer_graph.h"
#include "sim/nn/pass_observer.h"
#include "sim/spec/specs.h"

namespace trainsim {

/// acts[0] is the input batch, acts[i + 1] the output of layer i; the last one holds the
/// softmax probabilities. saved[i] is what layer i keeps of the pass for its backward pass
/// besides its inputs and output (dropout's mask; empty for most layers).
template <typename T>
struct ForwardPass {
  std::vector<Tensor<T>> acts;
  std::vector<Tensor<T>> saved;
  const Tensor<T>& probs() const { return acts.back(); }
  /// Becomes a copy of `other`, reusing its own buffers; returns the activations' words.
  std::int64_t copy_from(const ForwardPass& other);
};

/// Scratch for one backward pass: grads[i] is the gradient of layer i's output (the sum over
/// its readers, in a graph), `part` one reader's share before it is added.
template <typename T>
struct BackwardScratch {
  std::vector<Tensor<T>> grads;
  Tensor<T> part;
  std::vector<int> shares;  ///< readers' shares added so far, per layer
};

template <typename T>
class Network {
 public:
  /// Builds every layer and checks the shapes fit (UserError naming the layer and file).
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

  /// Runs acts[0] through every layer, in training (batchnorm on the batch's statistics,
  /// dropout dropping) or in evaluation.
  void forward(ForwardPass<T>& pass, bool training = true);
  /// Runs layer i alone (its inputs in `pass` are computed): forward() is this for every
  /// layer in order. `pass` must have been sized by prepare().
  void forward_layer(ForwardPass<T>& pass, std::size_t i);
  /// Sizes `pass` for this network and sets training or evaluation mode.
  void prepare(ForwardPass<T>& pass, bool training);
  /// Backprop of the summed cross-entropy from a stored forward pass: accumulates every
  /// layer's weight gradient, in the graph's step order (LayerGraph::backward_events).
  /// Backward-data is skipped where nothing upstream has parameters.
  /// With `compute` false nothing is computed or accumulated, but the observer still hears
  /// every pass: the hardware did the work even if the numerics do not need its result
  /// (a speculative backward pass that is discarded).
  void backward(const ForwardPass<T>& pass, const std::uint8_t* labels, BackwardScratch<T>& scratch,
                bool compute = true);
  bool has_params(std::size_t i) const { return graph_.has_params(i); }
  /// Whether layer i must compute backward-data (some layer feeding it has parameters).
  bool needs_input_grad(std::size_t i) const { return graph_.needs_input_grad(i); }
  const LayerGraph& graph() const { return graph_; }
  /// Saves or restores the layers' state that is not a parameter (Layer::archive_state).
  void archive_state(StateArchive& a);
  /// Some layer has such state.
  bool has_state() const;
  /// Multiply-adds of the passes computed since the last call (forward, backward-data and
  /// backward-weight of dense and conv layers; element-wise layers count none), then
  /// restarts the count: the work behind a measured FLOP/s.
  std::int64_t take_macs() { return std::exchange(macs_, 0); }
  /// Reports every pass from now on to `observer` (nullptr: none).
  void set_observer(PassObserver* observer) { observer_ = observer; }
  PassObserver* observer() const { return observer_; }

 private:
  const LayerInputs<T>& inputs_of(const ForwardPass<T>& pass, std::size_t i);
  void set_training(bool training);

  NetworkSpec spec_;
  LayerGraph graph_;
  std::vector<StepEvent> backward_events_;  // the graph's, cached: one list per network
  std::vector<std::unique_ptr<Layer<T>>> layers_;
  bool training_ = true;
  LayerInputs<T> xs_;  // scratch: a layer's inputs
  PassObserver* observer_ = nullptr;
  std::vector<std::int64_t> layer_macs_;  // per sample, cached
  std::int64_t macs_ = 0;
};

}  // namespace trainsim
