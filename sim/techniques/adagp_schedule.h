#pragma once
// ADA-GP's phase schedule (Janfaza et al., MICRO '23, sections 3.1 and 3.5): `warmup_epochs` epochs
// of Warm Up (backprop, predictor trained), then within every epoch Phase GP for k batches followed
// by Phase BP for m batches, repeated. The (k, m) ratio comes from TechniqueSpec::schedule, whose
// entries are consumed epoch by epoch after the warm-up: the paper's heuristic is 4:1 for 4 epochs,
// 3:1 for 4, 2:1 for 4, then 1:1 for the rest of training.
#include <array>
#include <cstdint>
#include <vector>

#include "sim/config/specs.h"

namespace trainsim {

class AdagpSchedule {
 public:
  static constexpr int kWarmUp = 0;
  static constexpr int kPhaseBp = 1;
  static constexpr int kPhaseGp = 2;

  explicit AdagpSchedule(const TechniqueSpec& spec);

  /// The phase of batch `batch_in_epoch` (0-based) of epoch `epoch` (0-based):
  /// kWarmUp, kPhaseBp or kPhaseGp.
  int phase(int epoch, std::int64_t batch_in_epoch) const;
  /// The (k, m) = (GP batches, BP batches) ratio in force in `epoch` (after the warm-up).
  std::array<int, 2> ratio(int epoch) const;

 private:
  int warmup_epochs_;
  std::vector<std::array<int, 3>> entries_;  // (k, m, epochs); epochs 0 = forever
};

/// The kind of every training batch of `epoch` (0-based) under technique `t`: 0 backprop
/// (ADA-GP's Warm Up too), 1 Phase BP, 2 Phase GP; all 0 for a technique without phases.
std::vector<int> epoch_batch_kinds(const TechniqueSpec& t, int epoch, std::int64_t batches);

}  // namespace trainsim
