#pragma once
// The files `trainsim run` writes (all deterministic; wall times go to timing.json):
//   epochs.csv  per epoch: losses, accuracies, and the simulated training cost (cycles,
//               seconds at the accelerator clock, DRAM bytes, energy) plus evaluation's
//   layers.csv  per phase x layer x role: ops, MACs, cycles, utilization, accesses per
//               level, DRAM bytes, energy
//   stats.json  one tree: run settings, status ("complete" / "incomplete"), energy unit,
//               totals per phase, per epoch, per layer x role, per unit (PE array, vector
//               unit, buffer, DRAM channel)
// Energy columns are named by the energy table's unit (energy_pj, energy_norm).
#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/data/dataset.h"
#include "sim/train/accel_session.h"
#include "sim/train/run_epoch.h"
#include "sim/train/trainer.h"

namespace trainsim {

/// Ops, elapsed cycles and seconds, counters and priced energy of `t` (stats.json's unit).
nlohmann::ordered_json totals_json(const OpTotals& t, const AcceleratorSpec& acc);

std::string run_epochs_csv(const std::vector<RunEpoch>& epochs, const AcceleratorSpec& acc);
std::string run_layers_csv(const AcceleratorSession& session);
std::string run_stats_json(const ExperimentSpec& spec, const Dataset& data, Network<float>& net,
                           const std::vector<RunEpoch>& epochs, AcceleratorSession& session,
                           std::int64_t storage_bytes, const std::string& status);
/// The table printed at the end of a run.
std::string run_summary(const std::vector<RunEpoch>& epochs, AcceleratorSession& session);

}  // namespace trainsim
