#include "sim/cli/experiment_args.h"

#include "sim/cli/arg_parse.h"
#include "sim/cli/commands.h"
#include "sim/core/error.h"
#include "sim/interop/scalesim_inputs.h"
#include "sim/run/experiment_file.h"

#include <filesystem>

namespace po = boost::program_options;

namespace trainsim {

namespace {

// --scalesim-topology FILE.csv: the topology as the experiment's network, shape only. As an
// override, so config.resolved.yaml records the network it made. The file is taken from the
// cwd, as `trainsim layer` takes it (passed absolute: the experiment's `network:` paths are
// tried from its folder first).
void add_topology_overrides(std::string file, std::vector<std::string>& overrides) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw UserError(file + ": cannot open the SCALE-Sim topology file");
  file = std::filesystem::absolute(file).lexically_normal().string();
  std::string quoted = "\"";
  for (char c : file) quoted += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  overrides.push_back("network={scalesim_topology: " + quoted + "\"}");
  overrides.push_back("numerics=none");
}

}  // namespace

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
  if (which & kOptScaleSim)
    opts.add_options()("scalesim-topology", po::value<std::string>()->value_name("FILE.csv"),
                       "time a SCALE-Sim topology (conv or GEMM form) as the experiment's "
                       "network, shape only: every row an independent layer (docs/interop.md)")(
        "scalesim-config", po::value<std::string>()->value_name("FILE.cfg"),
        "a SCALE-Sim config: array, dataflow, SRAM sizes and bandwidth mode over the "
        "experiment's accelerator, as trainsim layer applies it");
  if (which & kOptForce)
    opts.add_options()("force,f", po::bool_switch(),
                       "replace the results directory if it exists (without it an existing "
                       "directory is an error)");
  if (which & kOptReport)
    opts.add_options()("no-report", po::bool_switch(),
                       "do not write report.html (the page `trainsim report DIR` writes)");
  if (which & kOptMemo)
    opts.add_options()("memo", po::value<std::string>()->value_name("MEMO"),
                       "keep op costs (mapping searches) in directory MEMO and reuse what "
                       "earlier runs of this build kept there for the same accelerator "
                       "(created if new; docs/sweeps.md)");
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
  if (vm.count("scalesim-topology"))
    add_topology_overrides(vm["scalesim-topology"].as<std::string>(), a.overrides);
  if (vm.count("scalesim-config")) a.scalesim_config = vm["scalesim-config"].as<std::string>();
  if (vm.count("quiet")) a.quiet = vm["quiet"].as<bool>();
  if (vm.count("force")) a.force = vm["force"].as<bool>();
  if (vm.count("no-report")) a.report = !vm["no-report"].as<bool>();
  if (vm.count("memo")) a.memo = vm["memo"].as<std::string>();
  if (vm_out) *vm_out = vm;
  return a;
}

void check_memo_outside(const ExperimentArgs& a, const std::string& results_dir,
                        const std::string& command) {
  if (a.memo.empty()) return;
  namespace fs = std::filesystem;
  const fs::path memo = fs::absolute(a.memo).lexically_normal();
  const fs::path out = fs::absolute(results_dir).lexically_normal();
  const fs::path rel = memo.lexically_relative(out);
  if (!rel.empty() && *rel.begin() != "..")
    throw UserError(command + ": --memo '" + a.memo + "' is inside the results directory '" +
                    results_dir + "', which a run replaces whole: keep the memo elsewhere");
}

ExperimentSpec load_experiment(const ExperimentArgs& a) {
  ExperimentSpec spec = load_experiment(a.path, a.overrides);
  if (a.scalesim_config.empty()) return spec;
  // A hype: that names its own devices implies a system, but not one of accelerators.
  if (spec.system.present() && spec.system.implied_by.empty())
    throw UserError("--scalesim-config sets the one accelerator of an experiment; '" + spec.name +
                    "' runs on a system of devices");
  std::string dataflow;
  spec.sim.accelerator = apply_scalesim_config(a.scalesim_config, spec.sim.accelerator, &dataflow);
  if (!dataflow.empty()) spec.sim.dataflow = dataflow;
  return spec;
}

}  // namespace trainsim
