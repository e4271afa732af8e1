#pragma once
// `trainsim run` (and validate) for experiments with a `system:` of several devices.
#include <string>

#include "sim/data/dataset_registry.h"
#include "sim/run/experiment_runner.h"

namespace trainsim {

RunResult run_system_experiment(const ExperimentSpec& spec, const RunOptions& options);
/// Everything the run does before its first batch; a one-line summary.
std::string check_system_experiment(const ExperimentSpec& spec);

/// The dataset's shape, after checking that the network fits it (UserError if not).
DatasetShape checked_data_shape(const ExperimentSpec& spec);

}  // namespace trainsim
