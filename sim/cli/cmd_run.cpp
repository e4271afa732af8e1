// `trainsim run`: training on the simulated accelerator: the numerics train for real and
// every op of every batch is timed, counted and priced.
#include "sim/cli/commands.h"
#include "sim/cli/experiment_command.h"

namespace trainsim {

int cmd_run(const std::vector<std::string>& args) {
  return run_or_train("run", args, /*simulate=*/true);
}

}  // namespace trainsim
