#include "sim/cli/experiment_command.h"

#include "sim/cli/experiment_args.h"
#include "sim/cli/experiment_runner.h"
#include "sim/config/experiment_config.h"
#include "sim/core/error.h"
#include "sim/interop/scalesim_inputs.h"
#include "sim/report/staged_dir.h"
#include "sim/sweep/sweep_table.h"

#include <filesystem>

namespace po = boost::program_options;

namespace trainsim {

namespace {
// --summary FILE: written beside and renamed over, so a reader (a sweep deciding whether the
// point finished) never sees half a file.
void write_summary(const po::variables_map& vm, const RunResult& r) {
  if (!vm.count("summary")) return;
  PointResult p;
  p.seconds = r.seconds;
  p.cycles = static_cast<double>(r.cycles);
  p.energy = r.energy;
  p.energy_unit = r.energy_unit;
  p.dram_bytes = static_cast<double>(r.dram_bytes);
  p.utilization = r.utilization;
  if (r.has_accuracy) p.test_accuracy = r.test_accuracy;
  const std::string path = vm["summary"].as<std::string>();
  write_text_file(path + ".tmp", point_result_json(p));
  std::filesystem::rename(path + ".tmp", path);
}

// --scalesim-topology FILE.csv: the topology as the experiment's network, shape only. As an
// override, so config.resolved.yaml records the network it made. The file is taken from the
// cwd, as `trainsim layer` takes it (passed absolute: the experiment's `network:` paths are
// tried from its folder first).
void add_topology_overrides(const po::variables_map& vm, std::vector<std::string>& overrides) {
  if (!vm.count("scalesim-topology")) return;
  std::string file = vm["scalesim-topology"].as<std::string>();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw UserError(file + ": cannot open the SCALE-Sim topology file");
  file = std::filesystem::absolute(file).lexically_normal().string();
  std::string quoted = "\"";
  for (char c : file) quoted += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  overrides.push_back("network={scalesim_topology: " + quoted + "\"}");
  overrides.push_back("numerics=none");
}

// --scalesim-config FILE.cfg: SCALE-Sim's array, SRAMs, dataflow and bandwidth mode over the
// experiment's accelerator, as `trainsim layer` applies them. The config's Dataflow replaces
// the experiment's dataflow too; without one the experiment's stays.
ExperimentSpec with_scalesim_config(const po::variables_map& vm, ExperimentSpec spec) {
  if (!vm.count("scalesim-config")) return spec;
  if (spec.system.present())
    throw UserError("--scalesim-config sets the one accelerator of an experiment; '" + spec.name +
                    "' runs on a system of devices");
  std::string dataflow;
  spec.sim.accelerator = apply_scalesim_config(vm["scalesim-config"].as<std::string>(),
                                               spec.sim.accelerator, &dataflow);
  if (!dataflow.empty()) spec.sim.dataflow = dataflow;
  return spec;
}
}  // namespace

int run_or_train(const std::string& command, const std::vector<std::string>& args, bool simulate) {
  po::options_description opts = experiment_options();
  opts.add_options()("resume", po::value<std::string>()->value_name("DIR"),
                     "continue the incomplete run in DIR from its last completed epoch (no "
                     "EXPERIMENT.yaml, --set, --out or --force with it)")(
      "summary", po::value<std::string>()->value_name("FILE"),
      "also write the headline figures (seconds, cycles, energy, DRAM bytes, utilization, "
      "test accuracy) as JSON to FILE when the run ends (trainsim sweep reads it)")(
      "chakra", po::value<std::string>()->value_name("DIR"),
      "a run on a system of devices: also write Chakra execution traces (one per device, "
      "for ASTRA-sim) of its timeline into DIR");
  if (simulate)
    opts.add_options()("scalesim-topology", po::value<std::string>()->value_name("FILE.csv"),
                       "time a SCALE-Sim topology (conv or GEMM form) as the experiment's "
                       "network, shape only: every row an independent layer (docs/interop.md)")(
        "scalesim-config", po::value<std::string>()->value_name("FILE.cfg"),
        "a SCALE-Sim config: array, dataflow, SRAM sizes and bandwidth mode over the "
        "experiment's accelerator, as trainsim layer applies it");
  po::variables_map vm;
  ExperimentArgs a = parse_experiment_args(command, args, opts, &vm, /*optional_path=*/true);
  RunOptions options;
  options.simulate = simulate;
  options.quiet = a.quiet;
  options.force = a.force;
  if (vm.count("chakra")) options.chakra_dir = vm["chakra"].as<std::string>();
  if (vm.count("resume")) {
    if (!a.path.empty() || !a.overrides.empty() || a.force || vm.count("scalesim-topology") ||
        vm.count("scalesim-config"))
      throw UserError(command +
                      " --resume DIR continues the run as it was configured: give no "
                      "EXPERIMENT.yaml, --set, --out, --force or --scalesim-* with it");
    options.resume = true;
    write_summary(vm,
                  run_experiment(load_resumable_experiment(vm["resume"].as<std::string>(), command),
                                 options));
    return 0;
  }
  if (a.path.empty())
    throw UserError(command + ": missing EXPERIMENT.yaml (see trainsim " + command + " --help)");
  add_topology_overrides(vm, a.overrides);
  write_summary(
      vm, run_experiment(with_scalesim_config(vm, load_experiment(a.path, a.overrides)), options));
  return 0;
}

}  // namespace trainsim
