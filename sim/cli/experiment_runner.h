#pragma once
// One experiment, start to finish: load the data, train epoch by epoch (optionally timing
// every op on the simulated accelerator), print progress and per-epoch lines, and write the
// output directory (staged: it appears only when complete). Shared by `trainsim train`
// (numerics only), `trainsim run` and `trainsim compare`.
#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "sim/config/specs.h"
#include "sim/report/run_report.h"

namespace trainsim {

struct RunOptions {
  bool simulate = false;  ///< time every op on spec.sim's accelerator (trainsim run)
  bool quiet = false;     ///< only the final line
};

/// What `compare` needs from a finished run.
struct RunResult {
  /// Per epoch: test accuracy, training seconds at the accelerator clock, cycles per step.
  struct Epoch {
    double test_accuracy = 0, seconds = 0, step_cycles = 0, hit_rate = -1;
  };
  std::vector<Epoch> epochs;
  double clock_ghz = 1;
  double test_accuracy = 0;
  std::int64_t cycles = 0;   ///< training ops, all epochs
  double seconds = 0;        ///< at the accelerator clock
  double energy = 0;         ///< in the energy table's unit
  double memory_energy = 0;  ///< of it: global buffer and DRAM accesses (the paper's figure)
  bool has_accuracy = true;  ///< false for shape-only runs (numerics: none)
  std::string energy_unit;
  std::int64_t dram_bytes = 0;
  double utilization = 0;
};

/// Trains (numerics: float) or times the schedule from shapes (numerics: none).
RunResult run_experiment(const ExperimentSpec& spec, const RunOptions& options);
/// The numerics: none case (sim/cli/shape_only_runner.cpp).
RunResult run_shape_only_experiment(const ExperimentSpec& spec, const RunOptions& options);

/// The options train / run / compare share: EXPERIMENT (positional), --out, --set, --quiet.
boost::program_options::options_description experiment_options(const std::string& command);

struct ExperimentArgs {
  std::string path;
  std::vector<std::string> overrides;  ///< --set in order, then --out as output.dir
  bool quiet = false;
};
/// Parses `args` against `opts` (which must include experiment_options()).
ExperimentArgs parse_experiment_args(const std::string& command,
                                     const std::vector<std::string>& args,
                                     const boost::program_options::options_description& opts,
                                     boost::program_options::variables_map* vm_out = nullptr);

}  // namespace trainsim
