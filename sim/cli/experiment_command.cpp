#include "sim/cli/experiment_command.h"

#include "sim/cli/experiment_args.h"
#include "sim/core/error.h"
#include "sim/io/file_set.h"
#include "sim/io/memo_store.h"
#include "sim/run/experiment_file.h"
#include "sim/run/experiment_runner.h"
#include "sim/sweep/sweep_table.h"

#include <filesystem>
#include <optional>

namespace po = boost::program_options;

namespace trainsim {

namespace {
// --summary FILE: written beside and renamed over, so a reader (a sweep deciding whether the
// point finished) never sees half a file.
void write_summary(const po::variables_map& vm, const RunResult& r) {
  if (!vm.count("summary")) return;
  PointResult p;
  p.seconds = r.seconds;
  if (r.cycles) p.cycles = static_cast<double>(*r.cycles);
  p.energy = r.energy;
  p.energy_unit = r.energy_unit;
  p.dram_bytes = static_cast<double>(r.dram_bytes);
  p.utilization = r.utilization;
  if (r.has_accuracy) p.test_accuracy = r.test_accuracy;
  const std::string path = vm["summary"].as<std::string>();
  write_text_file(path, point_result_json(p));
}
}  // namespace

// --summary FILE replaces only a summary trainsim wrote (it carries a checksum); checked
// before the run, not after it.
static void check_summary_target(const po::variables_map& vm, const std::string& command) {
  if (!vm.count("summary")) return;
  const std::string path = vm["summary"].as<std::string>();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return;
  try {
    if (std::filesystem::is_regular_file(path, ec) && read_point_result(path)) return;
  } catch (const UserError&) {
  }
  throw UserError(command + ": --summary '" + path +
                  "' exists and is not a summary trainsim wrote: move it away, or choose "
                  "another file");
}

int run_or_train(const std::string& command, const std::vector<std::string>& args, bool simulate) {
  po::options_description opts =
      experiment_options(kOptAll | (simulate ? kOptScaleSim | kOptMemo : 0));
  opts.add_options()("resume", po::value<std::string>()->value_name("DIR"),
                     "continue the incomplete run in DIR from its last completed epoch (no "
                     "EXPERIMENT.yaml, --set, --out or --force with it)")(
      "summary", po::value<std::string>()->value_name("FILE"),
      "also write the headline figures (seconds, cycles, energy, DRAM bytes, utilization, "
      "test accuracy) as JSON to FILE when the run ends (trainsim sweep reads it)")(
      "chakra", po::value<std::string>()->value_name("DIR"),
      "a run on a system of devices: also write Chakra execution traces (one per device, "
      "for ASTRA-sim) of its timeline into DIR");
  po::variables_map vm;
  const ExperimentArgs a = parse_experiment_args(command, args, opts, &vm, /*optional_path=*/true);
  check_summary_target(vm, command);
  RunOptions options;
  options.simulate = simulate;
  options.quiet = a.quiet;
  options.force = a.force;
  options.report = a.report;
  if (vm.count("chakra")) options.chakra_dir = vm["chakra"].as<std::string>();
  if (vm.count("resume")) {
    if (!a.path.empty() || !a.overrides.empty() || a.force || !a.scalesim_config.empty())
      throw UserError(command +
                      " --resume DIR continues the run as it was configured: give no "
                      "EXPERIMENT.yaml, --set, --out, --force or --scalesim-* with it");
    options.resume = true;
    const ExperimentSpec spec = load_resumable_experiment(vm["resume"].as<std::string>(), command);
    check_memo_outside(a, spec.output.dir, command);
    std::optional<MemoScope> memo;
    if (!a.memo.empty()) memo.emplace(a.memo);
    write_summary(vm, run_experiment(spec, options));
    return 0;
  }
  if (a.path.empty())
    throw UserError(command + ": missing EXPERIMENT.yaml (see trainsim " + command + " --help)");
  const ExperimentSpec spec = load_experiment(a);
  check_memo_outside(a, spec.output.dir, command);
  std::optional<MemoScope> memo;  // op costs kept across processes (sim/io/memo_store.h)
  if (!a.memo.empty()) memo.emplace(a.memo);
  write_summary(vm, run_experiment(spec, options));
  return 0;
}

}  // namespace trainsim
