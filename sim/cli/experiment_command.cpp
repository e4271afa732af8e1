#include "sim/cli/experiment_command.h"

#include "sim/cli/experiment_args.h"
#include "sim/cli/experiment_runner.h"
#include "sim/config/experiment_config.h"
#include "sim/core/error.h"

namespace po = boost::program_options;

namespace trainsim {

int run_or_train(const std::string& command, const std::vector<std::string>& args, bool simulate) {
  po::options_description opts = experiment_options();
  opts.add_options()("resume", po::value<std::string>()->value_name("DIR"),
                     "continue the incomplete run in DIR from its last completed epoch (no "
                     "EXPERIMENT.yaml, --set, --out or --force with it)");
  po::variables_map vm;
  const ExperimentArgs a = parse_experiment_args(command, args, opts, &vm, /*optional_path=*/true);
  RunOptions options;
  options.simulate = simulate;
  options.quiet = a.quiet;
  options.force = a.force;
  if (vm.count("resume")) {
    if (!a.path.empty() || !a.overrides.empty() || a.force)
      throw UserError(command +
                      " --resume DIR continues the run as it was configured: give no "
                      "EXPERIMENT.yaml, --set, --out or --force with it");
    options.resume = true;
    run_experiment(load_resumable_experiment(vm["resume"].as<std::string>(), command), options);
    return 0;
  }
  if (a.path.empty())
    throw UserError(command + ": missing EXPERIMENT.yaml (see trainsim " + command + " --help)");
  run_experiment(load_experiment(a.path, a.overrides), options);
  return 0;
}

}  // namespace trainsim
