#pragma once
// `trainsim run` (and validate) for experiments with a `hype:` system (sim/hype/hype_spec.h).
#include <string>

#include "sim/run/experiment_runner.h"

namespace trainsim {

RunResult run_hype_experiment(const ExperimentSpec& spec, const RunOptions& options);
/// Everything the run does before its first batch; a one-line summary.
std::string check_hype_experiment(const ExperimentSpec& spec);

}  // namespace trainsim
