#include "sim/cli/experiment_args.h"

#include "sim/cli/arg_parse.h"
#include "sim/cli/commands.h"
#include "sim/core/error.h"

namespace po = boost::program_options;

namespace trainsim {

po::options_description experiment_options(unsigned which) {
  po::options_description opts;
  if (which & kOptOut)
    opts.add_options()("out,o", po::value<std::string>()->value_name("DIR"),
                       "results directory (default: output.dir of the experiment, "
                       "runs/<name>)");
  if (which & kOptSet)
    opts.add_options()("set,s",
                       po::value<std::vector<std::string>>()->composing()->value_name("KEY=VALUE"),
                       "override an experiment key, e.g. -s training.epochs=3 or "
                       "-s network.layers.1.units=32 (VALUE is YAML); repeatable");
  if (which & kOptQuiet)
    opts.add_options()("quiet,q", po::bool_switch(), "print only the final line");
  if (which & kOptForce)
    opts.add_options()("force,f", po::bool_switch(),
                       "replace the results directory if it exists (without it an existing "
                       "directory is an error)");
  return opts;
}

ExperimentArgs parse_experiment_args(const std::string& command,
                                     const std::vector<std::string>& args,
                                     const po::options_description& opts, po::variables_map* vm_out,
                                     bool optional_path) {
  po::options_description hidden;
  hidden.add_options()("experiment", po::value<std::string>());
  po::positional_options_description pos;
  pos.add("experiment", 1);
  const po::variables_map vm = parse_args(command, args, opts, pos, hidden);
  ExperimentArgs a;
  if (vm.count("experiment")) {
    a.path = vm["experiment"].as<std::string>();
  } else if (!optional_path) {
    const Command* c = find_command(command);
    throw UserError(command + ": missing EXPERIMENT.yaml (usage: trainsim " +
                    (c ? c->synopsis : command) + "; see trainsim " + command + " --help)");
  }
  if (vm.count("set")) a.overrides = vm["set"].as<std::vector<std::string>>();
  // --out is an override like any other, so config.resolved.yaml records where results went.
  if (vm.count("out")) a.overrides.push_back("output.dir=" + vm["out"].as<std::string>());
  if (vm.count("quiet")) a.quiet = vm["quiet"].as<bool>();
  if (vm.count("force")) a.force = vm["force"].as<bool>();
  if (vm_out) *vm_out = vm;
  return a;
}

}  // namespace trainsim
