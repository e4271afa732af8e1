#pragma once
// The order in which one backprop training step issues its layers' ops, as the numerics make
// them (Network::forward / backward, Backprop): every layer's forward pass in layer order;
// the loss gradient at the last layer; then each layer in reverse order, skipping layers with
// nothing trainable upstream, first the sum of its readers' gradients (graph networks), then
// its backward-weight and backward-data passes; last the optimizer's update of every layer
// with parameters. The shape-only runs (sim/train/shape_only_run.h) and the op DAG of an
// iteration (sim/hype/op_dag.h) both follow this one list.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/workload/lowering.h"
#include "sim/workload/net_shape.h"

namespace trainsim {

/// Which of a layer's lowered ops (LayerOps) a step event issues.
enum class LayerOpSlot : std::uint8_t {
  kForward,
  kLossGrad,
  kGradSum,
  kBackwardWeight,
  kBackwardData,
  kUpdate,
};

const char* layer_op_slot_name(LayerOpSlot slot);  ///< "forward", "loss-grad", ...

struct StepEvent {
  LayerOpSlot slot = LayerOpSlot::kForward;
  std::size_t layer = 0;
};

/// The forward passes, first layer first.
std::vector<StepEvent> forward_events(const NetShape& net);
/// The loss gradient and the backward passes, last layer first.
std::vector<StepEvent> backward_events(const NetShape& net);
/// The updates of the layers with parameters, first layer first.
std::vector<StepEvent> update_events(const NetShape& net);

/// The op a layer lowers to for `slot` (none: the layer has no such op, e.g. a flatten).
const std::optional<Op>& slot_op(const LayerOps& ops, LayerOpSlot slot);

}  // namespace trainsim
