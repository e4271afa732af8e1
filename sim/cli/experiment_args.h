#pragma once
// The command line train / run / compare / validate share: EXPERIMENT.yaml (positional),
// -o/--out, -s/--set, -q/--quiet, -f/--force.
#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "sim/spec/specs.h"

namespace trainsim {

/// Which of the shared options a command takes.
enum ExperimentOption : unsigned {
  kOptOut = 1,
  kOptSet = 2,
  kOptQuiet = 4,
  kOptForce = 8,
  /// --no-report (commands that write a results directory with a report.html)
  kOptReport = 32,
  kOptAll = kOptOut | kOptSet | kOptQuiet | kOptForce | kOptReport,
  /// --scalesim-topology FILE.csv, --scalesim-config FILE.cfg (commands that time a run)
  kOptScaleSim = 16,
  /// --memo DIR (commands that price ops on an accelerator)
  kOptMemo = 64,
};

/// The visible options `which` selects; a command adds its own before parsing.
boost::program_options::options_description experiment_options(unsigned which = kOptAll);

struct ExperimentArgs {
  std::string path;                    ///< empty only if `optional_path` allowed it
  std::vector<std::string> overrides;  ///< --set in order, then --out as output.dir
  bool quiet = false;
  bool force = false;  ///< replace an existing results directory
  bool report = true;  ///< write report.html (no --no-report)
  /// --scalesim-config: applied over the loaded experiment's accelerator (load_experiment).
  /// --scalesim-topology is an override in `overrides`.
  std::string scalesim_config;
  /// --memo: the op-cost memo directory to read and extend (sim/io/memo_store.h); empty: none.
  std::string memo;
};

/// Parses `args` of `command` against `opts` (built from experiment_options()). A missing
/// EXPERIMENT.yaml is an error naming the command's usage unless `optional_path`.
ExperimentArgs parse_experiment_args(const std::string& command,
                                     const std::vector<std::string>& args,
                                     const boost::program_options::options_description& opts,
                                     boost::program_options::variables_map* vm_out = nullptr,
                                     bool optional_path = false);

/// The experiment `a` names, with its overrides and then its --scalesim-config: SCALE-Sim's
/// array, SRAMs, dataflow and bandwidth mode over the experiment's accelerator, as `trainsim
/// layer` applies them (the config's Dataflow replaces the experiment's dataflow too; without
/// one the experiment's stays). UserError for a config on an experiment with a system.
ExperimentSpec load_experiment(const ExperimentArgs& a);

/// Checks that --memo DIR is neither `results_dir` nor inside it (a results directory is
/// replaced whole); UserError naming both otherwise.
void check_memo_outside(const ExperimentArgs& a, const std::string& results_dir,
                        const std::string& command);

}  // namespace trainsim
