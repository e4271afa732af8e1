#pragma once
// The optimizers an experiment may name, with the YAML keys each accepts.
#include <memory>
#include <string>
#include <vector>

#include "sim/optim/optimizer.h"
#include "sim/spec/specs.h"

namespace trainsim {

struct OptimizerInfo {
  std::string name;
  std::string description;
  std::vector<std::string> keys;  ///< keys allowed under training.optimizer besides `kind`
  std::unique_ptr<Optimizer<float>> (*make)(const OptimizerSpec&);
};

const std::vector<OptimizerInfo>& optimizers();
const OptimizerInfo* find_optimizer(const std::string& name);

}  // namespace trainsim
