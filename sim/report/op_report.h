#pragma once
// Human-readable and JSON views of one op's cost (used by `trainsim layer`; the JSON shape
// is also what per-layer rows of a training run are built from).
#include <nlohmann/json.hpp>
#include <string>

#include "sim/accel/energy.h"
#include "sim/spec/accel_spec.h"
#include "sim/spec/op_stats.h"

namespace trainsim {

nlohmann::ordered_json stats_json(const OpStats& s, const AcceleratorSpec& acc);
nlohmann::ordered_json energy_json(const EnergyBreakdown& e, const std::string& unit);
/// SCALE-Sim's four per-layer figures, under its conventions.
nlohmann::ordered_json scalesim_json(const ScaleSimView& v);

/// Multi-line table: cycles, utilization, MACs, accesses per level per operand, DRAM,
/// energy by level.
std::string stats_text(const OpStats& s, const EnergyBreakdown& e, const AcceleratorSpec& acc);

}  // namespace trainsim
