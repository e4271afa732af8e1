#pragma once
// A training technique decides what one training step does: which passes run, which ops the
// accelerator sees, how the weights are updated. Backprop (`bp`) is the baseline; ADA-GP and
// speculative backprop plug in here as further techniques.
#include <string>
#include <vector>

namespace trainsim {

struct TechniqueInfo {
  std::string name;
  std::string description;
};

/// Every registered technique, in a fixed order.
const std::vector<TechniqueInfo>& techniques();
const TechniqueInfo* find_technique(const std::string& name);

}  // namespace trainsim
