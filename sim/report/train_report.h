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
/// An epoch's per-layer statistics of the technique's own model, under the key and in the
/// form the technique gives them (TechniqueInfo::layer_stats); nothing if it reports none.
void add_layer_stats(const TechniqueSpec& technique, const std::shared_ptr<const LayerStats>& stats,
                     const Network<float>& net, nlohmann::ordered_json& epoch);
/// The technique's per-layer statistics file (`<key>.csv`) and its text; false if the
/// technique reports none or no epoch has any.
bool layer_stats_file(const TechniqueSpec& technique, const std::vector<EpochMetrics>& epochs,
                      const Network<float>& net, std::string& name, std::string& text);
/// `status`: "complete", or "incomplete" while (or after) a run stopped before its last epoch.
std::string stats_json(const ExperimentSpec& spec, const Dataset& data, Network<float>& net,
                       const std::vector<EpochMetrics>& epochs, const std::string& status);
/// Wall times and peak memory (all that may differ run to run), the numerics' thread count
/// and each epoch's training multiply-adds.
std::string timing_json(const std::vector<EpochMetrics>& epochs, double load_seconds, int threads);

}  // namespace trainsim
