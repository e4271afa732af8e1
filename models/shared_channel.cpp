#include "models/shared_channel.h"

#include <cmath>

#include "models/sim_time.h"

namespace trainsim {

using sc_core::sc_time;

void SharedChannel::configure(double units_per_cycle, std::int64_t latency_cycles, sc_time period,
                              const SpanBlame& blame) {
  period_ = period;
  blame_ = blame;
  units_per_cycle_ = units_per_cycle;
  latency_cycles_ = latency_cycles;
  busy_until_ = sc_core::SC_ZERO_TIME;
  units_moved_ = busy_cycles_ = contention_cycles_ = 0;
}

sc_time SharedChannel::transfer(const sc_time& issue, std::int64_t units) {
  if (units <= 0) return issue;
  units_moved_ += units;
  if (units_per_cycle_ <= 0)
    return after_cycles(issue, static_cast<double>(latency_cycles_), period_);
  const std::int64_t occupancy =
      checked_ceil(static_cast<double>(units) / units_per_cycle_, blame_);
  const sc_time start = issue > busy_until_ ? issue : busy_until_;
  contention_cycles_ += static_cast<std::int64_t>((start - issue) / period_ + 0.5);
  busy_until_ = after_cycles(start, static_cast<double>(occupancy), period_);
  busy_cycles_ += occupancy;
  return after_cycles(busy_until_, static_cast<double>(latency_cycles_), period_);
}

}  // namespace trainsim
