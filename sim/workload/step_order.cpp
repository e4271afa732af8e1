#include "sim/workload/step_order.h"

namespace trainsim {

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
