#pragma once
// The results directory of a run on a Hype-training system (sim/run/hype_runner.cpp,
// docs/hype.md#reports):
//   stats.json     the system, the iteration under the policy and under gpu-only, the gains
//                  (throughput, energy efficiency, average power), counts, every epoch
//   epochs.csv     per epoch: accuracy (real runs), simulated seconds, samples/s, energy,
//                  average and peak power, cap violations; gpu-only's seconds and energy
//   ops.csv        per op of one iteration: its costs on both devices, characterization, plan,
//                  where it ran and when
//   placement.csv  Table 2 of He et al.: per op type, the share of ops and of GPU time offloaded
//   devices.csv    per device of one replica: ops, busy / waiting time, energy, power
//   links.csv      per host-link direction: transfers, bytes, busy time, energy
//   power.csv      the system's average and peak draw over one iteration, policy and gpu-only
//   timeline.json  Chrome trace of one iteration: a track per device and per link direction
#include <cstdint>
#include <string>
#include <vector>

#include "sim/hype/hype_model.h"
#include "sim/spec/specs.h"

namespace trainsim {

struct HypeEpoch {
  double seconds = 0, energy_j = 0, violations = 0;
  double gpu_only_seconds = 0, gpu_only_energy_j = 0, gpu_only_violations = 0;
  bool has_accuracy = false;
  double test_accuracy = 0, test_loss = 0;
};

struct HypeRunData {
  const ExperimentSpec* spec = nullptr;
  const NetShape* net = nullptr;
  const HypeIteration* it = nullptr;  ///< one iteration at the full batch
  std::int64_t train_samples = 0;     ///< trained on per epoch (training.drop_last: fewer)
  std::vector<HypeEpoch> epochs;
};

/// An epoch's simulated figures: `full` iterations of `it` and, if `rest` is not null, one of
/// the last, smaller batch.
HypeEpoch hype_epoch(const HypeIteration& it, std::int64_t full, const HypeIteration* rest);

std::string hype_stats_json(const HypeRunData& r);
std::string hype_epochs_csv(const HypeRunData& r);
std::string hype_ops_csv(const HypeRunData& r);
std::string hype_placement_csv(const HypeRunData& r);
std::string hype_devices_csv(const HypeRunData& r);
std::string hype_links_csv(const HypeRunData& r);
std::string hype_power_csv(const HypeRunData& r);
std::string hype_timeline_json(const HypeRunData& r);

}  // namespace trainsim
