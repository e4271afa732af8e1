#pragma once
// The kinds of run an experiment can be, one registry (`trainsim list runs`): which kind an
// experiment is follows from its spec, and each kind runs it, checks it (trainsim validate)
// and says what it writes. A new kind of run is a runner file plus one line in run_kinds.cpp;
// run_experiment() and check_experiment() only look the kind up.
#include <string>
#include <vector>

#include "sim/report/stats_header.h"
#include "sim/run/experiment_runner.h"
#include "sim/spec/specs.h"

namespace trainsim {

struct RunKindInfo {
  const char* name;  ///< stats.json's "kind" when simulated (RunKind)
  std::string description;
  /// Whether this kind runs `spec` (`simulate`: trainsim run, else trainsim train); the first
  /// kind in registry order that claims an experiment runs it.
  bool (*claims)(const ExperimentSpec& spec, bool simulate);
  RunResult (*run)(const ExperimentSpec& spec, const RunOptions& options);
  std::string (*check)(const ExperimentSpec& spec, bool simulate);
  bool chakra = false;  ///< writes Chakra execution traces (--chakra)
};

/// Every kind, in the order they are asked.
const std::vector<RunKindInfo>& run_kinds();
/// The kind that runs `spec`.
const RunKindInfo& run_kind_of(const ExperimentSpec& spec, bool simulate);

}  // namespace trainsim
