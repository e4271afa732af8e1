#pragma once
// The files a `trainsim train` run leaves in its output directory:
//   epochs.csv           one row per epoch: losses and accuracies (deterministic)
//   predictor.csv        ADA-GP only: per epoch x predicted layer, the predictor's MSE, MAPE
//                        and cosine against the true gradients on the epoch's backprop
//                        batches, and its calibration gain (also written by `trainsim run`);
//                        with `diagnostics: true` also Phase GP's applied gradients against
//                        the true ones and the true gradients' persistence (GradientDiagnostics)
//   stats.json           the run as one tree: experiment, status, network, dataset, epochs, final
//                        (deterministic: same experiment and seed give identical bytes)
//   timing.json          wall-clock times, which differ run to run, kept apart on purpose,
//                        with the thread count and each epoch's training multiply-adds
//                        (what a FLOP/s figure divides by the time)
//   config.resolved.yaml written by the caller
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/data/dataset.h"
#include "sim/nn/network.h"
#include "sim/report/epoch_table.h"
#include "sim/spec/specs.h"
#include "sim/train/trainer.h"

namespace trainsim {

std::string epochs_csv(const std::vector<EpochMetrics>& epochs);
/// An epoch's numerics in epochs.csv's common cells (sim/report/epoch_table.h).
EpochCells metrics_cells(const EpochMetrics& e);
/// True when any epoch carries predictor statistics (the technique predicts gradients).
bool has_predictor_stats(const std::vector<EpochMetrics>& epochs);
std::string predictor_csv(const std::vector<EpochMetrics>& epochs, Network<float>& net);
/// One epoch's predictor statistics as stats.json lists them.
nlohmann::ordered_json predictor_json(const std::vector<PredictorLayerStats>& stats,
                                      Network<float>& net);
/// `status`: "complete", or "incomplete" while (or after) a run stopped before its last epoch.
std::string stats_json(const ExperimentSpec& spec, const Dataset& data, Network<float>& net,
                       const std::vector<EpochMetrics>& epochs, const std::string& status);
/// Wall times and peak memory (all that may differ run to run), the numerics' thread count
/// and each epoch's training multiply-adds.
std::string timing_json(const std::vector<EpochMetrics>& epochs, double load_seconds, int threads);

}  // namespace trainsim
