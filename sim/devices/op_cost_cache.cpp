#include "sim/devices/op_cost_cache.h"

#include "sim/core/error.h"

namespace trainsim {

const OpCost& OpCostCache::cost(const Op& op) {
  auto it = costs_.find(&op);
  if (it != costs_.end()) return it->second;
  const OpCost c = model_.cost(op);
  if (!c.supported)
    throw UserError(where_ + ": device '" + model_.name() + "' (" + model_.kind() +
                    ") has no kernel for " + op.describe() + ", an op of layer " +
                    std::to_string(op.layer) + " of network '" + network_ + "'");
  return costs_.emplace(&op, c).first->second;
}

}  // namespace trainsim
