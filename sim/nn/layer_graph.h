#pragma once
// The layer graph of a network file, apart from its shapes: which layers each layer reads,
// how many read it, which layers must compute their input's gradient, and the order in which
// one backprop training step issues its layers' passes. The numerics (Network) and the
// timing of shape-only runs and of an iteration's op DAG (sim/workload/step_order.h) all
// take the graph and the order from here, so a training step is one list of events whether
// it is computed or only timed.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/spec/specs.h"

namespace trainsim {

/// Which of a layer's passes a step event is.
enum class LayerOpSlot : std::uint8_t {
  kForward,
  kLossGrad,
  kGradSum,  ///< the gradients of a layer's several readers are summed
  kBackwardWeight,
  kBackwardData,
  kUpdate,
};

const char* layer_op_slot_name(LayerOpSlot slot);  ///< "forward", "loss-grad", ...

struct StepEvent {
  LayerOpSlot slot = LayerOpSlot::kForward;
  std::size_t layer = 0;
};

class LayerGraph {
 public:
  /// Resolves every layer's `from` (empty: the previous layer; "input": the network input);
  /// `source` layers read nothing. UserError naming the network, its file and the layer for a
  /// name that is not a layer above it: layers are listed so that each reads only earlier
  /// ones, which is what makes the graph acyclic.
  explicit LayerGraph(const NetworkSpec& spec);

  std::size_t size() const { return inputs_.size(); }
  /// The producers of layer i: layer indices, -1 for the network input.
  const std::vector<int>& inputs(std::size_t i) const { return inputs_[i]; }
  /// How many layers read layer i's output (its gradient is the sum of theirs).
  int consumers(std::size_t i) const { return consumers_[i]; }

  /// What the passes need from each layer, once the layers are built: whether it has
  /// parameters, and whether its backward-weight pass computes a second input's gradient
  /// (sim/workload/layer_kind.h). Before this, the flags below are all false.
  void set_layers(const std::vector<bool>& params, const std::vector<bool>& second_operand_grad);

  bool has_params(std::size_t i) const { return params_[i]; }
  /// Some layer feeding layer i, directly or not, has parameters or is a `source` (whose
  /// producer outside the network wants its gradient): layer i computes its input's gradient.
  bool needs_input_grad(std::size_t i) const { return needs_input_grad_[i]; }
  /// Layer i's output gradient is needed: it has parameters or computes its input's gradient.
  bool needs_output_grad(std::size_t i) const { return params_[i] || needs_input_grad_[i]; }
  /// Whether a step issues layer i's backward-weight pass: it has parameters, or the pass
  /// computes a second input's gradient that layers below need.
  bool has_backward_weight(std::size_t i) const {
    return params_[i] || (second_operand_grad_[i] && needs_input_grad_[i]);
  }

  /// The forward passes, first layer first.
  std::vector<StepEvent> forward_events() const;
  /// The loss gradient at the last layer, then each layer in reverse order, skipping layers
  /// with nothing trainable upstream: first the sum of its readers' gradients (a layer read
  /// by several), then its backward-weight and backward-data passes.
  std::vector<StepEvent> backward_events() const;
  /// The updates of the layers with parameters, first layer first.
  std::vector<StepEvent> update_events() const;

 private:
  std::vector<std::vector<int>> inputs_;
  std::vector<int> consumers_;
  std::vector<bool> source_;
  std::vector<bool> params_, second_operand_grad_, needs_input_grad_;
};

}  // namespace trainsim
