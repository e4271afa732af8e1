#pragma once
// The sections of a one-device run's report.html (sim/report/html/run_page.cpp), each drawn
// from the record alone: stats.json (`record`) and the layer table (layers.csv, or a
// shape-only run's batch_layers.csv). Each returns "" when the record has nothing for it.
#include <string>

#include "sim/report/html/html_page.h"
#include "sim/report/html/results_dir.h"

namespace trainsim {

/// Time, traffic and energy per phase, the energy split by component.
std::string phases_html(const nlohmann::ordered_json& record, const std::string& unit);
/// Cycles and energy per layer stacked by role, and the layer table itself.
std::string layers_html(const ResultsDir& dir, const std::string& file, const std::string& unit);
/// DRAM traffic against the compulsory minimum, per phase and per layer and role.
std::string dram_html(const ResultsDir& dir, const std::string& file,
                      const nlohmann::ordered_json& record);
/// Each unit's busy share of the run.
std::string units_html(const nlohmann::ordered_json& record);
/// The technique's own figures, as the technique declares them; "" for plain backprop.
std::string technique_html(const ResultsDir& dir, const nlohmann::ordered_json& record);

}  // namespace trainsim
