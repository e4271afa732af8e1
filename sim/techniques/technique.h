#pragma once
// A training technique decides what one training step does: which passes run, in which
// order, on which unit, and how the gradients are formed. Backprop over a batch (`bp`) is the
// baseline; `bp-sample` runs backprop one sample at a time (the baseline of Purkayastha et al. 2025
// for speculative backprop); `specbp` is speculative backpropagation.
#include <string>
#include <vector>

namespace trainsim {

struct TechniqueInfo {
  std::string name;
  std::string description;
  std::vector<std::string> keys;  ///< YAML keys besides `kind`
  std::string shorthand;          ///< key set by "name@value" ("" = none)
};

/// Every registered technique, in a fixed order.
const std::vector<TechniqueInfo>& techniques();
const TechniqueInfo* find_technique(const std::string& name);

}  // namespace trainsim
