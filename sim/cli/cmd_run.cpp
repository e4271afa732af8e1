// `trainsim run`: training on the simulated accelerator: the numerics train for real and
// every op of every batch is timed, counted and priced.
#include "sim/cli/commands.h"
#include "sim/cli/experiment_runner.h"
#include "sim/config/experiment_config.h"

namespace trainsim {

int cmd_run(const std::vector<std::string>& args) {
  const ExperimentArgs a = parse_experiment_args("run", args, experiment_options("run"));
  run_experiment(load_experiment(a.path, a.overrides), RunOptions{true, a.quiet});
  return 0;
}

}  // namespace trainsim
