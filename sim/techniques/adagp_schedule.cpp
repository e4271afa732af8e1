#include "sim/techniques/adagp_schedule.h"
#include "sim/techniques/adagp_settings.h"

namespace trainsim {

AdagpSchedule::AdagpSchedule(const TechniqueSpec& spec)
    : warmup_epochs_(spec.get<AdaGpSettings>().warmup_epochs),
      entries_(spec.get<AdaGpSettings>().schedule) {}

std::array<int, 2> AdagpSchedule::ratio(int epoch) const {
  // No entries: nothing says how to predict, so backprop only (k = 0).
  if (entries_.empty()) return {0, 1};
  int e = epoch - warmup_epochs_;
  for (const auto& entry : entries_) {
    if (entry[2] <= 0 || e < entry[2]) return {entry[0], entry[1]};
    e -= entry[2];
  }
  // The list ran out: its last entry continues for the rest of training.
  return {entries_.back()[0], entries_.back()[1]};
}

int AdagpSchedule::phase(int epoch, std::int64_t batch_in_epoch) const {
  if (epoch < warmup_epochs_) return kWarmUp;
  const auto [k, m] = ratio(epoch);
  if (k <= 0) return kPhaseBp;
  if (m <= 0) return kPhaseGp;
  // "Initially, it proceeds with Phase GP" (section 3.5): each cycle is k GP then m BP.
  return batch_in_epoch % (k + m) < k ? kPhaseGp : kPhaseBp;
}

}  // namespace trainsim
