#pragma once
// ADA-GP's phase schedule (Janfaza et al., MICRO '23, sections 3.1 and 3.5): `warmup_epochs` epochs
// of Warm Up (backprop, predictor trained), then within every epoch Phase GP for k batches followed
// by Phase BP for m batches, repeated. The (k, m) ratio comes from TechniqueSpec::schedule, whose
// entries are consumed epoch by epoch after the warm-up: the paper's heuristic is 4:1 for 4 epochs,
// 3:1 for 4, 2:1 for 4, then 1:1 for the rest of training.
#include <array>
#include <cstdint>
#include <vector>

#include "sim/spec/specs.h"

namespace trainsim {

class AdagpSchedule {
 public:
  static constexpr int kWarmUp = 0;
  static constexpr int kPhaseBp = 1;
  static constexpr int kPhaseGp = 2;
  static constexpr int kPhases = 3;
  /// The phases' names in reports: stats.json keys and the run summary's titles.
  static constexpr const char* kPhaseKeys[kPhases] = {"warmup", "bp", "gp"};
  static constexpr const char* kPhaseTitles[kPhases] = {"warm-up", "Phase BP", "Phase GP"};

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

}  // namespace trainsim
