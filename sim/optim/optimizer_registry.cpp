#include "sim/optim/optimizer_registry.h"

#include "sim/optim/adam.h"
#include "sim/optim/optimizer_registry.h"
#include "sim/optim/sgd.h"

namespace trainsim {

namespace {
template <template <typename> class Opt>
std::unique_ptr<Optimizer<float>> make(const OptimizerSpec& spec) {
  return std::make_unique<Opt<float>>(spec);
}
}  // namespace

const std::vector<OptimizerInfo>& optimizers() {
  static const std::vector<OptimizerInfo> all = {
      {"sgd",
       "stochastic gradient descent, optional momentum",
       {"lr", "momentum", "weight_decay", "reduction", "clip", "lr_steps", "lr_factor"},
       &make<Sgd>,
       &sgd_work},
      {"adam",
       "Adam with bias correction",
       {"lr", "beta1", "beta2", "epsilon", "weight_decay", "reduction", "clip", "lr_steps",
        "lr_factor"},
       &make<Adam>,
       &adam_work},
  };
  return all;
}

const OptimizerInfo* find_optimizer(const std::string& name) {
  for (const auto& o : optimizers())
    if (o.name == name) return &o;
  return nullptr;
}

}  // namespace trainsim
