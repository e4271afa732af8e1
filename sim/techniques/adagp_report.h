#pragma once
// How ADA-GP reports its predictor's quality per layer (TechniqueInfo::layer_stats): the
// `predictor` list of each epoch in stats.json and predictor.csv.
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "sim/nn/network.h"
#include "sim/techniques/training_technique.h"

namespace trainsim {

nlohmann::ordered_json predictor_stats_json(const std::vector<PredictorLayerStats>& stats,
                                            const Network<float>& net);
std::string predictor_stats_csv(
    const std::vector<std::pair<int, const std::vector<PredictorLayerStats>*>>& epochs,
    const Network<float>& net);

}  // namespace trainsim
