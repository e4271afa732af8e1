#pragma once
// How ADA-GP reports its predictor's quality per layer (TechniqueInfo::layer_stats): the
// `predictor` list of each epoch in stats.json and predictor.csv.
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "sim/core/state_archive.h"
#include "sim/nn/network.h"
#include "sim/techniques/predictor_stats.h"

namespace trainsim {

nlohmann::ordered_json predictor_stats_json(const LayerStats& stats, const Network<float>& net);
std::string predictor_stats_csv(const std::vector<std::pair<int, const LayerStats*>>& epochs,
                                const Network<float>& net);
/// An epoch's rows in a checkpoint: their count, then each row's bytes (an epoch without
/// rows, a count of 0, restores as none).
void archive_predictor_stats(StateArchive& a, std::shared_ptr<const LayerStats>& stats);

}  // namespace trainsim
