#pragma once
// The shapes of a network, inferred from its spec alone: every layer's input and output
// shape, which layers feed it, how many read it, and its parameter count. This is all the
// accelerator model needs to lower a network to ops, so networks that trainsim does not train
// (the shape-only zoo in configs/networks: no CIFAR or ImageNet images, or layers without
// numerics) are timed from a NetShape without building a Network. For the networks trainsim
// trains, chains and graphs, the inferred shapes and the layer graph are the Network's own
// (tested).
#include <cstdint>
#include <string>
#include <vector>

#include "sim/nn/layer_graph.h"
#include "sim/spec/shape.h"
#include "sim/spec/specs.h"

namespace trainsim {

struct LayerShape {
  const LayerSpec* spec = nullptr;
  Shape in;  ///< of the first input (all inputs of an `add` have this shape)
  Shape out;
  std::vector<int> inputs;  ///< producing layers; -1 = the network input
  std::int64_t params = 0;  ///< trainable parameters (weights, biases, batchnorm scale/shift)
  int consumers = 0;        ///< layers reading the output (its gradient is their sum)
  /// Its backward-weight op computes its second input's gradient (LayerKind).
  bool second_operand_grad = false;
  /// The largest count one sample forms in any pass (LayerKind::work, at least the input's
  /// and the output's values), checked against kMaxSampleWork (size_limits.h).
  std::int64_t work = 0;
};

class NetShape {
 public:
  /// Infers every shape; UserError naming the network, its file and the layer on any shape
  /// that does not work out (a kernel larger than its input, mismatched add inputs, ...).
  explicit NetShape(const NetworkSpec& spec);
  /// It keeps pointers into `spec`: a temporary would leave them dangling.
  explicit NetShape(NetworkSpec&&) = delete;

  const NetworkSpec& spec() const { return *spec_; }
  std::size_t size() const { return layers_.size(); }
  const LayerShape& layer(std::size_t i) const { return layers_[i]; }
  const LayerSpec& layer_spec(std::size_t i) const { return *layers_[i].spec; }
  bool has_params(std::size_t i) const { return layers_[i].params > 0; }
  /// Whether a training step issues layer i's backward-weight pass: it has parameters, or
  /// the pass computes a second input's gradient that layers below need.
  bool has_backward_weight(std::size_t i) const { return graph_.has_backward_weight(i); }
  /// Whether layer i must compute the gradient of its input: some layer feeding it,
  /// directly or not, has parameters (as Network::needs_input_grad for a chain).
  bool needs_input_grad(std::size_t i) const { return graph_.needs_input_grad(i); }
  /// Which layers read which, and the order of a training step's passes.
  const LayerGraph& graph() const { return graph_; }
  /// Some layer reads the network input (not so when every branch starts at a `source`).
  bool reads_input() const;
  /// The last layer is a sink (a cut-out network, e.g. a SCALE-Sim topology): no softmax,
  /// no loss op and no class output; the gradients of its inputs arrive from outside.
  bool ends_in_sink() const;
  std::int64_t param_count() const;
  /// Multiply-accumulates of one sample's forward pass (conv and dense layers).
  std::int64_t forward_macs() const;

 private:
  const NetworkSpec* spec_;
  LayerGraph graph_;
  std::vector<LayerShape> layers_;
};

}  // namespace trainsim
