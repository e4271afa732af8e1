// `trainsim validate`: everything `trainsim run` checks before its first batch, and nothing
// after: the experiment, its overrides, the files it names, its dataset, and the network,
// technique and accelerator built from them.
#include <cstdio>

#include "sim/cli/commands.h"
#include "sim/cli/experiment_args.h"
#include "sim/run/experiment_file.h"
#include "sim/run/experiment_runner.h"

namespace trainsim {

int cmd_validate(const std::vector<std::string>& args) {
  const ExperimentArgs a =
      parse_experiment_args("validate", args, experiment_options(kOptSet | kOptScaleSim));
  const ExperimentSpec spec = load_experiment(a);
  const std::string summary = check_experiment(spec, /*simulate=*/true);
  print_notes(spec);
  std::printf("%s\n", summary.c_str());
  return 0;
}

}  // namespace trainsim
