#pragma once
// The optimizers an experiment may name, with the YAML keys each accepts.
#include <memory>
#include <string>
#include <vector>

#include "sim/optim/optimizer.h"
#include "sim/spec/specs.h"

namespace trainsim {

/// What an optimizer's update does per parameter besides the gradient preparation every
/// optimizer shares (Optimizer::prepare_gradient): the state tensors it reads and writes back,
/// and its operations. The lowering's update op reads the weight, its gradient and the state,
/// and writes the weight and the state.
struct OptimizerWork {
  int state = 0;
  int flops = 0;
};

struct OptimizerInfo {
  std::string name;
  std::string description;
  std::vector<std::string> keys;  ///< keys allowed under training.optimizer besides `kind`
  std::unique_ptr<Optimizer<float>> (*make)(const OptimizerSpec&);
  OptimizerWork (*work)(const OptimizerSpec&);
};

const std::vector<OptimizerInfo>& optimizers();
const OptimizerInfo* find_optimizer(const std::string& name);

}  // namespace trainsim
