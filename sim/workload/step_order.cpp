#include "sim/workload/step_order.h"

namespace trainsim {

const char* layer_op_slot_name(LayerOpSlot slot) {
  switch (slot) {
    case LayerOpSlot::kForward:
      return "forward";
    case LayerOpSlot::kLossGrad:
      return "loss-grad";
    case LayerOpSlot::kGradSum:
      return "grad-sum";
    case LayerOpSlot::kBackwardWeight:
      return "backward-weight";
    case LayerOpSlot::kBackwardData:
      return "backward-data";
    case LayerOpSlot::kUpdate:
      return "update";
  }
  return "?";
}

std::vector<StepEvent> forward_events(const NetShape& net) {
  std::vector<StepEvent> out;
  for (std::size_t l = 0; l < net.size(); ++l) out.push_back({LayerOpSlot::kForward, l});
  return out;
}

std::vector<StepEvent> backward_events(const NetShape& net) {
  std::vector<StepEvent> out;
  out.push_back({LayerOpSlot::kLossGrad, net.size() - 1});
  // Network::backward, generalised to graphs: a layer read by several layers first sums
  // their gradients; layers with nothing trainable upstream skip backward-data.
  for (std::size_t l = net.size() - 1; l-- > 0;) {
    if (!net.has_params(l) && !net.needs_input_grad(l)) continue;
    if (net.layer(l).consumers > 1) out.push_back({LayerOpSlot::kGradSum, l});
    if (net.has_backward_weight(l)) out.push_back({LayerOpSlot::kBackwardWeight, l});
    if (net.needs_input_grad(l)) out.push_back({LayerOpSlot::kBackwardData, l});
  }
  return out;
}

std::vector<StepEvent> update_events(const NetShape& net) {
  std::vector<StepEvent> out;
  for (std::size_t l = 0; l < net.size(); ++l)
    if (net.has_params(l)) out.push_back({LayerOpSlot::kUpdate, l});
  return out;
}

const std::optional<Op>& slot_op(const LayerOps& ops, LayerOpSlot slot) {
  switch (slot) {
    case LayerOpSlot::kForward:
      return ops.forward;
    case LayerOpSlot::kLossGrad:
      return ops.loss_grad;
    case LayerOpSlot::kGradSum:
      return ops.grad_sum;
    case LayerOpSlot::kBackwardWeight:
      return ops.backward_weight;
    case LayerOpSlot::kBackwardData:
      return ops.backward_data;
    case LayerOpSlot::kUpdate:
      return ops.update;
  }
  return ops.forward;
}

}  // namespace trainsim
