#pragma once
// The files a `trainsim train` run leaves in its output directory:
//   epochs.csv           one row per epoch: losses and accuracies (deterministic)
//   stats.json           the run as one tree: experiment, network, dataset, epochs, final
//                        (deterministic: same experiment and seed give identical bytes)
//   timing.json          wall-clock times, which differ run to run, kept apart on purpose
//   config.resolved.yaml written by the caller
#include <string>
#include <vector>

#include "sim/config/specs.h"
#include "sim/data/dataset.h"
#include "sim/nn/network.h"
#include "sim/train/trainer.h"

namespace trainsim {

std::string epochs_csv(const std::vector<EpochMetrics>& epochs);
std::string stats_json(const ExperimentSpec& spec, const Dataset& data, Network<float>& net,
                       const std::vector<EpochMetrics>& epochs);
std::string timing_json(const std::vector<EpochMetrics>& epochs, double load_seconds);

}  // namespace trainsim
