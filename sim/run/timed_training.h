#pragma once
// What the runs on several devices (sim/run/system_runner.cpp, sim/run/hype_runner.cpp) share:
// they time the schedule with a model of their own and, with numerics: float, train the network
// for real exactly as on one device, epoch by epoch, beside it.
#include <memory>

#include "sim/data/dataset_registry.h"
#include "sim/run/experiment_runner.h"
#include "sim/run/progress_bar.h"
#include "sim/train/trainer.h"

namespace trainsim {

/// The trainer of `spec` on `dataset` (loaded here) if its numerics are real, else null.
std::unique_ptr<Trainer> real_trainer(const ExperimentSpec& spec,
                                      std::shared_ptr<const Dataset>& dataset);

/// The first line of the run's header: experiment, network, dataset, batch, epochs.
void print_run_line(const ExperimentSpec& spec, const DatasetShape& data, bool real);

/// Trains epoch `e` (0-based) with a progress bar labelled as `options` says.
EpochMetrics train_epoch(Trainer& trainer, const ExperimentSpec& spec, const RunOptions& options,
                         int e, const EtaClock& clock);

}  // namespace trainsim
