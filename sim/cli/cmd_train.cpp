// `trainsim train`: numerics-only training of an experiment.
#include "sim/cli/commands.h"
#include "sim/cli/experiment_command.h"

namespace trainsim {

int cmd_train(const std::vector<std::string>& args) {
  return run_or_train("train", args, /*simulate=*/false);
}

}  // namespace trainsim
