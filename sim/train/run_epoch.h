#pragma once
// What one epoch of a run leaves behind: the numerics' metrics and, when the run is timed on
// the accelerator, the simulated cost of its training and evaluation ops. The reports are
// written from a list of these; a checkpoint keeps the list so a resumed run writes them again.
#include <array>

#include "sim/train/accel_session.h"
#include "sim/train/trainer.h"

namespace trainsim {

struct RunEpoch {
  EpochMetrics metrics;
  std::array<OpTotals, kNumPhases> sim;  ///< training and evaluation ops of the epoch
  /// Mean cycles of one sample's step: training time without the updates, per sample (the
  /// "time per step" of Purkayastha et al. 2025).
  double step_cycles() const {
    const OpTotals& t = sim[0];
    const std::int64_t samples = metrics.train.samples;
    return samples > 0 ? static_cast<double>(t.elapsed_cycles - t.update_cycles) / samples : 0.0;
  }
};

}  // namespace trainsim
