// `trainsim train`: numerics-only training of an experiment.
#include "sim/cli/commands.h"
#include "sim/cli/experiment_runner.h"
#include "sim/config/experiment_config.h"

namespace trainsim {

int cmd_train(const std::vector<std::string>& args) {
  const ExperimentArgs a = parse_experiment_args("train", args, experiment_options("train"));
  run_experiment(load_experiment(a.path, a.overrides), RunOptions{false, a.quiet});
  return 0;
}

}  // namespace trainsim
