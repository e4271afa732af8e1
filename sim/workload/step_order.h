#pragma once
// The order in which one backprop training step issues its layers' ops, as the numerics make
// them (Network::forward / backward, Backprop): the network's LayerGraph gives it
// (sim/nn/layer_graph.h). The shape-only runs (sim/train/shape_only_run.h) and the op DAG of
// an iteration (sim/hype/op_dag.h) follow this one list, as the numerics do.
#include <optional>
#include <vector>

#include "sim/nn/layer_graph.h"
#include "sim/workload/lowering.h"
#include "sim/workload/net_shape.h"

namespace trainsim {

/// The forward passes, first layer first.
inline std::vector<StepEvent> forward_events(const NetShape& net) {
  return net.graph().forward_events();
}
/// The loss gradient and the backward passes, last layer first.
inline std::vector<StepEvent> backward_events(const NetShape& net) {
  return net.graph().backward_events();
}
/// The updates of the layers with parameters, first layer first.
inline std::vector<StepEvent> update_events(const NetShape& net) {
  return net.graph().update_events();
}

/// The op a layer lowers to for `slot` (none: the layer has no such op, e.g. a flatten).
const std::optional<Op>& slot_op(const LayerOps& ops, LayerOpSlot slot);

}  // namespace trainsim
